/*
 * Statistics of the reports: quantiles, the Mann-Whitney U test, the
 * Hodges-Lehmann shift with its distribution-free confidence interval, their
 * paired counterparts (the Wilcoxon signed-rank test and the one-sample
 * Hodges-Lehmann estimate with its interval), and change-point detection
 * over a series (PELT with a minimum segment length). Plain functions of
 * arrays: no store, no output.
 */
#ifndef SL_STATS_H
#define SL_STATS_H

#ifdef __cplusplus
extern "C" {
#endif

/* The q-quantile (0 <= q <= 1) of sorted[0..n) by linear interpolation
 * between closest ranks (R type 7, numpy's default); NaN when n == 0. */
double sl_stats_quantile_sorted(const double *sorted, int n, double q);

/* Median, first and third quartile of x[0..n) (x is not modified). NaN when
 * n == 0; -1 when out of memory, else 0. */
int sl_stats_quartiles(const double *x, int n, double *q1, double *median,
                       double *q3);

/* Two-sided p-value of the Mann-Whitney U test that a and b come from the
 * same distribution: normal approximation with the tie correction of the
 * variance and a continuity correction of 0.5. *u (may be NULL) receives
 * U of a (the number of pairs with a > b, ties counting one half). 1 when
 * every value is tied; NaN when a side is empty or memory runs out. */
double sl_stats_mann_whitney(const double *a, int na, const double *b, int nb,
                             double *u);

/* The Hodges-Lehmann estimate of the shift from a to b (the median of
 * every difference b[j] - a[i]) and its two-sided confidence interval at
 * `level` (e.g. 0.95) from the order statistics of the differences, with
 * the normal approximation of U for the rank. Sides larger than 1000 values
 * are thinned to 1000 evenly spaced quantiles first, so the cost stays
 * bounded. -1 when a side is empty or memory runs out, else 0. */
int sl_stats_hodges_lehmann(const double *a, int na, const double *b, int nb,
                            double level, double *shift, double *lo,
                            double *hi);

/* Two-sided p-value of the Wilcoxon signed-rank test that the paired
 * differences d[0..n) (e.g. log(cand / base) per round) are symmetric about
 * 0. Zeros are dropped first (Wilcoxon's method), and ties among |d| share
 * their average rank. Up to 30 nonzero differences without ties the null
 * distribution is exact (counted over every sign pattern); otherwise the
 * normal approximation with the tie correction of the variance and a
 * continuity correction of 0.5. *w_plus (may be NULL) receives W+, the sum
 * of the ranks of the positive differences. 1 (and W+ = 0) when every
 * difference is zero; NaN when n <= 0, a difference is not finite, or
 * memory runs out. */
double sl_stats_wilcoxon_signed_rank(const double *d, int n, double *w_plus);

/* The one-sample Hodges-Lehmann estimate of the location of the paired
 * differences d[0..n) (the median of the Walsh averages (d[i] + d[j]) / 2,
 * i <= j; zeros included) and its two-sided distribution-free confidence
 * interval at `level` (e.g. 0.95): the k-th smallest and k-th largest Walsh
 * average, with k from the exact signed-rank distribution up to n = 30 and
 * its normal approximation (continuity corrected) above. When n is too
 * small for any interval at that level (n < 6 at 0.95: even the full range
 * covers with probability 1 - 2^(1-n) < level), *lo and *hi are the least
 * and greatest Walsh averages (the least and greatest of d), and the caller
 * must not claim significance from them. More than 2000 differences are
 * thinned to 2000 evenly spaced quantiles first, so the cost stays bounded
 * (2e6 Walsh averages); the bounds are then taken at the quantiles of the
 * Walsh averages that the ranks for all n give, so the interval keeps the
 * width of n differences. -1 when n <= 0, a difference is not finite, or
 * memory runs out, else 0. */
int sl_stats_hodges_lehmann_paired(const double *d, int n, double level,
                                   double *est, double *lo, double *hi);

/* Change points of y[0..n) by PELT (Killick et al. 2012) with the cost of a
 * change in mean under Gaussian noise, segments of at least min_seg values
 * (>= 1), and the penalty 3 ln n per change. The series is first smoothed
 * by a running median over the largest odd window up to min_seg (at most
 * 31; anchored inside the series at both ends), so an excursion shorter
 * than a segment is not a level. The noise level is estimated robustly
 * from the successive differences of y (median |difference| / (0.6745
 * sqrt 2)) and floored at sigma_floor, so a noise-free series is not cut at
 * every ripple. Writes the first index of each new segment to cps
 * (ascending, at most max_cps) and returns their number; -1 when out of
 * memory. */
int sl_stats_changepoints(const double *y, int n, int min_seg,
                          double sigma_floor, int *cps, int max_cps);

#ifdef __cplusplus
}
#endif

#endif
