/*
 * Quantiles, the Mann-Whitney U test and the Hodges-Lehmann shift: the
 * statistics behind `scatterlab compare`. Rank tests because benchmark
 * samples are skewed (a few slow outliers from interrupts and page faults)
 * and a t-test would let those outliers decide. Their paired counterparts,
 * the Wilcoxon signed-rank test and the one-sample Hodges-Lehmann estimate,
 * judge per-round differences of two builds timed alternately, so that a
 * drift of the machine that hits both builds cancels.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sl_stats.h"

static int sl__cmp_double(const void *pa, const void *pb) {
  double a = *(const double *)pa, b = *(const double *)pb;
  return (a > b) - (a < b);
}

double sl_stats_quantile_sorted(const double *sorted, int n, double q) {
  if (n <= 0) return NAN;
  if (q <= 0) return sorted[0];
  if (q >= 1) return sorted[n - 1];
  double h = q * (n - 1);
  int i = (int)floor(h);
  if (i >= n - 1) return sorted[n - 1];
  return sorted[i] + (h - i) * (sorted[i + 1] - sorted[i]);
}

int sl_stats_quartiles(const double *x, int n, double *q1, double *median,
                       double *q3) {
  *q1 = *median = *q3 = NAN;
  if (n <= 0) return 0;
  double *v = malloc(sizeof *v * (size_t)n);
  if (!v) return -1;
  memcpy(v, x, sizeof *v * (size_t)n);
  qsort(v, (size_t)n, sizeof *v, sl__cmp_double);
  *q1 = sl_stats_quantile_sorted(v, n, 0.25);
  *median = sl_stats_quantile_sorted(v, n, 0.5);
  *q3 = sl_stats_quantile_sorted(v, n, 0.75);
  free(v);
  return 0;
}

typedef struct sl__ranked {
  double v;
  int from_a;
} sl__ranked;

static int sl__cmp_ranked(const void *pa, const void *pb) {
  const sl__ranked *a = pa, *b = pb;
  return (a->v > b->v) - (a->v < b->v);
}

double sl_stats_mann_whitney(const double *a, int na, const double *b, int nb,
                             double *u) {
  if (u) *u = NAN;
  if (na <= 0 || nb <= 0) return NAN;
  int n = na + nb;
  sl__ranked *r = malloc(sizeof *r * (size_t)n);
  if (!r) return NAN;
  for (int i = 0; i < na; ++i) r[i] = (sl__ranked){a[i], 1};
  for (int j = 0; j < nb; ++j) r[na + j] = (sl__ranked){b[j], 0};
  qsort(r, (size_t)n, sizeof *r, sl__cmp_ranked);
  /* Ranks from 1; a run of t tied values shares their mean rank and adds
   * t^3 - t to the tie term of the variance. */
  double rank_sum_a = 0, ties = 0;
  for (int i = 0; i < n;) {
    int j = i;
    while (j + 1 < n && r[j + 1].v == r[i].v) ++j;
    double t = j - i + 1, mean_rank = (i + j + 2) / 2.0;
    for (int k = i; k <= j; ++k)
      if (r[k].from_a) rank_sum_a += mean_rank;
    ties += t * t * t - t;
    i = j + 1;
  }
  free(r);
  double ua = rank_sum_a - (double)na * (na + 1) / 2.0;
  if (u) *u = ua;
  double nn = (double)na * nb;
  double var = nn / 12.0 * ((n + 1) - ties / ((double)n * (n - 1)));
  if (!(var > 0)) return 1.0;
  double dev = fabs(ua - nn / 2.0) - 0.5;
  if (dev < 0) dev = 0;
  return erfc(dev / sqrt(var) / sqrt(2.0));
}

/* The k-th smallest (0-based) of v[0..n) by Hoare's selection; v is
 * reordered so that v[k] holds it. */
static double sl__select(double *v, long n, long k) {
  long lo = 0, hi = n - 1;
  while (lo < hi) {
    double pivot = v[lo + (hi - lo) / 2];
    long i = lo, j = hi;
    while (i <= j) {
      while (v[i] < pivot) ++i;
      while (v[j] > pivot) --j;
      if (i <= j) {
        double t = v[i];
        v[i++] = v[j];
        v[j--] = t;
      }
    }
    if (k <= j)
      hi = j;
    else if (k >= i)
      lo = i;
    else
      break;
  }
  return v[k];
}

/* The inverse of the standard normal CDF (Acklam's rational approximation,
 * relative error below 1.2e-9), for the rank of the interval bounds. */
static double sl__normal_quantile(double p) {
  static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
                             -2.759285104469687e+02, 1.383577518672690e+02,
                             -3.066479806614716e+01, 2.506628277459239e+00};
  static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
                             -1.556989798598866e+02, 6.680131188771972e+01,
                             -1.328068155288572e+01};
  static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
                             -2.400758277161838e+00, -2.549732539343734e+00,
                             4.374664141464968e+00,  2.938163982698783e+00};
  static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01,
                             2.445134137142996e+00, 3.754408661907416e+00};
  if (p <= 0) return -INFINITY;
  if (p >= 1) return INFINITY;
  if (p < 0.02425 || p > 1 - 0.02425) {
    double q = sqrt(-2 * log(p < 0.5 ? p : 1 - p));
    double x =
        (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    return p < 0.5 ? x : -x;
  }
  double q = p - 0.5, r = q * q;
  return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) *
         q / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

/* At most this many values per side enter the pairwise differences. */
#define SL__HL_MAX_SIDE 1000

/* A sorted copy of x, thinned to `max` evenly spaced quantiles when longer;
 * sets *m to its length. NULL when out of memory. */
static double *sl__thinned(const double *x, int n, int max, int *m) {
  *m = n;
  double *v = malloc(sizeof *v * (size_t)n);
  if (!v) return NULL;
  memcpy(v, x, sizeof *v * (size_t)n);
  qsort(v, (size_t)n, sizeof *v, sl__cmp_double);
  if (n > max) {
    for (int i = 0; i < max; ++i) v[i] = v[(int)(((double)i + 0.5) * n / max)];
    *m = max;
  }
  return v;
}

int sl_stats_hodges_lehmann(const double *a, int na, const double *b, int nb,
                            double level, double *shift, double *lo,
                            double *hi) {
  *shift = *lo = *hi = NAN;
  if (na <= 0 || nb <= 0) return -1;
  int ma, mb;
  double *va = sl__thinned(a, na, SL__HL_MAX_SIDE, &ma),
         *vb = sl__thinned(b, nb, SL__HL_MAX_SIDE, &mb);
  long n = (long)ma * mb;
  double *d = va && vb ? malloc(sizeof *d * (size_t)n) : NULL;
  if (!d) {
    free(va);
    free(vb);
    return -1;
  }
  for (int i = 0; i < ma; ++i)
    for (int j = 0; j < mb; ++j) d[(long)i * mb + j] = vb[j] - va[i];
  /* The rank of the bounds: the (1 - level)/2 quantile of U under the null,
   * by the normal approximation; at least 1 (then the interval is the full
   * range of the differences). */
  double z = sl__normal_quantile(0.5 + level / 2);
  double kf =
      floor((double)n / 2 - z * sqrt((double)ma * mb * (ma + mb + 1) / 12.0));
  long k = kf < 1 ? 1 : (long)kf;
  if (k > (n + 1) / 2) k = (n + 1) / 2;
  *lo = sl__select(d, n, k - 1);
  *hi = sl__select(d, n, n - k);
  double m1 = sl__select(d, n, (n - 1) / 2);
  double m2 = n % 2 ? m1 : sl__select(d, n, n / 2);
  *shift = (m1 + m2) / 2;
  free(d);
  free(va);
  free(vb);
  return 0;
}

/* Up to this many nonzero differences without ties, the signed-rank null
 * distribution is counted exactly (2^30 subsets: the counts stay exact
 * integers in a double, and the table has at most 466 entries). */
#define SL__SIGNRANK_EXACT_MAX 30

/* The number of subsets of the ranks {1..n} with each rank sum s, for
 * s = 0..n(n+1)/2: the null distribution of W+ (each rank positive with
 * probability 1/2, independently) times 2^n. Adding rank r to the table of
 * 1..r-1 shifts a copy by r (the subsets that hold r); counting s downwards
 * keeps each rank used once. NULL when out of memory. */
static double *sl__signrank_counts(int n) {
  int top = n * (n + 1) / 2;
  double *c = calloc((size_t)top + 1, sizeof *c);
  if (!c) return NULL;
  c[0] = 1;
  for (int r = 1; r <= n; ++r)
    for (int s = r * (r + 1) / 2; s >= r; --s) c[s] += c[s - r];
  return c;
}

static int sl__cmp_abs(const void *pa, const void *pb) {
  double a = fabs(*(const double *)pa), b = fabs(*(const double *)pb);
  return (a > b) - (a < b);
}

double sl_stats_wilcoxon_signed_rank(const double *d, int n, double *w_plus) {
  if (w_plus) *w_plus = NAN;
  if (n <= 0) return NAN;
  /* A non-finite ratio is a broken measurement, and NaN has no rank. */
  for (int i = 0; i < n; ++i)
    if (!isfinite(d[i])) return NAN;
  double *v = malloc(sizeof *v * (size_t)n);
  if (!v) return NAN;
  /* Wilcoxon's treatment of zeros: a round where both builds took the same
   * time says nothing about the direction, so it leaves the sample. */
  int m = 0;
  for (int i = 0; i < n; ++i)
    if (d[i] != 0) v[m++] = d[i];
  if (m == 0) {
    free(v);
    if (w_plus) *w_plus = 0;
    return 1.0;
  }
  qsort(v, (size_t)m, sizeof *v, sl__cmp_abs);
  /* Ranks of |d| from 1; a run of t tied magnitudes shares their mean rank
   * and adds t^3 - t to the tie term of the variance. */
  double wp = 0, ties = 0;
  for (int i = 0; i < m;) {
    int j = i;
    while (j + 1 < m && fabs(v[j + 1]) == fabs(v[i])) ++j;
    double t = j - i + 1, mean_rank = (i + j + 2) / 2.0;
    for (int k = i; k <= j; ++k)
      if (v[k] > 0) wp += mean_rank;
    ties += t * t * t - t;
    i = j + 1;
  }
  free(v);
  double p;
  if (m <= SL__SIGNRANK_EXACT_MAX && ties == 0) {
    /* Exact: W+ is an integer; the null is symmetric about top / 2, so the
     * smaller tail is P(W+ <= min(w, top - w)), doubled and capped at 1. */
    double *c = sl__signrank_counts(m);
    if (!c) return NAN;
    int top = m * (m + 1) / 2, w = (int)wp;
    int s_max = w < top - w ? w : top - w;
    double tail = 0;
    for (int s = 0; s <= s_max; ++s) tail += c[s];
    free(c);
    p = 2 * tail / ldexp(1.0, m);
    if (p > 1) p = 1;
  } else {
    double mm = m, mean = mm * (mm + 1) / 4;
    double var = mm * (mm + 1) * (2 * mm + 1) / 24 - ties / 48;
    if (!(var > 0)) {
      p = 1;
    } else {
      double dev = fabs(wp - mean) - 0.5;
      if (dev < 0) dev = 0;
      p = erfc(dev / sqrt(var) / sqrt(2.0));
    }
  }
  if (w_plus) *w_plus = wp;
  return p;
}

/* At most this many differences enter the Walsh averages (about 2e6 of
 * them, 16 MB). */
#define SL__HL_MAX_PAIRED 2000

int sl_stats_hodges_lehmann_paired(const double *d, int n, double level,
                                   double *est, double *lo, double *hi) {
  *est = *lo = *hi = NAN;
  if (n <= 0) return -1;
  /* +inf and -inf would average to NaN, which has no order. */
  for (int i = 0; i < n; ++i)
    if (!isfinite(d[i])) return -1;
  /* Zeros stay: unlike the test, the estimate is of a location, and a tie
   * between the builds is a value of it. */
  int m;
  double *v = sl__thinned(d, n, SL__HL_MAX_PAIRED, &m);
  long nw = (long)m * (m + 1) / 2;
  double *w = v ? malloc(sizeof *w * (size_t)nw) : NULL;
  if (!w) {
    free(v);
    return -1;
  }
  long t = 0;
  for (int i = 0; i < m; ++i)
    for (int j = i; j < m; ++j) w[t++] = (v[i] + v[j]) / 2;
  free(v);
  /* k, the rank (from 1) of the lower bound among the N Walsh averages of
   * all n differences: theta is outside [W(k), W(N + 1 - k)] exactly when
   * W+ of d - theta is at most k - 1 or at least N + 1 - k, so k - 1 is the
   * largest c with P(W+ <= c) <= (1 - level) / 2. When even c = 0 fails
   * (2^-n > (1 - level) / 2: n < 6 at 0.95) no interval reaches the level,
   * and k = 1 gives the full range. Ties among d are ignored here, as is
   * usual: the interval is then approximate. */
  double nd = n, big_n = nd * (nd + 1) / 2;
  double k;
  if (n <= SL__SIGNRANK_EXACT_MAX) {
    double *c = sl__signrank_counts(n);
    if (!c) {
      free(w);
      return -1;
    }
    double cut = (1 - level) / 2 * ldexp(1.0, n), cum = 0;
    int top = n * (n + 1) / 2, kk = 0;
    while (kk <= top && cum + c[kk] <= cut) cum += c[kk++];
    free(c);
    k = kk;
  } else {
    /* The normal approximation of W+ with a continuity correction: within
     * a few ranks of the exact value for n in 31..300 (the exact tails are
     * lighter, so at 0.95 and above it errs on the wide side). */
    double z = sl__normal_quantile(0.5 + level / 2);
    k = floor(big_n / 2 - z * sqrt(nd * (nd + 1) * (2 * nd + 1) / 24) + 0.5);
  }
  if (!(k >= 1)) k = 1; /* also a NaN level: the full range */
  if (k > floor((big_n + 1) / 2)) k = floor((big_n + 1) / 2);
  /* Thinned, the bounds keep their quantile of the Walsh averages: the
   * thinned sample's Walsh averages stand for all n's, so the interval keeps
   * the width of n differences rather than widening to that of 2000. */
  long k_lo = (long)k - 1;
  if (m < n) k_lo = (long)floor((k - 1) / (big_n - 1) * (double)(nw - 1) + 0.5);
  *lo = sl__select(w, nw, k_lo);
  *hi = sl__select(w, nw, nw - 1 - k_lo);
  double m1 = sl__select(w, nw, (nw - 1) / 2);
  double m2 = nw % 2 ? m1 : sl__select(w, nw, nw / 2);
  *est = (m1 + m2) / 2;
  free(w);
  return 0;
}
