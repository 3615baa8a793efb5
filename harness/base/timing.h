/*
 * Timing method of `scatterlab bench`: warm-up, then repetitions until the
 * spread is small or the time budget is spent; median, interquartile range
 * and minimum, with every raw sample kept.
 */
#ifndef SL_TIMING_H
#define SL_TIMING_H

#include <stddef.h>

#include "perf_counters.h"

#define SL_TIMING_MAX_SAMPLES 2000

/*
 * Hardware counts around each timed turn (the k calls of one sl_timed_fn
 * call): start before the turn, stop after it, writing the turn's counts
 * (-1 for a counter it could not read). The real one wraps perf_counters.h
 * (sl_turn_counter_of); tests give counts of their own.
 */
typedef struct sl_turn_counter {
  int (*start)(void *user);
  int (*stop)(void *user, sl_counter_values *v);
  void *user;
} sl_turn_counter;

/* The counter that reads c (perf_counters.h) around each turn. */
sl_turn_counter sl_turn_counter_of(sl_counters *c);

/* The counts of one turn of k calls, per call: each counter's count / k,
 * -1 where it read nothing (or k < 1). */
typedef struct sl_call_counts {
  double instructions, cycles, cache_misses;
} sl_call_counts;

/* Doubles from one sl_call_counts to the next in an array: the stride at
 * which one field (&a[0].cycles, say) is read across the array. */
#define SL_CALL_COUNTS_STEP ((int)(sizeof(sl_call_counts) / sizeof(double)))

void sl_call_counts_of(const sl_counter_values *v, int k, sl_call_counts *out);

typedef struct sl_timing_opts {
  double budget_s;   /* stop after this much timed work (default 1.0) */
  int min_reps;      /* at least this many samples (default 7) */
  int max_reps;      /* at most (<= SL_TIMING_MAX_SAMPLES; default 500) */
  double target_rel; /* stop once IQR/median is below this (default 0.02) */
  double warmup_s;   /* warm-up time before sampling (default 0.05) */
  /* In sl_time_rounds: a function whose fastest sample, after at least
   * SL_TIMING_OUTPACED_REPS (or min_reps, if fewer), is this many times the
   * lowest median of the others stops there (0, the default: never). */
  double outpaced;
  const sl_turn_counter *counter; /* hardware counts per turn; NULL: none */
} sl_timing_opts;

/* In sl_time_rounds, the turns each function samples in, max_reps
 * permitting: a turn holds at most max_reps / SL_TIMING_MIN_TURNS calls
 * (rounded up) and budget_s / (4 * SL_TIMING_MIN_TURNS) of time, and a
 * small spread stops a function only after so many turns (a quarter of
 * the budget). Were a fast call's max_reps to fit one turn, each
 * contender would sample its own stretch of time, and a slow spell of the
 * machine could land on one contender alone. */
#define SL_TIMING_MIN_TURNS 8

/* The samples a function has before it can be found outpaced. */
#define SL_TIMING_OUTPACED_REPS 3

typedef struct sl_timing {
  int reps;
  int outpaced; /* stopped short of min_reps and budget: outpaced */
  double median_s, iqr_s, min_s;
  /* Per call, the median over the timed turns of each turn's count over
   * its calls (a turn is counted whole, not call by call); -1 without a
   * counter or where no turn read one. */
  sl_call_counts counts;
  double samples[SL_TIMING_MAX_SAMPLES];
} sl_timing;

void sl_timing_opts_init(sl_timing_opts *o);

/* An empty timing: no samples, no counts (-1). */
void sl_timing_clear(sl_timing *t);

/*
 * k timed repetitions, back to back: samples[i] gets the seconds of
 * repetition rep + i (each function times itself: LibTorch's runs are timed
 * inside the shim). Returns 0, or non-zero to abort timing. Warm-up calls
 * get rep = -1; a caller can rotate buffers on rep (--cold).
 */
typedef int (*sl_timed_fn)(void *user, int rep, int k, double *samples);

/* Starts counter (when not NULL) and runs the turn fn(user, rep, k,
 * samples); with a counter, *counts gets the turn's counts per call (all
 * -1 when the counter could not start or stop: a count that cannot be
 * read is missing, never a reason to drop the timing). Returns fn's
 * value. */
int sl_counted_turn(const sl_turn_counter *counter, sl_timed_fn fn, void *user,
                    int rep, int k, double *samples, sl_call_counts *counts);

/* Times fn. Returns 0, or the first non-zero value fn returned. */
int sl_time(sl_timed_fn fn, void *user, const sl_timing_opts *o, sl_timing *t);

/*
 * Times n functions in interleaved rounds: each round gives every function
 * still sampling a turn (SL_TIMING_MIN_TURNS: at least one call, the calls
 * of a turn back to back, as a kernel runs in a loop), starting
 * with a different function each round, until each has its min_reps and
 * either a small spread or its budget. On a shared machine whose load
 * drifts over seconds, every function then samples the same stretch of
 * time, so ratios between them stay honest where back-to-back timing
 * would credit one with a quiet spell and charge another with a busy one.
 * rc[i] gets 0 or the first non-zero value fns[i] returned (that function
 * stops being called); t[i] its timing. A signal (interrupt.h) ends the
 * sampling after the calls in hand: the timings then fall short of these
 * rules, and the caller drops them.
 */
void sl_time_rounds(int n, const sl_timed_fn *fns, void *const *users,
                    const sl_timing_opts *o, sl_timing *t, int *rc);

/* Median and quartiles of samples[0..n) (sorted copy; n >= 1). */
void sl_quartiles(const double *samples, int n, double *q1, double *median,
                  double *q3);

double sl_now(void);

#endif
