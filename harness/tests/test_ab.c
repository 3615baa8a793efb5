/*
 * The paired A/B rounds of `scatterlab ab` (ab.h) on a simulated machine
 * whose speed drifts: the arms report the seconds a call would take, cost x
 * the machine's slowness at that moment x noise, so the test is exact and
 * takes no real time. The gate must not cry wolf on an unchanged kernel
 * (A/A) whatever the drift, and must catch a planted slowdown.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ab.h"
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

int main(void) {
  test_judge();
  test_reference_arm();
  test_drift_cancels();
  test_errors();
  return sl_test_finish("test_ab");
}
