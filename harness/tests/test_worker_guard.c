/*
 * The worker's guard (worker_guard.h) on threads a "kernel" leaves behind:
 * one that is still runnable when the call returns (as a team's thread
 * that waits for a core on a busy machine) is waited for until it ends,
 * also beside busy processes (its exit was once taken for a sleep);
 * one left sleeping is reported at the short wait, one left running at the
 * long one. A kernel whose last team is smaller than the OpenMP pool
 * (libgomp ends the threads it leaves out), followed by one with the full
 * team, is blamed for neither.
 */
#define _GNU_SOURCE /* usleep */
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "sl_test.h"
#include "worker_guard.h"
#ifdef _OPENMP
#include <omp.h>
#endif

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Runnable for arg milliseconds of wall time, then ends. */
static void *spin_ms(void *arg) {
  const double end = now_s() + 1e-3 * (double)(long)arg;
  while (now_s() < end) {
  }
  return NULL;
}

static void *sleep_ms(void *arg) {
  usleep((useconds_t)(1000 * (long)arg));
  return NULL;
}

/* Leaves fn(ms) running, then checks the guard: its verdict, why in why,
 * the seconds the check took in took. */
static int leave_and_check(sl_worker_guard *g, void *(*fn)(void *), long ms,
                           char *why, size_t len, double *took) {
  sl_worker_guard_mark(g);
  pthread_t t;
  if (pthread_create(&t, NULL, fn, (void *)ms) != 0) return -1;
  pthread_detach(t);
  const double t0 = now_s();
  const int damaged = sl_worker_guard_check(g, why, len);
  *took = now_s() - t0;
  return damaged;
}

#ifdef _OPENMP
static void team_of(int n) {
  static volatile int ran;
#pragma omp parallel num_threads(n)
  if (omp_get_thread_num() == 0) ran = 1;
  (void)ran;
}

/* A kernel that ends on a team of 2 of the pool's 4 (libgomp ends the 2
 * left out: waited for), then a kernel on all 4 (libgomp starts 2 new). */
static void check_pool_shrinks_and_grows(int in, int out) {
  sl_worker_guard g;
  sl_worker_guard_init(&g, in, out, 4);
  const long full = sl_worker_guard_threads_listed();
  char why[256] = "";
  team_of(4);
  team_of(2);
  const double t0 = now_s();
  /* LLVM's libomp (the TSan build's) keeps them: no wait then. */
  while (sl_worker_guard_threads_listed() > full - 2 && now_s() - t0 < 0.5)
    usleep(1000);
  CHECK_MSG(sl_worker_guard_check(&g, why, sizeof why) == 0,
            "a kernel ending on a smaller team: %s", why);
  team_of(4);
  CHECK_MSG(sl_worker_guard_check(&g, why, sizeof why) == 0,
            "a full team after a smaller one: %s", why);
}
#endif

int main(void) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) return 1;
#ifdef _OPENMP
  check_pool_shrinks_and_grows(pipe_fds[0], pipe_fds[1]);
#endif
  sl_worker_guard g;
  sl_worker_guard_init(&g, pipe_fds[0], pipe_fds[1], 1);
  char why[256] = "";
  double took = 0;

  /* Runnable past the 50 ms a sleeping thread gets: waited for. */
  int damaged = leave_and_check(&g, spin_ms, 150, why, sizeof why, &took);
  CHECK_MSG(damaged == 0, "a thread ending after 150 ms runnable: %s", why);
  CHECK_MSG(took >= 0.1, "returned after %.3f s, before the thread ended",
            took);

  /* Sleeping: reported at the short wait, not the long one. */
  why[0] = '\0';
  const long had = sl_worker_guard_threads_listed();
  damaged = leave_and_check(&g, sleep_ms, 3000, why, sizeof why, &took);
  CHECK(damaged == 1);
  CHECK_CONTAINS(why, "left 1 thread running after it returned");
  /* Threads, not the link count of /proc/self/task (2 more). */
  char counts[64];
  snprintf(counts, sizeof counts, "had %ld before the call, %ld after", had,
           had + 1);
  CHECK_CONTAINS(why, counts);
  CHECK_MSG(took < 0.9, "a sleeping thread took the long wait: %.3f s", took);

  /* Running for good: reported once the long wait is over. */
  why[0] = '\0';
  damaged = leave_and_check(&g, spin_ms, 4000, why, sizeof why, &took);
  CHECK(damaged == 1);
  CHECK_CONTAINS(why, "left 1 thread running after it returned");
  CHECK_MSG(took >= 0.9, "a running thread was reported after %.3f s", took);
  return sl_test_finish("test_worker_guard");
}
