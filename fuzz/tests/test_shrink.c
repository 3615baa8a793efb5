/*
 * The shrinker: its candidates are smaller, parse back and stay valid (or
 * stay invalid in the same class); shrinking reaches a fixpoint; a worked
 * example shrinks to the expected small case.
 */
#include <inttypes.h>
#include <stdint.h>

#include "casegen_fixture.h"
#include "shrink.h"

/* ------------------------------------------------------------------------ */
/* Shrinking                                                                 */
/* ------------------------------------------------------------------------ */

static void test_shrink_candidates(void) {
  sl_fuzz_opts o;
  sl_fuzz_opts_init(&o);
  o.invalid_pct = 30;
  int total = 0, bad_size = 0, bad_rt = 0, bad_cls = 0, bad_infer = 0;
  int none = 0, inferred = 0;
  for (int i = 0; i < 1000; ++i) {
    sl_case c, cand[64];
    sl_fuzz_case(SEED, (uint64_t)i, &o, &c);
    const sl_fuzz_class cls = sl_fuzz_classify(&c);
    const int64_t size = sl_case_size(&c);
    int n = sl_shrink_candidates(&c, cand, 64);
    none += n == 0;
    total += n;
    for (int j = 0; j < n; ++j) {
      char a[SL_CASE_LINE_MAX], b[SL_CASE_LINE_MAX], err[256], msg[SL_MSG_LEN];
      sl_case d;
      print_line(&cand[j], a);
      bad_size +=
          !sl_case_precedes(&cand[j], &c) || sl_case_size(&cand[j]) > size;
      bad_cls += cand[j].op != c.op || sl_fuzz_classify(&cand[j]) != cls ||
                 cand[j].seed != c.seed;
      if (sl_case_parse(a, &d, err, sizeof err) != 0) {
        ++bad_rt;
        continue;
      }
      print_line(&d, b);
      bad_rt += strcmp(a, b) != 0;
      if (cls == SL_FUZZ_VALID) {
        int st = infer_case(&cand[j], msg, sizeof msg);
        if (st == SL_STATUS_UNKNOWN_OP) continue;
        ++inferred;
        if (st != 0 && bad_infer++ < 10) {
          print_line(&c, b);
          fprintf(stderr, "shrunk valid case rejected: %s\n  %s\n  from %s\n",
                  msg, a, b);
        }
      }
    }
  }
  printf("shrink: %d candidates for 1000 cases (%d cases without any), %d "
         "checked by sl_infer\n",
         total, none, inferred);
  CHECK_MSG(bad_size == 0, "%d candidates not smaller", bad_size);
  CHECK_MSG(bad_rt == 0, "%d candidates do not parse back", bad_rt);
  CHECK_MSG(bad_cls == 0, "%d candidates changed op, seed or class", bad_cls);
  CHECK_MSG(bad_infer == 0, "%d valid candidates rejected by sl_infer",
            bad_infer);
  CHECK(total > 5000);
}

/* Shrinking to a fixed point under a predicate ("still fails") that holds
 * while x keeps at least 2 axes: the result has exactly 2 axes, every extent
 * of x is 1, and nothing fancy is left. */
static void test_shrink_fixpoint(void) {
  sl_fuzz_opts o;
  sl_fuzz_opts_init(&o);
  o.invalid_pct = 0;
  o.ops = 1u << SL_OP_GATHER | 1u << SL_OP_SCATTER_REDUCE |
          1u << SL_OP_INDEX_REDUCE | 1u << SL_OP_MASKED_SCATTER;
  int done = 0;
  for (uint64_t i = 0; done < 40 && i < 2000; ++i) {
    sl_case c, cand[64];
    sl_fuzz_case(5, i, &o, &c);
    if (c.arg[0].ndim < 3) continue;
    for (int d = 0; d < c.arg[0].ndim; ++d)
      if (c.arg[0].shape[d] == 0) goto next;
    ++done;
    int steps = 0;
    for (;;) {
      int n = sl_shrink_candidates(&c, cand, 64), j;
      for (j = 0; j < n; ++j)
        if (cand[j].arg[0].ndim >= 2) break;
      if (j == n) break;
      c = cand[j];
      CHECK(++steps < 10000);
    }
    char line[SL_CASE_LINE_MAX];
    print_line(&c, line);
    int ones = 1;
    for (int d = 0; d < c.arg[0].ndim; ++d) ones &= c.arg[0].shape[d] == 1;
    CHECK_MSG(c.arg[0].ndim == 2 && ones && c.dp == SL_DP_RAND &&
                  c.ip == SL_IP_RAND &&
                  c.arg[0].layout == SL_LAYOUT_CONTIGUOUS && c.dim >= 0,
              "not fully shrunk: %s", line);
    CHECK(sl_fuzz_classify(&c) == SL_FUZZ_VALID);
  next:;
  }
  CHECK(done == 40);
}

/* Hand-checked candidates of one case. */
static void test_shrink_example(void) {
  sl_case c, cand[64];
  char err[256], line[SL_CASE_LINE_MAX];
  CHECK(sl_case_parse("scatter dt=f32 it=i64 x=6x4 index=3x4 src=5x4:t dim=-2 "
                      "ip=sorted dp=nan seed=9",
                      &c, err, sizeof err) == 0);
  CHECK(sl_case_size(&c) == 24 + 12 + 20 + 1 + 1 + 1 + 1);
  int n = sl_shrink_candidates(&c, cand, 64);
  const char *want[] = {
      /* axis 0 dropped (dim was that axis: now 0) */
      "scatter dt=f32 it=i64 x=4 index=4 src=4:t dim=0 ip=sorted dp=nan seed=9",
      /* axis 1 dropped */
      "scatter dt=f32 it=i64 x=6 index=3 src=5:t dim=0 ip=sorted dp=nan seed=9",
      /* halved x along dim (index may stay longer than x there) */
      "scatter dt=f32 it=i64 x=3x4 index=3x4 src=5x4:t dim=-2 ip=sorted dp=nan "
      "seed=9",
      /* halved x's axis 1: index and src follow as far as the rules need */
      "scatter dt=f32 it=i64 x=6x2 index=3x2 src=5x4:t dim=-2 ip=sorted "
      "dp=nan seed=9",
      "scatter dt=f32 it=i64 x=6x4 index=1x4 src=5x4:t dim=-2 ip=sorted "
      "dp=nan seed=9",
      "scatter dt=f32 it=i64 x=6x4 index=3x2 src=5x4:t dim=-2 ip=sorted "
      "dp=nan seed=9",
      /* src halved along 0: index clamped to it */
      "scatter dt=f32 it=i64 x=6x4 index=2x4 src=2x4:t dim=-2 ip=sorted "
      "dp=nan seed=9",
      "scatter dt=f32 it=i64 x=6x4 index=3x4 src=5x4 dim=-2 ip=sorted dp=nan "
      "seed=9",
      "scatter dt=f32 it=i64 x=6x4 index=3x4 src=5x4:t dim=-2 dp=nan seed=9",
      "scatter dt=f32 it=i64 x=6x4 index=3x4 src=5x4:t dim=0 ip=sorted dp=nan "
      "seed=9",
  };
  for (size_t w = 0; w < sizeof want / sizeof want[0]; ++w) {
    int found = 0;
    for (int j = 0; j < n; ++j) {
      print_line(&cand[j], line);
      found |= strcmp(line, want[w]) == 0;
    }
    CHECK_MSG(found, "missing candidate %s", want[w]);
  }
  /* Nothing smaller is left of a minimal case. */
  CHECK(sl_case_parse("gather dt=f32 x=scalar index=scalar dim=0 seed=1", &c,
                      err, sizeof err) == 0);
  CHECK(sl_shrink_candidates(&c, cand, 64) == 0);
  CHECK(sl_shrink_candidates(&c, cand, 0) == 0);
}

/* A bug that needs more than 64 index elements (a kernel that drops the
 * last update past 64): from a rank-4 case of 2x3x4x5 = 120 updates,
 * shrinking ends at a 1-D index of exactly 65, the boundary, through the
 * merges (a lower rank at the same count) and the bisection. */
static int fails_past_64(void *user, const sl_case *c) {
  ++*(int *)user;
  return sl_case_numel(&c->arg[1]) > 64;
}

static int fails_between_33_and_300(void *user, const sl_case *c) {
  ++*(int *)user;
  const int64_t n = sl_case_numel(&c->arg[1]);
  return n > 32 && n <= 300;
}

static void test_shrink_to_boundary(void) {
  sl_case c;
  char err[256], line[SL_CASE_LINE_MAX];
  CHECK(sl_case_parse("scatter_reduce dt=f16 it=i64 x=4x3x4x5 index=2x3x4x5 "
                      "src=2x3x4x6 dim=1 reduce=sum self=1 dp=tie "
                      "seed=3",
                      &c, err, sizeof err) == 0);
  CHECK(fails_past_64(&(int){0}, &c));
  int tried = 0;
  int steps = sl_shrink(&c, fails_past_64, &tried);
  print_line(&c, line);
  printf("shrink to boundary: %d steps, %d candidates tried: %s\n", steps,
         tried, line);
  CHECK_MSG(c.arg[1].ndim == 1 && c.arg[1].shape[0] == 65,
            "not at the boundary: %s", line);
  CHECK_MSG(c.arg[0].ndim == 1 && c.arg[0].shape[0] == 1 &&
                c.arg[2].shape[0] == 65,
            "x and src not minimal: %s", line);
  CHECK_MSG(c.dt == SL_F32 && c.dp == SL_DP_RAND, "values not plain: %s", line);
  CHECK(sl_fuzz_classify(&c) == SL_FUZZ_VALID);
  /* A failure that vanishes at large sizes (a product overflowing there,
   * not judged) and comes back below: from 675, where 337 passes, the
   * power-of-two ladder finds a failing size and bisection the boundary. */
  CHECK(sl_case_parse("index_reduce dt=f32 it=i32 x=5 index=675 updates=675 "
                      "dim=0 reduce=prod self=1 seed=1",
                      &c, err, sizeof err) == 0);
  tried = 0;
  sl_shrink(&c, fails_between_33_and_300, &tried);
  print_line(&c, line);
  CHECK_MSG(c.arg[1].shape[0] == 33 && c.arg[0].shape[0] == 1,
            "not at the boundary: %s", line);
  /* a candidate that merges two axes: the same elements, a lower rank */
  sl_case cand[64];
  CHECK(sl_case_parse("gather dt=f32 it=i64 x=4x6 index=2x6 dim=1 seed=1", &c,
                      err, sizeof err) == 0);
  int n = sl_shrink_candidates(&c, cand, 64), merged = 0;
  for (int j = 0; j < n; ++j) {
    print_line(&cand[j], line);
    merged |= strcmp(line, "gather dt=f32 it=i64 x=24 index=12 dim=0 "
                           "seed=1") == 0;
  }
  CHECK_MSG(merged, "no merged candidate among %d", n);
}

int main(void) {
  test_shrink_candidates();
  test_shrink_to_boundary();
  test_shrink_fixpoint();
  test_shrink_example();
  return sl_test_finish("test_shrink");
}
