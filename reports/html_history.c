/*
 * The history section of the HTML report: a chart of each benchmark's
 * median across runs, with its change points (dashed) and the level of each
 * segment, then a table of every change point. Benchmarks that moved come
 * first, the largest move first; the page stops at max_history charts.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "history.h"
#include "html.h"
#include "html_sections.h"
#include "report_common.h"
#include "svg.h"

static const sl__hist *sl__sorting;

/* Moved benchmarks first (largest move first), then the set's order. */
static int sl__cmp_moved(const void *pa, const void *pb) {
  int a = *(const int *)pa, b = *(const int *)pb;
  double ma = sl__sorting[a].max_change, mb = sl__sorting[b].max_change;
  if (ma != mb) return ma > mb ? -1 : 1;
  return (a > b) - (a < b);
}

/* The caption's line for change point k (1..ncps): its signed size (the
 * change of level, as in the change-point table) and where it happened,
 * "+12.3% at run 6 (commit abc1234)". */
static int sl__change_caption(FILE *out, sl_store *s, const sl__hist *h,
                              int k) {
  int a0, a1, b0, b1;
  sl__hist_segment(h, k - 1, &a0, &a1);
  sl__hist_segment(h, k, &b0, &b1);
  double change = sl__hist_level(h, b0, b1) / sl__hist_level(h, a0, a1) - 1;
  sl__hist_cause c;
  if (sl__hist_cause_of(s, h, k, &c)) return -1;
  char commit[SL__SHORT_COMMIT];
  sl__short_commit(c.after_commit, commit);
  fprintf(out, "<br><span class=\"%s\">%+.1f%%</span> at run %" PRId64,
          change > 0 ? "bad" : "good", 100 * change, h->run[b0]);
  if (c.after_commit[0]) {
    fputs(" (commit <code>", out);
    sl__html_text(out, commit);
    fputs("</code>)", out);
  }
  return 0;
}

static int sl__hist_chart(FILE *out, sl_store *s, const sl__hist *h) {
  int rc = -1;
  double *x = malloc(sizeof *x * (size_t)h->n);
  double *marks = malloc(sizeof *marks * (size_t)(h->ncps + 1));
  sl__svg_level *levels = malloc(sizeof *levels * (size_t)(h->ncps + 1));
  if (!x || !marks || !levels) goto done;
  rc = 0;
  for (int i = 0; i < h->n; ++i) x[i] = (double)h->run[i];
  for (int k = 0; k <= h->ncps; ++k) {
    int from, to;
    sl__hist_segment(h, k, &from, &to);
    levels[k] =
        (sl__svg_level){x[from], x[to - 1], sl__hist_level(h, from, to)};
    /* The mark sits between the last run of the old level and the first
     * of the new one. */
    if (k > 0) marks[k - 1] = (x[from - 1] + x[from]) / 2;
  }
  char title[160];
  snprintf(title, sizeof title, "%s, %d thread%s, %s", h->variant, h->threads,
           h->threads == 1 ? "" : "s", h->cold ? "cold" : "warm");
  sl__svg_series series = {NULL, x, h->median, h->n, 0, h->iqr};
  sl__svg_chart chart = {.title = title,
                         .xlabel = "run",
                         .ylabel = "median time",
                         .width = 420,
                         .height = 180,
                         .y_seconds = 1,
                         .x_integer = 1,
                         .marks = marks,
                         .nmarks = h->ncps,
                         .levels = levels,
                         .nlevels = h->ncps + 1};
  fputs("<figure>\n", out);
  sl__svg_write(out, &chart, &series, 1);
  fputs("<figcaption><code>", out);
  sl__html_text(out, h->case_line);
  fprintf(out, "</code><br>%d runs, %d change point%s", h->n, h->ncps,
          h->ncps == 1 ? "" : "s");
  for (int k = 1; k <= h->ncps && !rc; ++k)
    rc = sl__change_caption(out, s, h, k);
  fputs("</figcaption>\n</figure>\n", out);
done:
  free(x);
  free(marks);
  free(levels);
  return rc;
}

/* The change's commits and machines (sl__hist_cause): the new commit and
 * the one before it, then why the machines differ, or "same". */
static int sl__cause_cells(FILE *out, sl_store *s, const sl__hist *h, int k) {
  sl__hist_cause c;
  if (sl__hist_cause_of(s, h, k, &c)) return -1;
  fputs("<td><code>", out);
  sl__html_text(out, c.after_commit[0] ? c.after_commit : "?");
  if (c.same) {
    fprintf(out, "</code> as run %" PRId64 "%s", c.before,
            c.same == SL__SAME_DIRTY ? " (both dirty: their changes may differ)"
                                     : "");
  } else {
    fprintf(out, "</code> (run %" PRId64 ": <code>", c.before);
    sl__html_text(out, c.before_commit[0] ? c.before_commit : "?");
    fputs("</code>)", out);
  }
  fputs(c.machines[0] ? "</td><td class=\"bad\">" : "</td><td>same", out);
  sl__html_text(out, c.machines);
  if (c.kernels[0]) {
    fputs(c.machines[0] ? "; kernels: " : "; kernels differ: ", out);
    sl__html_text(out, c.kernels);
  }
  fputs("</td>", out);
  return 0;
}

static int sl__change_table(FILE *out, sl_store *s, const sl__hist_set *set) {
  int any = 0;
  for (int i = 0; i < set->n; ++i) {
    const sl__hist *h = &set->v[i];
    for (int k = 1; k <= h->ncps; ++k) {
      if (!any++)
        fputs("<h3>Change points</h3>\n<table class=\"changes\">\n<tr>"
              "<th>benchmark</th><th>variant</th><th>threads</th>"
              "<th>from run</th><th>before</th><th>after</th><th>change</th>"
              "<th>commit</th><th>machine</th></tr>\n",
              out);
      int a0, a1, b0, b1;
      sl__hist_segment(h, k - 1, &a0, &a1);
      sl__hist_segment(h, k, &b0, &b1);
      double before = sl__hist_level(h, a0, a1);
      double after = sl__hist_level(h, b0, b1);
      char tb[32], ta[32];
      sl__fmt_seconds(tb, sizeof tb, before);
      sl__fmt_seconds(ta, sizeof ta, after);
      fputs("<tr><td><code>", out);
      sl__html_text(out, h->case_line);
      fputs("</code></td><td>", out);
      sl__html_text(out, h->variant);
      fprintf(out,
              "</td><td class=\"n\">%d%s</td><td class=\"n\">%" PRId64
              "</td><td class=\"n\">%s</td><td class=\"n\">%s</td>"
              "<td class=\"n %s\">%+.1f%%</td>",
              h->threads, h->cold ? " cold" : "", h->run[b0], tb, ta,
              after > before ? "bad" : "good", 100 * (after / before - 1));
      if (sl__cause_cells(out, s, h, k)) return -1;
      fputs("</tr>\n", out);
    }
  }
  if (any) fputs("</table>\n", out);
  return 0;
}

int sl__html_history(sl_store *s, const sl_html_opts *o, FILE *out, char *err,
                     size_t errlen) {
  fputs("<h2 id=\"history\">History</h2>\n", out);
  sl__hist_set set;
  if (sl__hist_build(s, NULL, o->min_segment, NULL, &set, err, errlen))
    return -1;
  int *order = malloc(sizeof *order * (size_t)(set.n ? set.n : 1));
  if (!order) {
    sl__hist_set_free(&set);
    snprintf(err, errlen, "history: out of memory");
    return -1;
  }
  int n = 0;
  for (int i = 0; i < set.n; ++i)
    if (set.v[i].n >= 2) order[n++] = i;
  sl__sorting = set.v;
  qsort(order, (size_t)n, sizeof *order, sl__cmp_moved);
  if (n == 0) {
    fputs("<p class=\"note\">No benchmark was timed in more than one "
          "run.</p>\n",
          out);
  } else {
    fprintf(out,
            "<p class=\"note\">Median time per run. Dashed lines: change "
            "points (PELT on log times, segments of at least %d runs), "
            "captioned with the change of level; flat lines: the level of "
            "each segment; bars: each run's IQR.</p>\n<div class=\"charts\">\n",
            o->min_segment);
    int shown = n < o->max_history ? n : o->max_history;
    int bad = 0;
    for (int i = 0; i < shown && !bad; ++i)
      bad = sl__hist_chart(out, s, &set.v[order[i]]);
    fputs("</div>\n", out);
    if (bad) {
      snprintf(err, errlen, "history: %s", sl_store_errmsg(s));
      free(order);
      sl__hist_set_free(&set);
      return -1;
    }
    if (shown < n)
      fprintf(out,
              "<p class=\"note\">%d of %d histories shown (those that moved "
              "first); <code>scatterlab history --all</code> lists every "
              "one.</p>\n",
              shown, n);
  }
  const int rc = sl__change_table(out, s, &set);
  if (rc) snprintf(err, errlen, "history: %s", sl_store_errmsg(s));
  free(order);
  sl__hist_set_free(&set);
  return rc;
}
