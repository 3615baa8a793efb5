/*
 * select_scatter on every CPU variant: seed 002's example, negative index
 * and dim, a rank-3 x, strides (of out too), empty inputs, dtypes, and one test
 * per bad-input status that applies, each asserting the status and that the
 * message names the argument; and the streamed copy of an x past
 * copy_stream_min_bytes with the slice inside its memory order.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core_test.h"
#include "sl/sl.h"
#include "sl_test.h"

/* Runs select_scatter; *p (when given) receives the normalized params. */
static sl_status ss(sl_ctx *ctx, const char *variant, sl_tensor x,
                    sl_tensor value, int64_t dim, int64_t index, sl_tensor out,
                    sl_params *p) {
  sl_call c;
  sl_call_init(&c, SL_OP_SELECT_SCATTER);
  c.arg[0] = x;
  c.arg[1] = value;
  c.arg[2] = out;
  c.p.dim = dim;
  c.p.index = index;
  sl_status st = sl_run(ctx, variant, &c);
  if (p) *p = c.p;
  return st;
}

/* Seed 002: x = [[0,0],[0,0]], value = [1,2], dim 0, index 0 ->
 * [[1,2],[0,0]]; then index -1 and dim -1. */
static void test_seed002(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  int64_t x[4] = {0, 0, 0, 0}, val[2] = {1, 2};
  sl_tensor tx = sl_tensor_make(SL_I64, 2, (int64_t[]){2, 2}, x);
  sl_tensor tv = sl_tensor_make(SL_I64, 1, (int64_t[]){2}, val);
  int ran = 0;
  FOR_EACH_VARIANT(SL_OP_SELECT_SCATTER, v) {
    int64_t out[4] = {9, 9, 9, 9};
    sl_tensor to = sl_tensor_make(SL_I64, 2, (int64_t[]){2, 2}, out);
    sl_params p;
    CHECK(ss(&ctx, v->name, tx, tv, 0, 0, to, &p) == SL_STATUS_OK);
    CHECK(out[0] == 1 && out[1] == 2 && out[2] == 0 && out[3] == 0);
    /* index -1 is the last row. */
    CHECK(ss(&ctx, v->name, tx, tv, 0, -1, to, &p) == SL_STATUS_OK);
    CHECK(p.index == 1 && p.dim == 0);
    CHECK(out[0] == 0 && out[1] == 0 && out[2] == 1 && out[3] == 2);
    /* dim -1, index -2: column 0. */
    CHECK(ss(&ctx, v->name, tx, tv, -1, -2, to, &p) == SL_STATUS_OK);
    CHECK(p.index == 0 && p.dim == 1);
    CHECK(out[0] == 1 && out[1] == 0 && out[2] == 2 && out[3] == 0);
    ++ran;
  }
  CHECK(ran == 2);
}

/* Rank 3, and strided operands: a transposed x, a value expanded with
 * stride 0, a sliced x with a step, a stepped out. */
static void test_rank3_and_strides(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  /* x[a][b][c] = 100a + 10b + c, shape [2,3,2]; dim 1, index 2: value
   * [2,2] = -(1..4). */
  float x[12], val[4] = {-1, -2, -3, -4};
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 3; ++b)
      for (int c = 0; c < 2; ++c) x[a * 6 + b * 2 + c] = 100 * a + 10 * b + c;
  static const float want[12] = {0,   1,   10,  11,  -1, -2,
                                 100, 101, 110, 111, -3, -4};
  sl_tensor tx = sl_tensor_make(SL_F32, 3, (int64_t[]){2, 3, 2}, x);
  sl_tensor tv = sl_tensor_make(SL_F32, 2, (int64_t[]){2, 2}, val);
  /* xt: the transpose of a 4x3 matrix m[i][j] = 3i + j, so xt[i][j] =
   * 3j + i (shape [3,4]); value [4] is val[0] repeated (stride 0). */
  float m[12];
  for (int k = 0; k < 12; ++k) m[k] = (float)k;
  sl_tensor xt = transposed_3x4(m);
  sl_tensor rep = sl_tensor_make(SL_F32, 1, (int64_t[]){4}, val);
  rep.strides[0] = 0;
  /* m[::2, :] = [[0,1,2],[6,7,8]]; dim 1, index 1; value [2] stepped:
   * val[0], val[2]. */
  sl_tensor xs = sl_tensor_make(SL_F32, 2, (int64_t[]){2, 3}, m);
  xs.strides[0] = 6;
  sl_tensor vs = sl_tensor_make(SL_F32, 1, (int64_t[]){2}, val);
  vs.strides[0] = 2;
  FOR_EACH_VARIANT(SL_OP_SELECT_SCATTER, v) {
    for (int threads = 0; threads <= 5; threads += 5) {
      ctx.threads = threads;
      float out[12];
      sl_tensor to = sl_tensor_make(SL_F32, 3, (int64_t[]){2, 3, 2}, out);
      CHECK(ss(&ctx, v->name, tx, tv, 1, 2, to, NULL) == SL_STATUS_OK);
      CHECK(memcmp(out, want, sizeof want) == 0);
      float buf[24];
      sl_tensor o = spaced_rows_x4(buf, 3);
      CHECK(ss(&ctx, v->name, xt, rep, 0, 1, o, NULL) == SL_STATUS_OK);
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 4; ++j)
          CHECK(buf[8 * i + 2 * j] == (i == 1 ? -1.0f : (float)(3 * j + i)));
      CHECK(buf[1] == -7 && buf[23] == -7);
      /* a row-major out: the slice is one run, filled from the broadcast
       * value */
      float o34[12];
      sl_tensor t34 = sl_tensor_make(SL_F32, 2, (int64_t[]){3, 4}, o34);
      CHECK(ss(&ctx, v->name, xt, rep, 0, 1, t34, NULL) == SL_STATUS_OK);
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 4; ++j)
          CHECK(o34[4 * i + j] == (i == 1 ? -1.0f : (float)(3 * j + i)));
      /* out laid out as xt (LibTorch's result keeps x's strides): element
       * [i][j] at 3j + i, the copy in out's memory order */
      float ot[12];
      sl_tensor tt = transposed_3x4(ot);
      CHECK(ss(&ctx, v->name, xt, rep, 0, 1, tt, NULL) == SL_STATUS_OK);
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 4; ++j)
          CHECK(ot[3 * j + i] == (i == 1 ? -1.0f : (float)(3 * j + i)));
      float o6[6];
      sl_tensor t6 = sl_tensor_make(SL_F32, 2, (int64_t[]){2, 3}, o6);
      CHECK(ss(&ctx, v->name, xs, vs, 1, 1, t6, NULL) == SL_STATUS_OK);
      CHECK(o6[0] == 0 && o6[1] == -1 && o6[2] == 2 && o6[3] == 6 &&
            o6[4] == -3 && o6[5] == 8);
    }
  }
}

/* Zero-element x: a selectable axis with an empty slice is fine. A rank-1
 * x takes a rank-0 value. */
static void test_empty_and_rank1(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  sl_tensor x20 = sl_tensor_make(SL_F32, 2, (int64_t[]){2, 0}, NULL);
  sl_tensor v0 = sl_tensor_make(SL_F32, 1, (int64_t[]){0}, NULL);
  sl_tensor x03 = sl_tensor_make(SL_F32, 2, (int64_t[]){0, 3}, NULL);
  float x1[3] = {1, 2, 3}, s = 9;
  sl_tensor tx1 = sl_tensor_make(SL_F32, 1, (int64_t[]){3}, x1);
  sl_tensor ts = sl_tensor_make(SL_F32, 0, NULL, &s);
  FOR_EACH_VARIANT(SL_OP_SELECT_SCATTER, v) {
    CHECK(ss(&ctx, v->name, x20, v0, 0, 1, x20, NULL) == SL_STATUS_OK);
    CHECK(ss(&ctx, v->name, x03, v0, 1, -3, x03, NULL) == SL_STATUS_OK);
    float o[3];
    sl_tensor to = sl_tensor_make(SL_F32, 1, (int64_t[]){3}, o);
    CHECK(ss(&ctx, v->name, tx1, ts, 0, -2, to, NULL) == SL_STATUS_OK);
    CHECK(o[0] == 1 && o[1] == 9 && o[2] == 3);
  }
}

/* Data movement: bool, complex64 and f16 travel bitwise. */
static void test_dtypes(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  float cx[8] = {1, 2, 3, 4, 5, 6, 7, 8}, cv[4] = {-1, -2, -3, -4};
  uint8_t bx[4] = {0, 0, 0, 0}, bv[2] = {1, 1};
  uint16_t hx[4] = {0, 0, 0, 0};
  uint16_t hv[2] = {sl_f32_to_f16(0.1f), sl_f32_to_f16(-65504.0f)};
  const int64_t s22[2] = {2, 2}, s2[1] = {2};
  FOR_EACH_VARIANT(SL_OP_SELECT_SCATTER, v) {
    float co[8];
    CHECK(ss(&ctx, v->name, sl_tensor_make(SL_C64, 2, s22, cx),
             sl_tensor_make(SL_C64, 1, s2, cv), 1, 1,
             sl_tensor_make(SL_C64, 2, s22, co), NULL) == SL_STATUS_OK);
    const float cw[8] = {1, 2, -1, -2, 5, 6, -3, -4};
    CHECK(memcmp(co, cw, sizeof cw) == 0);
    uint8_t bo[4];
    CHECK(ss(&ctx, v->name, sl_tensor_make(SL_BOOL, 2, s22, bx),
             sl_tensor_make(SL_BOOL, 1, s2, bv), 0, 1,
             sl_tensor_make(SL_BOOL, 2, s22, bo), NULL) == SL_STATUS_OK);
    CHECK(bo[0] == 0 && bo[1] == 0 && bo[2] == 1 && bo[3] == 1);
    uint16_t ho[4];
    CHECK(ss(&ctx, v->name, sl_tensor_make(SL_F16, 2, s22, hx),
             sl_tensor_make(SL_F16, 1, s2, hv), 0, 0,
             sl_tensor_make(SL_F16, 2, s22, ho), NULL) == SL_STATUS_OK);
    CHECK(ho[0] == sl_f32_to_f16(0.1f) && ho[1] == sl_f32_to_f16(-65504.0f) &&
          ho[2] == 0 && ho[3] == 0);
  }
}

/* Bad input: one check per class that applies to select_scatter. */
static void test_bad_input(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  const char *v = "cpu.serial";
  int64_t x[4] = {0, 0, 0, 0}, val[3] = {1, 2, 3}, out[4] = {5, 5, 5, 5};
  sl_tensor tx = sl_tensor_make(SL_I64, 2, (int64_t[]){2, 2}, x);
  sl_tensor tv = sl_tensor_make(SL_I64, 1, (int64_t[]){2}, val);
  sl_tensor to = sl_tensor_make(SL_I64, 2, (int64_t[]){2, 2}, out);
  /* shape mismatch: an extra size-1 axis, a longer value, a scalar (no
   * broadcast, as LibTorch); nothing written */
  FOR_EACH_VARIANT(SL_OP_SELECT_SCATTER, w) {
    sl_tensor v12 = sl_tensor_make(SL_I64, 2, (int64_t[]){1, 2}, val);
    CHECK(ss(&ctx, w->name, tx, v12, 0, 0, to, NULL) ==
          SL_STATUS_SHAPE_MISMATCH);
    CHECK_CONTAINS(ctx.msg,
                   "value: expected shape [2] (x [2,2] without dim 0), got "
                   "[1,2]");
    CHECK(out[0] == 5 && out[3] == 5);
  }
  sl_tensor v3 = sl_tensor_make(SL_I64, 1, (int64_t[]){3}, val);
  CHECK(ss(&ctx, v, tx, v3, 1, 0, to, NULL) == SL_STATUS_SHAPE_MISMATCH);
  CHECK_CONTAINS(ctx.msg, "value: expected shape [2] (x [2,2] without dim "
                          "1), got [3]");
  sl_tensor v0 = sl_tensor_make(SL_I64, 0, NULL, val);
  CHECK(ss(&ctx, v, tx, v0, 1, 0, to, NULL) == SL_STATUS_SHAPE_MISMATCH);
  CHECK_CONTAINS(ctx.msg, "value: expected shape [2]");
  /* index out of range (the integer parameter), both sides, and on an
   * empty axis */
  CHECK(ss(&ctx, v, tx, tv, 0, 2, to, NULL) == SL_STATUS_INDEX_OUT_OF_RANGE);
  CHECK_CONTAINS(ctx.msg, "index: expected a value in [-2,2) for dim 0 of x "
                          "[2,2], got 2");
  CHECK(ss(&ctx, v, tx, tv, 1, -3, to, NULL) == SL_STATUS_INDEX_OUT_OF_RANGE);
  CHECK_CONTAINS(ctx.msg, "index: expected a value in [-2,2) for dim 1 of x "
                          "[2,2], got -3");
  sl_tensor x03 = sl_tensor_make(SL_I64, 2, (int64_t[]){0, 3}, NULL);
  sl_tensor e3 = sl_tensor_make(SL_I64, 1, (int64_t[]){3}, val);
  CHECK(ss(&ctx, v, x03, e3, 0, 0, x03, NULL) == SL_STATUS_INDEX_OUT_OF_RANGE);
  CHECK_CONTAINS(ctx.msg, "index: expected a value in [0,0) for dim 0 of x "
                          "[0,3], got 0");
  /* dim out of range, and a rank-0 x (LibTorch: select() cannot be applied
   * to a 0-dim tensor) */
  CHECK(ss(&ctx, v, tx, tv, 2, 0, to, NULL) == SL_STATUS_DIM_OUT_OF_RANGE);
  CHECK_CONTAINS(ctx.msg, "dim: expected a value in [-2,1] for a rank-2 "
                          "tensor, got 2");
  sl_tensor s0 = sl_tensor_make(SL_I64, 0, NULL, x);
  sl_tensor so = sl_tensor_make(SL_I64, 0, NULL, out);
  CHECK(ss(&ctx, v, s0, v0, 0, 0, so, NULL) == SL_STATUS_DIM_OUT_OF_RANGE);
  CHECK_CONTAINS(ctx.msg, "dim: expected an axis of x, got dim 0 of the "
                          "rank-0 x []");
  /* null pointer */
  sl_tensor nod = tv;
  nod.data = NULL;
  CHECK(ss(&ctx, v, tx, nod, 0, 0, to, NULL) == SL_STATUS_NULL_POINTER);
  CHECK_CONTAINS(ctx.msg, "value: expected data for 2 elements, got NULL");
  /* unsupported dtype: value of another dtype (LibTorch would cast) */
  int32_t ival[2] = {1, 2};
  sl_tensor ti = sl_tensor_make(SL_I32, 1, (int64_t[]){2}, ival);
  CHECK(ss(&ctx, v, tx, ti, 0, 0, to, NULL) == SL_STATUS_UNSUPPORTED_DTYPE);
  CHECK_CONTAINS(ctx.msg, "value: expected dtype i64 (the dtype of x), got "
                          "i32");
  /* output of the wrong shape */
  sl_tensor o3 = sl_tensor_make(SL_I64, 1, (int64_t[]){4}, out);
  CHECK(ss(&ctx, v, tx, tv, 0, 0, o3, NULL) == SL_STATUS_SHAPE_MISMATCH);
  CHECK_CONTAINS(ctx.msg, "out: expected shape [2,2], got [4]");
  /* element count overflow (size_t) in the shape product */
  sl_tensor huge = huge_tensor(
      SL_I64, 2, (int64_t[]){INT64_C(1) << 32, INT64_C(1) << 32}, x);
  CHECK(ss(&ctx, v, huge, tv, 0, 0, to, NULL) == SL_STATUS_OVERFLOW);
  CHECK_CONTAINS(ctx.msg, "x: shape [4294967296,4294967296]");
}

/* Pseudo-random bytes. */
static void fill_bytes(unsigned char *p, int64_t n, uint32_t seed) {
  for (int64_t i = 0; i < n; ++i) {
    seed = seed * 1103515245u + 12345u;
    p[i] = (unsigned char)(seed >> 16);
  }
}

/* x of `shape`, row-major or column-major, out laid out alike `shift`
 * elements past an aligned start, value row-major: every element of out
 * against the definition, on every variant. */
static void check_streamed(sl_dtype dt, int ndim, const int64_t *shape, int dim,
                           int64_t at, int column_major, int64_t shift) {
  const int64_t es = (int64_t)sl_dtype_size(dt);
  int64_t n = 1, vshape[SL_MAX_DIMS], st[SL_MAX_DIMS], vst[SL_MAX_DIMS];
  for (int d = 0; d < ndim; ++d) n *= shape[d];
  for (int d = 0, j = 0; d < ndim; ++d)
    if (d != dim) vshape[j++] = shape[d];
  int64_t step = 1;
  for (int k = 0; k < ndim; ++k) { /* x's strides, innermost first */
    const int d = column_major ? k : ndim - 1 - k;
    st[d] = step;
    step *= shape[d];
  }
  const int64_t m = n / shape[dim];
  unsigned char *x = malloc((size_t)(n * es)), *val = malloc((size_t)(m * es));
  unsigned char *buf = malloc((size_t)((n + shift) * es) + 64);
  CHECK(x && val && buf);
  if (!(x && val && buf)) goto done;
  fill_bytes(x, n * es, 7u);
  fill_bytes(val, m * es, 11u);
  unsigned char *out = buf + (-(uintptr_t)buf & 63) + shift * es;
  sl_tensor tx = sl_tensor_make(dt, ndim, shape, x);
  sl_tensor tv = sl_tensor_make(dt, ndim - 1, vshape, val);
  sl_tensor to = sl_tensor_make(dt, ndim, shape, out);
  memcpy(tx.strides, st, sizeof st);
  memcpy(to.strides, st, sizeof st);
  memcpy(vst, tv.strides, sizeof vst);
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  ctx.threads = 2;
  FOR_EACH_VARIANT(SL_OP_SELECT_SCATTER, v) {
    memset(out, 0xA5, (size_t)(n * es));
    CHECK(ss(&ctx, v->name, tx, tv, dim, at, to, NULL) == SL_STATUS_OK);
    /* row-major positions by an odometer: x's and value's offsets */
    int64_t idx[SL_MAX_DIMS] = {0}, bad = 0, first = -1;
    for (int64_t l = 0; l < n; ++l) {
      int64_t xo = 0, vo = 0;
      for (int d = 0, j = 0; d < ndim; ++d) {
        xo += idx[d] * st[d];
        if (d != dim) vo += idx[d] * vst[j++];
      }
      const unsigned char *want = idx[dim] == at ? val + vo * es : x + xo * es;
      if (memcmp(out + xo * es, want, (size_t)es) != 0 && bad++ == 0) first = l;
      for (int d = ndim - 1; d >= 0 && ++idx[d] == shape[d]; --d) idx[d] = 0;
    }
    CHECK_MSG(bad == 0,
              "%s %s dim %d at %lld %s shift %lld: %lld of %lld elements "
              "wrong, the first at row-major %lld",
              v->name, sl_dtype_name(dt), dim, (long long)at,
              column_major ? "column-major" : "row-major", (long long)shift,
              (long long)bad, (long long)n, (long long)first);
  }
done:
  free(x);
  free(val);
  free(buf);
}

/* x past copy_stream_min_bytes: the slice's runs of one element blended
 * into the streamed lines (1 to 8 bytes), put in through a line buffer (16
 * bytes, runs of two), long periods streamed in parts, column-major x,
 * out starting off a line. */
static void test_streamed(void) {
  const long long bytes = sl_test_threshold("copy_stream_min_bytes");
  CHECK_MSG(bytes > 0, "no threshold copy_stream_min_bytes");
  if (bytes <= 0) return;
  /* rows of 301 elements: x is the threshold's size or a little more */
  const int64_t rows = (int64_t)(bytes / 301) + 1;
  const int64_t a = rows / 8 + 1;
  check_streamed(SL_U8, 3, (int64_t[]){a, 8, 301}, 2, 150, 0, 0);
  check_streamed(SL_U8, 3, (int64_t[]){a, 8, 301}, 2, 0, 0, 3);
  check_streamed(SL_I16, 3, (int64_t[]){a, 8, 301}, 2, 300, 0, 1);
  check_streamed(SL_F32, 3, (int64_t[]){a / 4 + 1, 8, 301}, 2, 77, 0, 5);
  check_streamed(SL_F64, 3, (int64_t[]){a / 8 + 1, 8, 301}, 1, 3, 0, 0);
  check_streamed(SL_C128, 3, (int64_t[]){a / 16 + 1, 8, 301}, 2, 9, 0, 1);
  check_streamed(SL_F32, 4, (int64_t[]){a / 8 + 1, 8, 301, 2}, 2, 7, 0, 0);
  check_streamed(SL_BF16, 2, (int64_t[]){301, rows / 2 + 1}, 0, 200, 1, 2);
  check_streamed(SL_I8, 2, (int64_t[]){2, rows * 301 / 2 + 1}, 1, 5, 0, 0);
}

int main(void) {
  test_seed002();
  test_rank3_and_strides();
  test_empty_and_rank1();
  test_dtypes();
  test_bad_input();
  test_streamed();
  return sl_test_finish("test_select_scatter");
}
