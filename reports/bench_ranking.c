/* The ranking that closes `bench --generate` (bench_summary.h): on cases
 * nobody picked, where does the best variant fall behind LibTorch, and
 * where does each variant fall off. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_summary.h"

static int sl__by_speedup(const void *a, const void *b) {
  const double x = ((const sl_bench_ranked *)a)->speedup;
  const double y = ((const sl_bench_ranked *)b)->speedup;
  return (x > y) - (x < y);
}

sl_bench_ranked *sl_bench_rank(const sl_bench_table *t, const char *variant,
                               int *n) {
  sl_bench_ranked *v = calloc((size_t)(t->n ? t->n : 1), sizeof *v);
  *n = 0;
  for (int i = 0; v && i < t->n; ++i) {
    const sl_bench_row *r = &t->rows[i];
    const sl_bench_cell *c = NULL;
    for (int k = 0; variant && k < r->n; ++k)
      if (strcmp(r->cell[k].variant, variant) == 0) c = &r->cell[k];
    if (!variant) c = sl_bench_best_cpu(r, 1);
    if (!c || r->torch_s <= 0 || c->median_s <= 0) continue;
    v[(*n)++] = (sl_bench_ranked){r, c, r->torch_s / c->median_s};
  }
  if (v && *n) qsort(v, (size_t)*n, sizeof *v, sl__by_speedup);
  if (v && !*n) free(v), v = NULL;
  return v;
}

/* Per op: the geometric mean of the best speed-up, its worst, and the
 * cases below 1x. */
static void sl__per_op(const sl_bench_ranked *v, int n, FILE *f) {
  fprintf(f, "  %-26s %5s %9s %7s %7s\n", "op", "cases", "geomean", "worst",
          "<1x");
  for (int op = 0; op < SL_OP_COUNT; ++op) {
    double logs = 0, worst = INFINITY;
    int cases = 0, slower = 0;
    for (int i = 0; i < n; ++i) {
      if ((int)v[i].row->c.op != op) continue;
      logs += log(v[i].speedup);
      worst = fmin(worst, v[i].speedup);
      slower += v[i].speedup < 1;
      ++cases;
    }
    if (cases)
      fprintf(f, "  %-26s %5d %8.2fx %6.2fx %7d\n", sl_op_name((sl_op)op),
              cases, exp(logs / cases), worst, slower);
  }
}

/* The variants timed in t, each once, in order of first appearance. */
static int sl__variants(const sl_bench_table *t, const char **names, int max) {
  int n = 0;
  for (int i = 0; i < t->n; ++i)
    for (int k = 0; k < t->rows[i].n; ++k) {
      const char *v = t->rows[i].cell[k].variant;
      int seen = !sl_bench_cpu_variant(v, 1);
      for (int j = 0; j < n && !seen; ++j) seen = strcmp(names[j], v) == 0;
      if (!seen && n < max) names[n++] = v;
    }
  return n;
}

/* Each variant's worst cases: where it falls off, with the case line (its
 * op, dtype, shapes, layout, index pattern and reduce). */
static void sl__worst_per_variant(const sl_bench_table *t, FILE *f) {
  const char *names[64];
  const int nv = sl__variants(t, names, 64);
  for (int j = 0; j < nv; ++j) {
    int n;
    sl_bench_ranked *v = sl_bench_rank(t, names[j], &n);
    if (!v) continue;
    double logs = 0;
    for (int i = 0; i < n; ++i) logs += log(v[i].speedup);
    fprintf(f, "  %s: geometric mean %.2fx over %d cases; worst:\n", names[j],
            exp(logs / n), n);
    for (int i = 0; i < n && i < 3; ++i)
      fprintf(f, "    %6.2fx  %s\n", v[i].speedup, v[i].row->line);
    free(v);
  }
}

void sl_bench_ranking_print(const sl_bench_table *t, FILE *f) {
  int n;
  sl_bench_ranked *v = sl_bench_rank(t, NULL, &n);
  if (!v) return;
  int slower = 0, below = 0;
  for (int i = 0; i < n; ++i)
    slower += v[i].speedup < 1, below += v[i].speedup < 0.9;
  fprintf(f,
          "\nranking: %d cases by the best CPU variant's speed-up over "
          "torch.cpu, worst first\n",
          n);
  for (int i = 0; i < n && i < 20; ++i)
    fprintf(f, "  %6.2fx %-16s %s\n", v[i].speedup, v[i].cell->variant,
            v[i].row->line);
  if (n > 20) fprintf(f, "  ... %d more, each faster\n", n - 20);
  fprintf(f, "slower than torch.cpu: %d of %d cases (%.1f%%); below 0.9x: %d\n",
          slower, n, 100.0 * slower / n, below);
  sl__per_op(v, n, f);
  fputs("\nper variant:\n", f);
  sl__worst_per_variant(t, f);
  free(v);
}
