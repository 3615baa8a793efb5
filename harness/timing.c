/* Repetition-based timing with medians and spread (see timing.h). */
#include "timing.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

double sl_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void sl_timing_opts_init(sl_timing_opts *o) {
  o->budget_s = 1.0;
  o->min_reps = 7;
  o->max_reps = 500;
  o->target_rel = 0.02;
  o->warmup_s = 0.05;
}

static int sl__cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Linear interpolation between order statistics (the usual "type 7"). */
static double sl__pick(const double *s, int n, double q) {
  double pos = q * (n - 1);
  int lo = (int)pos;
  int hi = lo + 1 < n ? lo + 1 : lo;
  return s[lo] + (pos - lo) * (s[hi] - s[lo]);
}

void sl_quartiles(const double *samples, int n, double *q1, double *median,
                  double *q3) {
  double *s = malloc(sizeof(double) * (size_t)n);
  if (!s) {
    *q1 = *median = *q3 = samples[0];
    return;
  }
  memcpy(s, samples, sizeof(double) * (size_t)n);
  qsort(s, (size_t)n, sizeof(double), sl__cmp_double);
  *q1 = sl__pick(s, n, 0.25);
  *median = sl__pick(s, n, 0.5);
  *q3 = sl__pick(s, n, 0.75);
  free(s);
}

int sl_time(sl_timed_fn fn, void *user, const sl_timing_opts *o,
            sl_timing *t) {
  memset(t, 0, sizeof *t);
  int max_reps = o->max_reps < SL_TIMING_MAX_SAMPLES ? o->max_reps
                                                     : SL_TIMING_MAX_SAMPLES;
  /* Warm-up: at least one call, then until warmup_s has passed (caches,
   * page faults of fresh outputs, thread pool start). */
  double start = sl_now();
  int rc;
  do {
    if ((rc = fn(user, -1))) return rc;
  } while (sl_now() - start < o->warmup_s);
  double spent = 0;
  while (t->reps < max_reps) {
    double t0 = sl_now();
    if ((rc = fn(user, t->reps))) return rc;
    double dt = sl_now() - t0;
    t->samples[t->reps++] = dt;
    spent += dt;
    if (t->reps < o->min_reps) continue;
    if (spent >= o->budget_s) break;
    /* Check the spread now and then, not after every sample. */
    if (t->reps % 4 == 0) {
      double q1, med, q3;
      sl_quartiles(t->samples, t->reps, &q1, &med, &q3);
      if (med > 0 && (q3 - q1) / med < o->target_rel) break;
    }
  }
  double q1, q3;
  sl_quartiles(t->samples, t->reps, &q1, &t->median_s, &q3);
  t->iqr_s = q3 - q1;
  t->min_s = t->samples[0];
  for (int i = 1; i < t->reps; ++i)
    if (t->samples[i] < t->min_s) t->min_s = t->samples[i];
  return 0;
}
