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
    "when they do (CPU, threads, copy bandwidth, core round trip).\n"
    "options:\n"
    "  --db PATH          results database (default " SL_DEFAULT_DB ")\n"
    "  --match TEXT       only benchmarks whose case line or variant holds\n"
    "                     TEXT\n"
    "  --min-segment N    runs per segment at least (default 3)\n"
    "  --anchor VARIANT   each median over VARIANT's median on the same case\n"
    "                     in the same run (bench times torch.cpu in turns\n"
    "                     with the variants): a machine slower in one run\n"
    "                     cancels; the levels read as ratios to VARIANT\n"
    "  --all              also list benchmarks without change points\n"
    "  --format F         text (default) or json (docs/json.md)\n"
    "  -o FILE            write to FILE (new, or a regular file of yours)\n"
    "                     instead of standard output (- for it)\n";

int sl_cmd_history(int argc, char **argv) {
  const char *db = SL_DEFAULT_DB, *outpath = NULL;
  sl_hist_opts o;
  sl_hist_opts_init(&o);
  int json = 0;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      fputs(sl__history_help, stdout);
      return SL_EXIT_OK;
    } else if (sl_cli_is(a, "--db")) {
      if (!(db = sl_cli_value("history", argc, argv, &i))) return SL_EXIT_USAGE;
    } else if (sl_cli_is(a, "--match")) {
      if (!(o.match = sl_cli_value("history", argc, argv, &i)))
        return SL_EXIT_USAGE;
    } else if (sl_cli_is(a, "--min-segment")) {
      if ((o.min_segment = (int)sl_cli_int_option("history", argc, argv, &i, 1,
                                                  100000)) < 0)
        return SL_EXIT_USAGE;
    } else if (sl_cli_is(a, "--anchor")) {
      if (!(o.anchor = sl_cli_value("history", argc, argv, &i)))
        return SL_EXIT_USAGE;
      if (!*o.anchor)
        return sl_cli_usage_error("history",
                                  "--anchor: expected a variant name, got "
                                  "\"\"");
    } else if (strcmp(a, "--all") == 0) {
      o.all = 1;
    } else if (sl_cli_is(a, "--format")) {
      if (sl_json_format_option("history", argc, argv, &i, &json))
        return SL_EXIT_USAGE;
    } else if (strcmp(a, "-o") == 0 || sl_cli_is(a, "--output")) {
      if (!(outpath = sl_cli_value("history", argc, argv, &i)))
        return SL_EXIT_USAGE;
    } else {
      return sl_cli_usage_error("history", "%s: unknown argument", a);
    }
  }
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
