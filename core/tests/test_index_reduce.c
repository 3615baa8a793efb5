/*
 * index_reduce (Paddle's scatter with axis and reduce, seed 001) on every
 * CPU variant of the table: seed 001's example, every reduce with and
 * without x, the 0-D index, NaN, -0.0, integer floor mean and wrap-around,
 * f16/bf16, strides, assign on movement dtypes, empty index, and one test
 * per bad-input status that applies. Expected values are computed by hand.
 */
#include <complex.h>
#include <math.h>
#include <stdint.h>

#include "core_test.h"
#include "naive_reduce.h"
#include "sl/sl.h"
#include "sl_test.h"

/* Runs index_reduce on variant v (out poisoned first unless out_bytes is
 * 0) with 3 threads for cpu.omp. */
static sl_status run_ir(sl_ctx *ctx, const char *variant, const sl_tensor *x,
                        int64_t dim, const sl_tensor *index,
                        const sl_tensor *updates, sl_reduce r, int self,
                        sl_tensor *out, size_t out_bytes) {
  if (out_bytes) memset(out->data, 0x5a, out_bytes);
  return run_index_reduce(ctx, variant, x, dim, index, updates, r, self, out);
}

/* Seed 001: x=[[1,1],[2,2],[3,3]], index=[2,1,0,1],
 * updates=[[1,1],[2,2],[3,3],[4,4]]; overwrite=False (sum, x left out) gives
 * [[3,3],[6,6],[1,1]]; overwrite=True is assign (index_copy). */
static void test_seed001(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  float x[6] = {1, 1, 2, 2, 3, 3}, u[8] = {1, 1, 2, 2, 3, 3, 4, 4}, out[6];
  int64_t idx[4] = {2, 1, 0, 1};
  sl_tensor tx = sl_tensor_make(SL_F32, 2, (int64_t[]){3, 2}, x);
  sl_tensor ti = sl_tensor_make(SL_I64, 1, (int64_t[]){4}, idx);
  sl_tensor tu = sl_tensor_make(SL_F32, 2, (int64_t[]){4, 2}, u);
  sl_tensor to = sl_tensor_make(SL_F32, 2, (int64_t[]){3, 2}, out);
  /* Row r of out gathers updates rows i with index[i] == r:
   * row 0 <- u2 = 3; row 1 <- u1 = 2, u3 = 4; row 2 <- u0 = 1. */
  struct {
    sl_reduce r;
    int self;
    float want[3]; /* per row (both columns alike) */
  } cases[] = {
      {SL_REDUCE_SUM, 0, {3, 6, 1}},
      {SL_REDUCE_SUM, 1, {1 + 3, 2 + 6, 3 + 1}},
      {SL_REDUCE_ASSIGN, 0, {3, 4, 1}}, /* row 1: the last (4) wins */
      {SL_REDUCE_ASSIGN, 1, {3, 4, 1}},
      {SL_REDUCE_PROD, 1, {3, 16, 3}},
      {SL_REDUCE_PROD, 0, {3, 8, 1}},
      {SL_REDUCE_MEAN, 1, {2, 8.0f / 3.0f, 2}}, /* (1+3)/2, (2+2+4)/3 */
      {SL_REDUCE_MEAN, 0, {3, 3, 1}},
      {SL_REDUCE_AMAX, 1, {3, 4, 3}},
      {SL_REDUCE_AMAX, 0, {3, 4, 1}},
      {SL_REDUCE_AMIN, 1, {1, 2, 1}},
      {SL_REDUCE_AMIN, 0, {3, 2, 1}},
  };
  int ran = 0;
  FOR_EACH_VARIANT(SL_OP_INDEX_REDUCE, v) {
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
      CHECK(run_ir(&ctx, v->name, &tx, 0, &ti, &tu, cases[c].r, cases[c].self,
                   &to, sizeof out) == SL_STATUS_OK);
      /* Row 1 takes u1 = 2 and u3 = 4: assign may keep either on a
       * variant that is not deterministic (sl_test_any_writer). */
      for (int i = 0; i < 6; ++i)
        CHECK_MSG(out[i] == cases[c].want[i / 2] ||
                      (cases[c].r == SL_REDUCE_ASSIGN && i / 2 == 1 &&
                       sl_test_any_writer(v) && out[i] == 2),
                  "%s %s self=%d: [%d]=%g", v->name, sl_reduce_name(cases[c].r),
                  cases[c].self, i, out[i]);
    }
    ++ran;
  }
  CHECK(ran == 5); /* serial, omp, atomic, lock, sorted */
}

/* 3-D, axis 1, an i32 index, i64 data; position 1 along the axis is never
 * targeted and keeps x even without include_self. */
static void test_axis1_3d(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  /* x[a][b][c] = 6a + 2b + c; u[a][i][c] = 100 + 4a + 2i + c */
  int64_t x[12], u[8], out[12];
  for (int i = 0; i < 12; ++i) x[i] = i;
  for (int i = 0; i < 8; ++i) u[i] = 100 + i;
  int32_t idx[2] = {2, 0};
  sl_tensor tx = sl_tensor_make(SL_I64, 3, (int64_t[]){2, 3, 2}, x);
  sl_tensor ti = sl_tensor_make(SL_I32, 1, (int64_t[]){2}, idx);
  sl_tensor tu = sl_tensor_make(SL_I64, 3, (int64_t[]){2, 2, 2}, u);
  sl_tensor to = sl_tensor_make(SL_I64, 3, (int64_t[]){2, 3, 2}, out);
  /* sum: out[a][2][c] = x[a][2][c] + u[a][0][c], out[a][0][c] = x[a][0][c]
   * + u[a][1][c]: a=0: 4+100, 5+101; 0+102, 1+103; a=1: 10+104, 11+105;
   * 6+106, 7+107 */
  const int64_t sum[12] = {102, 104, 2, 3, 104, 106, 112, 114, 8, 9, 114, 116};
  const int64_t amin0[12] = {102, 103, 2, 3, 100, 101,
                             106, 107, 8, 9, 104, 105};
  FOR_EACH_VARIANT(SL_OP_INDEX_REDUCE, v) {
    CHECK(run_ir(&ctx, v->name, &tx, 1, &ti, &tu, SL_REDUCE_SUM, 1, &to,
                 sizeof out) == SL_STATUS_OK);
    CHECK(memcmp(out, sum, sizeof sum) == 0);
    CHECK(run_ir(&ctx, v->name, &tx, -2, &ti, &tu, SL_REDUCE_AMIN, 0, &to,
                 sizeof out) == SL_STATUS_OK);
    CHECK(memcmp(out, amin0, sizeof amin0) == 0);
  }
}

/* A 0-D index takes the (K-1)-D slice as updates (Paddle); rank-1 and
 * rank-0 x too. */
static void test_0d_index(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  float x[6] = {1, 1, 2, 2, 3, 3}, u[2] = {7, 8}, out[6];
  int64_t one = 1;
  sl_tensor tx = sl_tensor_make(SL_F32, 2, (int64_t[]){3, 2}, x);
  sl_tensor ti = sl_tensor_make(SL_I64, 0, NULL, &one);
  sl_tensor tu = sl_tensor_make(SL_F32, 1, (int64_t[]){2}, u);
  sl_tensor to = sl_tensor_make(SL_F32, 2, (int64_t[]){3, 2}, out);
  /* axis 1 of a 2x3 x: the slice is a column of 2 */
  float y[6] = {1, 1, 1, 1, 1, 1}, yo[6];
  sl_tensor ty = sl_tensor_make(SL_F32, 2, (int64_t[]){2, 3}, y);
  sl_tensor tyo = sl_tensor_make(SL_F32, 2, (int64_t[]){2, 3}, yo);
  /* rank 1 and rank 0 x: the slice is 0-D */
  float z[2] = {1, 2}, zu = 5, zo[2], s = 3, so;
  sl_tensor tz = sl_tensor_make(SL_F32, 1, (int64_t[]){2}, z);
  sl_tensor tzu = sl_tensor_make(SL_F32, 0, NULL, &zu);
  sl_tensor tzo = sl_tensor_make(SL_F32, 1, (int64_t[]){2}, zo);
  sl_tensor ts = sl_tensor_make(SL_F32, 0, NULL, &s);
  sl_tensor tso = sl_tensor_make(SL_F32, 0, NULL, &so);
  int64_t zero = 0;
  sl_tensor ti0 = sl_tensor_make(SL_I64, 0, NULL, &zero);
  /* a 1-D index of length 1 also takes a 0-D updates for a rank-1 x */
  sl_tensor ti1 = sl_tensor_make(SL_I64, 1, (int64_t[]){1}, &one);
  FOR_EACH_VARIANT(SL_OP_INDEX_REDUCE, v) {
    CHECK(run_ir(&ctx, v->name, &tx, 0, &ti, &tu, SL_REDUCE_AMAX, 1, &to,
                 sizeof out) == SL_STATUS_OK);
    CHECK(out[0] == 1 && out[1] == 1 && out[2] == 7 && out[3] == 8 &&
          out[4] == 3 && out[5] == 3);
    CHECK(run_ir(&ctx, v->name, &tx, 0, &ti, &tu, SL_REDUCE_SUM, 1, &to,
                 sizeof out) == SL_STATUS_OK);
    CHECK(out[2] == 9 && out[3] == 10 && out[0] == 1 && out[5] == 3);
    CHECK(run_ir(&ctx, v->name, &ty, 1, &ti, &tu, SL_REDUCE_ASSIGN, 1, &tyo,
                 sizeof yo) == SL_STATUS_OK);
    CHECK(yo[0] == 1 && yo[1] == 7 && yo[2] == 1 && yo[3] == 1 && yo[4] == 8 &&
          yo[5] == 1);
    CHECK(run_ir(&ctx, v->name, &tz, 0, &ti, &tzu, SL_REDUCE_PROD, 1, &tzo,
                 sizeof zo) == SL_STATUS_OK);
    CHECK(zo[0] == 1 && zo[1] == 10);
    CHECK(run_ir(&ctx, v->name, &tz, 0, &ti1, &tzu, SL_REDUCE_MEAN, 1, &tzo,
                 sizeof zo) == SL_STATUS_OK);
    CHECK(zo[0] == 1 && zo[1] == 3.5f);
    CHECK(run_ir(&ctx, v->name, &ts, 0, &ti0, &tzu, SL_REDUCE_SUM, 1, &tso,
                 sizeof so) == SL_STATUS_OK);
    CHECK(so == 8);
    CHECK(run_ir(&ctx, v->name, &ts, -1, &ti0, &tzu, SL_REDUCE_PROD, 0, &tso,
                 sizeof so) == SL_STATUS_OK);
    CHECK(so == 5);
  }
}

/* NaN propagates through amax/amin; include_self=false leaves an
 * untargeted NaN alone. -0.0 against 0.0: the value already there stays
 * (x, or the first update), as LibTorch's 1-D loop does. */
static void test_nan_and_signed_zero(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  float x[3] = {1, NAN, 3}, u[4] = {NAN, 2, 5, 1}, out[3];
  int64_t idx[4] = {0, 0, 1, 2};
  sl_tensor tx = sl_tensor_make(SL_F32, 1, (int64_t[]){3}, x);
  sl_tensor ti = sl_tensor_make(SL_I64, 1, (int64_t[]){4}, idx);
  sl_tensor tu = sl_tensor_make(SL_F32, 1, (int64_t[]){4}, u);
  sl_tensor to = sl_tensor_make(SL_F32, 1, (int64_t[]){3}, out);
  float zx[2] = {0.0f, -0.0f}, zu[2] = {-0.0f, 0.0f}, zo[2];
  float du[4] = {-0.0f, 0.0f, 0.0f, -0.0f};
  int64_t zi[2] = {0, 1}, di[4] = {0, 0, 1, 1};
  sl_tensor tzx = sl_tensor_make(SL_F32, 1, (int64_t[]){2}, zx);
  sl_tensor tzu = sl_tensor_make(SL_F32, 1, (int64_t[]){2}, zu);
  sl_tensor tzi = sl_tensor_make(SL_I64, 1, (int64_t[]){2}, zi);
  sl_tensor tzo = sl_tensor_make(SL_F32, 1, (int64_t[]){2}, zo);
  sl_tensor tdu = sl_tensor_make(SL_F32, 1, (int64_t[]){4}, du);
  sl_tensor tdi = sl_tensor_make(SL_I64, 1, (int64_t[]){4}, di);
  float nx[3] = {NAN, 4, 6};
  sl_tensor tnx = sl_tensor_make(SL_F32, 1, (int64_t[]){3}, nx);
  int64_t ni[1] = {1};
  float nu[1] = {9};
  sl_tensor tni = sl_tensor_make(SL_I64, 1, (int64_t[]){1}, ni);
  sl_tensor tnu = sl_tensor_make(SL_F32, 1, (int64_t[]){1}, nu);
  FOR_EACH_VARIANT(SL_OP_INDEX_REDUCE, v) {
    CHECK(run_ir(&ctx, v->name, &tx, 0, &ti, &tu, SL_REDUCE_AMAX, 1, &to,
                 sizeof out) == SL_STATUS_OK);
    CHECK(isnan(out[0]) && isnan(out[1]) && out[2] == 3);
    CHECK(run_ir(&ctx, v->name, &tx, 0, &ti, &tu, SL_REDUCE_AMIN, 0, &to,
                 sizeof out) == SL_STATUS_OK);
    CHECK(isnan(out[0]) && out[1] == 5 && out[2] == 1);
    CHECK(run_ir(&ctx, v->name, &tnx, 0, &tni, &tnu, SL_REDUCE_AMIN, 0, &to,
                 sizeof out) == SL_STATUS_OK);
    CHECK(isnan(out[0]) && out[1] == 9 && out[2] == 6);
    for (int r = SL_REDUCE_AMAX; r <= SL_REDUCE_AMIN; ++r) {
      CHECK(run_ir(&ctx, v->name, &tzx, 0, &tzi, &tzu, (sl_reduce)r, 1, &tzo,
                   sizeof zo) == SL_STATUS_OK);
      CHECK(same_f(zo[0], 0.0f) && same_f(zo[1], -0.0f));
      CHECK(run_ir(&ctx, v->name, &tzx, 0, &tdi, &tdu, (sl_reduce)r, 0, &tzo,
                   sizeof zo) == SL_STATUS_OK);
      CHECK(same_f(zo[0], -0.0f) && same_f(zo[1], 0.0f));
    }
  }
}

/* The same rules in f16 and bf16, whose amax and amin pick an operand's
 * bits by whole slices (index_reduce_slices.c, a branch-free pick): a NaN
 * update wins, a NaN in x stays, a tie (+0.0 against -0.0) keeps what is
 * there, with and without x. */
static void test_half_nan_and_signed_zero(void) {
  const float x[3] = {1, NAN, 3}, u[4] = {NAN, 2, 5, 1};
  const float zx[2] = {0.0f, -0.0f}, zu[2] = {-0.0f, 0.0f};
  const float du[4] = {-0.0f, 0.0f, 0.0f, -0.0f};
  int64_t idx[4] = {0, 0, 1, 2}, zi[2] = {0, 1}, di[4] = {0, 0, 1, 1};
  const sl_dtype dts[2] = {SL_F16, SL_BF16};
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  for (int d = 0; d < 2; ++d) {
    uint16_t (*to)(float) = d ? sl_f32_to_bf16 : sl_f32_to_f16;
    float (*from)(uint16_t) = d ? sl_bf16_to_f32 : sl_f16_to_f32;
    uint16_t hx[3], hu[4], hzx[2], hzu[2], hdu[4], ho[3];
    for (int i = 0; i < 3; ++i) hx[i] = to(x[i]);
    for (int i = 0; i < 4; ++i) hu[i] = to(u[i]), hdu[i] = to(du[i]);
    for (int i = 0; i < 2; ++i) hzx[i] = to(zx[i]), hzu[i] = to(zu[i]);
    const sl_dtype dt = dts[d];
    sl_tensor tx = sl_tensor_make(dt, 1, (int64_t[]){3}, hx);
    sl_tensor tu = sl_tensor_make(dt, 1, (int64_t[]){4}, hu);
    sl_tensor to3 = sl_tensor_make(dt, 1, (int64_t[]){3}, ho);
    sl_tensor tzx = sl_tensor_make(dt, 1, (int64_t[]){2}, hzx);
    sl_tensor tzu = sl_tensor_make(dt, 1, (int64_t[]){2}, hzu);
    sl_tensor tdu = sl_tensor_make(dt, 1, (int64_t[]){4}, hdu);
    sl_tensor to2 = sl_tensor_make(dt, 1, (int64_t[]){2}, ho);
    sl_tensor ti = sl_tensor_make(SL_I64, 1, (int64_t[]){4}, idx);
    sl_tensor tzi = sl_tensor_make(SL_I64, 1, (int64_t[]){2}, zi);
    sl_tensor tdi = sl_tensor_make(SL_I64, 1, (int64_t[]){4}, di);
    FOR_EACH_VARIANT(SL_OP_INDEX_REDUCE, v) {
      CHECK(run_ir(&ctx, v->name, &tx, 0, &ti, &tu, SL_REDUCE_AMAX, 1, &to3,
                   sizeof ho) == SL_STATUS_OK);
      CHECK_MSG(isnan(from(ho[0])) && isnan(from(ho[1])) && from(ho[2]) == 3,
                "%s %s amax: %g %g %g", sl_dtype_name(dt), v->name, from(ho[0]),
                from(ho[1]), from(ho[2]));
      CHECK(run_ir(&ctx, v->name, &tx, 0, &ti, &tu, SL_REDUCE_AMIN, 0, &to3,
                   sizeof ho) == SL_STATUS_OK);
      CHECK_MSG(isnan(from(ho[0])) && from(ho[1]) == 5 && from(ho[2]) == 1,
                "%s %s amin: %g %g %g", sl_dtype_name(dt), v->name, from(ho[0]),
                from(ho[1]), from(ho[2]));
      for (int r = SL_REDUCE_AMAX; r <= SL_REDUCE_AMIN; ++r) {
        CHECK(run_ir(&ctx, v->name, &tzx, 0, &tzi, &tzu, (sl_reduce)r, 1, &to2,
                     2 * sizeof *ho) == SL_STATUS_OK);
        CHECK_MSG(!signbit(from(ho[0])) && signbit(from(ho[1])),
                  "%s %s reduce %d: a tie took the update", sl_dtype_name(dt),
                  v->name, r);
        CHECK(run_ir(&ctx, v->name, &tzx, 0, &tdi, &tdu, (sl_reduce)r, 0, &to2,
                     2 * sizeof *ho) == SL_STATUS_OK);
        CHECK(signbit(from(ho[0])) && !signbit(from(ho[1])));
      }
    }
  }
}

/* Integers: floor mean, wrap-around of prod and sum. */
static void test_integers(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  int32_t x[2] = {-1, 7}, u[3] = {-2, -3, -3}, u2[3] = {-2, -3, -4}, out[2];
  int64_t idx[3] = {0, 1, 1};
  sl_tensor tx = sl_tensor_make(SL_I32, 1, (int64_t[]){2}, x);
  sl_tensor ti = sl_tensor_make(SL_I64, 1, (int64_t[]){3}, idx);
  sl_tensor tu = sl_tensor_make(SL_I32, 1, (int64_t[]){3}, u);
  sl_tensor tu2 = sl_tensor_make(SL_I32, 1, (int64_t[]){3}, u2);
  sl_tensor to = sl_tensor_make(SL_I32, 1, (int64_t[]){2}, out);
  int32_t w[1] = {100000}, wu[2] = {100000, 3}, mx[1] = {INT32_MAX};
  int32_t ones[2] = {1, 1}, wo[1];
  int64_t wi[2] = {0, 0};
  sl_tensor tw = sl_tensor_make(SL_I32, 1, (int64_t[]){1}, w);
  sl_tensor twu = sl_tensor_make(SL_I32, 1, (int64_t[]){2}, wu);
  sl_tensor tmx = sl_tensor_make(SL_I32, 1, (int64_t[]){1}, mx);
  sl_tensor tones = sl_tensor_make(SL_I32, 1, (int64_t[]){2}, ones);
  sl_tensor twi = sl_tensor_make(SL_I64, 1, (int64_t[]){2}, wi);
  sl_tensor two = sl_tensor_make(SL_I32, 1, (int64_t[]){1}, wo);
  FOR_EACH_VARIANT(SL_OP_INDEX_REDUCE, v) {
    /* (-1 + -2)/2 = -1.5 -> -2; (7 - 3 - 3)/3 = 1/3 -> 0 */
    CHECK(run_ir(&ctx, v->name, &tx, 0, &ti, &tu, SL_REDUCE_MEAN, 1, &to,
                 sizeof out) == SL_STATUS_OK);
    CHECK(out[0] == -2 && out[1] == 0);
    /* -2/1; (-3 - 4)/2 = -3.5 -> -4 */
    CHECK(run_ir(&ctx, v->name, &tx, 0, &ti, &tu2, SL_REDUCE_MEAN, 0, &to,
                 sizeof out) == SL_STATUS_OK);
    CHECK(out[0] == -2 && out[1] == -4);
    /* 1e5 * 1e5 * 3 = 3e10 -> -64771072 modulo 2^32 */
    CHECK(run_ir(&ctx, v->name, &tw, 0, &twi, &twu, SL_REDUCE_PROD, 1, &two,
                 sizeof wo) == SL_STATUS_OK);
    CHECK(wo[0] == -64771072);
    /* (2^31 - 1) + 2 = 2^31 + 1 -> -2^31 + 1 */
    CHECK(run_ir(&ctx, v->name, &tmx, 0, &twi, &tones, SL_REDUCE_SUM, 1, &two,
                 sizeof wo) == SL_STATUS_OK);
    CHECK(wo[0] == -2147483647);
    /* amax without x starts from INT32_MIN */
    CHECK(run_ir(&ctx, v->name, &tx, 0, &ti, &tu2, SL_REDUCE_AMAX, 0, &to,
                 sizeof out) == SL_STATUS_OK);
    CHECK(out[0] == -2 && out[1] == -3);
  }
}

/* f16 and bf16 accumulate in f32 and round once (sl__acc_dtype); the mean's
 * count is an f32 count, exact where a bf16 count would stop at 256. */
static void test_halves(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  uint16_t hx[6], hu[8], ho[6];
  const float sx[6] = {1, 1, 2, 2, 3, 3}, su[8] = {1, 1, 2, 2, 3, 3, 4, 4};
  for (int i = 0; i < 6; ++i) hx[i] = sl_f32_to_f16(sx[i]);
  for (int i = 0; i < 8; ++i) hu[i] = sl_f32_to_f16(su[i]);
  int64_t idx[4] = {2, 1, 0, 1};
  sl_tensor tx = sl_tensor_make(SL_F16, 2, (int64_t[]){3, 2}, hx);
  sl_tensor ti = sl_tensor_make(SL_I64, 1, (int64_t[]){4}, idx);
  sl_tensor tu = sl_tensor_make(SL_F16, 2, (int64_t[]){4, 2}, hu);
  sl_tensor to = sl_tensor_make(SL_F16, 2, (int64_t[]){3, 2}, ho);
  uint16_t big[1] = {sl_f32_to_f16(2048)};
  uint16_t bu[2] = {sl_f32_to_f16(1), sl_f32_to_f16(1)}, bo[1];
  int64_t bi[2] = {0, 0};
  sl_tensor tbig = sl_tensor_make(SL_F16, 1, (int64_t[]){1}, big);
  sl_tensor tbu = sl_tensor_make(SL_F16, 1, (int64_t[]){2}, bu);
  sl_tensor tbi = sl_tensor_make(SL_I64, 1, (int64_t[]){2}, bi);
  sl_tensor tbo = sl_tensor_make(SL_F16, 1, (int64_t[]){1}, bo);
  /* bf16: 150 pairs (+1, -1) then 3, into a 2-column row: sum 3, count
   * 301. */
  static uint16_t qx[2], qu[602], qo[2];
  static int64_t qi[301];
  for (int i = 0; i < 301; ++i) {
    float val = i == 300 ? 3.0f : (i % 2 ? -1.0f : 1.0f);
    qu[2 * i] = qu[2 * i + 1] = sl_f32_to_bf16(val);
    qi[i] = 0;
  }
  qx[0] = qx[1] = sl_f32_to_bf16(-5);
  sl_tensor tqx = sl_tensor_make(SL_BF16, 2, (int64_t[]){1, 2}, qx);
  sl_tensor tqu = sl_tensor_make(SL_BF16, 2, (int64_t[]){301, 2}, qu);
  sl_tensor tqi = sl_tensor_make(SL_I64, 1, (int64_t[]){301}, qi);
  sl_tensor tqo = sl_tensor_make(SL_BF16, 2, (int64_t[]){1, 2}, qo);
  FOR_EACH_VARIANT(SL_OP_INDEX_REDUCE, v) {
    CHECK(run_ir(&ctx, v->name, &tx, 0, &ti, &tu, SL_REDUCE_SUM, 0, &to,
                 sizeof ho) == SL_STATUS_OK);
    CHECK(sl_f16_to_f32(ho[0]) == 3 && sl_f16_to_f32(ho[3]) == 6 &&
          sl_f16_to_f32(ho[5]) == 1);
    /* 2048 + 1 + 1 accumulated in f32 (sl__acc_dtype) is 2050, which f16
     * holds */
    CHECK(run_ir(&ctx, v->name, &tbig, 0, &tbi, &tbu, SL_REDUCE_SUM, 1, &tbo,
                 sizeof bo) == SL_STATUS_OK);
    CHECK(sl_f16_to_f32(bo[0]) == 2050);
    CHECK(run_ir(&ctx, v->name, &tqx, 0, &tqi, &tqu, SL_REDUCE_MEAN, 0, &tqo,
                 sizeof qo) == SL_STATUS_OK);
    /* sum 3, f32 count 301: 3/301 -> bf16 0.009948730469 */
    CHECK(sl_bf16_to_f32(qo[0]) == 0.009948730469f &&
          sl_bf16_to_f32(qo[1]) == 0.009948730469f);
    /* with x (-5): sum -2, count 302: -2/302 -> bf16 -0.006622314453 */
    CHECK(run_ir(&ctx, v->name, &tqx, 0, &tqi, &tqu, SL_REDUCE_MEAN, 1, &tqo,
                 sizeof qo) == SL_STATUS_OK);
    CHECK(sl_bf16_to_f32(qo[0]) == -0.006622314453f);
  }
}

/* A transposed x and out, a stepped-slice updates and a stepped index. */
static void test_strides(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  float A[12], sb[12], ob[12];
  for (int i = 0; i < 12; ++i) A[i] = (float)i, sb[i] = 100.0f + (float)i;
  /* x[i][j] = 3j + i (3x4): [[0,3,6,9],[1,4,7,10],[2,5,8,11]] */
  sl_tensor xt = transposed_3x4(A);
  /* u[i][k] = sb[4i + 2k]: [[100,102],[104,106],[108,110]] */
  sl_tensor ut = sl_tensor_make(SL_F32, 2, (int64_t[]){3, 2}, sb);
  ut.strides[0] = 4;
  ut.strides[1] = 2;
  int64_t ib[3] = {3, 99, 0}; /* index = [3, 0], stride 2 */
  sl_tensor ti = sl_tensor_make(SL_I64, 1, (int64_t[]){2}, ib);
  ti.strides[0] = 2;
  sl_tensor ot = transposed_3x4(ob);
  /* out[i][3] = x[i][3] + u[i][0], out[i][0] = x[i][0] + u[i][1] */
  const float sum[3][4] = {
      {102, 3, 6, 109}, {107, 4, 7, 114}, {112, 5, 8, 119}};
  FOR_EACH_VARIANT(SL_OP_INDEX_REDUCE, v) {
    CHECK(run_ir(&ctx, v->name, &xt, 1, &ti, &ut, SL_REDUCE_SUM, 1, &ot,
                 sizeof ob) == SL_STATUS_OK);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 4; ++j) CHECK(ob[i + 3 * j] == sum[i][j]);
    CHECK(run_ir(&ctx, v->name, &xt, 1, &ti, &ut, SL_REDUCE_ASSIGN, 1, &ot,
                 sizeof ob) == SL_STATUS_OK);
    CHECK(ob[0] == 102 && ob[9] == 100 && ob[3] == 3 && ob[11] == 108);
  }
}

/* assign moves any dtype; duplicates: the last update wins. */
static void test_assign_dtypes(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  uint8_t x[3] = {1, 2, 3}, u[3] = {10, 20, 30}, out[3];
  int64_t idx[3] = {2, 2, 0};
  sl_tensor tx = sl_tensor_make(SL_U8, 1, (int64_t[]){3}, x);
  sl_tensor ti = sl_tensor_make(SL_I64, 1, (int64_t[]){3}, idx);
  sl_tensor tu = sl_tensor_make(SL_U8, 1, (int64_t[]){3}, u);
  sl_tensor to = sl_tensor_make(SL_U8, 1, (int64_t[]){3}, out);
  float complex cx[2] = {1 + 2 * I, 3 + 4 * I}, cu[1] = {5 - 6 * I}, co[2];
  int32_t ci[1] = {1};
  sl_tensor tcx = sl_tensor_make(SL_C64, 1, (int64_t[]){2}, cx);
  sl_tensor tcu = sl_tensor_make(SL_C64, 1, (int64_t[]){1}, cu);
  sl_tensor tci = sl_tensor_make(SL_I32, 1, (int64_t[]){1}, ci);
  sl_tensor tco = sl_tensor_make(SL_C64, 1, (int64_t[]){2}, co);
  FOR_EACH_VARIANT(SL_OP_INDEX_REDUCE, v) {
    CHECK(run_ir(&ctx, v->name, &tx, 0, &ti, &tu, SL_REDUCE_ASSIGN, 0, &to,
                 sizeof out) == SL_STATUS_OK);
    CHECK(out[0] == 30 && out[1] == 2 && out[2] == 20);
    tx.dtype = tu.dtype = to.dtype = SL_BOOL;
    CHECK(run_ir(&ctx, v->name, &tx, 0, &ti, &tu, SL_REDUCE_ASSIGN, 1, &to,
                 sizeof out) == SL_STATUS_OK);
    CHECK(out[0] == 30 && out[1] == 2 && out[2] == 20);
    tx.dtype = tu.dtype = to.dtype = SL_U8;
    CHECK(run_ir(&ctx, v->name, &tcx, 0, &tci, &tcu, SL_REDUCE_ASSIGN, 1, &tco,
                 sizeof co) == SL_STATUS_OK);
    CHECK(co[0] == 1 + 2 * I && co[1] == 5 - 6 * I);
  }
}

/* assign with few targets among many rows (cpu.atomic keeps its winners in
 * a table of the targets there, not one per row): 13 updates, some to the
 * same row, into 1000 rows of 2; the last writer of each row wins. */
static void test_assign_sparse(void) {
  enum { N = 1000, M = 13, C = 2 };
  static int16_t x[N * C], u[M * C], out[N * C], want[N * C];
  static const int64_t idx[M] = {999, 3,   500, 3, 999, 0, 3,
                                 998, 500, 77,  0, 3,   1};
  for (int i = 0; i < N * C; ++i) x[i] = want[i] = (int16_t)(i % 97);
  for (int i = 0; i < M * C; ++i) u[i] = (int16_t)(1000 + i);
  for (int i = 0; i < M; ++i)
    for (int c = 0; c < C; ++c) want[idx[i] * C + c] = u[i * C + c];
  sl_tensor tx = sl_tensor_make(SL_I16, 2, (int64_t[]){N, C}, x);
  sl_tensor ti = sl_tensor_make(SL_I64, 1, (int64_t[]){M}, (void *)idx);
  sl_tensor tu = sl_tensor_make(SL_I16, 2, (int64_t[]){M, C}, u);
  sl_tensor to = sl_tensor_make(SL_I16, 2, (int64_t[]){N, C}, out);
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  FOR_EACH_VARIANT(SL_OP_INDEX_REDUCE, v) {
    CHECK(run_ir(&ctx, v->name, &tx, 0, &ti, &tu, SL_REDUCE_ASSIGN, 1, &to,
                 sizeof out) == SL_STATUS_OK);
    int wrong = 0;
    for (int i = 0; i < N * C; ++i) wrong += out[i] != want[i];
    CHECK_MSG(wrong == 0, "%s: %d of %d elements wrong", v->name, wrong, N * C);
  }
}

/* index_reduce along axis 1 of an f64 [A,N,C] x with an index of M values
 * in [0, targets) against a naive loop written here, for every reduce;
 * cpu.omp runs 3 threads. */
/* bcast: updates broadcast along axis 2 (stride 0, one value per (a, i)). */
static void check_many_lines(int A, int N, int C, int M, int targets,
                             int bcast) {
  const size_t nx = (size_t)A * N * C, nu = (size_t)A * M * C;
  double *x = malloc(nx * sizeof *x), *u = malloc(nu * sizeof *u);
  double *out = malloc(nx * sizeof *out), *want = malloc(nx * sizeof *want);
  int64_t *idx = malloc((size_t)M * sizeof *idx);
  int *cnt = malloc(nx * sizeof *cnt), *hit = malloc(nx * sizeof *hit);
  CHECK(x && u && out && want && idx && cnt && hit);
  if (!(x && u && out && want && idx && cnt && hit)) goto done;
  uint32_t s = 777;
  for (size_t i = 0; i < nx; ++i) {
    s = s * 1103515245u + 12345u;
    x[i] = (double)((s >> 16) % 17) - 8;
  }
  for (size_t i = 0; i < nu; ++i) {
    s = s * 1103515245u + 12345u;
    u[i] = (double)((s >> 16) % 13) - 6;
  }
  for (int i = 0; i < M; ++i) {
    s = s * 1103515245u + 12345u;
    idx[i] = (s >> 16) % targets; /* duplicates, and gaps when < N */
  }
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  sl_tensor tx = sl_tensor_make(SL_F64, 3, (int64_t[]){A, N, C}, x);
  sl_tensor ti = sl_tensor_make(SL_I64, 1, (int64_t[]){M}, idx);
  sl_tensor tu = sl_tensor_make(SL_F64, 3, (int64_t[]){A, M, C}, u);
  sl_tensor to = sl_tensor_make(SL_F64, 3, (int64_t[]){A, N, C}, out);
  if (bcast) tu.strides[2] = 0;
  for (int r = SL_REDUCE_ASSIGN; r <= SL_REDUCE_AMIN; ++r)
    for (int self = 0; self < 2; ++self) {
      memcpy(want, x, nx * sizeof *x);
      for (size_t i = 0; i < nx; ++i) cnt[i] = self ? 1 : 0, hit[i] = 0;
      for (int a = 0; a < A; ++a)
        for (int i = 0; i < M; ++i)
          for (int c = 0; c < C; ++c) {
            int t = (a * N + (int)idx[i]) * C + c;
            double b = u[((size_t)a * M + i) * C + (bcast ? 0 : c)];
            if (!self && !hit[t]) want[t] = naive_identity((sl_reduce)r);
            hit[t] = 1;
            want[t] = naive_combine((sl_reduce)r, want[t], b);
            cnt[t] += 1;
          }
      if (r == SL_REDUCE_MEAN)
        for (size_t i = 0; i < nx; ++i)
          if (cnt[i] > 1) want[i] /= cnt[i];
      FOR_EACH_VARIANT(SL_OP_INDEX_REDUCE, v) {
        /* Under locks any duplicate's assignment may win
         * (test_conflict_variants checks what must hold there). */
        if (r == SL_REDUCE_ASSIGN && strcmp(v->name, "cpu.lock") == 0) continue;
        CHECK(run_ir(&ctx, v->name, &tx, 1, &ti, &tu, (sl_reduce)r, self, &to,
                     nx * sizeof *out) == SL_STATUS_OK);
        int bad = 0;
        for (size_t i = 0; i < nx; ++i) bad += !same_f(out[i], want[i]);
        CHECK_MSG(bad == 0,
                  "%dx%dx%d M=%d bcast=%d: %s %s self=%d: %d elements differ",
                  A, N, C, M, bcast, v->name, sl_reduce_name((sl_reduce)r),
                  self, bad);
      }
    }
done:
  free(x);
  free(u);
  free(out);
  free(want);
  free(idx);
  free(cnt);
  free(hit);
}

/* Many lines (7 x 20 = 140 along axis 1 of a 7x9x20 x); then slices of
 * 1200 positions, few (cpu.omp splits the targets among threads) and many
 * per target (cpu.omp reduces into private copies); then both with the
 * updates broadcast along the rows (one value stepped into a row). */
static void test_many_lines(void) {
  check_many_lines(7, 9, 20, 25, 5, 0);
  check_many_lines(4, 12, 300, 40, 12, 0);
  check_many_lines(4, 12, 300, 80, 9, 0);
  check_many_lines(7, 9, 20, 25, 5, 1);
  check_many_lines(4, 12, 300, 40, 12, 1);
}

/* f16/bf16 bits of v, and back. */
static uint16_t half_of(sl_dtype dt, float v) {
  return dt == SL_F16 ? sl_f32_to_f16(v) : sl_f32_to_bf16(v);
}
static float half_value(sl_dtype dt, uint16_t h) {
  return dt == SL_F16 ? sl_f16_to_f32(h) : sl_bf16_to_f32(h);
}

/* The definition for f16/bf16 sum, prod, mean along axis 1 of [A,N,C]:
 * float accumulation from x (or the identity) in index order, the mean
 * divided by its float count, rounded to the half type once. u_row is
 * updates' stride between index positions (0: one row broadcast). */
static void half_reference(sl_dtype dt, sl_reduce r, int self, int A, int N,
                           int C, int M, const uint16_t *x, const uint16_t *u,
                           int64_t u_row, const int64_t *idx, uint16_t *want) {
  for (int a = 0; a < A; ++a)
    for (int t = 0; t < N; ++t)
      for (int c = 0; c < C; ++c) {
        const size_t at = ((size_t)a * N + t) * C + c;
        float acc = self ? half_value(dt, x[at]) : (r == SL_REDUCE_PROD);
        float n = self ? 1.0f : 0.0f;
        for (int i = 0; i < M; ++i) {
          if (idx[i] != t) continue;
          float v = half_value(dt, u[(size_t)a * M * u_row + i * u_row + c]);
          acc = r == SL_REDUCE_PROD ? acc * v : acc + v;
          n += 1.0f;
        }
        if (r == SL_REDUCE_MEAN && n > 1.0f) acc /= n;
        want[at] = n > 0.0f ? half_of(dt, acc) : x[at];
      }
}

/* index_reduce of f16/bf16 sum, prod and mean along axis 1 of [A,N,C] (the
 * whole-slice path in float where out is contiguous, the line walk where
 * out's rows are spaced) against half_reference, on every variant; values
 * with fractions that round at every step, NaN and inf among them. Only
 * the deterministic variants: the others add in another order on threads. */
static void check_half_slices(sl_dtype dt, int A, int N, int C, int M,
                              int broadcast) {
  const size_t nx = (size_t)A * N * C, nu = (size_t)A * M * C;
  const int64_t row = broadcast ? 0 : C;
  uint16_t *x = malloc(nx * 2), *u = malloc(nu * 2), *want = malloc(nx * 2);
  uint16_t *out = malloc(nx * 2 + (size_t)A * N * 2);
  int64_t *idx = malloc((size_t)M * sizeof *idx);
  CHECK(x && u && want && out && idx);
  if (!(x && u && want && out && idx)) goto done;
  uint32_t s = 4242;
  for (size_t i = 0; i < nx + nu; ++i) {
    s = s * 1103515245u + 12345u;
    float v = (float)((int)((s >> 12) % 4001) - 2000) / 997.0f;
    if ((s >> 8) % 211 == 0) v = (s >> 9) % 2 ? NAN : -INFINITY;
    (i < nx ? x : u)[i < nx ? i : i - nx] = half_of(dt, v);
  }
  for (int i = 0; i < M; ++i) {
    s = s * 1103515245u + 12345u;
    idx[i] = (s >> 16) % N;
  }
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  sl_tensor tx = sl_tensor_make(dt, 3, (int64_t[]){A, N, C}, x);
  sl_tensor ti = sl_tensor_make(SL_I64, 1, (int64_t[]){M}, idx);
  sl_tensor tu = sl_tensor_make(dt, 3, (int64_t[]){A, M, C}, u);
  tu.strides[0] *= !broadcast, tu.strides[1] *= !broadcast;
  const sl_reduce rs[3] = {SL_REDUCE_SUM, SL_REDUCE_PROD, SL_REDUCE_MEAN};
  for (int k = 0; k < 3; ++k)
    for (int self = 0; self < 2; ++self) {
      half_reference(dt, rs[k], self, A, N, C, M, x, u, row, idx, want);
      for (int spaced = 0; spaced < 2; ++spaced) {
        sl_tensor to = sl_tensor_make(dt, 3, (int64_t[]){A, N, C}, out);
        if (spaced) to.strides[1] = C + 1, to.strides[0] = (int64_t)N * (C + 1);
        FOR_EACH_VARIANT(SL_OP_INDEX_REDUCE, v) {
          /* float sums and products in another order round otherwise */
          if (!(v->flags & SL_DETERMINISTIC)) continue;
          CHECK(run_ir(&ctx, v->name, &tx, 1, &ti, &tu, rs[k], self, &to,
                       nx * 2 + (size_t)A * N * 2) == SL_STATUS_OK);
          int bad = 0;
          for (size_t i = 0; i < nx; ++i) {
            const size_t at = spaced ? i + i / (size_t)C : i;
            bad += !same_f(half_value(dt, out[at]), half_value(dt, want[i]));
          }
          CHECK_MSG(bad == 0,
                    "%s %dx%dx%d M=%d bc=%d %s %s self=%d spaced=%d: "
                    "%d elements differ",
                    sl_dtype_name(dt), A, N, C, M, broadcast, v->name,
                    sl_reduce_name(rs[k]), self, spaced, bad);
        }
      }
    }
done:
  free(x);
  free(u);
  free(want);
  free(out);
  free(idx);
}

/* Blocks split among threads (A = 3), columns split (A = 1), passes of
 * fewer columns than a slice (300 targets of 300 columns), broadcast
 * updates (column stride 0); one target and one column (N = C = 1: the
 * blocks become the columns, each contribution's read stepping by M). */
static void test_half_slices(void) {
  check_half_slices(SL_F16, 3, 40, 24, 60, 0);
  check_half_slices(SL_BF16, 1, 300, 300, 600, 0);
  check_half_slices(SL_F16, 1, 300, 300, 600, 0);
  check_half_slices(SL_BF16, 2, 30, 16, 50, 1);
  check_half_slices(SL_F16, 700, 1, 1, 3, 0);
  check_half_slices(SL_BF16, 513, 1, 1, 4, 1);
}

/* index_reduce of f16/bf16 sum, prod and mean along axis 2 of x [A,B,N,C]
 * with updates [A,B,M,C] laid out with its axes reversed (column-major:
 * axes 0 and 1 do not collapse into one, so the whole-slice path takes
 * it through a row-major copy) against half_reference over the A*B rows,
 * on every deterministic variant. */
static void check_half_reversed(sl_dtype dt, int A, int B, int N, int C,
                                int M) {
  enum { MAX = 3 * 4 * 9 * 10 };
  static uint16_t x[MAX], u[MAX], ur[MAX], want[MAX], out[MAX];
  const int64_t idx[3] = {N - 1, 1, N - 1};
  const int nx = A * B * N * C, nu = A * B * M * C;
  CHECK(nx <= MAX && nu <= MAX && M <= 3);
  if (nx > MAX || nu > MAX || M > 3) return;
  uint32_t s = 77;
  for (int i = 0; i < nx + nu; ++i) {
    s = s * 1103515245u + 12345u;
    const float v = (float)((int)((s >> 12) % 4001) - 2000) / 997.0f;
    (i < nx ? x : u)[i < nx ? i : i - nx] = half_of(dt, v);
  }
  for (int i = 0; i < nu; ++i) /* u[a][b][m][c] at ur[c][m][b][a] */
    ur[i % C * M * B * A + i / C % M * B * A + i / C / M % B * A +
       i / C / M / B] = u[i];
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  sl_tensor tx = sl_tensor_make(dt, 4, (int64_t[]){A, B, N, C}, x);
  sl_tensor ti = sl_tensor_make(SL_I64, 1, (int64_t[]){M}, (void *)idx);
  sl_tensor tu = sl_tensor_make(dt, 4, (int64_t[]){A, B, M, C}, ur);
  tu.strides[0] = 1, tu.strides[1] = A, tu.strides[2] = (int64_t)A * B;
  tu.strides[3] = (int64_t)A * B * M;
  sl_tensor to = sl_tensor_make(dt, 4, (int64_t[]){A, B, N, C}, out);
  const sl_reduce rs[3] = {SL_REDUCE_SUM, SL_REDUCE_PROD, SL_REDUCE_MEAN};
  for (int k = 0; k < 3; ++k)
    for (int self = 0; self < 2; ++self) {
      half_reference(dt, rs[k], self, A * B, N, C, M, x, u, C, idx, want);
      FOR_EACH_VARIANT(SL_OP_INDEX_REDUCE, v) {
        if (!(v->flags & SL_DETERMINISTIC)) continue;
        CHECK(run_ir(&ctx, v->name, &tx, 2, &ti, &tu, rs[k], self, &to,
                     sizeof out) == SL_STATUS_OK);
        int bad = 0;
        for (int i = 0; i < nx; ++i)
          bad += !same_f(half_value(dt, out[i]), half_value(dt, want[i]));
        CHECK_MSG(bad == 0, "%s reversed M=%d %s %s self=%d: %d differ",
                  sl_dtype_name(dt), M, v->name, sl_reduce_name(rs[k]), self,
                  bad);
      }
    }
}

static void test_half_reversed(void) {
  check_half_reversed(SL_F16, 3, 4, 9, 10, 3); /* a repeated target */
  check_half_reversed(SL_BF16, 3, 4, 5, 10, 2);
  check_half_reversed(SL_F16, 2, 3, 6, 8, 1);
}

/* assign, amax and amin of f16 and bf16 into x [A,1,1] along axis 1 (one
 * target, one column: the whole-slice path takes out's A elements as one
 * row) against the same call with out spaced (the line walk), on every
 * variant but cpu.lock's assign (any duplicate may win there). */
static void test_one_target_column(void) {
  enum { A = 517, M = 3 };
  static uint16_t x[A], u[A * M], out[2 * A];
  uint32_t s = 99;
  for (int i = 0; i < A * (M + 1); ++i) {
    s = s * 1103515245u + 12345u;
    const uint16_t bits = (uint16_t)((s >> 16) % 97 + 0x3c00);
    if (i < A)
      x[i] = bits;
    else
      u[i - A] = bits;
  }
  const int64_t idx[M] = {0, 0, 0};
  const sl_dtype dts[2] = {SL_F16, SL_BF16};
  const sl_reduce rs[3] = {SL_REDUCE_ASSIGN, SL_REDUCE_AMAX, SL_REDUCE_AMIN};
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  sl_tensor ti = sl_tensor_make(SL_I64, 1, (int64_t[]){M}, (void *)idx);
  for (int d = 0; d < 2; ++d)
    for (int k = 0; k < 3; ++k)
      for (int self = 0; self < 2; ++self)
        FOR_EACH_VARIANT(SL_OP_INDEX_REDUCE, v) {
          if (k == 0 && strcmp(v->name, "cpu.lock") == 0) continue;
          const size_t es = sl_dtype_size(dts[d]);
          sl_tensor tx = sl_tensor_make(dts[d], 3, (int64_t[]){A, 1, 1}, x);
          sl_tensor tu = sl_tensor_make(dts[d], 3, (int64_t[]){A, M, 1}, u);
          unsigned char got[A * 2], line[A * 2];
          for (int spaced = 0; spaced < 2; ++spaced) {
            sl_tensor to = sl_tensor_make(dts[d], 3, (int64_t[]){A, 1, 1}, out);
            if (spaced) to.strides[0] = 2;
            CHECK_MSG(run_ir(&ctx, v->name, &tx, 1, &ti, &tu, rs[k], self, &to,
                             sizeof out) == SL_STATUS_OK,
                      "%s", ctx.msg);
            for (int a = 0; a < A; ++a)
              memcpy((spaced ? line : got) + a * es,
                     (const char *)out + (size_t)a * (spaced ? 2 : 1) * es, es);
          }
          CHECK_MSG(memcmp(got, line, A * es) == 0,
                    "%s %s %s self=%d: contiguous out differs from spaced",
                    sl_dtype_name(dts[d]), v->name, sl_reduce_name(rs[k]),
                    self);
        }
}

/* A zero-element index, or an empty x, returns x as it is. */
static void test_empty(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  float x[6] = {1, 2, 3, 4, 5, 6}, out[6];
  sl_tensor tx = sl_tensor_make(SL_F32, 2, (int64_t[]){3, 2}, x);
  sl_tensor ti = sl_tensor_make(SL_I64, 1, (int64_t[]){0}, NULL);
  sl_tensor tu = sl_tensor_make(SL_F32, 2, (int64_t[]){0, 2}, NULL);
  sl_tensor to = sl_tensor_make(SL_F32, 2, (int64_t[]){3, 2}, out);
  int64_t zero = 0;
  sl_tensor ex = sl_tensor_make(SL_F32, 2, (int64_t[]){0, 2}, NULL);
  sl_tensor ei = sl_tensor_make(SL_I64, 1, (int64_t[]){1}, &zero);
  sl_tensor eu = sl_tensor_make(SL_F32, 2, (int64_t[]){0, 1}, NULL);
  sl_tensor eo = sl_tensor_make(SL_F32, 2, (int64_t[]){0, 2}, NULL);
  FOR_EACH_VARIANT(SL_OP_INDEX_REDUCE, v) {
    for (int r = SL_REDUCE_ASSIGN; r <= SL_REDUCE_AMIN; ++r) {
      CHECK(run_ir(&ctx, v->name, &tx, 0, &ti, &tu, (sl_reduce)r, 0, &to,
                   sizeof out) == SL_STATUS_OK);
      CHECK(memcmp(out, x, sizeof x) == 0);
      /* an empty broadcast index (stride 0) reads nothing */
      sl_tensor bi = ti;
      bi.strides[0] = 0;
      CHECK(run_ir(&ctx, v->name, &tx, 0, &bi, &tu, (sl_reduce)r, 0, &to,
                   sizeof out) == SL_STATUS_OK);
      CHECK(memcmp(out, x, sizeof x) == 0);
      CHECK(run_ir(&ctx, v->name, &ex, 1, &ei, &eu, (sl_reduce)r, 0, &eo, 0) ==
            SL_STATUS_OK);
    }
  }
}

/* Bad input: one check per class that applies; nothing is written. */
static void test_bad_input(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  float x[6] = {1, 1, 2, 2, 3, 3}, u[8] = {1, 1, 2, 2, 3, 3, 4, 4}, out[6];
  int64_t idx[4] = {2, 1, 0, 1};
  sl_tensor tx = sl_tensor_make(SL_F32, 2, (int64_t[]){3, 2}, x);
  sl_tensor ti = sl_tensor_make(SL_I64, 1, (int64_t[]){4}, idx);
  sl_tensor tu = sl_tensor_make(SL_F32, 2, (int64_t[]){4, 2}, u);
  sl_tensor to = sl_tensor_make(SL_F32, 2, (int64_t[]){3, 2}, out);
  const sl_reduce S = SL_REDUCE_SUM;
#define IR(x_, d_, i_, u_, r_, o_)                                             \
  run_ir(&ctx, "cpu.omp", x_, d_, i_, u_, r_, 0, o_, 0)
  CHECK(IR(&tx, 0, &ti, &tu, S, &to) == SL_STATUS_OK);
  for (int i = 0; i < 6; ++i) out[i] = -1;
  /* null pointer: data, the call */
  sl_tensor nod = tu;
  nod.data = NULL;
  CHECK(IR(&tx, 0, &ti, &nod, S, &to) == SL_STATUS_NULL_POINTER);
  CHECK_CONTAINS(ctx.msg, "updates: expected data for 8 elements, got NULL");
  nod = to;
  nod.data = NULL;
  CHECK(IR(&tx, 0, &ti, &tu, S, &nod) == SL_STATUS_NULL_POINTER);
  CHECK_CONTAINS(ctx.msg, "out: expected data for 6 elements, got NULL");
  CHECK(sl_run(&ctx, "cpu.serial", NULL) == SL_STATUS_NULL_POINTER);
  CHECK_CONTAINS(ctx.msg, "call:");
  /* rank mismatch: a 2-D index; updates of rank 1 for a 1-D index; a full
   * rank updates for a 0-D index (Paddle takes the slice) */
  sl_tensor i2 = sl_tensor_make(SL_I64, 2, (int64_t[]){2, 2}, idx);
  CHECK(IR(&tx, 0, &i2, &tu, S, &to) == SL_STATUS_RANK_MISMATCH);
  CHECK_CONTAINS(ctx.msg, "index: expected rank 0 or 1, got rank 2 [2,2]");
  sl_tensor u1 = sl_tensor_make(SL_F32, 1, (int64_t[]){4}, u);
  CHECK(IR(&tx, 0, &ti, &u1, S, &to) == SL_STATUS_RANK_MISMATCH);
  CHECK_CONTAINS(ctx.msg, "updates: expected rank 2 (x [3,2] with dim 0 of the "
                          "index's length 4), got rank 1 [4]");
  sl_tensor i0 = sl_tensor_make(SL_I64, 0, NULL, idx);
  sl_tensor u12 = sl_tensor_make(SL_F32, 2, (int64_t[]){1, 2}, u);
  CHECK(IR(&tx, 0, &i0, &u12, S, &to) == SL_STATUS_RANK_MISMATCH);
  CHECK_CONTAINS(ctx.msg, "updates: expected rank 1 (x [3,2] without dim 0, "
                          "for a 0-D index), got rank 2 [1,2]");
  /* dim out of range */
  CHECK(IR(&tx, 2, &ti, &tu, S, &to) == SL_STATUS_DIM_OUT_OF_RANGE);
  CHECK_CONTAINS(ctx.msg,
                 "dim: expected a value in [-2,1] for a rank-2 tensor, got 2");
  /* shape mismatch: fewer updates than indices; an extent-1 updates that
   * LibTorch's index_add would broadcast; a wrong slice; a wrong out */
  sl_tensor u32 = sl_tensor_make(SL_F32, 2, (int64_t[]){3, 2}, u);
  CHECK(IR(&tx, 0, &ti, &u32, S, &to) == SL_STATUS_SHAPE_MISMATCH);
  CHECK_CONTAINS(ctx.msg, "updates: expected shape [4,2] (x [3,2] with dim 0 "
                          "of the index's length 4), got [3,2]");
  sl_tensor u41 = sl_tensor_make(SL_F32, 2, (int64_t[]){4, 1}, u);
  CHECK(IR(&tx, 0, &ti, &u41, S, &to) == SL_STATUS_SHAPE_MISMATCH);
  CHECK_CONTAINS(ctx.msg, "got [4,1]");
  sl_tensor u3 = sl_tensor_make(SL_F32, 1, (int64_t[]){3}, u);
  CHECK(IR(&tx, 0, &i0, &u3, S, &to) == SL_STATUS_SHAPE_MISMATCH);
  CHECK_CONTAINS(ctx.msg, "updates: expected shape [2] (x [3,2] without dim 0, "
                          "for a 0-D index), got [3]");
  sl_tensor o23 = sl_tensor_make(SL_F32, 2, (int64_t[]){2, 3}, out);
  CHECK(IR(&tx, 0, &ti, &tu, S, &o23) == SL_STATUS_SHAPE_MISMATCH);
  CHECK_CONTAINS(ctx.msg, "out: expected shape [3,2], got [2,3]");
  /* index dtype not integer */
  sl_tensor fi = sl_tensor_make(SL_F32, 1, (int64_t[]){4}, u);
  CHECK(IR(&tx, 0, &fi, &tu, S, &to) == SL_STATUS_INDEX_DTYPE);
  CHECK_CONTAINS(ctx.msg, "index: expected dtype i32 or i64, got f32");
  /* index value out of range, negative too */
  int64_t big[4] = {2, 1, 3, 1}, neg[4] = {2, -1, 0, 1};
  sl_tensor tbig = sl_tensor_make(SL_I64, 1, (int64_t[]){4}, big);
  CHECK(IR(&tx, 0, &tbig, &tu, S, &to) == SL_STATUS_INDEX_OUT_OF_RANGE);
  CHECK_CONTAINS(ctx.msg, "index[2]=3 out of range [0,3) for dim 0 of x [3,2]");
  sl_tensor tneg = sl_tensor_make(SL_I64, 1, (int64_t[]){4}, neg);
  CHECK(IR(&tx, 0, &tneg, &tu, SL_REDUCE_ASSIGN, &to) ==
        SL_STATUS_INDEX_OUT_OF_RANGE);
  CHECK_CONTAINS(ctx.msg, "index[1]=-1 out of range [0,3)");
  /* unsupported dtype: bool for sum (assign takes it); updates of another
   * dtype; out of another dtype */
  uint8_t bx[6] = {0}, bu[8] = {0};
  sl_tensor tbx = sl_tensor_make(SL_BOOL, 2, (int64_t[]){3, 2}, bx);
  sl_tensor tbu = sl_tensor_make(SL_BOOL, 2, (int64_t[]){4, 2}, bu);
  sl_tensor tbo = sl_tensor_make(SL_BOOL, 2, (int64_t[]){3, 2}, out);
  CHECK(IR(&tbx, 0, &ti, &tbu, S, &tbo) == SL_STATUS_UNSUPPORTED_DTYPE);
  CHECK_CONTAINS(ctx.msg, "x: expected one of i32, i64, f16, bf16, f32, f64 "
                          "for reduce sum, got bool");
  sl_tensor du = sl_tensor_make(SL_F64, 2, (int64_t[]){4, 2}, NULL);
  du.data = u;
  CHECK(IR(&tx, 0, &ti, &du, S, &to) == SL_STATUS_UNSUPPORTED_DTYPE);
  CHECK_CONTAINS(ctx.msg,
                 "updates: expected dtype f32 (the dtype of x), got f64");
  sl_tensor od = sl_tensor_make(SL_I32, 2, (int64_t[]){3, 2}, out);
  CHECK(IR(&tx, 0, &ti, &tu, S, &od) == SL_STATUS_UNSUPPORTED_DTYPE);
  CHECK_CONTAINS(ctx.msg, "out: expected dtype f32, got i32");
  /* unknown reduce: none and max are not index_reduce's; a code out of
   * range */
  CHECK(IR(&tx, 0, &ti, &tu, SL_REDUCE_NONE, &to) == SL_STATUS_UNKNOWN_REDUCE);
  CHECK_CONTAINS(ctx.msg, "reduce: expected one of {assign, sum, prod, mean, "
                          "amax, amin}, got none");
  CHECK(IR(&tx, 0, &ti, &tu, SL_REDUCE_MAX, &to) == SL_STATUS_UNKNOWN_REDUCE);
  CHECK(IR(&tx, 0, &ti, &tu, (sl_reduce)-3, &to) == SL_STATUS_UNKNOWN_REDUCE);
  CHECK_CONTAINS(ctx.msg, "got code -3");
  /* element count overflow */
  sl_tensor huge = sl_tensor_make(
      SL_F32, 3, (int64_t[]){INT64_C(1) << 40, INT64_C(1) << 40, 2}, x);
  CHECK(IR(&huge, 0, &ti, &tu, S, &to) == SL_STATUS_OVERFLOW);
  CHECK_CONTAINS(ctx.msg, "x: shape [1099511627776,1099511627776,2]");
  for (int i = 0; i < 6; ++i) CHECK(out[i] == -1);
#undef IR
}

int main(void) {
  test_assign_sparse();
  test_seed001();
  test_axis1_3d();
  test_0d_index();
  test_nan_and_signed_zero();
  test_half_nan_and_signed_zero();
  test_integers();
  test_halves();
  test_strides();
  test_assign_dtypes();
  test_many_lines();
  test_half_slices();
  test_half_reversed();
  test_one_target_column();
  test_empty();
  test_bad_input();
  return sl_test_finish("test_index_reduce");
}
