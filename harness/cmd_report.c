/* `scatterlab report`: list runs, or export results as CSV. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "sl_report.h"
#include "sl_store.h"

static const char *const sl__report_help =
    "usage: scatterlab report [--db PATH] [--format text|csv] [--run ID]\n"
    "                         [-o FILE]\n"
    "\n"
    "text (default): the runs in the database, newest last.\n"
    "csv: one row per (case, variant) of run ID (default: every run) with the\n"
    "     header run_id,case_id,op,variant,verdict,diff1,diff2,diff3,seconds,\n"
    "     seed,case_line,message\n"
    "options:\n"
    "  --db PATH    results database (default " SL_DEFAULT_DB ")\n"
    "  -o FILE      write to FILE instead of standard output\n";

int sl_cmd_report(int argc, char **argv) {
  const char *db = SL_DEFAULT_DB, *format = "text", *outpath = NULL, *v;
  long long run = 0;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      fputs(sl__report_help, stdout);
      return SL_EXIT_OK;
    } else if (sl_cli_is(a, "--db")) {
      if (!(db = sl_cli_value("report", argc, argv, &i))) return SL_EXIT_USAGE;
    } else if (sl_cli_is(a, "--format")) {
      if (!(format = sl_cli_value("report", argc, argv, &i)))
        return SL_EXIT_USAGE;
      if (strcmp(format, "text") && strcmp(format, "csv"))
        return sl_cli_usage_error("report", "--format: expected text or csv, "
                                            "got \"%s\"", format);
    } else if (sl_cli_is(a, "--run")) {
      if (!(v = sl_cli_value("report", argc, argv, &i))) return SL_EXIT_USAGE;
      if ((run = sl_cli_int("report", "--run", v)) < 0) return SL_EXIT_USAGE;
    } else if (strcmp(a, "-o") == 0 || sl_cli_is(a, "--output")) {
      if (!(outpath = sl_cli_value("report", argc, argv, &i)))
        return SL_EXIT_USAGE;
    } else {
      return sl_cli_usage_error("report", "%s: unknown argument", a);
    }
  }
  char err[512];
  sl_store *st;
  if (sl_store_open(db, SL_STORE_READONLY, &st, err, sizeof err)) {
    fprintf(stderr, "scatterlab report: %s\n", err);
    return SL_EXIT_FAIL;
  }
  FILE *out = stdout;
  if (outpath && !(out = fopen(outpath, "w"))) {
    fprintf(stderr, "scatterlab report: -o %s: cannot create file\n", outpath);
    sl_store_close(st);
    return SL_EXIT_FAIL;
  }
  int rc = strcmp(format, "csv") == 0
               ? sl_report_csv_results(st, run, out, err, sizeof err)
               : sl_report_runs(st, out, err, sizeof err);
  if (rc) fprintf(stderr, "scatterlab report: %s\n", err);
  if (out != stdout && fclose(out)) {
    fprintf(stderr, "scatterlab report: -o %s: write failed\n", outpath);
    rc = 1;
  }
  sl_store_close(st);
  if (!rc && outpath) fprintf(stderr, "wrote %s\n", outpath);
  return rc ? SL_EXIT_FAIL : SL_EXIT_OK;
}
