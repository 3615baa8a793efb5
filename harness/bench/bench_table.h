/*
 * The cases of `scatterlab bench` and `ab`: suites and case lines. The
 * tables that close a bench run are reports/bench_summary.h's, shared with
 * the HTML report.
 */
#ifndef SL_BENCH_TABLE_H
#define SL_BENCH_TABLE_H

#include <stdio.h>

#include "bench_summary.h"
#include "case.h"
#include "providers.h"

/* The case lines of suite `name`: a file, or harness/batches/bench-<name>.txt
 * of the source tree. Appends to *lines (*n of them, each malloc'd).
 * Returns -1 with the reason in err when neither exists, or the file
 * cannot be read whole (a line too long, a NUL byte: text_lines.h). */
int sl_bench_read_suite(const char *name, char ***lines, int *n, char *err,
                        size_t errlen);

/* Appends a copy of line to *lines (*n of them). 0, or -1 without memory. */
int sl_bench_lines_push(char ***lines, int *n, const char *line);

/*
 * The cases of a timing command (bench, ab): the lines given, then those of
 * --suite when suite is not NULL, each parsed. Returns the n cases
 * (calloc'd; *n set), or NULL after a usage error naming cmd: an unknown
 * suite, no case at all, or a line that does not parse.
 */
sl_case *sl_bench_cases(const char *cmd, const char *suite, char ***lines,
                        int *n);

#endif
