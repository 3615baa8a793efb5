/* The bench's timing method: quartiles, the stopping rules, and rounds that
 * interleave contenders (fake contenders report scripted sample times, so
 * nothing here depends on the machine's speed). */
#include "sl_test.h"
#include "timing.h"

/* A contender whose repetitions "take" `seconds` each (or fail from
 * repetition fail_at on) and that logs which contender ran, in order. */
typedef struct fake {
  int id;
  double seconds;
  int fail_at; /* -1: never */
  int calls, warmups;
  int *log, *nlog;
} fake;

static int fake_run(void *user, int rep, int k, double *samples) {
  fake *f = user;
  if (rep < 0) {
    ++f->warmups;
    samples[0] = f->seconds;
    return 0;
  }
  f->log[(*f->nlog)++] = f->id;
  for (int i = 0; i < k; ++i) {
    if (f->fail_at >= 0 && rep + i >= f->fail_at) return 7;
    samples[i] = f->seconds * (1 + 0.001 * ((rep + i) % 3));
    ++f->calls;
  }
  return 0;
}

static void test_quartiles(void) {
  double s[] = {5, 1, 4, 2, 3};
  double q1, med, q3;
  sl_quartiles(s, 5, &q1, &med, &q3);
  CHECK(q1 == 2 && med == 3 && q3 == 4);
  double e[] = {1, 2, 3, 4};
  sl_quartiles(e, 4, &q1, &med, &q3);
  CHECK(fabs(med - 2.5) < 1e-12);
  CHECK(fabs(q1 - 1.75) < 1e-12 && fabs(q3 - 3.25) < 1e-12);
}

static void test_rounds(void) {
  int log[4096], nlog = 0;
  fake f[3] = {{0, 1e-3, -1, 0, 0, log, &nlog},
               {1, 4e-3, -1, 0, 0, log, &nlog},
               {2, 2e-3, 5, 0, 0, log, &nlog}};
  sl_timed_fn fns[3] = {fake_run, fake_run, fake_run};
  void *users[3] = {&f[0], &f[1], &f[2]};
  sl_timing_opts o;
  sl_timing_opts_init(&o);
  o.budget_s = 0.2; /* scripted seconds: a turn is 6.25 ms of them */
  o.min_reps = 30;
  o.target_rel = 0; /* never settle on spread: run the budget */
  o.warmup_s = 0;
  static sl_timing t[3];
  int rc[3] = {-1, -1, -1};
  sl_time_rounds(3, fns, users, &o, t, rc);
  CHECK(rc[0] == 0 && rc[1] == 0);
  CHECK_MSG(rc[2] == 7, "the failing contender's code, got %d", rc[2]);
  for (int i = 0; i < 3; ++i) CHECK(f[i].warmups >= 1);
  /* Every sample kept, enough of them, medians of the scripted times. */
  for (int i = 0; i < 2; ++i) {
    CHECK_MSG(t[i].reps >= o.min_reps, "contender %d: %d reps", i, t[i].reps);
    CHECK(t[i].reps == f[i].calls);
    CHECK(fabs(t[i].median_s - f[i].seconds) <= 0.0021 * f[i].seconds);
    CHECK(t[i].min_s == f[i].seconds);
    CHECK(t[i].iqr_s >= 0 && t[i].iqr_s <= 0.0021 * f[i].seconds);
  }
  /* The budget bounds the sampled time (one turn of slack). */
  CHECK_MSG(t[1].reps * 4e-3 <= o.budget_s + o.budget_s / 4 + 4e-3,
            "%d reps of 4 ms", t[1].reps);
  /* Interleaved: the slow contender's turns are spread among the fast
   * one's, not all after them. */
  int first1 = -1, last1 = -1, last0 = -1;
  for (int i = 0; i < nlog; ++i) {
    if (log[i] == 1 && first1 < 0) first1 = i;
    if (log[i] == 1) last1 = i;
    if (log[i] == 0) last0 = i;
  }
  CHECK_MSG(first1 >= 0 && first1 < last0 && last0 < last1 + 3,
            "turn order: first of 1 at %d, last of 0 at %d, last of 1 at %d",
            first1, last0, last1);
  int turns1 = 0;
  for (int i = 0; i < nlog; ++i) turns1 += log[i] == 1;
  CHECK_MSG(turns1 >= 3, "%d turns for contender 1", turns1);
  /* The failed contender stopped at its failure. */
  CHECK(f[2].calls == 5);
}

/* With outpaced = 3: a contender 100x slower than the fastest stops after
 * SL_TIMING_OUTPACED_REPS samples, flagged; one 2x slower is timed to the
 * budget; without the option the slow one is timed to the budget too. */
static void test_outpaced(void) {
  int log[8192], nlog = 0;
  for (int on = 0; on < 2; ++on) {
    fake f[3] = {{0, 1e-3, -1, 0, 0, log, &nlog},
                 {1, 1e-1, -1, 0, 0, log, &nlog},
                 {2, 2e-3, -1, 0, 0, log, &nlog}};
    sl_timed_fn fns[3] = {fake_run, fake_run, fake_run};
    void *users[3] = {&f[0], &f[1], &f[2]};
    sl_timing_opts o;
    sl_timing_opts_init(&o);
    o.budget_s = 1.2; /* a turn is 37.5 ms of scripted seconds: 1 of f[1] */
    o.min_reps = 7;
    o.target_rel = 0;
    o.warmup_s = 0;
    o.outpaced = on ? 3 : 0;
    static sl_timing t[3];
    int rc[3] = {-1, -1, -1};
    nlog = 0;
    sl_time_rounds(3, fns, users, &o, t, rc);
    CHECK(rc[0] == 0 && rc[1] == 0 && rc[2] == 0);
    const int stopped = t[1].reps >= SL_TIMING_OUTPACED_REPS && t[1].reps < 7;
    CHECK_MSG(t[1].outpaced == on && (on ? stopped : t[1].reps >= 7),
              "outpaced %g: the 100x one has %d reps, flag %d", o.outpaced,
              t[1].reps, t[1].outpaced);
    CHECK_MSG(!t[0].outpaced && !t[2].outpaced && t[2].reps >= 7,
              "outpaced %g: the 2x one has %d reps, flag %d", o.outpaced,
              t[2].reps, t[2].outpaced);
    CHECK(fabs(t[1].median_s - 1e-1) <= 0.0021 * 1e-1);
  }
}

/* Fast calls: max_reps fit one turn's time many times over, yet each
 * contender samples in SL_TIMING_MIN_TURNS turns or more, alternating with
 * the other, and a small spread does not stop one before then. */
static void test_fast_turns(void) {
  int log[4096], nlog = 0;
  fake f[2] = {{0, 1e-6, -1, 0, 0, log, &nlog},
               {1, 2e-6, -1, 0, 0, log, &nlog}};
  sl_timed_fn fns[2] = {fake_run, fake_run};
  void *users[2] = {&f[0], &f[1]};
  sl_timing_opts o;
  sl_timing_opts_init(&o); /* budget 1 s: a turn fits 31,250 calls */
  o.target_rel = 1;        /* any spread is small enough */
  o.warmup_s = 0;
  static sl_timing t[2];
  int rc[2] = {-1, -1};
  sl_time_rounds(2, fns, users, &o, t, rc);
  CHECK(rc[0] == 0 && rc[1] == 0);
  int turns[2] = {0, 0}, switches = 0;
  for (int i = 0; i < nlog; ++i) {
    ++turns[log[i]];
    switches += i > 0 && log[i] != log[i - 1];
  }
  for (int i = 0; i < 2; ++i)
    CHECK_MSG(turns[i] >= SL_TIMING_MIN_TURNS && t[i].reps >= o.min_reps,
              "contender %d: %d turns, %d reps", i, turns[i], t[i].reps);
  /* Rounds start with each contender in turn (0 1, 1 0, ...): a switch a
   * round at least. */
  CHECK_MSG(switches >= SL_TIMING_MIN_TURNS,
            "%d switches between contenders in %d turns", switches, nlog);
  /* max_reps: the turns split it, the last one short. */
  nlog = 0;
  o.target_rel = 0;
  sl_time_rounds(2, fns, users, &o, t, rc);
  CHECK_MSG(t[0].reps == o.max_reps && t[1].reps == o.max_reps,
            "%d and %d reps of %d", t[0].reps, t[1].reps, o.max_reps);
  CHECK_MSG(nlog <= 2 * (SL_TIMING_MIN_TURNS + 1), "%d turns", nlog);
  /* Calls of 1 ms with a small spread stop after their turns, a quarter of
   * the budget: short turns keep the rule as cheap as one turn was. */
  fake g = {0, 1e-3, -1, 0, 0, log, &nlog};
  static sl_timing one;
  nlog = 0;
  o.target_rel = 1;
  CHECK(sl_time(fake_run, &g, &o, &one) == 0);
  CHECK_MSG(nlog == SL_TIMING_MIN_TURNS &&
                one.reps * 1e-3 <= o.budget_s / 4 + 1e-3,
            "%d turns, %d reps of 1 ms", nlog, one.reps);
}

static void test_single(void) {
  int log[4096], nlog = 0;
  fake f = {0, 1e-4, -1, 0, 0, log, &nlog};
  sl_timing_opts o;
  sl_timing_opts_init(&o);
  o.min_reps = 12;
  o.max_reps = 40;
  o.warmup_s = 0;
  o.target_rel = 1; /* any spread is small enough once min_reps are in */
  static sl_timing t;
  CHECK(sl_time(fake_run, &f, &o, &t) == 0);
  CHECK_MSG(t.reps >= 12 && t.reps <= 40, "%d reps", t.reps);
  o.target_rel = 0;
  o.budget_s = 100;
  CHECK(sl_time(fake_run, &f, &o, &t) == 0);
  CHECK_MSG(t.reps == 40, "max_reps caps the samples: %d", t.reps);
}

/* Counts around each turn: a fake PMU whose total grows by 1000
 * instructions and 500 cycles a call (fake_run's calls, counted in f). */
typedef struct counting {
  const fake *f;
  int calls_at_start, fail;
} counting;

static int cnt_start(void *user) {
  counting *c = user;
  c->calls_at_start = c->f->calls;
  return c->fail ? -1 : 0;
}

static int cnt_stop(void *user, sl_counter_values *v) {
  counting *c = user;
  const int calls = c->f->calls - c->calls_at_start;
  v->instructions = 1000 * (int64_t)calls;
  v->cycles = 500 * (int64_t)calls;
  v->cache_misses = -1;
  v->scaled = 0;
  return 0;
}

static void test_counts(void) {
  int log[4096], nlog = 0;
  fake f = {0, 1e-4, -1, 0, 0, log, &nlog};
  counting c = {&f, 0, 0};
  const sl_turn_counter counter = {cnt_start, cnt_stop, &c};
  sl_timing_opts o;
  sl_timing_opts_init(&o);
  o.min_reps = 12;
  o.budget_s = 0.032; /* turns of 10 calls */
  o.warmup_s = 0;
  o.counter = &counter;
  static sl_timing t;
  CHECK(sl_time(fake_run, &f, &o, &t) == 0);
  CHECK_MSG(t.counts.instructions == 1000 && t.counts.cycles == 500,
            "per call: %g instructions, %g cycles", t.counts.instructions,
            t.counts.cycles);
  CHECK(t.counts.cache_misses == -1);
  /* A counter that cannot start reads nothing; the timing stands. */
  c.fail = 1;
  CHECK(sl_time(fake_run, &f, &o, &t) == 0);
  CHECK(t.reps >= 12 && t.counts.instructions == -1 && t.counts.cycles == -1);
  /* Without a counter: no counts. */
  o.counter = NULL;
  CHECK(sl_time(fake_run, &f, &o, &t) == 0);
  CHECK(t.counts.instructions == -1);
  /* Per call: a turn's counts over its calls. */
  sl_counter_values v = {3000, -1, 7, 0};
  sl_call_counts pc;
  sl_call_counts_of(&v, 3, &pc);
  CHECK(pc.instructions == 1000 && pc.cycles == -1 &&
        fabs(pc.cache_misses - 7.0 / 3) < 1e-12);
  sl_call_counts_of(&v, 0, &pc);
  CHECK(pc.instructions == -1);
  sl_call_counts_of(NULL, 3, &pc);
  CHECK(pc.instructions == -1 && pc.cache_misses == -1);
}

int main(void) {
  test_quartiles();
  test_counts();
  test_rounds();
  test_outpaced();
  test_fast_turns();
  test_single();
  return sl_test_finish("test_timing");
}
