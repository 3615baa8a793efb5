/* Bench suites and case lists of `scatterlab bench` and `ab`
 * (bench_table.h); the closing tables are reports/bench_summary.c's. */
#include "bench_table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* The summary's cells hold any variant name the providers allow. */
_Static_assert(SL_BENCH_VARIANT_LEN >= SL_VARIANT_NAME_LEN,
               "bench_summary.h's variant names are shorter than providers'");

typedef struct sl__suite_lines {
  char ***lines;
  int *n;
} sl__suite_lines;

int sl_bench_lines_push(char ***lines, int *n, const char *line) {
  char **v = realloc(*lines, sizeof(char *) * (size_t)(*n + 1));
  if (!v) return -1;
  *lines = v;
  if (!(v[*n] = strdup(line))) return -1;
  ++*n;
  return 0;
}

static int sl__suite_push(void *user, const char *line, long line_no) {
  sl__suite_lines *s = user;
  (void)line_no; /* a bench case names its number in the suite */
  return sl_bench_lines_push(s->lines, s->n, line) ? 1 : 0;
}

sl_case *sl_bench_cases(const char *cmd, const char *suite, char ***lines,
                        int *n) {
  char serr[1200];
  if (suite && sl_bench_read_suite(suite, lines, n, serr, sizeof serr)) {
    sl_cli_usage_error(cmd, "--suite %s", serr);
    return NULL;
  }
  if (*n == 0) {
    sl_cli_usage_error(cmd, "expected --suite or case lines, got none");
    return NULL;
  }
  sl_case *cases = calloc((size_t)*n, sizeof *cases);
  for (int i = 0; cases && i < *n; ++i) {
    char err[512];
    if (sl_case_parse((*lines)[i], &cases[i], err, sizeof err)) {
      sl_cli_usage_error(cmd, "case %d: %s", i + 1, err);
      free(cases);
      return NULL;
    }
  }
  return cases;
}

int sl_bench_read_suite(const char *name, char ***lines, int *n, char *err,
                        size_t errlen) {
  sl__suite_lines s = {lines, n};
  char path[1024];
  /* A file of that name, else the built-in suite of that name. */
  if (access(name, F_OK) != 0)
    snprintf(path, sizeof path, "%s/harness/batches/bench-%s.txt",
             SL_SOURCE_DIR, name);
  else
    snprintf(path, sizeof path, "%s", name);
  if (access(path, F_OK) != 0) {
    snprintf(err, errlen,
             "%s: expected a suite name (seed, standard, contention, large) "
             "or a file, found neither",
             name);
    return -1;
  }
  int rc = sl_case_file_each(path, sl__suite_push, &s, err, errlen);
  if (rc > 0) snprintf(err, errlen, "%s: out of memory", path);
  return rc ? -1 : 0;
}
