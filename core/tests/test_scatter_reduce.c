/*
 * scatter_reduce on every CPU variant of the table: the five reduces with
 * and without x, NaN, -0.0, integer floor mean and wrap-around, f16/bf16
 * rounding as LibTorch 1.13 rounds (checked there), strides, empty index,
 * and one test per bad-input status that applies, each asserting the status and
 * that the message names the argument. Expected values are computed by
 * hand (the comments show how).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core_test.h"
#include "naive_reduce.h"
#include "sl/sl.h"
#include "sl_test.h"

/* Bitwise-equal floats, any NaN matching any NaN. */
enum { SR_POISON = 0x5a };

/* Runs scatter_reduce(x, dim, index, src) on variant v into out (poisoned
 * first) and returns the status. */
static sl_status run_sr(sl_ctx *ctx, const sl_variant *v, const sl_tensor *x,
                        int64_t dim, const sl_tensor *index,
                        const sl_tensor *src, sl_reduce r, int self,
                        sl_tensor *out, size_t out_bytes) {
  memset(out->data, SR_POISON, out_bytes);
  ctx->threads = 3; /* more threads than lines in most tests */
  return sl_scatter_reduce(ctx, v->name, x, dim, index, src, r, self, out);
}

/* Whether out's bytes are still run_sr's poison (a refused call wrote
 * nothing). */
static int left_poisoned(const void *out, size_t out_bytes) {
  int untouched = 1;
  for (size_t b = 0; b < out_bytes; ++b)
    untouched &= ((const unsigned char *)out)[b] == SR_POISON;
  return untouched;
}

/* x=[2,3,4,5], index=[0,0,1,1,1,2], src=[0,5,0,0,7,6] (LibTorch's example
 * in the reply): every reduce, with and without x. */
static void test_reduces_1d(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  float x[4] = {2, 3, 4, 5}, src[6] = {0, 5, 0, 0, 7, 6}, out[4];
  int64_t idx[6] = {0, 0, 1, 1, 1, 2};
  sl_tensor tx = sl_tensor_make(SL_F32, 1, (int64_t[]){4}, x);
  sl_tensor ti = sl_tensor_make(SL_I64, 1, (int64_t[]){6}, idx);
  sl_tensor ts = sl_tensor_make(SL_F32, 1, (int64_t[]){6}, src);
  sl_tensor to = sl_tensor_make(SL_F32, 1, (int64_t[]){4}, out);
  struct {
    sl_reduce r;
    int self;
    float want[4];
  } cases[] = {
      /* sum: 2+0+5, 3+0+0+7, 4+6; x left out: 0+5, 0+0+7, 6 */
      {SL_REDUCE_SUM, 1, {7, 10, 10, 5}},
      {SL_REDUCE_SUM, 0, {5, 7, 6, 5}},
      /* prod: a zero src zeroes positions 0 and 1; 4*6; 6 */
      {SL_REDUCE_PROD, 1, {0, 0, 24, 5}},
      {SL_REDUCE_PROD, 0, {0, 0, 6, 5}},
      /* mean: 7/3, 10/4, 10/2; 5/2, 7/3, 6/1; position 3 untargeted */
      {SL_REDUCE_MEAN, 1, {7.0f / 3.0f, 2.5f, 5, 5}},
      {SL_REDUCE_MEAN, 0, {2.5f, 7.0f / 3.0f, 6, 5}},
      {SL_REDUCE_AMAX, 1, {5, 7, 6, 5}},
      {SL_REDUCE_AMAX, 0, {5, 7, 6, 5}},
      /* amin: x=4 beats src 6 only when included */
      {SL_REDUCE_AMIN, 1, {0, 0, 4, 5}},
      {SL_REDUCE_AMIN, 0, {0, 0, 6, 5}},
  };
  int ran = 0;
  FOR_EACH_VARIANT(SL_OP_SCATTER_REDUCE, v) {
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
      CHECK(run_sr(&ctx, v, &tx, 0, &ti, &ts, cases[c].r, cases[c].self, &to,
                   sizeof out) == SL_STATUS_OK);
      for (int i = 0; i < 4; ++i)
        CHECK_MSG(same_f(out[i], cases[c].want[i]),
                  "%s %s self=%d: out[%d]=%g, want %g", v->name,
                  sl_reduce_name(cases[c].r), cases[c].self, i, out[i],
                  cases[c].want[i]);
    }
    ++ran;
  }
  CHECK(ran == 5); /* serial, omp, atomic, lock, sorted */
}

/* 2-D, dim 1, an index narrower than x in dim 0: only row 0 of x is
 * targeted and row 1 keeps x whatever the reduce. f64. */
static void test_2d_narrow_index(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  double x[6] = {1, 2, 3, 4, 5, 6}, src[2] = {7, 8}, out[6];
  int32_t idx[2] = {2, 2};
  sl_tensor tx = sl_tensor_make(SL_F64, 2, (int64_t[]){2, 3}, x);
  sl_tensor ti = sl_tensor_make(SL_I32, 2, (int64_t[]){1, 2}, idx);
  sl_tensor ts = sl_tensor_make(SL_F64, 2, (int64_t[]){1, 2}, src);
  sl_tensor to = sl_tensor_make(SL_F64, 2, (int64_t[]){2, 3}, out);
  /* x[0][2] = 3 is left out: 7+8, 7*8, (7+8)/2, max; with x: 3+15 ... */
  const double want0[5] = {15, 56, 7.5, 8, 7};
  const double want1[5] = {18, 168, 6, 8, 3};
  const sl_reduce rs[5] = {SL_REDUCE_SUM, SL_REDUCE_PROD, SL_REDUCE_MEAN,
                           SL_REDUCE_AMAX, SL_REDUCE_AMIN};
  FOR_EACH_VARIANT(SL_OP_SCATTER_REDUCE, v) {
    for (int r = 0; r < 5; ++r)
      for (int self = 0; self < 2; ++self) {
        CHECK(run_sr(&ctx, v, &tx, -1, &ti, &ts, rs[r], self, &to,
                     sizeof out) == SL_STATUS_OK);
        CHECK(out[0] == 1 && out[1] == 2 && out[3] == 4 && out[4] == 5 &&
              out[5] == 6);
        CHECK_MSG(out[2] == (self ? want1[r] : want0[r]), "%s %s self=%d: %g",
                  v->name, sl_reduce_name(rs[r]), self, out[2]);
      }
  }
}

/* NaN in x or src propagates through every reduce (LibTorch 1.13: a NaN
 * src wins over the accumulator, and a NaN accumulator stays). */
static void test_nan(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  float x[4] = {1, NAN, 3, 4}, src[5] = {NAN, 2, 5, 1, NAN}, out[4];
  int64_t idx[5] = {0, 0, 1, 2, 2};
  sl_tensor tx = sl_tensor_make(SL_F32, 1, (int64_t[]){4}, x);
  sl_tensor ti = sl_tensor_make(SL_I64, 1, (int64_t[]){5}, idx);
  sl_tensor ts = sl_tensor_make(SL_F32, 1, (int64_t[]){5}, src);
  sl_tensor to = sl_tensor_make(SL_F32, 1, (int64_t[]){4}, out);
  FOR_EACH_VARIANT(SL_OP_SCATTER_REDUCE, v) {
    for (int r = SL_REDUCE_SUM; r <= SL_REDUCE_AMIN; ++r) {
      /* with x: position 1 holds NaN and takes 5; position 0 and 2 take a
       * NaN src (2 after the NaN at 0 does not clear it). */
      CHECK(run_sr(&ctx, v, &tx, 0, &ti, &ts, (sl_reduce)r, 1, &to,
                   sizeof out) == SL_STATUS_OK);
      CHECK_MSG(isnan(out[0]) && isnan(out[1]) && isnan(out[2]) && out[3] == 4,
                "%s %s self=1", v->name, sl_reduce_name((sl_reduce)r));
      /* without x: position 1 is 5 alone */
      CHECK(run_sr(&ctx, v, &tx, 0, &ti, &ts, (sl_reduce)r, 0, &to,
                   sizeof out) == SL_STATUS_OK);
      CHECK_MSG(isnan(out[0]) && out[1] == 5 && isnan(out[2]) && out[3] == 4,
                "%s %s self=0", v->name, sl_reduce_name((sl_reduce)r));
    }
  }
}

/* -0.0 against 0.0 in amax/amin: equal, so the value already there stays
 * (x when included, else the first src), as LibTorch's std::max does. */
static void test_signed_zero(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  float x[4] = {0.0f, -0.0f, 0.0f, -0.0f}, src[4] = {-0.0f, 0.0f, -0.0f, 0.0f};
  float out[4];
  int64_t idx[4] = {0, 1, 2, 3};
  sl_tensor tx = sl_tensor_make(SL_F32, 1, (int64_t[]){4}, x);
  sl_tensor ti = sl_tensor_make(SL_I64, 1, (int64_t[]){4}, idx);
  sl_tensor ts = sl_tensor_make(SL_F32, 1, (int64_t[]){4}, src);
  sl_tensor to = sl_tensor_make(SL_F32, 1, (int64_t[]){4}, out);
  float y[2] = {5, 5}, s2[4] = {0.0f, -0.0f, -0.0f, 0.0f}, o2[2];
  int64_t i2[4] = {0, 0, 1, 1};
  sl_tensor ty = sl_tensor_make(SL_F32, 1, (int64_t[]){2}, y);
  sl_tensor ti2 = sl_tensor_make(SL_I64, 1, (int64_t[]){4}, i2);
  sl_tensor ts2 = sl_tensor_make(SL_F32, 1, (int64_t[]){4}, s2);
  sl_tensor to2 = sl_tensor_make(SL_F32, 1, (int64_t[]){2}, o2);
  FOR_EACH_VARIANT(SL_OP_SCATTER_REDUCE, v) {
    for (int r = SL_REDUCE_AMAX; r <= SL_REDUCE_AMIN; ++r) {
      CHECK(run_sr(&ctx, v, &tx, 0, &ti, &ts, (sl_reduce)r, 1, &to,
                   sizeof out) == SL_STATUS_OK);
      for (int i = 0; i < 4; ++i) CHECK(same_f(out[i], x[i]));
      CHECK(run_sr(&ctx, v, &tx, 0, &ti, &ts, (sl_reduce)r, 0, &to,
                   sizeof out) == SL_STATUS_OK);
      for (int i = 0; i < 4; ++i) CHECK(same_f(out[i], src[i]));
      /* two zeros of either sign per position, x left out: the first */
      CHECK(run_sr(&ctx, v, &ty, 0, &ti2, &ts2, (sl_reduce)r, 0, &to2,
                   sizeof o2) == SL_STATUS_OK);
      CHECK(same_f(o2[0], 0.0f) && same_f(o2[1], -0.0f));
    }
    /* amin with x = 5: min(5, 0) = 0 then -0 ties: 0; min(5,-0) then 0 */
    CHECK(run_sr(&ctx, v, &ty, 0, &ti2, &ts2, SL_REDUCE_AMIN, 1, &to2,
                 sizeof o2) == SL_STATUS_OK);
    CHECK(same_f(o2[0], 0.0f) && same_f(o2[1], -0.0f));
    /* sum without x of a single -0.0 is 0 + -0 = +0 (LibTorch too) */
    CHECK(run_sr(&ctx, v, &ty, 0, &ti2, &ts2, SL_REDUCE_SUM, 0, &to2,
                 sizeof o2) == SL_STATUS_OK);
    CHECK(same_f(o2[0], 0.0f) && same_f(o2[1], 0.0f));
  }
}

/* Integers: floor mean, wrap-around of sum and prod, the identities of
 * amax/amin (lowest and highest) when x is left out. */
static void test_integers(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  int32_t x[4] = {-1, 7, 0, 5}, src[4] = {-2, -3, -3, -3}, out[4];
  int64_t idx[4] = {0, 1, 1, 2};
  sl_tensor tx = sl_tensor_make(SL_I32, 1, (int64_t[]){4}, x);
  sl_tensor ti = sl_tensor_make(SL_I64, 1, (int64_t[]){4}, idx);
  sl_tensor ts = sl_tensor_make(SL_I32, 1, (int64_t[]){4}, src);
  sl_tensor to = sl_tensor_make(SL_I32, 1, (int64_t[]){4}, out);
  int32_t w[4] = {100000, 3}, ws[3] = {100000, 3, INT32_MAX}, wo[2];
  int32_t wi[3] = {0, 0, 1};
  sl_tensor twx = sl_tensor_make(SL_I32, 1, (int64_t[]){2}, w);
  sl_tensor twi = sl_tensor_make(SL_I32, 1, (int64_t[]){3}, wi);
  sl_tensor tws = sl_tensor_make(SL_I32, 1, (int64_t[]){3}, ws);
  sl_tensor two = sl_tensor_make(SL_I32, 1, (int64_t[]){2}, wo);
  int64_t lx[1] = {-7}, ls[1] = {0}, lo[1], li[1] = {0};
  sl_tensor tlx = sl_tensor_make(SL_I64, 1, (int64_t[]){1}, lx);
  sl_tensor tls = sl_tensor_make(SL_I64, 1, (int64_t[]){1}, ls);
  sl_tensor tli = sl_tensor_make(SL_I64, 1, (int64_t[]){1}, li);
  sl_tensor tlo = sl_tensor_make(SL_I64, 1, (int64_t[]){1}, lo);
  FOR_EACH_VARIANT(SL_OP_SCATTER_REDUCE, v) {
    /* (-1 + -2)/2 = -1.5 -> -2; (7-3-3)/3 = 1/3 -> 0; (0-3)/2 -> -2 */
    CHECK(run_sr(&ctx, v, &tx, 0, &ti, &ts, SL_REDUCE_MEAN, 1, &to,
                 sizeof out) == SL_STATUS_OK);
    CHECK(out[0] == -2 && out[1] == 0 && out[2] == -2 && out[3] == 5);
    /* -2/1; (-3-3)/2 = -3; -3/1 */
    CHECK(run_sr(&ctx, v, &tx, 0, &ti, &ts, SL_REDUCE_MEAN, 0, &to,
                 sizeof out) == SL_STATUS_OK);
    CHECK(out[0] == -2 && out[1] == -3 && out[2] == -3 && out[3] == 5);
    /* amax/amin without x start from INT32_MIN/INT32_MAX: the srcs only */
    CHECK(run_sr(&ctx, v, &tx, 0, &ti, &ts, SL_REDUCE_AMAX, 0, &to,
                 sizeof out) == SL_STATUS_OK);
    CHECK(out[0] == -2 && out[1] == -3 && out[2] == -3 && out[3] == 5);
    CHECK(run_sr(&ctx, v, &tx, 0, &ti, &ts, SL_REDUCE_AMIN, 1, &to,
                 sizeof out) == SL_STATUS_OK);
    CHECK(out[0] == -2 && out[1] == -3 && out[2] == -3 && out[3] == 5);
    /* prod: 1e5 * 1e5 * 3 = 3e10 = 6 * 2^32 + 4230196224 -> 4230196224 -
     * 2^32 = -64771072; 3 * (2^31 - 1) = 2^32 + 2^31 - 3 -> 2147483645 */
    CHECK(run_sr(&ctx, v, &twx, 0, &twi, &tws, SL_REDUCE_PROD, 1, &two,
                 sizeof wo) == SL_STATUS_OK);
    CHECK(wo[0] == -64771072 && wo[1] == 2147483645);
    /* sum: 200003; 3 + 2^31 - 1 = 2^31 + 2 -> -2^31 + 2 */
    CHECK(run_sr(&ctx, v, &twx, 0, &twi, &tws, SL_REDUCE_SUM, 1, &two,
                 sizeof wo) == SL_STATUS_OK);
    CHECK(wo[0] == 200003 && wo[1] == -2147483646);
    /* i64: (-7 + 0)/2 = -3.5 -> -4 */
    CHECK(run_sr(&ctx, v, &tlx, 0, &tli, &tls, SL_REDUCE_MEAN, 1, &tlo,
                 sizeof lo) == SL_STATUS_OK);
    CHECK(lo[0] == -4);
  }
}

/* f32, f16 and bf16 round after every step as LibTorch's CPU loop does
 * (values checked against LibTorch 1.13). */
static void test_rounding_and_halves(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  /* f32: 1e8 + 1 rounds back to 1e8 (spacing 8), then -1e8: 0, not 1. */
  float fx[1] = {0}, fs[3] = {1e8f, 1, -1e8f}, fo[1];
  int64_t fi[3] = {0, 0, 0};
  sl_tensor tfx = sl_tensor_make(SL_F32, 1, (int64_t[]){1}, fx);
  sl_tensor tfi = sl_tensor_make(SL_I64, 1, (int64_t[]){3}, fi);
  sl_tensor tfs = sl_tensor_make(SL_F32, 1, (int64_t[]){3}, fs);
  sl_tensor tfo = sl_tensor_make(SL_F32, 1, (int64_t[]){1}, fo);
  /* f16 accumulates in f32 (sl__acc_dtype): 2048 + 1 + 1 = 2050 exactly, which
   * f16 holds (spacing 2 in [2048,4096)). Rounding after every step, as
   * LibTorch's f16 loop does, would tie to even twice and give 2048. */
  uint16_t hx[2] = {sl_f32_to_f16(2048), sl_f32_to_f16(0.5f)};
  uint16_t hs[3] = {sl_f32_to_f16(1), sl_f32_to_f16(1), sl_f32_to_f16(0.25f)};
  uint16_t ho[2];
  int64_t hi[3] = {0, 0, 1};
  sl_tensor thx = sl_tensor_make(SL_F16, 1, (int64_t[]){2}, hx);
  sl_tensor thi = sl_tensor_make(SL_I64, 1, (int64_t[]){3}, hi);
  sl_tensor ths = sl_tensor_make(SL_F16, 1, (int64_t[]){3}, hs);
  sl_tensor tho = sl_tensor_make(SL_F16, 1, (int64_t[]){2}, ho);
  /* bf16 mean: 301 values, 150 pairs (+1, -1) and a final 3, x left out.
   * The sum is 3 and the f32 count 301 (a bf16 count would stop at 256):
   * 3/301 = 0.0099667 -> bf16 1.2734375 * 2^-7 = 0.009948730469. */
  uint16_t bx[1] = {sl_f32_to_bf16(42)}, bs[301], bo[1];
  int64_t bi[301];
  for (int i = 0; i < 301; ++i) {
    bs[i] = sl_f32_to_bf16(i == 300 ? 3.0f : (i % 2 ? -1.0f : 1.0f));
    bi[i] = 0;
  }
  sl_tensor tbx = sl_tensor_make(SL_BF16, 1, (int64_t[]){1}, bx);
  sl_tensor tbi = sl_tensor_make(SL_I64, 1, (int64_t[]){301}, bi);
  sl_tensor tbs = sl_tensor_make(SL_BF16, 1, (int64_t[]){301}, bs);
  sl_tensor tbo = sl_tensor_make(SL_BF16, 1, (int64_t[]){1}, bo);
  FOR_EACH_VARIANT(SL_OP_SCATTER_REDUCE, v) {
    CHECK(run_sr(&ctx, v, &tfx, 0, &tfi, &tfs, SL_REDUCE_SUM, 1, &tfo,
                 sizeof fo) == SL_STATUS_OK);
    CHECK(fo[0] == 0.0f);
    CHECK(run_sr(&ctx, v, &thx, 0, &thi, &ths, SL_REDUCE_SUM, 1, &tho,
                 sizeof ho) == SL_STATUS_OK);
    CHECK(sl_f16_to_f32(ho[0]) == 2050 && sl_f16_to_f32(ho[1]) == 0.75f);
    /* f16 mean of 2048, 1, 1: sum 2050 (above), count 3: 683.33.. ->
     * nearest f16 683.5 (spacing 0.5 in [512,1024)) */
    CHECK(run_sr(&ctx, v, &thx, 0, &thi, &ths, SL_REDUCE_MEAN, 1, &tho,
                 sizeof ho) == SL_STATUS_OK);
    CHECK(sl_f16_to_f32(ho[0]) == 683.5f && sl_f16_to_f32(ho[1]) == 0.375f);
    CHECK(run_sr(&ctx, v, &thx, 0, &thi, &ths, SL_REDUCE_AMIN, 0, &tho,
                 sizeof ho) == SL_STATUS_OK);
    CHECK(sl_f16_to_f32(ho[0]) == 1 && sl_f16_to_f32(ho[1]) == 0.25f);
    CHECK(run_sr(&ctx, v, &tbx, 0, &tbi, &tbs, SL_REDUCE_MEAN, 0, &tbo,
                 sizeof bo) == SL_STATUS_OK);
    CHECK(sl_bf16_to_f32(bo[0]) == 0.009948730469f);
    CHECK(run_sr(&ctx, v, &tbx, 0, &tbi, &tbs, SL_REDUCE_AMAX, 1, &tbo,
                 sizeof bo) == SL_STATUS_OK);
    CHECK(sl_bf16_to_f32(bo[0]) == 42);
  }
}

/* f16 src stepped by 3 (a view into three times its elements, the others
 * poison) against the same values contiguous, every reduce with and
 * without x: the same bits on every variant (the widened f32 path copies a
 * stepped src dense first, half_wide.c). Values are quarters: sums exact,
 * products in one order on each variant. */
static void test_stepped_half_src(void) {
  enum { N = 64, M = 300, STEP = 3 };
  static uint16_t x[N], dense[M], spaced[M * STEP], a[N], b[N];
  static int64_t idx[M];
  uint32_t s = 99;
  for (int i = 0; i < N; ++i) x[i] = sl_f32_to_f16(0.25f * (float)(i % 7));
  for (int i = 0; i < M * STEP; ++i) spaced[i] = sl_f32_to_f16(1000.0f);
  for (int i = 0; i < M; ++i) {
    s = s * 1103515245u + 12345u;
    idx[i] = (s >> 16) % N;
    dense[i] = spaced[i * STEP] =
        sl_f32_to_f16(0.25f * (float)((int)((s >> 8) % 9) - 4));
  }
  sl_tensor tx = sl_tensor_make(SL_F16, 1, (int64_t[]){N}, x);
  sl_tensor ti = sl_tensor_make(SL_I64, 1, (int64_t[]){M}, idx);
  sl_tensor td = sl_tensor_make(SL_F16, 1, (int64_t[]){M}, dense);
  sl_tensor tsp = sl_tensor_make(SL_F16, 1, (int64_t[]){M}, spaced);
  tsp.strides[0] = STEP;
  sl_tensor ta = sl_tensor_make(SL_F16, 1, (int64_t[]){N}, a);
  sl_tensor tb = sl_tensor_make(SL_F16, 1, (int64_t[]){N}, b);
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  FOR_EACH_VARIANT(SL_OP_SCATTER_REDUCE, v) {
    for (int r = SL_REDUCE_SUM; r <= SL_REDUCE_AMIN; ++r)
      for (int self = 0; self < 2; ++self) {
        if (r == SL_REDUCE_PROD && sl_test_any_writer(v)) continue;
        CHECK(run_sr(&ctx, v, &tx, 0, &ti, &td, (sl_reduce)r, self, &ta,
                     sizeof a) == SL_STATUS_OK);
        CHECK(run_sr(&ctx, v, &tx, 0, &ti, &tsp, (sl_reduce)r, self, &tb,
                     sizeof b) == SL_STATUS_OK);
        int differ = 0;
        for (int i = 0; i < N; ++i) differ += a[i] != b[i];
        CHECK_MSG(differ == 0, "%s %s self=%d: %d of %d elements differ",
                  v->name, sl_reduce_name((sl_reduce)r), self, differ, N);
      }
  }
}

/* A transposed x, a stepped-slice src and a transposed out: the kernels
 * follow the strides. */
static void test_strides(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  /* x = A^T for A = 0..11 as 4x3: x[i][j] = 3j + i, shape 3x4:
   *   [[0,3,6,9],[1,4,7,10],[2,5,8,11]] */
  float A[12], sb[12], ob[12];
  for (int i = 0; i < 12; ++i) A[i] = (float)i, sb[i] = 100.0f + (float)i;
  sl_tensor xt = transposed_3x4(A);
  /* src[i][j] = sb[4i + 2j]: [[100,102],[104,106],[108,110]] */
  sl_tensor st = sl_tensor_make(SL_F32, 2, (int64_t[]){3, 2}, sb);
  st.strides[0] = 4;
  st.strides[1] = 2;
  int64_t idx[6] = {3, 0, 1, 1, 0, 3};
  sl_tensor ti = sl_tensor_make(SL_I64, 2, (int64_t[]){3, 2}, idx);
  sl_tensor ot = transposed_3x4(ob);
  /* sum with x: row 0: x[0][3] 9+100, x[0][0] 0+102; row 1: x[1][1]
   * 4+104+106; row 2: x[2][0] 2+108, x[2][3] 11+110 */
  const float sum[3][4] = {{102, 3, 6, 109}, {1, 214, 7, 10}, {110, 5, 8, 121}};
  const float amax0[3][4] = {
      {102, 3, 6, 100}, {1, 106, 7, 10}, {108, 5, 8, 110}};
  FOR_EACH_VARIANT(SL_OP_SCATTER_REDUCE, v) {
    CHECK(run_sr(&ctx, v, &xt, 1, &ti, &st, SL_REDUCE_SUM, 1, &ot, sizeof ob) ==
          SL_STATUS_OK);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 4; ++j) CHECK(ob[i + 3 * j] == sum[i][j]);
    CHECK(run_sr(&ctx, v, &xt, 1, &ti, &st, SL_REDUCE_AMAX, 0, &ot,
                 sizeof ob) == SL_STATUS_OK);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 4; ++j) CHECK(ob[i + 3 * j] == amax0[i][j]);
  }
}

/* The naive dim-0 scatter_reduce of f64 [m,C] src into want ([rows,C],
 * holding x): out[idx[i][j]][j] op= src[i][j] in order of i; a position
 * met for the first time without x starts from the identity; amax/amin
 * propagate NaN and keep the accumulator on a tie. */
static void naive_dim0(double *want, int rows, int C, const int64_t *idx,
                       const double *src, int m, sl_reduce r, int self) {
  int *cnt = calloc((size_t)rows * (size_t)C, sizeof *cnt);
  int *hit = calloc((size_t)rows * (size_t)C, sizeof *hit);
  CHECK(cnt && hit);
  for (int i = 0; cnt && hit && i < m * C; ++i) {
    int t = (int)idx[i] * C + i % C;
    if (!self && !hit[t]) want[t] = naive_identity(r);
    hit[t] = 1;
    want[t] = naive_combine(r, want[t], src[i]);
    cnt[t] += 1;
  }
  if (r == SL_REDUCE_MEAN)
    for (int i = 0; cnt && i < rows * C; ++i)
      if (cnt[i] + self > 1) want[i] /= cnt[i] + self;
  free(cnt);
  free(hit);
}

/* Every variant's scatter_reduce(x, 0, index, src) of f64 [rows,C] matches
 * naive_dim0 bitwise, for every reduce but `skip` and both include_self. */
static void check_against_naive(const sl_tensor *tx, const sl_tensor *ti,
                                const sl_tensor *ts, sl_reduce skip) {
  const int rows = (int)tx->shape[0], C = (int)tx->shape[1];
  const size_t n = (size_t)rows * (size_t)C;
  double *out = malloc(n * sizeof *out), *want = malloc(n * sizeof *want);
  CHECK(out && want);
  sl_tensor to = sl_tensor_make(SL_F64, 2, tx->shape, out);
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  for (int r = SL_REDUCE_SUM; out && want && r <= SL_REDUCE_AMIN; ++r)
    for (int self = 0; self < 2 && r != (int)skip; ++self) {
      memcpy(want, tx->data, n * sizeof *want);
      naive_dim0(want, rows, C, ti->data, ts->data, (int)ti->shape[0],
                 (sl_reduce)r, self);
      FOR_EACH_VARIANT(SL_OP_SCATTER_REDUCE, v) {
        CHECK(run_sr(&ctx, v, tx, 0, ti, ts, (sl_reduce)r, self, &to,
                     n * sizeof *out) == SL_STATUS_OK);
        int bad = 0;
        for (size_t i = 0; i < n; ++i) bad += !same_f(out[i], want[i]);
        CHECK_MSG(bad == 0, "%s %s self=%d: %d elements differ", v->name,
                  sl_reduce_name((sl_reduce)r), self, bad);
      }
    }
  free(out);
  free(want);
}

/* Many lines and duplicates: cpu.omp (3 threads) agrees bitwise with the
 * naive loop, for every reduce. Values are small integers: sums are
 * exact. */
static void test_many_lines(void) {
  enum { R = 67, C = 40, M = 50 };
  static double x[R * C], src[M * C];
  static int64_t idx[M * C];
  uint32_t s = 12345;
  for (int i = 0; i < R * C; ++i) {
    s = s * 1103515245u + 12345u;
    x[i] = (double)((s >> 16) % 19) - 9;
  }
  for (int i = 0; i < M * C; ++i) {
    s = s * 1103515245u + 12345u;
    src[i] = (double)((s >> 16) % 23) - 11;
    s = s * 1103515245u + 12345u;
    idx[i] = (s >> 16) % 7; /* rows 0..6 of R: heavy duplication */
  }
  sl_tensor tx = sl_tensor_make(SL_F64, 2, (int64_t[]){R, C}, x);
  sl_tensor ti = sl_tensor_make(SL_I64, 2, (int64_t[]){M, C}, idx);
  sl_tensor ts = sl_tensor_make(SL_F64, 2, (int64_t[]){M, C}, src);
  check_against_naive(&tx, &ti, &ts, SL_REDUCE_COUNT);
}

/* Many contributions per element (cpu.omp reduces them in private copies,
 * one per thread, combined in thread order): bitwise the naive loop for
 * every reduce but mean (whose order of division the naive loop does not
 * model), with ties of -0.0 and +0.0, NaN, and an element no index targets
 * whose x is -0.0. Values are small integers: sums are exact. */
static void test_private_copies(void) {
  enum { N = 30000, C = 2, M = 9 };
  static double x[M * C], src[N * C];
  static int64_t idx[N * C];
  uint32_t s = 777;
  for (int i = 0; i < M * C; ++i) x[i] = i % 3 ? (double)(i % 5) : -0.0;
  for (int i = 0; i < N * C; ++i) {
    s = s * 1103515245u + 12345u;
    int k = (int)((s >> 16) % 9);
    src[i] = k == 0 ? -0.0 : k == 1 ? 0.0 : (double)(k % 3) - 1;
    idx[i] = (s >> 8) % (M - 1); /* row M-1 is never targeted */
  }
  src[N * C / 2 + 1] = NAN; /* in the second thread's rows, column 1 */
  src[N * C - 1] = 5;       /* extremes only in the last thread's rows */
  src[N * C - 2] = -5;
  sl_tensor tx = sl_tensor_make(SL_F64, 2, (int64_t[]){M, C}, x);
  sl_tensor ti = sl_tensor_make(SL_I64, 2, (int64_t[]){N, C}, idx);
  sl_tensor ts = sl_tensor_make(SL_F64, 2, (int64_t[]){N, C}, src);
  check_against_naive(&tx, &ti, &ts, SL_REDUCE_MEAN);
}

/* Every position into one element (x of one row and column: the rows keep
 * the element in a register, and amax/amin skip the blocks of 16 that
 * cannot move it). src: N values >= 1 with a new maximum in the tail (N %
 * 16 positions past the blocks), a zero at N/3 and `late_zero` at N/2,
 * and a NaN at `nan_at` (-1: none). */
enum { ONE_TARGET_N = 40003 };
static void one_target_src(double *src, double late_zero, int nan_at) {
  uint32_t s = 4242;
  for (int i = 0; i < ONE_TARGET_N; ++i) {
    s = s * 1103515245u + 12345u;
    src[i] = 1 + (double)((s >> 16) % 50);
  }
  src[ONE_TARGET_N / 3] = 0.0;
  src[ONE_TARGET_N / 2] = late_zero;
  src[ONE_TARGET_N - 2] = 51;
  if (nan_at >= 0) src[nan_at] = NAN;
}

/* Every variant bitwise the naive loop, the NaN propagated however late it
 * comes and whatever follows it. */
static void check_one_target(int nan_at) {
  static double x[1] = {7}, src[ONE_TARGET_N];
  static int64_t idx[ONE_TARGET_N];
  one_target_src(src, 0.0, nan_at);
  sl_tensor tx = sl_tensor_make(SL_F64, 2, (int64_t[]){1, 1}, x);
  sl_tensor ti = sl_tensor_make(SL_I64, 2, (int64_t[]){ONE_TARGET_N, 1}, idx);
  sl_tensor ts = sl_tensor_make(SL_F64, 2, (int64_t[]){ONE_TARGET_N, 1}, src);
  check_against_naive(&tx, &ti, &ts, SL_REDUCE_MEAN);
}

/* The deterministic variants' amin keeps the first of two zeros (+0, then
 * -0 at N/2), as the serial order does; the concurrent ones may keep
 * either. */
static void test_one_target_zeros(void) {
  static double x[1] = {7}, src[ONE_TARGET_N], out[1];
  static int64_t idx[ONE_TARGET_N];
  one_target_src(src, -0.0, -1);
  sl_tensor tx = sl_tensor_make(SL_F64, 1, (int64_t[]){1}, x);
  sl_tensor ti = sl_tensor_make(SL_I64, 1, (int64_t[]){ONE_TARGET_N}, idx);
  sl_tensor ts = sl_tensor_make(SL_F64, 1, (int64_t[]){ONE_TARGET_N}, src);
  sl_tensor to = sl_tensor_make(SL_F64, 1, (int64_t[]){1}, out);
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  FOR_EACH_VARIANT(SL_OP_SCATTER_REDUCE, v) {
    for (int self = 0; self < 2 && (v->flags & SL_DETERMINISTIC); ++self) {
      CHECK(run_sr(&ctx, v, &tx, 0, &ti, &ts, SL_REDUCE_AMIN, self, &to,
                   sizeof out) == SL_STATUS_OK);
      CHECK_MSG(same_f(out[0], 0.0), "%s self=%d: %g", v->name, self, out[0]);
    }
  }
}

/* Runs of one target along the row's own axis (x [5, 1], dim 0): runs of
 * 1 to 60 positions, so blocks of 16 fall wholly inside one (the register
 * path, skipped where an extreme keeps it) or across two (the memory
 * path), with a NaN inside a run and zeros of both signs. Every variant
 * bitwise the naive loop (prod left out: cpu.omp's private copies of out
 * multiply in parts, which round differently). */
static void test_index_runs(void) {
  enum { R = 5 };
  static double x[R] = {7, -3, 0.5, 40, -0.0}, src[ONE_TARGET_N];
  static int64_t idx[ONE_TARGET_N];
  one_target_src(src, -0.0, 20011);
  uint32_t s = 777;
  for (int i = 0; i < ONE_TARGET_N;) {
    s = s * 1103515245u + 12345u;
    const int run = 1 + (int)((s >> 16) % 60), target = (int)((s >> 8) % R);
    for (int k = 0; k < run && i < ONE_TARGET_N; ++k) idx[i++] = target;
  }
  sl_tensor tx = sl_tensor_make(SL_F64, 2, (int64_t[]){R, 1}, x);
  sl_tensor ti = sl_tensor_make(SL_I64, 2, (int64_t[]){ONE_TARGET_N, 1}, idx);
  sl_tensor ts = sl_tensor_make(SL_F64, 2, (int64_t[]){ONE_TARGET_N, 1}, src);
  check_against_naive(&tx, &ti, &ts, SL_REDUCE_PROD);
}

static void test_one_target(void) {
  test_index_runs();
  check_one_target(-1);
  check_one_target(12345);            /* inside a block */
  check_one_target(ONE_TARGET_N - 2); /* in the tail */
  test_one_target_zeros();
}

/* Many contributions per element, but along the last axis (dim 1): each
 * index row targets its own row of out, so the threads own whole rows of
 * index and out and no private copies are made. Then every deterministic
 * variant sums each element in the serial order: f32 sums of values with
 * rounding bitwise equal to cpu.serial's (private copies re-associate
 * them into per-thread partial sums, which rounds differently). */
static void test_rows_along_last_axis(void) {
  enum { R = 16, C = 64, N = 4096 }; /* 64 contributions per element */
  static float x[R * C], src[R * N], want[R * C], got[R * C];
  static int64_t idx[R * N];
  uint32_t s = 4242;
  for (int i = 0; i < R * C; ++i) x[i] = (float)i * 0.37f;
  for (int i = 0; i < R * N; ++i) {
    s = s * 1103515245u + 12345u;
    src[i] = (float)(s >> 8) * 1e-5f + 0.1f; /* sums that round */
    idx[i] = (s >> 4) % C;
  }
  sl_tensor tx = sl_tensor_make(SL_F32, 2, (int64_t[]){R, C}, x);
  sl_tensor ti = sl_tensor_make(SL_I64, 2, (int64_t[]){R, N}, idx);
  sl_tensor ts = sl_tensor_make(SL_F32, 2, (int64_t[]){R, N}, src);
  sl_tensor tw = sl_tensor_make(SL_F32, 2, (int64_t[]){R, C}, want);
  sl_tensor tg = sl_tensor_make(SL_F32, 2, (int64_t[]){R, C}, got);
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  CHECK(sl_scatter_reduce(&ctx, "cpu.serial", &tx, 1, &ti, &ts, SL_REDUCE_SUM,
                          1, &tw) == SL_STATUS_OK);
  FOR_EACH_VARIANT(SL_OP_SCATTER_REDUCE, v) {
    if (!(v->flags & SL_DETERMINISTIC)) continue;
    CHECK(run_sr(&ctx, v, &tx, 1, &ti, &ts, SL_REDUCE_SUM, 1, &tg,
                 sizeof got) == SL_STATUS_OK);
    int differ = 0;
    for (int i = 0; i < R * C; ++i) differ += !same_f(got[i], want[i]);
    CHECK_MSG(differ == 0, "%s: %d of %d sums differ from cpu.serial's",
              v->name, differ, R * C);
  }
}

/* cpu.omp checks the index as it streams it in (the private-copies plan,
 * three threads here): every variant reports the first bad position in
 * row-major order, wherever the bad values fall among the threads' slabs,
 * and leaves out as it found it. */
static void test_fused_index_check(void) {
  enum { N = 30000, C = 2, M = 9 };
  static double x[M * C], src[N * C], out[M * C];
  static int64_t idx[N * C], t_idx[C * N];
  for (int i = 0; i < M * C; ++i) x[i] = i;
  for (int i = 0; i < N * C; ++i) {
    src[i] = i % 7;
    idx[i] = (i * 5) % M;
  }
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  sl_tensor tx = sl_tensor_make(SL_F64, 2, (int64_t[]){M, C}, x);
  sl_tensor ti = sl_tensor_make(SL_I64, 2, (int64_t[]){N, C}, idx);
  sl_tensor ts = sl_tensor_make(SL_F64, 2, (int64_t[]){N, C}, src);
  sl_tensor to = sl_tensor_make(SL_F64, 2, (int64_t[]){M, C}, out);
  /* The same index as a transposed view: the odometer path of the check. */
  sl_tensor tt = sl_tensor_make(SL_I64, 2, (int64_t[]){N, C}, t_idx);
  tt.strides[0] = 1;
  tt.strides[1] = N;
  const struct {
    int at[2]; /* row-major positions made bad, -1: none */
    int64_t value;
    const char *want;
  } cases[] = {
      {{5 * C + 1, -1},
       M,
       "index[5,1]=9 out of range [0,9) for dim 0 of x "
       "[9,2]"},
      {{15000 * C, -1}, -1, "index[15000,0]=-1 out of range"},
      {{N * C - 1, -1}, 1000, "index[29999,1]=1000 out of range"},
      {{25000 * C, 12000 * C + 1}, M, "index[12000,1]=9 out of range"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
    for (int j = 0; j < 2; ++j)
      if (cases[k].at[j] >= 0) idx[cases[k].at[j]] = cases[k].value;
    for (int i = 0; i < N * C; ++i) t_idx[(i % C) * N + i / C] = idx[i];
    FOR_EACH_VARIANT(SL_OP_SCATTER_REDUCE, v) {
      for (int self = 0; self < 2; ++self) {
        for (int view = 0; view < 2; ++view) {
          CHECK(run_sr(&ctx, v, &tx, 0, view ? &tt : &ti, &ts, SL_REDUCE_SUM,
                       self, &to, sizeof out) == SL_STATUS_INDEX_OUT_OF_RANGE);
          CHECK_CONTAINS(ctx.msg, cases[k].want);
          CHECK(left_poisoned(out, sizeof out));
        }
      }
    }
    for (int j = 0; j < 2; ++j)
      if (cases[k].at[j] >= 0) idx[cases[k].at[j]] = (cases[k].at[j] * 5) % M;
  }
  /* The same call with a good index gives the naive answer. */
  check_against_naive(&tx, &ti, &ts, SL_REDUCE_SUM);
}

/* Rows of index along dim 1 longer than two check blocks with an out
 * small beside them (thresholds.def check_block: 8192): cpu.omp walks
 * each row into a copy of x, testing each value as it steps (reduce_rows.c
 * sl__checked_row_fn). The first bad value in row-major order is named,
 * wherever it lies (in a block of 16 different values, in a block of one
 * repeated value, in a row's tail past its last block of 16), with an i64
 * and an i32 index, and out is left as found; with a good index every
 * variant gives the naive sums (small integers: exact). */
static void check_rows_bad(sl_ctx *ctx, const sl_tensor *tx,
                           const sl_tensor *ti, const sl_tensor *ts,
                           double *out, size_t bytes, const char *want) {
  sl_tensor to = *tx;
  to.data = out;
  FOR_EACH_VARIANT(SL_OP_SCATTER_REDUCE, v) {
    CHECK(run_sr(ctx, v, tx, 1, ti, ts, SL_REDUCE_SUM, 1, &to, bytes) ==
          SL_STATUS_INDEX_OUT_OF_RANGE);
    CHECK_MSG(strstr(ctx->msg, want) != NULL, "%s %s: %s, want %s", v->name,
              sl_dtype_name(ti->dtype), ctx->msg, want);
    CHECK_MSG(left_poisoned(out, bytes), "%s: out written by a refused call",
              v->name);
  }
}

static void test_checked_rows(void) {
  enum { R = 6, W = 20007, C = 64 };
  static double x[R * C], src[R * W], out[R * C], want[R * C];
  static int64_t idx[R * W];
  static int32_t idx32[R * W];
  for (int i = 0; i < R * C; ++i) x[i] = i % 11;
  for (int i = 0; i < R * W; ++i) {
    src[i] = i % 7; /* rows differ: W is not a multiple of 7 */
    idx[i] = (i * 7) % C;
  }
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  sl_tensor tx = sl_tensor_make(SL_F64, 2, (int64_t[]){R, C}, x);
  sl_tensor ti = sl_tensor_make(SL_I64, 2, (int64_t[]){R, W}, idx);
  sl_tensor t32 = sl_tensor_make(SL_I32, 2, (int64_t[]){R, W}, idx32);
  sl_tensor ts = sl_tensor_make(SL_F64, 2, (int64_t[]){R, W}, src);
  sl_tensor to = sl_tensor_make(SL_F64, 2, (int64_t[]){R, C}, out);
  memcpy(want, x, sizeof want);
  for (int r = 0; r < R; ++r)
    for (int j = 0; j < W; ++j) want[r * C + idx[r * W + j]] += src[r * W + j];
  FOR_EACH_VARIANT(SL_OP_SCATTER_REDUCE, v) {
    CHECK(run_sr(&ctx, v, &tx, 1, &ti, &ts, SL_REDUCE_SUM, 1, &to,
                 sizeof out) == SL_STATUS_OK);
    int differ = 0;
    for (int i = 0; i < R * C; ++i) differ += out[i] != want[i];
    CHECK_MSG(differ == 0, "%s: %d of %d sums wrong", v->name, differ, R * C);
  }
  const struct {
    int at, count; /* positions [at, at + count) made bad */
    int64_t value;
    const char *want;
  } cases[] = {
      {4 * W + 17001, 1, C, "index[4,17001]=64 out of range [0,64)"},
      {2 * W + 1600, 16, C + 5, "index[2,1600]=69 out of range"},
      {3 * W + W - 2, 1, -7, "index[3,20005]=-7 out of range"},
  };
  idx[5 * W + 3] = -1; /* after every case's */
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
    for (int i = 0; i < cases[k].count; ++i)
      idx[cases[k].at + i] = cases[k].value;
    for (int i = 0; i < R * W; ++i) idx32[i] = (int32_t)idx[i];
    check_rows_bad(&ctx, &tx, &ti, &ts, out, sizeof out, cases[k].want);
    check_rows_bad(&ctx, &tx, &t32, &ts, out, sizeof out, cases[k].want);
    for (int i = 0; i < cases[k].count; ++i)
      idx[cases[k].at + i] = (cases[k].at + i) * 7 % C;
  }
}

/* An out of 16 MiB, more than a panel (walk.h SL__PANEL_BYTES, 4 MiB):
 * cpu.omp walks each thread's columns in panels; the answer is still
 * cpu.serial's and the naive loop's, bitwise (small integers: exact sums),
 * on 2 and 3 threads. */
static void test_panels(void) {
  enum { R = 64, C = 65536 };
  const size_t n = (size_t)R * C;
  float *x = malloc(n * sizeof *x), *src = malloc(n * sizeof *src);
  float *out = malloc(n * sizeof *out), *want = malloc(n * sizeof *want);
  int32_t *idx = malloc(n * sizeof *idx);
  CHECK(x && src && out && want && idx);
  if (!x || !src || !out || !want || !idx) goto done;
  uint32_t s = 99;
  for (size_t i = 0; i < n; ++i) {
    s = s * 1103515245u + 12345u;
    x[i] = (float)((s >> 16) % 9);
    src[i] = (float)((s >> 8) % 5);
    idx[i] = (int32_t)((s >> 20) % R);
  }
  sl_tensor tx = sl_tensor_make(SL_F32, 2, (int64_t[]){R, C}, x);
  sl_tensor ti = sl_tensor_make(SL_I32, 2, (int64_t[]){R, C}, idx);
  sl_tensor ts = sl_tensor_make(SL_F32, 2, (int64_t[]){R, C}, src);
  sl_tensor to = sl_tensor_make(SL_F32, 2, (int64_t[]){R, C}, out);
  const sl_reduce reduces[] = {SL_REDUCE_SUM, SL_REDUCE_AMAX};
  for (int k = 0; k < 2; ++k) {
    memcpy(want, x, n * sizeof *want);
    for (size_t i = 0; i < n; ++i) {
      float *a = &want[(size_t)idx[i] * C + i % C];
      *a = (float)naive_combine(reduces[k], *a, src[i]);
    }
    for (int threads = 2; threads <= 3; ++threads) {
      sl_ctx ctx;
      sl_ctx_init(&ctx);
      ctx.threads = threads;
      const char *variants[] = {"cpu.serial", "cpu.omp"};
      for (int v = 0; v < 2; ++v) {
        memset(out, 0x5a, n * sizeof *out);
        CHECK(sl_scatter_reduce(&ctx, variants[v], &tx, 0, &ti, &ts, reduces[k],
                                1, &to) == SL_STATUS_OK);
        CHECK_MSG(memcmp(out, want, n * sizeof *out) == 0,
                  "%s %s on %d threads differs from the naive loop",
                  variants[v], sl_reduce_name(reduces[k]), threads);
      }
    }
  }
done:
  free(x);
  free(src);
  free(out);
  free(want);
  free(idx);
}

/* A zero-element index returns x unchanged without reading src. */
static void test_empty(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  float x[6] = {1, 2, 3, 4, 5, 6}, out[6];
  sl_tensor tx = sl_tensor_make(SL_F32, 2, (int64_t[]){2, 3}, x);
  sl_tensor ti = sl_tensor_make(SL_I64, 2, (int64_t[]){2, 0}, NULL);
  sl_tensor ts = sl_tensor_make(SL_F32, 2, (int64_t[]){2, 3}, NULL);
  ts.shape[1] = 0;
  sl_tensor to = sl_tensor_make(SL_F32, 2, (int64_t[]){2, 3}, out);
  sl_tensor ex = sl_tensor_make(SL_F32, 2, (int64_t[]){0, 3}, NULL);
  sl_tensor ei = sl_tensor_make(SL_I64, 2, (int64_t[]){0, 3}, NULL);
  sl_tensor eo = sl_tensor_make(SL_F32, 2, (int64_t[]){0, 3}, NULL);
  FOR_EACH_VARIANT(SL_OP_SCATTER_REDUCE, v) {
    for (int r = SL_REDUCE_SUM; r <= SL_REDUCE_AMIN; ++r)
      for (int dim = 0; dim <= 1; ++dim) { /* dim 0: 2 index rows of none */
        CHECK(run_sr(&ctx, v, &tx, dim, &ti, &ts, (sl_reduce)r, 0, &to,
                     sizeof out) == SL_STATUS_OK);
        CHECK(memcmp(out, x, sizeof x) == 0);
      }
    CHECK(sl_scatter_reduce(&ctx, v->name, &ex, 0, &ei, &ex, SL_REDUCE_MEAN, 0,
                            &eo) == SL_STATUS_OK);
  }
}

/* Bad input: one check per class that applies; nothing is written. */
static void test_bad_input(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  float A[12] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, out[12];
  int64_t IDX[6] = {0, 1, 1, 3, 2, 0};
  sl_tensor x = sl_tensor_make(SL_F32, 2, (int64_t[]){4, 3}, A);
  sl_tensor index = sl_tensor_make(SL_I64, 2, (int64_t[]){2, 3}, IDX);
  sl_tensor src = sl_tensor_make(SL_F32, 2, (int64_t[]){2, 3}, A);
  sl_tensor o = sl_tensor_make(SL_F32, 2, (int64_t[]){4, 3}, out);
  const sl_reduce R = SL_REDUCE_SUM;
  for (int i = 0; i < 12; ++i) out[i] = -1;
#define SR(x_, d_, i_, s_, r_, o_)                                             \
  sl_scatter_reduce(&ctx, "cpu.serial", x_, d_, i_, s_, r_, 1, o_)

  /* the happy path first, so that the failures below are the inputs' */
  CHECK(SR(&x, 0, &index, &src, R, &o) == SL_STATUS_OK);
  for (int i = 0; i < 12; ++i) out[i] = -1;
  /* null pointer */
  CHECK(SR(NULL, 0, &index, &src, R, &o) == SL_STATUS_NULL_POINTER);
  CHECK_CONTAINS(ctx.msg, "x: expected a tensor, got NULL");
  CHECK(SR(&x, 0, &index, NULL, R, &o) == SL_STATUS_NULL_POINTER);
  CHECK_CONTAINS(ctx.msg, "src: expected a tensor, got NULL");
  sl_tensor nod = src;
  nod.data = NULL;
  CHECK(SR(&x, 0, &index, &nod, R, &o) == SL_STATUS_NULL_POINTER);
  CHECK_CONTAINS(ctx.msg, "src: expected data for 6 elements, got NULL");
  CHECK(sl_run(&ctx, "cpu.omp", NULL) == SL_STATUS_NULL_POINTER);
  CHECK_CONTAINS(ctx.msg, "call:");
  /* rank mismatch: index, src */
  sl_tensor flat = sl_tensor_make(SL_I64, 1, (int64_t[]){6}, IDX);
  CHECK(SR(&x, 0, &flat, &src, R, &o) == SL_STATUS_RANK_MISMATCH);
  CHECK_CONTAINS(
      ctx.msg, "index: expected rank 2 (the rank of x [4,3]), got rank 1 [6]");
  sl_tensor sflat = sl_tensor_make(SL_F32, 1, (int64_t[]){6}, A);
  CHECK(SR(&x, 0, &index, &sflat, R, &o) == SL_STATUS_RANK_MISMATCH);
  CHECK_CONTAINS(ctx.msg, "src: expected rank 2");
  /* dim out of range */
  CHECK(SR(&x, 2, &index, &src, R, &o) == SL_STATUS_DIM_OUT_OF_RANGE);
  CHECK_CONTAINS(ctx.msg,
                 "dim: expected a value in [-2,1] for a rank-2 tensor, got 2");
  CHECK(SR(&x, -3, &index, &src, R, &o) == SL_STATUS_DIM_OUT_OF_RANGE);
  /* shape mismatch: src smaller than index, index wider than x off dim,
   * out of the wrong shape */
  sl_tensor small = sl_tensor_make(SL_F32, 2, (int64_t[]){1, 3}, A);
  CHECK(SR(&x, 0, &index, &small, R, &o) == SL_STATUS_SHAPE_MISMATCH);
  CHECK_CONTAINS(ctx.msg, "index: expected size <= 1 in dim 0 (src is [1,3])");
  sl_tensor wide = sl_tensor_make(SL_I64, 2, (int64_t[]){1, 6}, IDX);
  sl_tensor swide = sl_tensor_make(SL_F32, 2, (int64_t[]){1, 6}, A);
  CHECK(SR(&x, 0, &wide, &swide, R, &o) == SL_STATUS_SHAPE_MISMATCH);
  CHECK_CONTAINS(ctx.msg, "index: expected size <= 3 in dim 1 (x is [4,3])");
  sl_tensor o23 = sl_tensor_make(SL_F32, 2, (int64_t[]){2, 3}, out);
  CHECK(SR(&x, 0, &index, &src, R, &o23) == SL_STATUS_SHAPE_MISMATCH);
  CHECK_CONTAINS(ctx.msg, "out: expected shape [4,3], got [2,3]");
  /* index dtype not integer */
  sl_tensor fidx = sl_tensor_make(SL_F32, 2, (int64_t[]){2, 3}, A);
  CHECK(SR(&x, 0, &fidx, &src, R, &o) == SL_STATUS_INDEX_DTYPE);
  CHECK_CONTAINS(ctx.msg, "index: expected dtype i32 or i64, got f32");
  /* index value out of range, negative too */
  int64_t big[6] = {0, 1, 1, 3, 4, 0}, neg[6] = {0, -1, 1, 3, 2, 0};
  sl_tensor bidx = sl_tensor_make(SL_I64, 2, (int64_t[]){2, 3}, big);
  CHECK(SR(&x, 0, &bidx, &src, R, &o) == SL_STATUS_INDEX_OUT_OF_RANGE);
  CHECK_CONTAINS(ctx.msg,
                 "index[1,1]=4 out of range [0,4) for dim 0 of x [4,3]");
  sl_tensor nidx = sl_tensor_make(SL_I64, 2, (int64_t[]){2, 3}, neg);
  CHECK(SR(&x, 0, &nidx, &src, R, &o) == SL_STATUS_INDEX_OUT_OF_RANGE);
  CHECK_CONTAINS(ctx.msg, "index[0,1]=-1 out of range");
  /* unsupported dtype: bool (LibTorch would sum bools; the catalogue's
   * set for scatter_reduce, sl_op_dtypes, does not), u8, c64; src of another
   * dtype; out of another dtype */
  uint8_t bx[12] = {0}, bs[6] = {1};
  sl_tensor tb = sl_tensor_make(SL_BOOL, 2, (int64_t[]){4, 3}, bx);
  sl_tensor tbs = sl_tensor_make(SL_BOOL, 2, (int64_t[]){2, 3}, bs);
  sl_tensor tbo = sl_tensor_make(SL_BOOL, 2, (int64_t[]){4, 3}, out);
  CHECK(SR(&tb, 0, &index, &tbs, R, &tbo) == SL_STATUS_UNSUPPORTED_DTYPE);
  CHECK_CONTAINS(ctx.msg,
                 "x: expected one of i32, i64, f16, bf16, f32, f64, got bool");
  tb.dtype = tbs.dtype = tbo.dtype = SL_U8;
  CHECK(SR(&tb, 0, &index, &tbs, SL_REDUCE_AMAX, &tbo) ==
        SL_STATUS_UNSUPPORTED_DTYPE);
  CHECK_CONTAINS(ctx.msg, "got u8");
  sl_tensor cx = sl_tensor_make(SL_C64, 2, (int64_t[]){4, 3}, A);
  sl_tensor cs = sl_tensor_make(SL_C64, 2, (int64_t[]){1, 3}, A);
  sl_tensor co = sl_tensor_make(SL_C64, 2, (int64_t[]){4, 3}, NULL);
  sl_tensor cidx = sl_tensor_make(SL_I64, 2, (int64_t[]){1, 3}, IDX);
  CHECK(SR(&cx, 0, &cidx, &cs, R, &co) == SL_STATUS_UNSUPPORTED_DTYPE);
  CHECK_CONTAINS(ctx.msg, "x: expected one of");
  sl_tensor isrc = sl_tensor_make(SL_I64, 2, (int64_t[]){2, 3}, IDX);
  CHECK(SR(&x, 0, &index, &isrc, R, &o) == SL_STATUS_UNSUPPORTED_DTYPE);
  CHECK_CONTAINS(ctx.msg, "src: expected dtype f32 (the dtype of x), got i64");
  sl_tensor od = sl_tensor_make(SL_F64, 2, (int64_t[]){4, 3}, out);
  CHECK(SR(&x, 0, &index, &src, R, &od) == SL_STATUS_UNSUPPORTED_DTYPE);
  CHECK_CONTAINS(ctx.msg, "out: expected dtype f32, got f64");
  /* unknown reduce: none, assign and max are not scatter_reduce's; a code
   * out of range */
  CHECK(SR(&x, 0, &index, &src, SL_REDUCE_NONE, &o) ==
        SL_STATUS_UNKNOWN_REDUCE);
  CHECK_CONTAINS(
      ctx.msg,
      "reduce: expected one of {sum, prod, mean, amax, amin}, got none");
  CHECK(SR(&x, 0, &index, &src, SL_REDUCE_ASSIGN, &o) ==
        SL_STATUS_UNKNOWN_REDUCE);
  CHECK(SR(&x, 0, &index, &src, SL_REDUCE_MAX, &o) == SL_STATUS_UNKNOWN_REDUCE);
  CHECK_CONTAINS(ctx.msg, "got max");
  CHECK(SR(&x, 0, &index, &src, (sl_reduce)42, &o) == SL_STATUS_UNKNOWN_REDUCE);
  CHECK_CONTAINS(
      ctx.msg,
      "reduce: expected one of {sum, prod, mean, amax, amin}, got code 42");
  /* element count overflow in the shape product */
  sl_tensor huge = sl_tensor_make(
      SL_F32, 3, (int64_t[]){INT64_C(1) << 31, INT64_C(1) << 31, 8}, A);
  sl_tensor i3 = sl_tensor_make(SL_I64, 3, (int64_t[]){1, 1, 1}, IDX);
  CHECK(SR(&huge, 0, &i3, &huge, R, &o) == SL_STATUS_OVERFLOW);
  CHECK_CONTAINS(ctx.msg, "x: shape [2147483648,2147483648,8]");
  /* output overlapping an input */
  sl_tensor alias = sl_tensor_make(SL_F32, 2, (int64_t[]){4, 3}, A);
  CHECK(SR(&x, 0, &index, &src, R, &alias) == SL_STATUS_INVALID_ARGUMENT);
  CHECK_CONTAINS(ctx.msg, "out: expected memory disjoint from x");
  /* none of the failures wrote anything */
  for (int i = 0; i < 12; ++i) CHECK(out[i] == -1);
#undef SR
}

int main(void) {
  test_reduces_1d();
  test_2d_narrow_index();
  test_nan();
  test_signed_zero();
  test_integers();
  test_rounding_and_halves();
  test_stepped_half_src();
  test_strides();
  test_many_lines();
  test_private_copies();
  test_one_target();
  test_rows_along_last_axis();
  test_fused_index_check();
  test_checked_rows();
  test_panels();
  test_empty();
  test_bad_input();
  return sl_test_finish("test_scatter_reduce");
}
