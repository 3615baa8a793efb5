/*
 * The tables that close a `scatterlab bench` run: what a kernel developer
 * reads to decide which variant to ship.
 *
 *   summary    per op, variant x case: the speed-up over torch.cpu (its
 *              median over the variant's) and the % of the copy bandwidth
 *              probed in the same run; the ceiling: the speed-up over
 *              torch.cpu of a kernel that moved the case's useful bytes at
 *              that bandwidth (below 1x when the case lives in cache and
 *              torch.cpu beats the probe); then the geometric means of the
 *              best CPU variant's speed-up and of the ceiling, and the
 *              cases where the best is slower.
 *   crossover  for the conflict strategies (cpu.atomic, cpu.lock,
 *              cpu.sorted): which one wins each case and by how much over
 *              the runner-up; for scatter_reduce and index_reduce as a grid
 *              of destinations M (x.size(dim)) by row width C (the other
 *              extents of x), one grid per op, dtype, reduce and index
 *              pattern, which is the contention suite's question.
 */
#ifndef SL_BENCH_TABLE_H
#define SL_BENCH_TABLE_H

#include <stdio.h>

#include "case.h"
#include "providers.h"

#define SL_BENCH_MAX_CELLS 32

typedef struct sl_bench_cell {
  char variant[SL_VARIANT_NAME_LEN];
  double median_s, gbs, pct; /* pct < 0: no bandwidth probe */
} sl_bench_cell;

typedef struct sl_bench_row {
  sl_case c;
  char line[SL_CASE_LINE_MAX];
  double torch_s; /* 0: torch.cpu not timed */
  int n;
  sl_bench_cell cell[SL_BENCH_MAX_CELLS];
} sl_bench_row;

typedef struct sl_bench_table {
  sl_bench_row *rows;
  int n, cap;
} sl_bench_table;

/* Appends a row for case c (line as printed); returns it, or NULL when out
 * of memory. */
sl_bench_row *sl_bench_table_add(sl_bench_table *t, const sl_case *c,
                                 const char *line);
/* Records variant's timing on row r (torch.cpu sets r->torch_s too). */
void sl_bench_row_set(sl_bench_row *r, const char *variant, double median_s,
                      double gbs, double pct);
void sl_bench_table_free(sl_bench_table *t);

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

void sl_bench_summary_print(const sl_bench_table *t, FILE *f);
void sl_bench_crossover_print(const sl_bench_table *t, FILE *f);

#endif
