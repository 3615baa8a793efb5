/* `scatterlab history`: each benchmark's median across runs and the runs
 * where it moved to a new level (change points). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "json_out.h"
#include "safe_file.h"
#include "sl_report.h"
#include "sl_store.h"

static const char *const sl__history_help =
    "usage: scatterlab history [--db PATH] [--match TEXT] [--min-segment N]\n"
    "                          [--anchor VARIANT] [--all] [--format "
    "text|json]\n"
    "                          [-o FILE]\n"
    "\n"
    "For every benchmark (case line, variant, threads, warm or cold) timed\n"
    "in more than one run: its median per run, split into levels at the\n"
    "change points (PELT on log times, a penalty of 3 ln n per change, the\n"
    "noise estimated from successive differences, at least 1%), with the\n"
    "level of each segment and the change from the one before: the\n"
    "commits of the runs on either side, and why their machines differ\n"
    "when they do (CPU, threads, copy bandwidth, core round trip).\n";

int sl_cmd_history(int argc, char **argv) {
  sl_hist_opts o;
  sl_hist_opts_init(&o);
  static const sl_command_help help = {SL_CMD_HISTORY, sl__history_help, NULL,
                                       NULL};
  sl_options opt;
  int prc = sl_options_parse(&help, argc, argv, &opt);
  if (!prc && opt.nwords)
    prc = sl_cli_usage_error("history", "%s: unknown argument", opt.words[0]);
  const char *db = sl_opt_text(&opt, SL_OPT_DB);
  const char *outpath = sl_opt_text(&opt, SL_OPT_OUTPUT);
  o.match = sl_opt_text(&opt, SL_OPT_MATCH);
  o.min_segment = (int)opt.v[SL_OPT_HISTORY_MIN_SEGMENT].n;
  o.anchor = sl_opt_text(&opt, SL_OPT_ANCHOR);
  o.all = sl_opt_on(&opt, SL_OPT_ALL);
  const int json = opt.v[SL_OPT_FORMAT].n == 1;
  sl_options_free(&opt); /* the values are argv's words */
  if (prc) return prc == SL_OPTIONS_HELP ? SL_EXIT_OK : prc;
  if (o.anchor && !*o.anchor)
    return sl_cli_usage_error("history",
                              "--anchor: expected a variant name, got \"\"");
  if (sl_cli_output_check("history", "-o", outpath, db, argc, argv))
    return SL_EXIT_USAGE;
  if (sl_cli_parse_only) return SL_EXIT_OK;
  char err[1024];
  sl_store *st;
  int open_rc = sl_cli_open_store("history", db, 1, &st);
  if (open_rc) return open_rc;
  sl_safe_file sf;
  if (sl_safe_open_out(&sf, outpath, err, sizeof err)) {
    fprintf(stderr, "scatterlab history: -o %s\n", err);
    sl_store_close(st);
    return SL_EXIT_INCOMPLETE;
  }
  int rc;
  if (json) {
    /* Built whole first: a store error leaves no half document. */
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    int got = mem ? sl_json_history(mem, st, &o, err, sizeof err) : -1;
    rc = got < 0 ? got : 0;
    if (!mem) snprintf(err, sizeof err, "out of memory");
    if (mem) fclose(mem);
    if (!rc) {
      sl_json_head(sf.f, "history", SL_EXIT_OK);
      fputs(buf, sf.f);
      sl_json_end(sf.f);
      rc = fflush(sf.f) != 0 || ferror(sf.f);
      if (rc) snprintf(err, sizeof err, "write error");
    }
    free(buf);
  } else {
    int got = sl_report_history(st, &o, sf.f, err, sizeof err);
    rc = got < 0 ? got : 0;
  }
  if (rc) {
    fprintf(stderr, "scatterlab history: %s\n", err);
    sl_safe_abort(&sf);
  } else if (sl_safe_commit(&sf, err, sizeof err)) {
    fprintf(stderr, "scatterlab history: -o %s\n", err);
    rc = 1;
  }
  sl_store_close(st);
  return rc == -2 ? SL_EXIT_USAGE : rc ? SL_EXIT_INCOMPLETE : SL_EXIT_OK;
}
