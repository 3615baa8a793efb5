/*
 * The parallel-over-inputs variants (cpu.atomic, cpu.lock, cpu.sorted) of
 * scatter_reduce, index_reduce, scatter_nd, dynamic_scatter and its
 * backward, on inputs large enough (tens of thousands of contributions into
 * a few destinations) that every variant splits them among 4 threads and
 * they really collide. Expectations are computed by hand from the input
 * patterns (closed forms in the comments); where a result depends on the
 * order of arrival (which of two equal zeros, which writer of an
 * assignment under a lock) the test checks only what must hold.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "sl/sl.h"
#include "sl_test.h"

static const char *const STRATEGIES[] = {"cpu.atomic", "cpu.lock",
                                         "cpu.sorted"};
#define FOR_EACH_STRATEGY(v)                                                   \
  for (size_t v##_k = 0; v##_k < 3; ++v##_k)                                   \
    for (const char *v = STRATEGIES[v##_k]; v; v = NULL)

#define SHAPE(...) ((int64_t[]){__VA_ARGS__})

static sl_status run_sr(const char *v, const sl_tensor *x, const sl_tensor *i,
                        const sl_tensor *s, sl_reduce r, int self,
                        sl_tensor *out) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  ctx.threads = 4; /* more threads than this machine may have: collisions */
  sl_status st = sl_scatter_reduce(&ctx, v, x, 0, i, s, r, self, out);
  if (st) fprintf(stderr, "%s: %s\n", v, ctx.msg);
  return st;
}

/* ------------------------------------------------------------------------ */
/* scatter_reduce f32: N = 65536 contributions into 8 destinations,          */
/* index[i] = i % 8, so destination t gets i = t + 8k for k < 8192, in that  */
/* order. x[t] = t - 3.                                                      */
/* ------------------------------------------------------------------------ */
enum { N_SR = 65536, M_SR = 8, K_SR = N_SR / M_SR };

static void test_scatter_reduce_f32(void) {
  static float x[M_SR + 2], src[N_SR], out[M_SR + 2];
  static int64_t idx[N_SR];
  /* Two untargeted positions that must keep x bitwise: -0.0 and NaN. */
  for (int t = 0; t < M_SR; ++t) x[t] = (float)(t - 3);
  x[M_SR] = -0.0f;
  x[M_SR + 1] = NAN;
  for (int i = 0; i < N_SR; ++i) idx[i] = i % M_SR;
  sl_tensor tx = sl_tensor_make(SL_F32, 1, SHAPE(M_SR + 2), x);
  sl_tensor ti = sl_tensor_make(SL_I64, 1, SHAPE(N_SR), idx);
  sl_tensor ts = sl_tensor_make(SL_F32, 1, SHAPE(N_SR), src);
  sl_tensor to = sl_tensor_make(SL_F32, 1, SHAPE(M_SR + 2), out);
  /* src = k % 5 for contribution k of a destination: 0 and 1 appear 1639
   * times, 2, 3 and 4 1638 times: sum 1639 * 1 + 1638 * 9 = 16381, max 4,
   * min 0 (all exact in f32). */
  for (int i = 0; i < N_SR; ++i) src[i] = (float)((i / M_SR) % 5);
  FOR_EACH_STRATEGY(v) {
    for (int self = 0; self <= 1; ++self) {
      CHECK(run_sr(v, &tx, &ti, &ts, SL_REDUCE_SUM, self, &to) == 0);
      for (int t = 0; t < M_SR; ++t)
        CHECK_MSG(out[t] == 16381.0f + (self ? t - 3 : 0),
                  "%s sum self=%d "
                  "out[%d]=%g",
                  v, self, t, out[t]);
      CHECK(signbit(out[M_SR]) && out[M_SR] == 0.0f && isnan(out[M_SR + 1]));
      CHECK(run_sr(v, &tx, &ti, &ts, SL_REDUCE_AMAX, self, &to) == 0);
      for (int t = 0; t < M_SR; ++t)
        CHECK(out[t] == (self && t - 3 > 4 ? t - 3 : 4.0f));
      CHECK(run_sr(v, &tx, &ti, &ts, SL_REDUCE_AMIN, self, &to) == 0);
      for (int t = 0; t < M_SR; ++t)
        CHECK(out[t] == (self && t < 3 ? t - 3 : 0.0f));
      CHECK(signbit(out[M_SR]) && isnan(out[M_SR + 1]));
      /* mean: 16381 / 8192 is exact; with x, (t - 3 + 16381) / 8193 rounded
       * once to f32. */
      CHECK(run_sr(v, &tx, &ti, &ts, SL_REDUCE_MEAN, self, &to) == 0);
      for (int t = 0; t < M_SR; ++t) {
        float want = self ? (float)((t - 3 + 16381.0) / 8193.0)
                          : (float)(16381.0 / 8192.0);
        CHECK_MSG(fabsf(out[t] - want) <= 1e-6f * fabsf(want),
                  "%s mean self=%d out[%d]=%.9g want %.9g", v, self, t, out[t],
                  want);
      }
    }
  }
  /* prod: src = -1 when k % 3 == 0 (2731 times, odd) else 1: -1, and
   * -(t - 3) with x. */
  for (int i = 0; i < N_SR; ++i) src[i] = (i / M_SR) % 3 == 0 ? -1.0f : 1.0f;
  FOR_EACH_STRATEGY(v) {
    for (int self = 0; self <= 1; ++self) {
      CHECK(run_sr(v, &tx, &ti, &ts, SL_REDUCE_PROD, self, &to) == 0);
      for (int t = 0; t < M_SR; ++t)
        CHECK(out[t] == (self ? (float)(3 - t) : -1.0f));
    }
  }
}

/* NaN wins amax and amin wherever it is among the contributions; zeros of
 * either sign compare equal, so a destination of mixed zeros is a zero. */
static void test_nan_and_zeros(void) {
  static float x[M_SR], src[N_SR], out[M_SR];
  static int64_t idx[N_SR];
  for (int t = 0; t < M_SR; ++t) x[t] = 1.0f;
  for (int i = 0; i < N_SR; ++i) {
    idx[i] = i % M_SR;
    src[i] = (i / M_SR) % 2 ? -0.0f : 0.0f;
  }
  /* Destination 1: one NaN early; destination 2: one NaN last. */
  src[1 + 8 * 5] = NAN;
  src[2 + 8 * (K_SR - 1)] = NAN;
  sl_tensor tx = sl_tensor_make(SL_F32, 1, SHAPE(M_SR), x);
  sl_tensor ti = sl_tensor_make(SL_I64, 1, SHAPE(N_SR), idx);
  sl_tensor ts = sl_tensor_make(SL_F32, 1, SHAPE(N_SR), src);
  sl_tensor to = sl_tensor_make(SL_F32, 1, SHAPE(M_SR), out);
  FOR_EACH_STRATEGY(v) {
    for (int r = SL_REDUCE_AMAX; r <= SL_REDUCE_AMIN; ++r)
      for (int self = 0; self <= 1; ++self) {
        CHECK(run_sr(v, &tx, &ti, &ts, (sl_reduce)r, self, &to) == 0);
        CHECK_MSG(isnan(out[1]) && isnan(out[2]), "%s %s: %g %g", v,
                  sl_reduce_name((sl_reduce)r), out[1], out[2]);
        /* amax with x = 1 is 1; otherwise a zero (sign unspecified). */
        float want = r == SL_REDUCE_AMAX && self ? 1.0f : 0.0f;
        for (int t = 0; t < M_SR; ++t)
          if (t != 1 && t != 2) CHECK(out[t] == want);
      }
    /* The sum carries the NaN too. */
    CHECK(run_sr(v, &tx, &ti, &ts, SL_REDUCE_SUM, 1, &to) == 0);
    CHECK(isnan(out[1]) && isnan(out[2]) && out[0] == 1.0f);
  }
}

/* Integers: i32 sums wrap, integer mean floors, i64 products wrap. */
static void test_integers(void) {
  static int32_t x[M_SR], src[N_SR], out[M_SR];
  static int64_t idx[N_SR];
  for (int t = 0; t < M_SR; ++t) x[t] = t - 3;
  for (int i = 0; i < N_SR; ++i) idx[i] = i % M_SR;
  sl_tensor tx = sl_tensor_make(SL_I32, 1, SHAPE(M_SR), x);
  sl_tensor ti = sl_tensor_make(SL_I64, 1, SHAPE(N_SR), idx);
  sl_tensor ts = sl_tensor_make(SL_I32, 1, SHAPE(N_SR), src);
  sl_tensor to = sl_tensor_make(SL_I32, 1, SHAPE(M_SR), out);
  /* 8192 * (2^30 + 1) = 2^43 + 8192 = 8192 mod 2^32. */
  for (int i = 0; i < N_SR; ++i) src[i] = 0x40000001;
  FOR_EACH_STRATEGY(v) {
    CHECK(run_sr(v, &tx, &ti, &ts, SL_REDUCE_SUM, 0, &to) == 0);
    for (int t = 0; t < M_SR; ++t) CHECK(out[t] == 8192);
    CHECK(run_sr(v, &tx, &ti, &ts, SL_REDUCE_SUM, 1, &to) == 0);
    for (int t = 0; t < M_SR; ++t) CHECK(out[t] == 8192 + t - 3);
  }
  /* mean of -1 and -2 alternating (4096 each): -12288 / 8192 = -1.5, floor
   * -2; with x = t - 3: (t - 3 - 12288) / 8193 is in (-2, -1): floor -2. */
  for (int i = 0; i < N_SR; ++i) src[i] = (i / M_SR) % 2 ? -2 : -1;
  FOR_EACH_STRATEGY(v) {
    for (int self = 0; self <= 1; ++self) {
      CHECK(run_sr(v, &tx, &ti, &ts, SL_REDUCE_MEAN, self, &to) == 0);
      for (int t = 0; t < M_SR; ++t)
        CHECK_MSG(out[t] == -2, "%s mean self=%d out[%d]=%d", v, self, t,
                  out[t]);
    }
    /* amax/amin without x: the lowest/highest identities never survive. */
    CHECK(run_sr(v, &tx, &ti, &ts, SL_REDUCE_AMAX, 0, &to) == 0);
    for (int t = 0; t < M_SR; ++t) CHECK(out[t] == -1);
    CHECK(run_sr(v, &tx, &ti, &ts, SL_REDUCE_AMIN, 1, &to) == 0);
    for (int t = 0; t < M_SR; ++t) CHECK(out[t] == (t - 3 < -2 ? t - 3 : -2));
  }
  /* i64 prod of 8192 threes: 3^8192 mod 2^64, by repeated squaring of the
   * unsigned value (3^(2^13)). */
  static int64_t x64[M_SR], s64[N_SR], o64[M_SR];
  uint64_t want = 3;
  for (int k = 0; k < 13; ++k) want *= want;
  for (int t = 0; t < M_SR; ++t) x64[t] = 1;
  for (int i = 0; i < N_SR; ++i) s64[i] = 3;
  sl_tensor tx64 = sl_tensor_make(SL_I64, 1, SHAPE(M_SR), x64);
  sl_tensor ts64 = sl_tensor_make(SL_I64, 1, SHAPE(N_SR), s64);
  sl_tensor to64 = sl_tensor_make(SL_I64, 1, SHAPE(M_SR), o64);
  FOR_EACH_STRATEGY(v) {
    CHECK(run_sr(v, &tx64, &ti, &ts64, SL_REDUCE_PROD, 1, &to64) == 0);
    for (int t = 0; t < M_SR; ++t) CHECK((uint64_t)o64[t] == want);
  }
}

/* f16/bf16 accumulate in f32 (sl__acc_dtype): 8192 ones per destination sum to
 * 8192 (a half-precision accumulator would stop at 2048 for f16, 256 for
 * bf16); the mean of 4096 ones and 4096 threes is 2. */
static void test_half_accumulation(void) {
  static uint16_t x[M_SR], src[N_SR], out[M_SR];
  static int32_t idx[N_SR];
  for (int i = 0; i < N_SR; ++i) idx[i] = i % M_SR;
  sl_tensor ti = sl_tensor_make(SL_I32, 1, SHAPE(N_SR), idx);
  for (int h = 0; h < 2; ++h) {
    sl_dtype dt = h ? SL_BF16 : SL_F16;
    uint16_t (*to16)(float) = h ? sl_f32_to_bf16 : sl_f32_to_f16;
    float (*from16)(uint16_t) = h ? sl_bf16_to_f32 : sl_f16_to_f32;
    sl_tensor tx = sl_tensor_make(dt, 1, SHAPE(M_SR), x);
    sl_tensor ts = sl_tensor_make(dt, 1, SHAPE(N_SR), src);
    sl_tensor to = sl_tensor_make(dt, 1, SHAPE(M_SR), out);
    for (int t = 0; t < M_SR; ++t) x[t] = to16((float)(t == 0 ? 0 : 1000));
    for (int i = 0; i < N_SR; ++i) src[i] = to16(1.0f);
    FOR_EACH_STRATEGY(v) {
      CHECK(run_sr(v, &tx, &ti, &ts, SL_REDUCE_SUM, 0, &to) == 0);
      for (int t = 0; t < M_SR; ++t)
        CHECK_MSG(from16(out[t]) == 8192.0f, "%s %s out[%d]=%g", v,
                  sl_dtype_name(dt), t, from16(out[t]));
      /* with x = 0 at t = 0: 8192 too (x = 1000 elsewhere: 9192 rounds) */
      CHECK(run_sr(v, &tx, &ti, &ts, SL_REDUCE_SUM, 1, &to) == 0);
      CHECK(from16(out[0]) == 8192.0f);
      CHECK(out[1] == to16(9192.0f));
    }
    for (int i = 0; i < N_SR; ++i) src[i] = to16((i / M_SR) % 2 ? 3.0f : 1.0f);
    FOR_EACH_STRATEGY(v) {
      CHECK(run_sr(v, &tx, &ti, &ts, SL_REDUCE_MEAN, 0, &to) == 0);
      for (int t = 0; t < M_SR; ++t) CHECK(from16(out[t]) == 2.0f);
    }
  }
}

/* cpu.sorted applies every destination's inputs in index order: bitwise
 * cpu.serial's float sum, whatever the thread count. */
static void test_sorted_is_serial(void) {
  static float x[M_SR], src[N_SR], a[M_SR], b[M_SR];
  static int64_t idx[N_SR];
  for (int t = 0; t < M_SR; ++t) x[t] = 0.1f * (float)t;
  for (int i = 0; i < N_SR; ++i) {
    idx[i] = (i * 7919) % M_SR;
    src[i] = 0.001f * (float)(i % 977) - 0.3f;
  }
  sl_tensor tx = sl_tensor_make(SL_F32, 1, SHAPE(M_SR), x);
  sl_tensor ti = sl_tensor_make(SL_I64, 1, SHAPE(N_SR), idx);
  sl_tensor ts = sl_tensor_make(SL_F32, 1, SHAPE(N_SR), src);
  sl_tensor ta = sl_tensor_make(SL_F32, 1, SHAPE(M_SR), a);
  sl_tensor tb = sl_tensor_make(SL_F32, 1, SHAPE(M_SR), b);
  CHECK(run_sr("cpu.serial", &tx, &ti, &ts, SL_REDUCE_SUM, 1, &ta) == 0);
  CHECK(run_sr("cpu.sorted", &tx, &ti, &ts, SL_REDUCE_SUM, 1, &tb) == 0);
  CHECK(memcmp(a, b, sizeof a) == 0);
  CHECK(run_sr("cpu.serial", &tx, &ti, &ts, SL_REDUCE_MEAN, 0, &ta) == 0);
  CHECK(run_sr("cpu.sorted", &tx, &ti, &ts, SL_REDUCE_MEAN, 0, &tb) == 0);
  CHECK(memcmp(a, b, sizeof a) == 0);
}

/* ------------------------------------------------------------------------ */
/* index_reduce: x [8,3], 20000 updates of rows, index[i] = i % 8,           */
/* updates[i][c] = 3i + c (exact in f32). Row t gets i = t + 8k,             */
/* k < 2500; the last is 19992 + t.                                          */
/* ------------------------------------------------------------------------ */
enum { N_IR = 20000 };

static void test_index_reduce_rows(void) {
  static float x[24], u[N_IR * 3], out[24];
  static int64_t idx[N_IR];
  for (int k = 0; k < 24; ++k) x[k] = -1.0f;
  for (int i = 0; i < N_IR; ++i) {
    idx[i] = i % 8;
    for (int c = 0; c < 3; ++c) u[i * 3 + c] = (float)(3 * i + c);
  }
  sl_call call;
  sl_call_init(&call, SL_OP_INDEX_REDUCE);
  call.arg[0] = sl_tensor_make(SL_F32, 2, SHAPE(8, 3), x);
  call.arg[1] = sl_tensor_make(SL_I64, 1, SHAPE(N_IR), idx);
  call.arg[2] = sl_tensor_make(SL_F32, 2, SHAPE(N_IR, 3), u);
  call.arg[3] = sl_tensor_make(SL_F32, 2, SHAPE(8, 3), out);
  call.p.dim = 0;
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  ctx.threads = 4;
  FOR_EACH_STRATEGY(v) {
    sl_call c = call;
    c.p.reduce = SL_REDUCE_AMAX;
    c.p.include_self = 0;
    CHECK(sl_run(&ctx, v, &c) == SL_STATUS_OK);
    for (int t = 0; t < 8; ++t)
      for (int ch = 0; ch < 3; ++ch)
        CHECK(out[t * 3 + ch] == (float)(3 * (19992 + t) + ch));
    c.p.reduce = SL_REDUCE_AMIN;
    CHECK(sl_run(&ctx, v, &c) == SL_STATUS_OK);
    for (int t = 0; t < 8; ++t)
      for (int ch = 0; ch < 3; ++ch) CHECK(out[t * 3 + ch] == 3 * t + ch);
    /* assign: atomic and sorted keep the last update of each row (19992 +
     * t); under locks any update may win, but a whole row comes from one
     * update (the row is written under its lock). */
    c.p.reduce = SL_REDUCE_ASSIGN;
    CHECK(sl_run(&ctx, v, &c) == SL_STATUS_OK);
    for (int t = 0; t < 8; ++t) {
      int i = (int)out[t * 3] / 3;
      CHECK(i % 8 == t && out[t * 3] == (float)(3 * i));
      CHECK(out[t * 3 + 1] == (float)(3 * i + 1));
      CHECK(out[t * 3 + 2] == (float)(3 * i + 2));
      if (strcmp(v, "cpu.lock") != 0) CHECK(i == 19992 + t);
    }
  }
  /* Sums: updates[i][c] = i % 4 + c, which for row t (i = t + 8k) is
   * t % 4 + c every time: 2500 (t % 4 + c), plus x = -1; mean with x
   * divides by 2501. Integers below 2^24: exact in any order. */
  for (int i = 0; i < N_IR; ++i)
    for (int c = 0; c < 3; ++c) u[i * 3 + c] = (float)(i % 4 + c);
  FOR_EACH_STRATEGY(v) {
    sl_call c = call;
    c.p.reduce = SL_REDUCE_SUM;
    c.p.include_self = 1;
    CHECK(sl_run(&ctx, v, &c) == SL_STATUS_OK);
    for (int t = 0; t < 8; ++t)
      for (int ch = 0; ch < 3; ++ch)
        CHECK(out[t * 3 + ch] == 2500.0f * (float)(t % 4 + ch) - 1.0f);
    c.p.reduce = SL_REDUCE_MEAN;
    CHECK(sl_run(&ctx, v, &c) == SL_STATUS_OK);
    for (int t = 0; t < 8; ++t)
      for (int ch = 0; ch < 3; ++ch)
        CHECK(out[t * 3 + ch] ==
              (float)((2500.0 * (t % 4 + ch) - 1.0) / 2501.0));
  }
}

/* ------------------------------------------------------------------------ */
/* scatter_nd: x [16], index [N,1] = i % 16, src = 1: 1 + N/16 each.         */
/* ------------------------------------------------------------------------ */
static void test_scatter_nd(void) {
  enum { N = 65536 };
  static float x[16], src[N], out[16];
  static uint16_t hx[16], hsrc[N], hout[16];
  static int64_t idx[N];
  for (int t = 0; t < 16; ++t) x[t] = 1.0f, hx[t] = sl_f32_to_bf16(1.0f);
  for (int i = 0; i < N; ++i) {
    idx[i] = i % 16;
    src[i] = 1.0f;
    hsrc[i] = sl_f32_to_bf16(1.0f);
  }
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  ctx.threads = 4;
  sl_call call;
  sl_call_init(&call, SL_OP_SCATTER_ND);
  call.arg[0] = sl_tensor_make(SL_F32, 1, SHAPE(16), x);
  call.arg[1] = sl_tensor_make(SL_I64, 2, SHAPE(N, 1), idx);
  call.arg[2] = sl_tensor_make(SL_F32, 1, SHAPE(N), src);
  call.arg[3] = sl_tensor_make(SL_F32, 1, SHAPE(16), out);
  call.p.reduce = SL_REDUCE_SUM;
  FOR_EACH_STRATEGY(v) {
    sl_call c = call;
    CHECK(sl_run(&ctx, v, &c) == SL_STATUS_OK);
    for (int t = 0; t < 16; ++t) CHECK(out[t] == 4097.0f);
    /* bf16: 4096 ones in f32 then x: 4097 rounds to 4096 in bf16 (8 bits
     * of mantissa) — but a bf16 accumulator would have stopped at 256. */
    c.arg[0] = sl_tensor_make(SL_BF16, 1, SHAPE(16), hx);
    c.arg[2] = sl_tensor_make(SL_BF16, 1, SHAPE(N), hsrc);
    c.arg[3] = sl_tensor_make(SL_BF16, 1, SHAPE(16), hout);
    CHECK(sl_run(&ctx, v, &c) == SL_STATUS_OK);
    for (int t = 0; t < 16; ++t) CHECK(sl_bf16_to_f32(hout[t]) == 4096.0f);
  }
  /* reduce none with src = position: atomic and sorted keep the last
   * position aimed at t (N - 16 + t); the lock variant some position
   * aimed at t. */
  for (int i = 0; i < N; ++i) src[i] = (float)i;
  FOR_EACH_STRATEGY(v) {
    sl_call c = call;
    c.p.reduce = SL_REDUCE_NONE;
    CHECK(sl_run(&ctx, v, &c) == SL_STATUS_OK);
    for (int t = 0; t < 16; ++t) {
      CHECK((int)out[t] % 16 == t);
      if (strcmp(v, "cpu.lock") != 0) CHECK(out[t] == (float)(N - 16 + t));
    }
  }
}

/* ------------------------------------------------------------------------ */
/* dynamic_scatter: N points, point i at (i % 5, 0, 0) except every 100th   */
/* point, which is dropped (-1, 0, 0). feats[i][c] = (i % 7) + c.            */
/* ------------------------------------------------------------------------ */
enum { N_DS = 20000, C_DS = 4 };

static void test_dynamic_scatter(void) {
  static float feats[N_DS * C_DS], vf[N_DS * C_DS];
  static int32_t coors[N_DS * 3], vc[N_DS * 3], map[N_DS], cnt[N_DS];
  for (int i = 0; i < N_DS; ++i) {
    coors[i * 3] = i % 100 == 0 ? -1 : i % 5;
    coors[i * 3 + 1] = coors[i * 3 + 2] = 0;
    for (int c = 0; c < C_DS; ++c) feats[i * C_DS + c] = (float)(i % 7 + c);
  }
  /* Voxel v = i % 5 holds the 4000 points with that residue, less the
   * multiples of 100 (all of residue 0): 3800 points for v = 0. The sums
   * and maxima by a direct loop over the points. */
  double sum[5][C_DS] = {{0}};
  int count[5] = {0};
  for (int i = 0; i < N_DS; ++i) {
    if (i % 100 == 0) continue;
    ++count[i % 5];
    for (int c = 0; c < C_DS; ++c) sum[i % 5][c] += i % 7 + c;
  }
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  ctx.threads = 4;
  FOR_EACH_STRATEGY(v) {
    for (int r = 0; r < 3; ++r) {
      sl_reduce red = r == 0   ? SL_REDUCE_SUM
                      : r == 1 ? SL_REDUCE_MEAN
                               : SL_REDUCE_MAX;
      sl_call c;
      sl_call_init(&c, SL_OP_DYNAMIC_SCATTER);
      c.arg[0] = sl_tensor_make(SL_F32, 2, SHAPE(N_DS, C_DS), feats);
      c.arg[1] = sl_tensor_make(SL_I32, 2, SHAPE(N_DS, 3), coors);
      c.arg[2] = sl_tensor_make(SL_F32, 2, SHAPE(N_DS, C_DS), vf);
      c.arg[3] = sl_tensor_make(SL_I32, 2, SHAPE(N_DS, 3), vc);
      c.arg[4] = sl_tensor_make(SL_I32, 1, SHAPE(N_DS), map);
      c.arg[5] = sl_tensor_make(SL_I32, 1, SHAPE(N_DS), cnt);
      c.p.reduce = red;
      CHECK(sl_run(&ctx, v, &c) == SL_STATUS_OK);
      CHECK(c.out_rows == 5);
      for (int k = 0; k < 5; ++k) {
        CHECK(vc[k * 3] == k && vc[k * 3 + 1] == 0 && cnt[k] == count[k]);
        for (int ch = 0; ch < C_DS; ++ch) {
          /* Every voxel has points of every residue mod 7: max 6 + c. The
           * sums are integers below 2^24: exact in any order. */
          double want = red == SL_REDUCE_MAX   ? 6 + ch
                        : red == SL_REDUCE_SUM ? sum[k][ch]
                                               : sum[k][ch] / count[k];
          CHECK_MSG(fabs(vf[k * C_DS + ch] - want) <= 1e-6 * want,
                    "%s %s voxel %d ch %d: %g, want %g", v, sl_reduce_name(red),
                    k, ch, vf[k * C_DS + ch], want);
        }
      }
      for (int i = 0; i < N_DS; ++i)
        CHECK(map[i] == (i % 100 == 0 ? -1 : i % 5));
    }
  }
}

/* ------------------------------------------------------------------------ */
/* dynamic_scatter_backward max: ties go to the smallest point index.        */
/* Point i belongs to voxel i % 5 (every 100th point dropped, map -1);       */
/* feats[i][c] = 10 when (i + c) % 3 == 0, else 1, so every voxel's max is   */
/* 10, tied among a third of its points. The smallest tied point:            */
/*   c = 0: i % 3 == 0 -> v0: 0 is dropped, next 15; v1: 6; v2: 12; v3: 3;   */
/*          v4: 9                                                            */
/*   c = 1: i % 3 == 2 -> v0: 5; v1: 11; v2: 2; v3: 8; v4: 14                */
/* ------------------------------------------------------------------------ */
static void test_dynamic_scatter_backward_ties(void) {
  enum { N = 20000, C = 2 };
  static float feats[N * C], gf[N * C];
  static int32_t map[N];
  float grad[5 * C], vfeats[5 * C];
  int32_t count[5] = {0};
  for (int i = 0; i < N; ++i) {
    map[i] = i % 100 == 0 ? -1 : i % 5;
    if (map[i] >= 0) ++count[map[i]];
    for (int c = 0; c < C; ++c) feats[i * C + c] = (i + c) % 3 == 0 ? 10 : 1;
  }
  for (int v = 0; v < 5; ++v)
    for (int c = 0; c < C; ++c) {
      grad[v * C + c] = (float)(10 * (v + 1) + c);
      vfeats[v * C + c] = 10;
    }
  const int first[C][5] = {{15, 6, 12, 3, 9}, {5, 11, 2, 8, 14}};
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  ctx.threads = 4;
  FOR_EACH_STRATEGY(v) {
    sl_call c;
    sl_call_init(&c, SL_OP_DYNAMIC_SCATTER_BACKWARD);
    c.arg[0] = sl_tensor_make(SL_F32, 2, SHAPE(5, C), grad);
    c.arg[1] = sl_tensor_make(SL_F32, 2, SHAPE(N, C), feats);
    c.arg[2] = sl_tensor_make(SL_F32, 2, SHAPE(5, C), vfeats);
    c.arg[3] = sl_tensor_make(SL_I32, 1, SHAPE(N), map);
    c.arg[4] = sl_tensor_make(SL_I32, 1, SHAPE(5), count);
    c.arg[5] = sl_tensor_make(SL_F32, 2, SHAPE(N, C), gf);
    c.p.reduce = SL_REDUCE_MAX;
    memset(gf, 0x5a, sizeof gf);
    CHECK(sl_run(&ctx, v, &c) == SL_STATUS_OK);
    int bad = 0;
    for (int i = 0; i < N; ++i)
      for (int ch = 0; ch < C; ++ch) {
        int vox = map[i];
        float want =
            vox >= 0 && first[ch][vox] == i ? grad[vox * C + ch] : 0.0f;
        bad += gf[i * C + ch] != want;
      }
    CHECK_MSG(bad == 0, "%s: %d gradients misplaced", v, bad);
    /* mean: every point of voxel v gets grad / count. */
    c.p.reduce = SL_REDUCE_MEAN;
    CHECK(sl_run(&ctx, v, &c) == SL_STATUS_OK);
    CHECK(gf[1 * C + 1] == grad[1 * C + 1] / (float)count[1]);
    CHECK(gf[0] == 0.0f && gf[100 * C] == 0.0f);
  }
}

/* The index check every variant relies on walks a strided index in
 * parallel chunks and still names the first bad position in row-major
 * order: index [300,300] stored column-major, bad values at [250,7] and
 * [120,299] (row-major positions 75007 and 36299). */
static void test_index_check_order(void) {
  enum { R = 300 };
  static float x[R * R], src[R * R], out[R * R];
  static int64_t mem[R * R];
  for (int k = 0; k < R * R; ++k) mem[k] = k % R, x[k] = src[k] = 1.0f;
  mem[7 * R + 250] = -5;  /* index[250][7] */
  mem[299 * R + 120] = R; /* index[120][299] */
  sl_tensor tx = sl_tensor_make(SL_F32, 2, SHAPE(R, R), x);
  sl_tensor ts = sl_tensor_make(SL_F32, 2, SHAPE(R, R), src);
  sl_tensor to = sl_tensor_make(SL_F32, 2, SHAPE(R, R), out);
  sl_tensor ti = sl_tensor_make(SL_I64, 2, SHAPE(R, R), mem);
  ti.strides[0] = 1;
  ti.strides[1] = R;
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  ctx.threads = 4;
  FOR_EACH_STRATEGY(v) {
    sl_status st =
        sl_scatter_reduce(&ctx, v, &tx, 0, &ti, &ts, SL_REDUCE_AMAX, 1, &to);
    CHECK(st == SL_STATUS_INDEX_OUT_OF_RANGE);
    CHECK_CONTAINS(ctx.msg, "index[120,299]=300");
  }
}

/* Only cpu.sorted promises bitwise repeatable results. */
static void test_flags(void) {
  const sl_op ops[] = {SL_OP_SCATTER_REDUCE, SL_OP_INDEX_REDUCE,
                       SL_OP_SCATTER_ND, SL_OP_DYNAMIC_SCATTER,
                       SL_OP_DYNAMIC_SCATTER_BACKWARD};
  for (size_t k = 0; k < sizeof ops / sizeof ops[0]; ++k) FOR_EACH_STRATEGY(v) {
      const sl_variant *row = sl_variant_find(ops[k], v);
      CHECK_MSG(row != NULL, "%s %s missing", sl_op_name(ops[k]), v);
      if (!row) continue;
      int det = (row->flags & SL_DETERMINISTIC) != 0;
      CHECK(det == (strcmp(v, "cpu.sorted") == 0));
    }
}

int main(void) {
  test_scatter_reduce_f32();
  test_nan_and_zeros();
  test_integers();
  test_half_accumulation();
  test_sorted_is_serial();
  test_index_reduce_rows();
  test_scatter_nd();
  test_dynamic_scatter();
  test_dynamic_scatter_backward_ties();
  test_index_check_order();
  test_flags();
  return sl_test_finish("test_conflict_variants");
}
