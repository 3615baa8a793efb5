/* Summary and crossover tables of `scatterlab bench` (bench_summary.h). */
#include "bench_summary.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

sl_bench_row *sl_bench_table_add(sl_bench_table *t, const sl_case *c,
                                 const char *line) {
  if (t->n == t->cap) {
    int cap = t->cap ? 2 * t->cap : 16;
    sl_bench_row *rows = realloc(t->rows, sizeof *rows * (size_t)cap);
    if (!rows) return NULL;
    t->rows = rows;
    t->cap = cap;
  }
  sl_bench_row *r = &t->rows[t->n++];
  memset(r, 0, sizeof *r);
  r->c = *c;
  snprintf(r->line, sizeof r->line, "%s", line);
  return r;
}

void sl_bench_row_set(sl_bench_row *r, const char *variant, double median_s,
                      double gbs, double pct) {
  if (strcmp(variant, "torch.cpu") == 0) r->torch_s = median_s;
  if (r->n == SL_BENCH_MAX_CELLS) return;
  sl_bench_cell *c = &r->cell[r->n++];
  snprintf(c->variant, sizeof c->variant, "%s", variant);
  c->median_s = median_s;
  c->gbs = gbs;
  c->pct = pct;
}

void sl_bench_table_free(sl_bench_table *t) {
  free(t->rows);
  memset(t, 0, sizeof *t);
}

static const sl_bench_cell *sl__cell(const sl_bench_row *r, const char *v) {
  for (int i = 0; i < r->n; ++i)
    if (strcmp(r->cell[i].variant, v) == 0) return &r->cell[i];
  return NULL;
}

int sl_bench_cpu_variant(const char *name, int providers) {
  const char *colon = providers ? strchr(name, ':') : NULL;
  return strncmp(colon ? colon + 1 : name, "cpu.", 4) == 0;
}

const sl_bench_cell *sl_bench_best_cpu(const sl_bench_row *r, int providers) {
  const sl_bench_cell *best = NULL;
  for (int i = 0; i < r->n; ++i)
    if (sl_bench_cpu_variant(r->cell[i].variant, providers) &&
        (!best || r->cell[i].median_s < best->median_s))
      best = &r->cell[i];
  return best;
}

/* ------------------------------------------------------------------------ */
/* Summary                                                                   */
/* ------------------------------------------------------------------------ */

/* The variants timed on rows of op, in order of first appearance. */
static int sl__variants_of(const sl_bench_table *t, sl_op op,
                           const char *names[SL_BENCH_MAX_CELLS]) {
  int k = 0;
  for (int i = 0; i < t->n; ++i) {
    if (t->rows[i].c.op != op) continue;
    for (int j = 0; j < t->rows[i].n; ++j) {
      const char *v = t->rows[i].cell[j].variant;
      int seen = strcmp(v, "torch.cpu") == 0;
      for (int m = 0; m < k && !seen; ++m) seen = strcmp(names[m], v) == 0;
      if (!seen && k < SL_BENCH_MAX_CELLS) names[k++] = v;
    }
  }
  return k;
}

static void sl__summary_op(const sl_bench_table *t, sl_op op, FILE *f) {
  const char *names[SL_BENCH_MAX_CELLS];
  int nv = sl__variants_of(t, op, names);
  fprintf(f, "\n%s: speed-up over torch.cpu and %% of copy bandwidth\n",
          sl_op_name(op));
  fprintf(f, "  %-4s %12s", "case", "torch.cpu");
  for (int j = 0; j < nv; ++j) fprintf(f, " %13s", names[j]);
  fprintf(f, " %13s %8s\n", "best", "ceiling");
  double log_sum = 0, log_ceiling = 0;
  int judged = 0, slower = 0, bounded = 0, scattered = 0;
  for (int i = 0; i < t->n; ++i) {
    const sl_bench_row *r = &t->rows[i];
    if (r->c.op != op) continue;
    char ts[32] = "-";
    if (r->torch_s > 0) snprintf(ts, sizeof ts, "%9.3f ms", r->torch_s * 1e3);
    fprintf(f, "  #%-3d %12s", i + 1, ts);
    for (int j = 0; j < nv; ++j) {
      const sl_bench_cell *c = sl__cell(r, names[j]);
      char cell[40] = "-";
      if (c && r->torch_s > 0)
        snprintf(cell, sizeof cell, "%6.2fx %4.0f%%", r->torch_s / c->median_s,
                 c->pct);
      else if (c)
        snprintf(cell, sizeof cell, "%9.3fms", c->median_s * 1e3);
      fprintf(f, " %13s", cell);
    }
    const sl_bench_cell *best = sl_bench_best_cpu(r, 0);
    if (best && r->torch_s > 0) {
      double s = r->torch_s / best->median_s;
      const char *name = best->variant + 4;
      fprintf(f, " %6.2fx%c%-6.6s", s, r->scattered ? '~' : ' ', name);
      log_sum += log(s);
      ++judged;
      slower += s < 1.0;
      scattered += r->scattered;
    }
    /* torch.cpu at p% of the copy bandwidth: a kernel moving the useful
     * bytes at that bandwidth would be 100/p times faster. */
    const sl_bench_cell *torch = sl__cell(r, "torch.cpu");
    if (best && torch && torch->pct > 0) {
      fprintf(f, " %7.2fx", 100.0 / torch->pct);
      log_ceiling += log(100.0 / torch->pct);
      ++bounded;
    }
    fputc('\n', f);
  }
  if (judged)
    fprintf(f,
            "  best CPU variant vs torch.cpu: geometric mean %.2fx over %d "
            "case%s; slower than torch.cpu on %d\n",
            exp(log_sum / judged), judged, judged == 1 ? "" : "s", slower);
  if (scattered)
    fprintf(f,
            "  ~ %d speed-up%s read on timings that scatter (an IQR above "
            "half the median, after --retime): read with care\n",
            scattered, scattered == 1 ? "" : "s");
  if (bounded)
    fprintf(f,
            "  ceiling (useful bytes at the copy bandwidth vs torch.cpu): "
            "geometric mean %.2fx over %d case%s\n",
            exp(log_ceiling / bounded), bounded, bounded == 1 ? "" : "s");
  for (int i = 0; i < t->n; ++i)
    if (t->rows[i].c.op == op)
      fprintf(f, "  #%-3d %s\n", i + 1, t->rows[i].line);
}

void sl_bench_summary_print(const sl_bench_table *t, FILE *f) {
  if (t->n == 0) return;
  fprintf(f, "\n== summary (run order numbers the cases) ==\n");
  for (int op = 0; op < SL_OP_COUNT; ++op) {
    int any = 0;
    for (int i = 0; i < t->n && !any; ++i) any = t->rows[i].c.op == (sl_op)op;
    if (any) sl__summary_op(t, (sl_op)op, f);
  }
}

/* ------------------------------------------------------------------------ */
/* Crossover                                                                 */
/* ------------------------------------------------------------------------ */
static const char *const SL__STRATEGIES[3] = {"cpu.atomic", "cpu.lock",
                                              "cpu.sorted"};

/* The winner among the strategies timed on r and its margin over the
 * runner-up (runner-up median / winner median). 0 when fewer than two ran. */
static int sl__winner(const sl_bench_row *r, const char **name,
                      double *margin) {
  const sl_bench_cell *best = NULL, *second = NULL;
  for (int k = 0; k < 3; ++k) {
    const sl_bench_cell *c = sl__cell(r, SL__STRATEGIES[k]);
    if (!c) continue;
    if (!best || c->median_s < best->median_s) {
      second = best;
      best = c;
    } else if (!second || c->median_s < second->median_s) {
      second = c;
    }
  }
  if (!second) return 0;
  *name = best->variant + 4;
  *margin = second->median_s / best->median_s;
  return 1;
}

/* Destinations M, row width C and updates N of a scatter_reduce or
 * index_reduce case (from x and index along dim). 0 for other ops. */
static int sl__grid_coords(const sl_case *c, int64_t *M, int64_t *C,
                           int64_t *N) {
  if (!sl_case_reduces_along_dim(c->op)) return 0;
  const sl_case_shape *x = &c->arg[0], *index = &c->arg[1];
  if (x->ndim == 0) return 0;
  int64_t d = c->dim < 0 ? c->dim + x->ndim : c->dim;
  if (d < 0 || d >= x->ndim || x->shape[d] == 0) return 0;
  *M = x->shape[d];
  *C = sl_case_numel(x) / *M;
  if (sl_case_spec_of(c->op)->arg1 == SL_ARG1_INDEX_VECTOR)
    *N = index->ndim ? index->shape[0] : 1;
  else
    *N = d < index->ndim ? index->shape[d] : 1;
  return 1;
}

/* Cases of one grid: the same op, dtype, reduce, include_self, index
 * pattern and number of updates. */
static int sl__same_grid(const sl_case *a, const sl_case *b) {
  int64_t m1, c1, n1, m2, c2, n2;
  if (!sl__grid_coords(a, &m1, &c1, &n1) || !sl__grid_coords(b, &m2, &c2, &n2))
    return 0;
  return a->op == b->op && a->dt == b->dt && a->reduce == b->reduce &&
         a->include_self == b->include_self && a->ip == b->ip &&
         a->ip_param == b->ip_param && n1 == n2;
}

static int sl__cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* Sorted distinct values of v[0..n). */
static int sl__distinct(int64_t *v, int n) {
  qsort(v, (size_t)n, sizeof *v, sl__cmp_i64);
  int k = 0;
  for (int i = 0; i < n; ++i)
    if (k == 0 || v[k - 1] != v[i]) v[k++] = v[i];
  return k;
}

static void sl__grid(const sl_bench_table *t, int first, const char *done,
                     FILE *f) {
  const sl_case *g = &t->rows[first].c;
  int64_t *Ms = malloc(sizeof *Ms * (size_t)t->n);
  int64_t *Cs = malloc(sizeof *Cs * (size_t)t->n);
  if (!Ms || !Cs) {
    free(Ms);
    free(Cs);
    return;
  }
  int nm = 0, nc = 0;
  int64_t M, C, N = 0;
  for (int i = first; i < t->n; ++i)
    if (!done[i] && sl__same_grid(g, &t->rows[i].c) &&
        sl__grid_coords(&t->rows[i].c, &M, &C, &N)) {
      Ms[nm++] = M;
      Cs[nc++] = C;
    }
  nm = sl__distinct(Ms, nm);
  nc = sl__distinct(Cs, nc);
  char ip[16];
  snprintf(ip, sizeof ip, "%s", sl_index_pattern_name(g->ip));
  if (g->ip == SL_IP_DUP) snprintf(ip, sizeof ip, "dup%d", g->ip_param);
  fprintf(f,
          "\n%s %s %s self=%d ip=%s, %lld updates into M destinations of "
          "width C:\nthe fastest of atomic / lock / sorted, and by how much "
          "it beats the runner-up\n",
          sl_op_name(g->op), sl_reduce_name(g->reduce), sl_dtype_name(g->dt),
          g->include_self, ip, (long long)N);
  fprintf(f, "  %9s", "M \\ C");
  for (int j = 0; j < nc; ++j) fprintf(f, " %14lld", (long long)Cs[j]);
  fputc('\n', f);
  for (int im = 0; im < nm; ++im) {
    fprintf(f, "  %9lld", (long long)Ms[im]);
    for (int j = 0; j < nc; ++j) {
      char cell[40] = "-";
      for (int i = first; i < t->n; ++i) {
        const char *name;
        double margin;
        if (done[i] || !sl__same_grid(g, &t->rows[i].c) ||
            !sl__grid_coords(&t->rows[i].c, &M, &C, &N) || M != Ms[im] ||
            C != Cs[j] || !sl__winner(&t->rows[i], &name, &margin))
          continue;
        snprintf(cell, sizeof cell, "%s %.2fx", name, margin);
      }
      fprintf(f, " %14s", cell);
    }
    fputc('\n', f);
  }
  free(Ms);
  free(Cs);
}

/* Whether row first's grid has a second cell: another case of it at a
 * different M or C. A lone case (the seed suite's 4-update index_reduce)
 * is no sweep and reads as one line, not as a 1 x 1 grid. */
static int sl__forms_grid(const sl_bench_table *t, int first,
                          const char *done) {
  int64_t M0, C0, N0, M, C, N;
  if (!sl__grid_coords(&t->rows[first].c, &M0, &C0, &N0)) return 0;
  for (int i = first + 1; i < t->n; ++i)
    if (!done[i] && sl__same_grid(&t->rows[first].c, &t->rows[i].c) &&
        sl__grid_coords(&t->rows[i].c, &M, &C, &N) && (M != M0 || C != C0))
      return 1;
  return 0;
}

void sl_bench_crossover_print(const sl_bench_table *t, FILE *f) {
  char *done = calloc((size_t)t->n + 1, 1);
  if (!done) return;
  int header = 0;
  for (int i = 0; i < t->n; ++i) {
    const char *name;
    double margin;
    if (done[i] || !sl__winner(&t->rows[i], &name, &margin)) continue;
    if (!header) {
      fprintf(f, "\n== crossover: atomic vs lock vs sorted ==\n");
      header = 1;
    }
    if (sl__forms_grid(t, i, done)) {
      sl__grid(t, i, done, f);
      for (int j = i; j < t->n; ++j)
        if (sl__same_grid(&t->rows[i].c, &t->rows[j].c)) done[j] = 1;
      continue;
    }
    /* Other ops and lone cases: one line per case with the three times. */
    const sl_bench_row *r = &t->rows[i];
    fprintf(f, "  #%-3d", i + 1);
    for (int k = 0; k < 3; ++k) {
      const sl_bench_cell *c = sl__cell(r, SL__STRATEGIES[k]);
      if (c)
        fprintf(f, "  %s %.3f ms", SL__STRATEGIES[k] + 4, c->median_s * 1e3);
    }
    fprintf(f, "  -> %s by %.2fx  (%s)\n", name, margin, r->line);
    done[i] = 1;
  }
  free(done);
}
