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
 *              pattern, which is the contention suite's question (a
 *              grid of a single case is printed as that case's line).
 */
#ifndef SL_BENCH_SUMMARY_H
#define SL_BENCH_SUMMARY_H

#include <stdio.h>

#include "case.h"
#include "sl/sl_provider.h"

/* Longest full variant name ("<provider>:<device>.<strategy>") + NUL, as
 * harness/engine/providers.h's SL_VARIANT_NAME_LEN (bench_table.c checks). */
#define SL_BENCH_VARIANT_LEN                                                   \
  (SL_PROVIDER_NAME_MAX + 1 + SL_PROVIDER_VARIANT_NAME_MAX + 1)

#define SL_BENCH_MAX_CELLS 32

typedef struct sl_bench_cell {
  char variant[SL_BENCH_VARIANT_LEN];
  double median_s, gbs, pct; /* pct < 0: no bandwidth probe */
} sl_bench_cell;

typedef struct sl_bench_row {
  sl_case c;
  char line[SL_CASE_LINE_MAX];
  double torch_s; /* 0: torch.cpu not timed */
  int scattered;  /* its speed-up read on timings that scatter (an IQR above
                     half the median, bench --retime): marked ~ */
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

void sl_bench_summary_print(const sl_bench_table *t, FILE *f);

/* Whether variant `name` runs on the CPU: "cpu.x", or with providers also
 * a provider's "p:cpu.x". */
int sl_bench_cpu_variant(const char *name, int providers);
/* The fastest such variant of a row, or NULL: the summary's best is
 * scatterlab's own (providers 0), the ranking's any CPU kernel's (1). */
const sl_bench_cell *sl_bench_best_cpu(const sl_bench_row *r, int providers);

/* A case ranked by a variant's speed-up over torch.cpu (bench_ranking.c). */
typedef struct sl_bench_ranked {
  const sl_bench_row *row;
  const sl_bench_cell *cell;
  double speedup; /* torch.cpu's median over the cell's */
} sl_bench_ranked;

/* The rows with a torch.cpu time, each with its best CPU variant's (a
 * provider's too; variant NULL) or variant's own speed-up, worst first;
 * their count in *n. Free it; NULL when none (or out of memory). */
sl_bench_ranked *sl_bench_rank(const sl_bench_table *t, const char *variant,
                               int *n);
/* `bench --generate`'s closing tables: the cases worst first, how many are
 * slower than torch.cpu (and below 0.9x), the geometric mean per op, and
 * each variant's worst cases. */
void sl_bench_ranking_print(const sl_bench_table *t, FILE *f);
void sl_bench_crossover_print(const sl_bench_table *t, FILE *f);

#endif
