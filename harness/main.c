/* scatterlab: differential testing and benchmarking of scatter/gather
 * kernels. The commands are in commands/. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"

int main(int argc, char **argv) {
  /* Benchmarks bind OpenMP threads to cores. The runtime reads its
   * environment when it loads, so set it and start again. */
  if (argc >= 2 && strcmp(argv[1], "bench") == 0 && !getenv("OMP_PROC_BIND")) {
    setenv("OMP_PROC_BIND", "close", 1);
    setenv("OMP_PLACES", "cores", 1);
    execv("/proc/self/exe", argv);
    /* If re-executing fails, run unbound; the output states the binding. */
  }
  /* Past a file-size limit (ulimit -f) a write must fail with EFBIG, which
   * every writer reports naming its file, instead of SIGXFSZ killing the
   * process without a word and leaving its run marked `running`. Inherited
   * by the forked jobs and workers. */
  signal(SIGXFSZ, SIG_IGN);
  /* SCATTERLAB_CHECK_ARGS=1: check the command line and stop, exit 0 when
   * it parses and 2 when not, without opening a store, loading a provider
   * or running a kernel: for checking CI files and scripts before they run
   * (tests/e2e/ci_examples.sh checks examples/ci/ so). */
  const char *check = getenv("SCATTERLAB_CHECK_ARGS");
  if (check && strcmp(check, "0") != 0) sl_cli_parse_only = 1;
  return sl_cli_main(argc, argv);
}
