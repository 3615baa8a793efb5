/*
 * scatter_nd on every CPU variant: seed 000's identity with scatter,
 * duplicates with none and sum (both cpu.omp strategies: parallel over
 * groups and over destination ranges), f16/bf16 sums accumulated in f32,
 * integer wrap-around, strides, empty inputs, dtypes, and one test per
 * bad-input status that applies, each asserting the status and that the
 * message names the argument.
 */
#include <stdint.h>

#include "core_test.h"
#include "sl/sl.h"
#include "sl_test.h"

static const float A[12] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
static const int64_t S43[2] = {4, 3};

/* Runs scatter_nd with the given dims (ndims 0: default) and reduce. */
static sl_status snd(sl_ctx *ctx, const char *variant, sl_tensor x,
                     sl_tensor index, sl_tensor src, int ndims,
                     const int64_t *dims, sl_reduce reduce, sl_tensor out) {
  sl_call c;
  sl_call_init(&c, SL_OP_SCATTER_ND);
  c.arg[0] = x;
  c.arg[1] = index;
  c.arg[2] = src;
  c.arg[3] = out;
  c.p.ndims = ndims;
  for (int k = 0; k < ndims && k < SL_MAX_DIMS; ++k) c.p.dims[k] = dims[k];
  c.p.reduce = reduce;
  return sl_run(ctx, variant, &c);
}

/* Seed 000: scatter(C, dim=0, index, B_1) == scatter_nd(dims=[0],
 * index.unsqueeze(-1)), with the seed's numbers. */
static void test_seed000_identity(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  static const int64_t idx[6] = {0, 1, 1, 3, 2, 0};
  static const float b1[6] = {0, 4, 5, 9, 7, 2};
  static const float want[12] = {0, 0, 2, 0, 4, 5, 0, 7, 0, 9, 0, 0};
  float zeros[12] = {0};
  sl_tensor c = sl_tensor_make(SL_F32, 2, S43, zeros);
  sl_tensor g = sl_tensor_make(SL_I64, 2, (int64_t[]){2, 3}, (void *)idx);
  sl_tensor n = sl_tensor_make(SL_I64, 3, (int64_t[]){2, 3, 1}, (void *)idx);
  sl_tensor src = sl_tensor_make(SL_F32, 2, (int64_t[]){2, 3}, (void *)b1);
  int ran = 0;
  FOR_EACH_VARIANT(SL_OP_SCATTER_ND, v) {
    float os[12], on[12];
    sl_tensor ts = sl_tensor_make(SL_F32, 2, S43, os);
    sl_tensor tn = sl_tensor_make(SL_F32, 2, S43, on);
    CHECK(sl_scatter(&ctx, "cpu.serial", &c, 0, &g, &src, &ts) == SL_STATUS_OK);
    CHECK(snd(&ctx, v->name, c, n, src, 1, (int64_t[]){0}, SL_REDUCE_NONE,
              tn) == SL_STATUS_OK);
    CHECK(memcmp(os, want, sizeof want) == 0);
    CHECK(memcmp(on, want, sizeof want) == 0);
    /* Default dims ([0]) and dims=[-2] say the same. */
    memset(on, 0, sizeof on);
    CHECK(snd(&ctx, v->name, c, n, src, 1, (int64_t[]){-2}, SL_REDUCE_NONE,
              tn) == SL_STATUS_OK);
    CHECK(memcmp(on, want, sizeof want) == 0);
    ++ran;
  }
  CHECK(ran == 5); /* serial, omp, atomic, lock, sorted */
}

/*
 * Duplicates. 1-D (every axis indexed: cpu.omp partitions destinations) and
 * 2-D with dims [1] (axis 0 free: cpu.omp runs rows in parallel when there
 * are at least as many rows as threads). The writes to one element come in
 * row-major order of index on every variant: last wins for none, the sum
 * adds in that order.
 */
static void test_duplicates(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  int32_t x1[5] = {1, 2, 3, 4, 5}, s1[4] = {10, 20, 30, 40};
  int32_t i1[4] = {1, 3, 1, 3};
  sl_tensor tx1 = sl_tensor_make(SL_I32, 1, (int64_t[]){5}, x1);
  sl_tensor ti1 = sl_tensor_make(SL_I32, 2, (int64_t[]){4, 1}, i1);
  sl_tensor ts1 = sl_tensor_make(SL_I32, 1, (int64_t[]){4}, s1);
  float x2[6] = {0}, s2[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  int64_t i2[8] = {0, 2, 0, 1, 2, 2, 1, 2};
  sl_tensor tx2 = sl_tensor_make(SL_F32, 2, (int64_t[]){2, 3}, x2);
  sl_tensor ti2 = sl_tensor_make(SL_I64, 3, (int64_t[]){2, 4, 1}, i2);
  sl_tensor ts2 = sl_tensor_make(SL_F32, 2, (int64_t[]){2, 4}, s2);
  FOR_EACH_VARIANT(SL_OP_SCATTER_ND, v) {
    for (int threads = 0; threads <= 4; ++threads) {
      ctx.threads = threads;
      int32_t o1[5];
      sl_tensor to1 = sl_tensor_make(SL_I32, 1, (int64_t[]){5}, o1);
      CHECK(snd(&ctx, v->name, tx1, ti1, ts1, 0, NULL, SL_REDUCE_NONE, to1) ==
            SL_STATUS_OK);
      const int any = sl_test_any_writer(v);
      CHECK(o1[0] == 1 && (o1[1] == 30 || (any && o1[1] == 10)) && o1[2] == 3 &&
            (o1[3] == 40 || (any && o1[3] == 20)) && o1[4] == 5);
      CHECK(snd(&ctx, v->name, tx1, ti1, ts1, 0, NULL, SL_REDUCE_SUM, to1) ==
            SL_STATUS_OK);
      CHECK(o1[0] == 1 && o1[1] == 42 && o1[2] == 3 && o1[3] == 64 &&
            o1[4] == 5);
      float o2[6];
      sl_tensor to2 = sl_tensor_make(SL_F32, 2, (int64_t[]){2, 3}, o2);
      CHECK(snd(&ctx, v->name, tx2, ti2, ts2, 1, (int64_t[]){1}, SL_REDUCE_NONE,
                to2) == SL_STATUS_OK);
      /* row 0: col 0 gets 1 then 3, col 2 gets 2, col 1 gets 4;
       * row 1: col 2 gets 5, 6, 8, col 1 gets 7. */
      CHECK((o2[0] == 3 || (any && o2[0] == 1)) && o2[1] == 4 && o2[2] == 2);
      CHECK(o2[3] == 0 && o2[4] == 7 &&
            (o2[5] == 8 || (any && (o2[5] == 5 || o2[5] == 6))));
      CHECK(snd(&ctx, v->name, tx2, ti2, ts2, 1, (int64_t[]){1}, SL_REDUCE_SUM,
                to2) == SL_STATUS_OK);
      CHECK(o2[0] == 4 && o2[1] == 4 && o2[2] == 2);
      CHECK(o2[3] == 0 && o2[4] == 7 && o2[5] == 19);
    }
  }
}

/* f16/bf16 sums accumulate in f32 and round once (sl__acc_dtype); integer sums
 * wrap modulo 2^bits. */
static void test_sum_numerics(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  uint16_t hx[3] = {sl_f32_to_f16(1.0f), sl_f32_to_f16(2048.0f),
                    sl_f32_to_f16(0.5f)};
  uint16_t hs[4] = {sl_f32_to_f16(0.25f), sl_f32_to_f16(0.25f),
                    sl_f32_to_f16(1.0f), sl_f32_to_f16(1.0f)};
  uint16_t bx[3] = {sl_f32_to_bf16(1.0f), sl_f32_to_bf16(256.0f),
                    sl_f32_to_bf16(0.5f)};
  uint16_t bs[4] = {sl_f32_to_bf16(0.25f), sl_f32_to_bf16(0.25f),
                    sl_f32_to_bf16(1.0f), sl_f32_to_bf16(1.0f)};
  int64_t hi[4] = {0, 0, 1, 1};
  const int64_t s3[1] = {3}, s4[1] = {4};
  sl_tensor thi = sl_tensor_make(SL_I64, 2, (int64_t[]){4, 1}, hi);
  int32_t ix[2] = {INT32_MAX, 0}, is[1] = {1};
  int64_t lx[2] = {0, INT64_MAX}, ls[1] = {1};
  int32_t ii[1] = {0};
  int64_t li[1] = {1};
  FOR_EACH_VARIANT(SL_OP_SCATTER_ND, v) {
    for (int threads = 0; threads <= 4; threads += 4) {
      ctx.threads = threads;
      uint16_t ho[3];
      CHECK(snd(&ctx, v->name, sl_tensor_make(SL_F16, 1, s3, hx), thi,
                sl_tensor_make(SL_F16, 1, s4, hs), 0, NULL, SL_REDUCE_SUM,
                sl_tensor_make(SL_F16, 1, s3, ho)) == SL_STATUS_OK);
      /* 1 + 0.25 + 0.25 = 1.5; 2048 + 1 + 1 = 2050 in f32, exact in f16
       * (rounding after each step would give 2048 twice: 2049 is a tie that
       * rounds to even); 0.5 untouched. */
      CHECK(ho[0] == sl_f32_to_f16(1.5f));
      CHECK(ho[1] == sl_f32_to_f16(2050.0f));
      CHECK(ho[2] == sl_f32_to_f16(0.5f));
      /* bf16: 256 + 1 + 1 = 258 (per-step rounding would stay at 256). */
      CHECK(snd(&ctx, v->name, sl_tensor_make(SL_BF16, 1, s3, bx), thi,
                sl_tensor_make(SL_BF16, 1, s4, bs), 0, NULL, SL_REDUCE_SUM,
                sl_tensor_make(SL_BF16, 1, s3, ho)) == SL_STATUS_OK);
      CHECK(ho[0] == sl_f32_to_bf16(1.5f));
      CHECK(ho[1] == sl_f32_to_bf16(258.0f));
      CHECK(ho[2] == sl_f32_to_bf16(0.5f));
    }
    int32_t io[2];
    CHECK(snd(&ctx, v->name, sl_tensor_make(SL_I32, 1, (int64_t[]){2}, ix),
              sl_tensor_make(SL_I32, 2, (int64_t[]){1, 1}, ii),
              sl_tensor_make(SL_I32, 1, (int64_t[]){1}, is), 0, NULL,
              SL_REDUCE_SUM,
              sl_tensor_make(SL_I32, 1, (int64_t[]){2}, io)) == SL_STATUS_OK);
    CHECK(io[0] == INT32_MIN && io[1] == 0);
    int64_t lo[2];
    CHECK(snd(&ctx, v->name, sl_tensor_make(SL_I64, 1, (int64_t[]){2}, lx),
              sl_tensor_make(SL_I64, 2, (int64_t[]){1, 1}, li),
              sl_tensor_make(SL_I64, 1, (int64_t[]){1}, ls), 0, NULL,
              SL_REDUCE_SUM,
              sl_tensor_make(SL_I64, 1, (int64_t[]){2}, lo)) == SL_STATUS_OK);
    CHECK(lo[0] == 0 && lo[1] == INT64_MIN);
  }
}

static void test_strides(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  /* x^T: logical 3x4 view of A (4x3): x[i][j] = A[j][i] = 3j + i. */
  sl_tensor xt = transposed_3x4(A);
  int64_t row[2] = {3, 0};
  sl_tensor index = sl_tensor_make(SL_I64, 3, (int64_t[]){3, 2, 1}, row);
  index.strides[0] = 0; /* every row of index is `row` */
  float s[12];
  for (int k = 0; k < 12; ++k) s[k] = (float)(100 + k);
  sl_tensor src = sl_tensor_make(SL_F32, 2, (int64_t[]){3, 2}, s);
  src.strides[0] = 4; /* src[i][j] = s[4i + 2j] */
  src.strides[1] = 2;
  FOR_EACH_VARIANT(SL_OP_SCATTER_ND, v) {
    for (int threads = 0; threads <= 4; threads += 4) {
      ctx.threads = threads;
      float buf[24];
      sl_tensor o = spaced_rows_x4(buf, 3); /* out[i][j] = buf[8i + 2j] */
      CHECK(snd(&ctx, v->name, xt, index, src, 1, (int64_t[]){1},
                SL_REDUCE_NONE, o) == SL_STATUS_OK);
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 4; ++j) {
          float want = j == 3   ? (float)(100 + 4 * i)
                       : j == 0 ? (float)(102 + 4 * i)
                                : (float)(3 * j + i);
          CHECK_MSG(buf[8 * i + 2 * j] == want, "out[%d][%d] = %g, want %g", i,
                    j, buf[8 * i + 2 * j], want);
        }
      CHECK(buf[1] == -7 && buf[23] == -7);
    }
  }
}

/* An f16 sum into x [6, 5] along dim 0 from positions [8, 5] (each
 * element of x hit up to three times), out in four layouts: contiguous,
 * column-major (from a contiguous x, and from an x laid out alike), and
 * spaced with gaps. The dense ones go through f32 copies laid out as out
 * is, the spaced one by the per-element path; all four alike bit for
 * bit. */
static void test_half_sum_layouts(void) {
  enum { R = 6, C = 5, P = 8 };
  uint16_t x[R * C], xt[R * C], src[P * C], outs[4][2 * R * C];
  int64_t idx[P * C];
  for (int i = 0; i < R * C; ++i) x[i] = sl_f32_to_f16(0.1f * (float)i);
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) xt[c * R + r] = x[r * C + c];
  for (int k = 0; k < P * C; ++k) {
    src[k] = sl_f32_to_f16(1 + 0.37f * (float)k);
    idx[k] = (k / C * 7 + k % C) % R;
  }
  const int64_t xs[2] = {R, C};
  sl_tensor tx = sl_tensor_make(SL_F16, 2, xs, x);
  sl_tensor txt = tx; /* the same values, column-major */
  txt.data = xt, txt.strides[0] = 1, txt.strides[1] = R;
  sl_tensor ti = sl_tensor_make(SL_I64, 3, (int64_t[]){P, C, 1}, idx);
  sl_tensor ts = sl_tensor_make(SL_F16, 2, (int64_t[]){P, C}, src);
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  FOR_EACH_VARIANT(SL_OP_SCATTER_ND, v) {
    sl_tensor o[4];
    for (int l = 0; l < 4; ++l) o[l] = sl_tensor_make(SL_F16, 2, xs, outs[l]);
    o[1].strides[0] = o[2].strides[0] = 1; /* column-major */
    o[1].strides[1] = o[2].strides[1] = R;
    o[3].strides[0] = 2 * C, o[3].strides[1] = 2; /* gaps: not dense */
    for (int l = 0; l < 4; ++l)
      CHECK_MSG(snd(&ctx, v->name, l == 2 ? txt : tx, ti, ts, 0, NULL,
                    SL_REDUCE_SUM, o[l]) == SL_STATUS_OK,
                "%s layout %d: %s", v->name, l, sl_ctx_message(&ctx));
    int bad = 0;
    for (int r = 0; r < R; ++r)
      for (int c = 0; c < C; ++c) {
        const uint16_t want = outs[3][r * 2 * C + 2 * c];
        bad += outs[0][r * C + c] != want;
        bad += outs[1][c * R + r] != want;
        bad += outs[2][c * R + r] != want;
      }
    CHECK_MSG(bad == 0, "%s: %d elements differ from the spaced out's", v->name,
              bad);
  }
}

/* Zero positions, M = 0 and a rank-0 x: no error. */
static void test_empty(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  sl_tensor x = sl_tensor_make(SL_F32, 2, S43, (void *)A);
  sl_tensor e = sl_tensor_make(SL_I64, 3, (int64_t[]){0, 3, 1}, NULL);
  sl_tensor es = sl_tensor_make(SL_F32, 2, (int64_t[]){0, 3}, NULL);
  sl_tensor m0 = sl_tensor_make(SL_I32, 3, (int64_t[]){2, 2, 0}, NULL);
  float blk[4] = {-1, -2, -3, -4};
  sl_tensor tb = sl_tensor_make(SL_F32, 2, (int64_t[]){2, 2}, blk);
  float s0 = 5, a0 = 2;
  sl_tensor x0 = sl_tensor_make(SL_F32, 0, NULL, &s0);
  sl_tensor src0 = sl_tensor_make(SL_F32, 0, NULL, &a0);
  sl_tensor i0 = sl_tensor_make(SL_I64, 1, (int64_t[]){0}, NULL);
  FOR_EACH_VARIANT(SL_OP_SCATTER_ND, v) {
    float out[12];
    sl_tensor o = sl_tensor_make(SL_F32, 2, S43, out);
    CHECK(snd(&ctx, v->name, x, e, es, 1, (int64_t[]){0}, SL_REDUCE_SUM, o) ==
          SL_STATUS_OK);
    CHECK(memcmp(out, A, sizeof A) == 0);
    /* M = 0: src replaces (or adds to) the leading block x[:2, :2]. */
    CHECK(snd(&ctx, v->name, x, m0, tb, 0, NULL, SL_REDUCE_NONE, o) ==
          SL_STATUS_OK);
    const float wn[12] = {-1, -2, 2, -3, -4, 5, 6, 7, 8, 9, 10, 11};
    CHECK(memcmp(out, wn, sizeof wn) == 0);
    CHECK(snd(&ctx, v->name, x, m0, tb, 0, NULL, SL_REDUCE_SUM, o) ==
          SL_STATUS_OK);
    const float ws[12] = {-1, -1, 2, 0, 0, 5, 6, 7, 8, 9, 10, 11};
    CHECK(memcmp(out, ws, sizeof ws) == 0);
    /* Rank-0 x: index [0]; out = src (none) or x + src (sum). */
    float r = -1;
    sl_tensor tr = sl_tensor_make(SL_F32, 0, NULL, &r);
    CHECK(snd(&ctx, v->name, x0, i0, src0, 0, NULL, SL_REDUCE_NONE, tr) ==
          SL_STATUS_OK);
    CHECK(r == 2);
    CHECK(snd(&ctx, v->name, x0, i0, src0, 0, NULL, SL_REDUCE_SUM, tr) ==
          SL_STATUS_OK);
    CHECK(r == 7);
  }
}

/* Data movement with reduce none: bool, complex64 and complex128 travel
 * bitwise. */
static void test_dtypes(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  int32_t idx[2] = {2, 0};
  sl_tensor ti = sl_tensor_make(SL_I32, 2, (int64_t[]){2, 1}, idx);
  float cx[6] = {1, 2, 3, 4, 5, 6}, cs[4] = {-1, -2, -3, -4};
  uint8_t bx[3] = {0, 0, 1}, bs[2] = {1, 0};
  FOR_EACH_VARIANT(SL_OP_SCATTER_ND, v) {
    float co[6];
    CHECK(snd(&ctx, v->name, sl_tensor_make(SL_C64, 1, (int64_t[]){3}, cx), ti,
              sl_tensor_make(SL_C64, 1, (int64_t[]){2}, cs), 0, NULL,
              SL_REDUCE_NONE,
              sl_tensor_make(SL_C64, 1, (int64_t[]){3}, co)) == SL_STATUS_OK);
    const float cw[6] = {-3, -4, 3, 4, -1, -2};
    CHECK(memcmp(co, cw, sizeof cw) == 0);
    uint8_t bo[3];
    CHECK(snd(&ctx, v->name, sl_tensor_make(SL_BOOL, 1, (int64_t[]){3}, bx), ti,
              sl_tensor_make(SL_BOOL, 1, (int64_t[]){2}, bs), 0, NULL,
              SL_REDUCE_NONE,
              sl_tensor_make(SL_BOOL, 1, (int64_t[]){3}, bo)) == SL_STATUS_OK);
    CHECK(bo[0] == 0 && bo[1] == 0 && bo[2] == 1);
    /* c128 (a 16-byte row loop of its own): index {2, 0, 2}, the second
     * write to element 2 wins. */
    const int32_t i3[3] = {2, 0, 2};
    const double zx[6] = {1, 2, 3, 4, 5, 6}, zs[6] = {-1, -2, -3, -4, -5, -6};
    const double zw[6] = {-3, -4, 3, 4, -5, -6};
    double zo[6];
    CHECK(snd(&ctx, v->name,
              sl_tensor_make(SL_C128, 1, (int64_t[]){3}, (void *)zx),
              sl_tensor_make(SL_I32, 2, (int64_t[]){3, 1}, (void *)i3),
              sl_tensor_make(SL_C128, 1, (int64_t[]){3}, (void *)zs), 0, NULL,
              SL_REDUCE_NONE,
              sl_tensor_make(SL_C128, 1, (int64_t[]){3}, zo)) == SL_STATUS_OK);
    CHECK_MSG(memcmp(zo, zw, sizeof zw) == 0, "%s: c128 %g %g %g %g %g %g",
              v->name, zo[0], zo[1], zo[2], zo[3], zo[4], zo[5]);
  }
}

/* Bad input: one check per class that applies to scatter_nd. */
static void test_bad_input(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  const char *v = "cpu.serial";
  float out[12], sv[4] = {1, 2, 3, 4};
  for (int i = 0; i < 12; ++i) out[i] = -3;
  sl_tensor x = sl_tensor_make(SL_F32, 2, S43, (void *)A);
  int64_t idx[4] = {3, 2, 4, 0}; /* index[1,0] = 4 is bad for dim 0 */
  sl_tensor index = sl_tensor_make(SL_I64, 2, (int64_t[]){2, 2}, idx);
  sl_tensor idx3 = sl_tensor_make(SL_I64, 3, (int64_t[]){2, 1, 2}, idx);
  sl_tensor src = sl_tensor_make(SL_F32, 2, (int64_t[]){2, 1}, sv);
  sl_tensor o = sl_tensor_make(SL_F32, 2, S43, out);
  /* x [4,3] needs index of rank 3. */
  CHECK(snd(&ctx, v, x, index, src, 0, NULL, SL_REDUCE_NONE, o) ==
        SL_STATUS_RANK_MISMATCH);
  CHECK_CONTAINS(ctx.msg, "index: expected rank 3 (the rank of x [4,3] plus "
                          "one), got rank 2 [2,2]");
  /* index value out of range; nothing written */
  FOR_EACH_VARIANT(SL_OP_SCATTER_ND, w) {
    CHECK(snd(&ctx, w->name, x, idx3, src, 0, NULL, SL_REDUCE_SUM, o) ==
          SL_STATUS_INDEX_OUT_OF_RANGE);
    CHECK_CONTAINS(ctx.msg,
                   "index[1,0,0]=4 out of range [0,4) for dim 0 of x [4,3]");
    CHECK(out[0] == -3 && out[11] == -3);
  }
  idx[2] = 1;
  CHECK(snd(&ctx, v, x, idx3, src, 0, NULL, SL_REDUCE_SUM, o) == SL_STATUS_OK);
  CHECK(out[11] == 12 && out[3] == 5 && out[0] == 0); /* 11+1, 3+2 */
  /* null pointer: src data */
  sl_tensor nod = src;
  nod.data = NULL;
  CHECK(snd(&ctx, v, x, idx3, nod, 0, NULL, SL_REDUCE_NONE, o) ==
        SL_STATUS_NULL_POINTER);
  CHECK_CONTAINS(ctx.msg, "src: expected data for 2 elements, got NULL");
  /* dim out of range */
  CHECK(snd(&ctx, v, x, idx3, src, 2, (int64_t[]){-3, 0}, SL_REDUCE_NONE, o) ==
        SL_STATUS_DIM_OUT_OF_RANGE);
  CHECK_CONTAINS(ctx.msg, "dims[0]: expected a value in [-2,1] for a rank-2 "
                          "tensor, got -3");
  /* shape mismatch: src not index.shape[:-1], rank too */
  sl_tensor s12 = sl_tensor_make(SL_F32, 2, (int64_t[]){1, 2}, sv);
  CHECK(snd(&ctx, v, x, idx3, s12, 0, NULL, SL_REDUCE_NONE, o) ==
        SL_STATUS_SHAPE_MISMATCH);
  CHECK_CONTAINS(ctx.msg, "src: expected shape [2,1] (index.shape[:-1] of "
                          "index [2,1,2]), got [1,2]");
  sl_tensor s2 = sl_tensor_make(SL_F32, 1, (int64_t[]){2}, sv);
  CHECK(snd(&ctx, v, x, idx3, s2, 0, NULL, SL_REDUCE_NONE, o) ==
        SL_STATUS_RANK_MISMATCH);
  CHECK_CONTAINS(ctx.msg, "src: expected shape [2,1]");
  /* index dtype not integer */
  sl_tensor fidx = sl_tensor_make(SL_F32, 3, (int64_t[]){2, 1, 2}, (void *)A);
  CHECK(snd(&ctx, v, x, fidx, src, 0, NULL, SL_REDUCE_NONE, o) ==
        SL_STATUS_INDEX_DTYPE);
  CHECK_CONTAINS(ctx.msg, "index: expected dtype i32 or i64, got f32");
  /* unknown reduce, and a reduce scatter_nd does not have */
  CHECK(snd(&ctx, v, x, idx3, src, 0, NULL, SL_REDUCE_PROD, o) ==
        SL_STATUS_UNKNOWN_REDUCE);
  CHECK_CONTAINS(ctx.msg, "reduce: expected one of {none, sum}, got prod");
  CHECK(snd(&ctx, v, x, idx3, src, 0, NULL, (sl_reduce)42, o) ==
        SL_STATUS_UNKNOWN_REDUCE);
  CHECK_CONTAINS(ctx.msg, "reduce: expected one of {none, sum}, got code 42");
  /* unsupported dtype: bool (and complex) have no sum; src of another
   * dtype */
  uint8_t bx[12] = {0}, bsrc[2] = {1, 1}, bo[12];
  sl_tensor tbx = sl_tensor_make(SL_BOOL, 2, S43, bx);
  sl_tensor tbs = sl_tensor_make(SL_BOOL, 2, (int64_t[]){2, 1}, bsrc);
  sl_tensor tbo = sl_tensor_make(SL_BOOL, 2, S43, bo);
  CHECK(snd(&ctx, v, tbx, idx3, tbs, 0, NULL, SL_REDUCE_SUM, tbo) ==
        SL_STATUS_UNSUPPORTED_DTYPE);
  CHECK_CONTAINS(ctx.msg, "x: expected one of i32, i64, f16, bf16, f32, f64 "
                          "for reduce sum, got bool");
  CHECK(snd(&ctx, v, tbx, idx3, tbs, 0, NULL, SL_REDUCE_NONE, tbo) ==
        SL_STATUS_OK);
  float cx[24] = {0}, cs[4] = {0}, co[24];
  CHECK(snd(&ctx, v, sl_tensor_make(SL_C64, 2, S43, cx), idx3,
            sl_tensor_make(SL_C64, 2, (int64_t[]){2, 1}, cs), 0, NULL,
            SL_REDUCE_SUM,
            sl_tensor_make(SL_C64, 2, S43, co)) == SL_STATUS_UNSUPPORTED_DTYPE);
  CHECK_CONTAINS(ctx.msg, "got c64");
  CHECK(snd(&ctx, v, x, idx3, tbs, 0, NULL, SL_REDUCE_NONE, o) ==
        SL_STATUS_UNSUPPORTED_DTYPE);
  CHECK_CONTAINS(ctx.msg, "src: expected dtype f32 (the dtype of x), got "
                          "bool");
  /* element count overflow (size_t) in the shape product */
  sl_tensor huge = huge_tensor(
      SL_F32, 3, (int64_t[]){INT64_C(1) << 31, INT64_C(1) << 31, 8}, sv);
  CHECK(snd(&ctx, v, x, idx3, huge, 0, NULL, SL_REDUCE_NONE, o) ==
        SL_STATUS_OVERFLOW);
  CHECK_CONTAINS(ctx.msg, "src: shape [2147483648,2147483648,8]");
}

/*
 * Every axis of the positions indexed, with enough positions for cpu.omp's
 * split by target (scatter_nd_split.c: each thread files its chunk of
 * positions by the range of out they hit, then each range is applied by
 * one thread, chunk after chunk). Against a plain row-major loop, bitwise:
 * the f32/f64 sums mix magnitudes so that another order rounds otherwise,
 * the writes (none) keep the last writer. Shapes of 1-3 indexed axes, one
 * of them with dims out of order; out's element counts are not multiples
 * of the thread counts (1-4). The same layout takes the conflict variants'
 * direct addressing (sl__scatter_nd_direct): cpu.sorted on every dtype,
 * cpu.atomic and cpu.lock on the i32 sums, which no order changes.
 */
enum { SPLIT_P = 3 * 16384 + 5 };

static uint64_t split_rand(uint64_t *state) {
  *state = *state * 6364136223846793005u + 1442695040888963407u;
  return *state >> 33;
}

/* Target of position p: sum over columns of index[p, k] * stride of
 * dims[k] in out (row-major). */
static int64_t split_target(const int64_t *idx, int M, const int64_t *dims,
                            const int64_t *shape, int64_t p) {
  int64_t t = 0;
  for (int k = 0; k < M; ++k) {
    int64_t stride = 1;
    for (int d = (int)dims[k] + 1; d < M; ++d) stride *= shape[d];
    t += idx[p * M + k] * stride;
  }
  return t;
}

/* *w += *sv in dtype dt (f32, f64 or i32, wrapping), as the serial loop
 * adds: one addition in the dtype itself. */
#define SPLIT_ADD(T)                                                           \
  do {                                                                         \
    T a, b;                                                                    \
    memcpy(&a, w, sizeof a);                                                   \
    memcpy(&b, sv, sizeof b);                                                  \
    a = (T)(a + b);                                                            \
    memcpy(w, &a, sizeof a);                                                   \
  } while (0)
static void split_add(sl_dtype dt, char *w, const char *sv) {
  if (dt == SL_F32)
    SPLIT_ADD(float);
  else if (dt == SL_F64)
    SPLIT_ADD(double);
  else
    SPLIT_ADD(uint32_t);
}

static void test_split_by_target(void) {
  static const struct {
    int M;
    int64_t shape[3], dims[3];
  } cases[] = {
      {1, {1531}, {0}}, {2, {37, 41}, {1, 0}}, {3, {7, 9, 11}, {0, 1, 2}}};
  static int64_t idx[SPLIT_P * 3];
  static int32_t idx32[SPLIT_P * 3];
  static double srcd[SPLIT_P], x[1531];
  static float srcf[SPLIT_P];
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  uint64_t state = 42;
  for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ++ci) {
    const int M = cases[ci].M;
    int64_t numel = 1, ishape[SL_MAX_DIMS + 1];
    for (int d = 0; d < M; ++d) numel *= cases[ci].shape[d];
    ishape[0] = SPLIT_P;
    for (int d = 1; d < M; ++d) ishape[d] = 1; /* extent 1: not indexed */
    ishape[M] = M;
    for (int64_t p = 0; p < SPLIT_P; ++p) {
      for (int k = 0; k < M; ++k) {
        idx[p * M + k] =
            (int64_t)(split_rand(&state) % cases[ci].shape[cases[ci].dims[k]]);
        idx32[p * M + k] = (int32_t)idx[p * M + k];
      }
      /* 1e8 beside 1: f32 sums that depend on their order */
      srcd[p] = (split_rand(&state) % 2 ? 1e8 : 1.0) *
                (double)(split_rand(&state) % 7 + 1) *
                (split_rand(&state) % 2 ? 1 : -1);
      srcf[p] = (float)srcd[p];
    }
    for (int64_t e = 0; e < numel; ++e) x[e] = (double)(e % 13) - 6;
    for (int dt = 0; dt < 4; ++dt) { /* f32 sum, f64 sum, i64 none, i32 sum */
      const sl_dtype dtype = dt == 0   ? SL_F32
                             : dt == 1 ? SL_F64
                             : dt == 2 ? SL_I64
                                       : SL_I32;
      const sl_reduce reduce = dt == 2 ? SL_REDUCE_NONE : SL_REDUCE_SUM;
      static char xb[1531 * 8], srcb[SPLIT_P * 8], wantb[1531 * 8],
          outb[1531 * 8];
      const size_t es = sl_dtype_size(dtype);
      for (int64_t e = 0; e < numel; ++e) {
        double v = x[e];
        float f = (float)v;
        int64_t i = (int64_t)v;
        int32_t j = (int32_t)v;
        memcpy(xb + e * es,
               dt == 0   ? (void *)&f
               : dt == 1 ? (void *)&v
               : dt == 2 ? (void *)&i
                         : (void *)&j,
               es);
      }
      for (int64_t p = 0; p < SPLIT_P; ++p) {
        double v = srcd[p];
        int64_t i = (int64_t)(v / 1e7) + p; /* distinct: the last one shows */
        int32_t j = (int32_t)(v / 1e7);
        memcpy(srcb + p * es,
               dt == 0   ? (void *)&srcf[p]
               : dt == 1 ? (void *)&v
               : dt == 2 ? (void *)&i
                         : (void *)&j,
               es);
      }
      memcpy(wantb, xb, (size_t)numel * es);
      for (int64_t p = 0; p < SPLIT_P; ++p) {
        int64_t t = split_target(idx, M, cases[ci].dims, cases[ci].shape, p);
        char *w = wantb + t * (int64_t)es;
        const char *sv = srcb + p * (int64_t)es;
        if (dt == 2)
          memcpy(w, sv, 8); /* none: the last writer wins */
        else
          split_add(dtype, w, sv);
      }
      sl_tensor tx = sl_tensor_make(dtype, M, cases[ci].shape, xb);
      sl_tensor to = sl_tensor_make(dtype, M, cases[ci].shape, outb);
      sl_tensor ti = sl_tensor_make(dt == 3 ? SL_I32 : SL_I64, M + 1, ishape,
                                    dt == 3 ? (void *)idx32 : (void *)idx);
      /* src has index.shape[:-1] */
      sl_tensor ts = sl_tensor_make(dtype, M, ishape, srcb);
      FOR_EACH_VARIANT(SL_OP_SCATTER_ND, v) {
        /* atomic and lock: integer sums, exact in any order */
        if (!(v->flags & SL_DETERMINISTIC) && dt != 3) continue;
        for (int threads = 1; threads <= 4; ++threads) {
          ctx.threads = threads;
          memset(outb, 0x5a, sizeof outb);
          CHECK(snd(&ctx, v->name, tx, ti, ts, M, cases[ci].dims, reduce, to) ==
                SL_STATUS_OK);
          CHECK_MSG(memcmp(outb, wantb, (size_t)numel * es) == 0,
                    "%s, %d threads, M=%d, dtype %d", v->name, threads, M, dt);
        }
      }
    }
  }
}

/* The split checks the index as it files it (SL_CHECKS_INDEX_VALUES): a bad
 * value in any chunk leaves out untouched, and the message names the first
 * bad position in row-major order, as the separate check does. */
static void test_split_bad_index(void) {
  static int64_t idx[SPLIT_P * 2];
  static int32_t idx32[SPLIT_P * 2];
  static float x[37 * 41], src[SPLIT_P], out[37 * 41];
  static const struct {
    int64_t at, value; /* at: an element of idx */
    const char *want;
  } bad[] = {
      {2 * (SPLIT_P - 1) + 1, 37, "index[49156,0,1]=37 out of range [0,37)"},
      {2 * 20000, -1, "index[20000,0,0]=-1 out of range [0,41)"},
      {2 * 3, 41, "index[3,0,0]=41 out of range [0,41)"},
      {2 * 40000 + 1, INT64_C(1) << 40,
       "index[40000,0,1]=1099511627776 out of range [0,37)"},
  };
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  for (int64_t p = 0; p < SPLIT_P; ++p) {
    idx[2 * p] = p % 41; /* dims (1, 0): column 0 indexes axis 1 */
    idx[2 * p + 1] = p % 37;
    src[p] = 1;
  }
  const int64_t shape[2] = {37, 41}, ishape[3] = {SPLIT_P, 1, 2},
                dims[2] = {1, 0};
  sl_tensor tx = sl_tensor_make(SL_F32, 2, shape, x);
  sl_tensor ts = sl_tensor_make(SL_F32, 2, ishape, src);
  sl_tensor to = sl_tensor_make(SL_F32, 2, shape, out);
  for (size_t b = 0; b < sizeof bad / sizeof bad[0]; ++b) {
    const int64_t keep = idx[bad[b].at];
    idx[bad[b].at] = bad[b].value;
    for (int wide = 0; wide < 2; ++wide) {
      if (!wide && bad[b].value != (int32_t)bad[b].value) continue;
      for (int64_t k = 0; k < SPLIT_P * 2; ++k) idx32[k] = (int32_t)idx[k];
      sl_tensor ti = sl_tensor_make(wide ? SL_I64 : SL_I32, 3, ishape,
                                    wide ? (void *)idx : (void *)idx32);
      FOR_EACH_VARIANT(SL_OP_SCATTER_ND, v) {
        for (int threads = 1; threads <= 3; ++threads) {
          ctx.threads = threads;
          for (int e = 0; e < 37 * 41; ++e) out[e] = -7;
          CHECK(snd(&ctx, v->name, tx, ti, ts, 2, dims, SL_REDUCE_SUM, to) ==
                SL_STATUS_INDEX_OUT_OF_RANGE);
          CHECK_CONTAINS(ctx.msg, bad[b].want);
          int untouched = 1;
          for (int e = 0; e < 37 * 41; ++e) untouched &= out[e] == -7;
          CHECK_MSG(untouched, "%s, %d threads, case %zu", v->name, threads, b);
        }
      }
    }
    idx[bad[b].at] = keep;
  }
  /* and the good index runs */
  ctx.threads = 2;
  sl_tensor ti = sl_tensor_make(SL_I64, 3, ishape, idx);
  CHECK(snd(&ctx, "cpu.omp", tx, ti, ts, 2, dims, SL_REDUCE_SUM, to) ==
        SL_STATUS_OK);
}

int main(void) {
  test_seed000_identity();
  test_duplicates();
  test_split_by_target();
  test_split_bad_index();
  test_sum_numerics();
  test_strides();
  test_half_sum_layouts();
  test_empty();
  test_dtypes();
  test_bad_input();
  return sl_test_finish("test_scatter_nd");
}
