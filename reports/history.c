/* Benchmark histories and their change points (see history.h). */
#include "history.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_set.h"
#include "html.h"
#include "machines.h"
#include "report_common.h"
#include "sl_stats.h"
#include "strmap.h"

static int sl__matches(const sl__bench *b, const char *match) {
  return !match || !*match || strstr(b->case_line, match) ||
         strstr(b->variant, match);
}

/* Appends the median of b to h; a second timing of the same benchmark in
 * one run (a batch that lists a case twice) replaces the first. */
static int sl__hist_add(sl__hist *h, const sl__bench *b) {
  if (h->n > 0 && h->run[h->n - 1] == b->run_id) {
    h->median[h->n - 1] = b->median_s;
    h->iqr[h->n - 1] = b->iqr_s;
    return 0;
  }
  /* Capacity doubles at powers of two. */
  if ((h->n & (h->n - 1)) == 0) {
    size_t cap = h->n ? 2 * (size_t)h->n : 1;
    int64_t *r = realloc(h->run, sizeof *r * cap);
    if (r) h->run = r;
    double *m = realloc(h->median, sizeof *m * cap);
    if (m) h->median = m;
    double *q = realloc(h->iqr, sizeof *q * cap);
    if (q) h->iqr = q;
    if (!r || !m || !q) return -1;
  }
  h->run[h->n] = b->run_id;
  h->median[h->n] = b->median_s;
  h->iqr[h->n] = b->iqr_s;
  ++h->n;
  return 0;
}

static int sl__cmp_hist(const void *pa, const void *pb) {
  const sl__hist *a = pa, *b = pb;
  int c = strcmp(a->case_line, b->case_line);
  if (!c) c = strcmp(a->variant, b->variant);
  if (!c && a->threads != b->threads) c = a->threads < b->threads ? -1 : 1;
  if (!c && a->cold != b->cold) c = a->cold < b->cold ? -1 : 1;
  return c;
}

static int sl__find_changes(sl__hist *h, int min_seg) {
  double *y = malloc(sizeof *y * (size_t)h->n);
  h->cps = malloc(sizeof *h->cps * (size_t)h->n);
  if (!y || !h->cps) {
    free(y);
    return -1;
  }
  /* Log times: a level shift is then a relative change, the same for a
   * microsecond kernel as for a second-long one. */
  for (int i = 0; i < h->n; ++i)
    y[i] = log(h->median[i] > 0 ? h->median[i] : 1e-300);
  h->ncps = sl_stats_changepoints(y, h->n, min_seg, SL__HIST_SIGMA_FLOOR,
                                  h->cps, h->n);
  free(y);
  if (h->ncps < 0) return -1;
  for (int k = 0; k < h->ncps; ++k) {
    int a0, a1, b0, b1;
    sl__hist_segment(h, k, &a0, &a1);
    sl__hist_segment(h, k + 1, &b0, &b1);
    double change = sl__hist_level(h, b0, b1) / sl__hist_level(h, a0, a1) - 1;
    if (fabs(change) > h->max_change) h->max_change = fabs(change);
  }
  return 0;
}

/* --anchor: each run's timings over the anchor's on the same case in that
 * run (sl__bench_anchor); the set comes in run order. Returns the anchor's
 * timings found, or -1 out of memory. */
static int sl__anchor_runs(sl__bench_set *set, const char *anchor) {
  int *idx = malloc(sizeof *idx * (size_t)(set->n ? set->n : 1));
  if (!idx) return -1;
  int found = 0;
  for (int from = 0, to, k; found >= 0 && from < set->n; from = to) {
    for (to = from; to < set->n && set->v[to].run_id == set->v[from].run_id;
         ++to)
      idx[to - from] = to;
    k = sl__bench_anchor(set, idx, to - from, anchor);
    found = k < 0 ? -1 : found + k;
  }
  free(idx);
  return found;
}

int sl__hist_build(sl_store *s, const char *match, int min_seg,
                   const char *anchor, sl__hist_set *out, char *err,
                   size_t errlen) {
  memset(out, 0, sizeof *out);
  out->anchor = anchor;
  sl__bench_set set = {0};
  if (sl__bench_load(s, 0, 0, &set, err, errlen)) return -1;
  sl__strmap map = {0};
  out->v = calloc((size_t)(set.n ? set.n : 1), sizeof *out->v);
  int rc = out->v ? 0 : -1;
  if (!rc && anchor) {
    int found = sl__anchor_runs(&set, anchor);
    if (found == 0) { /* a misspelt name, most likely: not a silent no-op */
      snprintf(err, errlen, "--anchor %s: no timing of %s in %s", anchor,
               anchor, sl_store_path(s));
      free(out->v);
      memset(out, 0, sizeof *out);
      sl__bench_set_free(&set);
      return -2;
    }
    rc = found < 0 ? -1 : 0;
  }
  char key[4400];
  for (int i = 0; !rc && i < set.n; ++i) {
    sl__bench *b = &set.v[i];
    /* With an anchor: neither the anchor's own series nor a run of a
     * benchmark whose case has no anchor timing in that run. */
    if (!sl__matches(b, match) || b->anchor) continue;
    sl__bench_key(b, key, sizeof key);
    int at = sl__strmap_get(&map, key);
    if (at < 0) {
      at = out->n++;
      sl__hist *h = &out->v[at];
      /* The strings move from the bench set to the history. */
      h->case_line = b->case_line;
      h->variant = b->variant;
      b->case_line = b->variant = NULL;
      h->threads = b->threads;
      h->cold = b->cold;
      if (sl__strmap_put(&map, key, at)) rc = -1;
    }
    if (!rc) rc = sl__hist_add(&out->v[at], b);
  }
  sl__strmap_free(&map);
  sl__bench_set_free(&set);
  for (int i = 0; !rc && i < out->n; ++i)
    rc = sl__find_changes(&out->v[i], min_seg);
  if (rc) {
    snprintf(err, errlen, "%s: history: out of memory", sl_store_path(s));
    sl__hist_set_free(out);
    return -1;
  }
  qsort(out->v, (size_t)out->n, sizeof *out->v, sl__cmp_hist);
  return 0;
}

void sl__hist_set_free(sl__hist_set *set) {
  for (int i = 0; i < set->n; ++i) {
    free(set->v[i].case_line);
    free(set->v[i].variant);
    free(set->v[i].run);
    free(set->v[i].median);
    free(set->v[i].iqr);
    free(set->v[i].cps);
  }
  free(set->v);
  memset(set, 0, sizeof *set);
}

void sl__hist_fmt_level(const sl__hist_set *set, double level, char *buf,
                        size_t len) {
  if (set->anchor)
    snprintf(buf, len, "%.4gx %s", level, set->anchor);
  else
    sl__fmt_seconds(buf, len, level);
}

double sl__hist_level(const sl__hist *h, int from, int to) {
  double sum = 0;
  for (int i = from; i < to; ++i) sum += log(h->median[i]);
  return to > from ? exp(sum / (to - from)) : NAN;
}

void sl__hist_segment(const sl__hist *h, int k, int *from, int *to) {
  *from = k == 0 ? 0 : h->cps[k - 1];
  *to = k == h->ncps ? h->n : h->cps[k];
}

int sl__hist_cause_of(sl_store *s, const sl__hist *h, int k,
                      sl__hist_cause *out) {
  memset(out, 0, sizeof *out);
  int from, to;
  sl__hist_segment(h, k, &from, &to);
  if (k < 1 || k > h->ncps) return -1;
  out->before = h->run[from - 1];
  out->after = h->run[from];
  sl_run_brief m[2];
  if (sl_store_get_run(s, out->before, &m[0]) ||
      sl_store_get_run(s, out->after, &m[1]))
    return -1;
  memcpy(out->before_commit, m[0].git_commit, sizeof out->before_commit);
  memcpy(out->after_commit, m[1].git_commit, sizeof out->after_commit);
  if (out->after_commit[0] &&
      strcmp(out->after_commit, out->before_commit) == 0) {
    out->same =
        sl__commit_dirty(out->after_commit) ? SL__SAME_DIRTY : SL__SAME_COMMIT;
  }
  sl__machines_differ(&m[0], &m[1], "earlier run", "later run", out->machines,
                      sizeof out->machines);
  if (sl__kernels_differ(s, out->before, s, out->after, "earlier run",
                         "later run", out->kernels, sizeof out->kernels) < 0)
    return -1;
  return 0;
}
