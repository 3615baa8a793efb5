/*
 * segment_reduce and segment_reduce_backward (PyTorch's
 * torch.segment_reduce, docs/spec.md §1) on every CPU variant of the table
 * (cpu.omp with 3 threads): docs/spec.md's example with and without
 * initial (LibTorch 2.11's outputs), a 2-D case by lengths (i64, i32) and
 * by offsets, strided data, columns after the axis, f16/bf16 sums that an
 * accumulator of their own width gets wrong, empty shapes, a case large
 * enough for cpu.atomic's threads, the backward of every reduce, and one
 * test per bad-input class (status and the argument in the message).
 * Expected values are computed by hand.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core_test.h"
#include "sl/sl.h"
#include "sl_test.h"

/* Forward on variant v: out poisoned first, 3 threads. */
static sl_status run_fwd(sl_ctx *ctx, const char *variant, const sl_tensor *d,
                         int64_t dim, const sl_tensor *len, int offsets,
                         sl_reduce r, int has_init, double init, sl_tensor *out,
                         size_t out_bytes) {
  sl_call c;
  sl_call_init(&c, SL_OP_SEGMENT_REDUCE);
  c.arg[0] = *d;
  c.arg[1] = *len;
  c.arg[2] = *out;
  c.p.dim = dim;
  c.segment.offsets = offsets;
  c.p.reduce = r;
  c.p.has_value = has_init;
  c.p.value = init;
  if (out_bytes) memset(out->data, 0x5a, out_bytes);
  ctx->threads = 3;
  return sl_run(ctx, variant, &c);
}

static sl_status run_bwd(sl_ctx *ctx, const char *variant, const sl_tensor *g,
                         const sl_tensor *d, int64_t dim, const sl_tensor *len,
                         int offsets, const sl_tensor *res, sl_reduce r,
                         int has_init, double init, sl_tensor *gd,
                         size_t gd_bytes) {
  sl_call c;
  sl_call_init(&c, SL_OP_SEGMENT_REDUCE_BACKWARD);
  c.arg[0] = *g;
  c.arg[1] = *d;
  c.arg[2] = *len;
  c.arg[3] = *res;
  c.arg[4] = *gd;
  c.p.dim = dim;
  c.segment.offsets = offsets;
  c.p.reduce = r;
  c.p.has_value = has_init;
  c.p.value = init;
  if (gd_bytes) memset(gd->data, 0x5a, gd_bytes);
  ctx->threads = 3;
  return sl_run(ctx, variant, &c);
}

/* Equal values, NaN matching NaN, and the sign of a zero. */
static int same(double got, double want) {
  if (isnan(want)) return isnan(got);
  return got == want && signbit(got) == signbit(want);
}

/* docs/spec.md: data [1,5,5,-2,0,3,NaN,2], lengths [2,0,3,3]. */
static void test_spec_example(void) {
  const double n = NAN, inf = INFINITY;
  struct {
    sl_reduce r;
    int has_init;
    double want[4];
  } cases[] = {
      {SL_REDUCE_SUM, 0, {6, 0, 3, n}},
      {SL_REDUCE_MEAN, 0, {3, n, 1, n}},
      {SL_REDUCE_AMAX, 0, {5, -inf, 5, n}},
      {SL_REDUCE_AMIN, 0, {1, inf, -2, n}},
      {SL_REDUCE_PROD, 0, {5, 1, -0.0, n}},
      {SL_REDUCE_SUM, 1, {13, 7, 10, n}},
      {SL_REDUCE_MEAN, 1, {6.5, 7, 10.0 / 3.0, n}},
      {SL_REDUCE_AMAX, 1, {7, 7, 7, n}},
      {SL_REDUCE_AMIN, 1, {1, 7, -2, n}},
      {SL_REDUCE_PROD, 1, {35, 7, -0.0, n}},
  };
  float df[8] = {1, 5, 5, -2, 0, 3, NAN, 2}, of[4];
  double dd[8] = {1, 5, 5, -2, 0, 3, NAN, 2}, od[4];
  int64_t len[4] = {2, 0, 3, 3};
  sl_tensor tl = sl_tensor_make(SL_I64, 1, (int64_t[]){4}, len);
  for (int f64 = 0; f64 < 2; ++f64) {
    sl_dtype dt = f64 ? SL_F64 : SL_F32;
    sl_tensor td =
        sl_tensor_make(dt, 1, (int64_t[]){8}, f64 ? (void *)dd : (void *)df);
    sl_tensor to =
        sl_tensor_make(dt, 1, (int64_t[]){4}, f64 ? (void *)od : (void *)of);
    FOR_EACH_VARIANT(SL_OP_SEGMENT_REDUCE, v) {
      for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        sl_ctx ctx;
        sl_ctx_init(&ctx);
        sl_status st =
            run_fwd(&ctx, v->name, &td, 0, &tl, 0, cases[k].r,
                    cases[k].has_init, 7.0, &to, f64 ? sizeof od : sizeof of);
        CHECK_MSG(st == SL_STATUS_OK, "%s: %s", v->name, ctx.msg);
        for (int i = 0; i < 4; ++i) {
          double got = f64 ? od[i] : of[i];
          double want = cases[k].want[i];
          if (!f64 && cases[k].r == SL_REDUCE_MEAN && i == 2 &&
              cases[k].has_init)
            want = 10.0f / 3.0f;
          CHECK_MSG(same(got, want), "%s %s %s init=%d out[%d]=%g want %g",
                    v->name, sl_dtype_name(dt), sl_reduce_name(cases[k].r),
                    cases[k].has_init, i, got, want);
        }
      }
    }
  }
}

/* data = arange(12) as 2x6, axis 1, lengths [[1,5],[3,3]]: sum [[0,15],
 * [21,30]]; the same by offsets [[0,1,6],[0,3,6]], by i32 lengths, with
 * dim -1, and with data transposed in memory. */
static void test_2d(void) {
  float d[12], dt_buf[12], out[4];
  for (int i = 0; i < 12; ++i) d[i] = (float)i;
  /* dt_buf is the 6x2 row-major transpose: dt_buf[i*2+q] = d[q*6+i]. */
  for (int q = 0; q < 2; ++q)
    for (int i = 0; i < 6; ++i) dt_buf[i * 2 + q] = d[q * 6 + i];
  int64_t len64[4] = {1, 5, 3, 3}, off64[6] = {0, 1, 6, 0, 3, 6};
  int32_t len32[4] = {1, 5, 3, 3}, off32[6] = {0, 1, 6, 0, 3, 6};
  sl_tensor td = sl_tensor_make(SL_F32, 2, (int64_t[]){2, 6}, d);
  sl_tensor tt = sl_tensor_make(SL_F32, 2, (int64_t[]){2, 6}, dt_buf);
  tt.strides[0] = 1;
  tt.strides[1] = 2;
  sl_tensor to = sl_tensor_make(SL_F32, 2, (int64_t[]){2, 2}, out);
  struct {
    const char *what;
    sl_tensor len;
    int offsets;
    int64_t dim;
    const sl_tensor *data;
  } forms[] = {
      {"i64 lengths", sl_tensor_make(SL_I64, 2, (int64_t[]){2, 2}, len64), 0, 1,
       &td},
      {"i32 lengths", sl_tensor_make(SL_I32, 2, (int64_t[]){2, 2}, len32), 0, 1,
       &td},
      {"i64 offsets", sl_tensor_make(SL_I64, 2, (int64_t[]){2, 3}, off64), 1, 1,
       &td},
      {"i32 offsets", sl_tensor_make(SL_I32, 2, (int64_t[]){2, 3}, off32), 1,
       -1, &td},
      {"transposed data", sl_tensor_make(SL_I64, 2, (int64_t[]){2, 2}, len64),
       0, -1, &tt},
  };
  const float want[4] = {0, 15, 21, 30};
  FOR_EACH_VARIANT(SL_OP_SEGMENT_REDUCE, v) {
    for (size_t k = 0; k < sizeof forms / sizeof forms[0]; ++k) {
      sl_ctx ctx;
      sl_ctx_init(&ctx);
      sl_status st =
          run_fwd(&ctx, v->name, forms[k].data, forms[k].dim, &forms[k].len,
                  forms[k].offsets, SL_REDUCE_SUM, 0, 0, &to, sizeof out);
      CHECK_MSG(st == SL_STATUS_OK, "%s %s: %s", v->name, forms[k].what,
                ctx.msg);
      for (int i = 0; i < 4; ++i)
        CHECK_MSG(out[i] == want[i], "%s %s: out[%d]=%g want %g", v->name,
                  forms[k].what, i, out[i], want[i]);
    }
  }
}

/* Columns after the axis, and a strided out: data = arange(12) as 6x2,
 * axis 0, lengths [2,4]: [[0+2, 1+3], [4+6+8+10, 5+7+9+11]] = [[2,4],[28,
 * 32]]; amax [[2,3],[10,11]]. out is written every other element. */
static void test_inner_columns(void) {
  float d[12], buf[8];
  for (int i = 0; i < 12; ++i) d[i] = (float)i;
  int64_t len[2] = {2, 4};
  sl_tensor td = sl_tensor_make(SL_F32, 2, (int64_t[]){6, 2}, d);
  sl_tensor tl = sl_tensor_make(SL_I64, 1, (int64_t[]){2}, len);
  sl_tensor to = sl_tensor_make(SL_F32, 2, (int64_t[]){2, 2}, buf);
  to.strides[0] = 4;
  to.strides[1] = 2;
  const float sum[4] = {2, 4, 28, 32}, amax[4] = {2, 3, 10, 11};
  FOR_EACH_VARIANT(SL_OP_SEGMENT_REDUCE, v) {
    for (int m = 0; m < 2; ++m) {
      sl_ctx ctx;
      sl_ctx_init(&ctx);
      for (int i = 0; i < 8; ++i) buf[i] = -7;
      sl_status st = run_fwd(&ctx, v->name, &td, 0, &tl, 0,
                             m ? SL_REDUCE_AMAX : SL_REDUCE_SUM, 0, 0, &to, 0);
      CHECK_MSG(st == SL_STATUS_OK, "%s: %s", v->name, ctx.msg);
      for (int i = 0; i < 4; ++i)
        CHECK_MSG(buf[(i / 2) * 4 + (i % 2) * 2] == (m ? amax : sum)[i],
                  "%s m=%d out[%d]=%g", v->name, m, i,
                  buf[(i / 2) * 4 + (i % 2) * 2]);
      for (int i = 0; i < 8; i += 2)
        CHECK_MSG(buf[i + 1] == -7, "%s: gap %d written", v->name, i + 1);
    }
  }
}

/* f16 and bf16 accumulate in f32: 4096 ones sum to 4096 (an f16
 * accumulator sticks at 2048, a bf16 one at 256); their mean is 1. */
static void test_half(void) {
  static uint16_t d[4096];
  int64_t len[1] = {4096};
  sl_tensor tl = sl_tensor_make(SL_I64, 1, (int64_t[]){1}, len);
  for (int h = 0; h < 2; ++h) {
    sl_dtype dt = h ? SL_BF16 : SL_F16;
    uint16_t one = h ? sl_f32_to_bf16(1.0f) : sl_f32_to_f16(1.0f), out;
    for (int i = 0; i < 4096; ++i) d[i] = one;
    sl_tensor td = sl_tensor_make(dt, 1, (int64_t[]){4096}, d);
    sl_tensor to = sl_tensor_make(dt, 1, (int64_t[]){1}, &out);
    FOR_EACH_VARIANT(SL_OP_SEGMENT_REDUCE, v) {
      for (int m = 0; m < 2; ++m) {
        sl_ctx ctx;
        sl_ctx_init(&ctx);
        sl_status st =
            run_fwd(&ctx, v->name, &td, 0, &tl, 0,
                    m ? SL_REDUCE_MEAN : SL_REDUCE_SUM, 0, 0, &to, sizeof out);
        CHECK_MSG(st == SL_STATUS_OK, "%s: %s", v->name, ctx.msg);
        float got = h ? sl_bf16_to_f32(out) : sl_f16_to_f32(out);
        CHECK_MSG(got == (m ? 1.0f : 4096.0f), "%s %s %s: got %g", v->name,
                  sl_dtype_name(dt), m ? "mean" : "sum", got);
      }
    }
  }
}

/* Empty shapes: data [3,0] with lengths [[0,0]]x3 (every segment empty:
 * sum 0, mean NaN, amax -inf); data [0] with lengths [0] (S = 0); data
 * [0,4] (no row). Nothing outside out is written. */
static void test_empty(void) {
  float d[1] = {0}, out[6];
  int64_t len[6] = {0, 0, 0, 0, 0, 0};
  sl_tensor td = sl_tensor_make(SL_F32, 2, (int64_t[]){3, 0}, d);
  sl_tensor tl = sl_tensor_make(SL_I64, 2, (int64_t[]){3, 2}, len);
  sl_tensor to = sl_tensor_make(SL_F32, 2, (int64_t[]){3, 2}, out);
  sl_tensor d0 = sl_tensor_make(SL_F32, 1, (int64_t[]){0}, NULL);
  sl_tensor l0 = sl_tensor_make(SL_I64, 1, (int64_t[]){0}, NULL);
  sl_tensor o0 = sl_tensor_make(SL_F32, 1, (int64_t[]){0}, NULL);
  sl_tensor dq = sl_tensor_make(SL_F32, 2, (int64_t[]){0, 4}, NULL);
  sl_tensor lq = sl_tensor_make(SL_I64, 2, (int64_t[]){0, 2}, NULL);
  sl_tensor oq = sl_tensor_make(SL_F32, 2, (int64_t[]){0, 2}, NULL);
  FOR_EACH_VARIANT(SL_OP_SEGMENT_REDUCE, v) {
    const sl_reduce rs[3] = {SL_REDUCE_SUM, SL_REDUCE_MEAN, SL_REDUCE_AMAX};
    const double want[3] = {0, NAN, -INFINITY};
    for (int k = 0; k < 3; ++k) {
      sl_ctx ctx;
      sl_ctx_init(&ctx);
      sl_status st =
          run_fwd(&ctx, v->name, &td, 1, &tl, 0, rs[k], 0, 0, &to, sizeof out);
      CHECK_MSG(st == SL_STATUS_OK, "%s: %s", v->name, ctx.msg);
      for (int i = 0; i < 6; ++i)
        CHECK_MSG(same(out[i], want[k]), "%s %s out[%d]=%g", v->name,
                  sl_reduce_name(rs[k]), i, out[i]);
      st = run_fwd(&ctx, v->name, &d0, 0, &l0, 0, rs[k], 0, 0, &o0, 0);
      CHECK_MSG(st == SL_STATUS_OK, "%s S=0: %s", v->name, ctx.msg);
      st = run_fwd(&ctx, v->name, &dq, 1, &lq, 0, rs[k], 0, 0, &oq, 0);
      CHECK_MSG(st == SL_STATUS_OK, "%s Q=0: %s", v->name, ctx.msg);
    }
  }
}

/* Large enough that cpu.omp and cpu.atomic start several threads: 3 rows
 * of 40000 positions, 2 columns, segments of lengths 0..9 cycling; small
 * integer values, so that every sum is exact in f32 in any order, and
 * amax/amin are exact. The expected values come from a plain loop. */
enum { BQ = 3, BN = 40000, BR = 2 };
static void test_large(void) {
  static float d[BQ * BN * BR], out[BQ * BN * BR], want[BQ * BN * BR];
  static int64_t len[BQ * BN];
  int64_t S = 0;
  for (int64_t left = BN, k = 0; left > 0; ++k, ++S) {
    int64_t l = k % 10 < left ? k % 10 : left;
    for (int q = 0; q < BQ; ++q) len[q * BN + S] = l;
    left -= l;
  }
  /* Row-wise lengths must all have S entries: len is [BQ, S] here. */
  static int64_t lens[BQ * BN];
  for (int q = 0; q < BQ; ++q)
    for (int64_t s = 0; s < S; ++s) lens[q * S + s] = len[q * BN + s];
  for (int64_t i = 0; i < BQ * BN * BR; ++i) d[i] = (float)((i * 7) % 13 - 6);
  sl_tensor td = sl_tensor_make(SL_F32, 3, (int64_t[]){BQ, BN, BR}, d);
  sl_tensor tl = sl_tensor_make(SL_I64, 2, (int64_t[]){BQ, S}, lens);
  sl_tensor to = sl_tensor_make(SL_F32, 3, (int64_t[]){BQ, S, BR}, out);
  const sl_reduce rs[3] = {SL_REDUCE_SUM, SL_REDUCE_AMAX, SL_REDUCE_AMIN};
  for (int k = 0; k < 3; ++k) {
    for (int q = 0; q < BQ; ++q) {
      int64_t i = 0;
      for (int64_t s = 0; s < S; ++s) {
        for (int r = 0; r < BR; ++r) {
          float a = rs[k] == SL_REDUCE_SUM    ? 0.0f
                    : rs[k] == SL_REDUCE_AMAX ? -INFINITY
                                              : INFINITY;
          for (int64_t j = i; j < i + lens[q * S + s]; ++j) {
            float x = d[(q * BN + j) * BR + r];
            a = rs[k] == SL_REDUCE_SUM    ? a + x
                : rs[k] == SL_REDUCE_AMAX ? (x > a ? x : a)
                                          : (x < a ? x : a);
          }
          want[(q * S + s) * BR + r] = a;
        }
        i += lens[q * S + s];
      }
    }
    FOR_EACH_VARIANT(SL_OP_SEGMENT_REDUCE, v) {
      sl_ctx ctx;
      sl_ctx_init(&ctx);
      sl_status st = run_fwd(&ctx, v->name, &td, 1, &tl, 0, rs[k], 0, 0, &to,
                             (size_t)(BQ * S * BR) * sizeof(float));
      CHECK_MSG(st == SL_STATUS_OK, "%s: %s", v->name, ctx.msg);
      int64_t bad = 0;
      for (int64_t e = 0; e < BQ * S * BR; ++e) bad += out[e] != want[e];
      CHECK_MSG(bad == 0, "%s %s: %lld wrong elements", v->name,
                sl_reduce_name(rs[k]), (long long)bad);
    }
  }
}

/* Backward: data [5,5,5,1,0,0,2,0,3], lengths [3,1,2,3], grad
 * [-3,2,4,-1]. LibTorch gives -3 to each tie of the first segment's amax
 * (it divides only positive gradients); ties share evenly here. */
static void test_backward(void) {
  const double t = -1.0 / 3.0;
  struct {
    sl_reduce r;
    double want[9];
  } cases[] = {
      {SL_REDUCE_AMAX, {-1, -1, -1, 2, 2, 2, 0, 0, -1}},
      {SL_REDUCE_AMIN, {-1, -1, -1, 2, 2, 2, 0, -1, 0}},
      {SL_REDUCE_PROD, {-75, -75, -75, 2, 0, 0, -0.0, -6, -0.0}},
      {SL_REDUCE_MEAN, {-1, -1, -1, 2, 2, 2, t, t, t}},
      {SL_REDUCE_SUM, {-3, -3, -3, 2, 4, 4, -1, -1, -1}},
  };
  const double data[9] = {5, 5, 5, 1, 0, 0, 2, 0, 3}, g[4] = {-3, 2, 4, -1};
  const double res[5][4] = {{5, 1, 0, 3},       /* amax */
                            {5, 1, 0, 0},       /* amin */
                            {125, 1, 0, 0},     /* prod */
                            {5, 1, 0, 5.0 / 3}, /* mean */
                            {15, 1, 0, 5}};     /* sum */
  int64_t len[4] = {3, 1, 2, 3};
  sl_tensor tl = sl_tensor_make(SL_I64, 1, (int64_t[]){4}, len);
  for (int f64 = 0; f64 < 2; ++f64) {
    sl_dtype dt = f64 ? SL_F64 : SL_F32;
    double dd[9], gd_d[4], rd[4], od[9];
    float df[9], gf[4], rf[4], of[9];
    for (int i = 0; i < 9; ++i) dd[i] = data[i], df[i] = (float)data[i];
    for (int i = 0; i < 4; ++i) gd_d[i] = g[i], gf[i] = (float)g[i];
    sl_tensor td =
        sl_tensor_make(dt, 1, (int64_t[]){9}, f64 ? (void *)dd : (void *)df);
    sl_tensor tg =
        sl_tensor_make(dt, 1, (int64_t[]){4}, f64 ? (void *)gd_d : (void *)gf);
    sl_tensor tr =
        sl_tensor_make(dt, 1, (int64_t[]){4}, f64 ? (void *)rd : (void *)rf);
    sl_tensor to =
        sl_tensor_make(dt, 1, (int64_t[]){9}, f64 ? (void *)od : (void *)of);
    FOR_EACH_VARIANT(SL_OP_SEGMENT_REDUCE_BACKWARD, v) {
      for (int k = 0; k < 5; ++k) {
        for (int i = 0; i < 4; ++i) rd[i] = res[k][i], rf[i] = (float)res[k][i];
        sl_ctx ctx;
        sl_ctx_init(&ctx);
        sl_status st =
            run_bwd(&ctx, v->name, &tg, &td, 0, &tl, 0, &tr, cases[k].r, 0, 0,
                    &to, f64 ? sizeof od : sizeof of);
        CHECK_MSG(st == SL_STATUS_OK, "%s: %s", v->name, ctx.msg);
        for (int i = 0; i < 9; ++i) {
          double got = f64 ? od[i] : of[i];
          double want = f64 ? cases[k].want[i] : (float)cases[k].want[i];
          CHECK_MSG(same(got, want), "%s %s %s grad[%d]=%g want %g", v->name,
                    sl_dtype_name(dt), sl_reduce_name(cases[k].r), i, got,
                    want);
        }
      }
    }
  }
}

/* Backward with initial 2 on data [5,5,5 | 1,4], lengths [3,2] (f64):
 * prod gives each position g * 2 * (the other values): [-150]x3 for
 * g = -3, and [2*4*1, 2*1*1] = [8, 2] for g = 1; amax with result [7, 7]
 * (initial 7 decided both) gives no gradient; a NaN result none either. */
static void test_backward_initial(void) {
  double d[5] = {5, 5, 5, 1, 4}, g[2] = {-3, 1}, res[2], out[5];
  int64_t len[2] = {3, 2};
  sl_tensor td = sl_tensor_make(SL_F64, 1, (int64_t[]){5}, d);
  sl_tensor tg = sl_tensor_make(SL_F64, 1, (int64_t[]){2}, g);
  sl_tensor tr = sl_tensor_make(SL_F64, 1, (int64_t[]){2}, res);
  sl_tensor tl = sl_tensor_make(SL_I64, 1, (int64_t[]){2}, len);
  sl_tensor to = sl_tensor_make(SL_F64, 1, (int64_t[]){5}, out);
  FOR_EACH_VARIANT(SL_OP_SEGMENT_REDUCE_BACKWARD, v) {
    sl_ctx ctx;
    sl_ctx_init(&ctx);
    res[0] = 250, res[1] = 8;
    sl_status st = run_bwd(&ctx, v->name, &tg, &td, 0, &tl, 0, &tr,
                           SL_REDUCE_PROD, 1, 2.0, &to, sizeof out);
    CHECK_MSG(st == SL_STATUS_OK, "%s: %s", v->name, ctx.msg);
    const double wp[5] = {-150, -150, -150, 8, 2};
    for (int i = 0; i < 5; ++i)
      CHECK_MSG(out[i] == wp[i], "%s prod grad[%d]=%g", v->name, i, out[i]);
    res[0] = 7, res[1] = NAN;
    d[3] = NAN;
    st = run_bwd(&ctx, v->name, &tg, &td, 0, &tl, 0, &tr, SL_REDUCE_AMAX, 1,
                 7.0, &to, sizeof out);
    d[3] = 1;
    CHECK_MSG(st == SL_STATUS_OK, "%s: %s", v->name, ctx.msg);
    for (int i = 0; i < 5; ++i)
      CHECK_MSG(same(out[i], 0.0), "%s amax grad[%d]=%g", v->name, i, out[i]);
    /* prod follows scatter_reduce's rule, g * P / x: with inf among the
     * values P is inf, so inf's own gradient is inf / inf = NaN and 2's is
     * inf (the product of the others would give 2 and inf); a NaN value
     * makes every gradient NaN. */
    d[0] = INFINITY, d[1] = 2, d[2] = 1, d[3] = NAN, d[4] = 4;
    res[0] = INFINITY, res[1] = NAN;
    g[0] = 1, g[1] = 1;
    st = run_bwd(&ctx, v->name, &tg, &td, 0, &tl, 0, &tr, SL_REDUCE_PROD, 0, 0,
                 &to, sizeof out);
    CHECK_MSG(st == SL_STATUS_OK, "%s: %s", v->name, ctx.msg);
    const double wi[5] = {NAN, INFINITY, INFINITY, NAN, NAN};
    for (int i = 0; i < 5; ++i)
      CHECK_MSG(same(out[i], wi[i]), "%s prod inf/NaN grad[%d]=%g", v->name, i,
                out[i]);
    d[0] = d[1] = d[2] = 5, d[3] = 1, d[4] = 4, g[0] = -3;
  }
}

/* Backward with columns after the axis and a strided grad_data: data =
 * arange(12) as 6x2, axis 0, lengths [2,4], grad [[1,2],[3,4]]. sum: rows
 * 0-1 get [1,2], rows 2-5 [3,4]; amax (result [[2,3],[10,11]]): rows 1
 * and 5 only. grad_data is written every other element. Then f16 mean:
 * g = 1 over 3 positions gives 1/3 rounded to f32, then once to f16. */
static void test_backward_columns(void) {
  float d[12], g[4] = {1, 2, 3, 4}, res[4] = {2, 3, 10, 11}, buf[24];
  for (int i = 0; i < 12; ++i) d[i] = (float)i;
  int64_t len[2] = {2, 4};
  sl_tensor td = sl_tensor_make(SL_F32, 2, (int64_t[]){6, 2}, d);
  sl_tensor tg = sl_tensor_make(SL_F32, 2, (int64_t[]){2, 2}, g);
  sl_tensor tr = sl_tensor_make(SL_F32, 2, (int64_t[]){2, 2}, res);
  sl_tensor tl = sl_tensor_make(SL_I64, 1, (int64_t[]){2}, len);
  sl_tensor to = sl_tensor_make(SL_F32, 2, (int64_t[]){6, 2}, buf);
  to.strides[0] = 4;
  to.strides[1] = 2;
  const float wsum[12] = {1, 2, 1, 2, 3, 4, 3, 4, 3, 4, 3, 4};
  const float wmax[12] = {0, 0, 1, 2, 0, 0, 0, 0, 0, 0, 3, 4};
  FOR_EACH_VARIANT(SL_OP_SEGMENT_REDUCE_BACKWARD, v) {
    for (int m = 0; m < 2; ++m) {
      sl_ctx ctx;
      sl_ctx_init(&ctx);
      for (int i = 0; i < 24; ++i) buf[i] = -7;
      sl_status st = run_bwd(&ctx, v->name, &tg, &td, 0, &tl, 0, &tr,
                             m ? SL_REDUCE_AMAX : SL_REDUCE_SUM, 0, 0, &to, 0);
      CHECK_MSG(st == SL_STATUS_OK, "%s: %s", v->name, ctx.msg);
      for (int i = 0; i < 12; ++i) {
        float got = buf[(i / 2) * 4 + (i % 2) * 2];
        CHECK_MSG(got == (m ? wmax : wsum)[i], "%s m=%d grad[%d]=%g", v->name,
                  m, i, got);
      }
      for (int i = 1; i < 24; i += 2)
        CHECK_MSG(buf[i] == -7, "%s: gap %d written", v->name, i);
    }
  }
  uint16_t hd[3], hg[1], hr[1], hout[3];
  for (int i = 0; i < 3; ++i) hd[i] = sl_f32_to_f16((float)i);
  hg[0] = sl_f32_to_f16(1.0f);
  hr[0] = sl_f32_to_f16(1.0f);
  int64_t hl[1] = {3};
  sl_tensor thd = sl_tensor_make(SL_F16, 1, (int64_t[]){3}, hd);
  sl_tensor thg = sl_tensor_make(SL_F16, 1, (int64_t[]){1}, hg);
  sl_tensor thr = sl_tensor_make(SL_F16, 1, (int64_t[]){1}, hr);
  sl_tensor thl = sl_tensor_make(SL_I64, 1, (int64_t[]){1}, hl);
  sl_tensor tho = sl_tensor_make(SL_F16, 1, (int64_t[]){3}, hout);
  const uint16_t third = sl_f32_to_f16(1.0f / 3.0f);
  FOR_EACH_VARIANT(SL_OP_SEGMENT_REDUCE_BACKWARD, v) {
    sl_ctx ctx;
    sl_ctx_init(&ctx);
    sl_status st = run_bwd(&ctx, v->name, &thg, &thd, 0, &thl, 0, &thr,
                           SL_REDUCE_MEAN, 0, 0, &tho, sizeof hout);
    CHECK_MSG(st == SL_STATUS_OK, "%s: %s", v->name, ctx.msg);
    for (int i = 0; i < 3; ++i)
      CHECK_MSG(hout[i] == third, "%s f16 mean grad[%d]=%#x want %#x", v->name,
                i, hout[i], third);
  }
}

static uint16_t to_half(sl_dtype dt, float f) {
  return dt == SL_BF16 ? sl_f32_to_bf16(f) : sl_f32_to_f16(f);
}

/* f16 and bf16 amax/amin backward over HC columns with an axis of extent 1
 * after them (data [4,HC,1], lengths [3,1] along axis 0; HC at least the
 * columns the half path takes): g / ties at the positions equal to the
 * result, 0 elsewhere, as float computes it. Column j holds 2 at position
 * i when (i + j) % 3 == 2, else 0, so segment 0's columns tie their
 * maximum once and their minimum twice or three times. */
enum { HC = 12 };
static void test_backward_half_ties(void) {
  for (int h = 0; h < 4; ++h) {
    const sl_dtype dt = h & 1 ? SL_BF16 : SL_F16;
    const sl_reduce r = h & 2 ? SL_REDUCE_AMIN : SL_REDUCE_AMAX;
    uint16_t d[4 * HC], g[2 * HC], res[2 * HC], out[4 * HC];
    float df[4 * HC], want[4 * HC];
    for (int i = 0; i < 4 * HC; ++i)
      df[i] = (i / HC + i % HC) % 3 == 2 ? 2.0f : 0.0f;
    for (int i = 0; i < 4 * HC; ++i) d[i] = to_half(dt, df[i]);
    int64_t len[2] = {3, 1};
    for (int s = 0; s < 2; ++s)
      for (int j = 0; j < HC; ++j) {
        const int b = s ? 3 : 0, e = s ? 4 : 3;
        float ext = df[b * HC + j], ties = 0;
        for (int i = b; i < e; ++i)
          ext = r == SL_REDUCE_AMAX ? fmaxf(ext, df[i * HC + j])
                                    : fminf(ext, df[i * HC + j]);
        for (int i = b; i < e; ++i) ties += df[i * HC + j] == ext;
        const float gv = (float)(1 + s * HC + j);
        g[s * HC + j] = to_half(dt, gv);
        res[s * HC + j] = to_half(dt, ext);
        for (int i = b; i < e; ++i)
          want[i * HC + j] = df[i * HC + j] == ext ? gv / ties : 0.0f;
      }
    sl_tensor td = sl_tensor_make(dt, 3, (int64_t[]){4, HC, 1}, d);
    sl_tensor tg = sl_tensor_make(dt, 3, (int64_t[]){2, HC, 1}, g);
    sl_tensor tr = sl_tensor_make(dt, 3, (int64_t[]){2, HC, 1}, res);
    sl_tensor tl = sl_tensor_make(SL_I64, 1, (int64_t[]){2}, len);
    sl_tensor to = sl_tensor_make(dt, 3, (int64_t[]){4, HC, 1}, out);
    FOR_EACH_VARIANT(SL_OP_SEGMENT_REDUCE_BACKWARD, v) {
      sl_ctx ctx;
      sl_ctx_init(&ctx);
      CHECK(run_bwd(&ctx, v->name, &tg, &td, 0, &tl, 0, &tr, r, 0, 0, &to,
                    sizeof out) == SL_STATUS_OK);
      for (int i = 0; i < 4 * HC; ++i)
        CHECK_MSG(out[i] == to_half(dt, want[i]),
                  "%s %s %s grad[%d]=%#x want %g", v->name, sl_dtype_name(dt),
                  sl_reduce_name(r), i, out[i], want[i]);
    }
  }
}

/* f16 and bf16 forward of every reduce over HC columns with an axis of
 * extent 2 after them, data [5, HC, 2] viewed with its last two axes
 * swapped (the columns HC-strided; at least the columns the half path
 * takes), lengths [2, 0, 3] along axis 0, with and without initial 3:
 * against plain float loops rounded to the dtype. Values are integers in
 * [-2, 2] (every sum and product exact), one NaN, which amax, amin and the
 * sums of its segment propagate. */
static float half_ref(sl_reduce r, float a, float b) {
  if (r == SL_REDUCE_SUM || r == SL_REDUCE_MEAN) return a + b;
  if (r == SL_REDUCE_PROD) return a * b;
  if (b != b) return b;
  return r == SL_REDUCE_AMAX ? (a < b ? b : a) : (b < a ? b : a);
}
static float half_start(sl_reduce r, int has_init) {
  if (has_init) return 3.0f;
  if (r == SL_REDUCE_PROD) return 1.0f;
  if (r == SL_REDUCE_AMAX) return -INFINITY;
  return r == SL_REDUCE_AMIN ? INFINITY : 0.0f;
}
static void check_half_columns(sl_dtype dt, sl_reduce r, int has_init) {
  enum { N = 5, C = 2 * HC };
  const int64_t len[3] = {2, 0, 3}, start[4] = {0, 2, 2, 5};
  float df[N * C];
  uint16_t d[N * C], out[3 * C];
  for (int i = 0; i < N * C; ++i) df[i] = (float)((i * 7 + i / C * 3) % 5 - 2);
  df[3 * C + 5] = NAN;
  for (int i = 0; i < N * C; ++i) d[i] = to_half(dt, df[i]);
  sl_tensor td = sl_tensor_make(dt, 3, (int64_t[]){N, HC, 2}, d);
  td.strides[1] = 1, td.strides[2] = HC; /* [5, 2, HC] with 1 and 2 swapped */
  sl_tensor tl = sl_tensor_make(SL_I64, 1, (int64_t[]){3}, (void *)len);
  sl_tensor to = sl_tensor_make(dt, 3, (int64_t[]){3, HC, 2}, out);
  FOR_EACH_VARIANT(SL_OP_SEGMENT_REDUCE, v) {
    sl_ctx ctx;
    sl_ctx_init(&ctx);
    CHECK_MSG(run_fwd(&ctx, v->name, &td, 0, &tl, 0, r, has_init, 3, &to,
                      sizeof out) == SL_STATUS_OK,
              "%s: %s", v->name, ctx.msg);
    for (int s = 0; s < 3; ++s)
      for (int k = 0; k < C; ++k) {        /* k: column (j, c) at j * 2 + c */
        const int at = k % 2 * HC + k / 2; /* its offset in a row of d */
        float want = half_start(r, has_init);
        for (int64_t i = start[s]; i < start[s + 1]; ++i)
          want = half_ref(r, want, df[i * C + at]);
        if (r == SL_REDUCE_MEAN)
          want = len[s] ? want / (float)len[s] : has_init ? 3.0f : NAN;
        const uint16_t got = out[s * C + k];
        const float g =
            dt == SL_BF16 ? sl_bf16_to_f32(got) : sl_f16_to_f32(got);
        CHECK_MSG(want != want ? g != g : got == to_half(dt, want),
                  "%s %s %s init %d: out[%d][%d] = %g, want %g", v->name,
                  sl_dtype_name(dt), sl_reduce_name(r), has_init, s, k, g,
                  want);
      }
  }
}

static void test_half_columns(void) {
  static const sl_reduce reduces[] = {SL_REDUCE_SUM, SL_REDUCE_MEAN,
                                      SL_REDUCE_PROD, SL_REDUCE_AMAX,
                                      SL_REDUCE_AMIN};
  for (int h = 0; h < 2; ++h)
    for (int k = 0; k < 5; ++k)
      for (int init = 0; init < 2; ++init)
        check_half_columns(h ? SL_BF16 : SL_F16, reduces[k], init);
}

/* Several rows and column blocks (R = 300 > 256 columns per task): data
 * [3, 20, 300] with row q's lengths [q, 0, 20 - 2q, q], axis 1; integer
 * values, so every sum is exact. Forward sum, then the backward of sum
 * (g copied) and mean (g / length), against plain loops. */
enum { MQ = 3, MN = 20, MR = 300, MS = 4 };
static void test_blocks(void) {
  static float d[MQ * MN * MR], out[MQ * MS * MR], g[MQ * MS * MR];
  static float gd[MQ * MN * MR];
  int64_t len[MQ * MS];
  for (int q = 0; q < MQ; ++q) {
    len[q * MS + 0] = q, len[q * MS + 1] = 0;
    len[q * MS + 2] = MN - 2 * q, len[q * MS + 3] = q;
  }
  for (int i = 0; i < MQ * MN * MR; ++i) d[i] = (float)(i % 17 - 8);
  for (int i = 0; i < MQ * MS * MR; ++i) g[i] = (float)(i % 5 + 1);
  sl_tensor td = sl_tensor_make(SL_F32, 3, (int64_t[]){MQ, MN, MR}, d);
  sl_tensor tl = sl_tensor_make(SL_I64, 2, (int64_t[]){MQ, MS}, len);
  sl_tensor to = sl_tensor_make(SL_F32, 3, (int64_t[]){MQ, MS, MR}, out);
  sl_tensor tg = sl_tensor_make(SL_F32, 3, (int64_t[]){MQ, MS, MR}, g);
  sl_tensor tgd = sl_tensor_make(SL_F32, 3, (int64_t[]){MQ, MN, MR}, gd);
  /* seg[q][i]: the segment of position i in row q. */
  int seg[MQ][MN];
  for (int q = 0; q < MQ; ++q)
    for (int s = 0, i = 0; s < MS; ++s)
      for (int64_t k = 0; k < len[q * MS + s]; ++k) seg[q][i++] = s;
  FOR_EACH_VARIANT(SL_OP_SEGMENT_REDUCE, v) {
    sl_ctx ctx;
    sl_ctx_init(&ctx);
    sl_status st = run_fwd(&ctx, v->name, &td, 1, &tl, 0, SL_REDUCE_SUM, 0, 0,
                           &to, sizeof out);
    CHECK_MSG(st == SL_STATUS_OK, "%s: %s", v->name, ctx.msg);
    int bad = 0;
    for (int q = 0; q < MQ; ++q)
      for (int s = 0; s < MS; ++s)
        for (int r = 0; r < MR; ++r) {
          float want = 0;
          for (int i = 0; i < MN; ++i)
            if (seg[q][i] == s) want += d[(q * MN + i) * MR + r];
          bad += out[(q * MS + s) * MR + r] != want;
        }
    CHECK_MSG(bad == 0, "%s: %d wrong sums", v->name, bad);
  }
  FOR_EACH_VARIANT(SL_OP_SEGMENT_REDUCE_BACKWARD, v) {
    for (int m = 0; m < 2; ++m) {
      sl_ctx ctx;
      sl_ctx_init(&ctx);
      sl_status st =
          run_bwd(&ctx, v->name, &tg, &td, 1, &tl, 0, &tg,
                  m ? SL_REDUCE_MEAN : SL_REDUCE_SUM, 0, 0, &tgd, sizeof gd);
      CHECK_MSG(st == SL_STATUS_OK, "%s: %s", v->name, ctx.msg);
      int bad = 0;
      for (int q = 0; q < MQ; ++q)
        for (int i = 0; i < MN; ++i)
          for (int r = 0; r < MR; ++r) {
            const int s = seg[q][i];
            float want = g[(q * MS + s) * MR + r];
            if (m) want /= (float)len[q * MS + s];
            bad += gd[(q * MN + i) * MR + r] != want;
          }
      CHECK_MSG(bad == 0, "%s %s: %d wrong gradients", v->name,
                m ? "mean" : "sum", bad);
    }
  }
}

/* Expects status `want` and `needle` in the message, for every variant. */
static void expect_fail(const char *what, sl_status want, const char *needle,
                        const sl_tensor *d, int64_t dim, const sl_tensor *len,
                        int offsets, sl_reduce r, int has_init, double init,
                        sl_tensor *out) {
  FOR_EACH_VARIANT(SL_OP_SEGMENT_REDUCE, v) {
    sl_ctx ctx;
    sl_ctx_init(&ctx);
    sl_status st =
        run_fwd(&ctx, v->name, d, dim, len, offsets, r, has_init, init, out, 0);
    CHECK_MSG(st == want, "%s on %s: got %s (%s), want %s", what, v->name,
              sl_status_name(st), ctx.msg, sl_status_name(want));
    CHECK_CONTAINS(ctx.msg, needle);
  }
}

static void test_bad_inputs(void) {
  float d[12] = {0}, out[12];
  int32_t di[12] = {0};
  int64_t good[4] = {1, 5, 3, 3}, neg[4] = {1, 5, -1, 7}, big[4] = {1, 5, 3, 4};
  int64_t small[4] = {1, 4, 3, 3};
  int64_t off_start[6] = {1, 1, 6, 0, 3, 6}, off_dec[6] = {0, 4, 3, 0, 3, 6};
  int64_t off_end[6] = {0, 1, 6, 0, 3, 5};
  float lf[4] = {1, 5, 3, 3};
  sl_tensor td = sl_tensor_make(SL_F32, 2, (int64_t[]){2, 6}, d);
  sl_tensor tdi = sl_tensor_make(SL_I32, 2, (int64_t[]){2, 6}, di);
  sl_tensor to = sl_tensor_make(SL_F32, 2, (int64_t[]){2, 2}, out);
  sl_tensor toi = sl_tensor_make(SL_I32, 2, (int64_t[]){2, 2}, out);
  sl_tensor to3 = sl_tensor_make(SL_F32, 2, (int64_t[]){2, 2}, out);
#define L2(a) sl_tensor_make(SL_I64, 2, (int64_t[]){2, 2}, a)
#define O2(a) sl_tensor_make(SL_I64, 2, (int64_t[]){2, 3}, a)
  sl_tensor lgood = L2(good), lneg = L2(neg), lbig = L2(big),
            lsmall = L2(small);
  sl_tensor lfl = sl_tensor_make(SL_F32, 2, (int64_t[]){2, 2}, lf);
  sl_tensor l1 = sl_tensor_make(SL_I64, 1, (int64_t[]){4}, good);
  sl_tensor lshape = sl_tensor_make(SL_I64, 2, (int64_t[]){1, 4}, good);
  sl_tensor ostart = O2(off_start), odec = O2(off_dec), oend = O2(off_end);
  const sl_status OOR = SL_STATUS_INDEX_OUT_OF_RANGE;
  expect_fail("float lengths", SL_STATUS_INDEX_DTYPE, "lengths", &td, 1, &lfl,
              0, SL_REDUCE_SUM, 0, 0, &to);
  expect_fail("integer data", SL_STATUS_UNSUPPORTED_DTYPE, "data", &tdi, 1,
              &lgood, 0, SL_REDUCE_SUM, 0, 0, &toi);
  expect_fail("lengths rank", SL_STATUS_RANK_MISMATCH,
              "lengths: expected rank 2 (axis 1 is lengths' last axis)", &td, 1,
              &l1, 0, SL_REDUCE_SUM, 0, 0, &to);
  expect_fail("lengths shape", SL_STATUS_SHAPE_MISMATCH, "lengths", &td, 1,
              &lshape, 0, SL_REDUCE_SUM, 0, 0, &to);
  expect_fail("negative length", OOR, "lengths[1,0] = -1", &td, 1, &lneg, 0,
              SL_REDUCE_SUM, 0, 0, &to);
  expect_fail("row sum too big", OOR,
              "lengths: expected row [1] to sum to data.size(1) = 6, got 7",
              &td, 1, &lbig, 0, SL_REDUCE_SUM, 0, 0, &to);
  expect_fail("row sum too small", OOR,
              "row [0] to sum to data.size(1) = 6, "
              "got 5",
              &td, 1, &lsmall, 0, SL_REDUCE_SUM, 0, 0, &to);
  expect_fail("offsets start", OOR, "offsets[0,0] = 0", &td, 1, &ostart, 1,
              SL_REDUCE_SUM, 0, 0, &to3);
  expect_fail("offsets decrease", OOR,
              "offsets[0,2] = 3 after offsets[0,1] = 4", &td, 1, &odec, 1,
              SL_REDUCE_SUM, 0, 0, &to3);
  expect_fail("offsets end", OOR, "offsets[1,2] = data.size(1) = 6", &td, 1,
              &oend, 1, SL_REDUCE_SUM, 0, 0, &to3);
  const sl_reduce unknown[3] = {SL_REDUCE_NONE, SL_REDUCE_ASSIGN,
                                SL_REDUCE_MAX};
  for (int k = 0; k < 3; ++k)
    expect_fail("reduce", SL_STATUS_UNKNOWN_REDUCE, "reduce", &td, 1, &lgood, 0,
                unknown[k], 0, 0, &to);
  float scalar = 1, sout = 0;
  int64_t l0[1] = {1};
  sl_tensor t0 = sl_tensor_make(SL_F32, 0, NULL, &scalar);
  sl_tensor tl0 = sl_tensor_make(SL_I64, 1, (int64_t[]){1}, l0);
  sl_tensor to0 = sl_tensor_make(SL_F32, 0, NULL, &sout);
  expect_fail("0-D data", SL_STATUS_RANK_MISMATCH, "data", &t0, 0, &tl0, 0,
              SL_REDUCE_SUM, 0, 0, &to0);
  expect_fail("dim", SL_STATUS_DIM_OUT_OF_RANGE, "dim", &td, 2, &lgood, 0,
              SL_REDUCE_SUM, 0, 0, &to);
  uint16_t h[12] = {0}, ho[4];
  sl_tensor th = sl_tensor_make(SL_F16, 2, (int64_t[]){2, 6}, h);
  sl_tensor tho = sl_tensor_make(SL_F16, 2, (int64_t[]){2, 2}, ho);
  expect_fail("initial beyond f16", SL_STATUS_INVALID_ARGUMENT, "initial", &th,
              1, &lgood, 0, SL_REDUCE_SUM, 1, 1e6, &tho);
  /* sl_infer_shapes leaves the values to the variant. */
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  sl_call c;
  sl_call_init(&c, SL_OP_SEGMENT_REDUCE);
  c.arg[0] = td;
  c.arg[1] = lbig;
  c.p.dim = 1;
  c.p.reduce = SL_REDUCE_SUM;
  CHECK(sl_infer_shapes(&ctx, &c) == SL_STATUS_OK);
  CHECK(c.arg[2].ndim == 2 && c.arg[2].shape[0] == 2 && c.arg[2].shape[1] == 2);
  CHECK(sl_infer(&ctx, &c) == OOR);
  /* The backward: grad_out and result of out's shape and data's dtype. */
  float g[4] = {0}, gbad[6] = {0}, gd[12];
  double rbad[4] = {0};
  sl_tensor tg = sl_tensor_make(SL_F32, 2, (int64_t[]){2, 2}, g);
  sl_tensor tgbad = sl_tensor_make(SL_F32, 2, (int64_t[]){2, 3}, gbad);
  sl_tensor trbad = sl_tensor_make(SL_F64, 2, (int64_t[]){2, 2}, rbad);
  sl_tensor tgd = sl_tensor_make(SL_F32, 2, (int64_t[]){2, 6}, gd);
  FOR_EACH_VARIANT(SL_OP_SEGMENT_REDUCE_BACKWARD, v) {
    sl_status st = run_bwd(&ctx, v->name, &tgbad, &td, 1, &lgood, 0, &tg,
                           SL_REDUCE_SUM, 0, 0, &tgd, 0);
    CHECK(st == SL_STATUS_SHAPE_MISMATCH);
    CHECK_CONTAINS(ctx.msg, "grad_out");
    st = run_bwd(&ctx, v->name, &tg, &td, 1, &lgood, 0, &trbad, SL_REDUCE_SUM,
                 0, 0, &tgd, 0);
    CHECK(st == SL_STATUS_UNSUPPORTED_DTYPE);
    CHECK_CONTAINS(ctx.msg, "result");
    st = run_bwd(&ctx, v->name, &tg, &td, 1, &lneg, 0, &tg, SL_REDUCE_SUM, 0, 0,
                 &tgd, 0);
    CHECK(st == OOR);
    CHECK_CONTAINS(ctx.msg, "lengths");
  }
#undef L2
#undef O2
}

/* A long row of lengths, every 3rd element of a buffer (strided): the
 * sums against a loop, then a negative length and a wrong sum near the
 * end, and two lengths past INT64_MAX / 2 (the sum saturates, no
 * overflow). */
#define LS 100003
static void test_long_lengths(void) {
  static int64_t buf[3 * LS];
  static float d[2 * LS], out[LS], want[LS];
  int64_t n = 0;
  for (int64_t k = 0; k < LS; ++k) n += buf[3 * k] = k % 5;
  for (int64_t i = 0; i < n; ++i) d[i] = (float)((i * 7) % 13 - 6);
  for (int64_t k = 0, i = 0; k < LS; i += buf[3 * k++]) {
    want[k] = 0;
    for (int64_t j = i; j < i + buf[3 * k]; ++j) want[k] += d[j];
  }
  sl_tensor td = sl_tensor_make(SL_F32, 1, (int64_t[]){n}, d);
  sl_tensor tl = sl_tensor_make(SL_I64, 1, (int64_t[]){LS}, buf);
  tl.strides[0] = 3;
  sl_tensor to = sl_tensor_make(SL_F32, 1, (int64_t[]){LS}, out);
  FOR_EACH_VARIANT(SL_OP_SEGMENT_REDUCE, v) {
    sl_ctx ctx;
    sl_ctx_init(&ctx);
    sl_status st = run_fwd(&ctx, v->name, &td, 0, &tl, 0, SL_REDUCE_SUM, 0, 0,
                           &to, sizeof out);
    CHECK_MSG(st == SL_STATUS_OK, "%s: %s", v->name, ctx.msg);
    int64_t bad = 0;
    for (int64_t k = 0; k < LS; ++k) bad += out[k] != want[k];
    CHECK_MSG(bad == 0, "%s: %lld wrong sums", v->name, (long long)bad);
  }
  const sl_status OOR = SL_STATUS_INDEX_OUT_OF_RANGE;
  buf[3 * (LS - 10)] = -1;
  expect_fail("negative length, last chunk", OOR, "lengths[99993] = -1", &td, 0,
              &tl, 0, SL_REDUCE_SUM, 0, 0, &to);
  buf[3 * (LS - 10)] = (LS - 10) % 5 + 1;
  char msg[96];
  snprintf(msg, sizeof msg, "sum to data.size(0) = %lld, got %lld",
           (long long)n, (long long)n + 1);
  expect_fail("sum one too big", OOR, msg, &td, 0, &tl, 0, SL_REDUCE_SUM, 0, 0,
              &to);
  buf[3] = buf[3 * (LS - 1)] = INT64_MAX / 2 + 1;
  expect_fail("sum past INT64_MAX", OOR, "got 9223372036854775807", &td, 0, &tl,
              0, SL_REDUCE_SUM, 0, 0, &to);
}
#undef LS

/* The typed entry points, once each. */
static void test_typed(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  float d[5] = {1, 2, 3, 4, 5}, out[2], g[2] = {1, 2}, gd[5];
  int64_t len[2] = {2, 3};
  sl_tensor td = sl_tensor_make(SL_F32, 1, (int64_t[]){5}, d);
  sl_tensor tl = sl_tensor_make(SL_I64, 1, (int64_t[]){2}, len);
  sl_tensor to = sl_tensor_make(SL_F32, 1, (int64_t[]){2}, out);
  CHECK(sl_segment_reduce(&ctx, "cpu.serial", &td, 0, &tl, 0, SL_REDUCE_SUM, 1,
                          10.0, &to) == SL_STATUS_OK);
  CHECK(out[0] == 13 && out[1] == 22);
  sl_tensor tg = sl_tensor_make(SL_F32, 1, (int64_t[]){2}, g);
  sl_tensor tgd = sl_tensor_make(SL_F32, 1, (int64_t[]){5}, gd);
  CHECK(sl_segment_reduce_backward(&ctx, "cpu.omp", &tg, &td, 0, &tl, 0, &to,
                                   SL_REDUCE_MEAN, 1, 10.0,
                                   &tgd) == SL_STATUS_OK);
  const float want[5] = {0.5f, 0.5f, 2.0f / 3, 2.0f / 3, 2.0f / 3};
  for (int i = 0; i < 5; ++i) CHECK(gd[i] == want[i]);
  CHECK(sl_segment_reduce(&ctx, "cpu.serial", &td, 0, NULL, 0, SL_REDUCE_SUM, 0,
                          0, &to) == SL_STATUS_NULL_POINTER);
  CHECK_CONTAINS(ctx.msg, "lengths");
}

int main(void) {
  test_spec_example();
  test_2d();
  test_inner_columns();
  test_half();
  test_empty();
  test_large();
  test_backward();
  test_backward_initial();
  test_backward_columns();
  test_backward_half_ties();
  test_half_columns();
  test_blocks();
  test_bad_inputs();
  test_long_lengths();
  test_typed();
  return sl_test_finish("test_segment_reduce");
}
