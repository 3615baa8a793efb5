/*
 * The statistics of reports/, on samples small enough to work out by hand
 * (every expected value below is derived in the comment above its check).
 */
#include <math.h>
#include <stdio.h>

#include "sl_stats.h"
#include "sl_test.h"

#define NEAR(a, b, tol) (fabs((a) - (b)) <= (tol))

static void test_quantiles(void) {
  /* R type 7 on {1,2,3,4}: h = q (n - 1); q1: h = 0.75 -> 1.75; median:
   * h = 1.5 -> 2.5; q3: h = 2.25 -> 3.25. */
  const double x[] = {4, 1, 3, 2};
  double q1, med, q3;
  CHECK(sl_stats_quartiles(x, 4, &q1, &med, &q3) == 0);
  CHECK(q1 == 1.75 && med == 2.5 && q3 == 3.25);
  const double one[] = {7};
  CHECK(sl_stats_quartiles(one, 1, &q1, &med, &q3) == 0);
  CHECK(q1 == 7 && med == 7 && q3 == 7);
  CHECK(sl_stats_quartiles(x, 0, &q1, &med, &q3) == 0 && isnan(med));
  const double sorted[] = {10, 20, 30};
  CHECK(sl_stats_quantile_sorted(sorted, 3, 0) == 10);
  CHECK(sl_stats_quantile_sorted(sorted, 3, 1) == 30);
  CHECK(sl_stats_quantile_sorted(sorted, 3, 0.75) == 25);
}

static void test_mann_whitney(void) {
  /* Complete separation, 5 and 5: U = 0, mean 12.5, variance 25 * 11 / 12
   * = 22.9167, z = (12.5 - 0.5) / 4.7871 = 2.5067, p = 2 (1 - Phi(z)) =
   * 0.01219. */
  const double a[] = {1, 2, 3, 4, 5}, b[] = {6, 7, 8, 9, 10};
  double u;
  double p = sl_stats_mann_whitney(a, 5, b, 5, &u);
  CHECK_MSG(u == 0 && NEAR(p, 0.01219, 2e-5), "U %g p %g", u, p);
  /* Swapping the sides gives U = 25 and the same two-sided p. */
  double p2 = sl_stats_mann_whitney(b, 5, a, 5, &u);
  CHECK(u == 25 && p2 == p);

  /* Ties: a = {1,2,2}, b = {2,3,3}. Ranks: 1 -> 1; the three 2s share 3;
   * the two 3s share 5.5. R_a = 1 + 3 + 3 = 7, U_a = 7 - 6 = 1 (pairs: the
   * two a=2 tie b=2, half each). Tie term 24 + 6 = 30; variance
   * 9/12 (7 - 30/30) = 4.5; z = (|1 - 4.5| - 0.5) / sqrt(4.5) = sqrt 2;
   * p = erfc(1) = 0.157299. */
  const double ta[] = {1, 2, 2}, tb[] = {2, 3, 3};
  p = sl_stats_mann_whitney(ta, 3, tb, 3, &u);
  CHECK_MSG(u == 1 && NEAR(p, 0.157299, 1e-6), "U %g p %g", u, p);

  /* Everything tied: no evidence at all. */
  const double s5[] = {5, 5}, s5b[] = {5, 5, 5};
  CHECK(sl_stats_mann_whitney(s5, 2, s5b, 3, &u) == 1 && u == 3);
  CHECK(isnan(sl_stats_mann_whitney(a, 0, b, 5, NULL)));
}

static void test_hodges_lehmann(void) {
  /* a = {1,2,3}, b = {2,4,6}: the differences b - a sorted are
   * -1 0 1 1 2 3 3 4 5, median 2. 95%: k = floor(4.5 - 1.96 sqrt(9*7/12))
   * = floor(0.009) = 0 -> 1: the full range [-1, 5]. 50%: z = 0.6745,
   * k = floor(4.5 - 1.5455) = 2: [d(2), d(8)] = [0, 4]. */
  const double a[] = {3, 1, 2}, b[] = {6, 2, 4};
  double s, lo, hi;
  CHECK(sl_stats_hodges_lehmann(a, 3, b, 3, 0.95, &s, &lo, &hi) == 0);
  CHECK_MSG(s == 2 && lo == -1 && hi == 5, "%g [%g, %g]", s, lo, hi);
  CHECK(sl_stats_hodges_lehmann(a, 3, b, 3, 0.5, &s, &lo, &hi) == 0);
  CHECK_MSG(s == 2 && lo == 0 && hi == 4, "%g [%g, %g]", s, lo, hi);
  /* An even number of differences: a = {0, 1}, b = {0, 10}: 0 10 -1 9,
   * sorted -1 0 9 10, median (0 + 9) / 2 = 4.5. */
  const double ea[] = {0, 1}, eb[] = {0, 10};
  CHECK(sl_stats_hodges_lehmann(ea, 2, eb, 2, 0.95, &s, &lo, &hi) == 0);
  CHECK(s == 4.5 && lo == -1 && hi == 10);
  CHECK(sl_stats_hodges_lehmann(a, 0, b, 3, 0.95, &s, &lo, &hi) != 0);
  /* Long samples are thinned to 1000 quantiles: a constant shift of 3
   * survives exactly. */
  static double la[3000], lb[2500];
  for (int i = 0; i < 3000; ++i) la[i] = i % 100;
  for (int i = 0; i < 2500; ++i) lb[i] = i % 100 + 3;
  CHECK(sl_stats_hodges_lehmann(la, 3000, lb, 2500, 0.95, &s, &lo, &hi) == 0);
  CHECK_MSG(s == 3 && lo <= 3 && hi >= 3, "%g [%g, %g]", s, lo, hi);
}

/* The paired statistics against scipy 1.17.1: scipy.stats.wilcoxon(d,
 * zero_method='wilcox', correction=True, method='exact' or 'asymptotic')
 * for p; W+ as the sum of scipy.stats.rankdata(|d|) over d > 0 (scipy
 * reports min(W+, W-)); the Hodges-Lehmann estimate and interval by brute
 * force in numpy over all Walsh averages, k from the signed-rank
 * distribution counted exactly in Python integers (n <= 30) or
 * floor(N/2 - z sqrt(n(n+1)(2n+1)/24) + 0.5) (n > 30). The exact intervals
 * were checked by inversion: scipy's exact test on d - theta has p <= 0.05
 * just outside each bound and p > 0.05 just inside. */

/* A: ten distinct magnitudes; ranks of |d|: 0.02, 0.03, 0.11 negative
 * (1, 2, 5), so W+ = 55 - 8 = 47 and p = 2 P(W+ <= 8) = 2 * 25/1024. */
static const double pair_a[] = {0.12,  -0.03, 0.25, 0.07, 0.31,
                                -0.11, 0.18,  0.05, 0.22, -0.02};
/* B: two zeros (dropped: 13 left) and ties among |d| (0.015 twice, 0.02
 * three times, 0.01 three times, 0.005 twice): the normal approximation. */
static const double pair_b[] = {0,    0,     0.015,  -0.015, 0.02,
                                0.02, 0.02,  -0.005, 0.03,   0.01,
                                0.01, -0.01, 0.04,   0.005,  0.025};

/* Distinct magnitudes for any n <= 61: (i 37 mod 61 - 25.25) / 100 (no two
 * integers sum to 50.5, so no |d| ties). */
static void pair_distinct(double *d, int n) {
  for (int i = 0; i < n; ++i) d[i] = ((i * 37) % 61 - 25.25) / 100;
}

static void test_wilcoxon_signed_rank(void) {
  double w, p, p2, w2;
  /* Exact (n = 10). */
  p = sl_stats_wilcoxon_signed_rank(pair_a, 10, &w);
  CHECK_MSG(w == 47 && p == 0.048828125, "W+ %g p %.17g", w, p);
  /* Symmetry: negated, W+ becomes W- = 55 - 47 and p stays. */
  double neg[15];
  for (int i = 0; i < 10; ++i) neg[i] = -pair_a[i];
  p2 = sl_stats_wilcoxon_signed_rank(neg, 10, &w2);
  CHECK_MSG(w2 == 8 && p2 == p, "W+ %g p %.17g", w2, p2);

  /* Zeros and ties (normal approximation): scipy p = 0.02070621647248879,
   * W+ = 79 of 13 * 14 / 2 = 91. */
  p = sl_stats_wilcoxon_signed_rank(pair_b, 15, &w);
  CHECK_MSG(w == 79 && NEAR(p, 0.02070621647248879, 1e-12), "W+ %g p %.17g", w,
            p);
  for (int i = 0; i < 15; ++i) neg[i] = -pair_b[i];
  p2 = sl_stats_wilcoxon_signed_rank(neg, 15, &w2);
  CHECK_MSG(w2 == 12 && p2 == p, "W+ %g p %.17g", w2, p2);

  /* The boundary of the exact method: n = 30 exact (scipy 'exact'
   * 0.15794767439365387, W+ 302), n = 31 normal (scipy 'asymptotic'
   * 0.2062382266628453, W+ 313). */
  double c[31];
  pair_distinct(c, 31);
  p = sl_stats_wilcoxon_signed_rank(c, 30, &w);
  CHECK_MSG(w == 302 && NEAR(p, 0.15794767439365387, 1e-14), "W+ %g p %.17g", w,
            p);
  p = sl_stats_wilcoxon_signed_rank(c, 31, &w);
  CHECK_MSG(w == 313 && NEAR(p, 0.2062382266628453, 1e-12), "W+ %g p %.17g", w,
            p);

  /* Small n: five positive differences can reach no better than
   * p = 2 / 32 = 0.0625, six 2 / 64 = 0.03125 (scipy 'exact' agrees). */
  const double up[] = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6};
  p = sl_stats_wilcoxon_signed_rank(up, 5, &w);
  CHECK_MSG(w == 15 && p == 0.0625, "W+ %g p %g", w, p);
  p = sl_stats_wilcoxon_signed_rank(up, 6, &w);
  CHECK_MSG(w == 21 && p == 0.03125, "W+ %g p %g", w, p);
  /* n = 1: W+ is 0 or 1 with probability 1/2 each, p = 1 (scipy: 1). */
  p = sl_stats_wilcoxon_signed_rank(up, 1, &w);
  CHECK(w == 1 && p == 1);
  p = sl_stats_wilcoxon_signed_rank(neg, 1, &w); /* -0 after negating 0 */
  CHECK(w == 0 && p == 1);
  /* Every difference zero: no evidence. */
  const double zeros[] = {0, 0, 0, -0.0};
  p = sl_stats_wilcoxon_signed_rank(zeros, 4, &w);
  CHECK(w == 0 && p == 1);
  /* Bad input. */
  CHECK(isnan(sl_stats_wilcoxon_signed_rank(up, 0, &w)) && isnan(w));
  CHECK(isnan(sl_stats_wilcoxon_signed_rank(up, -1, NULL)));
  const double hole[] = {0.1, NAN, 0.3};
  CHECK(isnan(sl_stats_wilcoxon_signed_rank(hole, 3, &w)) && isnan(w));
}

/* D: 5000 rounds of (i 7919 mod 1009 - 480) / 1000, many ties. */
static double pair_d[5000];

static void test_hodges_lehmann_paired(void) {
  double e, lo, hi, e2, lo2, hi2;
  /* A at 0.95: k = 9 of 55 Walsh averages; estimate 0.1, interval
   * [0.005, 0.215]. At 0.5: k = 21, [0.07, 0.14]. */
  CHECK(sl_stats_hodges_lehmann_paired(pair_a, 10, 0.95, &e, &lo, &hi) == 0);
  CHECK_MSG(NEAR(e, 0.1, 1e-15) && NEAR(lo, 0.005, 1e-15) &&
                NEAR(hi, 0.215, 1e-15),
            "%.17g [%.17g, %.17g]", e, lo, hi);
  CHECK(sl_stats_hodges_lehmann_paired(pair_a, 10, 0.5, &e, &lo, &hi) == 0);
  CHECK_MSG(NEAR(e, 0.1, 1e-15) && NEAR(lo, 0.07, 1e-15) &&
                NEAR(hi, 0.14, 1e-15),
            "%.17g [%.17g, %.17g]", e, lo, hi);
  /* Symmetry: negating d negates the estimate and mirrors the interval. */
  double neg[15];
  for (int i = 0; i < 10; ++i) neg[i] = -pair_a[i];
  CHECK(sl_stats_hodges_lehmann_paired(pair_a, 10, 0.95, &e, &lo, &hi) == 0);
  CHECK(sl_stats_hodges_lehmann_paired(neg, 10, 0.95, &e2, &lo2, &hi2) == 0);
  CHECK(e2 == -e && lo2 == -hi && hi2 == -lo);

  /* B keeps its zeros: k = 26 of 120; 0.01 in [0.0025, 0.02]. */
  CHECK(sl_stats_hodges_lehmann_paired(pair_b, 15, 0.95, &e, &lo, &hi) == 0);
  CHECK_MSG(NEAR(e, 0.01, 1e-15) && NEAR(lo, 0.0025, 1e-15) &&
                NEAR(hi, 0.02, 1e-15),
            "%.17g [%.17g, %.17g]", e, lo, hi);
  for (int i = 0; i < 15; ++i) neg[i] = -pair_b[i];
  CHECK(sl_stats_hodges_lehmann_paired(neg, 15, 0.95, &e2, &lo2, &hi2) == 0);
  CHECK(e2 == -e && lo2 == -hi && hi2 == -lo);

  /* n = 30 exact (k = 138 of 465): 0.0475 in [-0.0225, 0.1225]; n = 31
   * normal (k = 148 of 496): 0.0475 in [-0.0275, 0.1125]. */
  double c[31];
  pair_distinct(c, 31);
  CHECK(sl_stats_hodges_lehmann_paired(c, 30, 0.95, &e, &lo, &hi) == 0);
  CHECK_MSG(NEAR(e, 0.0475, 1e-15) && NEAR(lo, -0.0225, 1e-15) &&
                NEAR(hi, 0.1225, 1e-15),
            "%.17g [%.17g, %.17g]", e, lo, hi);
  CHECK(sl_stats_hodges_lehmann_paired(c, 31, 0.95, &e, &lo, &hi) == 0);
  CHECK_MSG(NEAR(e, 0.0475, 1e-15) && NEAR(lo, -0.0275, 1e-15) &&
                NEAR(hi, 0.1125, 1e-15),
            "%.17g [%.17g, %.17g]", e, lo, hi);

  /* Too few for 95%: five values give the full range [0.1, 0.5] (it covers
   * with probability 1 - 2/32 only); six reach k = 1, the same full range
   * [0.1, 0.6], now a 96.9% interval. */
  const double up[] = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6};
  CHECK(sl_stats_hodges_lehmann_paired(up, 5, 0.95, &e, &lo, &hi) == 0);
  CHECK_MSG(NEAR(e, 0.3, 1e-15) && lo == 0.1 && hi == 0.5, "%g [%g, %g]", e, lo,
            hi);
  CHECK(sl_stats_hodges_lehmann_paired(up, 6, 0.95, &e, &lo, &hi) == 0);
  CHECK_MSG(NEAR(e, 0.35, 1e-15) && lo == 0.1 && hi == 0.6, "%g [%g, %g]", e,
            lo, hi);
  /* n = 1 and all zero: the one value, three times. */
  CHECK(sl_stats_hodges_lehmann_paired(up + 2, 1, 0.95, &e, &lo, &hi) == 0);
  CHECK(e == 0.3 && lo == 0.3 && hi == 0.3);
  const double zeros[] = {0, 0, 0, 0, 0, 0, 0, 0};
  CHECK(sl_stats_hodges_lehmann_paired(zeros, 8, 0.95, &e, &lo, &hi) == 0);
  CHECK(e == 0 && lo == 0 && hi == 0);

  /* Long: 5000 rounds (5 of them zero) are thinned to 2000 quantiles (2e6
   * Walsh averages instead of 12.5e6). Brute force over all 12.5e6 gives
   * 0.024 in [0.016, 0.032] (k = 6051182); the thinned values must land
   * within one step of the Walsh averages (0.0005). Taking the rank of 2000
   * differences instead would give [0.011, 0.037]. scipy 'asymptotic':
   * W+ = 6821232 of 4995 * 4996 / 2 = 12477510, p = 1.0983518969011311e-08
   * (the test never thins). */
  for (int i = 0; i < 5000; ++i) pair_d[i] = ((i * 7919) % 1009 - 480) / 1000.0;
  CHECK(sl_stats_hodges_lehmann_paired(pair_d, 5000, 0.95, &e, &lo, &hi) == 0);
  CHECK_MSG(NEAR(e, 0.024, 5e-4) && NEAR(lo, 0.016, 5e-4) &&
                NEAR(hi, 0.032, 5e-4),
            "%.17g [%.17g, %.17g]", e, lo, hi);
  double w, w2;
  double p = sl_stats_wilcoxon_signed_rank(pair_d, 5000, &w);
  CHECK_MSG(w == 6821232 && NEAR(p, 1.0983518969011311e-08, 1e-21),
            "W+ %.17g p %.17g", w, p);
  for (int i = 0; i < 5000; ++i) pair_d[i] = -pair_d[i];
  CHECK(sl_stats_hodges_lehmann_paired(pair_d, 5000, 0.95, &e2, &lo2, &hi2) ==
        0);
  CHECK(e2 == -e && lo2 == -hi && hi2 == -lo);
  double p2 = sl_stats_wilcoxon_signed_rank(pair_d, 5000, &w2);
  CHECK(w2 == 12477510 - 6821232 && p2 == p);

  /* Bad input: the outputs are NaN. */
  CHECK(sl_stats_hodges_lehmann_paired(up, 0, 0.95, &e, &lo, &hi) == -1);
  CHECK(isnan(e) && isnan(lo) && isnan(hi));
  CHECK(sl_stats_hodges_lehmann_paired(up, -3, 0.95, &e, &lo, &hi) == -1);
  const double hole[] = {0.1, INFINITY, 0.3};
  CHECK(sl_stats_hodges_lehmann_paired(hole, 3, 0.95, &e, &lo, &hi) == -1);
  CHECK(isnan(e));
}

static void test_changepoints(void) {
  int cps[8];
  /* A step from 0 to log(1.2) after 10 values, with a +-0.001 ripple (far
   * below the 1% floor of the noise): one change, at index 10. */
  double y[20];
  for (int i = 0; i < 20; ++i)
    y[i] = (i < 10 ? 0 : log(1.2)) + (i % 2 ? 0.001 : -0.001);
  int n = sl_stats_changepoints(y, 20, 3, 0.01, cps, 8);
  CHECK_MSG(n == 1 && cps[0] == 10, "%d change points, first %d", n,
            n > 0 ? cps[0] : -1);
  /* The ripple alone: no change. */
  for (int i = 0; i < 20; ++i) y[i] = i % 2 ? 0.001 : -0.001;
  CHECK(sl_stats_changepoints(y, 20, 3, 0.01, cps, 8) == 0);
  /* Two steps, up then back down. */
  for (int i = 0; i < 18; ++i) y[i] = i >= 6 && i < 12 ? 0.5 : 0;
  n = sl_stats_changepoints(y, 18, 3, 0.01, cps, 8);
  CHECK_MSG(n == 2 && cps[0] == 6 && cps[1] == 12, "%d: %d %d", n, cps[0],
            cps[1]);
  /* The minimum segment length: {5,5,9,9,9,9,9,9}. With segments of 2 the
   * change is at 2. With 3 it cannot be: the splits 3, 4, 5 leave squared
   * errors 10.67, 16 and 19.2, so 3 wins; a second change would need 9
   * values. */
  const double st[] = {5, 5, 9, 9, 9, 9, 9, 9};
  n = sl_stats_changepoints(st, 8, 2, 0.01, cps, 8);
  CHECK_MSG(n == 1 && cps[0] == 2, "%d: %d", n, cps[0]);
  n = sl_stats_changepoints(st, 8, 3, 0.01, cps, 8);
  CHECK_MSG(n == 1 && cps[0] == 3, "%d: %d", n, cps[0]);
  /* Too short for two segments. */
  CHECK(sl_stats_changepoints(st, 5, 3, 0.01, cps, 8) == 0);
  /* A single slow run is not a level, in the middle or as the newest run
   * (the running median of 3 replaces it by its neighbours' 0)... */
  for (int i = 0; i < 20; ++i) y[i] = 0;
  y[9] = 0.5;
  CHECK(sl_stats_changepoints(y, 20, 3, 0.01, cps, 8) == 0);
  y[9] = 0;
  y[19] = 0.5;
  CHECK(sl_stats_changepoints(y, 20, 3, 0.01, cps, 8) == 0);
  /* ... but three slow runs at the end are: the change is at 17. */
  y[17] = y[18] = 0.5;
  n = sl_stats_changepoints(y, 20, 3, 0.01, cps, 8);
  CHECK_MSG(n == 1 && cps[0] == 17, "%d: %d", n, n > 0 ? cps[0] : -1);
  /* Without smoothing (segments of 1) the lone outlier is its own level. */
  for (int i = 0; i < 20; ++i) y[i] = i == 9 ? 0.5 : 0;
  n = sl_stats_changepoints(y, 20, 1, 0.01, cps, 8);
  CHECK_MSG(n == 2 && cps[0] == 9 && cps[1] == 10, "%d", n);
}

int main(void) {
  test_quantiles();
  test_mann_whitney();
  test_hodges_lehmann();
  test_wilcoxon_signed_rank();
  test_hodges_lehmann_paired();
  test_changepoints();
  return sl_test_finish("test_stats");
}
