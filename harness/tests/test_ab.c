/*
 * The paired A/B rounds of `scatterlab ab` (ab.h) on a simulated machine
 * whose speed drifts: the arms report the seconds a call would take, cost x
 * the machine's slowness at that moment x noise, so the test is exact and
 * takes no real time. The gate must not cry wolf on an unchanged kernel
 * (A/A) whatever the drift, and must catch a planted slowdown.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ab.h"
#include "ab_gate.h"
#include "sl_test.h"

/* The simulated machine: a slow swing of 2x in speed over about 400 calls,
 * plus bursts where a neighbour takes the core (3x for 25 calls), plus 3%
 * noise per call. The clock advances one tick per call. */
typedef struct sim {
  uint64_t rng;
  long tick;
} sim;

static double sim_uniform(sim *m) {
  m->rng = m->rng * 6364136223846793005ull + 1442695040888963407ull;
  return (double)(m->rng >> 11) / 9007199254740992.0;
}

static double sim_slowness(sim *m) {
  long t = m->tick++;
  double s = 1.5 + 0.5 * sin((double)t / 64.0);
  if ((t / 25) % 7 == 3) s *= 3; /* a burst */
  /* Noise: roughly normal, sd about 3%. */
  double z = sim_uniform(m) + sim_uniform(m) + sim_uniform(m) - 1.5;
  return s * (1 + 0.06 * z);
}

typedef struct arm {
  sim *m;
  double cost; /* seconds per call on an idle machine */
  int fail_at; /* return 7 at this call (0: never) */
  int calls;
} arm;

/* The arms' turns in the order they came (warm-up calls not counted). */
static const arm *turns[3 * SL_AB_MAX_ROUNDS + 16];
static int nturns;

static int arm_run(void *user, int rep, int k, double *samples) {
  arm *a = user;
  if (rep >= 0 && nturns < (int)(sizeof turns / sizeof turns[0]))
    turns[nturns++] = a;
  for (int i = 0; i < k; ++i) {
    if (++a->calls == a->fail_at) return 7;
    samples[i] = a->cost * sim_slowness(a->m);
  }
  return 0;
}

/* Runs base (1 ms) against cand (1 ms x factor); the verdict. */
static sl_ab_verdict run(double factor, uint64_t seed, sl_ab_result *r) {
  sim m = {seed * 2654435761u + 1, 0};
  arm b = {&m, 1e-3, 0, 0}, c = {&m, 1e-3 * factor, 0, 0};
  sl_ab_opts o;
  sl_ab_opts_init(&o);
  o.seed = seed;
  o.budget_s = 4;
  o.warmup_s = 0; /* one warm-up call: the warm-up runs on the real clock */
  CHECK(sl_ab_time(arm_run, &b, arm_run, &c, &o, r) == 0);
  return r->verdict;
}

static void test_drift_cancels(void) {
  static sl_ab_result r;
  int wolf = 0, missed = 0, missed_fast = 0, small_flagged = 0, same = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    sl_ab_verdict v = run(1.0, seed, &r);
    wolf += v == SL_AB_SLOWER || v == SL_AB_FASTER;
    same += v == SL_AB_SAME;
    missed += run(1.10, seed, &r) != SL_AB_SLOWER;
    missed_fast += run(1 / 1.10, seed, &r) != SL_AB_FASTER;
    small_flagged += run(1.02, seed, &r) == SL_AB_SLOWER;
  }
  CHECK_MSG(wolf == 0, "A/A judged changed in %d of 40 runs", wolf);
  CHECK_MSG(same >= 36, "A/A judged same in only %d of 40 runs", same);
  CHECK_MSG(missed == 0, "a 10%% slowdown missed in %d of 40 runs", missed);
  CHECK_MSG(missed_fast == 0, "a 10%% speed-up missed in %d of 40 runs",
            missed_fast);
  CHECK_MSG(small_flagged == 0,
            "a 2%% change (threshold 5%%) judged slower in %d of 40 runs",
            small_flagged);
  /* The estimate is close to the truth, inside its own interval. */
  run(1.10, 3, &r);
  CHECK_MSG(fabs(r.ratio - 1.10) < 0.02, "ratio %.4f for 1.10", r.ratio);
  CHECK(r.lo <= r.ratio && r.ratio <= r.hi && r.lo > 1.0);
  CHECK(r.p < 0.01);
  CHECK(r.rounds >= 10 && r.calls_per_turn >= 1);
  CHECK(strcmp(r.stopped, "interval") == 0 || strcmp(r.stopped, "budget") == 0);
}

static void test_judge(void) {
  sl_ab_opts o;
  sl_ab_opts_init(&o); /* threshold 5%: log 1.05 = 0.0488 */
  CHECK(sl_ab_judge(0.10, 0.08, 0.12, &o) == SL_AB_SLOWER);
  /* Past the threshold but the interval's near end within half of it. */
  CHECK(sl_ab_judge(0.0497, 0.006, 0.115, &o) == SL_AB_UNCLEAR);
  CHECK(sl_ab_judge(-0.0497, -0.115, -0.006, &o) == SL_AB_UNCLEAR);
  CHECK(sl_ab_judge(0.03, 0.01, 0.05, &o) == SL_AB_UNCLEAR);
  CHECK(sl_ab_judge(0.01, -0.01, 0.03, &o) == SL_AB_SAME);
  CHECK(sl_ab_judge(-0.10, -0.12, -0.08, &o) == SL_AB_FASTER);
  CHECK(sl_ab_judge(0.10, -0.02, 0.20, &o) == SL_AB_UNCLEAR);
  CHECK(sl_ab_judge(NAN, 0, 0, &o) == SL_AB_UNCLEAR);
  CHECK(strcmp(sl_ab_verdict_name(SL_AB_SLOWER), "slower") == 0);
  CHECK(strcmp(sl_ab_verdict_name((sl_ab_verdict)99), "?") == 0);
}

static void test_errors(void) {
  static sl_ab_result r;
  sim m = {1, 0};
  arm b = {&m, 1e-3, 0, 0}, c = {&m, 1e-3, 30, 0};
  sl_ab_opts o;
  sl_ab_opts_init(&o);
  /* An arm that fails stops the rounds with its code. */
  CHECK(sl_ab_time(arm_run, &b, arm_run, &c, &o, &r) == 7);
  /* Options out of range. */
  o.max_rounds = SL_AB_MAX_ROUNDS + 1;
  CHECK(sl_ab_time(arm_run, &b, arm_run, &c, &o, &r) == -1);
  sl_ab_opts_init(&o);
  o.level = 1;
  CHECK(sl_ab_time(arm_run, &b, arm_run, &c, &o, &r) == -1);
  CHECK(sl_ab_time(NULL, &b, arm_run, &c, &o, &r) == -1);
  /* A clock that reads 0: every round dropped, the loop still ends. */
  sl_ab_opts_init(&o);
  arm z1 = {&m, 0, 0, 0}, z2 = {&m, 0, 0, 0};
  CHECK(sl_ab_time(arm_run, &z1, arm_run, &z2, &o, &r) == 0);
  CHECK(r.rounds == 0 && r.verdict == SL_AB_UNCLEAR);
}

/* A third arm, LibTorch in scatterlab ab --torch: base 1 ms, cand 1.1 ms
 * and the reference 2 ms on the drifting machine. The verdict on cand/base
 * stays what it is without the reference; each build's speed-up over the
 * reference comes from the same rounds (2.0x and 1.82x); every arm runs in
 * every round, in shuffled order. */
static void test_reference_arm(void) {
  static sl_ab_result r;
  int wrong = 0, off = 0, ref_at[3] = {0, 0, 0};
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    sim m = {seed * 2654435761u + 1, 0};
    arm b = {&m, 1e-3, 0, 0}, c = {&m, 1.1e-3, 0, 0}, t = {&m, 2e-3, 0, 0};
    sl_ab_opts o;
    sl_ab_opts_init(&o);
    o.seed = seed;
    o.budget_s = 4;
    o.warmup_s = 0;
    nturns = 0;
    CHECK(sl_ab_time_ref(arm_run, &b, arm_run, &c, arm_run, &t, &o, &r) == 0);
    wrong += r.verdict != SL_AB_SLOWER;
    off += !(fabs(r.base_speedup - 2.0) < 0.1 &&
             fabs(r.cand_speedup - 2.0 / 1.1) < 0.1);
    CHECK(r.has_ref && r.rounds >= 10);
    /* Every round gave the reference a turn of its own calls. */
    int timed = 0;
    for (int i = 0; i < r.rounds; ++i) timed += r.ref_s[i] > 0;
    CHECK_MSG(timed == r.rounds, "reference timed in %d of %d rounds", timed,
              r.rounds);
    /* Three turns a round (no round dropped here: no clock reads 0). */
    CHECK_MSG(nturns == 3 * r.rounds, "%d turns in %d rounds", nturns,
              r.rounds);
    for (int i = 0; i + 2 < nturns; i += 3)
      for (int at = 0; at < 3; ++at) ref_at[at] += turns[i + at] == &t;
  }
  /* The order of the three is shuffled: the reference took each place. */
  CHECK_MSG(ref_at[0] > 0 && ref_at[1] > 0 && ref_at[2] > 0,
            "reference first %d, second %d, third %d times", ref_at[0],
            ref_at[1], ref_at[2]);
  CHECK_MSG(wrong == 0, "cand 10%% slower misjudged in %d of 20", wrong);
  CHECK_MSG(off == 0, "speed-ups off in %d of 20 (last %.3f, %.3f)", off,
            r.base_speedup, r.cand_speedup);
  /* Without a reference: no speed-up, no reference samples. */
  sim m = {5, 0};
  arm b = {&m, 1e-3, 0, 0}, c = {&m, 1e-3, 0, 0};
  sl_ab_opts o;
  sl_ab_opts_init(&o);
  o.warmup_s = 0;
  CHECK(sl_ab_time(arm_run, &b, arm_run, &c, &o, &r) == 0);
  CHECK(!r.has_ref && isnan(r.base_speedup) && r.ref_s[0] == 0);
  /* A failing reference stops the rounds with its code, as an arm does. */
  arm bad = {&m, 2e-3, 5, 0};
  CHECK(sl_ab_time_ref(arm_run, &b, arm_run, &c, arm_run, &bad, &o, &r) == 7);
}

/* Hardware counts on the simulated machine: each arm adds its
 * instructions per call to a process-wide total, as a real PMU counts the
 * process; the counter reads the total's growth over a turn. Cycles and
 * cache misses read nothing (-1), as on a PMU without them. */
typedef struct fake_counter {
  double total, at_start;
  int starts, stops;
  int fail_every; /* every n-th stop fails (0: never) */
} fake_counter;

static fake_counter fc;

static int fc_start(void *user) {
  fake_counter *f = user;
  f->at_start = f->total;
  ++f->starts;
  return 0;
}

static int fc_stop(void *user, sl_counter_values *v) {
  fake_counter *f = user;
  ++f->stops;
  if (f->fail_every && f->stops % f->fail_every == 0) return -1;
  v->instructions = (int64_t)(f->total - f->at_start);
  v->cycles = v->cache_misses = -1;
  v->scaled = 0;
  return 0;
}

typedef struct carm {
  arm a;
  double instr; /* instructions per call */
} carm;

static int carm_run(void *user, int rep, int k, double *samples) {
  carm *c = user;
  int rc = arm_run(&c->a, rep, k, samples);
  fc.total += c->instr * k;
  return rc;
}

/* base and cand with their seconds and instructions per call, judged on
 * metric; fail_every as in fake_counter. */
static sl_ab_verdict run_counted(double cand_cost, double cand_instr,
                                 sl_ab_metric metric, int fail_every,
                                 uint64_t seed, sl_ab_result *r) {
  sim m = {seed * 2654435761u + 1, 0};
  carm b = {{&m, 1e-3, 0, 0}, 1e6}, c = {{&m, cand_cost, 0, 0}, cand_instr};
  memset(&fc, 0, sizeof fc);
  fc.fail_every = fail_every;
  const sl_turn_counter counter = {fc_start, fc_stop, &fc};
  sl_ab_opts o;
  sl_ab_opts_init(&o);
  o.seed = seed;
  o.budget_s = 4;
  o.warmup_s = 0;
  o.counter = &counter;
  o.metric = metric;
  CHECK(sl_ab_time(carm_run, &b, carm_run, &c, &o, r) == 0);
  return r->verdict;
}

/* --metric instructions: a candidate that runs the same instructions more
 * slowly (it waits on memory) is slower in time and the same in
 * instructions; one that runs 10% more instructions in the same time is
 * the reverse. The counts are exact here, so the instructions' interval
 * is a point and the rounds stop at min_rounds. */
static void test_instructions_metric(void) {
  static sl_ab_result r;
  int wrong = 0;
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    wrong += run_counted(1.1e-3, 1e6, SL_AB_METRIC_TIME, 0, seed, &r) !=
             SL_AB_SLOWER;
    CHECK_MSG(fabs(r.instr_ratio - 1) < 1e-9, "instructions ratio %.6f",
              r.instr_ratio);
    wrong += run_counted(1.1e-3, 1e6, SL_AB_METRIC_INSTRUCTIONS, 0, seed, &r) !=
             SL_AB_SAME;
    CHECK(r.ratio == 1 && r.lo == 1 && r.hi == 1);
    CHECK(r.rounds == 10 && strcmp(r.stopped, "interval") == 0);
    wrong += run_counted(1e-3, 1.1e6, SL_AB_METRIC_INSTRUCTIONS, 0, seed, &r) !=
             SL_AB_SLOWER;
    CHECK_MSG(fabs(r.ratio - 1.1) < 1e-9, "instructions ratio %.6f", r.ratio);
    wrong += run_counted(1e-3, 1.1e6, SL_AB_METRIC_TIME, 0, seed, &r) ==
             SL_AB_SLOWER;
  }
  CHECK_MSG(wrong == 0, "%d of 40 judgements wrong", wrong);
  /* Per call, round by round: the turn's count over its calls. */
  run_counted(1e-3, 2.5e6, SL_AB_METRIC_TIME, 0, 3, &r);
  int bad = 0;
  for (int i = 0; i < r.rounds; ++i)
    bad += r.base_n[i].instructions != 1e6 ||
           r.cand_n[i].instructions != 2.5e6 || r.base_n[i].cycles != -1 ||
           r.cand_n[i].cache_misses != -1;
  CHECK_MSG(bad == 0, "%d of %d rounds' counts wrong", bad, r.rounds);
  CHECK(fc.starts == fc.stops && fc.starts == 2 * r.rounds);
  /* A counter that fails every third read: judged on instructions, only
   * rounds where both arms read count; on time, none is dropped. */
  run_counted(1e-3, 1.1e6, SL_AB_METRIC_INSTRUCTIONS, 3, 1, &r);
  bad = 0;
  for (int i = 0; i < r.rounds; ++i)
    bad += !(r.base_n[i].instructions > 0 && r.cand_n[i].instructions > 0);
  CHECK_MSG(bad == 0 && r.rounds >= 10 && fc.stops > 2 * r.rounds,
            "%d of %d rounds unread, %d reads", bad, r.rounds, fc.stops);
  CHECK(r.verdict == SL_AB_SLOWER);
  run_counted(1e-3, 1e6, SL_AB_METRIC_TIME, 3, 1, &r);
  int unread = 0;
  for (int i = 0; i < r.rounds; ++i)
    unread += r.base_n[i].instructions < 0 || r.cand_n[i].instructions < 0;
  CHECK_MSG(unread > 0 && fc.stops == 2 * r.rounds,
            "%d unread rounds kept of %d, %d reads", unread, r.rounds,
            fc.stops);
  /* Judged on instructions without a counter: the options are wrong. */
  sim m = {1, 0};
  arm b = {&m, 1e-3, 0, 0}, c = {&m, 1e-3, 0, 0};
  sl_ab_opts o;
  sl_ab_opts_init(&o);
  o.metric = SL_AB_METRIC_INSTRUCTIONS;
  CHECK(sl_ab_time(arm_run, &b, arm_run, &c, &o, &r) == -1);
  /* Without a counter nothing is counted. */
  o.metric = SL_AB_METRIC_TIME;
  o.warmup_s = 0;
  CHECK(sl_ab_time(arm_run, &b, arm_run, &c, &o, &r) == 0);
  CHECK(isnan(r.instr_ratio));
  /* The reference arm (LibTorch) is not counted: two reads a round. */
  memset(&fc, 0, sizeof fc);
  const sl_turn_counter counter = {fc_start, fc_stop, &fc};
  o.counter = &counter;
  arm t = {&m, 2e-3, 0, 0};
  CHECK(sl_ab_time_ref(arm_run, &b, arm_run, &c, arm_run, &t, &o, &r) == 0);
  CHECK_MSG(fc.starts == 2 * r.rounds, "%d reads in %d rounds", fc.starts,
            r.rounds);
  CHECK(sl_ab_metric_parse("instructions") == SL_AB_METRIC_INSTRUCTIONS);
  CHECK(sl_ab_metric_parse("time") == SL_AB_METRIC_TIME);
  CHECK(sl_ab_metric_parse("cycles") == -1 && sl_ab_metric_parse(NULL) == -1);
  CHECK(strcmp(sl_ab_metric_name(SL_AB_METRIC_INSTRUCTIONS), "instructions") ==
        0);
}

/* Holm's step-down on a known list: sorted, 0.005 <= 0.05/4 and
 * 0.01 <= 0.05/3 are rejected; 0.03 > 0.05/2 stops the step-down, so 0.04
 * is kept although it lies below its own threshold 0.05/1 (a step-up, or
 * no stop, would reject it). A p that is not a number sorts last and is
 * never rejected. */
static void test_holm(void) {
  const double p[] = {0.01, 0.04, 0.03, 0.005};
  double thresh[4];
  int reject[4];
  CHECK(sl_ab_holm(p, 4, 0.05, thresh, reject) == 2);
  const int want[] = {1, 0, 0, 1};
  const double want_t[] = {0.05 / 3, 0.05 / 1, 0.05 / 2, 0.05 / 4};
  for (int i = 0; i < 4; ++i) {
    CHECK_MSG(reject[i] == want[i], "p %g: rejected %d, expected %d", p[i],
              reject[i], want[i]);
    CHECK_MSG(fabs(thresh[i] - want_t[i]) < 1e-15, "p %g: threshold %g, not %g",
              p[i], thresh[i], want_t[i]);
  }
  const double with_nan[] = {NAN, 0.001};
  CHECK(sl_ab_holm(with_nan, 2, 0.05, thresh, reject) == 1);
  CHECK(!reject[0] && reject[1] && thresh[0] == 0.05 && thresh[1] == 0.025);
  CHECK(sl_ab_holm(p, 0, 0.05, thresh, reject) == 0);
  CHECK(sl_ab_holm(p, 4, 0, thresh, reject) == -1);
  CHECK(sl_ab_holm(p, 4, 1, thresh, reject) == -1);
  /* The exact signed-rank test's smallest p over n rounds is 2 / 2^n. */
  CHECK(sl_ab_rounds_for_p(0.05) == 6);
  CHECK(sl_ab_rounds_for_p(0.05 / 66) == 12);
  CHECK(sl_ab_rounds_for_p(1) == 1);
  CHECK(sl_ab_confirm_seed(1) != 1);
}

static sl_ab_row judged_row(sl_ab_verdict v, double ratio, double p) {
  sl_ab_row r;
  memset(&r, 0, sizeof r);
  r.kind = SL_AB_ROW_JUDGED;
  r.verdict = v, r.ratio = ratio, r.lo = ratio * 0.9, r.hi = ratio * 1.1;
  r.p = p;
  return r;
}

/* The run-wide correction on a run like the issue's: 66 judgements, one a
 * parallel variant's false "slower" at p = 0.0098 (1.172 [1.046, 1.321]),
 * one a real 2x slowdown at p = 1e-6. Uncorrected, both are slower and the
 * run fails; corrected, only the real one is. */
static void test_holm_over_the_run(void) {
  static sl_ab_set s;
  memset(&s, 0, sizeof s);
  sl_ab_row r = judged_row(SL_AB_SLOWER, 1.172, 0.0098);
  sl_ab_set_add(&s, &r);
  r = judged_row(SL_AB_SLOWER, 2.0, 1e-6);
  sl_ab_set_add(&s, &r);
  for (int i = 0; i < 64; ++i) {
    r = judged_row(i % 2 ? SL_AB_SAME : SL_AB_UNCLEAR, 1.0, 0.2 + i / 100.0);
    sl_ab_set_add(&s, &r);
  }
  r.kind = SL_AB_ROW_MISSING; /* not a judgement: not counted in m */
  sl_ab_set_add(&s, &r);
  CHECK(sl_ab_set_holm(&s, 0.05) == 0);
  sl_ab_set_recount(&s);
  CHECK_MSG(s.judgements == 66 && s.alpha == 0.05, "m %d, alpha %g",
            s.judgements, s.alpha);
  CHECK_MSG(s.rows[0].verdict == SL_AB_UNCLEAR,
            "p 0.0098 of 66 judgements still %s: no correction",
            sl_ab_verdict_name(s.rows[0].verdict));
  CHECK(s.rows[0].first == SL_AB_SLOWER && !s.rows[0].rejected);
  CHECK(fabs(s.rows[0].p_threshold - 0.05 / 65) < 1e-15);
  CHECK(s.rows[1].verdict == SL_AB_SLOWER && s.rows[1].rejected);
  CHECK(fabs(s.rows[1].p_threshold - 0.05 / 66) < 1e-15);
  CHECK(sl_ab_row_to_confirm(&s.rows[1]) && !sl_ab_row_to_confirm(&s.rows[0]));
  CHECK_MSG(s.counts[SL_AB_SLOWER] == 1, "%d slower", s.counts[SL_AB_SLOWER]);
  CHECK(s.counts[SL_AB_UNCLEAR] == 33 && s.counts[SL_AB_SAME] == 32);
  CHECK(sl_ab_set_holm(&s, 0) == -1);
  sl_ab_set_free(&s);
}

/* A row from a simulated judgement (run()), as the command keeps it. */
static sl_ab_row row_of(const sl_ab_result *res) {
  sl_ab_row r = judged_row(res->verdict, res->ratio, res->p);
  r.lo = res->lo, r.hi = res->hi;
  r.rejected = 1, r.first = res->verdict;
  return r;
}

/* Confirmation: a planted 20% slowdown is slower again in fresh rounds and
 * stands; a first "slower" of an unchanged pair (a disturbed first
 * measurement: here a run of the slowed pair stands in for it) is not
 * confirmed by the A/A rounds and becomes unclear, both figures kept. */
static void test_confirmation(void) {
  static sl_ab_result first, again;
  const uint64_t seed = 5, seed2 = sl_ab_confirm_seed(5);
  CHECK(run(1.20, seed, &first) == SL_AB_SLOWER);
  sl_ab_row r = row_of(&first);
  CHECK(sl_ab_row_to_confirm(&r));
  run(1.20, seed2, &again);
  sl_ab_row_confirm(&r, &again, 0.05);
  CHECK_MSG(r.verdict == SL_AB_SLOWER && r.again == SL_AB_SLOWER,
            "a planted 20%% slowdown: %s, again %s",
            sl_ab_verdict_name(r.verdict), sl_ab_verdict_name(r.again));
  CHECK(r.again_done && r.again_rounds == again.rounds &&
        fabs(r.again_ratio - 1.2) < 0.03);
  /* The unchanged pair, judged slower at first: not confirmed. */
  r = row_of(&first);
  run(1.0, seed2, &again);
  sl_ab_row_confirm(&r, &again, 0.05);
  CHECK_MSG(r.verdict == SL_AB_UNCLEAR,
            "A/A confirmed a first slower: %s (again %.3f %s)",
            sl_ab_verdict_name(r.verdict), r.again_ratio,
            sl_ab_verdict_name(r.again));
  CHECK(r.first == SL_AB_SLOWER && fabs(r.ratio - first.ratio) < 1e-12 &&
        fabs(r.again_ratio - 1.0) < 0.02);
  /* No second judgement, or one whose own p is above alpha: no claim. */
  r = row_of(&first);
  sl_ab_row_confirm(&r, NULL, 0.05);
  CHECK(r.verdict == SL_AB_UNCLEAR && !r.again_done);
  run(1.20, seed2, &again);
  again.p = 0.2;
  CHECK(sl_ab_second_verdict(&again, 0.05) == SL_AB_UNCLEAR);
  again.p = 0.01;
  CHECK(sl_ab_second_verdict(&again, 0.05) == SL_AB_SLOWER);
}

/* A neighbour that takes the core for a random share of every call (each
 * call between 0.3x and 3.3x its cost, log-uniform): the rounds scatter so
 * that no budget narrows the interval. ab must take its extra rounds, then
 * say noisy, never claim. */
static int scatter_run(void *user, int rep, int k, double *samples) {
  (void)rep;
  arm *a = user;
  for (int i = 0; i < k; ++i)
    samples[i] = a->cost * exp(2.4 * (sim_uniform(a->m) - 0.5));
  return 0;
}

static void test_noise_said(void) {
  static sl_ab_result r;
  sl_ab_opts o;
  sl_ab_opts_init(&o);
  o.warmup_s = 0;
  o.max_rounds = SL_AB_MAX_ROUNDS; /* the budget ends the rounds, not this */
  int noisy = 0, claims = 0, extended = 0, quiet_extended = 0;
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    sim m = {seed, 0};
    arm b = {&m, 1e-3, 0, 0}, c = {&m, 1e-3, 0, 0};
    o.seed = seed;
    CHECK(sl_ab_time(scatter_run, &b, scatter_run, &c, &o, &r) == 0);
    noisy += r.verdict == SL_AB_NOISY;
    claims += r.verdict == SL_AB_SLOWER || r.verdict == SL_AB_FASTER;
    extended += r.extra_rounds > 0;
    CHECK_MSG(r.spread > 0.1, "spread %.3f of 1x/4x calls", r.spread);
    /* The same pair on the drifting machine without the neighbour: judged
     * within the budget, no extra rounds. */
    CHECK(run(1.0, seed, &r) == SL_AB_SAME);
    quiet_extended += r.extra_rounds > 0;
  }
  CHECK_MSG(noisy == 10 && claims == 0,
            "a scattered A/A: %d of 10 noisy, %d claims", noisy, claims);
  CHECK_MSG(extended == 10, "extra rounds taken in %d of 10", extended);
  CHECK_MSG(quiet_extended == 0, "a quiet A/A extended in %d of 10",
            quiet_extended);
  /* The extra budget bounds the rounds: with a tenth of it, fewer. */
  sim m = {3, 0};
  arm b = {&m, 1e-3, 0, 0}, c = {&m, 1e-3, 0, 0};
  o.seed = 3;
  CHECK(sl_ab_time(scatter_run, &b, scatter_run, &c, &o, &r) == 0);
  const int full = r.extra_rounds;
  o.noisy_budget_s = 0.2;
  CHECK(sl_ab_time(scatter_run, &b, scatter_run, &c, &o, &r) == 0);
  CHECK_MSG(r.extra_rounds < full / 2, "extra rounds %d with 0.2 s, %d with 2",
            r.extra_rounds, full);
  CHECK(sl_ab_too_wide(-0.03, 0.03, &o) && !sl_ab_too_wide(-0.02, 0.02, &o));
  o.noisy_budget_s = -1;
  CHECK(sl_ab_time(scatter_run, &b, scatter_run, &c, &o, &r) == -1);
}

/* The copy probe after each row, against the run's best: below 75% of it,
 * a row is disturbed. */
static void test_probes(void) {
  sl_ab_set s;
  memset(&s, 0, sizeof s);
  const double gbs[] = {36, 20, 0, 30, 27};
  for (int i = 0; i < 5; ++i) {
    sl_ab_row r;
    memset(&r, 0, sizeof r);
    r.kind = i == 4 ? SL_AB_ROW_FAILED : SL_AB_ROW_JUDGED;
    r.probe_gbs = gbs[i];
    CHECK(sl_ab_set_add(&s, &r) != NULL);
  }
  s.rows[4].probe_gbs = 99; /* not judged: not the best */
  sl_ab_set_probes(&s);
  CHECK_MSG(s.probe_best == 36 && s.probed == 3 && s.disturbed == 1,
            "best %.0f, %d probed, %d disturbed", s.probe_best, s.probed,
            s.disturbed);
  CHECK(sl_ab_row_disturbed(&s, &s.rows[1]) &&
        !sl_ab_row_disturbed(&s, &s.rows[3]) &&
        !sl_ab_row_disturbed(&s, &s.rows[2]));
  sl_ab_set_free(&s);
}

int main(void) {
  test_noise_said();
  test_probes();
  test_holm();
  test_holm_over_the_run();
  test_confirmation();
  test_judge();
  test_instructions_metric();
  test_reference_arm();
  test_drift_cancels();
  test_errors();
  return sl_test_finish("test_ab");
}
