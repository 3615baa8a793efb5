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
  o->outpaced = 0;
  o->counter = NULL;
}

void sl_timing_clear(sl_timing *t) {
  memset(t, 0, sizeof *t);
  t->counts.instructions = t->counts.cycles = t->counts.cache_misses = -1;
}

static int sl__ctr_start(void *user) { return sl_counters_start(user); }
static int sl__ctr_stop(void *user, sl_counter_values *v) {
  return sl_counters_stop(user, v);
}

sl_turn_counter sl_turn_counter_of(sl_counters *c) {
  sl_turn_counter t = {sl__ctr_start, sl__ctr_stop, c};
  return t;
}

void sl_call_counts_of(const sl_counter_values *v, int k, sl_call_counts *out) {
  const int64_t in[3] = {v ? v->instructions : -1, v ? v->cycles : -1,
                         v ? v->cache_misses : -1};
  double per[3];
  for (int i = 0; i < 3; ++i)
    per[i] = k >= 1 && in[i] >= 0 ? (double)in[i] / k : -1;
  out->instructions = per[0], out->cycles = per[1], out->cache_misses = per[2];
}

int sl_counted_turn(const sl_turn_counter *counter, sl_timed_fn fn, void *user,
                    int rep, int k, double *samples, sl_call_counts *counts) {
  if (!counter) return fn(user, rep, k, samples);
  const int started = counter->start(counter->user) == 0;
  const int rc = fn(user, rep, k, samples);
  sl_counter_values v;
  const int read = started && counter->stop(counter->user, &v) == 0;
  sl_call_counts_of(read ? &v : NULL, k, counts);
  return rc;
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
 * spread small after SL_TIMING_MIN_TURNS turns. */
static int sl__settled(const sl_timing *t, double spent, int turns,
                       const sl_timing_opts *o, int max_reps) {
  if (t->reps >= max_reps) return 1;
  if (t->reps < o->min_reps) return 0;
  if (spent >= o->budget_s) return 1;
  if (turns < SL_TIMING_MIN_TURNS) return 0;
  double q1, med, q3;
  sl_quartiles(t->samples, t->reps, &q1, &med, &q3);
  return med > 0 && (q3 - q1) / med < o->target_rel;
}

/* Whether function i of t[0..n) is outpaced (sl_timing_opts.outpaced):
 * its fastest sample so far is o->outpaced times the lowest median among
 * the others with enough samples. A function that is far slower than the
 * best gains nothing from more samples: it is not the best, nor near it. */
static int sl__outpaced(const sl_timing *t, int n, int i,
                        const sl_timing_opts *o) {
  const int enough = o->min_reps < SL_TIMING_OUTPACED_REPS
                         ? o->min_reps
                         : SL_TIMING_OUTPACED_REPS;
  if (!(o->outpaced > 0) || t[i].reps < enough) return 0;
  double fastest = t[i].samples[0], lead = 0, q1, med, q3;
  for (int r = 1; r < t[i].reps; ++r)
    if (t[i].samples[r] < fastest) fastest = t[i].samples[r];
  for (int j = 0; j < n; ++j) {
    if (j == i || t[j].reps < enough) continue;
    sl_quartiles(t[j].samples, t[j].reps, &q1, &med, &q3);
    if (med > 0 && (lead == 0 || med < lead)) lead = med;
  }
  return lead > 0 && fastest > o->outpaced * lead;
}

/* The median over turns[0..n) of each count that was read (>= 0); -1 for
 * a count no turn read. */
static void sl__median_counts(const sl_call_counts *turns, int n,
                              double *scratch, sl_call_counts *out) {
  double *fields[3] = {&out->instructions, &out->cycles, &out->cache_misses};
  for (int f = 0; f < 3; ++f) {
    int m = 0;
    for (int i = 0; i < n; ++i) {
      const double x = f == 0   ? turns[i].instructions
                       : f == 1 ? turns[i].cycles
                                : turns[i].cache_misses;
      if (x >= 0) scratch[m++] = x;
    }
    double q1, q3;
    *fields[f] = -1;
    if (m > 0) sl_quartiles(scratch, m, &q1, fields[f], &q3);
  }
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
  int *done = calloc(m, sizeof *done), *nturns = calloc(m, sizeof *nturns);
  /* Each function's turns' counts (a turn has at least one call, so at
   * most max_reps turns), with a counter only. */
  const size_t per = (size_t)(max_reps > 0 ? max_reps : 1);
  sl_call_counts *counts = o->counter ? calloc(m * per, sizeof *counts) : NULL;
  double *scratch = o->counter ? calloc(per, sizeof *scratch) : NULL;
  if (!spent || !last || !done || !nturns ||
      (o->counter && (!counts || !scratch))) { /* no memory for the books */
    for (int i = 0; i < n; ++i) rc[i] = -1;
    goto out;
  }
  /* Warm-up, each in turn: at least one call, then until warmup_s has
   * passed (caches, page faults of fresh outputs, thread pools). */
  for (int i = 0; i < n; ++i) {
    sl_timing_clear(&t[i]);
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
  const double turn = o->budget_s / (4 * SL_TIMING_MIN_TURNS);
  const int most = (max_reps + SL_TIMING_MIN_TURNS - 1) / SL_TIMING_MIN_TURNS;
  for (int round = 0, left = n; left > 0 && !sl_interrupted(); ++round) {
    left = 0;
    for (int j = 0; j < n; ++j) {
      int i = (round + j) % n;
      if (done[i]) continue;
      /* As many calls as fit the turn at the last call's pace, at most
       * `most`. */
      int k =
          last[i] > 0 && turn / last[i] < most ? (int)(turn / last[i]) : most;
      if (k < 1) k = 1;
      if (k > max_reps - t[i].reps) k = max_reps - t[i].reps;
      double *s = t[i].samples + t[i].reps;
      sl_call_counts *c = counts ? &counts[(size_t)i * per + nturns[i]] : 0;
      ++nturns[i];
      if ((rc[i] = sl_counted_turn(o->counter, fns[i], users[i], t[i].reps, k,
                                   s, c))) {
        done[i] = 1;
        continue;
      }
      for (int r = 0; r < k; ++r) spent[i] += s[r];
      t[i].reps += k;
      last[i] = s[k - 1];
      done[i] = sl__settled(&t[i], spent[i], nturns[i], o, max_reps);
      if (!done[i] && sl__outpaced(t, n, i, o)) done[i] = t[i].outpaced = 1;
      left += !done[i];
    }
  }
  for (int i = 0; i < n; ++i) {
    sl__summarize(&t[i]);
    if (counts)
      sl__median_counts(counts + (size_t)i * per, nturns[i], scratch,
                        &t[i].counts);
  }
out:
  free(spent);
  free(last);
  free(done);
  free(nturns);
  free(counts);
  free(scratch);
}

int sl_time(sl_timed_fn fn, void *user, const sl_timing_opts *o, sl_timing *t) {
  int rc;
  sl_time_rounds(1, &fn, &user, o, t, &rc);
  return rc;
}
