/* The worker's checks after each variant (worker_guard.h). */
#define _GNU_SOURCE /* syscall */
#include "worker_guard.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#ifdef __linux__
#include <sys/prctl.h>
#endif

/* Set by the fork handlers: in the worker when a kernel forked, in the copy
 * that fork made. */
static volatile sig_atomic_t sl__forked, sl__copy;

static void sl__on_fork_parent(void) { sl__forked = 1; }

static void sl__on_fork_child(void) {
  sl__copy = 1;
#ifdef __linux__
  /* A copy that never comes back to the harness (it loops, or runs
   * something else) ends with the worker, which is about to be replaced. */
  prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
}

static long sl__count_threads(const sl_worker_guard *g) {
  struct stat st;
  if (g->fds[2] < 0 || fstat(g->fds[2], &st) != 0) return -1;
  return (long)st.st_nlink;
}

/* Starts the OpenMP pool at its full size again. libgomp ends the pool's
 * threads that a smaller team leaves out (a kernel's last region of 2 of
 * 4 threads ends 2), and starts new ones for the next larger team: counted
 * from a shrunk pool, a kernel's first full team read as threads it left
 * running (with more threads than the default 2). A region with an effect:
 * an empty one is dropped by the compiler, and no thread starts. One
 * writer only (TSan read `+=` from every thread as a race). */
static void sl__pool_start(const sl_worker_guard *g) {
#ifdef _OPENMP
  static volatile int started;
  if (g->pool > 1) {
#pragma omp parallel num_threads(g->pool)
    if (omp_get_thread_num() == 0) started = 1;
  }
  (void)started;
#else
  (void)g;
#endif
}

void sl_worker_guard_init(sl_worker_guard *g, int in, int out, int threads) {
  memset(g, 0, sizeof *g);
  g->fds[0] = in;
  g->fds[1] = out;
  g->fds[2] = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  pthread_atfork(NULL, sl__on_fork_parent, sl__on_fork_child);
  /* The pool every OpenMP kernel of the harness's runtime draws from, at
   * the size the harness asks for: its threads exist before any call. */
  g->pool = threads;
  sl__pool_start(g);
  g->threads = sl__count_threads(g);
  sl__forked = 0;
}

/* The count now, after starting the pool again when the count fell below
 * `before` (threads ended: the pool may have shrunk). */
static long sl__count_refilled(const sl_worker_guard *g, long before) {
  long now = sl__count_threads(g);
  if (before >= 0 && now >= 0 && now < before) {
    sl__pool_start(g);
    now = sl__count_threads(g);
  }
  return now;
}

void sl_worker_guard_mark(sl_worker_guard *g) {
  g->threads = sl__count_refilled(g, g->threads);
  /* What happened before the mark is no kernel's: a device runtime that
   * spawns a helper process on its first call (the CUDA runtime without a
   * device ran nvidia-modprobe: every cuda.* variant read as "forked"). */
  sl__forked = 0;
}

int sl_worker_guard_is_copy(void) { return sl__copy != 0; }

/* Whether a thread of this process other than the caller is busy: any
 * state in /proc/self/task/TID/stat (after the command's closing
 * parenthesis) but sleeping or stopped, or a stat that cannot be read.
 * Runnable (R) has work left or waits for a core; D, Z, X and an unreadable
 * stat are a thread on its way out (one that had ended its work was seen
 * as Z, and as gone from the listing while still counted). A thread that
 * lives on as a kernel's leftover mostly sleeps (S). */
static int sl__other_thread_busy(void) {
  DIR *dir = opendir("/proc/self/task");
  if (!dir) return 0;
  const long self = (long)syscall(SYS_gettid);
  int busy = 0;
  for (struct dirent *e; !busy && (e = readdir(dir)) != NULL;) {
    const long tid = strtol(e->d_name, NULL, 10);
    if (tid <= 0 || tid == self) continue;
    char path[64], stat[512];
    snprintf(path, sizeof path, "/proc/self/task/%ld/stat", tid);
    FILE *f = fopen(path, "re");
    if (!f) {
      busy = 1;
      break;
    }
    const size_t n = fread(stat, 1, sizeof stat - 1, f);
    fclose(f);
    stat[n] = '\0';
    const char *close = strrchr(stat, ')');
    busy = !close || close[1] != ' ' || !strchr("STt", close[2]);
  }
  closedir(dir);
  return busy;
}

static long sl__elapsed_ns(const struct timespec *t0) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (t.tv_sec - t0->tv_sec) * 1000000000L + (t.tv_nsec - t0->tv_nsec);
}

/* The thread count once threads that are exiting have gone, waiting for
 * the count to fall to `before`: a nested OpenMP team runs on threads
 * libgomp starts for it, which exit just after the call returns. The wait
 * is 50 ms of wall time, longer (up to 1 s) while some thread is busy: on
 * a busy machine a thread that ends 200 us after the call can wait that
 * long for a core (it was still there after 5 ms beside two busy
 * processes, and after 50 ms once in `make test`), where a thread left
 * sleeping is seen at 50 ms. The wait ends early only on a few quiet
 * samples in a row: one sample can fall between a thread's last work and
 * its exit. A thread that lives on costs its kernel the wait once (the
 * worker is then replaced). */
static long sl__settled_threads(const sl_worker_guard *g, long before) {
  enum { quiet_samples = 5 };
  const struct timespec step = {0, 100000};
  struct timespec t0;
  long now = sl__count_threads(g);
  if (before < 0 || now <= before) return now;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int quiet = 0;
  for (long waited = 0; now > before; waited = sl__elapsed_ns(&t0)) {
    if (waited >= 1000000000L) break;
    if (waited >= 50000000L) {
      quiet = sl__other_thread_busy() ? 0 : quiet + 1;
      if (quiet >= quiet_samples) break;
    }
    nanosleep(&step, NULL);
    now = sl__count_threads(g);
  }
  return now;
}

long sl_worker_guard_threads_listed(void) {
  DIR *dir = opendir("/proc/self/task");
  if (!dir) return -1;
  long listed = 0;
  for (struct dirent *e; (e = readdir(dir)) != NULL;)
    listed += strtol(e->d_name, NULL, 10) > 0;
  closedir(dir);
  return listed;
}

/* Which of the worker's descriptors is closed: its index (3, 4, 5: its
 * stdin, stdout, stderr, which the next kernel's or the worker's own
 * writes would miss, or worse, reach a file opened since under that
 * number), or -1. In the poll that already ran: no cost. */
static int sl__fd_lost(const sl_worker_guard *g) {
  struct pollfd p[6];
  int n = 0;
  for (int i = 0; i < 3; ++i)
    if (g->fds[i] >= 0) p[n++] = (struct pollfd){g->fds[i], 0, 0};
  for (int fd = 0; fd < 3; ++fd) p[n++] = (struct pollfd){fd, 0, 0};
  if (poll(p, (nfds_t)n, 0) < 0) return errno == EINTR ? -1 : 0;
  for (int i = 0; i < n; ++i)
    if (p[i].revents & POLLNVAL) return i < n - 3 ? i : 3 + i - (n - 3);
  return -1;
}

int sl_worker_guard_check(sl_worker_guard *g, char *why, size_t len) {
  static const char *const names[6] = {"its request pipe", "its answer pipe",
                                       "/proc/self/task",  "its stdin",
                                       "its stdout",       "its stderr"};
  if (sl__forked) {
    snprintf(why, len, "forked a process (the worker it ran in was replaced)");
    return 1;
  }
  const int lost = sl__fd_lost(g);
  if (lost >= 0) {
    snprintf(why, len,
             "closed a descriptor of the worker it ran in (%s); the worker "
             "was replaced",
             names[lost]);
    return 1;
  }
  const long before = g->threads, now = sl__settled_threads(g, before);
  if (before >= 0 && now > before) {
    const long left = now - before, after = sl_worker_guard_threads_listed();
    snprintf(why, len,
             "left %ld thread%s running after it returned (the worker had "
             "%ld before the call, %ld after, its OpenMP and LibTorch pools "
             "included); the worker was replaced",
             left, left == 1 ? "" : "s", after - left, after);
    return 1;
  }
  g->threads = sl__count_refilled(g, before);
  return 0;
}
