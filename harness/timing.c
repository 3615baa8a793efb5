/* Repetition-based timing with medians and spread (see timing.h). */
#include "timing.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "interrupt.h"

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

/* Whether timing t may stop: enough samples, and the budget spent or the
 * spread small. */
static int sl__settled(const sl_timing *t, double spent,
                       const sl_timing_opts *o, int max_reps) {
  if (t->reps >= max_reps) return 1;
  if (t->reps < o->min_reps) return 0;
  if (spent >= o->budget_s) return 1;
  double q1, med, q3;
  sl_quartiles(t->samples, t->reps, &q1, &med, &q3);
  return med > 0 && (q3 - q1) / med < o->target_rel;
}

static void sl__summarize(sl_timing *t) {
  if (t->reps == 0) return;
  double q1, q3;
  sl_quartiles(t->samples, t->reps, &q1, &t->median_s, &q3);
  t->iqr_s = q3 - q1;
  t->min_s = t->samples[0];
  for (int i = 1; i < t->reps; ++i)
    if (t->samples[i] < t->min_s) t->min_s = t->samples[i];
}

void sl_time_rounds(int n, const sl_timed_fn *fns, void *const *users,
                    const sl_timing_opts *o, sl_timing *t, int *rc) {
  int max_reps =
      o->max_reps < SL_TIMING_MAX_SAMPLES ? o->max_reps : SL_TIMING_MAX_SAMPLES;
  size_t m = (size_t)(n > 0 ? n : 1);
  double *spent = calloc(m, sizeof *spent), *last = calloc(m, sizeof *last);
  int *done = calloc(m, sizeof *done);
  if (!spent || !last || !done) { /* no memory for the bookkeeping */
    for (int i = 0; i < n; ++i) rc[i] = -1;
    goto out;
  }
  /* Warm-up, each in turn: at least one call, then until warmup_s has
   * passed (caches, page faults of fresh outputs, thread pools). */
  for (int i = 0; i < n; ++i) {
    memset(&t[i], 0, sizeof t[i]);
    if (sl_interrupted()) { /* no sample: the caller drops them all */
      rc[i] = 0;
      done[i] = 1;
      continue;
    }
    double start = sl_now();
    do {
      rc[i] = fns[i](users[i], -1, 1, &last[i]);
    } while (!rc[i] && !sl_interrupted() && sl_now() - start < o->warmup_s);
    done[i] = rc[i] != 0;
  }
  double turn = o->budget_s / 4;
  for (int round = 0, left = n; left > 0 && !sl_interrupted(); ++round) {
    left = 0;
    for (int j = 0; j < n; ++j) {
      int i = (round + j) % n;
      if (done[i]) continue;
      /* As many calls as fit the turn at the last call's pace. */
      int k = last[i] > 0 && turn / last[i] < max_reps ? (int)(turn / last[i])
                                                       : max_reps;
      if (k < 1) k = 1;
      if (k > max_reps - t[i].reps) k = max_reps - t[i].reps;
      double *s = t[i].samples + t[i].reps;
      if ((rc[i] = fns[i](users[i], t[i].reps, k, s))) {
        done[i] = 1;
        continue;
      }
      for (int r = 0; r < k; ++r) spent[i] += s[r];
      t[i].reps += k;
      last[i] = s[k - 1];
      done[i] = sl__settled(&t[i], spent[i], o, max_reps);
      left += !done[i];
    }
  }
  for (int i = 0; i < n; ++i) sl__summarize(&t[i]);
out:
  free(spent);
  free(last);
  free(done);
}

int sl_time(sl_timed_fn fn, void *user, const sl_timing_opts *o, sl_timing *t) {
  int rc;
  sl_time_rounds(1, &fn, &user, o, t, &rc);
  return rc;
}
