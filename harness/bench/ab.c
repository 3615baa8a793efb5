/* Paired A/B timing and its verdict (ab.h). */
#include "ab.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "interrupt.h"
#include "sl_stats.h"

/* The most calls an arm makes in one turn (the scratch for their samples). */
enum { SL__AB_MAX_CALLS = 4096 };

const char *sl_ab_verdict_name(sl_ab_verdict v) {
  static const char *const names[] = {
#define SL__AB_NAME(e, name) #name,
      SL_AB_VERDICT_MAP(SL__AB_NAME)
#undef SL__AB_NAME
  };
  return v >= 0 && v < SL_AB_VERDICT_COUNT ? names[v] : "?";
}

const char *sl_ab_metric_name(sl_ab_metric m) {
  static const char *const names[] = {
#define SL__AB_METRIC_NAME(e, name) #name,
      SL_AB_METRIC_MAP(SL__AB_METRIC_NAME)
#undef SL__AB_METRIC_NAME
  };
  return m >= 0 && m < SL_AB_METRIC_COUNT ? names[m] : "?";
}

int sl_ab_metric_parse(const char *s) {
  for (int m = 0; s && m < SL_AB_METRIC_COUNT; ++m)
    if (strcmp(s, sl_ab_metric_name((sl_ab_metric)m)) == 0) return m;
  return -1;
}

void sl_ab_opts_init(sl_ab_opts *o) {
  memset(o, 0, sizeof *o);
  o->budget_s = 2.0;
  o->min_rounds = 10;
  o->max_rounds = 400;
  o->turn_s = 0.005;
  o->warmup_s = 0.05;
  o->half_width = 0.01;
  o->noisy_budget_s = 2.0;
  o->threshold = 0.05;
  o->level = 0.95;
  o->seed = 1;
}

int sl_ab_too_wide(double lo, double hi, const sl_ab_opts *o) {
  return !((hi - lo) / 2 <= log1p(o->threshold) / 2); /* NaN: too wide */
}

sl_ab_verdict sl_ab_judge(double est, double lo, double hi,
                          const sl_ab_opts *o) {
  const double t = log1p(o->threshold);
  if (!(lo <= est && est <= hi)) return SL_AB_UNCLEAR; /* NaN included */
  /* A change is claimed only when even the near end of the interval is
   * half the threshold away: the estimate alone past the threshold, with
   * an interval just clear of 1, was a false alarm on identical code under
   * a CI run's load (1.051 [1.006, 1.122]). */
  if (lo > t / 2 && est > t) return SL_AB_SLOWER;
  if (hi < -t / 2 && est < -t) return SL_AB_FASTER;
  if (lo > -t && hi < t) return SL_AB_SAME;
  return SL_AB_UNCLEAR;
}

/* xorshift64*: the order of the arms, reproducible from the seed. */
static uint64_t sl__next(uint64_t *s) {
  uint64_t x = *s ? *s : 0x9E3779B97F4A7C15ull;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *s = x;
  return x * 0x2545F4914F6CDD1Dull;
}

/* Runs k calls of an arm (counted when o has a counter, into *counts);
 * *per_call gets their mean, *spent their sum. */
static int sl__turn(sl_timed_fn fn, void *user, int rep, int k, double *scratch,
                    const sl_ab_opts *o, sl_call_counts *counts,
                    double *per_call, double *spent) {
  int rc = sl_counted_turn(o->counter, fn, user, rep, k, scratch, counts);
  if (rc) return rc;
  double sum = 0;
  for (int i = 0; i < k; ++i) sum += scratch[i];
  *per_call = sum / k;
  *spent += sum;
  return 0;
}

/* Warm-up: at least one call, then until warmup_s; the last call's time. */
static int sl__warm(sl_timed_fn fn, void *user, double warmup_s, double *last) {
  const double start = sl_now();
  int rc;
  do {
    rc = fn(user, -1, 1, last);
  } while (!rc && !sl_interrupted() && sl_now() - start < warmup_s);
  return rc;
}

/* Round i's metric of an arm: seconds or instructions per call (<= 0:
 * nothing read). */
static double sl__metric(const sl_ab_result *r, int cand, int i,
                         sl_ab_metric m) {
  if (m == SL_AB_METRIC_INSTRUCTIONS)
    return cand ? r->cand_n[i].instructions : r->base_n[i].instructions;
  return cand ? r->cand_s[i] : r->base_s[i];
}

/* Estimate, interval and p of the first n rounds, on o's metric. */
static int sl__judge(sl_ab_result *r, int n, const sl_ab_opts *o, double *d) {
  for (int i = 0; i < n; ++i)
    d[i] = log(sl__metric(r, 1, i, o->metric) / sl__metric(r, 0, i, o->metric));
  double est, lo, hi;
  if (sl_stats_hodges_lehmann_paired(d, n, o->level, &est, &lo, &hi)) return -1;
  r->ratio = exp(est);
  r->lo = exp(lo);
  r->hi = exp(hi);
  r->p = sl_stats_wilcoxon_signed_rank(d, n, NULL);
  r->verdict = sl_ab_judge(est, lo, hi, o);
  return 0;
}

/* Half the interquartile range of the log ratios d[0..n), as a relative
 * figure. */
static double sl__spread(double *d, int n) {
  double q1, med, q3;
  sl_quartiles(d, n, &q1, &med, &q3);
  return expm1((q3 - q1) / 2);
}

/* num/den of rounds [0, n): exp of the Hodges-Lehmann estimate of
 * ln(num[i] / den[i]) over the rounds where both read (> 0), a stride of
 * `step` doubles apart (so that a field of sl_call_counts can be read);
 * NAN where none did. */
static double sl__hl_ratio(const double *num, const double *den, int n,
                           int step, const sl_ab_opts *o, double *d) {
  int m = 0;
  for (int i = 0; i < n; ++i) {
    const double a = num[(size_t)i * step], b = den[(size_t)i * step];
    if (a > 0 && b > 0) d[m++] = log(a / b);
  }
  double est, lo, hi;
  if (m == 0 || sl_stats_hodges_lehmann_paired(d, m, o->level, &est, &lo, &hi))
    return NAN;
  return exp(est);
}

/* The speed-up over the reference arm of one arm's rounds: ref / arm, from
 * the rounds where the reference read a time; NAN without one. */
static double sl__speedup(const double *arm, const double *ref, int n,
                          const sl_ab_opts *o, double *d) {
  return 1 / sl__hl_ratio(arm, ref, n, 1, o, d);
}

/* The order of round i's turns: arms 0 (base), 1 (cand) and, with a
 * reference, 2, shuffled. Two arms take one draw (as before the reference
 * arm existed, so that a seed gives the same order it gave then). */
static void sl__order(uint64_t *seed, int n, int order[3]) {
  if (n == 2) {
    const int cand_first = (int)(sl__next(seed) >> 63);
    order[0] = cand_first, order[1] = !cand_first;
    return;
  }
  for (int i = 0; i < n; ++i) order[i] = i;
  for (int i = n - 1; i > 0; --i) { /* Fisher-Yates */
    const int j = (int)(sl__next(seed) % (uint64_t)(i + 1));
    const int t = order[i];
    order[i] = order[j], order[j] = t;
  }
}

/* Whether the rounds go on past budget_s: no verdict yet, the interval too
 * wide to give one (a disturbed stretch of the machine's time scatters the
 * rounds), and the extra budget not spent. A claim already clear of the
 * threshold needs no more rounds, however wide. Judged afresh on the first
 * round past the budget; later, the geometric checks keep r current. */
static int sl__go_on(sl_ab_result *r, const sl_ab_opts *o, double spent,
                     double *d, int *rc) {
  if (spent >= o->budget_s + o->noisy_budget_s) return 0;
  if (r->extra_rounds == 0 && sl__judge(r, r->rounds, o, d)) {
    *rc = -1;
    return 0;
  }
  return r->verdict == SL_AB_UNCLEAR &&
         sl_ab_too_wide(log(r->lo), log(r->hi), o);
}

/* Calls per turn for an arm of the given pace (seconds per call). */
static int sl__calls_for(double pace, double turn_s) {
  int k = pace > 0 && turn_s / pace < SL__AB_MAX_CALLS ? (int)(turn_s / pace)
                                                       : SL__AB_MAX_CALLS;
  return k < 1 ? 1 : k;
}

int sl_ab_time(sl_timed_fn base, void *base_user, sl_timed_fn cand,
               void *cand_user, const sl_ab_opts *o, sl_ab_result *r) {
  return sl_ab_time_ref(base, base_user, cand, cand_user, NULL, NULL, o, r);
}

int sl_ab_time_ref(sl_timed_fn base, void *base_user, sl_timed_fn cand,
                   void *cand_user, sl_timed_fn ref, void *ref_user,
                   const sl_ab_opts *o, sl_ab_result *r) {
  memset(r, 0, sizeof *r);
  r->verdict = SL_AB_UNCLEAR;
  r->stopped = "rounds";
  r->base_speedup = r->cand_speedup = NAN;
  if (!base || !cand || !o || !(o->budget_s > 0) || o->min_rounds < 1 ||
      o->max_rounds < o->min_rounds || o->max_rounds > SL_AB_MAX_ROUNDS ||
      !(o->turn_s > 0) || !(o->level > 0 && o->level < 1) ||
      !(o->noisy_budget_s >= 0) || !(o->threshold > 0) || o->metric < 0 ||
      o->metric >= SL_AB_METRIC_COUNT ||
      (o->metric == SL_AB_METRIC_INSTRUCTIONS && !o->counter))
    return -1;
  r->has_ref = ref != NULL;
  r->instr_ratio = NAN;
  double *scratch = malloc(sizeof *scratch * SL__AB_MAX_CALLS);
  double *d = malloc(sizeof *d * SL_AB_MAX_ROUNDS);
  int rc = scratch && d ? 0 : -1;
  double last_b = 0, last_c = 0, last_r = 0;
  if (!rc) rc = sl__warm(base, base_user, o->warmup_s, &last_b);
  if (!rc) rc = sl__warm(cand, cand_user, o->warmup_s, &last_c);
  if (!rc && ref) rc = sl__warm(ref, ref_user, o->warmup_s, &last_r);
  /* As many calls per turn as the slower arm fits in turn_s, the same for
   * both, so that each arm's turn covers as much of the machine's time.
   * The reference, which is not judged, fits its own calls in turn_s. */
  const int k = sl__calls_for(last_b > last_c ? last_b : last_c, o->turn_s);
  const int k_ref = sl__calls_for(last_r, o->turn_s);
  r->calls_per_turn = k;
  sl_timed_fn fns[3] = {base, cand, ref};
  void *users[3] = {base_user, cand_user, ref_user};
  const int narms = ref ? 3 : 2;
  uint64_t seed = o->seed;
  double spent = 0;
  int next_check = 0;
  /* Attempts bound the loop even when every round is dropped. */
  for (int attempt = 0; !rc && r->rounds < o->max_rounds &&
                        attempt < 2 * o->max_rounds && !sl_interrupted();
       ++attempt) {
    const int i = r->rounds;
    double *out[3] = {&r->base_s[i], &r->cand_s[i], &r->ref_s[i]};
    /* The reference is not counted: its counts are no one's. */
    sl_call_counts ref_n, *counts[3] = {&r->base_n[i], &r->cand_n[i], &ref_n};
    int order[3];
    sl__order(&seed, narms, order);
    for (int t = 0; t < narms && !rc; ++t) {
      const int a = order[t], calls = a == 2 ? k_ref : k;
      sl_ab_opts oa = *o;
      if (a == 2) oa.counter = NULL;
      *counts[a] = (sl_call_counts){-1, -1, -1};
      rc = sl__turn(fns[a], users[a], i * calls, calls, scratch, &oa, counts[a],
                    out[a], &spent);
    }
    if (rc) break;
    /* A call too short for the clock reads 0 (or a counter read nothing):
     * no ratio. Such a round is dropped (it would be +-inf), and counts
     * toward the budget only. */
    if (!(sl__metric(r, 0, i, o->metric) > 0 &&
          sl__metric(r, 1, i, o->metric) > 0)) {
      if (spent >= o->budget_s) break;
      continue;
    }
    ++r->rounds;
    /* Judged at geometrically spaced round counts (each check sorts all
     * Walsh averages, O(n^2 log n)). */
    if (r->rounds >= o->min_rounds && r->rounds >= next_check) {
      next_check = r->rounds + (r->rounds / 8 > 4 ? r->rounds / 8 : 4);
      if (sl__judge(r, r->rounds, o, d)) {
        rc = -1;
        break;
      }
      if (log(r->hi / r->lo) / 2 < o->half_width) {
        r->stopped = "interval";
        break;
      }
    }
    /* The budget ends the rounds once there are min_rounds of them (fewer
     * would be no judgement at all), unless they scatter too much. */
    if (spent >= o->budget_s && r->rounds >= o->min_rounds) {
      if (!sl__go_on(r, o, spent, d, &rc)) {
        r->stopped = "budget";
        break;
      }
      ++r->extra_rounds;
    }
  }
  if (!rc && r->rounds > 0 && sl__judge(r, r->rounds, o, d)) rc = -1;
  if (!rc && r->rounds > 0) r->spread = sl__spread(d, r->rounds);
  if (!rc && r->rounds < o->min_rounds) r->verdict = SL_AB_UNCLEAR;
  if (!rc && r->verdict == SL_AB_UNCLEAR && r->rounds >= o->min_rounds &&
      sl_ab_too_wide(log(r->lo), log(r->hi), o))
    r->verdict = SL_AB_NOISY;
  if (!rc && o->counter && r->rounds > 0)
    r->instr_ratio =
        sl__hl_ratio(&r->cand_n[0].instructions, &r->base_n[0].instructions,
                     r->rounds, SL_CALL_COUNTS_STEP, o, d);
  if (!rc && ref && r->rounds > 0) {
    r->base_speedup = sl__speedup(r->base_s, r->ref_s, r->rounds, o, d);
    r->cand_speedup = sl__speedup(r->cand_s, r->ref_s, r->rounds, o, d);
  }
  free(scratch);
  free(d);
  return rc;
}
