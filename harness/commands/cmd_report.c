/* `scatterlab report`: list runs, export CSV, or write the HTML report. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clean_text.h"
#include "commands.h"
#include "safe_file.h"
#include "sl_report.h"
#include "sl_store.h"
#include "sl_verdict.h"

/* The help, around the CSV tables' lines (sl_csv_tables_help: their
 * headers come from the one list the writers use). */
static const char *const sl__report_help =
    "usage: scatterlab report [--db PATH] [--format text|csv|html] [--run ID]\n"
    "                         [--table KIND] [--verdict V[,V...]] [-o FILE]\n"
    "       scatterlab report --failures [--db PATH] [--run ID] [-o FILE]\n"
    "\n"
    "text (default): the runs in the database, newest last.\n"
    "--failures: the failure groups (docs/fuzzing.md) of run ID\n"
    "  (default: every run), first met first: signature, cases in the group\n"
    "  (shrunk copies not counted), first and last seen, minimal repro.\n"
    "csv: one table of run ID (default: every run), chosen by --table:\n";
static const char *const sl__report_help_rest =
    "html: one self-contained page (no script, no network): runs, verdicts\n"
    "  by op x dtype x variant, coverage, failures with minimal repro lines,\n"
    "  timings (GB/s, % of peak, speed-up over torch.cpu), the contention\n"
    "  chart and each benchmark's history with its change points.\n"
    "options:\n"
    "  --db PATH          results database (default " SL_DEFAULT_DB ")\n"
    "  -o FILE            write to FILE (new, or a regular file of yours)\n"
    "                     instead of standard output (- for it)\n"
    "  --verdict V[,V...] csv --table results: the rows of these verdicts\n";
/* Here sl__verdicts_help lists the verdicts (results/verdicts.def). */
static const char *const sl__report_help_end =
    "  --max-failures N   html: rows of the failures table (default 500)\n"
    "  --max-history N    html: history charts (default 60)\n"
    "  --min-segment N    html: runs per segment between change points\n"
    "                     (default 3)\n"
    "The CSV format is described in reports/README.md; columns are only ever\n"
    "appended.\n";

/* "                     only (passed failed ...)", the table's names
 * wrapped at 78 columns under the options' descriptions. */
static void sl__verdicts_help(FILE *out) {
  int col = fprintf(out, "                     only (");
  for (int v = 0; v < SL_VERDICT_COUNT; ++v) {
    const char *name = sl_verdict_name((sl_verdict)v);
    const int w = (int)strlen(name) + (v + 1 == SL_VERDICT_COUNT);
    if (v && col + 1 + w > 78)
      col = fprintf(out, "\n%21s", "") - 1;
    else if (v)
      col += fprintf(out, " ");
    col += fprintf(out, "%s", name);
  }
  fputs(")\n", out);
}

typedef int (*sl__csv_fn)(sl_store *, int64_t, FILE *, char *, size_t);

static sl__csv_fn sl__csv_table(const char *name) {
  static const struct {
    const char *name;
    sl__csv_fn fn;
  } tables[] = {{"results", sl_report_csv_results},
                {"timings", sl_report_csv_timings},
                {"coverage", sl_report_csv_coverage},
                {"tallies", sl_report_csv_tallies},
                {"runs", sl_report_csv_runs}};
  for (size_t i = 0; i < sizeof tables / sizeof tables[0]; ++i)
    if (strcmp(name, tables[i].name) == 0) return tables[i].fn;
  return NULL;
}

int sl_cmd_report(int argc, char **argv) {
  const char *db = SL_DEFAULT_DB, *format = "text", *outpath = NULL;
  const char *table = "results", *v, *verdicts = NULL;
  int failures = 0, format_given = 0;
  sl_html_opts ho;
  sl_html_opts_init(&ho);
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      fputs(sl__report_help, stdout);
      sl_csv_tables_help(stdout);
      fputs(sl__report_help_rest, stdout);
      sl__verdicts_help(stdout);
      fputs(sl__report_help_end, stdout);
      return SL_EXIT_OK;
    } else if (sl_cli_is(a, "--db")) {
      if (!(db = sl_cli_value("report", argc, argv, &i))) return SL_EXIT_USAGE;
    } else if (sl_cli_is(a, "--format")) {
      if (!(format = sl_cli_value("report", argc, argv, &i)))
        return SL_EXIT_USAGE;
      format_given = 1;
      if (strcmp(format, "text") && strcmp(format, "csv") &&
          strcmp(format, "html"))
        return sl_cli_usage_error("report",
                                  "--format: expected text, csv or html, got "
                                  "\"%s\"",
                                  format);
    } else if (sl_cli_is(a, "--table")) {
      if (!(table = sl_cli_value("report", argc, argv, &i)))
        return SL_EXIT_USAGE;
      if (!sl__csv_table(table))
        return sl_cli_usage_error("report",
                                  "--table: expected results, tallies, "
                                  "timings, coverage or runs, got \"%s\"",
                                  table);
    } else if (sl_cli_is(a, "--verdict")) {
      char verr[512];
      if (!(verdicts = sl_cli_value("report", argc, argv, &i)))
        return SL_EXIT_USAGE;
      if (sl_report_verdicts_check(verdicts, verr, sizeof verr))
        return sl_cli_usage_error("report", "%s", verr);
    } else if (sl_cli_is(a, "--run")) {
      if (!(v = sl_cli_value("report", argc, argv, &i))) return SL_EXIT_USAGE;
      long long run = sl_cli_int("report", "--run", v);
      if (run < 0) return SL_EXIT_USAGE;
      ho.run_id = run;
    } else if (sl_cli_is(a, "--max-failures")) {
      if ((ho.max_failures = (int)sl_cli_int_option("report", argc, argv, &i, 1,
                                                    1000000)) < 0)
        return SL_EXIT_USAGE;
    } else if (sl_cli_is(a, "--max-history")) {
      if ((ho.max_history = (int)sl_cli_int_option("report", argc, argv, &i, 1,
                                                   1000000)) < 0)
        return SL_EXIT_USAGE;
    } else if (sl_cli_is(a, "--min-segment")) {
      if ((ho.min_segment = (int)sl_cli_int_option("report", argc, argv, &i, 1,
                                                   1000000)) < 0)
        return SL_EXIT_USAGE;
    } else if (strcmp(a, "--failures") == 0) {
      failures = 1;
    } else if (strcmp(a, "-o") == 0 || sl_cli_is(a, "--output")) {
      if (!(outpath = sl_cli_value("report", argc, argv, &i)))
        return SL_EXIT_USAGE;
    } else {
      return sl_cli_usage_error("report", "%s: unknown argument", a);
    }
  }
  if (verdicts && (strcmp(format, "csv") || strcmp(table, "results")))
    return sl_cli_usage_error("report",
                              "--verdict: expected --format csv --table "
                              "results, got --format %s --table %s",
                              format, table);
  if (failures && format_given && strcmp(format, "text") != 0)
    return sl_cli_usage_error("report",
                              "--failures: expected --format text (a "
                              "listing), got \"%s\"",
                              format);
  if (sl_cli_output_check("report", "-o", outpath, db, argc, argv))
    return SL_EXIT_USAGE;
  if (sl_cli_parse_only) return SL_EXIT_OK;
  char err[1024];
  sl_store *st;
  int open_rc = sl_cli_open_store("report", db, 1, &st);
  if (open_rc) return open_rc;
  /* A run named on the command line that is not there is an input error
   * (2), like a store that is not there; what fails later is the store's
   * or the output's (3). */
  if (ho.run_id > 0 && sl_store_has_run(st, ho.run_id) == 0) {
    sl_store_close(st);
    return sl_cli_usage_error("report",
                              "--run %lld: expected a run of %s, got no run "
                              "with that id",
                              (long long)ho.run_id, db);
  }
  sl_safe_file sf;
  if (sl_safe_open_out(&sf, outpath, err, sizeof err)) {
    fprintf(stderr, "scatterlab report: -o %s\n", err);
    sl_store_close(st);
    return SL_EXIT_INCOMPLETE;
  }
  FILE *out = sf.f;
  int rc;
  if (failures)
    rc = sl_report_failure_groups(st, ho.run_id, out, sl_text_put, err,
                                  sizeof err);
  else if (verdicts)
    rc = sl_report_csv_results_where(st, ho.run_id, verdicts, out, err,
                                     sizeof err);
  else if (strcmp(format, "csv") == 0)
    rc = sl__csv_table(table)(st, ho.run_id, out, err, sizeof err);
  else if (strcmp(format, "html") == 0)
    rc = sl_report_html(st, &ho, out, err, sizeof err);
  else
    rc = sl_report_runs(st, ho.run_id, out, err, sizeof err);
  if (rc) {
    /* A failed write (a full disk, a file-size limit) names the file. */
    if (ferror(out))
      fprintf(stderr, "scatterlab report: -o %s: write error (%s)%s\n",
              outpath ? outpath : "standard output", strerror(errno),
              outpath ? "; the file was left as it was" : "");
    else
      fprintf(stderr, "scatterlab report: %s\n", err);
    sl_safe_abort(&sf);
  } else if (sl_safe_commit(&sf, err, sizeof err)) {
    fprintf(stderr, "scatterlab report: -o %s\n", err);
    rc = 1;
  }
  sl_store_close(st);
  if (!rc && outpath) fprintf(stderr, "wrote %s\n", outpath);
  return rc ? SL_EXIT_INCOMPLETE : SL_EXIT_OK;
}
