/*
 * f16/bf16 scatter_reduce and index_reduce of a 1-D x with contributions
 * fewer than a quarter of x (a 32nd along a line of half_wide_long_line
 * positions or more; those with more are widened to f32): the line walk
 * (reduce.c's wide line) for sums, products and means, at most half as many as
 * positions in its sparse form (positions of one contribution stored by their
 * one step, those of several through the f32 accumulator, found with bitmaps),
 * else with the accumulator for the positions the index names (fewer
 * contributions than positions) or every position; index_reduce's index
 * without repeats, every step stored at once; scatter_reduce's amax and amin
 * on the half bits (sl__scatter_reduce_half_extremes). Every reduce, with and
 * without x, on every deterministic variant, against the definition: float
 * steps from x (or the identity) in index order, the mean divided by its float
 * count, one rounding to the half type.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core_test.h"
#include "naive_reduce.h"
#include "sl/sl.h"
#include "sl_test.h"

static uint16_t half_of(sl_dtype dt, float v) {
  return dt == SL_F16 ? sl_f32_to_f16(v) : sl_f32_to_bf16(v);
}

static float value_of(sl_dtype dt, uint16_t h) {
  return dt == SL_F16 ? sl_f16_to_f32(h) : sl_bf16_to_f32(h);
}

/* want[t] for x[n] and the contributions (idx[i], u[i]), i < m: each
 * position's steps in index order, in acc and count (n each). */
static void reference(sl_dtype dt, sl_reduce r, int self, int64_t n, int64_t m,
                      const uint16_t *x, const uint16_t *u, const int64_t *idx,
                      uint16_t *want, float *acc, float *count) {
  for (int64_t t = 0; t < n; ++t) {
    acc[t] = self ? value_of(dt, x[t]) : (float)naive_identity(r);
    count[t] = self ? 1.0f : 0.0f;
  }
  for (int64_t i = 0; i < m; ++i) {
    const int64_t t = idx[i];
    acc[t] = (float)naive_combine(r, acc[t], value_of(dt, u[i]));
    count[t] += 1.0f;
  }
  for (int64_t t = 0; t < n; ++t) {
    if (r == SL_REDUCE_MEAN && count[t] > 1.0f) acc[t] /= count[t];
    want[t] = count[t] > 0.0f ? half_of(dt, acc[t]) : x[t];
  }
}

/* Runs op on variant v with x, idx, u of n and m elements into out. */
static sl_status run_line(const char *variant, sl_op op, sl_dtype dt,
                          sl_reduce r, int self, int64_t n, int64_t m,
                          uint16_t *x, int64_t *idx, uint16_t *u,
                          uint16_t *out) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  ctx.threads = 2;
  sl_call c;
  sl_call_init(&c, op);
  c.arg[0] = sl_tensor_make(dt, 1, (int64_t[]){n}, x);
  c.arg[1] = sl_tensor_make(SL_I64, 1, (int64_t[]){m}, idx);
  c.arg[2] = sl_tensor_make(dt, 1, (int64_t[]){m}, u);
  c.arg[3] = sl_tensor_make(dt, 1, (int64_t[]){n}, out);
  c.p.dim = 0;
  c.p.reduce = r;
  c.p.include_self = self;
  return sl_run(&ctx, variant, &c);
}

/* Where check_lines's contributions go. */
enum { SPREAD, ONE_TARGET, DISTINCT };

/* n positions, m contributions: every third to one of 7 positions (runs
 * and repeats), the others anywhere; or (ONE_TARGET) all to position 7;
 * or (DISTINCT, m <= n) each to a position of its own. Values with
 * fractions, an inf among them, and a NaN where it does not decide every
 * extreme (one target). */
static void check_lines(sl_dtype dt, int64_t n, int64_t m, int where) {
  const int one_target = where == ONE_TARGET;
  /* x, want and out (n each), then u (m), in one block */
  uint16_t *mem = malloc(((size_t)3 * n + (size_t)m) * 2);
  int64_t *idx = malloc((size_t)m * sizeof *idx);
  float *acc = malloc((size_t)n * 2 * sizeof *acc);
  CHECK(mem && idx && acc);
  if (!(mem && idx && acc)) goto done;
  uint16_t *x = mem, *want = mem + n, *out = mem + 2 * n, *u = mem + 3 * n;
  uint32_t s = 91u + (uint32_t)n;
  for (int64_t i = 0; i < n + m; ++i) {
    s = s * 1103515245u + 12345u;
    const float v = (float)((int)((s >> 12) % 3001) - 1500) / 1009.0f;
    if (i < n) x[i] = half_of(dt, v);
    if (i >= n)
      u[i - n] = half_of(dt, i == n + 5 && !one_target ? NAN
                             : i == n + 9              ? -INFINITY
                                                       : v);
    if (i >= n)
      idx[i - n] = one_target          ? 7
                   : where == DISTINCT ? (i - n) * 7 % n
                   : i % 3 == 0        ? (s >> 8) % 7 * 11 % n
                                       : (s >> 16) % n;
  }
  const sl_op ops[2] = {SL_OP_SCATTER_REDUCE, SL_OP_INDEX_REDUCE};
  const sl_reduce rs[5] = {SL_REDUCE_SUM, SL_REDUCE_PROD, SL_REDUCE_MEAN,
                           SL_REDUCE_AMAX, SL_REDUCE_AMIN};
  for (int o = 0; o < 2; ++o)
    for (int k = 0; k < 5; ++k)
      for (int self = 0; self < 2; ++self) {
        reference(dt, rs[k], self, n, m, x, u, idx, want, acc, acc + n);
        FOR_EACH_VARIANT(ops[o], v) {
          if (!(v->flags & SL_DETERMINISTIC)) continue;
          CHECK(run_line(v->name, ops[o], dt, rs[k], self, n, m, x, idx, u,
                         out) == SL_STATUS_OK);
          int bad = 0;
          for (int64_t t = 0; t < n; ++t)
            bad += !same_f(value_of(dt, out[t]), value_of(dt, want[t]));
          CHECK_MSG(bad == 0, "%s %s %s self=%d n=%lld m=%lld: %d differ",
                    v->name, sl_dtype_name(dt), sl_reduce_name(rs[k]), self,
                    (long long)n, (long long)m, bad);
        }
      }
done:
  free(mem);
  free(idx);
  free(acc);
}

int main(void) {
  check_lines(SL_F16, 1000, 200, SPREAD);  /* sparse */
  check_lines(SL_BF16, 4099, 900, SPREAD); /* sparse, n not a multiple of 64 */
  /* more than n / 4: widened, or lines */
  check_lines(SL_F16, 1000, 300, SPREAD);
  check_lines(SL_BF16, 100, 20, SPREAD); /* sparse, few words of bits */
  check_lines(SL_F16, 40, 30, SPREAD);   /* more than n / 4: widened */
  /* fewer than 64 positions: acc for those the index names */
  check_lines(SL_F16, 40, 9, SPREAD);
  check_lines(SL_BF16, 63, 15, SPREAD);
  /* index_reduce of an index without repeats: each step stored at once */
  check_lines(SL_F16, 1000, 200, DISTINCT);
  check_lines(SL_BF16, 41, 10, DISTINCT);
  /* a line of at least half_wide_long_line positions: widened from one
   * contribution per 32 (these have one per 20 and per 31) */
  check_lines(SL_F16, 131077, 6553, SPREAD);
  check_lines(SL_BF16, 131072, 4229, SPREAD);
  /* one target: blocks of 16 steps in a register, the extremes' blocks
   * skipped where they keep it */
  check_lines(SL_F16, 1000, 200, ONE_TARGET);
  check_lines(SL_BF16, 1000, 200, ONE_TARGET);
  return sl_test_finish("test_half_lines");
}
