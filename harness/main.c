/* scatterlab: differential testing and benchmarking of scatter/gather
 * kernels. The commands are in commands/. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "machine_load.h"

/* The OpenMP environment a command starts in, unless the user set it: the
 * runtimes (ours and LibTorch's) read it once, when they load, so main sets
 * it and starts the program again. unless: a variable whose presence means
 * the user chose (GOMP_SPINCOUNT also sets how long threads spin); when: a
 * condition on the machine (NULL: always). */
typedef struct sl__start_env {
  const char *cmd, *name, *value, *unless;
  int (*when)(void);
} sl__start_env;

/* Whether other processes keep at least a quarter of the machine busy
 * (0.15 s of /proc/stat, before the campaign starts anything). */
static int sl__machine_busy(void) {
  return sl_machine_busy_share(0.15) >= 0.25;
}

static const sl__start_env sl__start_envs[] = {
    /* Benchmarks bind the kernels' threads to cores, so that a team keeps
     * its cores between rounds and both arms of a comparison alike. */
    {"bench", "OMP_PLACES", "cores", "OMP_PROC_BIND", NULL},
    {"bench", "OMP_PROC_BIND", "close", NULL, NULL},
    {"ab", "OMP_PLACES", "cores", "OMP_PROC_BIND", NULL},
    {"ab", "OMP_PROC_BIND", "close", NULL, NULL},
    /* A campaign on a busy machine (a CI runner's other jobs): a thread
     * waiting at a barrier sleeps instead of spinning away the scheduler
     * slices of a core another process took. On an idle machine spinning
     * is faster (a sleeping team must be woken at every region:
     * docs/performance-figures.md), so the runtime's default stays there. */
    {"fuzz", "OMP_WAIT_POLICY", "passive", "GOMP_SPINCOUNT", sl__machine_busy},
};

/* Sets command cmd's start variables that are unset; whether any was. */
static int sl__set_start_env(const char *cmd) {
  int changed = 0;
  for (size_t i = 0; i < sizeof sl__start_envs / sizeof sl__start_envs[0];
       ++i) {
    const sl__start_env *e = &sl__start_envs[i];
    if (strcmp(cmd, e->cmd) != 0 || getenv(e->name)) continue;
    if (e->unless && getenv(e->unless)) continue;
    if (e->when && !e->when()) continue;
    setenv(e->name, e->value, 1);
    changed = 1;
  }
  return changed;
}

int main(int argc, char **argv) {
  /* Re-executing cannot loop: the second start finds every variable set.
   * If it fails, the command runs in the environment it has (bench and ab
   * state their binding and wait policy). */
  if (argc >= 2 && sl__set_start_env(argv[1])) execv("/proc/self/exe", argv);
  /* Past a file-size limit (ulimit -f) a write must fail with EFBIG, which
   * every writer reports naming its file, instead of SIGXFSZ killing the
   * process without a word and leaving its run marked `running`. Inherited
   * by the forked jobs and workers. */
  signal(SIGXFSZ, SIG_IGN);
  /* SCATTERLAB_CHECK_ARGS=1: check the command line and stop, exit 0 when
   * it parses and 2 when not, without opening a store or running a kernel:
   * the providers are loaded (their tables checked), --variants checked
   * against them and each output's folder looked at (cli.h). For checking
   * CI files and scripts before they run (tests/e2e/ci_examples.sh checks
   * examples/ci/ so). */
  const char *check = getenv("SCATTERLAB_CHECK_ARGS");
  if (check && strcmp(check, "0") != 0) sl_cli_parse_only = SL_CLI_CHECK_ARGS;
  return sl_cli_main(argc, argv);
}
