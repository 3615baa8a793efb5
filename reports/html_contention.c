/*
 * The contention chart: seed 004's question, atomic versus lock versus
 * sorted scatter-min, as time against points per destination.
 *
 * A timed case is a contention point when its op reduces rows into a
 * destination tensor along dim 0 (index_reduce, scatter_reduce) and x is a
 * matrix [M, C]: N index entries (index length; index rows for
 * scatter_reduce) update M destination rows of width C, so N/M is the
 * average number of points per destination. The contention suite
 * (harness/batches/bench-contention.txt) sweeps M at fixed N for C = 1, 8,
 * 128. One figure per op/reduce/dtype/index pattern/threads, one panel per
 * row width C, one line per variant; both axes logarithmic; each point's
 * bar spans its timing's IQR.
 */
#include <stdlib.h>
#include <string.h>

#include "case.h"
#include "html.h"
#include "html_sections.h"
#include "svg.h"

typedef struct sl__cpoint {
  char fig[192];
  int64_t c;
  const char *variant;
  double ppd, median, iqr;
} sl__cpoint;

/* Fills p from a timing when it is a contention point; 0 when not. */
static int sl__contention_point(const sl__bench *b, sl__cpoint *p) {
  sl_case c;
  char err[8];
  if (sl_case_parse(b->case_line, &c, err, sizeof err)) return 0;
  if (!sl_case_reduces_along_dim(c.op)) return 0;
  const sl_case_shape *x = &c.arg[sl_op_arg(c.op, "x")];
  const sl_case_shape *ix = &c.arg[sl_op_arg(c.op, "index")];
  if (!x->present || !ix->present || x->ndim != 2 || ix->ndim < 1 ||
      c.dim != 0 || x->shape[0] <= 0 || ix->shape[0] <= 0)
    return 0;
  snprintf(p->fig, sizeof p->fig,
           "%s reduce=%s dt=%s ip=%s self=%d, %d thread%s, %s",
           sl_op_name(c.op), sl_reduce_name(c.reduce), sl_dtype_name(c.dt),
           sl_index_pattern_name(c.ip), c.include_self ? 1 : 0, b->threads,
           b->threads == 1 ? "" : "s", b->cold ? "cold" : "warm");
  p->c = x->shape[1];
  p->variant = b->variant;
  p->ppd = (double)ix->shape[0] / (double)x->shape[0];
  p->median = b->median_s;
  p->iqr = b->iqr_s;
  return 1;
}

/* torch.cpu first, so it keeps one colour in every panel. */
static int sl__cmp_variant(const char *a, const char *b) {
  int ta = strcmp(a, SL__TORCH_VARIANT) == 0;
  int tb = strcmp(b, SL__TORCH_VARIANT) == 0;
  if (ta != tb) return ta ? -1 : 1;
  return strcmp(a, b);
}

static int sl__cmp_cpoint(const void *pa, const void *pb) {
  const sl__cpoint *a = pa, *b = pb;
  int c = strcmp(a->fig, b->fig);
  if (c) return c;
  if (a->c != b->c) return a->c < b->c ? -1 : 1;
  c = sl__cmp_variant(a->variant, b->variant);
  if (c) return c;
  return (a->ppd > b->ppd) - (a->ppd < b->ppd);
}

/* Whether some line of the figure [i, j) has two different x values. */
static int sl__worth_drawing(const sl__cpoint *p, int i, int j) {
  for (int k = i + 1; k < j; ++k)
    if (p[k].c == p[k - 1].c && strcmp(p[k].variant, p[k - 1].variant) == 0 &&
        p[k].ppd != p[k - 1].ppd)
      return 1;
  return 0;
}

/* The colour of a variant within a figure: its rank among the figure's
 * variants, torch.cpu black (palette index 6). */
static int sl__variant_color(const sl__cpoint *p, int i, int j,
                             const char *variant) {
  if (strcmp(variant, SL__TORCH_VARIANT) == 0) return 6;
  const char *seen[64];
  int n = 0;
  for (int k = i; k < j; ++k) {
    if (strcmp(p[k].variant, SL__TORCH_VARIANT) == 0) continue;
    int dup = 0;
    for (int m = 0; m < n && !dup; ++m)
      dup = strcmp(seen[m], p[k].variant) == 0;
    if (dup) continue;
    if (strcmp(p[k].variant, variant) == 0) return n % 6;
    if (n < 64) seen[n++] = p[k].variant;
  }
  return 0;
}

/* One panel: the points [i, j) of one figure and one C. */
static void sl__panel(FILE *out, const sl__cpoint *p, int i, int j,
                      const double *xs, const double *ys, const double *qs,
                      int fi, int fj) {
  sl__svg_series series[32];
  int ns = 0;
  for (int k = i; k < j && ns < 32;) {
    int e = k;
    while (e < j && strcmp(p[e].variant, p[k].variant) == 0) ++e;
    series[ns++] = (sl__svg_series){p[k].variant,
                                    xs + k,
                                    ys + k,
                                    e - k,
                                    sl__variant_color(p, fi, fj, p[k].variant),
                                    qs + k};
    k = e;
  }
  char title[64];
  snprintf(title, sizeof title, "row width C = %lld", (long long)p[i].c);
  sl__svg_chart chart = {.title = title,
                         .xlabel = "points per destination (N/M)",
                         .ylabel = "median time",
                         .width = 360,
                         .height = 240,
                         .logx = 1,
                         .logy = 1,
                         .y_seconds = 1};
  fputs("<figure>\n", out);
  sl__svg_write(out, &chart, series, ns);
  fputs("</figure>\n", out);
}

int sl__html_contention(const sl__bench_set *set, const int *idx, int n,
                        FILE *out) {
  fputs("<h2 id=\"contention\">Contention</h2>\n", out);
  sl__cpoint *p = malloc(sizeof *p * (size_t)(n ? n : 1));
  double *xs = malloc(sizeof *xs * (size_t)(n ? n : 1));
  double *ys = malloc(sizeof *ys * (size_t)(n ? n : 1));
  double *qs = malloc(sizeof *qs * (size_t)(n ? n : 1));
  if (!p || !xs || !ys || !qs) {
    free(p);
    free(xs);
    free(ys);
    free(qs);
    return -1;
  }
  int np = 0;
  for (int i = 0; i < n; ++i)
    np += sl__contention_point(&set->v[idx[i]], &p[np]);
  qsort(p, (size_t)np, sizeof *p, sl__cmp_cpoint);
  for (int i = 0; i < np; ++i) {
    xs[i] = p[i].ppd;
    ys[i] = p[i].median;
    qs[i] = p[i].iqr;
  }
  int figures = 0;
  for (int i = 0; i < np;) {
    int j = i;
    while (j < np && strcmp(p[j].fig, p[i].fig) == 0) ++j;
    if (sl__worth_drawing(p, i, j)) {
      ++figures;
      fputs("<h3>", out);
      sl__html_text(out, p[i].fig);
      fputs("</h3>\n<div class=\"charts\">\n", out);
      for (int k = i; k < j;) {
        int e = k;
        while (e < j && p[e].c == p[k].c) ++e;
        sl__panel(out, p, k, e, xs, ys, qs, i, j);
        k = e;
      }
      fputs("</div>\n", out);
    }
    i = j;
  }
  if (!figures)
    fputs("<p class=\"note\">No contention sweep in these timings "
          "(<code>scatterlab bench --suite contention</code> records "
          "one).</p>\n",
          out);
  free(p);
  free(xs);
  free(ys);
  free(qs);
  return 0;
}
