/*
 * The paired timing of `scatterlab ab`: two builds' versions of one kernel
 * (base and candidate) on the same inputs in the same process, timed
 * alternately in rounds, and judged on the per-round ratios.
 *
 * Why paired rounds: on a shared machine the speed of the code moves with
 * the neighbours, within a run and between runs (the 2-core development VM's
 * copy bandwidth sits at 18-45 or 74-80 GB/s). Two runs compared as
 * independent samples charge that drift to the code: an unchanged commit
 * was judged 143% slower at p = 1e-68. Within one round both arms run
 * seconds apart at most, so the drift that hits one hits the other, and the
 * ratio of the two cancels it. Each round runs the arms in a random order
 * (a fixed order would hand one arm the caches the other warmed).
 *
 * The judgement is on the log ratios d_r = ln(cand_r / base_r): the
 * Hodges-Lehmann estimate (median of the Walsh averages) and its
 * distribution-free interval, and the Wilcoxon signed-rank test, both paired
 * (reports/sl_stats.h). Sampling stops as soon as the interval is narrow
 * enough, or when the budget or the round limit is reached.
 */
#ifndef SL_AB_H
#define SL_AB_H

#include <stdint.h>

#include "timing.h"

#define SL_AB_MAX_ROUNDS 1000

/* What a benchmark is judged on: the seconds per call, or the retired
 * instructions per call (hardware counters, timing.h's sl_turn_counter),
 * which do not move with the neighbours as time does, but miss what
 * makes the same instructions slower (cache misses, stalls). */
#define SL_AB_METRIC_MAP(X)                                                    \
  X(TIME, time)                                                                \
  X(INSTRUCTIONS, instructions)

typedef enum sl_ab_metric {
#define SL__AB_METRIC_ENUM(e, name) SL_AB_METRIC_##e,
  SL_AB_METRIC_MAP(SL__AB_METRIC_ENUM)
#undef SL__AB_METRIC_ENUM
      SL_AB_METRIC_COUNT
} sl_ab_metric;

const char *sl_ab_metric_name(sl_ab_metric m);
/* The metric named s; -1 for none. */
int sl_ab_metric_parse(const char *s);

typedef struct sl_ab_opts {
  double budget_s;       /* timed work of both arms per benchmark (default 2) */
  int min_rounds;        /* never judge on fewer (default 10) */
  int max_rounds;        /* at most (<= SL_AB_MAX_ROUNDS; default 400) */
  double turn_s;         /* each arm's share of a round (default 0.005) */
  double warmup_s;       /* per arm before the rounds (default 0.05) */
  double half_width;     /* stop once the interval's half-width on the log
                            ratio is below this (default 0.01: about 1%) */
  double noisy_budget_s; /* more timed work for a benchmark whose interval
                            is still too wide to judge when budget_s is
                            spent (sl_ab_too_wide; default 2) */
  double threshold;      /* the relative change that counts (default 0.05) */
  double level;          /* of the interval (default 0.95) */
  uint64_t seed;         /* of the order of the arms in each round */
  const sl_turn_counter *counter; /* counts around each judged turn; NULL:
                                     none */
  sl_ab_metric metric; /* judged on (default time; instructions needs a
                          counter that reads them) */
} sl_ab_opts;

/* What a benchmark's interval says, against the threshold t (on the log
 * ratio, T = ln(1 + t)):
 *   slower   the estimate above T and the whole interval above T/2
 *   faster   the estimate below -T and the whole interval below -T/2
 *   same     the interval lies within (1/(1 + t), 1 + t): no change that
 *            counts
 *   unclear  none of these: a change near the threshold, or too few rounds
 *   noisy    unclear because the rounds scatter: after the extra budget the
 *            interval is still too wide (sl_ab_too_wide) for any verdict
 *            but a large change; "too noisy to judge", said with the
 *            figures rather than guessed */
#define SL_AB_VERDICT_MAP(X)                                                   \
  X(SAME, same)                                                                \
  X(FASTER, faster)                                                            \
  X(SLOWER, slower)                                                            \
  X(UNCLEAR, unclear)                                                          \
  X(NOISY, noisy)

typedef enum sl_ab_verdict {
#define SL__AB_ENUM(e, name) SL_AB_##e,
  SL_AB_VERDICT_MAP(SL__AB_ENUM)
#undef SL__AB_ENUM
      SL_AB_VERDICT_COUNT
} sl_ab_verdict;

const char *sl_ab_verdict_name(sl_ab_verdict v);

typedef struct sl_ab_result {
  int rounds;
  int calls_per_turn;              /* the same for both arms */
  double base_s[SL_AB_MAX_ROUNDS]; /* seconds per call, round by round */
  double cand_s[SL_AB_MAX_ROUNDS];
  /* With a counter: each arm's counts per call, round by round (-1 where
   * a counter read nothing), and cand/base of the instructions, exp of the
   * Hodges-Lehmann estimate over the rounds where both read (NAN where
   * none did). */
  sl_call_counts base_n[SL_AB_MAX_ROUNDS], cand_n[SL_AB_MAX_ROUNDS];
  double instr_ratio;
  /* cand/base of the metric judged: exp of the estimate and interval */
  double ratio, lo, hi;
  double p; /* two-sided, Wilcoxon signed-rank */
  sl_ab_verdict verdict;
  const char *stopped; /* "interval", "budget" or "rounds" */
  /* The rounds' own dispersion: half the interquartile range of the
   * per-round log ratios, as a relative figure (0.03: +-3%); and the
   * rounds taken past budget_s because the interval was too wide. */
  double spread;
  int extra_rounds;
  /* The machine's copy bandwidth, probed by the caller right after the
   * rounds (sl_copy_probe_gbs; 0: not probed): with the run's best probe it
   * tells a disturbed stretch of the machine's time. */
  double probe_gbs;
  /* With a reference arm (sl_ab_time_ref): its seconds per call round by
   * round (0 where the clock read nothing), and each build's speed-up over
   * it, exp of minus the Hodges-Lehmann estimate of ln(arm / ref) over the
   * same rounds (NAN without a reference). */
  int has_ref;
  double ref_s[SL_AB_MAX_ROUNDS];
  double base_speedup, cand_speedup;
} sl_ab_result;

void sl_ab_opts_init(sl_ab_opts *o);

/* Whether an interval [lo, hi] on the log ratio is too wide to judge: its
 * half-width above half the threshold's log T. Past it a claim needs an
 * estimate beyond 1.5 T, and "same" one within T/2 of no change: a
 * benchmark left unclear so is unclear for its noise, not for a change near
 * the threshold. */
int sl_ab_too_wide(double lo, double hi, const sl_ab_opts *o);

/* The verdict on a log-ratio estimate and interval (see above). */
sl_ab_verdict sl_ab_judge(double est, double lo, double hi,
                          const sl_ab_opts *o);

/*
 * Times base and cand (sl_timed_fn: k calls back to back, each sample the
 * seconds of one call) in paired rounds under o and judges them, on the
 * seconds or (o->metric) the instructions per call; a round whose metric
 * did not read in both arms is dropped. Both arms
 * make the same number of calls per turn, set from the slower arm's pace in
 * the warm-up. Returns 0, or the first non-zero value an arm returned; -1
 * when o is out of range or memory runs out. A signal (interrupt.h) ends
 * the rounds after the calls in hand; the result then holds what was
 * sampled.
 */
int sl_ab_time(sl_timed_fn base, void *base_user, sl_timed_fn cand,
               void *cand_user, const sl_ab_opts *o, sl_ab_result *r);

/*
 * sl_ab_time with a third arm, ref (LibTorch, say), timed in the same
 * rounds in a shuffled order of the three. It is not judged: it gives each
 * build's speed-up over it from the same stretch of the machine's time.
 * It makes its own number of calls per turn (about turn_s of them), so a
 * slow reference does not thin the judged arms' turns. ref NULL is
 * sl_ab_time.
 */
int sl_ab_time_ref(sl_timed_fn base, void *base_user, sl_timed_fn cand,
                   void *cand_user, sl_timed_fn ref, void *ref_user,
                   const sl_ab_opts *o, sl_ab_result *r);

#endif
