/*
 * scatter_reduce_backward and index_reduce_backward on every CPU variant of
 * the table, against gradients computed by hand (each also checked against
 * LibTorch 1.13 autograd: x.requires_grad_(), src.requires_grad_(),
 * y.backward(g)): the single-zero rule of prod, amax/amin ties shared
 * evenly (x counted even when left out, as 1.13 does), mean counts, NaN and
 * inf as the literal formulas give them, assign's duplicates, the 0-D
 * index, bf16 rounding, strides, and the bad-input statuses.
 */
#include "thread_starts.h" /* first: it defines _GNU_SOURCE */

#include <math.h>
#include <stdint.h>

#include "core_test.h"
#include "sl/sl.h"
#include "sl_test.h"

static int same_f(double a, double b) {
  if (isnan(a) || isnan(b)) return isnan(a) && isnan(b);
  return a == b;
}

/* Runs a backward op: slots grad_out x index src result | grad_x grad_src.
 * Outputs are poisoned first when their byte counts are given. */
static sl_status run_bw(sl_ctx *ctx, const char *variant, sl_op op,
                        const sl_tensor *g, const sl_tensor *x,
                        const sl_tensor *index, const sl_tensor *src,
                        const sl_tensor *res, sl_tensor *gx, size_t gx_bytes,
                        sl_tensor *gs, size_t gs_bytes, int64_t dim,
                        sl_reduce r, int self) {
  sl_call c;
  sl_call_init(&c, op);
  c.arg[0] = *g;
  c.arg[1] = *x;
  c.arg[2] = *index;
  c.arg[3] = *src;
  c.arg[4] = *res;
  c.arg[5] = *gx;
  c.arg[6] = *gs;
  c.p.dim = dim;
  c.p.reduce = r;
  c.p.include_self = self;
  if (gx_bytes) memset(gx->data, 0x5a, gx_bytes);
  if (gs_bytes) memset(gs->data, 0x5a, gs_bytes);
  ctx->threads = 3;
  return sl_run(ctx, variant, &c);
}

#define CHECK_ARR(got, want, n, what)                                          \
  do {                                                                         \
    for (int k_ = 0; k_ < (n); ++k_)                                           \
      CHECK_MSG(same_f((got)[k_], (want)[k_]), "%s: %s[%d] = %g, want %g",     \
                v->name, what, k_, (double)(got)[k_], (double)(want)[k_]);     \
  } while (0)

/* The six tensors of a 2-D backward call of dtype dt: grad_out, x,
 * result and grad_x of shape xs, src and grad_src of shape us. */
typedef struct bw_set {
  sl_tensor g, x, res, src, gx, gs;
} bw_set;
static bw_set bw_make(sl_dtype dt, const int64_t *xs, const int64_t *us,
                      void *g, void *x, void *res, void *src, void *gx,
                      void *gs) {
  return (bw_set){
      sl_tensor_make(dt, 2, xs, g),   sl_tensor_make(dt, 2, xs, x),
      sl_tensor_make(dt, 2, xs, res), sl_tensor_make(dt, 2, us, src),
      sl_tensor_make(dt, 2, xs, gx),  sl_tensor_make(dt, 2, us, gs)};
}

/* x=[2,3,4,5], index=[0,0,1,1,1,2], src=[0,5,0,0,7,6], g=[1,2,3,4]. */
static void test_scatter_1d(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  float x[4] = {2, 3, 4, 5}, src[6] = {0, 5, 0, 0, 7, 6}, g[4] = {1, 2, 3, 4};
  int64_t idx[6] = {0, 0, 1, 1, 1, 2};
  float res[4], gx[4], gs[6];
  sl_tensor tg = sl_tensor_make(SL_F32, 1, (int64_t[]){4}, g);
  sl_tensor tx = sl_tensor_make(SL_F32, 1, (int64_t[]){4}, x);
  sl_tensor ti = sl_tensor_make(SL_I64, 1, (int64_t[]){6}, idx);
  sl_tensor ts = sl_tensor_make(SL_F32, 1, (int64_t[]){6}, src);
  sl_tensor tr = sl_tensor_make(SL_F32, 1, (int64_t[]){4}, res);
  sl_tensor tgx = sl_tensor_make(SL_F32, 1, (int64_t[]){4}, gx);
  sl_tensor tgs = sl_tensor_make(SL_F32, 1, (int64_t[]){6}, gs);
  struct {
    sl_reduce r;
    int self;
    float res[4], gx[4], gs[6];
  } cases[] = {
      /* sum: grad_x = g (0 where targeted without x); grad_src = g[t] */
      {SL_REDUCE_SUM, 1, {7, 10, 10, 5}, {1, 2, 3, 4}, {1, 1, 2, 2, 2, 3}},
      {SL_REDUCE_SUM, 0, {5, 7, 6, 5}, {0, 0, 0, 4}, {1, 1, 2, 2, 2, 3}},
      /* prod: position 0 has one zero src: its gradient is g * 2 * 5 = 10
       * (x included) or g * 5 (left out); position 1 has two zeros: all 0;
       * position 2: g * 24 / 4 = 18 for x, g * 24 / 6 = 12 for src */
      {SL_REDUCE_PROD, 1, {0, 0, 24, 5}, {0, 0, 18, 4}, {10, 0, 0, 0, 0, 12}},
      {SL_REDUCE_PROD, 0, {0, 0, 6, 5}, {0, 0, 0, 4}, {5, 0, 0, 0, 0, 3}},
      /* mean: N = [3,4,2,1] with x, [2,3,1,0->1] without */
      {SL_REDUCE_MEAN,
       1,
       {7.0f / 3, 2.5f, 5, 5},
       {1.0f / 3, 0.5f, 1.5f, 4},
       {1.0f / 3, 1.0f / 3, 0.5f, 0.5f, 0.5f, 1.5f}},
      {SL_REDUCE_MEAN,
       0,
       {2.5f, 7.0f / 3, 6, 5},
       {0, 0, 0, 4},
       {0.5f, 0.5f, 2.0f / 3, 2.0f / 3, 2.0f / 3, 3}},
      /* amax: one winner per position */
      {SL_REDUCE_AMAX, 1, {5, 7, 6, 5}, {0, 0, 0, 4}, {0, 1, 0, 0, 2, 3}},
      /* amin: the two zeros at position 1 share g = 2; x = 4 wins pos. 2 */
      {SL_REDUCE_AMIN, 1, {0, 0, 4, 5}, {0, 0, 3, 4}, {1, 0, 1, 1, 0, 0}},
      {SL_REDUCE_AMIN, 0, {0, 0, 6, 5}, {0, 0, 0, 4}, {1, 0, 1, 1, 0, 3}},
  };
  int ran = 0;
  FOR_EACH_VARIANT(SL_OP_SCATTER_REDUCE_BACKWARD, v) {
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
      memcpy(res, cases[c].res, sizeof res);
      CHECK(run_bw(&ctx, v->name, SL_OP_SCATTER_REDUCE_BACKWARD, &tg, &tx, &ti,
                   &ts, &tr, &tgx, sizeof gx, &tgs, sizeof gs, 0, cases[c].r,
                   cases[c].self) == SL_STATUS_OK);
      CHECK_ARR(gx, cases[c].gx, 4, sl_reduce_name(cases[c].r));
      CHECK_ARR(gs, cases[c].gs, 6, sl_reduce_name(cases[c].r));
    }
    ++ran;
  }
  CHECK(ran == 2);
}

/* Ties: x=[1,5,2,9], index=[0,0,1,2,2], src=[3,3,5,2,1], g=[1,2,3,4]. */
static void test_scatter_ties(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  float x[4] = {1, 5, 2, 9}, src[5] = {3, 3, 5, 2, 1}, g[4] = {1, 2, 3, 4};
  int32_t idx[5] = {0, 0, 1, 2, 2};
  float res[4], gx[4], gs[5];
  sl_tensor tg = sl_tensor_make(SL_F32, 1, (int64_t[]){4}, g);
  sl_tensor tx = sl_tensor_make(SL_F32, 1, (int64_t[]){4}, x);
  sl_tensor ti = sl_tensor_make(SL_I32, 1, (int64_t[]){5}, idx);
  sl_tensor ts = sl_tensor_make(SL_F32, 1, (int64_t[]){5}, src);
  sl_tensor tr = sl_tensor_make(SL_F32, 1, (int64_t[]){4}, res);
  sl_tensor tgx = sl_tensor_make(SL_F32, 1, (int64_t[]){4}, gx);
  sl_tensor tgs = sl_tensor_make(SL_F32, 1, (int64_t[]){5}, gs);
  struct {
    sl_reduce r;
    int self;
    float res[4], gx[4], gs[5];
  } cases[] = {
      /* position 0: two srcs of 3 share g=1; position 1: x and src 5 share
       * g=2; position 2: x and src 2 share g=3 */
      {SL_REDUCE_AMAX,
       1,
       {3, 5, 2, 9},
       {0, 1, 1.5f, 4},
       {0.5f, 0.5f, 1, 1.5f, 0}},
      /* x left out still counts in the share (LibTorch 1.13), but its part
       * is dropped: src 5 gets 2/2 = 1, src 2 gets 3/2 */
      {SL_REDUCE_AMAX, 0, {3, 5, 2, 9}, {0, 0, 0, 4}, {0.5f, 0.5f, 1, 1.5f, 0}},
      {SL_REDUCE_AMIN, 0, {3, 5, 1, 9}, {0, 0, 0, 4}, {0.5f, 0.5f, 1, 0, 3}},
      /* mean without x: N = [2,1,2,1] */
      {SL_REDUCE_MEAN,
       0,
       {3, 5, 1.5f, 9},
       {0, 0, 0, 4},
       {0.5f, 0.5f, 2, 1.5f, 1.5f}},
  };
  FOR_EACH_VARIANT(SL_OP_SCATTER_REDUCE_BACKWARD, v) {
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
      memcpy(res, cases[c].res, sizeof res);
      CHECK(run_bw(&ctx, v->name, SL_OP_SCATTER_REDUCE_BACKWARD, &tg, &tx, &ti,
                   &ts, &tr, &tgx, sizeof gx, &tgs, sizeof gs, -1, cases[c].r,
                   cases[c].self) == SL_STATUS_OK);
      CHECK_ARR(gx, cases[c].gx, 4, sl_reduce_name(cases[c].r));
      CHECK_ARR(gs, cases[c].gs, 5, sl_reduce_name(cases[c].r));
    }
  }
}

/* NaN and inf follow the literal formulas: x=[1,NaN,2,inf,0],
 * index=[0,0,1,2,3], src=[NaN,3,5,inf,2], g=[1,2,3,4,5], include_self. */
static void test_scatter_nan_inf(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  const float inf = INFINITY, nan = NAN;
  float x[5] = {1, nan, 2, inf, 0}, src[5] = {nan, 3, 5, inf, 2};
  float g[5] = {1, 2, 3, 4, 5}, res[5], gx[5], gs[5];
  int64_t idx[5] = {0, 0, 1, 2, 3};
  sl_tensor tg = sl_tensor_make(SL_F32, 1, (int64_t[]){5}, g);
  sl_tensor tx = sl_tensor_make(SL_F32, 1, (int64_t[]){5}, x);
  sl_tensor ti = sl_tensor_make(SL_I64, 1, (int64_t[]){5}, idx);
  sl_tensor ts = sl_tensor_make(SL_F32, 1, (int64_t[]){5}, src);
  sl_tensor tr = sl_tensor_make(SL_F32, 1, (int64_t[]){5}, res);
  sl_tensor tgx = sl_tensor_make(SL_F32, 1, (int64_t[]){5}, gx);
  sl_tensor tgs = sl_tensor_make(SL_F32, 1, (int64_t[]){5}, gs);
  /* prod: result [NaN, NaN, inf, inf, 0]. grad_x: NaN products; 3*inf/2 =
   * inf; 4*inf/inf = NaN; x=0 untargeted: 5*1/1. grad_src: g*NaN/.. = NaN;
   * 3*inf/inf = NaN; 4*inf/2 = inf. */
  const float pres[5] = {nan, nan, inf, inf, 0};
  const float pgx[5] = {nan, nan, inf, nan, 5},
              pgs[5] = {nan, nan, nan, nan, inf};
  /* amax: result [NaN, NaN, inf, inf, 0]; a NaN result equals nothing, so
   * N = 0 and g/0 = inf, times 0 = NaN; position 2: src inf alone (3);
   * position 3: x inf alone (4). */
  const float agx[5] = {nan, nan, 0, 4, 5}, ags[5] = {nan, nan, nan, 3, 0};
  FOR_EACH_VARIANT(SL_OP_SCATTER_REDUCE_BACKWARD, v) {
    memcpy(res, pres, sizeof res);
    CHECK(run_bw(&ctx, v->name, SL_OP_SCATTER_REDUCE_BACKWARD, &tg, &tx, &ti,
                 &ts, &tr, &tgx, sizeof gx, &tgs, sizeof gs, 0, SL_REDUCE_PROD,
                 1) == SL_STATUS_OK);
    CHECK_ARR(gx, pgx, 5, "prod gx");
    CHECK_ARR(gs, pgs, 5, "prod gs");
    CHECK(run_bw(&ctx, v->name, SL_OP_SCATTER_REDUCE_BACKWARD, &tg, &tx, &ti,
                 &ts, &tr, &tgx, sizeof gx, &tgs, sizeof gs, 0, SL_REDUCE_AMAX,
                 1) == SL_STATUS_OK);
    CHECK_ARR(gx, agx, 5, "amax gx");
    CHECK_ARR(gs, ags, 5, "amax gs");
  }
}

/* 2-D, dim 1, index narrower than x in dim 0 (row 1 untargeted), a
 * transposed x and a stepped grad_out; f64. */
static void test_scatter_2d_strides(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  /* x = [[1,2,3],[4,5,6]] stored transposed; g = [[1,2,3],[4,5,6]] stored
   * with a step of 2 */
  double xb[6] = {1, 4, 2, 5, 3, 6}, gb[12] = {0}, src[2] = {7, 8};
  for (int i = 0; i < 6; ++i) gb[2 * i] = i + 1;
  double res[6] = {1, 2, 3, 4, 5, 6}, gx[6], gs[2];
  int64_t idx[2] = {2, 2};
  sl_tensor tx = sl_tensor_make(SL_F64, 2, (int64_t[]){2, 3}, xb);
  tx.strides[0] = 1;
  tx.strides[1] = 2;
  sl_tensor tg = sl_tensor_make(SL_F64, 2, (int64_t[]){2, 3}, gb);
  tg.strides[0] = 6;
  tg.strides[1] = 2;
  sl_tensor ti = sl_tensor_make(SL_I64, 2, (int64_t[]){1, 2}, idx);
  sl_tensor ts = sl_tensor_make(SL_F64, 2, (int64_t[]){1, 2}, src);
  sl_tensor tr = sl_tensor_make(SL_F64, 2, (int64_t[]){2, 3}, res);
  sl_tensor tgx = sl_tensor_make(SL_F64, 2, (int64_t[]){2, 3}, gx);
  sl_tensor tgs = sl_tensor_make(SL_F64, 2, (int64_t[]){1, 2}, gs);
  const double gx0[6] = {1, 2, 0, 4, 5, 6};
  const double r_prod = 56, r_amax = 8;
  FOR_EACH_VARIANT(SL_OP_SCATTER_REDUCE_BACKWARD, v) {
    res[2] = 15;
    CHECK(run_bw(&ctx, v->name, SL_OP_SCATTER_REDUCE_BACKWARD, &tg, &tx, &ti,
                 &ts, &tr, &tgx, sizeof gx, &tgs, sizeof gs, 1, SL_REDUCE_SUM,
                 0) == SL_STATUS_OK);
    CHECK_ARR(gx, gx0, 6, "sum gx");
    CHECK(gs[0] == 3 && gs[1] == 3);
    res[2] = r_prod; /* 7 * 8: src gets 3 * 56 / 7 = 24 and 3 * 56 / 8 */
    CHECK(run_bw(&ctx, v->name, SL_OP_SCATTER_REDUCE_BACKWARD, &tg, &tx, &ti,
                 &ts, &tr, &tgx, sizeof gx, &tgs, sizeof gs, 1, SL_REDUCE_PROD,
                 0) == SL_STATUS_OK);
    CHECK_ARR(gx, gx0, 6, "prod gx");
    CHECK(gs[0] == 24 && gs[1] == 21);
    res[2] = r_amax;
    CHECK(run_bw(&ctx, v->name, SL_OP_SCATTER_REDUCE_BACKWARD, &tg, &tx, &ti,
                 &ts, &tr, &tgx, sizeof gx, &tgs, sizeof gs, 1, SL_REDUCE_AMAX,
                 0) == SL_STATUS_OK);
    CHECK(gs[0] == 0 && gs[1] == 3);
    res[2] = 7.5;
    CHECK(run_bw(&ctx, v->name, SL_OP_SCATTER_REDUCE_BACKWARD, &tg, &tx, &ti,
                 &ts, &tr, &tgx, sizeof gx, &tgs, sizeof gs, 1, SL_REDUCE_MEAN,
                 0) == SL_STATUS_OK);
    CHECK(gs[0] == 1.5 && gs[1] == 1.5);
  }
}

/* sum with x included along dim 1 (the copy-and-gather path): grad_x is
 * g, grad_src[i][j] = g[i][index[i][j]]; g strided (a step of 2). */
static void test_scatter_sum_self_dim1(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  double gb[16] = {0}, xb[8] = {0}, res[8] = {0}, src[6] = {0}, gx[8], gs[6];
  for (int i = 0; i < 8; ++i) gb[2 * i] = i + 1; /* g = [[1,2,3,4],[5,6,7,8]] */
  int64_t idx[6] = {3, 0, 1, 2, 2, 0};
  sl_tensor tg = sl_tensor_make(SL_F64, 2, (int64_t[]){2, 4}, gb);
  tg.strides[0] = 8;
  tg.strides[1] = 2;
  sl_tensor tx = sl_tensor_make(SL_F64, 2, (int64_t[]){2, 4}, xb);
  sl_tensor ti = sl_tensor_make(SL_I64, 2, (int64_t[]){2, 3}, idx);
  sl_tensor ts = sl_tensor_make(SL_F64, 2, (int64_t[]){2, 3}, src);
  sl_tensor tr = sl_tensor_make(SL_F64, 2, (int64_t[]){2, 4}, res);
  sl_tensor tgx = sl_tensor_make(SL_F64, 2, (int64_t[]){2, 4}, gx);
  sl_tensor tgs = sl_tensor_make(SL_F64, 2, (int64_t[]){2, 3}, gs);
  const double want_gx[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  const double want_gs[6] = {4, 1, 2, 7, 7, 5};
  FOR_EACH_VARIANT(SL_OP_SCATTER_REDUCE_BACKWARD, v) {
    CHECK(run_bw(&ctx, v->name, SL_OP_SCATTER_REDUCE_BACKWARD, &tg, &tx, &ti,
                 &ts, &tr, &tgx, sizeof gx, &tgs, sizeof gs, 1, SL_REDUCE_SUM,
                 1) == SL_STATUS_OK);
    CHECK_ARR(gx, want_gx, 8, "sum gx");
    CHECK_ARR(gs, want_gs, 6, "sum gs");
  }
}

/* bf16: three-way tie of g = 1 gives 1/3 rounded to bf16:
 * 1.0101010|1010.. x 2^-2 rounds up to 1.0101011 x 2^-2 = 0.333984375. */
static void test_scatter_bf16(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  uint16_t x[1] = {sl_f32_to_bf16(4)}, g[1] = {sl_f32_to_bf16(1)};
  uint16_t src[2] = {sl_f32_to_bf16(4), sl_f32_to_bf16(4)};
  uint16_t res[1] = {sl_f32_to_bf16(4)}, gx[1], gs[2];
  int64_t idx[2] = {0, 0};
  sl_tensor tg = sl_tensor_make(SL_BF16, 1, (int64_t[]){1}, g);
  sl_tensor tx = sl_tensor_make(SL_BF16, 1, (int64_t[]){1}, x);
  sl_tensor ti = sl_tensor_make(SL_I64, 1, (int64_t[]){2}, idx);
  sl_tensor ts = sl_tensor_make(SL_BF16, 1, (int64_t[]){2}, src);
  sl_tensor tr = sl_tensor_make(SL_BF16, 1, (int64_t[]){1}, res);
  sl_tensor tgx = sl_tensor_make(SL_BF16, 1, (int64_t[]){1}, gx);
  sl_tensor tgs = sl_tensor_make(SL_BF16, 1, (int64_t[]){2}, gs);
  FOR_EACH_VARIANT(SL_OP_SCATTER_REDUCE_BACKWARD, v) {
    CHECK(run_bw(&ctx, v->name, SL_OP_SCATTER_REDUCE_BACKWARD, &tg, &tx, &ti,
                 &ts, &tr, &tgx, sizeof gx, &tgs, sizeof gs, 0, SL_REDUCE_AMIN,
                 1) == SL_STATUS_OK);
    CHECK(sl_bf16_to_f32(gx[0]) == 0.333984375f);
    CHECK(sl_bf16_to_f32(gs[0]) == 0.333984375f &&
          sl_bf16_to_f32(gs[1]) == 0.333984375f);
  }
}

/* Seed 001's shapes: x=[[1,1],[2,2],[3,3]], index=[2,1,0,1],
 * updates=[[1,1],[2,2],[3,3],[4,4]] (or the zeros-and-ties updates
 * [[1,0],[2,0],[3,3],[2,0]]), g=[[1,2],[3,4],[5,6]]. Row r of out takes the
 * updates i with index[i] = r: row 0 <- u2, row 1 <- u1, u3, row 2 <- u0. */
static void test_index_seed001(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  float x[6] = {1, 1, 2, 2, 3, 3}, u[8] = {1, 1, 2, 2, 3, 3, 4, 4};
  float z[8] = {1, 0, 2, 0, 3, 3, 2, 0}, g[6] = {1, 2, 3, 4, 5, 6};
  float res[6], gx[6], gu[8];
  int64_t idx[4] = {2, 1, 0, 1};
  sl_tensor tg = sl_tensor_make(SL_F32, 2, (int64_t[]){3, 2}, g);
  sl_tensor tx = sl_tensor_make(SL_F32, 2, (int64_t[]){3, 2}, x);
  sl_tensor ti = sl_tensor_make(SL_I64, 1, (int64_t[]){4}, idx);
  sl_tensor tu = sl_tensor_make(SL_F32, 2, (int64_t[]){4, 2}, u);
  sl_tensor tz = sl_tensor_make(SL_F32, 2, (int64_t[]){4, 2}, z);
  sl_tensor tr = sl_tensor_make(SL_F32, 2, (int64_t[]){3, 2}, res);
  sl_tensor tgx = sl_tensor_make(SL_F32, 2, (int64_t[]){3, 2}, gx);
  sl_tensor tgu = sl_tensor_make(SL_F32, 2, (int64_t[]){4, 2}, gu);
  struct {
    sl_reduce r;
    int self, zeros;
    float res[6], gx[6], gu[8];
  } cases[] = {
      /* assign (index_copy): x gets 0 where overwritten; every duplicate
       * gets its target's gradient, not only the winner */
      {SL_REDUCE_ASSIGN,
       1,
       0,
       {3, 3, 4, 4, 1, 1},
       {0, 0, 0, 0, 0, 0},
       {5, 6, 3, 4, 1, 2, 3, 4}},
      {SL_REDUCE_SUM,
       1,
       0,
       {4, 4, 8, 8, 4, 4},
       {1, 2, 3, 4, 5, 6},
       {5, 6, 3, 4, 1, 2, 3, 4}},
      {SL_REDUCE_SUM,
       0,
       0,
       {3, 3, 6, 6, 1, 1},
       {0, 0, 0, 0, 0, 0},
       {5, 6, 3, 4, 1, 2, 3, 4}},
      /* prod: x: g * result / x = [1*3, 2*3], [3*16/2, 4*16/2], [5*3/3,
       * 6*3/3]; u: g[t] * result[t] / u */
      {SL_REDUCE_PROD,
       1,
       0,
       {3, 3, 16, 16, 3, 3},
       {3, 6, 24, 32, 5, 6},
       {15, 18, 24, 32, 1, 2, 12, 16}},
      /* mean: N = [2,3,2] */
      {SL_REDUCE_MEAN,
       1,
       0,
       {2, 2, 8.0f / 3, 8.0f / 3, 2, 2},
       {0.5f, 1, 1, 4.0f / 3, 2.5f, 3},
       {2.5f, 3, 1, 4.0f / 3, 0.5f, 1, 1, 4.0f / 3}},
      {SL_REDUCE_AMAX,
       1,
       0,
       {3, 3, 4, 4, 3, 3},
       {0, 0, 0, 0, 5, 6},
       {0, 0, 0, 0, 1, 2, 3, 4}},
      /* amin: row 1 is a tie of x (2) and u1 (2): g/2 each */
      {SL_REDUCE_AMIN,
       1,
       0,
       {1, 1, 2, 2, 1, 1},
       {1, 2, 1.5f, 2, 0, 0},
       {5, 6, 1.5f, 2, 0, 0, 0, 0}},
      /* zeros: row 1 column 1 has two zero updates (all 0), row 2 column
       * 1 one zero (u0's gradient is g * x = 6 * 3 = 18) */
      {SL_REDUCE_PROD,
       1,
       1,
       {3, 3, 8, 0, 3, 0},
       {3, 6, 12, 0, 5, 0},
       {15, 18, 12, 0, 1, 2, 12, 0}},
      /* the same without x: u0 column 1 gets 6 * 1; x is zero wherever
       * targeted (every row) */
      {SL_REDUCE_PROD,
       0,
       1,
       {3, 3, 4, 0, 1, 0},
       {0, 0, 0, 0, 0, 0},
       {5, 6, 6, 0, 1, 2, 6, 0}},
      /* amax without x: row 1 column 0 ties u1, u3 (2) and x (2, counted):
       * 3/3 each; column 1: u1, u3 (0): 4/2 */
      {SL_REDUCE_AMAX,
       0,
       1,
       {3, 3, 2, 0, 1, 0},
       {0, 0, 0, 0, 0, 0},
       {5, 6, 1, 2, 1, 2, 1, 2}},
  };
  int ran = 0;
  FOR_EACH_VARIANT(SL_OP_INDEX_REDUCE_BACKWARD, v) {
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
      memcpy(res, cases[c].res, sizeof res);
      CHECK(run_bw(&ctx, v->name, SL_OP_INDEX_REDUCE_BACKWARD, &tg, &tx, &ti,
                   cases[c].zeros ? &tz : &tu, &tr, &tgx, sizeof gx, &tgu,
                   sizeof gu, 0, cases[c].r, cases[c].self) == SL_STATUS_OK);
      CHECK_ARR(gx, cases[c].gx, 6, sl_reduce_name(cases[c].r));
      CHECK_ARR(gu, cases[c].gu, 8, sl_reduce_name(cases[c].r));
    }
    ++ran;
  }
  CHECK(ran == 2);
}

/* A 0-D index: updates and grad_updates are the slice; axis 1 of a
 * transposed x. */
static void test_index_0d_and_axis1(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  float x[6] = {1, 1, 2, 2, 3, 3}, g[6] = {1, 2, 3, 4, 5, 6}, u[2] = {7, 8};
  float res[6] = {1, 1, 7, 8, 3, 3}, gx[6], gu[2];
  int64_t one = 1;
  sl_tensor tg = sl_tensor_make(SL_F32, 2, (int64_t[]){3, 2}, g);
  sl_tensor tx = sl_tensor_make(SL_F32, 2, (int64_t[]){3, 2}, x);
  sl_tensor ti = sl_tensor_make(SL_I64, 0, NULL, &one);
  sl_tensor tu = sl_tensor_make(SL_F32, 1, (int64_t[]){2}, u);
  sl_tensor tr = sl_tensor_make(SL_F32, 2, (int64_t[]){3, 2}, res);
  sl_tensor tgx = sl_tensor_make(SL_F32, 2, (int64_t[]){3, 2}, gx);
  sl_tensor tgu = sl_tensor_make(SL_F32, 1, (int64_t[]){2}, gu);
  const float amax_gx[6] = {1, 2, 0, 0, 5, 6};
  /* axis 1: x^T of the same buffer is [[1,2,3],[1,2,3]]; index [2, 0];
   * updates [[9,0],[1,3]] (u[a][i]); prod with x: out[a][2] = 3*u[a][0],
   * out[a][0] = 1*u[a][1] */
  sl_tensor xt = sl_tensor_make(SL_F32, 2, (int64_t[]){2, 3}, x);
  xt.strides[0] = 1;
  xt.strides[1] = 2;
  int32_t i2[2] = {2, 0};
  float u2[4] = {9, 0, 1, 3}, r2[6] = {0, 2, 27, 3, 2, 3}, gx2[6], gu2[4];
  float g2[6] = {1, 1, 1, 1, 1, 1};
  sl_tensor tg2 = sl_tensor_make(SL_F32, 2, (int64_t[]){2, 3}, g2);
  sl_tensor ti2 = sl_tensor_make(SL_I32, 1, (int64_t[]){2}, i2);
  sl_tensor tu2 = sl_tensor_make(SL_F32, 2, (int64_t[]){2, 2}, u2);
  sl_tensor tr2 = sl_tensor_make(SL_F32, 2, (int64_t[]){2, 3}, r2);
  sl_tensor tgx2 = sl_tensor_make(SL_F32, 2, (int64_t[]){2, 3}, gx2);
  sl_tensor tgu2 = sl_tensor_make(SL_F32, 2, (int64_t[]){2, 2}, gu2);
  /* row 0: x[0][0] = 1 meets the single zero u[0][1]: grad_x = g * (1*0)
   * / 1 = 0 and u[0][1] gets g * x = 1; x[0][2] = 3: g * 27 / 3 = 9,
   * u[0][0] gets 27 / 9 = 3. row 1: x[1][0] = 1: g * 3 / 1 = 3; u[1][1]
   * gets 3 / 3 = 1; x[1][2] = 3: 3 / 3 = 1; u[1][0] gets 3 / 1 = 3;
   * x[.][1] untargeted: g * 2 / 2 = 1 */
  const float pgx[6] = {0, 1, 9, 3, 1, 1}, pgu[4] = {3, 1, 3, 1};
  FOR_EACH_VARIANT(SL_OP_INDEX_REDUCE_BACKWARD, v) {
    CHECK(run_bw(&ctx, v->name, SL_OP_INDEX_REDUCE_BACKWARD, &tg, &tx, &ti, &tu,
                 &tr, &tgx, sizeof gx, &tgu, sizeof gu, 0, SL_REDUCE_AMAX,
                 1) == SL_STATUS_OK);
    CHECK_ARR(gx, amax_gx, 6, "amax gx");
    CHECK(gu[0] == 3 && gu[1] == 4);
    CHECK(run_bw(&ctx, v->name, SL_OP_INDEX_REDUCE_BACKWARD, &tg, &tx, &ti, &tu,
                 &tr, &tgx, sizeof gx, &tgu, sizeof gu, 0, SL_REDUCE_ASSIGN,
                 0) == SL_STATUS_OK);
    CHECK_ARR(gx, amax_gx, 6, "assign gx");
    CHECK(gu[0] == 3 && gu[1] == 4);
    CHECK(run_bw(&ctx, v->name, SL_OP_INDEX_REDUCE_BACKWARD, &tg2, &xt, &ti2,
                 &tu2, &tr2, &tgx2, sizeof gx2, &tgu2, sizeof gu2, 1,
                 SL_REDUCE_PROD, 1) == SL_STATUS_OK);
    CHECK_ARR(gx2, pgx, 6, "prod gx");
    CHECK_ARR(gu2, pgu, 4, "prod gu");
  }
}

/* index_reduce_backward sum and assign of x [O, 5, C] along dim 1 with
 * two index values (3, 1), for C = 1 and 2: blocks of m x C <= 8 elements
 * (the slices pass goes along the blocks, index_reduce_backward_slices.c)
 * and C = 5 (10 elements: block by block). grad_updates[o][i][c] is
 * g[o][index[i]][c]; grad_x is g, zero at the targets for assign or
 * without self. */
static void test_few_columns(void) {
  enum { O = 37, N = 5, CMAX = 5, M = 2 };
  static float g[O * N * CMAX], x[O * N * CMAX], gx[O * N * CMAX];
  static float u[O * M * CMAX], gu[O * M * CMAX];
  const int64_t idx[M] = {3, 1};
  for (int i = 0; i < O * N * CMAX; ++i) g[i] = x[i] = (float)i;
  for (int i = 0; i < O * M * CMAX; ++i) u[i] = 0;
  const int cs[3] = {1, 2, CMAX};
  const sl_reduce reds[2] = {SL_REDUCE_SUM, SL_REDUCE_ASSIGN};
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  for (int k = 0; k < 3; ++k) {
    const int64_t C = cs[k], xs[3] = {O, N, C}, us[3] = {O, M, C}, m = M;
    sl_tensor tg = sl_tensor_make(SL_F32, 3, xs, g),
              tx = sl_tensor_make(SL_F32, 3, xs, x),
              tgx = sl_tensor_make(SL_F32, 3, xs, gx);
    sl_tensor tu = sl_tensor_make(SL_F32, 3, us, u),
              tgu = sl_tensor_make(SL_F32, 3, us, gu);
    sl_tensor ti = sl_tensor_make(SL_I64, 1, &m, (void *)idx);
    FOR_EACH_VARIANT(SL_OP_INDEX_REDUCE_BACKWARD, v)
    for (int r = 0; r < 2; ++r)
      for (int self = 0; self < 2; ++self) {
        CHECK(run_bw(&ctx, v->name, SL_OP_INDEX_REDUCE_BACKWARD, &tg, &tx, &ti,
                     &tu, &tx, &tgx, sizeof gx, &tgu, sizeof gu, 1, reds[r],
                     self) == SL_STATUS_OK);
        const int zero = !self || reds[r] == SL_REDUCE_ASSIGN;
        int bad = 0;
        for (int64_t o = 0; o < O; ++o)
          for (int64_t c = 0; c < C; ++c) {
            for (int64_t i = 0; i < M; ++i)
              bad += gu[(o * M + i) * C + c] != g[(o * N + idx[i]) * C + c];
            for (int64_t t = 0; t < N; ++t) {
              const int64_t at = (o * N + t) * C + c;
              const int hit = t == idx[0] || t == idx[1];
              bad += gx[at] != (hit && zero ? 0.0f : g[at]);
            }
          }
        CHECK_MSG(bad == 0, "%s %s self %d C %lld: %d gradients differ",
                  v->name, sl_reduce_name(reds[r]), self, (long long)C, bad);
      }
  }
}

/* index_reduce_backward sum and assign of one block (x [N] or [N, 3]
 * along dim 0) through a long random index: the threads split the
 * contributions, each gathering its slices of grad_updates (a plain
 * gather for one column), grad_x written before in one pass with its
 * zeros. grad_updates[i] is g[index[i]]; grad_x is g, zero at the
 * targets for assign or without self. */
static void test_one_block(void) {
  enum { N = 30011, M = 40009, CMAX = 3 };
  static float g[N * CMAX], gx[N * CMAX], u[M * CMAX], gu[M * CMAX];
  static int64_t idx[M];
  static uint8_t hit[N];
  uint32_t s = 7;
  for (int i = 0; i < N * CMAX; ++i) g[i] = (float)i;
  for (int i = 0; i < M; ++i) {
    s = s * 1103515245u + 12345u;
    idx[i] = (s >> 8) % N;
    hit[idx[i]] = 1;
  }
  const sl_reduce reds[2] = {SL_REDUCE_SUM, SL_REDUCE_ASSIGN};
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  for (int64_t C = 1; C <= CMAX; C += CMAX - 1) {
    const int64_t xs[2] = {N, C}, us[2] = {M, C}, m = M;
    sl_tensor tg = sl_tensor_make(SL_F32, 2, xs, g),
              tgx = sl_tensor_make(SL_F32, 2, xs, gx);
    sl_tensor tu = sl_tensor_make(SL_F32, 2, us, u),
              tgu = sl_tensor_make(SL_F32, 2, us, gu);
    sl_tensor ti = sl_tensor_make(SL_I64, 1, &m, idx);
    FOR_EACH_VARIANT(SL_OP_INDEX_REDUCE_BACKWARD, v)
    for (int r = 0; r < 2; ++r)
      for (int self = 0; self < 2; ++self) {
        CHECK(run_bw(&ctx, v->name, SL_OP_INDEX_REDUCE_BACKWARD, &tg, &tg, &ti,
                     &tu, &tg, &tgx, sizeof gx, &tgu, sizeof gu, 0, reds[r],
                     self) == SL_STATUS_OK);
        const int zero = !self || reds[r] == SL_REDUCE_ASSIGN;
        int64_t bad = 0;
        for (int64_t i = 0; i < M * C; ++i)
          bad += gu[i] != g[idx[i / C] * C + i % C];
        for (int64_t i = 0; i < N * C; ++i)
          bad += gx[i] != (hit[i / C] && zero ? 0.0f : g[i]);
        CHECK_MSG(bad == 0, "%s %s self %d C %lld: %lld gradients differ",
                  v->name, sl_reduce_name(reds[r]), self, (long long)C,
                  (long long)bad);
      }
  }
}

/* Many lines with zeros and ties: cpu.omp (3 threads) equals cpu.serial
 * bitwise, for both ops and every reduce. */
static void test_omp_matches_serial(void) {
  enum { R = 9, C = 37, M = 12 };
  static float x[R * C], g[R * C], src[M * C], res[R * C];
  static float gx[2][R * C], gs[2][M * C];
  static int64_t idx[M * C];
  uint32_t s = 99;
  for (int i = 0; i < R * C; ++i) {
    s = s * 1103515245u + 12345u;
    x[i] = (float)((s >> 16) % 5) - 2;
    s = s * 1103515245u + 12345u;
    g[i] = (float)((s >> 16) % 7) - 3;
    res[i] = x[i]; /* ties with x wherever src matches */
  }
  for (int i = 0; i < M * C; ++i) {
    s = s * 1103515245u + 12345u;
    src[i] = (float)((s >> 16) % 5) - 2;
    s = s * 1103515245u + 12345u;
    idx[i] = (s >> 16) % 4;
  }
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  for (int op = 0; op < 2; ++op) {
    sl_op o = op ? SL_OP_INDEX_REDUCE_BACKWARD : SL_OP_SCATTER_REDUCE_BACKWARD;
    /* scatter: index [M, C] along dim 0; index_reduce: index [M] along
     * axis 0 with updates [M, C] */
    sl_tensor tg = sl_tensor_make(SL_F32, 2, (int64_t[]){R, C}, g);
    sl_tensor tx = sl_tensor_make(SL_F32, 2, (int64_t[]){R, C}, x);
    sl_tensor tr = sl_tensor_make(SL_F32, 2, (int64_t[]){R, C}, res);
    sl_tensor ti = op ? sl_tensor_make(SL_I64, 1, (int64_t[]){M}, idx)
                      : sl_tensor_make(SL_I64, 2, (int64_t[]){M, C}, idx);
    sl_tensor ts = sl_tensor_make(SL_F32, 2, (int64_t[]){M, C}, src);
    for (int r = SL_REDUCE_ASSIGN; r <= SL_REDUCE_AMIN; ++r)
      for (int self = 0; self < 2; ++self) {
        if (!op && r == SL_REDUCE_ASSIGN) continue;
        int k = 0;
        FOR_EACH_VARIANT(o, v) {
          sl_tensor tgx = sl_tensor_make(SL_F32, 2, (int64_t[]){R, C}, gx[k]);
          sl_tensor tgs = sl_tensor_make(SL_F32, 2, (int64_t[]){M, C}, gs[k]);
          CHECK(run_bw(&ctx, v->name, o, &tg, &tx, &ti, &ts, &tr, &tgx,
                       sizeof gx[k], &tgs, sizeof gs[k], 0, (sl_reduce)r,
                       self) == SL_STATUS_OK);
          ++k;
        }
        CHECK(k == 2);
        CHECK_MSG(memcmp(gx[0], gx[1], sizeof gx[0]) == 0 &&
                      memcmp(gs[0], gs[1], sizeof gs[0]) == 0,
                  "%s %s self=%d: cpu.omp differs from cpu.serial",
                  sl_op_name(o), sl_reduce_name((sl_reduce)r), self);
      }
  }
}

/* Bad input for both backward ops; nothing is written. */
static void test_bad_input(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  float x[4] = {2, 3, 4, 5}, src[6] = {0, 5, 0, 0, 7, 6}, g[4] = {1, 2, 3, 4};
  float res[4] = {7, 10, 10, 5}, gx[4] = {-1, -1, -1, -1};
  float gs[6] = {-1, -1, -1, -1, -1, -1};
  int64_t idx[6] = {0, 0, 1, 1, 1, 2};
  sl_tensor tg = sl_tensor_make(SL_F32, 1, (int64_t[]){4}, g);
  sl_tensor tx = sl_tensor_make(SL_F32, 1, (int64_t[]){4}, x);
  sl_tensor ti = sl_tensor_make(SL_I64, 1, (int64_t[]){6}, idx);
  sl_tensor ts = sl_tensor_make(SL_F32, 1, (int64_t[]){6}, src);
  sl_tensor tr = sl_tensor_make(SL_F32, 1, (int64_t[]){4}, res);
  sl_tensor tgx = sl_tensor_make(SL_F32, 1, (int64_t[]){4}, gx);
  sl_tensor tgs = sl_tensor_make(SL_F32, 1, (int64_t[]){6}, gs);
  const sl_op SB = SL_OP_SCATTER_REDUCE_BACKWARD,
              IB = SL_OP_INDEX_REDUCE_BACKWARD;
  const sl_reduce S = SL_REDUCE_SUM;
#define BW(op_, g_, x_, i_, s_, r_, gx_, gs_, dim_, red_)                      \
  run_bw(&ctx, "cpu.omp", op_, g_, x_, i_, s_, r_, gx_, 0, gs_, 0, dim_, red_, \
         1)
  /* the same tensors serve index_reduce_backward: updates [6] for a 1-D
   * index of 6 */
  /* null data */
  sl_tensor nod = tg;
  nod.data = NULL;
  CHECK(BW(SB, &nod, &tx, &ti, &ts, &tr, &tgx, &tgs, 0, S) ==
        SL_STATUS_NULL_POINTER);
  CHECK_CONTAINS(ctx.msg, "grad_out: expected data for 4 elements, got NULL");
  nod = tgs;
  nod.data = NULL;
  CHECK(BW(IB, &tg, &tx, &ti, &ts, &tr, &tgx, &nod, 0, S) ==
        SL_STATUS_NULL_POINTER);
  CHECK_CONTAINS(ctx.msg,
                 "grad_updates: expected data for 6 elements, got NULL");
  /* rank mismatch */
  sl_tensor i2 = sl_tensor_make(SL_I64, 2, (int64_t[]){2, 3}, idx);
  CHECK(BW(SB, &tg, &tx, &i2, &ts, &tr, &tgx, &tgs, 0, S) ==
        SL_STATUS_RANK_MISMATCH);
  CHECK_CONTAINS(ctx.msg, "index: expected rank 1 (the rank of x [4])");
  CHECK(BW(IB, &tg, &tx, &i2, &ts, &tr, &tgx, &tgs, 0, S) ==
        SL_STATUS_RANK_MISMATCH);
  CHECK_CONTAINS(ctx.msg, "index: expected rank 0 or 1");
  /* dim out of range */
  CHECK(BW(SB, &tg, &tx, &ti, &ts, &tr, &tgx, &tgs, 1, S) ==
        SL_STATUS_DIM_OUT_OF_RANGE);
  CHECK_CONTAINS(ctx.msg, "dim: expected a value in [-1,0]");
  CHECK(BW(IB, &tg, &tx, &ti, &ts, &tr, &tgx, &tgs, -2, S) ==
        SL_STATUS_DIM_OUT_OF_RANGE);
  CHECK_CONTAINS(ctx.msg, "dim:");
  /* shape mismatch: grad_out, result, a src larger than index, grad_x */
  sl_tensor g3 = sl_tensor_make(SL_F32, 1, (int64_t[]){3}, g);
  CHECK(BW(SB, &g3, &tx, &ti, &ts, &tr, &tgx, &tgs, 0, S) ==
        SL_STATUS_SHAPE_MISMATCH);
  CHECK_CONTAINS(ctx.msg,
                 "grad_out: expected shape [4] (the shape of x), got [3]");
  CHECK(BW(IB, &tg, &tx, &ti, &ts, &g3, &tgx, &tgs, 0, S) ==
        SL_STATUS_SHAPE_MISMATCH);
  CHECK_CONTAINS(ctx.msg,
                 "result: expected shape [4] (the shape of x), got [3]");
  sl_tensor i5 = sl_tensor_make(SL_I64, 1, (int64_t[]){5}, idx);
  CHECK(BW(SB, &tg, &tx, &i5, &ts, &tr, &tgx, &tgs, 0, S) ==
        SL_STATUS_SHAPE_MISMATCH);
  CHECK_CONTAINS(ctx.msg, "src: expected shape [5] (the shape of index");
  CHECK(BW(IB, &tg, &tx, &i5, &ts, &tr, &tgx, &tgs, 0, S) ==
        SL_STATUS_SHAPE_MISMATCH);
  CHECK_CONTAINS(ctx.msg, "updates: expected shape [5]");
  CHECK(BW(SB, &tg, &tx, &ti, &ts, &tr, &g3, &tgs, 0, S) ==
        SL_STATUS_SHAPE_MISMATCH);
  CHECK_CONTAINS(ctx.msg, "grad_x: expected shape [4], got [3]");
  /* index dtype */
  sl_tensor fi = sl_tensor_make(SL_F32, 1, (int64_t[]){6}, src);
  CHECK(BW(SB, &tg, &tx, &fi, &ts, &tr, &tgx, &tgs, 0, S) ==
        SL_STATUS_INDEX_DTYPE);
  CHECK_CONTAINS(ctx.msg, "index: expected dtype i32 or i64, got f32");
  CHECK(BW(IB, &tg, &tx, &fi, &ts, &tr, &tgx, &tgs, 0, S) ==
        SL_STATUS_INDEX_DTYPE);
  /* index out of range */
  int64_t big[6] = {0, 0, 1, 4, 1, 2};
  sl_tensor tbig = sl_tensor_make(SL_I64, 1, (int64_t[]){6}, big);
  CHECK(BW(SB, &tg, &tx, &tbig, &ts, &tr, &tgx, &tgs, 0, S) ==
        SL_STATUS_INDEX_OUT_OF_RANGE);
  CHECK_CONTAINS(ctx.msg, "index[3]=4 out of range [0,4) for dim 0 of x [4]");
  CHECK(BW(IB, &tg, &tx, &tbig, &ts, &tr, &tgx, &tgs, 0, S) ==
        SL_STATUS_INDEX_OUT_OF_RANGE);
  /* unsupported dtype: integer x (no gradients), grad_out of another
   * dtype */
  int32_t ix[4] = {0}, is[6] = {0};
  sl_tensor tix = sl_tensor_make(SL_I32, 1, (int64_t[]){4}, ix);
  sl_tensor tis = sl_tensor_make(SL_I32, 1, (int64_t[]){6}, is);
  sl_tensor tio = sl_tensor_make(SL_I32, 1, (int64_t[]){4}, gx);
  sl_tensor tios = sl_tensor_make(SL_I32, 1, (int64_t[]){6}, gs);
  CHECK(BW(SB, &tix, &tix, &ti, &tis, &tix, &tio, &tios, 0, S) ==
        SL_STATUS_UNSUPPORTED_DTYPE);
  CHECK_CONTAINS(ctx.msg, "x: expected one of f16, bf16, f32, f64 (gradients "
                          "need a floating dtype), got i32");
  CHECK(BW(IB, &tix, &tix, &ti, &tis, &tix, &tio, &tios, 0, SL_REDUCE_ASSIGN) ==
        SL_STATUS_UNSUPPORTED_DTYPE);
  double gdd[4] = {1, 2, 3, 4};
  sl_tensor gd = sl_tensor_make(SL_F64, 1, (int64_t[]){4}, gdd);
  CHECK(BW(SB, &gd, &tx, &ti, &ts, &tr, &tgx, &tgs, 0, S) ==
        SL_STATUS_UNSUPPORTED_DTYPE);
  CHECK_CONTAINS(ctx.msg,
                 "grad_out: expected dtype f32 (the dtype of x), got f64");
  /* unknown reduce: assign is index_reduce's only; none; a bad code */
  CHECK(BW(SB, &tg, &tx, &ti, &ts, &tr, &tgx, &tgs, 0, SL_REDUCE_ASSIGN) ==
        SL_STATUS_UNKNOWN_REDUCE);
  CHECK_CONTAINS(
      ctx.msg,
      "reduce: expected one of {sum, prod, mean, amax, amin}, got assign");
  CHECK(BW(IB, &tg, &tx, &ti, &ts, &tr, &tgx, &tgs, 0, SL_REDUCE_NONE) ==
        SL_STATUS_UNKNOWN_REDUCE);
  CHECK_CONTAINS(ctx.msg, "reduce: expected one of {assign, sum, prod, mean, "
                          "amax, amin}, got none");
  CHECK(BW(IB, &tg, &tx, &ti, &ts, &tr, &tgx, &tgs, 0, (sl_reduce)8) ==
        SL_STATUS_UNKNOWN_REDUCE);
  CHECK_CONTAINS(ctx.msg, "got code 8");
  /* overflow */
  sl_tensor huge =
      sl_tensor_make(SL_F32, 2, (int64_t[]){INT64_C(1) << 62, 4}, x);
  CHECK(BW(IB, &huge, &tx, &ti, &ts, &tr, &tgx, &tgs, 0, S) ==
        SL_STATUS_OVERFLOW);
  CHECK_CONTAINS(ctx.msg, "grad_out: shape [4611686018427387904,4]");
  for (int i = 0; i < 4; ++i) CHECK(gx[i] == -1);
  for (int i = 0; i < 6; ++i) CHECK(gs[i] == -1);
#undef BW
}

/* An empty index: grad_x by the formula for untargeted positions, nothing
 * for src. */
static void test_empty(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  float x[2] = {2, 0}, g[2] = {3, 4}, res[2] = {2, 0}, gx[2];
  sl_tensor tg = sl_tensor_make(SL_F32, 1, (int64_t[]){2}, g);
  sl_tensor tx = sl_tensor_make(SL_F32, 1, (int64_t[]){2}, x);
  sl_tensor tr = sl_tensor_make(SL_F32, 1, (int64_t[]){2}, res);
  sl_tensor ti = sl_tensor_make(SL_I64, 1, (int64_t[]){0}, NULL);
  sl_tensor ts = sl_tensor_make(SL_F32, 1, (int64_t[]){0}, NULL);
  sl_tensor tgx = sl_tensor_make(SL_F32, 1, (int64_t[]){2}, gx);
  sl_tensor tgs = sl_tensor_make(SL_F32, 1, (int64_t[]){0}, NULL);
  for (int op = 0; op < 2; ++op) {
    sl_op o = op ? SL_OP_INDEX_REDUCE_BACKWARD : SL_OP_SCATTER_REDUCE_BACKWARD;
    FOR_EACH_VARIANT(o, v) {
      for (int r = SL_REDUCE_SUM; r <= SL_REDUCE_AMIN; ++r) {
        CHECK(run_bw(&ctx, v->name, o, &tg, &tx, &ti, &ts, &tr, &tgx, sizeof gx,
                     &tgs, 0, 0, (sl_reduce)r, 0) == SL_STATUS_OK);
        CHECK(gx[0] == 3 && gx[1] == 4);
      }
    }
  }
}

/* A long line with few updates takes the per-target path (contiguous
 * positions, reduce_backward_sparse.c); the same values laid out with a
 * step of 2 take the dense one. Every reduce, with and without self, with
 * zeros, a NaN, duplicate targets and a zero update: bit for bit alike. */
static void test_sparse_matches_dense(void) {
  enum { N = 4096, M = 4 };
  static double g[N], x[N], res[N], gx[N], gs[M];
  static double g2[2 * N], x2[2 * N], res2[2 * N], gx2[2 * N], gs2[M];
  int64_t idx[M] = {7, 4000, 7, 0};
  double src[M] = {3, 0, -2, 5};
  for (int i = 0; i < N; ++i) {
    g[i] = g2[2 * i] = 1 + (i % 7);
    x[i] = x2[2 * i] = i % 11 == 0 ? 0 : i % 101 == 0 ? NAN : 0.5 * (i % 13);
    res[i] = res2[2 * i] = i == 7 ? -6 : i % 5 == 0 ? x[i] + 1 : x[i];
  }
  const int64_t n = N, m = M;
  sl_tensor ti = sl_tensor_make(SL_I64, 1, &m, idx);
  sl_tensor ts = sl_tensor_make(SL_F64, 1, &m, src);
  sl_tensor one[4], two[4]; /* g x res gx, contiguous and stepped */
  double *bufs[4] = {g, x, res, gx}, *bufs2[4] = {g2, x2, res2, gx2};
  for (int k = 0; k < 4; ++k) {
    one[k] = sl_tensor_make(SL_F64, 1, &n, bufs[k]);
    two[k] = sl_tensor_make(SL_F64, 1, &n, bufs2[k]);
    two[k].strides[0] = 2;
  }
  sl_tensor tgs = sl_tensor_make(SL_F64, 1, &m, gs);
  sl_tensor tgs2 = sl_tensor_make(SL_F64, 1, &m, gs2);
  const sl_reduce reds[] = {SL_REDUCE_MEAN, SL_REDUCE_PROD, SL_REDUCE_AMAX,
                            SL_REDUCE_AMIN};
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  FOR_EACH_VARIANT(SL_OP_INDEX_REDUCE_BACKWARD, v) {
    for (size_t r = 0; r < sizeof reds / sizeof *reds; ++r)
      for (int self = 0; self < 2; ++self) {
        CHECK(run_bw(&ctx, v->name, SL_OP_INDEX_REDUCE_BACKWARD, &one[0],
                     &one[1], &ti, &ts, &one[2], &one[3], sizeof gx, &tgs,
                     sizeof gs, 0, reds[r], self) == SL_STATUS_OK);
        CHECK(run_bw(&ctx, v->name, SL_OP_INDEX_REDUCE_BACKWARD, &two[0],
                     &two[1], &ti, &ts, &two[2], &two[3], sizeof gx2, &tgs2,
                     sizeof gs2, 0, reds[r], self) == SL_STATUS_OK);
        int same = 1;
        for (int i = 0; i < N; ++i) same &= same_f(gx[i], gx2[2 * i]);
        for (int i = 0; i < M; ++i) same &= same_f(gs[i], gs2[i]);
        CHECK_MSG(same, "%s reduce %d self %d: sparse and dense differ",
                  v->name, (int)reds[r], self);
      }
  }
}

/* Element i of a buffer of dtype dt (f16, bf16 or f32) as float, and
 * stored from float. */
static float elem_get(sl_dtype dt, const void *buf, int i) {
  if (dt == SL_F32) return ((const float *)buf)[i];
  const uint16_t h = ((const uint16_t *)buf)[i];
  return dt == SL_F16 ? sl_f16_to_f32(h) : sl_bf16_to_f32(h);
}

static void elem_put(sl_dtype dt, void *buf, int i, float v) {
  if (dt == SL_F32)
    ((float *)buf)[i] = v;
  else
    ((uint16_t *)buf)[i] = dt == SL_F16 ? sl_f32_to_f16(v) : sl_f32_to_bf16(v);
}

/* index_reduce_backward by slices (index_reduce_backward_shares.c: f16 and
 * bf16 in float blocks, f32 in its own type) against the line walk, which
 * stepped outputs take: x [6, 300] along dim 0 (a slice wider than the
 * slices pass's chunk of columns), five updates (a target twice), values
 * from {0, 1, 2, NaN} so that many tie with the result (and zeros, lone
 * or not, meet prod); mean, amax, amin and prod, with and without self,
 * bit for bit alike. */
static void test_shares_match_lines(sl_dtype dt) {
  enum { N = 6, C = 300, M = 5 };
  static float g[N * C], x[N * C], res[N * C], src[M * C];
  static float gx[N * C], gs[M * C], gx2[2 * N * C], gs2[2 * M * C];
  int64_t idx[M] = {1, 3, 1, 0, 5};
  for (int i = 0; i < N * C; ++i) {
    elem_put(dt, g, i, 0.25f * (float)(i % 9) - 1);
    elem_put(dt, x, i, i % 17 == 0 ? NAN : (float)(i % 3));
    elem_put(dt, res, i, (float)((i / 2) % 3));
  }
  for (int i = 0; i < M * C; ++i) elem_put(dt, src, i, (float)((i / 3) % 3));
  const int64_t xs[2] = {N, C}, us[2] = {M, C}, m = M;
  bw_set t = bw_make(dt, xs, us, g, x, res, src, gx, gs);
  sl_tensor ti = sl_tensor_make(SL_I64, 1, &m, idx);
  sl_tensor tgx2 = sl_tensor_make(dt, 2, xs, gx2);
  sl_tensor tgs2 = sl_tensor_make(dt, 2, us, gs2);
  tgx2.strides[1] = tgs2.strides[1] = 2;
  tgx2.strides[0] = 2 * C, tgs2.strides[0] = 2 * C;
  const sl_reduce reds[] = {SL_REDUCE_MEAN, SL_REDUCE_AMAX, SL_REDUCE_AMIN,
                            SL_REDUCE_PROD};
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  FOR_EACH_VARIANT(SL_OP_INDEX_REDUCE_BACKWARD, v) {
    for (size_t r = 0; r < sizeof reds / sizeof *reds; ++r)
      for (int self = 0; self < 2; ++self) {
        CHECK(run_bw(&ctx, v->name, SL_OP_INDEX_REDUCE_BACKWARD, &t.g, &t.x,
                     &ti, &t.src, &t.res, &t.gx, sizeof gx, &t.gs, sizeof gs, 0,
                     reds[r], self) == SL_STATUS_OK);
        CHECK(run_bw(&ctx, v->name, SL_OP_INDEX_REDUCE_BACKWARD, &t.g, &t.x,
                     &ti, &t.src, &t.res, &tgx2, sizeof gx2, &tgs2, sizeof gs2,
                     0, reds[r], self) == SL_STATUS_OK);
        int bad = 0;
        for (int i = 0; i < N * C; ++i)
          bad += !same_f(elem_get(dt, gx, i), elem_get(dt, gx2, 2 * i));
        for (int i = 0; i < M * C; ++i)
          bad += !same_f(elem_get(dt, gs, i), elem_get(dt, gs2, 2 * i));
        CHECK_MSG(bad == 0, "%s %s reduce %d self %d: %d elements differ",
                  v->name, sl_dtype_name(dt), (int)reds[r], self, bad);
      }
  }
}

/* scatter_reduce_backward f16/bf16 of x [5, 40] widened to float where
 * the lines lie side by side (sl__rb_half_lines): along the last axis
 * (each line contiguous), and along dim 0 (40 columns, neighbours a
 * position at a time, the last 10 without contributions: index [5, 30]),
 * each against the same call with spaced outputs (the half instance of the
 * line formulas), values from {0, 1, 2, NaN} so that many tie with the
 * result; mean, amax, amin, with and without self, bit for bit alike. */
static void test_half_lines_match(void) {
  enum { R = 5, N = 40, M = 30 };
  static uint16_t g[R * N], x[R * N], res[R * N], src[R * M];
  static uint16_t gx[R * N], gs[R * M], gx2[2 * R * N], gs2[2 * R * M];
  static int64_t idx[R * M];
  const sl_dtype dts[2] = {SL_F16, SL_BF16};
  for (int d = 0; d < 2; ++d)
    for (int dim = 0; dim < 2; ++dim) {
      const sl_dtype dt = dts[d];
      uint16_t (*to)(float) = dt == SL_F16 ? sl_f32_to_f16 : sl_f32_to_bf16;
      for (int i = 0; i < R * N; ++i) {
        g[i] = to(0.25f * (float)(i % 9) - 1);
        x[i] = to(i % 17 == 0 ? NAN : (float)(i % 3));
        res[i] = to((float)((i / 2) % 3));
      }
      /* duplicates; along dim 1 the upper half of each row untouched */
      for (int i = 0; i < R * M; ++i) {
        src[i] = to((float)((i / 3) % 3));
        idx[i] = dim ? (i * 7) % N / 2 : (i * 7) % (R - 1);
      }
      const int64_t xs[2] = {R, N}, us[2] = {R, M};
      bw_set t = bw_make(dt, xs, us, g, x, res, src, gx, gs);
      sl_tensor ti = sl_tensor_make(SL_I64, 2, us, idx);
      sl_tensor tgx2 = sl_tensor_make(dt, 2, xs, gx2);
      sl_tensor tgs2 = sl_tensor_make(dt, 2, us, gs2);
      tgx2.strides[1] = tgs2.strides[1] = 2;
      tgx2.strides[0] = 2 * N, tgs2.strides[0] = 2 * M;
      const sl_reduce reds[] = {SL_REDUCE_MEAN, SL_REDUCE_AMAX, SL_REDUCE_AMIN};
      sl_ctx ctx;
      sl_ctx_init(&ctx);
      FOR_EACH_VARIANT(SL_OP_SCATTER_REDUCE_BACKWARD, v) {
        for (size_t r = 0; r < sizeof reds / sizeof *reds; ++r)
          for (int self = 0; self < 2; ++self) {
            CHECK(run_bw(&ctx, v->name, SL_OP_SCATTER_REDUCE_BACKWARD, &t.g,
                         &t.x, &ti, &t.src, &t.res, &t.gx, sizeof gx, &t.gs,
                         sizeof gs, dim, reds[r], self) == SL_STATUS_OK);
            CHECK(run_bw(&ctx, v->name, SL_OP_SCATTER_REDUCE_BACKWARD, &t.g,
                         &t.x, &ti, &t.src, &t.res, &tgx2, sizeof gx2, &tgs2,
                         sizeof gs2, dim, reds[r], self) == SL_STATUS_OK);
            float (*from)(uint16_t) =
                dt == SL_F16 ? sl_f16_to_f32 : sl_bf16_to_f32;
            int bad = 0;
            for (int i = 0; i < R * N; ++i)
              bad += !same_f(from(gx[i]), from(gx2[2 * i]));
            for (int i = 0; i < R * M; ++i)
              bad += !same_f(from(gs[i]), from(gs2[2 * i]));
            CHECK_MSG(bad == 0,
                      "%s %s dim %d reduce %d self %d: %d elements differ",
                      sl_dtype_name(dt), v->name, dim, (int)reds[r], self, bad);
          }
      }
    }
}

/* The f32 call of test_half_as_f32: x, src and g widened from the half
 * call's; result the f32 forward's (prod, whose half gradient takes the
 * f32 product) or the half result widened (amax/amin compare with it). */
typedef struct half_as_f32 {
  float g[5 * 40], x[5 * 40], src[5 * 30], res[5 * 40], gx[5 * 40], gs[5 * 30];
} half_as_f32;

/* scatter_reduce_backward f16/bf16 of x [5, 40] against the f32 call on
 * the same values, its gradients rounded to the half type: the half
 * formulas accumulate and round in f32, so the bits must agree, whether
 * the lines go through float side by side (dim 0: neighbours a position
 * at a time; the last 10 columns without contributions) or one at a time
 * (dim 1: each line contiguous). Zeros (one and several per target), NaN
 * and inf in x and src; mean, prod, amax, amin, with and without self. */
static void test_half_as_f32(void) {
  enum { R = 5, N = 40, M = 30 };
  static uint16_t g[R * N], x[R * N], res[R * N], src[R * M];
  static uint16_t gx[R * N], gs[R * M];
  static int64_t idx[R * M];
  static half_as_f32 w;
  const float xv[7] = {0, 1, 2, NAN, -1.5f, INFINITY, 0.5f};
  const float sv[5] = {0, 1.1f, 2, -0.75f, 1.3f}; /* products past 11 bits */
  const int64_t xs[2] = {R, N}, us[2] = {R, M};
  const sl_reduce reds[] = {SL_REDUCE_MEAN, SL_REDUCE_PROD, SL_REDUCE_AMAX,
                            SL_REDUCE_AMIN};
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  for (int d = 0; d < 2; ++d)
    for (int dim = 0; dim < 2; ++dim)
      for (size_t r = 0; r < sizeof reds / sizeof *reds; ++r)
        for (int self = 0; self < 2; ++self) {
          const sl_dtype dt = d ? SL_BF16 : SL_F16;
          uint16_t (*to)(float) = d ? sl_f32_to_bf16 : sl_f32_to_f16;
          float (*from)(uint16_t) = d ? sl_bf16_to_f32 : sl_f16_to_f32;
          for (int i = 0; i < R * N; ++i) {
            g[i] = to(0.25f * (float)(i % 9) - 1), w.g[i] = from(g[i]);
            x[i] = to(xv[(i * 3) % 7]), w.x[i] = from(x[i]);
          }
          for (int i = 0; i < R * M; ++i) {
            src[i] = to(sv[(i / 2) % 5]), w.src[i] = from(src[i]);
            idx[i] = dim ? (i * 7) % N / 2 : (i * 7) % (R - 1);
          }
          sl_tensor ti = sl_tensor_make(SL_I64, 2, us, idx);
          bw_set f =
              bw_make(SL_F32, xs, us, w.g, w.x, w.res, w.src, w.gx, w.gs);
          CHECK(sl_scatter_reduce(&ctx, "cpu.serial", &f.x, dim, &ti, &f.src,
                                  reds[r], self, &f.res) == SL_STATUS_OK);
          for (int i = 0; i < R * N; ++i) {
            res[i] = to(w.res[i]);
            if (reds[r] != SL_REDUCE_PROD) w.res[i] = from(res[i]);
          }
          CHECK(run_bw(&ctx, "cpu.serial", SL_OP_SCATTER_REDUCE_BACKWARD, &f.g,
                       &f.x, &ti, &f.src, &f.res, &f.gx, sizeof w.gx, &f.gs,
                       sizeof w.gs, dim, reds[r], self) == SL_STATUS_OK);
          bw_set t = bw_make(dt, xs, us, g, x, res, src, gx, gs);
          FOR_EACH_VARIANT(SL_OP_SCATTER_REDUCE_BACKWARD, v) {
            CHECK(run_bw(&ctx, v->name, SL_OP_SCATTER_REDUCE_BACKWARD, &t.g,
                         &t.x, &ti, &t.src, &t.res, &t.gx, sizeof gx, &t.gs,
                         sizeof gs, dim, reds[r], self) == SL_STATUS_OK);
            int bad = 0;
            for (int i = 0; i < R * N; ++i)
              bad += !same_f(from(gx[i]), from(to(w.gx[i])));
            for (int i = 0; i < R * M; ++i)
              bad += !same_f(from(gs[i]), from(to(w.gs[i])));
            CHECK_MSG(bad == 0,
                      "%s %s dim %d reduce %d self %d: %d elements differ",
                      sl_dtype_name(dt), v->name, dim, (int)reds[r], self, bad);
          }
        }
}

/* prod's gradient of one f64 line by its definition (reduce_backward.c's
 * formulas, one target at a time, contributions in index order), and the
 * forward result it divides (res). */
static void naive_prod_line(int64_t n, int64_t m, const double *g,
                            const double *x, const int64_t *idx,
                            const double *src, int self, double *res,
                            double *gx, double *gs) {
  for (int64_t t = 0; t < n; ++t) {
    int hits = 0, zeros = 0;
    for (int64_t i = 0; i < m; ++i)
      if (idx[i] == t) ++hits, zeros += src[i] == 0.0;
    const int fresh = !self && hits;
    double a = fresh ? 1 : x[t] == 0 ? 1 : x[t], r = fresh ? 1 : x[t], b = r;
    for (int64_t i = 0; i < m; ++i)
      if (idx[i] == t) {
        a *= src[i];
        r *= src[i];
        b *= src[i] == 0.0 && zeros == 1 ? 1 : src[i];
      }
    res[t] = r;
    gx[t] = fresh ? 0 : g[t] * a / (x[t] == 0 ? 1 : x[t]);
    for (int64_t i = 0; i < m; ++i)
      if (idx[i] == t)
        gs[i] = src[i] == 0.0 && zeros == 1
                    ? g[t] * b
                    : g[t] * r / (src[i] == 0.0 ? 1 : src[i]);
  }
}

/* A line of prod longer than the dense scratch allows (4 doubles a
 * position past backward_scratch) takes the path grouped by target
 * (reduce_backward_grouped.c): targets with no, one and two zero updates,
 * zeros, a NaN and an infinity in x, each gradient as by the definition. */
static void test_grouped_prod(void) {
  enum { N = 20000, M = 3000 };
  static double g[N], x[N], gx[N], want_gx[N], res[N];
  static double src[M], gs[M], want_gs[M];
  static int64_t idx[M];
  uint64_t seed = 99;
  for (int i = 0; i < N; ++i) {
    g[i] = 1 + (i % 7);
    x[i] = i % 11 == 0    ? 0
           : i % 101 == 0 ? NAN
           : i % 103 == 0 ? INFINITY
                          : 0.5 * (i % 13);
  }
  for (int i = 0; i < M; ++i) {
    seed = seed * 6364136223846793005u + 1442695040888963407u;
    idx[i] = (int64_t)((seed >> 33) % 700) * 28; /* about 4 a target */
    src[i] = (seed >> 20) % 5 == 0 ? 0.0 : 0.25 * (double)((seed >> 40) % 9);
  }
  const int64_t n = N, m = M;
  sl_tensor tg = sl_tensor_make(SL_F64, 1, &n, g);
  sl_tensor tx = sl_tensor_make(SL_F64, 1, &n, x);
  sl_tensor tr = sl_tensor_make(SL_F64, 1, &n, res);
  sl_tensor tgx = sl_tensor_make(SL_F64, 1, &n, gx);
  sl_tensor ti = sl_tensor_make(SL_I64, 1, &m, idx);
  sl_tensor ts = sl_tensor_make(SL_F64, 1, &m, src);
  sl_tensor tgs = sl_tensor_make(SL_F64, 1, &m, gs);
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  for (int self = 0; self < 2; ++self) {
    naive_prod_line(N, M, g, x, idx, src, self, res, want_gx, want_gs);
    FOR_EACH_VARIANT(SL_OP_SCATTER_REDUCE_BACKWARD, v) {
      CHECK(run_bw(&ctx, v->name, SL_OP_SCATTER_REDUCE_BACKWARD, &tg, &tx, &ti,
                   &ts, &tr, &tgx, sizeof gx, &tgs, sizeof gs, 0,
                   SL_REDUCE_PROD, self) == SL_STATUS_OK);
      int bad = 0;
      for (int i = 0; i < N; ++i) bad += !same_f(gx[i], want_gx[i]);
      for (int i = 0; i < M; ++i) bad += !same_f(gs[i], want_gs[i]);
      CHECK_MSG(bad == 0, "%s self %d: %d of %d gradients differ", v->name,
                self, bad, N + M);
    }
  }
}

/* dtype dt's bits of v (f32 as its float bits), and back, for
 * test_packed_amax. */
static uint32_t packed_bits(sl_dtype dt, double v) {
  float f = (float)v;
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return dt == SL_F16    ? sl_f32_to_f16(f)
         : dt == SL_BF16 ? sl_f32_to_bf16(f)
                         : u;
}
static double packed_value(sl_dtype dt, const void *p, int64_t i) {
  const uint16_t *h = p;
  return dt == SL_F16    ? sl_f16_to_f32(h[i])
         : dt == SL_BF16 ? sl_bf16_to_f32(h[i])
                         : ((const float *)p)[i];
}
static double packed_round(sl_dtype dt, double v) {
  uint32_t bits = packed_bits(dt, v);
  return packed_value(dt, &bits, 0); /* little-endian: the low half */
}
static void packed_store(sl_dtype dt, void *p, int64_t i, double v) {
  if (dt == SL_F32)
    ((float *)p)[i] = (float)v;
  else
    ((uint16_t *)p)[i] = (uint16_t)packed_bits(dt, v);
}

/* amax/amin of one line longer than backward_scratch (f16, bf16, f32: the
 * packed records of reduce_backward_packed.c, its passes on 3 and 2
 * threads for cpu.omp) against the formulas of reduce.h written here:
 * values from {0, 1, 2, NaN} so that many tie with the result, about 3
 * contributions a targeted position, untargeted ones, and the ends of the
 * threads' chunks of positions targeted. */
static void check_packed_amax(sl_dtype dt) {
  enum { N = 70000, M = 30000 };
  static float g[N], x[N], res[N], src[M];
  static double cnt[N];
  static uint32_t hx[N], hg[N], hr[N], hs[M], gx[N], gs[M];
  static int64_t idx[M];
  static uint8_t targeted[N];
  uint64_t seed = 5;
  for (int i = 0; i < N; ++i) {
    g[i] = 0.25f * (float)(i % 9) - 1;
    x[i] = i % 17 == 0 ? NAN : (float)(i % 3);
    res[i] = (float)((i / 2) % 3);
  }
  memset(targeted, 0, sizeof targeted);
  /* the ends of the threads' position chunks (2 and 3 threads) targeted
   * too: each thread counts into its own positions */
  const int64_t edges[8] = {0,     N - 1, N / 2 - 1, N / 2,
                            23333, 23334, 46666,     46667};
  for (int i = 0; i < M; ++i) {
    seed = seed * 6364136223846793005u + 1442695040888963407u;
    idx[i] = i < 8 ? edges[i] : (int64_t)((seed >> 33) % 10000) * 7;
    src[i] = (seed >> 20) % 13 == 0 ? NAN : (float)((seed >> 40) % 3);
    targeted[idx[i]] = 1;
  }
  for (int i = 0; i < N; ++i) {
    packed_store(dt, hx, i, x[i]);
    packed_store(dt, hg, i, g[i]);
    packed_store(dt, hr, i, res[i]);
  }
  for (int i = 0; i < M; ++i) packed_store(dt, hs, i, src[i]);
  const int64_t n = N, m = M;
  sl_tensor tg = sl_tensor_make(dt, 1, &n, hg),
            tx = sl_tensor_make(dt, 1, &n, hx);
  sl_tensor tr = sl_tensor_make(dt, 1, &n, hr),
            tgx = sl_tensor_make(dt, 1, &n, gx);
  sl_tensor ti = sl_tensor_make(SL_I64, 1, &m, idx);
  sl_tensor ts = sl_tensor_make(dt, 1, &m, hs),
            tgs = sl_tensor_make(dt, 1, &m, gs);
  for (int i = 0; i < N; ++i) cnt[i] = x[i] == res[i];
  for (int i = 0; i < M; ++i) cnt[idx[i]] += src[i] == res[idx[i]];
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  int calls = 0, starts_after_first = 0;
  for (int run = 0; run < 4; ++run)
    FOR_EACH_VARIANT(SL_OP_SCATTER_REDUCE_BACKWARD, v) {
      const int self = run % 2;
      ctx.threads = run < 2 ? 3 : 2;
      /* from the second call on, the pool of 3 threads exists */
      if (calls++ == 1) starts_after_first = sl_test_thread_starts();
      CHECK(run_bw(&ctx, v->name, SL_OP_SCATTER_REDUCE_BACKWARD, &tg, &tx, &ti,
                   &ts, &tr, &tgx, sizeof gx, &tgs, sizeof gs, 0,
                   self ? SL_REDUCE_AMAX : SL_REDUCE_AMIN,
                   self) == SL_STATUS_OK);
      int bad = 0;
      for (int i = 0; i < N; ++i) {
        const double share = (double)(float)((double)g[i] / cnt[i]);
        const double want =
            !self && targeted[i] ? 0.0 : (x[i] == res[i]) * share;
        bad += !same_f(packed_value(dt, gx, i), packed_round(dt, want));
      }
      for (int i = 0; i < M; ++i) {
        const int64_t t = idx[i];
        const double want =
            (src[i] == res[t]) * (double)(float)((double)g[t] / cnt[t]);
        bad += !same_f(packed_value(dt, gs, i), packed_round(dt, want));
      }
      CHECK_MSG(bad == 0,
                "%s %s self %d on %d threads: %d of %d gradients "
                "differ",
                sl_dtype_name(dt), v->name, self, ctx.threads, bad, N + M);
    }
  /* one line of 70000 positions: the packed path, on the pool's threads */
  const int started = sl_test_thread_starts() - starts_after_first;
  CHECK_MSG(sl_test_thread_starts() < 0 || started == 0,
            "%s: the calls after the first started %d threads, expected 0 "
            "(OpenMP's pool has 3)",
            sl_dtype_name(dt), started);
}

static void test_packed_amax(void) {
  check_packed_amax(SL_F32);
  check_packed_amax(SL_F16);
  check_packed_amax(SL_BF16);
}

/* mean of one line longer than backward_scratch (f16, bf16, f32: the int32
 * counts of reduce_backward_mean.c, split by range of positions on 3 and 2
 * threads for cpu.omp), an i64 and an i32 index, against g / N rounded to
 * f32, then to the dtype (grad_x 0 at a target without x): about 3
 * contributions a targeted position, untargeted ones (N = 0 without x:
 * divided by 1), and the ends of the threads' chunks of positions
 * targeted. */
static void check_mean_line(sl_dtype dt) {
  enum { N = 70000, M = 30000 };
  static float g[N];
  static double cnt[N];
  static uint32_t hg[N], hx[N], hs[M], gx[N], gs[M];
  static int64_t idx[M];
  static int32_t idx32[M];
  const int64_t edges[8] = {0,     N - 1, N / 2 - 1, N / 2,
                            23333, 23334, 46666,     46667};
  uint64_t seed = 11;
  for (int i = 0; i < N; ++i) {
    g[i] = i % 23 == 5 ? NAN : 0.37f * (float)(i % 11) - 1.5f;
    packed_store(dt, hg, i, g[i]);
    packed_store(dt, hx, i, 1.0);
    cnt[i] = 0;
  }
  for (int i = 0; i < M; ++i) {
    seed = seed * 6364136223846793005u + 1442695040888963407u;
    idx[i] = i < 8 ? edges[i] : (int64_t)((seed >> 33) % 10000) * 7;
    idx32[i] = (int32_t)idx[i];
    packed_store(dt, hs, i, 2.0);
    cnt[idx[i]] += 1;
  }
  const int64_t n = N, m = M;
  sl_tensor tg = sl_tensor_make(dt, 1, &n, hg),
            tx = sl_tensor_make(dt, 1, &n, hx);
  sl_tensor tgx = sl_tensor_make(dt, 1, &n, gx);
  sl_tensor ti64 = sl_tensor_make(SL_I64, 1, &m, idx),
            ti32 = sl_tensor_make(SL_I32, 1, &m, idx32);
  sl_tensor ts = sl_tensor_make(dt, 1, &m, hs),
            tgs = sl_tensor_make(dt, 1, &m, gs);
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  for (int run = 0; run < 4; ++run)
    FOR_EACH_VARIANT(SL_OP_SCATTER_REDUCE_BACKWARD, v) {
      const int self = run % 2;
      ctx.threads = run < 2 ? 3 : 2;
      CHECK(run_bw(&ctx, v->name, SL_OP_SCATTER_REDUCE_BACKWARD, &tg, &tx,
                   run < 2 ? &ti64 : &ti32, &ts, &tx, &tgx, sizeof gx, &tgs,
                   sizeof gs, 0, SL_REDUCE_MEAN, self) == SL_STATUS_OK);
      int bad = 0;
      for (int i = 0; i < N; ++i) {
        const double count = cnt[i] + self == 0 ? 1 : cnt[i] + self;
        const double gi = packed_value(dt, hg, i); /* g in the dtype */
        const double share = (double)(float)(gi / count);
        const double want = !self && cnt[i] ? 0.0 : share;
        bad += !same_f(packed_value(dt, gx, i), packed_round(dt, want));
      }
      for (int i = 0; i < M; ++i) {
        const int64_t t = idx[i];
        const double share =
            (double)(float)(packed_value(dt, hg, t) / (cnt[t] + self));
        bad += !same_f(packed_value(dt, gs, i), packed_round(dt, share));
      }
      CHECK_MSG(bad == 0, "%s %s mean self %d on %d threads: %d of %d differ",
                sl_dtype_name(dt), v->name, self, ctx.threads, bad, N + M);
    }
}

static void test_mean_line(void) {
  check_mean_line(SL_F32);
  check_mean_line(SL_F16);
  check_mean_line(SL_BF16);
}

/* The value at p of dtype dt (f32, f64, f16 or bf16). */
static double points_get(sl_dtype dt, const void *p) {
  uint16_t h = 0;
  if (dt == SL_F16 || dt == SL_BF16) memcpy(&h, p, sizeof h);
  return dt == SL_F32   ? *(const float *)p
         : dt == SL_F64 ? *(const double *)p
         : dt == SL_F16 ? sl_f16_to_f32(h)
                        : sl_bf16_to_f32(h);
}

/* Element i of a test array of dtype dt from v (f32, f64, f16 or bf16). */
static void points_put(sl_dtype dt, void *a, int64_t i, double v) {
  if (dt == SL_F32) ((float *)a)[i] = (float)v;
  if (dt == SL_F64) ((double *)a)[i] = v;
  if (dt == SL_F16) ((uint16_t *)a)[i] = sl_f32_to_f16((float)v);
  if (dt == SL_BF16) ((uint16_t *)a)[i] = sl_f32_to_bf16((float)v);
}

/* Whether count elements of dtype dt agree bit for bit, any NaN with any
 * (the float path keeps a NaN's payload, the half instance may not). */
static int points_same(sl_dtype dt, const void *a, const void *b,
                       int64_t count) {
  const int64_t es = (int64_t)sl_dtype_size(dt);
  for (int64_t i = 0; i < count; ++i) {
    const char *pa = (const char *)a + i * es, *pb = (const char *)b + i * es;
    if (isnan(points_get(dt, pa)) && isnan(points_get(dt, pb))) continue;
    if (memcmp(pa, pb, (size_t)es)) return 0;
  }
  return 1;
}

/* scatter_reduce_backward along an extent-1 dim: L lines of one position
 * and m contributions each (index all 0), side by side and with src and
 * grad_src every other element (evenly spaced), against the same lines one
 * call each (a line alone takes the general formulas): the same bits, for
 * every floating dtype, reduce, include_self and m of 1 and 3, with zeros
 * (one and two a line), NaN, inf and ties with the result. */
enum { PL = 300, PM = 3 };
typedef struct points_set {
  double g[PL], x[PL], res[PL], src[PL * PM * 2], gx[PL], gs[PL * PM * 2];
  double gx1[PL], gs1[PL * PM * 2];
  int64_t idx[PL * PM];
} points_set;

static void points_fill(points_set *t, sl_dtype dt, int64_t m) {
  static const double vals[] = {0.0, 2.0, -0.0, 1.5, NAN, INFINITY, 3.0, 0.5};
  for (int64_t l = 0; l < PL; ++l) {
    points_put(dt, t->g, l, 0.25 * (double)(l % 7) - 0.5);
    points_put(dt, t->x, l, vals[l % 8]);
    for (int64_t i = 0; i < m; ++i)
      points_put(dt, t->src, 2 * (l * m + i), vals[(l * 3 + i * 5) % 8]);
    /* ties: the result equal to x, to the first contribution, or neither */
    points_put(dt, t->res, l,
               l % 3 == 0   ? vals[l % 8]
               : l % 3 == 1 ? vals[(l * 3) % 8]
                            : 7.0);
  }
  memset(t->idx, 0, sizeof t->idx);
}

/* Whether points_run's tensors get a trailing axis of extent 1. */
static int points_trail;

/* Runs the L lines (lines == PL: one call; 1: a call per line) with src
 * and grad_src strided by `spread` (1 or 2); grad_x and grad_src land in
 * gx and gs. */
static int points_run(const char *variant, points_set *t, sl_dtype dt,
                      int64_t m, int spread, sl_reduce r, int self, int lines,
                      void *gx, void *gs) {
  const int64_t es = (int64_t)sl_dtype_size(dt);
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  for (int64_t l0 = 0; l0 < PL; l0 += lines) {
    /* index_reduce_backward with a trailing axis of extent 1 (x [L,1,1]
     * along dim 1, index [m]): the runs go along axis 0, not axis 2 */
    const int64_t xs[3] = {lines, 1, 1}, us[3] = {lines, m, 1};
    const int nd = points_trail ? 3 : 2;
    const sl_op op = points_trail ? SL_OP_INDEX_REDUCE_BACKWARD
                                  : SL_OP_SCATTER_REDUCE_BACKWARD;
    sl_tensor g = sl_tensor_make(dt, nd, xs, (char *)t->g + l0 * es);
    sl_tensor x = sl_tensor_make(dt, nd, xs, (char *)t->x + l0 * es);
    sl_tensor res = sl_tensor_make(dt, nd, xs, (char *)t->res + l0 * es);
    sl_tensor tgx = sl_tensor_make(dt, nd, xs, (char *)gx + l0 * es);
    sl_tensor src =
        sl_tensor_make(dt, nd, us, (char *)t->src + 2 * l0 * m * es);
    sl_tensor tgs = sl_tensor_make(dt, nd, us, (char *)gs + 2 * l0 * m * es);
    sl_tensor ti = points_trail ? sl_tensor_make(SL_I64, 1, &m, t->idx)
                                : sl_tensor_make(SL_I64, nd, us, t->idx);
    src.strides[1] = tgs.strides[1] = spread;
    src.strides[0] = tgs.strides[0] = 2 * m; /* src walks line by line */
    if (run_bw(&ctx, variant, op, &g, &x, &ti, &src, &res, &tgx, 0, &tgs, 0, 1,
               r, self) != SL_STATUS_OK)
      return 0;
  }
  return 1;
}

static void test_points(void) {
  static points_set t;
  for (points_trail = 0; points_trail < 2; ++points_trail) {
    const sl_dtype dts[] = {SL_F32, SL_F64, SL_F16, SL_BF16};
    const sl_reduce reds[] = {SL_REDUCE_SUM, SL_REDUCE_MEAN, SL_REDUCE_PROD,
                              SL_REDUCE_AMAX, SL_REDUCE_AMIN};
    for (size_t d = 0; d < sizeof dts / sizeof *dts; ++d)
      for (int64_t m = 1; m <= PM; m += PM - 1) {
        const int64_t es = (int64_t)sl_dtype_size(dts[d]);
        const size_t gx_bytes = (size_t)(PL * es),
                     gs_bytes = (size_t)(2 * PL * m * es);
        points_fill(&t, dts[d], m);
        FOR_EACH_VARIANT(SL_OP_SCATTER_REDUCE_BACKWARD, v) {
          for (size_t r = 0; r < sizeof reds / sizeof *reds; ++r)
            for (int self = 0; self < 2; ++self)
              for (int spread = 1; spread <= 2; ++spread) {
                memset(t.gx, 0x5a, gx_bytes), memset(t.gs, 0x5a, gs_bytes);
                memset(t.gx1, 0x5a, gx_bytes), memset(t.gs1, 0x5a, gs_bytes);
                CHECK(points_run(v->name, &t, dts[d], m, spread, reds[r], self,
                                 PL, t.gx, t.gs));
                CHECK(points_run("cpu.serial", &t, dts[d], m, spread, reds[r],
                                 self, 1, t.gx1, t.gs1));
                CHECK_MSG(points_same(dts[d], t.gx, t.gx1, PL) &&
                              points_same(dts[d], t.gs, t.gs1, 2 * PL * m),
                          "%s %s m %lld reduce %d self %d spread %d trail %d: "
                          "the lines together differ from one at a time",
                          sl_dtype_name(dts[d]), v->name, (long long)m,
                          (int)reds[r], self, spread, points_trail);
              }
        }
      }
  }
}

/* scatter_reduce_backward along the last axis of x [4, 5, 20] with an
 * index [4, 2, 4]: in each block of 5 lines the last 3 have no
 * contributions and are taken as one run of positions, the next block's
 * first lines again have some (the 20 lines split 7/7/6 on three threads,
 * so that a run ends inside a thread's share). Against the same call with
 * grad_x every other element (lines not contiguous: a line at a time): the same
 * bits (any NaN with any), for every floating dtype, reduce and include_self.
 */
static void test_bare_runs(void) {
  enum { A = 4, B = 5, N = 20, BI = 2, M = 4 };
  static double g[A * B * N], x[A * B * N], res[A * B * N], src[A * BI * M];
  static double gx[A * B * N], gs[A * BI * M], gx2[2 * A * B * N],
      gs2[A * BI * M];
  static int64_t idx[A * BI * M];
  const sl_dtype dts[] = {SL_F32, SL_F64, SL_F16, SL_BF16};
  const sl_reduce reds[] = {SL_REDUCE_SUM, SL_REDUCE_MEAN, SL_REDUCE_PROD,
                            SL_REDUCE_AMAX, SL_REDUCE_AMIN};
  static const double vals[] = {0.0, 2.0, -0.0, 1.5, NAN, INFINITY, 3.0};
  const int64_t xs[3] = {A, B, N}, us[3] = {A, BI, M};
  for (size_t d = 0; d < sizeof dts / sizeof *dts; ++d) {
    const sl_dtype dt = dts[d];
    for (int i = 0; i < A * B * N; ++i) {
      points_put(dt, g, i, 0.5 * (double)(i % 5) - 1);
      points_put(dt, x, i, vals[i % 7]);
      points_put(dt, res, i, vals[(i / 3) % 7]);
    }
    for (int i = 0; i < A * BI * M; ++i) {
      points_put(dt, src, i, vals[(i * 3) % 7]);
      idx[i] = (i * 7) % N;
    }
    sl_tensor tg = sl_tensor_make(dt, 3, xs, g),
              tx = sl_tensor_make(dt, 3, xs, x);
    sl_tensor tr = sl_tensor_make(dt, 3, xs, res);
    sl_tensor tsrc = sl_tensor_make(dt, 3, us, src);
    sl_tensor ti = sl_tensor_make(SL_I64, 3, us, idx);
    sl_tensor tgx = sl_tensor_make(dt, 3, xs, gx);
    sl_tensor tgs = sl_tensor_make(dt, 3, us, gs);
    sl_tensor tgx2 = sl_tensor_make(dt, 3, xs, gx2);
    sl_tensor tgs2 = sl_tensor_make(dt, 3, us, gs2);
    for (int k = 0; k < 3; ++k) tgx2.strides[k] *= 2;
    sl_ctx ctx;
    sl_ctx_init(&ctx);
    FOR_EACH_VARIANT(SL_OP_SCATTER_REDUCE_BACKWARD, v) {
      for (size_t r = 0; r < sizeof reds / sizeof *reds; ++r)
        for (int self = 0; self < 2; ++self) {
          CHECK(run_bw(&ctx, v->name, SL_OP_SCATTER_REDUCE_BACKWARD, &tg, &tx,
                       &ti, &tsrc, &tr, &tgx, sizeof gx, &tgs, sizeof gs, 2,
                       reds[r], self) == SL_STATUS_OK);
          CHECK(run_bw(&ctx, v->name, SL_OP_SCATTER_REDUCE_BACKWARD, &tg, &tx,
                       &ti, &tsrc, &tr, &tgx2, sizeof gx2, &tgs2, sizeof gs2, 2,
                       reds[r], self) == SL_STATUS_OK);
          const int64_t es = (int64_t)sl_dtype_size(dt);
          int bad = !points_same(dt, gs, gs2, A * BI * M);
          for (int64_t i = 0; i < A * B * N; ++i)
            bad += !points_same(dt, (char *)gx + i * es,
                                (char *)gx2 + 2 * i * es, 1);
          CHECK_MSG(bad == 0,
                    "%s %s reduce %d self %d: %d elements differ from the "
                    "line-at-a-time call",
                    sl_dtype_name(dt), v->name, (int)reds[r], self, bad);
        }
    }
  }
}

int main(void) {
  test_scatter_1d();
  test_scatter_ties();
  test_scatter_nan_inf();
  test_scatter_2d_strides();
  test_scatter_sum_self_dim1();
  test_scatter_bf16();
  test_index_seed001();
  test_index_0d_and_axis1();
  test_few_columns();
  test_one_block();
  test_omp_matches_serial();
  test_sparse_matches_dense();
  test_grouped_prod();
  test_half_lines_match();
  test_half_as_f32();
  test_packed_amax();
  test_mean_line();
  test_points();
  test_bare_runs();
  test_shares_match_lines(SL_F16);
  test_shares_match_lines(SL_BF16);
  test_shares_match_lines(SL_F32);
  test_bad_input();
  test_empty();
  return sl_test_finish("test_reduce_backward");
}
