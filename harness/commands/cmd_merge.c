/*
 * `scatterlab merge A.db B.db ... -o ALL.db`: combines the stores of CI
 * shards (or of several machines) into one, each run once.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "commands.h"
#include "sl_store.h"

static const char *const sl__merge_help =
    "usage: scatterlab merge A.db [B.db ...] -o ALL.db\n"
    "\n"
    "Copies every run of the input stores into ALL.db (created if missing)\n"
    "with its cases, results, timings, samples and coverage. A run already\n"
    "in ALL.db (the same run, recognised by its uid) is not copied again, so\n"
    "merging is idempotent. Inputs are only read. Each input is merged in\n"
    "one transaction: a failing input leaves ALL.db as it was before it.\n"
    "Exit status 1 when an input could not be merged.\n";

/* Whether a and b name the same existing file. */
static int sl__same_file(const char *a, const char *b) {
  struct stat x, y;
  return stat(a, &x) == 0 && stat(b, &y) == 0 && x.st_dev == y.st_dev &&
         x.st_ino == y.st_ino;
}

int sl_cmd_merge(int argc, char **argv) {
  static const sl_command_help help = {SL_CMD_MERGE, sl__merge_help, NULL,
                                       NULL};
  sl_options opt;
  int rc = sl_options_parse(&help, argc, argv, &opt);
  const char *out = sl_opt_text(&opt, SL_OPT_MERGE_OUTPUT);
  const char *inputs[256];
  int n = 0;
  for (int i = 0; !rc && i < opt.nwords; ++i)
    if (n == (int)(sizeof inputs / sizeof inputs[0]))
      rc = sl_cli_usage_error("merge", "expected at most %d inputs",
                              (int)(sizeof inputs / sizeof inputs[0]));
    else
      inputs[n++] = opt.words[i];
  sl_options_free(&opt); /* the values are argv's words */
  if (rc) return rc == SL_OPTIONS_HELP ? SL_EXIT_OK : rc;
  if (!out)
    return sl_cli_usage_error("merge", "expected -o ALL.db (the output)");
  if (n == 0)
    return sl_cli_usage_error("merge", "expected at least one input store");
  for (int i = 0; i < n; ++i)
    if (strcmp(inputs[i], out) == 0 || sl__same_file(inputs[i], out))
      return sl_cli_usage_error("merge", "input %s is the output too",
                                inputs[i]);
  /* Parse-only (SCATTERLAB_CHECK_ARGS, the CLI fuzz target) looks at no
   * file: a CI file is checked before its stores exist. */
  if (sl_cli_parse_only) return SL_EXIT_OK;
  /* A missing input is the command line's mistake: refused before the
   * output is touched. */
  struct stat sb;
  for (int i = 0; i < n; ++i)
    if (stat(inputs[i], &sb) && errno == ENOENT)
      return sl_cli_usage_error("merge",
                                "input %s: expected a store, got "
                                "no such file",
                                inputs[i]);
  sl_store *st;
  int open_rc = sl_cli_open_store("merge", out, 0, &st);
  if (open_rc) return open_rc;
  int failed = 0;
  int64_t runs = 0;
  for (int i = 0; i < n; ++i) {
    sl_merge_stats m;
    if (sl_store_merge(st, inputs[i], &m)) {
      fprintf(stderr, "scatterlab merge: %s\n", sl_store_errmsg(st));
      failed = 1;
      continue;
    }
    runs += m.runs_copied;
    printf("%s: %" PRId64 " runs copied (%" PRId64 " cases, %" PRId64
           " results, %" PRId64 " timings), %" PRId64 " already in %s\n",
           inputs[i], m.runs_copied, m.cases, m.results, m.timings,
           m.runs_present, out);
  }
  sl_store_close(st);
  printf("%s: %" PRId64 " runs added%s\n", out, runs,
         failed ? "; some inputs failed (see above)" : "");
  return failed ? SL_EXIT_INCOMPLETE : SL_EXIT_OK;
}
