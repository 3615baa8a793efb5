/*
 * gather_nd on every CPU variant: seed 000's identity with gather, several
 * indexed axes and their order, strides, empty inputs, dtypes, and one test
 * per bad-input status that applies, each asserting the status and that the
 * message names the argument.
 */
#include <stdint.h>

#include "core_test.h"
#include "gather_panels.h"
#include "sl/sl.h"
#include "sl_test.h"

static const float A[12] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
static const int64_t S43[2] = {4, 3};

/* Runs gather_nd; *p (when given) receives the normalized parameters. */
static sl_status gnd(sl_ctx *ctx, const char *variant, sl_tensor x,
                     sl_tensor index, int ndims, const int64_t *dims,
                     sl_tensor out, sl_params *p) {
  sl_call c;
  sl_call_init(&c, SL_OP_GATHER_ND);
  c.arg[0] = x;
  c.arg[1] = index;
  c.arg[2] = out;
  c.p.ndims = ndims;
  for (int k = 0; k < ndims && k < SL_MAX_DIMS; ++k) c.p.dims[k] = dims[k];
  sl_status st = sl_run(ctx, variant, &c);
  if (p) *p = c.p;
  return st;
}

/* Seed 000: gather(dim=d) == gather_nd(dims=[d], index.unsqueeze(-1)), on
 * the seed's data (A = range(12).reshape(4,3), index [[0,1,1],[3,2,0]]). */
static void test_seed000_identity(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  static const int64_t idx0[6] = {0, 1, 1, 3, 2, 0};
  /* The seed's dim-1 example reads index 3 on an axis of size 3 (gather
   * rejects it); this index keeps the seed's first row. */
  static const int32_t idx1[6] = {0, 1, 1, 2, 2, 0};
  sl_tensor x = sl_tensor_make(SL_F32, 2, S43, (void *)A);
  sl_tensor g0 = sl_tensor_make(SL_I64, 2, (int64_t[]){2, 3}, (void *)idx0);
  sl_tensor n0 = sl_tensor_make(SL_I64, 3, (int64_t[]){2, 3, 1}, (void *)idx0);
  sl_tensor g1 = sl_tensor_make(SL_I32, 2, (int64_t[]){2, 3}, (void *)idx1);
  sl_tensor n1 = sl_tensor_make(SL_I32, 3, (int64_t[]){2, 3, 1}, (void *)idx1);
  static const float want0[6] = {0, 4, 5, 9, 7, 2}; /* the seed's B_1 */
  static const float want1[6] = {0, 1, 1, 5, 5, 3}; /* A[i][idx1[i][j]] */
  int ran = 0;
  FOR_EACH_VARIANT(SL_OP_GATHER_ND, v) {
    float g[6], n[6];
    sl_tensor tg = sl_tensor_make(SL_F32, 2, (int64_t[]){2, 3}, g);
    sl_tensor tn = sl_tensor_make(SL_F32, 2, (int64_t[]){2, 3}, n);
    sl_params p;
    /* dim 0, given as dims=[-2]; normalized back into the call. */
    CHECK(sl_gather(&ctx, "cpu.serial", &x, 0, &g0, &tg) == SL_STATUS_OK);
    CHECK(gnd(&ctx, v->name, x, n0, 1, (int64_t[]){-2}, tn, &p) ==
          SL_STATUS_OK);
    CHECK(p.ndims == 1 && p.dims[0] == 0);
    CHECK(memcmp(g, want0, sizeof want0) == 0);
    CHECK(memcmp(n, want0, sizeof want0) == 0);
    /* The default dims (ndims 0) are 0..M-1, here [0]. */
    memset(n, 0, sizeof n);
    CHECK(gnd(&ctx, v->name, x, n0, 0, NULL, tn, &p) == SL_STATUS_OK);
    CHECK(p.ndims == 1 && p.dims[0] == 0);
    CHECK(memcmp(n, want0, sizeof want0) == 0);
    /* dim 1 with an int32 index. */
    CHECK(sl_gather(&ctx, "cpu.serial", &x, 1, &g1, &tg) == SL_STATUS_OK);
    CHECK(gnd(&ctx, v->name, x, n1, 1, (int64_t[]){1}, tn, &p) == SL_STATUS_OK);
    CHECK(p.dims[0] == 1);
    CHECK(memcmp(g, want1, sizeof want1) == 0);
    CHECK(memcmp(n, want1, sizeof want1) == 0);
    ++ran;
  }
  CHECK(ran == 2);
}

/* Both axes indexed (M = K = 2), in both orders, and one axis of three. */
static void test_multi_axis(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  sl_tensor x = sl_tensor_make(SL_F32, 2, S43, (void *)A);
  /* index [3,1,2]: rows (3,2), (0,0), (1,2) -> A[3][2], A[0][0], A[1][2]. */
  int64_t idx[6] = {3, 2, 0, 0, 1, 2};
  sl_tensor ti = sl_tensor_make(SL_I64, 3, (int64_t[]){3, 1, 2}, idx);
  /* dims [1,0]: column 0 is the column of x, column 1 its row. */
  int32_t rev[4] = {0, 3, 1, 1};
  sl_tensor tr = sl_tensor_make(SL_I32, 3, (int64_t[]){2, 1, 2}, rev);
  /* x3[a][b][c] = 100a + 10b + c, shape [2,3,4]; dims [1]: out[a][j][c] =
   * x3[a][ib[a][j][c]][c] for index [2,2,4,1]. */
  int32_t x3[24];
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 3; ++b)
      for (int c = 0; c < 4; ++c) x3[a * 12 + b * 4 + c] = 100 * a + 10 * b + c;
  int64_t ib[16] = {2, 0, 1, 1, 0, 0, 2, 2, 1, 2, 0, 1, 2, 2, 2, 0};
  static const int32_t want3[16] = {20,  1,   12,  13,  0,   1,   22,  23,
                                    110, 121, 102, 113, 120, 121, 122, 103};
  sl_tensor t3 = sl_tensor_make(SL_I32, 3, (int64_t[]){2, 3, 4}, x3);
  sl_tensor ti3 = sl_tensor_make(SL_I64, 4, (int64_t[]){2, 2, 4, 1}, ib);
  FOR_EACH_VARIANT(SL_OP_GATHER_ND, v) {
    float out[3] = {-1, -1, -1};
    sl_params p;
    sl_tensor to = sl_tensor_make(SL_F32, 2, (int64_t[]){3, 1}, out);
    CHECK(gnd(&ctx, v->name, x, ti, 0, NULL, to, &p) == SL_STATUS_OK);
    CHECK(p.ndims == 2 && p.dims[0] == 0 && p.dims[1] == 1);
    CHECK(out[0] == 11 && out[1] == 0 && out[2] == 5);
    to.shape[0] = 2;
    CHECK(gnd(&ctx, v->name, x, tr, 2, (int64_t[]){-1, 0}, to, &p) ==
          SL_STATUS_OK);
    CHECK(p.dims[0] == 1 && p.dims[1] == 0);
    CHECK(out[0] == 9 && out[1] == 4); /* A[3][0], A[1][1] */
    int32_t o3[16];
    sl_tensor to3 = sl_tensor_make(SL_I32, 3, (int64_t[]){2, 2, 4}, o3);
    CHECK(gnd(&ctx, v->name, t3, ti3, 1, (int64_t[]){1}, to3, NULL) ==
          SL_STATUS_OK);
    CHECK(memcmp(o3, want3, sizeof want3) == 0);
  }
}

/* A transposed x, a stepped x, an index with stride 0 and a stepped out. */
static void test_strides(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  /* x^T: logical 3x4 view of A (4x3): x[i][j] = A[j][i] = 3j + i. */
  sl_tensor xt = transposed_3x4(A);
  int64_t row[4] = {3, 0, 2, 1};
  sl_tensor index = sl_tensor_make(SL_I64, 3, (int64_t[]){2, 4, 1}, row);
  index.strides[0] = 0; /* both rows are `row` */
  /* A[::2, :]: rows 0 and 2 -> [[0,1,2],[6,7,8]]. */
  sl_tensor xs = sl_tensor_make(SL_F32, 2, (int64_t[]){2, 3}, (void *)A);
  xs.strides[0] = 6;
  int32_t pair[4] = {1, 2, 0, 0};
  sl_tensor tp = sl_tensor_make(SL_I32, 3, (int64_t[]){2, 1, 2}, pair);
  FOR_EACH_VARIANT(SL_OP_GATHER_ND, v) {
    for (int threads = 0; threads <= 3; threads += 3) {
      ctx.threads = threads;
      float buf[16];
      sl_tensor o = spaced_rows_x4(buf, 2);
      CHECK(gnd(&ctx, v->name, xt, index, 1, (int64_t[]){1}, o, NULL) ==
            SL_STATUS_OK);
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 4; ++j)
          CHECK(buf[i * 8 + j * 2] == (float)(3 * row[j] + i));
      CHECK(buf[1] == -7 && buf[15] == -7);
      float out[2] = {-1, -1};
      sl_tensor to = sl_tensor_make(SL_F32, 2, (int64_t[]){2, 1}, out);
      CHECK(gnd(&ctx, v->name, xs, tp, 0, NULL, to, NULL) == SL_STATUS_OK);
      CHECK(out[0] == 8 && out[1] == 0);
    }
  }
}

/* Zero positions, M = 0 and a rank-0 x: no error. */
static void test_empty(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  sl_tensor x = sl_tensor_make(SL_F32, 2, S43, (void *)A);
  sl_tensor e = sl_tensor_make(SL_I64, 3, (int64_t[]){0, 3, 1}, NULL);
  /* Wider than x off the indexed axis, but empty: LibTorch reads nothing
   * and accepts it. */
  sl_tensor ew = sl_tensor_make(SL_I64, 3, (int64_t[]){0, 5, 1}, NULL);
  sl_tensor m0 = sl_tensor_make(SL_I32, 3, (int64_t[]){2, 2, 0}, NULL);
  float s = 5;
  sl_tensor x0 = sl_tensor_make(SL_F32, 0, NULL, &s);
  sl_tensor i0 = sl_tensor_make(SL_I64, 1, (int64_t[]){0}, NULL);
  FOR_EACH_VARIANT(SL_OP_GATHER_ND, v) {
    sl_tensor o = sl_tensor_make(SL_F32, 2, (int64_t[]){0, 3}, NULL);
    CHECK(gnd(&ctx, v->name, x, e, 1, (int64_t[]){0}, o, NULL) == SL_STATUS_OK);
    o.shape[1] = 5;
    CHECK(gnd(&ctx, v->name, x, ew, 1, (int64_t[]){0}, o, NULL) ==
          SL_STATUS_OK);
    /* M = 0: no axis is indexed, out is the leading block x[:2, :2]. */
    float blk[4] = {-1, -1, -1, -1};
    sl_params p;
    sl_tensor tb = sl_tensor_make(SL_F32, 2, (int64_t[]){2, 2}, blk);
    CHECK(gnd(&ctx, v->name, x, m0, 0, NULL, tb, &p) == SL_STATUS_OK);
    CHECK(p.ndims == 0);
    CHECK(blk[0] == 0 && blk[1] == 1 && blk[2] == 3 && blk[3] == 4);
    /* Rank-0 x: index [0], out is x. */
    float r = -1;
    sl_tensor tr = sl_tensor_make(SL_F32, 0, NULL, &r);
    CHECK(gnd(&ctx, v->name, x0, i0, 0, NULL, tr, NULL) == SL_STATUS_OK);
    CHECK(r == 5);
  }
}

/* Data movement: bool, complex64 and f16 elements travel bitwise. */
static void test_dtypes(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  int64_t idx[3] = {1, 1, 2};
  sl_tensor ti = sl_tensor_make(SL_I64, 2, (int64_t[]){3, 1}, idx);
  float cx[6] = {1, 2, 3, 4, 5, 6}; /* 1+2i, 3+4i, 5+6i */
  uint8_t bx[3] = {0, 1, 0};
  uint16_t hx[3] = {sl_f32_to_f16(1.5f), sl_f32_to_f16(-2.0f),
                    sl_f32_to_f16(65504.0f)};
  FOR_EACH_VARIANT(SL_OP_GATHER_ND, v) {
    float co[6];
    sl_tensor x = sl_tensor_make(SL_C64, 1, (int64_t[]){3}, cx);
    sl_tensor o = sl_tensor_make(SL_C64, 1, (int64_t[]){3}, co);
    CHECK(gnd(&ctx, v->name, x, ti, 0, NULL, o, NULL) == SL_STATUS_OK);
    const float cw[6] = {3, 4, 3, 4, 5, 6};
    CHECK(memcmp(co, cw, sizeof cw) == 0);
    uint8_t bo[3] = {9, 9, 9};
    x = sl_tensor_make(SL_BOOL, 1, (int64_t[]){3}, bx);
    o = sl_tensor_make(SL_BOOL, 1, (int64_t[]){3}, bo);
    CHECK(gnd(&ctx, v->name, x, ti, 0, NULL, o, NULL) == SL_STATUS_OK);
    CHECK(bo[0] == 1 && bo[1] == 1 && bo[2] == 0);
    uint16_t ho[3];
    x = sl_tensor_make(SL_F16, 1, (int64_t[]){3}, hx);
    o = sl_tensor_make(SL_F16, 1, (int64_t[]){3}, ho);
    CHECK(gnd(&ctx, v->name, x, ti, 0, NULL, o, NULL) == SL_STATUS_OK);
    CHECK(ho[0] == sl_f32_to_f16(-2.0f) && ho[1] == sl_f32_to_f16(-2.0f) &&
          ho[2] == sl_f32_to_f16(65504.0f));
  }
}

/* Bad input: one check per class that applies to gather_nd. */
static void test_bad_input(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  float out[16];
  const char *v = "cpu.serial";
  sl_tensor x = sl_tensor_make(SL_F32, 2, (int64_t[]){3, 4}, (void *)A);
  /* index [2,1,2], default dims [0,1]; index[1,0,1] = 7 is bad. */
  int64_t idx[4] = {2, 3, 0, 7};
  sl_tensor index = sl_tensor_make(SL_I64, 3, (int64_t[]){2, 1, 2}, idx);
  sl_tensor o = sl_tensor_make(SL_F32, 2, (int64_t[]){2, 1}, out);
  for (int i = 0; i < 16; ++i) out[i] = -3;

  /* index value out of range: position, value, bound and x named; nothing
   * written. */
  FOR_EACH_VARIANT(SL_OP_GATHER_ND, w) {
    CHECK(gnd(&ctx, w->name, x, index, 0, NULL, o, NULL) ==
          SL_STATUS_INDEX_OUT_OF_RANGE);
    CHECK_CONTAINS(ctx.msg,
                   "index[1,0,1]=7 out of range [0,4) for dim 1 of x [3,4]");
    CHECK(out[0] == -3 && out[1] == -3);
  }
  idx[3] = 1;
  CHECK(gnd(&ctx, v, x, index, 0, NULL, o, NULL) == SL_STATUS_OK);
  CHECK(out[0] == 11 && out[1] == 1);
  /* Negative: no wrap. The column's axis follows dims. */
  idx[2] = -1;
  CHECK(gnd(&ctx, v, x, index, 2, (int64_t[]){1, 0}, o, NULL) ==
        SL_STATUS_INDEX_OUT_OF_RANGE);
  CHECK_CONTAINS(ctx.msg,
                 "index[0,0,1]=3 out of range [0,3) for dim 0 of x [3,4]");
  idx[1] = 0;
  CHECK(gnd(&ctx, v, x, index, 2, (int64_t[]){1, 0}, o, NULL) ==
        SL_STATUS_INDEX_OUT_OF_RANGE);
  CHECK_CONTAINS(ctx.msg,
                 "index[1,0,0]=-1 out of range [0,4) for dim 1 of x [3,4]");
  idx[1] = 3;
  idx[2] = 0;

  /* null pointer: a NULL data pointer of a non-empty index */
  sl_tensor nod = index;
  nod.data = NULL;
  CHECK(gnd(&ctx, v, x, nod, 0, NULL, o, NULL) == SL_STATUS_NULL_POINTER);
  CHECK_CONTAINS(ctx.msg, "index: expected data for 4 elements, got NULL");
  CHECK(sl_run(&ctx, v, NULL) == SL_STATUS_NULL_POINTER);
  CHECK_CONTAINS(ctx.msg, "call:");
  /* rank mismatch: index must have rank K+1 */
  sl_tensor flat = sl_tensor_make(SL_I64, 2, (int64_t[]){2, 2}, idx);
  CHECK(gnd(&ctx, v, x, flat, 0, NULL, o, NULL) == SL_STATUS_RANK_MISMATCH);
  CHECK_CONTAINS(ctx.msg, "index: expected rank 3 (the rank of x [3,4] plus "
                          "one), got rank 2 [2,2]");
  /* dim out of range, repeated, or a count other than M */
  CHECK(gnd(&ctx, v, x, index, 2, (int64_t[]){0, 2}, o, NULL) ==
        SL_STATUS_DIM_OUT_OF_RANGE);
  CHECK_CONTAINS(ctx.msg, "dims[1]: expected a value in [-2,1]");
  CHECK(gnd(&ctx, v, x, index, 2, (int64_t[]){1, -1}, o, NULL) ==
        SL_STATUS_INVALID_ARGUMENT);
  CHECK_CONTAINS(ctx.msg, "dims: expected distinct axes, got axis 1 twice");
  CHECK(gnd(&ctx, v, x, index, 1, (int64_t[]){0}, o, NULL) ==
        SL_STATUS_SHAPE_MISMATCH);
  CHECK_CONTAINS(ctx.msg, "dims: expected 2 axes");
  CHECK(gnd(&ctx, v, x, index, 9, (int64_t[SL_MAX_DIMS]){0}, o, NULL) ==
        SL_STATUS_INVALID_ARGUMENT);
  CHECK_CONTAINS(ctx.msg, "dims: expected a count in [0,8], got 9");
  /* shape mismatch: M > K, a non-indexed extent wider than x's, the
   * output of the wrong shape */
  sl_tensor m3 = sl_tensor_make(SL_I64, 3, (int64_t[]){1, 1, 3}, idx);
  CHECK(gnd(&ctx, v, x, m3, 0, NULL, o, NULL) == SL_STATUS_SHAPE_MISMATCH);
  CHECK_CONTAINS(ctx.msg, "index: expected a last extent <= 2 (the rank of x "
                          "[3,4]), got [1,1,3]");
  int64_t zeros[6] = {0};
  sl_tensor wide = sl_tensor_make(SL_I64, 3, (int64_t[]){1, 6, 1}, zeros);
  sl_tensor o16 = sl_tensor_make(SL_F32, 2, (int64_t[]){1, 6}, out);
  CHECK(gnd(&ctx, v, x, wide, 1, (int64_t[]){0}, o16, NULL) ==
        SL_STATUS_SHAPE_MISMATCH);
  CHECK_CONTAINS(ctx.msg, "index: expected size <= 4 in dim 1 (x is [3,4]");
  sl_tensor o3 = sl_tensor_make(SL_F32, 2, (int64_t[]){2, 3}, out);
  CHECK(gnd(&ctx, v, x, index, 0, NULL, o3, NULL) == SL_STATUS_SHAPE_MISMATCH);
  CHECK_CONTAINS(ctx.msg, "out: expected shape [2,1], got [2,3]");
  /* index dtype not integer */
  sl_tensor fidx = sl_tensor_make(SL_F32, 3, (int64_t[]){2, 1, 2}, (void *)A);
  CHECK(gnd(&ctx, v, x, fidx, 0, NULL, o, NULL) == SL_STATUS_INDEX_DTYPE);
  CHECK_CONTAINS(ctx.msg, "index: expected dtype i32 or i64, got f32");
  /* unsupported dtype: an output of another dtype, an unknown code */
  sl_tensor od = sl_tensor_make(SL_F64, 2, (int64_t[]){2, 1}, out);
  CHECK(gnd(&ctx, v, x, index, 0, NULL, od, NULL) ==
        SL_STATUS_UNSUPPORTED_DTYPE);
  CHECK_CONTAINS(ctx.msg, "out: expected dtype f32, got f64");
  sl_tensor bad = x;
  bad.dtype = (sl_dtype)99;
  CHECK(gnd(&ctx, v, bad, index, 0, NULL, o, NULL) ==
        SL_STATUS_UNSUPPORTED_DTYPE);
  CHECK_CONTAINS(ctx.msg, "x: expected a known dtype, got code 99");
  /* element count overflow (size_t) in the shape product */
  sl_tensor huge = huge_tensor(
      SL_F32, 2, (int64_t[]){INT64_C(1) << 40, INT64_C(1) << 40}, (void *)A);
  CHECK(gnd(&ctx, v, huge, index, 0, NULL, o, NULL) == SL_STATUS_OVERFLOW);
  CHECK_CONTAINS(ctx.msg, "x: shape [1099511627776,1099511627776]");
}

/* gather_nd's panel walk, through dims=[0] (gather_panels.h). */
static sl_status run_gather_nd(sl_ctx *ctx, const char *variant,
                               const sl_tensor *x, int64_t rows, int64_t cols,
                               int32_t *idx, float *out) {
  static const int64_t dims[1] = {0};
  sl_tensor ti = sl_tensor_make(SL_I32, 3, (int64_t[]){rows, cols, 1}, idx);
  sl_tensor to = sl_tensor_make(SL_F32, 2, (int64_t[]){rows, cols}, out);
  return gnd(ctx, variant, *x, ti, 1, dims, to, NULL);
}

/* A long index (5000 tuples over 3 threads, scanned in blocks of 1024):
 * the first bad value in row-major order is the one named, wherever it
 * lies, in either column, too large or negative, i32 or i64, the index
 * contiguous or column-major (its columns scanned apart); one in every
 * column of the last tuple as well, where the earlier column wins. */
static void test_bad_deep(void) {
  enum { N = 5000 };
  static int64_t i64[N][2], i64_cm[2][N];
  static int32_t i32[N][2];
  static float out[N];
  static const struct {
    int at, col;
    int64_t v;
    const char *msg;
  } cases[] = {
      {2500, 1, 3, "index[2500,0,1]=3 out of range [0,3) for dim 1"},
      {1023, 0, -1, "index[1023,0,0]=-1 out of range [0,4) for dim 0"},
      {1024, 1, -5, "index[1024,0,1]=-5 out of range [0,3) for dim 1"},
      {N - 1, 0, 4, "index[4999,0,0]=4 out of range [0,4) for dim 0"},
  };
  sl_tensor tx = sl_tensor_make(SL_F32, 2, S43, (void *)A);
  sl_tensor to = sl_tensor_make(SL_F32, 2, (int64_t[]){N, 1}, out);
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  ctx.threads = 3;
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c)
    for (int wide = 0; wide <= 1; ++wide) {
      for (int p = 0; p < N; ++p)
        for (int k = 0; k < 2; ++k) {
          i64[p][k] = (p + k) % (k ? 3 : 4); /* x is [4,3] */
          i32[p][k] = (int32_t)i64[p][k];
        }
      i64[cases[c].at][cases[c].col] = cases[c].v;
      i32[cases[c].at][cases[c].col] = (int32_t)cases[c].v;
      if (cases[c].at == N - 1) { /* column 1 bad too: column 0 is named */
        i64[N - 1][1] = 9;
        i32[N - 1][1] = 9;
      }
      sl_tensor ti =
          sl_tensor_make(wide ? SL_I64 : SL_I32, 3, (int64_t[]){N, 1, 2},
                         wide ? (void *)i64 : (void *)i32);
      FOR_EACH_VARIANT(SL_OP_GATHER_ND, v) {
        CHECK(gnd(&ctx, v->name, tx, ti, 0, NULL, to, NULL) ==
              SL_STATUS_INDEX_OUT_OF_RANGE);
        CHECK_CONTAINS(ctx.msg, cases[c].msg);
      }
      if (!wide) continue;
      for (int p = 0; p < N; ++p)
        for (int k = 0; k < 2; ++k) i64_cm[k][p] = i64[p][k];
      sl_tensor cm = ti; /* the same values, column-major */
      cm.data = i64_cm;
      cm.strides[0] = 1;
      cm.strides[2] = N;
      CHECK(gnd(&ctx, "cpu.serial", tx, cm, 0, NULL, to, NULL) ==
            SL_STATUS_INDEX_OUT_OF_RANGE);
      CHECK_CONTAINS(ctx.msg, cases[c].msg);
      i64_cm[cases[c].col][cases[c].at] = 1; /* in range again */
      if (cases[c].at == N - 1) i64_cm[1][N - 1] = 1;
      CHECK(gnd(&ctx, "cpu.serial", tx, cm, 0, NULL, to, NULL) == SL_STATUS_OK);
    }
}

int main(void) {
  test_seed000_identity();
  test_multi_axis();
  test_strides();
  test_empty();
  test_dtypes();
  test_bad_input();
  test_bad_deep();
  check_gather_panels(SL_OP_GATHER_ND, run_gather_nd);
  return sl_test_finish("test_gather_nd");
}
