/*
 * Where a kernel died, as a crash's state: the function of a kernel
 * library whose frame is nearest the fault (ClusterFuzz keys crashes by
 * their top frames). A bug in code several ops share (an index walk, a
 * bounds check) crashes in one function whatever the op, so its crashes
 * are one defect; a crash in another function is another.
 *
 * The worker records the faulting thread's return addresses on the page it
 * shares with the harness and lets the signal kill it as it would have;
 * the harness names them after the worker is dead, where reading a
 * library's symbol table is safe (a signal handler may do next to
 * nothing). Names come from the library's own symbol table (.symtab:
 * static functions too), without the compiler's suffixes (".constprop.0",
 * "._omp_fn.1"), so that they hold across builds and machines.
 */
#ifndef SL_CRASH_STATE_H
#define SL_CRASH_STATE_H

#include <stddef.h>

enum { SL_CRASH_FRAMES = 32 };

typedef struct sl_crash_frames {
  volatile int n; /* frames recorded, 0 while nothing has crashed */
  void *pc[SL_CRASH_FRAMES];
} sl_crash_frames;

/* In the worker, once: on SIGSEGV, SIGBUS, SIGFPE, SIGILL or SIGABRT the
 * first faulting thread's frames go to *into, then the signal ends the
 * process. Nothing in a sanitizer's build (its own report says more). */
void sl_crash_state_arm(sl_crash_frames *into);

/* In the harness: "in function F of LIB" for the nearest frame of f in a
 * kernel library (one that holds a registered variant's kernel), or ""
 * when none is (a crash in the harness, or nothing recorded). */
void sl_crash_state_name(const sl_crash_frames *f, char *out, size_t len);

/* Whether a failure's message names a crash's state. */
int sl_crash_state_in(const char *message);

#endif
