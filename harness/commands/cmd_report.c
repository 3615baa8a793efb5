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

/* The help; the CSV tables' lines come from the one list the writers use
 * (sl_csv_tables_help), the verdicts' from results/verdicts.def. */
static const char *const sl__report_help =
    "usage: scatterlab report [--db PATH] [--format text|csv|html] [--run ID]\n"
    "                         [--table KIND] [--verdict V[,V...]] [-o FILE]\n"
    "       scatterlab report --failures [--db PATH] [--run ID] [-o FILE]\n"
    "\n"
    "The runs in the database (text), one table of them (csv), the HTML\n"
    "report (html), or the failure groups (--failures).\n";
static const char *const sl__report_help_end =
    "The CSV format is described in reports/README.md; columns are only ever\n"
    "appended.\n";

/* "  (passed failed ...)", the table's names wrapped at 78 columns. */
/* "                     only (passed failed ...)", the table's names
 * wrapped at 78 columns under the options' descriptions. */
static void sl__verdicts_help(FILE *out) {
  int col = fprintf(out, "  (");
  for (int v = 0; v < SL_VERDICT_COUNT; ++v) {
    const char *name = sl_verdict_name((sl_verdict)v);
    const int w = (int)strlen(name) + (v + 1 == SL_VERDICT_COUNT);
    if (v && col + 1 + w > 78)
      col = fprintf(out, "\n%3s", "") - 1;
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

/* What one report writes. */
typedef struct sl__report {
  const char *db, *format, *outpath, *table, *verdicts;
  int failures;
  sl_html_opts ho;
} sl__report;

/* The help's lines after the options: the CSV tables and the verdicts. */
static void sl__report_help_more(FILE *out) {
  fputs("\ncsv tables (--table):\n", out);
  sl_csv_tables_help(out);
  fputs("verdicts (--verdict):\n", out);
  sl__verdicts_help(out);
}

/* Reads and checks the options into r; 0, SL_OPTIONS_HELP or
 * SL_EXIT_USAGE. */
static int sl__report_args(int argc, char **argv, sl__report *r) {
  static const sl_command_help help = {SL_CMD_REPORT, sl__report_help,
                                       sl__report_help_end,
                                       sl__report_help_more};
  sl_options opt;
  int rc = sl_options_parse(&help, argc, argv, &opt);
  const sl_option_value *fmt = &opt.v[SL_OPT_REPORT_FORMAT];
  r->db = sl_opt_text(&opt, SL_OPT_DB);
  r->format = fmt->text;
  r->outpath = sl_opt_text(&opt, SL_OPT_OUTPUT);
  r->table = sl_opt_text(&opt, SL_OPT_TABLE);
  r->verdicts = sl_opt_text(&opt, SL_OPT_VERDICT);
  r->failures = sl_opt_on(&opt, SL_OPT_FAILURES);
  r->ho.run_id = opt.v[SL_OPT_RUN_ID].n;
  r->ho.max_failures = (int)opt.v[SL_OPT_MAX_FAILURES].n;
  r->ho.max_history = (int)opt.v[SL_OPT_MAX_HISTORY].n;
  r->ho.min_segment = (int)opt.v[SL_OPT_REPORT_MIN_SEGMENT].n;
  char verr[512];
  if (!rc && opt.nwords)
    rc = sl_cli_usage_error("report", "%s: unknown argument", opt.words[0]);
  else if (!rc && r->verdicts &&
           sl_report_verdicts_check(r->verdicts, verr, sizeof verr))
    rc = sl_cli_usage_error("report", "%s", verr);
  else if (!rc && r->verdicts &&
           (strcmp(r->format, "csv") || strcmp(r->table, "results")))
    rc = sl_cli_usage_error("report",
                            "--verdict: expected --format csv --table "
                            "results, got --format %s --table %s",
                            r->format, r->table);
  else if (!rc && r->failures && fmt->given && strcmp(r->format, "text"))
    rc = sl_cli_usage_error("report",
                            "--failures: expected --format text (a "
                            "listing), got \"%s\"",
                            r->format);
  sl_options_free(&opt); /* the values are argv's words */
  return rc;
}

/* The report r asks for into out; 0, or -1 with err. */
static int sl__report_write(sl_store *st, sl__report *r, FILE *out, char *err,
                            size_t errlen) {
  if (r->failures)
    return sl_report_failure_groups(st, r->ho.run_id, out, sl_text_put, err,
                                    errlen);
  if (r->verdicts)
    return sl_report_csv_results_where(st, r->ho.run_id, r->verdicts, out, err,
                                       errlen);
  if (strcmp(r->format, "csv") == 0)
    return sl__csv_table(r->table)(st, r->ho.run_id, out, err, errlen);
  if (strcmp(r->format, "html") == 0)
    return sl_report_html(st, &r->ho, out, err, errlen);
  return sl_report_runs(st, r->ho.run_id, out, err, errlen);
}

int sl_cmd_report(int argc, char **argv) {
  sl__report r = {0};
  sl_html_opts_init(&r.ho);
  int arc = sl__report_args(argc, argv, &r);
  if (arc) return arc == SL_OPTIONS_HELP ? SL_EXIT_OK : arc;
  const char *db = r.db, *outpath = r.outpath;
  sl_html_opts ho = r.ho;
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
  int rc = sl__report_write(st, &r, out, err, sizeof err);
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
