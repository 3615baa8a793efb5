/*
 * gather and scatter on every CPU variant: seed 000's example, strides,
 * duplicates, scalar value, empty inputs, and one test per bad-input status
 * that applies, each asserting the status and that the message names the
 * argument.
 */
#include <stdint.h>

#include "core_test.h"
#include "gather_panels.h"
#include "sl/sl.h"
#include "sl_test.h"

static const float A[12] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
static const int64_t IDX[6] = {0, 1, 1, 3, 2, 0};
static const int64_t S43[2] = {4, 3}, S23[2] = {2, 3};

static void test_seed000(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  sl_tensor x = sl_tensor_make(SL_F32, 2, S43, (void *)A);
  sl_tensor index = sl_tensor_make(SL_I64, 2, S23, (void *)IDX);
  int ran = 0;
  FOR_EACH_VARIANT(SL_OP_GATHER, v) {
    float out[6] = {0};
    sl_tensor o = sl_tensor_make(SL_F32, 2, S23, out);
    CHECK(sl_gather(&ctx, v->name, &x, 0, &index, &o) == SL_STATUS_OK);
    const float want[6] = {0, 4, 5, 9, 7, 2};
    CHECK(memcmp(out, want, sizeof want) == 0);
    /* dim 1 of size 3 with index 3: rejected, nothing written. */
    float poison[6] = {-1, -1, -1, -1, -1, -1};
    o.data = poison;
    CHECK(sl_gather(&ctx, v->name, &x, 1, &index, &o) ==
          SL_STATUS_INDEX_OUT_OF_RANGE);
    CHECK_CONTAINS(ctx.msg,
                   "index[1,0]=3 out of range [0,3) for dim 1 of x [4,3]");
    CHECK(poison[0] == -1 && poison[5] == -1);
    ++ran;
  }
  CHECK(ran >= 2);
  ran = 0;
  FOR_EACH_VARIANT(SL_OP_SCATTER, v) {
    float zeros[12] = {0}, out[12];
    const float src[6] = {0, 4, 5, 9, 7, 2};
    sl_tensor xz = sl_tensor_make(SL_F32, 2, S43, zeros);
    sl_tensor s = sl_tensor_make(SL_F32, 2, S23, (void *)src);
    sl_tensor o = sl_tensor_make(SL_F32, 2, S43, out);
    CHECK(sl_scatter(&ctx, v->name, &xz, 0, &index, &s, &o) == SL_STATUS_OK);
    const float want[12] = {0, 0, 2, 0, 4, 5, 0, 7, 0, 9, 0, 0};
    CHECK(memcmp(out, want, sizeof want) == 0);
    ++ran;
  }
  CHECK(ran >= 2);
}

/* A transposed x, an index with stride 0 (expanded rows) and a stepped
 * output: the kernels follow the strides. */
static void test_strides(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  /* x^T: logical 3x4 view of A (4x3) -> x[i][j] = A[j][i] = 3j + i. */
  sl_tensor xt = transposed_3x4(A);
  int64_t row[4] = {3, 0, 2, 1};
  sl_tensor index = sl_tensor_make(SL_I64, 2, (int64_t[]){2, 4}, row);
  index.strides[0] = 0; /* both rows are `row` */
  FOR_EACH_VARIANT(SL_OP_GATHER, v) {
    float buf[16];
    sl_tensor o = spaced_rows_x4(buf, 2);
    CHECK(sl_gather(&ctx, v->name, &xt, 1, &index, &o) == SL_STATUS_OK);
    /* out[i][j] = x[i][row[j]] = 3*row[j] + i */
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 4; ++j)
        CHECK(buf[i * 8 + j * 2] == (float)(3 * row[j] + i));
    CHECK(buf[1] == -7 && buf[15] == -7);
  }
}

/* Duplicate targets: serial writes in row-major order, so the last wins;
 * cpu.omp keeps that order within each line. int32 index, scalar value. */
static void test_duplicates_and_value(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  int32_t x[5] = {1, 2, 3, 4, 5}, src[4] = {10, 20, 30, 40}, out[5];
  int32_t idx[4] = {1, 3, 1, 3};
  sl_tensor tx = sl_tensor_make(SL_I32, 1, (int64_t[]){5}, x);
  sl_tensor ts = sl_tensor_make(SL_I32, 1, (int64_t[]){4}, src);
  sl_tensor ti = sl_tensor_make(SL_I32, 1, (int64_t[]){4}, idx);
  sl_tensor to = sl_tensor_make(SL_I32, 1, (int64_t[]){5}, out);
  FOR_EACH_VARIANT(SL_OP_SCATTER, v) {
    CHECK(sl_scatter(&ctx, v->name, &tx, 0, &ti, &ts, &to) == SL_STATUS_OK);
    CHECK(out[0] == 1 && out[1] == 30 && out[2] == 3 && out[3] == 40 &&
          out[4] == 5);
    CHECK(sl_scatter_value(&ctx, v->name, &tx, -1, &ti, -7, &to) ==
          SL_STATUS_OK);
    CHECK(out[0] == 1 && out[1] == -7 && out[3] == -7 && out[4] == 5);
  }
  uint8_t bx[3] = {0, 0, 0}, bout[3];
  int64_t bi[1] = {2};
  sl_tensor tbx = sl_tensor_make(SL_BOOL, 1, (int64_t[]){3}, bx);
  sl_tensor tbi = sl_tensor_make(SL_I64, 1, (int64_t[]){1}, bi);
  sl_tensor tbo = sl_tensor_make(SL_BOOL, 1, (int64_t[]){3}, bout);
  CHECK(sl_scatter_value(&ctx, "cpu.serial", &tbx, 0, &tbi, 1.0, &tbo) == 0);
  CHECK(bout[0] == 0 && bout[2] == 1);
}

/* Enough rows for every thread of a parallel variant to take a slab. */
#define SPLIT_ROWS 40000
#define SPLIT_COLS 2

/* Bytes i of a pseudo-random stream (xorshift), for element-blind data. */
static void fill_bytes(unsigned char *b, size_t n, uint64_t seed) {
  for (size_t i = 0; i < n; ++i) {
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    b[i] = (unsigned char)seed;
  }
}

/* Scatters src [SPLIT_ROWS, SPLIT_COLS] along dim 0 into x [m, SPLIT_COLS]
 * with variant v on `threads` threads and with cpu.serial; returns how many
 * elements of v's answer hold neither serial's element nor (dup: when the
 * index has duplicates) a value written there. */
static int64_t scatter_split_misses(const char *v, int threads, sl_dtype dt,
                                    int64_t m, const int64_t *idx, int dup) {
  const size_t es = sl_dtype_size(dt);
  const int64_t n = SPLIT_ROWS * SPLIT_COLS, xn = m * SPLIT_COLS;
  unsigned char *src = malloc(n * es), *x = malloc(xn * es);
  unsigned char *got = malloc(xn * es), *want = malloc(xn * es);
  char *found = calloc((size_t)xn, 1);
  fill_bytes(src, n * es, 88172645463325252ull);
  fill_bytes(x, xn * es, 1234567ull);
  const int64_t ss[2] = {SPLIT_ROWS, SPLIT_COLS}, xs[2] = {m, SPLIT_COLS};
  sl_tensor tx = sl_tensor_make(dt, 2, xs, x);
  sl_tensor ts = sl_tensor_make(dt, 2, ss, src);
  sl_tensor ti = sl_tensor_make(SL_I64, 2, ss, (void *)idx);
  sl_tensor tg = sl_tensor_make(dt, 2, xs, got);
  sl_tensor tw = sl_tensor_make(dt, 2, xs, want);
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  ctx.threads = threads;
  int64_t misses = xn + 1;
  if (sl_scatter(&ctx, v, &tx, 0, &ti, &ts, &tg) == SL_STATUS_OK &&
      sl_scatter(&ctx, "cpu.serial", &tx, 0, &ti, &ts, &tw) == SL_STATUS_OK) {
    for (int64_t p = 0; dup && p < n; ++p) {
      const int64_t t = idx[p] * SPLIT_COLS + p % SPLIT_COLS;
      if (!memcmp(got + t * es, src + p * es, es)) found[t] = 1;
    }
    misses = 0;
    for (int64_t t = 0; t < xn; ++t)
      misses += !found[t] && memcmp(got + t * es, want + t * es, es) != 0;
  }
  free(src), free(x), free(got), free(want), free(found);
  return misses;
}

/* Every variant with its threads splitting index rows, on every element
 * size: without duplicates each answer is serial's, bit for bit; with
 * duplicates across the threads' rows (every target written from rows all
 * over index) each element holds one of the values written there. A
 * scalar value is the same from every writer: cpu.omp stays bitwise. */
static void test_row_split(void) {
  static int64_t unique[SPLIT_ROWS * SPLIT_COLS], dup[SPLIT_ROWS * SPLIT_COLS];
  for (int64_t i = 0; i < SPLIT_ROWS; ++i)
    for (int64_t j = 0; j < SPLIT_COLS; ++j) {
      unique[i * SPLIT_COLS + j] =
          (i * 7919 + j) % SPLIT_ROWS; /* a bijection */
      dup[i * SPLIT_COLS + j] = (i * 31 + j) % 5;
    }
  const sl_dtype dts[] = {SL_U8, SL_I16, SL_F32, SL_I64, SL_C128};
  FOR_EACH_VARIANT(SL_OP_SCATTER, v) {
    for (size_t d = 0; d < sizeof dts / sizeof dts[0]; ++d)
      for (int threads = 2; threads <= 3; ++threads) {
        int64_t a = scatter_split_misses(v->name, threads, dts[d], SPLIT_ROWS,
                                         unique, 0);
        int64_t b = scatter_split_misses(v->name, threads, dts[d], 5, dup, 1);
        CHECK_MSG(a == 0 && b == 0,
                  "%s %s on %d threads: %lld elements differ from serial "
                  "(unique index), %lld hold no written value (duplicates)",
                  v->name, sl_dtype_name(dts[d]), threads, (long long)a,
                  (long long)b);
      }
  }
  /* scatter_value with every row of a 1-D index on one of 5 targets */
  static int32_t x[5], got[5], want[5];
  sl_tensor tx = sl_tensor_make(SL_I32, 1, (int64_t[]){5}, x);
  sl_tensor ti = sl_tensor_make(SL_I64, 1, (int64_t[]){SPLIT_ROWS}, dup);
  sl_tensor tg = sl_tensor_make(SL_I32, 1, (int64_t[]){5}, got);
  sl_tensor tw = sl_tensor_make(SL_I32, 1, (int64_t[]){5}, want);
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  ctx.threads = 2;
  CHECK(sl_scatter_value(&ctx, "cpu.omp", &tx, 0, &ti, -3, &tg) == 0);
  CHECK(sl_scatter_value(&ctx, "cpu.serial", &tx, 0, &ti, -3, &tw) == 0);
  CHECK(memcmp(got, want, sizeof got) == 0 && got[0] == -3);
}

/* gather where a row of positions reaches past SL__GATHER_WIDE_MIN_BYTES
 * (4 MiB) of x, so the rows start with AVX-512 gathers where the CPU has
 * them: element sizes 4 and 8, both index dtypes, along dim 0 (kind 0:
 * x's row moves with j; all of x is in reach) and dim 1 (kind 1: lookups
 * in one row of x, 5 MiB long), rows of 1003 (a tail after the 8-lane
 * steps). Kind 2: dim 1 over an odd number of rows of x of 16 KiB, at
 * least 161 and past gather_ahead_x_bytes in all, whose next row is
 * prefetched while one is gathered, split mid-row between the threads.
 * Every element must be x's, bit for bit. */
#define WIDE_COLS 1003
static int64_t ahead_rows(void) {
  const int64_t past = sl_test_threshold("gather_ahead_x_bytes") / (16 << 10);
  return (past < 161 ? 161 : past + 1) | 1;
}
static int64_t wide_gather_misses(const char *v, sl_dtype dt, sl_dtype it,
                                  int kind) {
  const size_t es = sl_dtype_size(dt), is = sl_dtype_size(it);
  const int dim = kind > 0;
  const int64_t xc = kind == 0   ? WIDE_COLS
                     : kind == 1 ? ((int64_t)5 << 20) / (int64_t)es + 1
                                 : ((int64_t)16 << 10) / (int64_t)es;
  const int64_t xr = kind == 0
                         ? ((int64_t)6 << 20) / (int64_t)es / WIDE_COLS + 1
                     : kind == 1 ? 2
                                 : ahead_rows();
  const int64_t ir = kind == 0 ? 64 : xr, ic = WIDE_COLS, n = ir * ic;
  const int64_t bound = dim == 0 ? xr : xc;
  unsigned char *x = malloc((size_t)(xr * xc) * es);
  unsigned char *out = malloc((size_t)n * es), *idx = malloc((size_t)n * is);
  int64_t misses = n + 1;
  if (x && out && idx) {
    fill_bytes(x, (size_t)(xr * xc) * es, 99991ull);
    uint64_t r = 7;
    for (int64_t p = 0; p < n; ++p) {
      r = r * 6364136223846793005ull + 1442695040888963407ull;
      const int64_t v = (int64_t)((r >> 33) % (uint64_t)bound);
      if (is == 8)
        memcpy(idx + p * 8, &v, 8);
      else
        memcpy(idx + p * 4, &(int32_t){(int32_t)v}, 4);
    }
    sl_tensor tx = sl_tensor_make(dt, 2, (int64_t[]){xr, xc}, x);
    sl_tensor ti = sl_tensor_make(it, 2, (int64_t[]){ir, ic}, idx);
    sl_tensor to = sl_tensor_make(dt, 2, (int64_t[]){ir, ic}, out);
    sl_ctx ctx;
    sl_ctx_init(&ctx);
    ctx.threads = 2;
    if (sl_gather(&ctx, v, &tx, dim, &ti, &to) == SL_STATUS_OK) {
      misses = 0;
      for (int64_t i = 0; i < ir; ++i)
        for (int64_t j = 0; j < ic; ++j) {
          const int64_t p = i * ic + j;
          int64_t k;
          if (is == 8)
            memcpy(&k, idx + p * 8, 8);
          else
            k = *(const int32_t *)(const void *)(idx + p * 4);
          const int64_t at = dim == 0 ? k * xc + j : i * xc + k;
          misses += memcmp(out + p * es, x + at * es, es) != 0;
        }
    }
  }
  free(x), free(out), free(idx);
  return misses;
}

static void test_wide_rows(void) {
  const sl_dtype dts[] = {SL_F32, SL_I64}; /* the sizes with loops */
  const sl_dtype its[] = {SL_I32, SL_I64};
  FOR_EACH_VARIANT(SL_OP_GATHER, v) {
    for (size_t d = 0; d < sizeof dts / sizeof dts[0]; ++d)
      for (int k = 0; k < 2; ++k)
        for (int kind = 0; kind <= 2; ++kind) {
          const int64_t bad = wide_gather_misses(v->name, dts[d], its[k], kind);
          CHECK_MSG(bad == 0, "%s %s index %s kind %d: %lld elements wrong",
                    v->name, sl_dtype_name(dts[d]), sl_dtype_name(its[k]), kind,
                    (long long)bad);
        }
  }
}

/* scatter along dim 0 into a wide out (past SL__SCATTER_WIDE_MIN_BYTES,
 * 6 MiB: contiguous rows start with AVX-512 scatters where the CPU has
 * them), rows of 1003, with element sizes 4 and 8 and both index
 * dtypes. dup = 0: each column's index a permutation of out's rows; dup =
 * 1: every row of index on one of 5 rows of out. Returns how many elements
 * differ from the last writer in row-major order (a deterministic
 * variant), or hold no value written there or x's (any other). */
static int64_t wide_scatter_misses(const sl_variant *v, sl_dtype dt,
                                   sl_dtype it, int dup) {
  const size_t es = sl_dtype_size(dt), is = sl_dtype_size(it);
  const int64_t r = ((int64_t)7 << 20) / (int64_t)es / WIDE_COLS + 1;
  const int64_t n = r * WIDE_COLS;
  unsigned char *x = malloc((size_t)n * es), *src = malloc((size_t)n * es);
  unsigned char *out = malloc((size_t)n * es), *want = malloc((size_t)n * es);
  unsigned char *idx = malloc((size_t)n * is);
  char *written = calloc((size_t)n, 1);
  int64_t misses = n + 1;
  if (x && src && out && want && idx && written) {
    fill_bytes(x, (size_t)n * es, 31337ull);
    fill_bytes(src, (size_t)n * es, 271828ull);
    memcpy(want, x, (size_t)n * es);
    for (int64_t i = 0; i < r; ++i)
      for (int64_t j = 0; j < WIDE_COLS; ++j) {
        const int64_t p = i * WIDE_COLS + j;
        /* 7919 is prime and r is not a multiple of it: a bijection */
        const int64_t t = dup ? (i * 31 + j) % 5 : (i * 7919 + j) % r;
        if (is == 8)
          memcpy(idx + p * 8, &t, 8);
        else
          memcpy(idx + p * 4, &(int32_t){(int32_t)t}, 4);
        memcpy(want + (t * WIDE_COLS + j) * es, src + p * es, es);
      }
    const int64_t shape[2] = {r, WIDE_COLS};
    sl_tensor tx = sl_tensor_make(dt, 2, shape, x);
    sl_tensor ti = sl_tensor_make(it, 2, shape, idx);
    sl_tensor ts = sl_tensor_make(dt, 2, shape, src);
    sl_tensor to = sl_tensor_make(dt, 2, shape, out);
    sl_ctx ctx;
    sl_ctx_init(&ctx);
    ctx.threads = 2;
    if (sl_scatter(&ctx, v->name, &tx, 0, &ti, &ts, &to) == SL_STATUS_OK) {
      misses = 0;
      const int exact = (v->flags & SL_DETERMINISTIC) != 0;
      for (int64_t p = 0; !exact && p < n; ++p) {
        int64_t t;
        if (is == 8)
          memcpy(&t, idx + p * 8, 8);
        else
          t = *(const int32_t *)(const void *)(idx + p * 4);
        t = t * WIDE_COLS + p % WIDE_COLS;
        if (!memcmp(out + t * es, src + p * es, es)) written[t] = 1;
      }
      for (int64_t t = 0; t < n; ++t)
        misses += !written[t] && memcmp(out + t * es, want + t * es, es) != 0;
    }
  }
  free(x), free(src), free(out), free(want), free(idx), free(written);
  return misses;
}

static void test_wide_scatter(void) {
  const sl_dtype dts[] = {SL_F32, SL_I64}; /* the sizes with loops */
  const sl_dtype its[] = {SL_I32, SL_I64};
  FOR_EACH_VARIANT(SL_OP_SCATTER, v) {
    for (size_t d = 0; d < sizeof dts / sizeof dts[0]; ++d)
      for (int k = 0; k < 2; ++k)
        for (int dup = 0; dup <= 1; ++dup) {
          const int64_t bad = wide_scatter_misses(v, dts[d], its[k], dup);
          CHECK_MSG(bad == 0, "%s %s index %s dup %d: %lld elements wrong",
                    v->name, sl_dtype_name(dts[d]), sl_dtype_name(its[k]), dup,
                    (long long)bad);
        }
  }
}

/* scatter along dim 1 of x [300, 1024] f32 from an index of 297 rows
 * (rows of out no position reaches), each row's 100 targets distinct, so
 * every variant writes one answer: out's rows are copied from x a 256 KiB
 * stretch at a time just before the walk reaches them
 * (sl__scatter_walk_run_copying); every element must be src's where
 * targeted and x's elsewhere, the last three rows included. */
#define AHEAD_ROWS 300
#define AHEAD_COLS 1024
#define AHEAD_HITS 100
static void test_scatter_copy_ahead(void) {
  static float x[AHEAD_ROWS * AHEAD_COLS], out[AHEAD_ROWS * AHEAD_COLS],
      want[AHEAD_ROWS * AHEAD_COLS], src[AHEAD_ROWS * AHEAD_HITS];
  static int64_t idx[AHEAD_ROWS * AHEAD_HITS];
  const int64_t rows = AHEAD_ROWS - 3;
  for (int64_t p = 0; p < AHEAD_ROWS * AHEAD_COLS; ++p) x[p] = (float)p;
  memcpy(want, x, sizeof want);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < AHEAD_HITS; ++j) {
      const int64_t t = (i * 37 + j * 7) % AHEAD_COLS; /* 7 * 100 < 1024 */
      idx[i * AHEAD_HITS + j] = t;
      src[i * AHEAD_HITS + j] = -1.0f - (float)(i * AHEAD_HITS + j);
      want[i * AHEAD_COLS + t] = src[i * AHEAD_HITS + j];
    }
  sl_tensor tx =
      sl_tensor_make(SL_F32, 2, (int64_t[]){AHEAD_ROWS, AHEAD_COLS}, x);
  sl_tensor ti = sl_tensor_make(SL_I64, 2, (int64_t[]){rows, AHEAD_HITS}, idx);
  sl_tensor ts = sl_tensor_make(SL_F32, 2, (int64_t[]){rows, AHEAD_HITS}, src);
  sl_tensor to =
      sl_tensor_make(SL_F32, 2, (int64_t[]){AHEAD_ROWS, AHEAD_COLS}, out);
  FOR_EACH_VARIANT(SL_OP_SCATTER, v) {
    for (int threads = 1; threads <= 3; ++threads) {
      sl_ctx ctx;
      sl_ctx_init(&ctx);
      ctx.threads = threads;
      memset(out, 0, sizeof out);
      CHECK(sl_scatter(&ctx, v->name, &tx, 1, &ti, &ts, &to) == SL_STATUS_OK);
      int64_t bad = 0;
      for (int64_t p = 0; p < AHEAD_ROWS * AHEAD_COLS; ++p)
        bad += memcmp(&out[p], &want[p], sizeof(float)) != 0;
      CHECK_MSG(bad == 0, "%s on %d threads: %lld elements wrong", v->name,
                threads, (long long)bad);
    }
  }
}

static void test_empty(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  float x[6] = {1, 2, 3, 4, 5, 6}, out[6];
  sl_tensor tx = sl_tensor_make(SL_F32, 2, (int64_t[]){2, 3}, x);
  sl_tensor ti = sl_tensor_make(SL_I64, 2, (int64_t[]){0, 3}, NULL);
  sl_tensor ts = sl_tensor_make(SL_F32, 2, (int64_t[]){0, 3}, NULL);
  sl_tensor to = sl_tensor_make(SL_F32, 2, (int64_t[]){2, 3}, out);
  FOR_EACH_VARIANT(SL_OP_SCATTER, v) {
    CHECK(sl_scatter(&ctx, v->name, &tx, 0, &ti, &ts, &to) == SL_STATUS_OK);
    CHECK(memcmp(out, x, sizeof x) == 0);
  }
  sl_tensor go = sl_tensor_make(SL_F32, 2, (int64_t[]){0, 3}, NULL);
  FOR_EACH_VARIANT(SL_OP_GATHER, v)
  CHECK(sl_gather(&ctx, v->name, &tx, 1, &ti, &go) == SL_STATUS_OK);
}

/* Bad input: one check per class that applies to gather and scatter. */
static void test_bad_input(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  float out[12];
  sl_tensor x = sl_tensor_make(SL_F32, 2, S43, (void *)A);
  sl_tensor index = sl_tensor_make(SL_I64, 2, S23, (void *)IDX);
  sl_tensor o = sl_tensor_make(SL_F32, 2, S23, out);
  sl_tensor o43 = sl_tensor_make(SL_F32, 2, S43, out);

  /* null pointer: a NULL tensor and a NULL data pointer */
  CHECK(sl_gather(&ctx, "cpu.serial", NULL, 0, &index, &o) ==
        SL_STATUS_NULL_POINTER);
  CHECK_CONTAINS(ctx.msg, "x: expected a tensor, got NULL");
  sl_tensor nod = index;
  nod.data = NULL;
  CHECK(sl_gather(&ctx, "cpu.serial", &x, 0, &nod, &o) ==
        SL_STATUS_NULL_POINTER);
  CHECK_CONTAINS(ctx.msg, "index: expected data for 6 elements, got NULL");
  CHECK(sl_gather(&ctx, NULL, &x, 0, &index, &o) == SL_STATUS_NULL_POINTER);
  CHECK_CONTAINS(ctx.msg, "variant:");
  /* rank mismatch */
  sl_tensor flat = sl_tensor_make(SL_I64, 1, (int64_t[]){6}, (void *)IDX);
  CHECK(sl_gather(&ctx, "cpu.omp", &x, 0, &flat, &o) ==
        SL_STATUS_RANK_MISMATCH);
  CHECK_CONTAINS(
      ctx.msg, "index: expected rank 2 (the rank of x [4,3]), got rank 1 [6]");
  /* dim out of range */
  CHECK(sl_gather(&ctx, "cpu.serial", &x, 2, &index, &o) ==
        SL_STATUS_DIM_OUT_OF_RANGE);
  CHECK_CONTAINS(ctx.msg,
                 "dim: expected a value in [-2,1] for a rank-2 tensor, got 2");
  CHECK(sl_scatter(&ctx, "cpu.serial", &x, -3, &index, &x, &o43) ==
        SL_STATUS_DIM_OUT_OF_RANGE);
  CHECK_CONTAINS(ctx.msg, "dim:");
  /* shape mismatch: index wider than x off dim, src smaller than index,
   * output of the wrong shape */
  sl_tensor wide = sl_tensor_make(SL_I64, 2, (int64_t[]){1, 6}, (void *)IDX);
  CHECK(sl_gather(&ctx, "cpu.serial", &x, 0, &wide, &o) ==
        SL_STATUS_SHAPE_MISMATCH);
  CHECK_CONTAINS(ctx.msg,
                 "index: expected size <= 3 in dim 1 (x is [4,3]), got [1,6]");
  sl_tensor small = sl_tensor_make(SL_F32, 2, (int64_t[]){1, 3}, (void *)A);
  CHECK(sl_scatter(&ctx, "cpu.serial", &x, 0, &index, &small, &o43) ==
        SL_STATUS_SHAPE_MISMATCH);
  CHECK_CONTAINS(ctx.msg, "index: expected size <= 1 in dim 0 (src is [1,3])");
  CHECK(sl_gather(&ctx, "cpu.serial", &x, 0, &index, &o43) ==
        SL_STATUS_SHAPE_MISMATCH);
  CHECK_CONTAINS(ctx.msg, "out: expected shape [2,3], got [4,3]");
  /* index dtype not integer */
  sl_tensor fidx = sl_tensor_make(SL_F32, 2, S23, (void *)A);
  CHECK(sl_gather(&ctx, "cpu.serial", &x, 0, &fidx, &o) ==
        SL_STATUS_INDEX_DTYPE);
  CHECK_CONTAINS(ctx.msg, "index: expected dtype i32 or i64, got f32");
  /* index value out of range, negative too */
  int64_t neg[6] = {0, 1, 1, 3, -1, 0};
  sl_tensor nidx = sl_tensor_make(SL_I64, 2, S23, neg);
  CHECK(sl_scatter(&ctx, "cpu.omp", &x, 0, &nidx, &x, &o43) ==
        SL_STATUS_INDEX_OUT_OF_RANGE);
  CHECK_CONTAINS(ctx.msg,
                 "index[1,1]=-1 out of range [0,4) for dim 0 of x [4,3]");
  /* A column-major index is checked in memory order, and the report still
   * names the first bad position in row-major order: [0,2] comes before
   * [1,0], whose value comes first in memory. */
  int64_t colmajor[6] = {0, 9, 1, 2, 7, 3};
  sl_tensor cidx = sl_tensor_make(SL_I64, 2, S23, colmajor);
  cidx.strides[0] = 1, cidx.strides[1] = 2;
  CHECK(sl_gather(&ctx, "cpu.serial", &x, 0, &cidx, &o) ==
        SL_STATUS_INDEX_OUT_OF_RANGE);
  CHECK_CONTAINS(ctx.msg,
                 "index[0,2]=7 out of range [0,4) for dim 0 of x [4,3]");
  /* A gapped index (rows 8 apart, every other element; bad 9s in the
   * gaps) is checked row by row; the first bad position of two in a row
   * is the one reported. */
  int64_t gapped[16] = {0, 9, 1, 9, 2, 9, 9, 9, 1, 9, 3, 9, 2, 9, 9, 9};
  sl_tensor gidx = sl_tensor_make(SL_I64, 2, S23, gapped);
  gidx.strides[0] = 8, gidx.strides[1] = 2;
  CHECK(sl_gather(&ctx, "cpu.serial", &x, 0, &gidx, &o) == SL_STATUS_OK);
  gapped[10] = 5, gapped[12] = 4;
  CHECK(sl_gather(&ctx, "cpu.serial", &x, 0, &gidx, &o) ==
        SL_STATUS_INDEX_OUT_OF_RANGE);
  CHECK_CONTAINS(ctx.msg,
                 "index[1,1]=5 out of range [0,4) for dim 0 of x [4,3]");
  /* A broadcast index (each row one value, by stride 0 along it) is
   * checked once per value, and the report names the first bad position
   * of the whole: [1,0], not position 1 of the values read. */
  int64_t row[2] = {0, 5};
  sl_tensor bidx = sl_tensor_make(SL_I64, 2, S23, row);
  bidx.strides[0] = 1, bidx.strides[1] = 0;
  CHECK(sl_gather(&ctx, "cpu.serial", &x, 0, &bidx, &o) ==
        SL_STATUS_INDEX_OUT_OF_RANGE);
  CHECK_CONTAINS(ctx.msg,
                 "index[1,0]=5 out of range [0,4) for dim 0 of x [4,3]");
  row[1] = 3;
  CHECK(sl_gather(&ctx, "cpu.serial", &x, 0, &bidx, &o) == SL_STATUS_OK);
  /* unsupported dtype: src of another dtype, an output of the wrong dtype,
   * an unknown dtype code */
  sl_tensor isrc = sl_tensor_make(SL_I64, 2, S23, (void *)IDX);
  CHECK(sl_scatter(&ctx, "cpu.serial", &x, 0, &index, &isrc, &o43) ==
        SL_STATUS_UNSUPPORTED_DTYPE);
  CHECK_CONTAINS(ctx.msg, "src: expected dtype f32 (the dtype of x), got i64");
  sl_tensor od = sl_tensor_make(SL_F64, 2, S23, out);
  CHECK(sl_gather(&ctx, "cpu.serial", &x, 0, &index, &od) ==
        SL_STATUS_UNSUPPORTED_DTYPE);
  CHECK_CONTAINS(ctx.msg, "out: expected dtype f32, got f64");
  sl_tensor bad = x;
  bad.dtype = (sl_dtype)99;
  CHECK(sl_gather(&ctx, "cpu.serial", &bad, 0, &index, &o) ==
        SL_STATUS_UNSUPPORTED_DTYPE);
  CHECK_CONTAINS(ctx.msg, "x: expected a known dtype, got code 99");
  /* element count overflow (size_t) in the shape product */
  sl_tensor huge = sl_tensor_make(
      SL_F32, 3, (int64_t[]){INT64_C(1) << 31, INT64_C(1) << 31, 8}, (void *)A);
  CHECK(sl_gather(&ctx, "cpu.serial", &huge, 0, &index, &o) ==
        SL_STATUS_OVERFLOW);
  CHECK_CONTAINS(ctx.msg, "x: shape [2147483648,2147483648,8]");
  /* unknown variant; overlapping output and input */
  CHECK(sl_gather(&ctx, "cpu.fast", &x, 0, &index, &o) ==
        SL_STATUS_UNKNOWN_VARIANT);
  CHECK_CONTAINS(ctx.msg, "variant: expected a variant of gather");
  sl_tensor alias = sl_tensor_make(SL_F32, 2, S23, (void *)A);
  CHECK(sl_gather(&ctx, "cpu.serial", &x, 0, &index, &alias) ==
        SL_STATUS_INVALID_ARGUMENT);
  CHECK_CONTAINS(ctx.msg, "out: expected memory disjoint from x");
}

/* A long strided index [N,1,1] (every other i64, extent-1 axes with odd
 * strides: the check walks it as one strided row) on 3 threads: clean it
 * passes; with bad values at two positions the first one is named. */
static void test_strided_long_index(void) {
  enum { N = 70000 };
  static int64_t idx[2 * N];
  static float x[4] = {1, 2, 3, 4}, out[N];
  for (int i = 0; i < 2 * N; ++i) idx[i] = i % 2 ? 99 : (i / 2) % 4;
  sl_tensor tx = sl_tensor_make(SL_F32, 3, (int64_t[]){4, 1, 1}, x);
  sl_tensor ti = sl_tensor_make(SL_I64, 3, (int64_t[]){N, 1, 1}, idx);
  ti.strides[0] = 2, ti.strides[1] = 5, ti.strides[2] = 7;
  sl_tensor to = sl_tensor_make(SL_F32, 3, (int64_t[]){N, 1, 1}, out);
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  ctx.threads = 3;
  CHECK(sl_gather(&ctx, "cpu.omp", &tx, 0, &ti, &to) == SL_STATUS_OK);
  CHECK(out[N - 1] == x[(N - 1) % 4]);
  idx[2 * 60000] = -2, idx[2 * 35001] = 4;
  CHECK(sl_gather(&ctx, "cpu.omp", &tx, 0, &ti, &to) ==
        SL_STATUS_INDEX_OUT_OF_RANGE);
  CHECK_CONTAINS(ctx.msg, "index[35001,0,0]=4 out of range [0,4) for dim 0");
}

/* A column-major index of 60,000 positions (past the threads'
 * thresholds): x [40, 30, 50], index [40, 30, 50] with strides (1, 40,
 * 1200), dim 1, so the walk's rows run along axis 0, where the index
 * is read in order (gather_walk.c's sl__gather_order); out[i][j][k] must be
 * x[i][index[i][j][k]][k] on 1 and 3 threads. */
static void test_transposed_index(void) {
  enum { P = 40, Q = 30, R = 30, K = 50 };
  static float x[P * Q * K], out[P * R * K];
  static int32_t idx[P * R * K];
  for (int i = 0; i < P * Q * K; ++i) x[i] = (float)i;
  fill_bytes((unsigned char *)idx, sizeof idx, 77);
  for (int i = 0; i < P * R * K; ++i) idx[i] = (int32_t)((uint32_t)idx[i] % Q);
  sl_tensor tx = sl_tensor_make(SL_F32, 3, (int64_t[]){P, Q, K}, x);
  sl_tensor ti = sl_tensor_make(SL_I32, 3, (int64_t[]){P, R, K}, idx);
  ti.strides[0] = 1, ti.strides[1] = P, ti.strides[2] = P * R;
  sl_tensor to = sl_tensor_make(SL_F32, 3, (int64_t[]){P, R, K}, out);
  for (int threads = 1; threads <= 3; threads += 2) {
    sl_ctx ctx;
    sl_ctx_init(&ctx);
    ctx.threads = threads;
    FOR_EACH_VARIANT(SL_OP_GATHER, v) {
      memset(out, 0x5a, sizeof out);
      CHECK(sl_gather(&ctx, v->name, &tx, 1, &ti, &to) == SL_STATUS_OK);
      int bad = 0;
      for (int i = 0; i < P; ++i)
        for (int j = 0; j < R; ++j)
          for (int k = 0; k < K; ++k)
            bad += out[(i * R + j) * K + k] !=
                   x[(i * Q + idx[i + j * P + k * P * R]) * K + k];
      CHECK_MSG(bad == 0, "%s on %d threads: %d of %d wrong", v->name, threads,
                bad, P * R * K);
    }
  }
}

/* gather's panel walk (gather_panels.h). */
static sl_status run_gather(sl_ctx *ctx, const char *variant,
                            const sl_tensor *x, int64_t rows, int64_t cols,
                            int32_t *idx, float *out) {
  sl_tensor ti = sl_tensor_make(SL_I32, 2, (int64_t[]){rows, cols}, idx);
  sl_tensor to = sl_tensor_make(SL_F32, 2, (int64_t[]){rows, cols}, out);
  return sl_gather(ctx, variant, x, 0, &ti, &to);
}

int main(void) {
  test_seed000();
  test_strides();
  test_duplicates_and_value();
  test_row_split();
  test_wide_rows();
  test_wide_scatter();
  test_scatter_copy_ahead();
  test_transposed_index();
  test_strided_long_index();
  test_empty();
  test_bad_input();
  check_gather_panels(SL_OP_GATHER, run_gather);
  return sl_test_finish("test_gather_scatter");
}
