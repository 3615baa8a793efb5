/* The scatterlab command line: the top-level help and the dispatch to the
 * commands (cmd_*.c). main.c and the CLI fuzz target call sl_cli_main. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "providers.h"
#include "runinfo.h"
#include "sl/sl.h"

static const char *const sl__help =
    "usage: scatterlab COMMAND [options]\n"
    "\n"
    "commands:\n"
    "  run      run cases on every variant, compare with LibTorch, record\n"
    "  list     ops, variants and whether each is available here\n"
    "  fuzz     random cases for every op, failures shrunk and kept\n"
    "  bench    time the variants that pass, beside LibTorch\n"
    "  ab       A/B two builds' kernels in one process (regression gate)\n"
    "  report   list runs, export CSV, or write the HTML report\n"
    "  import   run the case lines of CSV files as a batch\n"
    "  compare  timings of two runs: faster, slower, same (CI gate)\n"
    "  history  each benchmark across runs, with its change points\n"
    "  merge    combine result stores (CI shards) into one\n"
    "  check    whether a result store is sound (integrity check)\n"
    "\n"
    "`scatterlab COMMAND --help` describes a command. Every command takes\n"
    "--db PATH (default " SL_DEFAULT_DB ").\n"
    "options: --help, --version\n";

int sl_cli_main(int argc, char **argv) {
  if (argc < 2) {
    fputs(sl__help, stderr);
    return SL_EXIT_USAGE;
  }
  const char *cmd = argv[1];
  if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 ||
      strcmp(cmd, "help") == 0) {
    fputs(sl__help, stdout);
    return SL_EXIT_OK;
  }
  if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
    printf("scatterlab %s (reference: %s; CUDA: %s%s)\n", SL_VERSION_STRING,
           sl_reference_text(), sl_cuda_built() ? "built" : "not built",
           sl_thresholds_small()
               ? "; small size thresholds: a test build, timings mean nothing"
               : "");
    return SL_EXIT_OK;
  }
  /* runs_variants: the command takes --provider and needs the kernels. */
  static const struct {
    const char *name;
    int (*fn)(int, char **);
    int runs_variants;
  } cmds[] = {{"run", sl_cmd_run, 1},         {"list", sl_cmd_list, 1},
              {"fuzz", sl_cmd_fuzz, 1},       {"bench", sl_cmd_bench, 1},
              {"report", sl_cmd_report, 0},   {"merge", sl_cmd_merge, 0},
              {"import", sl_cmd_import, 1},   {"compare", sl_cmd_compare, 0},
              {"history", sl_cmd_history, 0}, {"ab", sl_cmd_ab, 0},
              {"check", sl_cmd_check, 0}};
  for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; ++i) {
    if (strcmp(cmd, cmds[i].name) != 0) continue;
    if (cmds[i].runs_variants &&
        sl_providers_load_argv(cmd, argc - 1, argv + 1))
      return SL_EXIT_USAGE;
    return cmds[i].fn(argc - 1, argv + 1);
  }
  fprintf(stderr, "scatterlab: unknown command \"%s\" (expected one of:", cmd);
  for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; ++i)
    fprintf(stderr, " %s", cmds[i].name);
  fprintf(stderr, "; see scatterlab --help)\n");
  return SL_EXIT_USAGE;
}
