/*
 * Statistics of the reports: quantiles, the Mann-Whitney U test, the
 * Hodges-Lehmann shift with its distribution-free confidence interval, and
 * change-point detection over a series (PELT with a minimum segment
 * length). Plain functions of arrays: no store, no output.
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
