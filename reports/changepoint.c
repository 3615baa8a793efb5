/*
 * Change points of a benchmark's history: where its median time moved to a
 * new level and stayed there. PELT (Killick, Fearnhead and Eckley 2012)
 * finds the segmentation that minimises the within-segment squared error
 * plus a penalty per change, exactly, in close to linear time.
 *
 * The cost is scaled by a noise estimate so that the penalty means the same
 * thing for a 1 us kernel and a 1 s one. Callers pass log times, so a level
 * shift is a relative change. A running median first removes excursions
 * shorter than the minimum segment: a level is what lasts.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sl_stats.h"

/* Robust noise level: the median absolute successive difference, scaled to
 * a standard deviation for Gaussian noise (a difference of two independent
 * values has sd sigma sqrt 2; the median of |N(0,1)| is 0.6745). Level
 * shifts touch only a few differences, so they barely move it. */
static double sl__noise(const double *y, int n) {
  if (n < 2) return 0;
  double *d = malloc(sizeof *d * (size_t)(n - 1));
  if (!d) return 0;
  for (int i = 0; i + 1 < n; ++i) d[i] = fabs(y[i + 1] - y[i]);
  double q1, med, q3;
  int rc = sl_stats_quartiles(d, n - 1, &q1, &med, &q3);
  free(d);
  return rc ? 0 : med / (0.6745 * sqrt(2.0));
}

/* The widest running median applied before the search. */
#define SL__MAX_WINDOW 31

/* Median of the odd-length window w[0..n) (sorted in place; n small). */
static double sl__window_median(double *w, int n) {
  for (int i = 1; i < n; ++i)
    for (int j = i; j > 0 && w[j - 1] > w[j]; --j) {
      double t = w[j];
      w[j] = w[j - 1];
      w[j - 1] = t;
    }
  return w[n / 2];
}

/* A running median over the largest odd window not longer than min_seg:
 * an excursion shorter than a segment (one slow run on a busy machine) is
 * not a level and must not cost a change point, while a step that lasts a
 * segment keeps its place. Windows at either end are anchored inside the
 * series, so the newest run is judged against its neighbours too. */
static void sl__smooth(const double *y, int n, int min_seg, double *out) {
  int w = min_seg % 2 ? min_seg : min_seg - 1;
  if (w > SL__MAX_WINDOW) w = SL__MAX_WINDOW;
  if (w > n) w = n % 2 ? n : n - 1;
  int h = w / 2;
  double win[SL__MAX_WINDOW];
  for (int i = 0; i < n; ++i) {
    int lo = i - h;
    if (lo < 0) lo = 0;
    if (lo + w > n) lo = n - w;
    for (int k = 0; k < w; ++k) win[k] = y[lo + k];
    out[i] = w > 1 ? sl__window_median(win, w) : y[i];
  }
}

typedef struct sl__cand {
  int s;       /* a possible start of the last segment */
  int dead_at; /* from this end on it can never be optimal (INT_MAX-ish) */
} sl__cand;

int sl_stats_changepoints(const double *y, int n, int min_seg,
                          double sigma_floor, int *cps, int max_cps) {
  if (min_seg < 1) min_seg = 1;
  if (n < 2 * min_seg) return 0;
  double sigma = sl__noise(y, n);
  if (sigma < sigma_floor) sigma = sigma_floor;
  if (!(sigma > 0)) sigma = 1e-12;
  double inv_var = 1.0 / (sigma * sigma), beta = 3.0 * log((double)n);
  double *ys = malloc(sizeof *ys * (size_t)n);
  double *s1 = calloc((size_t)n + 1, sizeof *s1);
  double *s2 = calloc((size_t)n + 1, sizeof *s2);
  double *f = calloc((size_t)n + 1, sizeof *f);
  int *last = calloc((size_t)n + 1, sizeof *last);
  sl__cand *r = malloc(sizeof *r * ((size_t)n + 1));
  int *out = malloc(sizeof *out * ((size_t)n + 1));
  int ret = -1;
  if (!ys || !s1 || !s2 || !f || !last || !r || !out) goto done;
  sl__smooth(y, n, min_seg, ys);
  for (int i = 0; i < n; ++i) {
    s1[i + 1] = s1[i] + ys[i];
    s2[i + 1] = s2[i] + ys[i] * ys[i];
  }
  /* f[t]: the best penalised cost of y[0..t); a segmentation into pieces of
   * at least min_seg values exists only for t == 0 or t >= min_seg. */
  f[0] = -beta;
  int nr = 0;
  r[nr++] = (sl__cand){0, n + 1};
  for (int t = min_seg; t <= n; ++t) {
    double best = INFINITY;
    int arg = 0;
    for (int k = 0; k < nr; ++k) {
      int s = r[k].s;
      if (t - s < min_seg) continue;
      double sum = s1[t] - s1[s], len = t - s;
      double cost = (s2[t] - s2[s] - sum * sum / len) * inv_var;
      double v = f[s] + cost + beta;
      if (v < best) {
        best = v;
        arg = s;
      }
    }
    f[t] = best;
    last[t] = arg;
    /* Pruning: once f[s] + cost(s, t) exceeds f[t], a split at t beats s
     * for every end u at which [t, u) is a valid segment, i.e. from
     * t + min_seg on (the squared-error cost is superadditive). */
    int keep = 0;
    for (int k = 0; k < nr; ++k) {
      sl__cand c = r[k];
      if (c.dead_at <= t) continue;
      if (t - c.s >= min_seg) {
        double sum = s1[t] - s1[c.s], len = t - c.s;
        double cost = (s2[t] - s2[c.s] - sum * sum / len) * inv_var;
        if (f[c.s] + cost > f[t] && t + min_seg < c.dead_at)
          c.dead_at = t + min_seg;
      }
      r[keep++] = c;
    }
    nr = keep;
    r[nr++] = (sl__cand){t, n + 1};
  }
  int m = 0;
  for (int t = n; t > 0; t = last[t])
    if (last[t] > 0) out[m++] = last[t];
  ret = 0;
  for (int i = m - 1; i >= 0 && ret < max_cps; --i) cps[ret++] = out[i];
done:
  free(ys);
  free(s1);
  free(s2);
  free(f);
  free(last);
  free(r);
  free(out);
  return ret;
}
