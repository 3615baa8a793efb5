/*
 * Timing method of `scatterlab bench`: warm-up, then repetitions until the
 * spread is small or the time budget is spent; median, interquartile range
 * and minimum, with every raw sample kept.
 */
#ifndef SL_TIMING_H
#define SL_TIMING_H

#include <stddef.h>

#define SL_TIMING_MAX_SAMPLES 2000

typedef struct sl_timing_opts {
  double budget_s;   /* stop after this much timed work (default 1.0) */
  int min_reps;      /* at least this many samples (default 7) */
  int max_reps;      /* at most (<= SL_TIMING_MAX_SAMPLES; default 500) */
  double target_rel; /* stop once IQR/median is below this (default 0.02) */
  double warmup_s;   /* warm-up time before sampling (default 0.05) */
} sl_timing_opts;

typedef struct sl_timing {
  int reps;
  double median_s, iqr_s, min_s;
  double samples[SL_TIMING_MAX_SAMPLES];
} sl_timing;

void sl_timing_opts_init(sl_timing_opts *o);

/* One timed repetition: returns 0, or non-zero to abort timing. `rep` counts
 * from 0 (warm-up calls get -1) so a caller can rotate buffers (--cold). */
typedef int (*sl_timed_fn)(void *user, int rep);

/* Times fn. Returns 0, or the first non-zero value fn returned. */
int sl_time(sl_timed_fn fn, void *user, const sl_timing_opts *o,
            sl_timing *t);

/* Median and quartiles of samples[0..n) (sorted copy; n >= 1). */
void sl_quartiles(const double *samples, int n, double *q1, double *median,
                  double *q3);

double sl_now(void);

#endif
