/*
 * masked_scatter on every CPU variant: seed 003's example (LibTorch's
 * documented one), broadcast masks, the prefix-sum chunks of cpu.omp on a
 * longer input, strides, empty inputs, dtypes, and one test per bad-input
 * status that applies, each asserting the status and that the message names
 * the argument.
 */
#include <stdint.h>
#include <stdlib.h>

#include "core_test.h"
#include "sl/sl.h"
#include "sl_test.h"

static sl_status ms(sl_ctx *ctx, const char *variant, sl_tensor x,
                    sl_tensor mask, sl_tensor source, sl_tensor out) {
  sl_call c;
  sl_call_init(&c, SL_OP_MASKED_SCATTER);
  c.arg[0] = x;
  c.arg[1] = mask;
  c.arg[2] = source;
  c.arg[3] = out;
  return sl_run(ctx, variant, &c);
}

/* ms on a fresh context of `threads` threads. */
static sl_status ms_on(int threads, const char *variant, sl_tensor x,
                       sl_tensor mask, sl_tensor source, sl_tensor out) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  ctx.threads = threads;
  return ms(&ctx, variant, x, mask, source, out);
}

/* Seed 003 describes LibTorch's masked_scatter: source's elements, in
 * order, go to the true positions in order. Its documented example:
 * x = zeros(2,5), mask = [[0,0,0,1,1],[1,1,0,1,1]], source = arange(10)
 * as [2,5] -> [[0,0,0,0,1],[2,3,0,4,5]]. */
static void test_seed003(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  float x[10] = {0}, src[10] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  uint8_t mask[10] = {0, 0, 0, 1, 1, 1, 1, 0, 1, 1};
  const int64_t s25[2] = {2, 5};
  static const float want[10] = {0, 0, 0, 0, 1, 2, 3, 0, 4, 5};
  int ran = 0;
  FOR_EACH_VARIANT(SL_OP_MASKED_SCATTER, v) {
    for (int threads = 0; threads <= 7; threads += 7) {
      ctx.threads = threads;
      float out[10];
      CHECK(ms(&ctx, v->name, sl_tensor_make(SL_F32, 2, s25, x),
               sl_tensor_make(SL_BOOL, 2, s25, mask),
               sl_tensor_make(SL_F32, 2, s25, src),
               sl_tensor_make(SL_F32, 2, s25, out)) == SL_STATUS_OK);
      CHECK(memcmp(out, want, sizeof want) == 0);
    }
    ++ran;
  }
  CHECK(ran == 2);
}

/* Broadcast masks (fewer axes, size-1 axes, rank 0), and a long input
 * whose true positions spread over many chunks of cpu.omp. */
static void test_broadcast_and_chunks(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  float x[6] = {0, 1, 2, 3, 4, 5}, src[6] = {10, 11, 12, 13, 14, 15};
  const int64_t s23[2] = {2, 3};
  sl_tensor tx = sl_tensor_make(SL_F32, 2, s23, x);
  sl_tensor ts = sl_tensor_make(SL_F32, 1, (int64_t[]){6}, src);
  uint8_t m3[3] = {1, 0, 1}, m21[2] = {1, 0}, m0 = 1;
  enum { N = 1000 };
  static int32_t lx[N], ls[N], lo[N], lw[N];
  static uint8_t lm[N];
  int32_t k = 0;
  for (int i = 0; i < N; ++i) {
    lx[i] = -i;
    ls[i] = 5000 + i;
    lm[i] = i % 3 == 0 || i % 7 == 0;
  }
  for (int i = 0; i < N; ++i) lw[i] = lm[i] ? 5000 + k++ : -i;
  FOR_EACH_VARIANT(SL_OP_MASKED_SCATTER, v) {
    for (int threads = 0; threads <= 9; threads += 3) {
      ctx.threads = threads;
      float out[6];
      sl_tensor to = sl_tensor_make(SL_F32, 2, s23, out);
      /* mask [3]: columns 0 and 2 of both rows (LibTorch 1.13 gives
       * [[10,1,11],[12,4,13]]) */
      CHECK(ms(&ctx, v->name, tx,
               sl_tensor_make(SL_BOOL, 1, (int64_t[]){3}, m3), ts,
               to) == SL_STATUS_OK);
      CHECK(out[0] == 10 && out[1] == 1 && out[2] == 11 && out[3] == 12 &&
            out[4] == 4 && out[5] == 13);
      /* mask [2,1]: the whole first row */
      CHECK(ms(&ctx, v->name, tx,
               sl_tensor_make(SL_BOOL, 2, (int64_t[]){2, 1}, m21), ts,
               to) == SL_STATUS_OK);
      CHECK(out[0] == 10 && out[1] == 11 && out[2] == 12 && out[3] == 3 &&
            out[4] == 4 && out[5] == 5);
      /* rank-0 mask: everything */
      CHECK(ms(&ctx, v->name, tx, sl_tensor_make(SL_BOOL, 0, NULL, &m0), ts,
               to) == SL_STATUS_OK);
      CHECK(memcmp(out, src, sizeof src) == 0);
      memset(lo, 0, sizeof lo);
      const int64_t sn[1] = {N};
      CHECK(ms(&ctx, v->name, sl_tensor_make(SL_I32, 1, sn, lx),
               sl_tensor_make(SL_BOOL, 1, sn, lm),
               sl_tensor_make(SL_I32, 1, sn, ls),
               sl_tensor_make(SL_I32, 1, sn, lo)) == SL_STATUS_OK);
      CHECK(memcmp(lo, lw, sizeof lw) == 0);
    }
  }
}

/*
 * Long contiguous rows of every element size, with runs of false and of
 * true and nonzero mask bytes other than 1 (the vector expand of 4- and
 * 8-byte elements, and its tail): every variant against a naive loop. The
 * source holds exactly the true count, at the end of its allocation, so a
 * read past it shows under the sanitizers; one element fewer is refused
 * (the true count is right).
 */
static void test_long_rows(void) {
  enum { N = 40003 }; /* two chunks for cpu.omp */
  static unsigned char mask[N], x[N * 16], out[N * 16], want[N * 16];
  int64_t count = 0;
  for (int i = 0; i < N; ++i) {
    int run = (i / 40) % 3; /* 40 false, 40 true, 40 mixed */
    mask[i] = run == 0 ? 0 : run == 1 ? 1 : (unsigned char)((i * 7) % 3 * 64);
    count += mask[i] != 0;
    for (int b = 0; b < 16; ++b) x[i * 16 + b] = (unsigned char)(i + b);
  }
  const sl_dtype dts[] = {SL_U8, SL_F16, SL_F32, SL_I64, SL_C64, SL_C128};
  FOR_EACH_VARIANT(SL_OP_MASKED_SCATTER, v) {
    for (size_t d = 0; d < sizeof dts / sizeof dts[0]; ++d) {
      const size_t es = sl_dtype_size(dts[d]);
      unsigned char *source = malloc((size_t)count * es);
      for (size_t b = 0; b < (size_t)count * es; ++b)
        source[b] = (unsigned char)(200 - b);
      for (int i = 0, k = 0; i < N; ++i)
        memcpy(want + i * es, mask[i] ? source + k++ * es : x + i * es, es);
      memset(out, 0xee, sizeof out);
      sl_ctx ctx;
      sl_ctx_init(&ctx);
      ctx.threads = 2;
      const int64_t sn[1] = {N}, cn[1] = {count};
      CHECK(ms(&ctx, v->name, sl_tensor_make(dts[d], 1, sn, x),
               sl_tensor_make(SL_BOOL, 1, sn, mask),
               sl_tensor_make(dts[d], 1, cn, source),
               sl_tensor_make(dts[d], 1, sn, out)) == SL_STATUS_OK);
      CHECK_MSG(memcmp(out, want, N * es) == 0, "%s %s differs from the loop",
                v->name, sl_dtype_name(dts[d]));
      const int64_t fewer[1] = {count - 1};
      CHECK(ms(&ctx, v->name, sl_tensor_make(dts[d], 1, sn, x),
               sl_tensor_make(SL_BOOL, 1, sn, mask),
               sl_tensor_make(dts[d], 1, fewer, source),
               sl_tensor_make(dts[d], 1, sn, out)) == SL_STATUS_SHAPE_MISMATCH);
      free(source);
    }
  }
}

/* A transposed mask (its step along x's rows is 37: the kernels copy it
 * into row-major order for the vector expand) over 37 rows of 300, and a
 * source broadcast along its last axis ([h, 2], strides [1, 0]: element k
 * is base[k / 2], read by a cursor that carries between axes): every
 * variant against a naive loop, for 1-, 2-, 4- and 8-byte elements. */
static void test_transposed_mask(void) {
  enum { R = 37, C = 300 };
  static unsigned char mask_t[C * R], x[R * C * 8], out[R * C * 8];
  static unsigned char want[R * C * 8], base[R * C * 8];
  int64_t count = 0;
  for (int j = 0; j < C; ++j)
    for (int i = 0; i < R; ++i) {
      mask_t[j * R + i] = (unsigned char)((i * 5 + j * 3) % 7 < 3);
      count += mask_t[j * R + i];
    }
  for (int b = 0; b < R * C * 8; ++b)
    x[b] = (unsigned char)(b * 3), base[b] = (unsigned char)(250 - b);
  const sl_dtype dts[] = {SL_U8, SL_F16, SL_F32, SL_I64};
  for (size_t d = 0; d < sizeof dts / sizeof dts[0]; ++d)
    for (int broadcast = 0; broadcast < 2; ++broadcast) {
      const size_t es = sl_dtype_size(dts[d]);
      int64_t k = 0;
      for (int i = 0; i < R; ++i)
        for (int j = 0; j < C; ++j) {
          const size_t at = ((size_t)i * C + j) * es;
          const int64_t from = broadcast ? k / 2 : k;
          const int take = mask_t[j * R + i];
          memcpy(want + at, take ? base + from * (int64_t)es : x + at, es);
          k += take;
        }
      const int64_t xs[2] = {R, C}, h = (count + 1) / 2;
      sl_tensor mask = sl_tensor_make(SL_BOOL, 2, xs, mask_t);
      mask.strides[0] = 1, mask.strides[1] = R;
      sl_tensor src = broadcast
                          ? sl_tensor_make(dts[d], 2, (int64_t[]){h, 2}, base)
                          : sl_tensor_make(dts[d], 1, &count, base);
      if (broadcast) src.strides[0] = 1, src.strides[1] = 0;
      FOR_EACH_VARIANT(SL_OP_MASKED_SCATTER, v) {
        sl_ctx ctx;
        sl_ctx_init(&ctx);
        ctx.threads = 2;
        memset(out, 0xee, sizeof out);
        CHECK(ms(&ctx, v->name, sl_tensor_make(dts[d], 2, xs, x), mask, src,
                 sl_tensor_make(dts[d], 2, xs, out)) == SL_STATUS_OK);
        CHECK_MSG(memcmp(out, want, (size_t)R * C * es) == 0,
                  "%s %s broadcast source %d differs from the loop", v->name,
                  sl_dtype_name(dts[d]), broadcast);
      }
    }
}

/* An x stored column-major (a step of 70 elements along its rows, a cache
 * line or more: the kernels copy it into out by tiles and take x from out
 * in place) under a mask of runs and a pattern: every variant against a
 * naive loop, for 1- to 16-byte elements, on 1 and 2 threads. */
static void test_transposed_x(void) {
  enum { R = 70, C = 130 };
  static unsigned char mask[R * C], x_t[C * R * 16], out[R * C * 16];
  static unsigned char want[R * C * 16], source[R * C * 16];
  int64_t count = 0;
  for (int p = 0; p < R * C; ++p) {
    mask[p] = (unsigned char)(p / 50 % 2 ? (p * 7) % 3 == 0 : p / 50 % 4 == 0);
    count += mask[p];
  }
  for (int b = 0; b < R * C * 16; ++b)
    x_t[b] = (unsigned char)(b * 3 + 1), source[b] = (unsigned char)(251 - b);
  const sl_dtype dts[] = {SL_U8, SL_F16, SL_F32, SL_I64, SL_C128};
  for (size_t d = 0; d < sizeof dts / sizeof dts[0]; ++d) {
    const size_t es = sl_dtype_size(dts[d]);
    for (int p = 0, k = 0; p < R * C; ++p) {
      const size_t at_x = ((size_t)(p % C) * R + (size_t)(p / C)) * es;
      memcpy(want + (size_t)p * es,
             mask[p] ? source + (size_t)k++ * es : x_t + at_x, es);
    }
    const int64_t xs[2] = {R, C};
    sl_tensor x = sl_tensor_make(dts[d], 2, xs, x_t);
    x.strides[0] = 1, x.strides[1] = R;
    FOR_EACH_VARIANT(SL_OP_MASKED_SCATTER, v) {
      for (int threads = 1; threads <= 2; ++threads) {
        memset(out, 0xee, sizeof out);
        CHECK(ms_on(threads, v->name, x, sl_tensor_make(SL_BOOL, 2, xs, mask),
                    sl_tensor_make(dts[d], 1, &count, source),
                    sl_tensor_make(dts[d], 2, xs, out)) == SL_STATUS_OK);
        CHECK_MSG(memcmp(out, want, (size_t)R * C * es) == 0,
                  "%s %s on %d threads differs from the loop", v->name,
                  sl_dtype_name(dts[d]), threads);
      }
    }
  }
}

/*
 * Rows under one mask element each (a mask [R, 1]: false, true, false,
 * ...) with x broadcast along the rows (stride 0: a false row is a fill)
 * or stepping by 2, and a contiguous or a stepped source (stride 2: a
 * false row does not move its cursor): every variant against a naive
 * loop, for 1- to 16-byte elements, on 1 and 2 threads.
 */
static void test_uniform_rows(void) {
  enum { R = 5, C = 301 };
  static unsigned char x[R * C * 2 * 16], base[R * C * 2 * 16];
  static unsigned char out[R * C * 16], want[R * C * 16];
  const uint8_t mask_r[R] = {0, 1, 0, 1, 0};
  for (int b = 0; b < R * C * 2 * 16; ++b)
    x[b] = (unsigned char)(b * 7 + 1), base[b] = (unsigned char)(251 - b);
  const sl_dtype dts[] = {SL_U8, SL_BF16, SL_I32, SL_F64, SL_C128};
  for (size_t d = 0; d < sizeof dts / sizeof dts[0]; ++d)
    for (int xstep = 0; xstep <= 2; xstep += 2)
      for (int sstep = 1; sstep <= 2; ++sstep) {
        const size_t es = sl_dtype_size(dts[d]);
        int64_t k = 0;
        for (int i = 0; i < R; ++i)
          for (int j = 0; j < C; ++j) {
            const size_t at = ((size_t)i * C + j) * es;
            const size_t xat = ((size_t)i * C * 2 + (size_t)j * xstep) * es;
            memcpy(want + at,
                   mask_r[i] ? base + k++ * sstep * (int64_t)es : x + xat, es);
          }
        const int64_t shape[2] = {R, C}, mshape[2] = {R, 1};
        sl_tensor tx = sl_tensor_make(dts[d], 2, shape, x);
        tx.strides[0] = 2 * C, tx.strides[1] = xstep;
        sl_tensor src = sl_tensor_make(dts[d], 1, &k, base);
        src.strides[0] = sstep;
        FOR_EACH_VARIANT(SL_OP_MASKED_SCATTER, v) {
          for (int threads = 1; threads <= 2; ++threads) {
            memset(out, 0xee, sizeof out);
            CHECK(ms_on(threads, v->name, tx,
                        sl_tensor_make(SL_BOOL, 2, mshape, (void *)mask_r), src,
                        sl_tensor_make(dts[d], 2, shape, out)) == SL_STATUS_OK);
            CHECK_MSG(memcmp(out, want, (size_t)R * C * es) == 0,
                      "%s %s x step %d source step %d on %d threads differs "
                      "from the loop",
                      v->name, sl_dtype_name(dts[d]), xstep, sstep, threads);
          }
        }
      }
}

/* A transposed x, a mask expanded with stride 0, a stepped source and a
 * stepped out. */
static void test_strides(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  /* xt[i][j] = 3j + i, shape [3,4] (transpose of m = 0..11 as 4x3). */
  float m[12];
  for (int k = 0; k < 12; ++k) m[k] = (float)k;
  sl_tensor xt = transposed_3x4(m);
  /* mask [3,4] whose rows all equal `row` (stride 0 on axis 0). */
  uint8_t row[4] = {0, 1, 1, 0};
  sl_tensor mask = sl_tensor_make(SL_BOOL, 2, (int64_t[]){3, 4}, row);
  mask.strides[0] = 0;
  /* source [6] = s[0], s[3], ..., s[15]. */
  float s[18];
  for (int k = 0; k < 18; ++k) s[k] = (float)(100 + k);
  sl_tensor src = sl_tensor_make(SL_F32, 1, (int64_t[]){6}, s);
  src.strides[0] = 3;
  FOR_EACH_VARIANT(SL_OP_MASKED_SCATTER, v) {
    for (int threads = 0; threads <= 5; threads += 5) {
      ctx.threads = threads;
      float buf[24];
      sl_tensor o = spaced_rows_x4(buf, 3);
      CHECK(ms(&ctx, v->name, xt, mask, src, o) == SL_STATUS_OK);
      /* true positions in order: (0,1) (0,2) (1,1) (1,2) (2,1) (2,2) take
       * source 100, 103, 106, 109, 112, 115. */
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 4; ++j) {
          float want = (j == 1 || j == 2) ? (float)(100 + 3 * (2 * i + j - 1))
                                          : (float)(3 * j + i);
          CHECK_MSG(buf[8 * i + 2 * j] == want, "out[%d][%d] = %g, want %g", i,
                    j, buf[8 * i + 2 * j], want);
        }
      CHECK(buf[1] == -7 && buf[23] == -7);
    }
  }
}

/* Empty x, an all-false mask with an empty source, rank-0 x. */
static void test_empty(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  uint8_t m3[3] = {1, 1, 1}, none[3] = {0, 0, 0}, t = 1;
  float x[3] = {1, 2, 3}, s = 8;
  sl_tensor x03 = sl_tensor_make(SL_F32, 2, (int64_t[]){0, 3}, NULL);
  sl_tensor e = sl_tensor_make(SL_F32, 1, (int64_t[]){0}, NULL);
  FOR_EACH_VARIANT(SL_OP_MASKED_SCATTER, v) {
    CHECK(ms(&ctx, v->name, x03, sl_tensor_make(SL_BOOL, 1, (int64_t[]){3}, m3),
             e, x03) == SL_STATUS_OK);
    float out[3];
    sl_tensor tx = sl_tensor_make(SL_F32, 1, (int64_t[]){3}, x);
    sl_tensor to = sl_tensor_make(SL_F32, 1, (int64_t[]){3}, out);
    CHECK(ms(&ctx, v->name, tx,
             sl_tensor_make(SL_BOOL, 1, (int64_t[]){3}, none), e,
             to) == SL_STATUS_OK);
    CHECK(memcmp(out, x, sizeof x) == 0);
    float r = -1;
    CHECK(ms(&ctx, v->name, sl_tensor_make(SL_F32, 0, NULL, x),
             sl_tensor_make(SL_BOOL, 0, NULL, &t),
             sl_tensor_make(SL_F32, 1, (int64_t[]){1}, &s),
             sl_tensor_make(SL_F32, 0, NULL, &r)) == SL_STATUS_OK);
    CHECK(r == 8);
  }
}

/* Data movement: bool, complex64 and f16 travel bitwise. */
static void test_dtypes(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  uint8_t mask[3] = {1, 0, 1};
  const int64_t s3[1] = {3}, s2[1] = {2};
  sl_tensor tm = sl_tensor_make(SL_BOOL, 1, s3, mask);
  float cx[6] = {1, 2, 3, 4, 5, 6}, cs[4] = {-1, -2, -3, -4};
  uint8_t bx[3] = {0, 0, 0}, bs[2] = {1, 1};
  uint16_t hx[3] = {0, sl_f32_to_f16(7.0f), 0};
  uint16_t hs[2] = {sl_f32_to_f16(0.1f), sl_f32_to_f16(-0.0f)};
  FOR_EACH_VARIANT(SL_OP_MASKED_SCATTER, v) {
    float co[6];
    CHECK(ms(&ctx, v->name, sl_tensor_make(SL_C64, 1, s3, cx), tm,
             sl_tensor_make(SL_C64, 1, s2, cs),
             sl_tensor_make(SL_C64, 1, s3, co)) == SL_STATUS_OK);
    const float cw[6] = {-1, -2, 3, 4, -3, -4};
    CHECK(memcmp(co, cw, sizeof cw) == 0);
    uint8_t bo[3];
    CHECK(ms(&ctx, v->name, sl_tensor_make(SL_BOOL, 1, s3, bx), tm,
             sl_tensor_make(SL_BOOL, 1, s2, bs),
             sl_tensor_make(SL_BOOL, 1, s3, bo)) == SL_STATUS_OK);
    CHECK(bo[0] == 1 && bo[1] == 0 && bo[2] == 1);
    uint16_t ho[3];
    CHECK(ms(&ctx, v->name, sl_tensor_make(SL_F16, 1, s3, hx), tm,
             sl_tensor_make(SL_F16, 1, s2, hs),
             sl_tensor_make(SL_F16, 1, s3, ho)) == SL_STATUS_OK);
    CHECK(ho[0] == sl_f32_to_f16(0.1f) && ho[1] == sl_f32_to_f16(7.0f) &&
          ho[2] == 0x8000u);
  }
}

/* Bad input: one check per class that applies to masked_scatter. */
static void test_bad_input(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  const char *v = "cpu.serial";
  float x[10] = {0}, src[10] = {0}, out[10];
  for (int i = 0; i < 10; ++i) out[i] = -3;
  uint8_t mask[10] = {1, 1, 0, 1, 1, 0, 1, 1, 0, 1}; /* 7 true */
  const int64_t s25[2] = {2, 5};
  sl_tensor tx = sl_tensor_make(SL_F32, 2, s25, x);
  sl_tensor tm = sl_tensor_make(SL_BOOL, 2, s25, mask);
  sl_tensor ts = sl_tensor_make(SL_F32, 2, s25, src);
  sl_tensor to = sl_tensor_make(SL_F32, 2, s25, out);
  /* shape mismatch: source shorter than the true count; nothing written */
  FOR_EACH_VARIANT(SL_OP_MASKED_SCATTER, w) {
    sl_tensor s5 = sl_tensor_make(SL_F32, 1, (int64_t[]){5}, src);
    CHECK(ms(&ctx, w->name, tx, tm, s5, to) == SL_STATUS_SHAPE_MISMATCH);
    CHECK_CONTAINS(ctx.msg, "source: expected at least 7 elements (the "
                            "mask's true count), got 5");
    CHECK(out[0] == -3 && out[9] == -3);
  }
  /* the count is taken after broadcasting: [1,0,1] over [2,3] is 4 */
  uint8_t m3[3] = {1, 0, 1};
  CHECK(ms(&ctx, v, sl_tensor_make(SL_F32, 2, (int64_t[]){2, 3}, x),
           sl_tensor_make(SL_BOOL, 1, (int64_t[]){3}, m3),
           sl_tensor_make(SL_F32, 1, (int64_t[]){3}, src),
           sl_tensor_make(SL_F32, 2, (int64_t[]){2, 3}, out)) ==
        SL_STATUS_SHAPE_MISMATCH);
  CHECK_CONTAINS(ctx.msg, "source: expected at least 4 elements");
  /* bad mask: not bool, not broadcastable, more axes than x */
  sl_tensor mu8 = tm;
  mu8.dtype = SL_U8;
  CHECK(ms(&ctx, v, tx, mu8, ts, to) == SL_STATUS_BAD_MASK);
  CHECK_CONTAINS(ctx.msg, "mask: expected dtype bool, got u8");
  sl_tensor m35 = sl_tensor_make(SL_BOOL, 2, (int64_t[]){1, 2}, mask);
  CHECK(ms(&ctx, v, tx, m35, ts, to) == SL_STATUS_BAD_MASK);
  CHECK_CONTAINS(ctx.msg, "mask: expected a shape that broadcasts to x [2,5] "
                          "(out keeps x's shape), got [1,2]");
  sl_tensor m125 = sl_tensor_make(SL_BOOL, 3, (int64_t[]){1, 2, 5}, mask);
  CHECK(ms(&ctx, v, tx, m125, ts, to) == SL_STATUS_BAD_MASK);
  CHECK_CONTAINS(ctx.msg, "got [1,2,5]");
  /* null pointer */
  sl_tensor nod = tm;
  nod.data = NULL;
  CHECK(ms(&ctx, v, tx, nod, ts, to) == SL_STATUS_NULL_POINTER);
  CHECK_CONTAINS(ctx.msg, "mask: expected data for 10 elements, got NULL");
  /* unsupported dtype: source of another dtype, out of another dtype */
  sl_tensor sd = sl_tensor_make(SL_F64, 1, (int64_t[]){5}, src);
  CHECK(ms(&ctx, v, tx, tm, sd, to) == SL_STATUS_UNSUPPORTED_DTYPE);
  CHECK_CONTAINS(ctx.msg, "source: expected dtype f32 (the dtype of x), got "
                          "f64");
  sl_tensor oi = sl_tensor_make(SL_I32, 2, s25, out);
  CHECK(ms(&ctx, v, tx, tm, ts, oi) == SL_STATUS_UNSUPPORTED_DTYPE);
  CHECK_CONTAINS(ctx.msg, "out: expected dtype f32, got i32");
  /* output of the wrong shape */
  sl_tensor o52 = sl_tensor_make(SL_F32, 2, (int64_t[]){5, 2}, out);
  CHECK(ms(&ctx, v, tx, tm, ts, o52) == SL_STATUS_SHAPE_MISMATCH);
  CHECK_CONTAINS(ctx.msg, "out: expected shape [2,5], got [5,2]");
  /* element count overflow (size_t) in the shape product */
  sl_tensor huge = huge_tensor(
      SL_BOOL, 2, (int64_t[]){INT64_C(1) << 62, INT64_C(1) << 62}, mask);
  CHECK(ms(&ctx, v, tx, huge, ts, to) == SL_STATUS_OVERFLOW);
  CHECK_CONTAINS(ctx.msg, "mask: shape [4611686018427387904,");
}

int main(void) {
  test_seed003();
  test_broadcast_and_chunks();
  test_long_rows();
  test_transposed_mask();
  test_transposed_x();
  test_uniform_rows();
  test_strides();
  test_empty();
  test_dtypes();
  test_bad_input();
  return sl_test_finish("test_masked_scatter");
}
