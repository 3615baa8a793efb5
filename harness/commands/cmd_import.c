/* `scatterlab import`: run the case lines of CSV files as one batch, the
 * way `scatterlab run --batch` runs a text file (it is that code path). */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "sl_report.h"

static const char *const sl__import_help =
    "usage: scatterlab import [run options] FILE.csv [FILE.csv ...]\n"
    "\n"
    "Runs the case lines of CSV files as one batch, recorded as a run of\n"
    "kind import. A file whose first record has a field named case_line\n"
    "(any export of `scatterlab report --format csv`) is read by that\n"
    "column; otherwise the first column of every record is a case line.\n"
    "Quoted fields may hold commas, quotes and line breaks; empty values\n"
    "and values starting with # are skipped, and a line seen before is run\n"
    "once. The options are those of `scatterlab run`.\n";

typedef struct sl__import {
  const char *path;
  int (*push)(void *lines, const char *line, const char *where);
  void *lines;
} sl__import;

static int sl__import_line(void *user, const char *line, long record) {
  sl__import *im = user;
  char where[1100];
  snprintf(where, sizeof where, "%s record %ld", im->path, record);
  return im->push(im->lines, line, where) ? 1 : 0;
}

/* Reads one CSV file into the run's list of case lines. */
static int sl__import_file(const char *path,
                           int (*push)(void *lines, const char *line,
                                       const char *where),
                           void *lines) {
  FILE *f = fopen(path, "re");
  if (!f) return sl_cli_usage_error("import", "%s: cannot open file", path);
  sl__import im = {path, push, lines};
  char err[1024];
  int rc =
      sl_report_csv_read_cases(f, path, sl__import_line, &im, err, sizeof err);
  fclose(f);
  if (rc < 0) return sl_cli_usage_error("import", "%s", err);
  if (rc > 0) return sl_cli_usage_error("import", "%s: out of memory", path);
  return 0;
}

int sl_cmd_import(int argc, char **argv) {
  static const sl_command_help help = {
      SL_CMD_IMPORT, sl__import_help,
      "exit status: 0 all passed, 1 any failed, 2 usage error, 3 store or\n"
      "report failed\n",
      NULL};
  return sl_cmd_run_with(argc, argv, &help, sl__import_file);
}
