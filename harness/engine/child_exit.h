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

#endif
