/*
 * How a forked child of the harness (a worker, a fuzz job) leaves: _exit,
 * so that nothing of the parent's (stdio buffers, atexit handlers, the
 * store) runs twice. In a coverage build (SL_COVERAGE, `make coverage`)
 * gcov's counts are written first: _exit skips the destructors that write
 * them, and the kernels run in the workers, so without this a campaign's
 * coverage of core/ would be lost. Each module keeps its own counts: the
 * kernels library (loaded with dlopen) writes its own when it is closed,
 * the executable's are written by __gcov_dump.
 */
#ifndef SL_CHILD_EXIT_H
#define SL_CHILD_EXIT_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#ifdef SL_COVERAGE
#include "providers.h"
void __gcov_dump(void); /* libgcov */
#endif

static inline _Noreturn void sl_child_exit(int code) {
#ifdef SL_COVERAGE
  sl_providers_unload();
  __gcov_dump();
#endif
  _exit(code);
}

/* exit() in a worker (a kernel's): the worker leaves at once with that
 * status, its own output flushed (into the capture), instead of running
 * the atexit handlers and destructors it inherited from the harness and
 * LibTorch. Those took over a second on a loaded 2-core machine, where a
 * kernel that called exit() was judged a timeout instead of a crash, and
 * they belong to the parent. */
static inline void sl__child_on_exit(int status, void *arg) {
  (void)arg;
  fflush(NULL);
  sl_child_exit(status);
}

/* Installed first thing in a forked worker: the handler registered last
 * runs first. */
static inline void sl_child_exit_on_exit(void) {
  on_exit(sl__child_on_exit, NULL);
}

#endif
