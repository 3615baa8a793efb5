/*
 * libsltest_hostile: a provider ("hostile") whose gather variants compute
 * the right answer and then do something to the process they run in, one
 * thing each, so that tests/providers/hostile.sh can prove that no kernel
 * reaches the store or the harness's own descriptors, and that what a
 * kernel leaves behind is blamed on it and on nothing after it (issue 48):
 *
 *   cpu.fd_writer     writes a log line to every descriptor below 64
 *   cpu.fd_census     fails, naming the descriptor, when it can see one
 *                     that is not close-on-exec or is a store's file
 *                     (.db, -wal, -shm, .lock)
 *   cpu.thread_crash  leaves a thread that crashes 500 ms later
 *   cpu.thread_write  leaves a thread that keeps writing to the output
 *   cpu.thread_ending correct, with a thread that ends 200 us after the
 *                     call returns (as a nested OpenMP team's threads
 *                     do): no fault, and not one to report
 *   cpu.fork          forks; both processes return
 *   cpu.close_all     closes every descriptor from 3 up
 *   cpu.exit0         calls exit(0)
 *   cpu.segv_later    correct on its first 20 calls in a process, then
 *                     writes through NULL (a crash in the timing only)
 *   cpu.hang_later    correct on its first 20 calls in a process, then
 *                     sleeps for good (a hang in the timing only)
 *   cpu.scribble      right answer, then writes 0x7f over every element
 *                     of its input x (uses it as scratch)
 *   cpu.scribble_later  as cpu.ok on its first 20 calls in a process,
 *                     then as cpu.scribble (a writer in the timing only)
 *   cpu.pid_log       correct; appends its process id to the file
 *                     named by SLTEST_PID_LOG (where the calls ran)
 *
 * Built a second time with SLTEST_TAME (libsltest_tame.so): the same names,
 * every one a plain correct gather, as the base of an `ab` whose candidate
 * is this library (tests/providers/isolate.sh).
 *
 * The library links nothing of scatterlab: sl_provider.h is all it needs.
 */
#define _GNU_SOURCE /* readlink, fork, pthread, usleep */

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sl/sl_provider.h"
#include "sltest_gather.h"

#ifdef SLTEST_TAME /* the misbehaviours are compiled, never used */
#pragma GCC diagnostic ignored "-Wunused-function"
#endif

static sl_status sltest_ok(sl_ctx *ctx, sl_call *c) {
  (void)ctx;
  sltest_gather_each(c, sltest_copy, NULL);
  return SL_STATUS_OK;
}

static sl_status sltest_fd_writer(sl_ctx *ctx, sl_call *c) {
  char line[64];
  for (int fd = 0; fd < 64; ++fd) {
    int n = snprintf(line, sizeof line, "sltest-hostile: a log line on fd %d\n",
                     fd);
    if (write(fd, line, (size_t)n) < 0) continue; /* not open: fine */
  }
  return sltest_ok(ctx, c);
}

/* Whether path is a file of a store or a run's lock. */
static int sltest_store_file(const char *path) {
  static const char *const tails[] = {".db", ".db-wal", ".db-shm", ".lock"};
  const size_t n = strlen(path);
  for (size_t i = 0; i < sizeof tails / sizeof tails[0]; ++i) {
    const size_t k = strlen(tails[i]);
    if (n >= k && strcmp(path + n - k, tails[i]) == 0) return 1;
  }
  return 0;
}

static sl_status sltest_fd_census(sl_ctx *ctx, sl_call *c) {
  for (int fd = 3; fd < 64; ++fd) {
    const int flags = fcntl(fd, F_GETFD);
    if (flags < 0) continue;
    char link[64], target[512] = "";
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, target, sizeof target - 1);
    target[n > 0 ? n : 0] = '\0';
    if (sltest_store_file(target) || !(flags & FD_CLOEXEC))
      return sl_provider_fail(ctx, SL_STATUS_INTERNAL,
                              "fd %d (%s) is open in the kernel's process%s",
                              fd, target,
                              flags & FD_CLOEXEC ? "" : ", not close-on-exec");
  }
  return sltest_ok(ctx, c);
}

static int *volatile sltest_null;

static void *sltest_crash_later(void *arg) {
  (void)arg;
  /* well past the guard's wait for exiting threads (50 ms), also on a
   * loaded runner: the worker is replaced before this crashes it */
  usleep(500000);
  *sltest_null = 1;
  return NULL;
}

/* Writes over the output it was handed, long after the call returned (the
 * harness has freed it or handed it to another variant by then). */
static void *sltest_write_on(void *arg) {
  volatile char *p = arg;
  for (;;) {
    p[0] = (char)0x11;
    usleep(100);
  }
  return NULL;
}

static sl_status sltest_leave_thread(sl_ctx *ctx, sl_call *c,
                                     void *(*fn)(void *), void *arg) {
  sl_status st = sltest_ok(ctx, c);
  pthread_t t;
  if (pthread_create(&t, NULL, fn, arg) == 0) pthread_detach(t);
  return st;
}

static sl_status sltest_thread_crash(sl_ctx *ctx, sl_call *c) {
  return sltest_leave_thread(ctx, c, sltest_crash_later, NULL);
}

static void *sltest_end_soon(void *arg) {
  (void)arg;
  usleep(200);
  return NULL;
}

static sl_status sltest_thread_ending(sl_ctx *ctx, sl_call *c) {
  return sltest_leave_thread(ctx, c, sltest_end_soon, NULL);
}

static sl_status sltest_thread_write(sl_ctx *ctx, sl_call *c) {
  if (!sltest_numel(&c->arg[2])) return sltest_ok(ctx, c);
  return sltest_leave_thread(ctx, c, sltest_write_on, c->arg[2].data);
}

static sl_status sltest_fork(sl_ctx *ctx, sl_call *c) {
  (void)fork();
  return sltest_ok(ctx, c);
}

static sl_status sltest_close_all(sl_ctx *ctx, sl_call *c) {
  for (int fd = 3; fd < 1024; ++fd) close(fd);
  return sltest_ok(ctx, c);
}

static sl_status sltest_exit0(sl_ctx *ctx, sl_call *c) {
  (void)ctx;
  (void)c;
  exit(0);
}

/* The calls a "later" variant makes as cpu.ok in a process: more than the
 * check of one case makes, fewer than its timing. */
#define SLTEST_LATER 20

static sl_status sltest_segv_later(sl_ctx *ctx, sl_call *c) {
  static int calls;
  if (++calls > SLTEST_LATER) *sltest_null = 1;
  return sltest_ok(ctx, c);
}

static sl_status sltest_hang_later(sl_ctx *ctx, sl_call *c) {
  static int calls;
  if (++calls > SLTEST_LATER)
    for (;;) pause();
  return sltest_ok(ctx, c);
}

static sl_status sltest_scribble(sl_ctx *ctx, sl_call *c) {
  const sl_status st = sltest_ok(ctx, c);
  const sl_tensor *x = &c->arg[0];
  if (sltest_numel(x)) /* every element x's view spans */
    memset(x->data, 0x7f,
           (size_t)sltest_end(x) * sl_provider_dtype_size(x->dtype));
  return st;
}

static sl_status sltest_scribble_later(sl_ctx *ctx, sl_call *c) {
  static int calls;
  return ++calls > SLTEST_LATER ? sltest_scribble(ctx, c) : sltest_ok(ctx, c);
}

static sl_status sltest_pid_log(sl_ctx *ctx, sl_call *c) {
  const char *path = getenv("SLTEST_PID_LOG");
  const int fd =
      path ? open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
                  0600)
           : -1;
  if (fd >= 0) {
    char line[32];
    const int n = snprintf(line, sizeof line, "%ld\n", (long)getpid());
    if (write(fd, line, (size_t)n) != n) {
      close(fd);
      return sl_provider_fail(ctx, SL_STATUS_INTERNAL, "cannot log to %s",
                              path);
    }
    close(fd);
  }
  return sltest_ok(ctx, c);
}

#ifdef SLTEST_TAME /* every name a correct gather (the base of an ab) */
#define SLTEST_FN(fn) sltest_ok
#else
#define SLTEST_FN(fn) fn
#endif

#define SLTEST_CAPS                                                            \
  {                                                                            \
    .dtypes = SL_DTYPES_ALL, .index_dtypes = SL_INDEX_DTYPES_ALL,              \
    .reduces = 0, .include_self = 0, .max_rank = SL_MAX_DIMS,                  \
    .layouts = SL_LAYOUTS_ALL                                                  \
  }

#define SLTEST_VARIANT(name, fn)                                               \
  { SL_OP_GATHER, name, SL_DEVICE_CPU, SLTEST_FN(fn), 0, SLTEST_CAPS }

static const sl_provider_variant sltest_variants[] = {
    SLTEST_VARIANT("cpu.ok", sltest_ok),
    SLTEST_VARIANT("cpu.fd_writer", sltest_fd_writer),
    SLTEST_VARIANT("cpu.fd_census", sltest_fd_census),
    SLTEST_VARIANT("cpu.thread_crash", sltest_thread_crash),
    SLTEST_VARIANT("cpu.thread_write", sltest_thread_write),
    SLTEST_VARIANT("cpu.thread_ending", sltest_thread_ending),
    SLTEST_VARIANT("cpu.fork", sltest_fork),
    SLTEST_VARIANT("cpu.close_all", sltest_close_all),
    SLTEST_VARIANT("cpu.exit0", sltest_exit0),
    SLTEST_VARIANT("cpu.segv_later", sltest_segv_later),
    SLTEST_VARIANT("cpu.hang_later", sltest_hang_later),
    SLTEST_VARIANT("cpu.scribble", sltest_scribble),
    SLTEST_VARIANT("cpu.scribble_later", sltest_scribble_later),
    SLTEST_VARIANT("cpu.pid_log", sltest_pid_log),
};

static const sl_provider sltest_provider = {
    .abi_version = SL_PROVIDER_ABI_VERSION,
    .size = sizeof(sl_provider),
#ifdef SLTEST_TAME
    .name = "tame",
#else
    .name = "hostile",
#endif
    .version = "test fixture",
    .n_variants = sizeof sltest_variants / sizeof sltest_variants[0],
    .variants = sltest_variants,
};

SL_PROVIDER_ENTRY { return &sltest_provider; }
