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
  test_changepoints();
  return sl_test_finish("test_stats");
}
