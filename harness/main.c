/* scatterlab: differential testing and benchmarking of scatter/gather
 * kernels. The commands are in commands.c and cmd_*.c. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

int main(int argc, char **argv) {
  /* Benchmarks bind OpenMP threads to cores. The runtime reads its
   * environment when it loads, so set it and start again. */
  if (argc >= 2 && strcmp(argv[1], "bench") == 0 && !getenv("OMP_PROC_BIND")) {
    setenv("OMP_PROC_BIND", "close", 1);
    setenv("OMP_PLACES", "cores", 1);
    execv("/proc/self/exe", argv);
    /* If re-executing fails, run unbound; the output states the binding. */
  }
  return sl_cli_main(argc, argv);
}
