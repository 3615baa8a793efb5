/*
 * masked_scatter on the CPU. cpu.serial walks x's positions once. cpu.omp is
 * seed 003's prefix-sum scheme on the CPU: each thread counts the true mask
 * positions of its chunk, an exclusive scan of the counts gives every chunk
 * the index of its first source element, and each thread then writes its
 * chunk. Both write every element of out once, in the same way: a row at a
 * time (walk.h), each element picked without a branch from source or x.
 */
#include <stdlib.h>

#include "copy_tiled.h"
#include "ops/masked_scatter/masked_scatter.h"
#include "walk.h"

/* out[j] = mask[j] ? source[k++] : x[j] for j < n; returns the new k.
 * Strides in elements; source is contiguous with ns >= 1 elements. */
typedef int64_t (*sl__masked_row)(char *out, int64_t os, const char *x,
                                  int64_t xs, const unsigned char *mask,
                                  int64_t ms, const char *source, int64_t ns,
                                  int64_t k, int64_t n);

/* take ? a : b without a branch (a random mask defeats the predictor, and
 * compilers turn a plain ?: into one): an all-ones or all-zeros mask. */
#define SL__PICK(T)                                                            \
  static inline T sl__pick_##T(int take, T a, T b) {                           \
    T m = (T)0 - (T)take;                                                      \
    return (T)((a & m) | (b & (T)~m));                                         \
  }
SL__PICK(uint8_t)
SL__PICK(uint16_t)
SL__PICK(uint32_t)
SL__PICK(uint64_t)
static inline sl__e16 sl__pick_sl__e16(int take, sl__e16 a, sl__e16 b) {
  sl__e16 r = {sl__pick_uint64_t(take, a.lo, b.lo),
               sl__pick_uint64_t(take, a.hi, b.hi)};
  return r;
}

#define SL__MASKED_ROW(size, T)                                                \
  static int64_t sl__masked_row_##size(char *o, int64_t os, const char *xp,    \
                                       int64_t xs, const unsigned char *mask,  \
                                       int64_t ms, const char *sp, int64_t ns, \
                                       int64_t k, int64_t n) {                 \
    T *out = (T *)o;                                                           \
    const T *x = (const T *)xp, *source = (const T *)sp;                       \
    int64_t j = 0;                                                             \
    for (; j < n && k < ns; ++j) {                                             \
      int take = mask[j * ms] != 0;                                            \
      out[j * os] = sl__pick_##T(take, source[k], x[j * xs]);                  \
      k += take;                                                               \
    }                                                                          \
    /* source used up: the infer's count leaves no true position after */      \
    for (; j < n; ++j) out[j * os] = x[j * xs];                                \
    return k;                                                                  \
  }
SL__ELEM_TYPES(SL__MASKED_ROW)
#define SL__MASKED_ENTRY(size, T) sl__masked_row_##size,
static const sl__masked_row sl__masked_rows[] = {
    SL__ELEM_TYPES(SL__MASKED_ENTRY)};

/* A strided source read in row-major order: its multi-index and offset
 * move one element at a time (an offset computed from the linear position
 * took a division per axis per element: a broadcast source ran at 0.38x
 * LibTorch). */
typedef struct sl__source_cursor {
  const sl_tensor *t;
  int64_t idx[SL_MAX_DIMS], off;
} sl__source_cursor;

static void sl__cursor_init(sl__source_cursor *c, const sl_tensor *t,
                            int64_t linear) {
  c->t = t;
  c->off = 0;
  for (int d = t->ndim - 1; d >= 0; --d) {
    const int64_t e = t->shape[d];
    c->idx[d] = e ? linear % e : 0;
    c->off += c->idx[d] * t->strides[d];
    linear = e ? linear / e : 0;
  }
}

static void sl__cursor_next(sl__source_cursor *c) {
  const sl_tensor *t = c->t;
  for (int d = t->ndim - 1; d >= 0; --d) {
    c->off += t->strides[d];
    if (++c->idx[d] < t->shape[d]) return;
    c->off -= c->idx[d] * t->strides[d];
    c->idx[d] = 0;
  }
}

/* The same for a strided source, from the cursor's element on, typed by
 * element size (a memcpy of a size unknown to the compiler was a libc call
 * per element: most of a broadcast source's time). */
typedef int64_t (*sl__masked_row_from)(sl__source_cursor *src, char *out,
                                       int64_t os, const char *x, int64_t xs,
                                       const unsigned char *mask, int64_t ms,
                                       int64_t k, int64_t n);
#define SL__MASKED_ROW_FROM(size, T)                                           \
  static int64_t sl__masked_row_from_##size(                                   \
      sl__source_cursor *src, char *o, int64_t os, const char *xp, int64_t xs, \
      const unsigned char *mask, int64_t ms, int64_t k, int64_t n) {           \
    T *out = (T *)o;                                                           \
    const T *x = (const T *)xp, *source = (const T *)src->t->data;             \
    for (int64_t j = 0; j < n; ++j) {                                          \
      if (mask[j * ms]) {                                                      \
        out[j * os] = source[src->off];                                        \
        sl__cursor_next(src);                                                  \
        ++k;                                                                   \
      } else                                                                   \
        out[j * os] = x[j * xs];                                               \
    }                                                                          \
    return k;                                                                  \
  }
SL__ELEM_TYPES(SL__MASKED_ROW_FROM)
#define SL__MASKED_FROM_ENTRY(size, T) sl__masked_row_from_##size,
static const sl__masked_row_from sl__masked_rows_from[] = {
    SL__ELEM_TYPES(SL__MASKED_FROM_ENTRY)};

/* A row whose mask is one element for all of it (a broadcast mask: its
 * step along the row is 0) and whose out is adjacent: the row is source's
 * next n elements, all of them true positions, or x's row (a fill when x
 * is broadcast along it: a bf16 x of 17.6M broadcast elements under a
 * false mask ran at 0.30x LibTorch an element at a time): one copy
 * instead of a load of the mask, the source and x per element. source is
 * contiguous when take is set. Returns the new k. */
static int64_t sl__masked_row_uniform(size_t es, char *out, const char *x,
                                      int64_t xs, int take, const char *source,
                                      int64_t k, int64_t n) {
  sl__copy_row(es, out, 1, take ? source + k * (int64_t)es : x, take ? 1 : xs,
               n);
  return take ? k + n : k;
}

/*
 * Writes out's row-major positions [begin, end): source's element `first`
 * and the following ones go to the true positions in order, x's element to
 * the others.
 */
static void sl__masked_scatter_range(const sl_call *c, const int64_t *ms,
                                     int64_t begin, int64_t end,
                                     int64_t first) {
  const sl_tensor *x = &c->arg[0], *mask = &c->arg[1], *source = &c->arg[2];
  const sl_tensor *out = &c->arg[3];
  const size_t es = sl_dtype_size(x->dtype);
  sl__masked_row row = sl__masked_rows[sl__elem_class(es)];
  int64_t ns = sl__numel(source);
  int dense = ns > 0 && sl_tensor_is_contiguous(source);
  const int64_t *st[3] = {out->strides, x->strides, ms};
  const unsigned char *m = mask->data;
  sl__walk w;
  sl__walk_init(&w, x->ndim, x->shape, 3, st, begin);
  sl__source_cursor cursor = {.t = source};
  if (!dense) sl__cursor_init(&cursor, source, first);
  int64_t k = first;
  for (int64_t left = end - begin, n; left > 0; left -= n, sl__walk_next(&w)) {
    n = sl__walk_span(&w, left);
    char *o = sl__ptr(out, sl__walk_at(&w, 0));
    const char *xr = sl__ptr(x, sl__walk_at(&w, 1));
    const unsigned char *mr = m + sl__walk_at(&w, 2);
    const int64_t os = sl__walk_step(&w, 0), xs = sl__walk_step(&w, 1);
    const int64_t mst = sl__walk_step(&w, 2);
    if (mst == 0 && os == 1 && (dense || *mr == 0)) {
      k = sl__masked_row_uniform(es, o, xr, xs, *mr != 0,
                                 (const char *)source->data, k, n);
      continue;
    }
    if (dense) {
      const char *sp = (const char *)source->data;
      int64_t done = 0;
      if (os == 1 && xs == 1 && mst == 1)
        done = sl__masked_expand(es, o, xr, mr, sp, &k, ns, n);
      k = row(o + done * (int64_t)es, os, xr + done * (int64_t)es, xs,
              mr + done * mst, mst, sp, ns, k, n - done);
    } else
      k = sl__masked_rows_from[sl__elem_class(es)](&cursor, o, os, xr, xs, mr,
                                                   mst, k, n);
  }
}

/*
 * A mask whose bytes step through memory along x's rows (a transposed
 * mask: its stride on x's last axis neither 0 nor 1) copied once into
 * row-major order, so that each row reads it with unit stride and takes
 * the expand loop: the copy is one pass over the mask, which is at most as
 * large as x. Gathering each row's mask bytes into a block for the expand
 * instead ran u8 66^4 under a transposed 66x1x66x66 mask at 0.87x
 * LibTorch (a byte per position from another cache line), 1.61x so.
 * Rows shorter than the narrowest expand (8 lanes) keep the mask as it
 * is. *mask becomes the copy; returns its buffer, to free (NULL: the mask
 * stays as it is, and a row without unit steps goes one position at a
 * time).
 */
static unsigned char *sl__mask_row_major(const sl_tensor *x, sl_tensor *mask,
                                         int threads) {
  int64_t ms[SL_MAX_DIMS];
  sl__mask_strides(x, mask, ms);
  if (x->ndim == 0 || x->shape[x->ndim - 1] < 8) return NULL;
  const int64_t along = ms[x->ndim - 1];
  if (along == 0 || along == 1) return NULL;
  sl_tensor copy = sl_tensor_make(mask->dtype, mask->ndim, mask->shape, NULL);
  unsigned char *buf = sl__malloc((size_t)sl__numel(mask));
  if (!buf) return NULL;
  copy.data = buf;
  sl__copy_strided(&copy, mask, threads);
  *mask = copy;
  return buf;
}

/*
 * An x that steps a cache line or more an element along its last axis (a
 * transposed x) is copied into out first, by tiles (sl__copy_strided),
 * and the walk then takes x from out itself, in place: a position's
 * element of x is read just before the same element of out is written.
 * Read along out's rows, such an x cost a cache line a position
 * (docs/notes/benchmarks-2026.md, session ak). rm's x is then out.
 */
static void sl__x_from_out(sl_call *rm, int threads) {
  const sl_tensor *x = &rm->arg[0], *out = &rm->arg[3];
  const int last = x->ndim - 1;
  if (last < 1 || x->shape[last] < 2 || !sl_tensor_is_contiguous(out)) return;
  if (!sl__steps_a_line(x->strides[last], sl_dtype_size(x->dtype))) return;
  sl__copy_strided(&rm->arg[3], x, threads);
  rm->arg[0] = *out;
}

static void sl__masked_scatter_serial(const sl_call *c) {
  int64_t ms[SL_MAX_DIMS];
  sl__mask_strides(&c->arg[0], &c->arg[1], ms);
  sl__masked_scatter_range(c, ms, 0, sl__numel(&c->arg[0]), 0);
}

sl_status sl_masked_scatter_cpu_serial(sl_ctx *ctx, sl_call *c) {
  (void)ctx;
  sl_call rm = *c;
  unsigned char *copy = sl__mask_row_major(&rm.arg[0], &rm.arg[1], 1);
  sl__x_from_out(&rm, 1);
  sl__masked_scatter_serial(&rm);
  sl__free(copy);
  return SL_STATUS_OK;
}

static sl_status sl__masked_scatter_omp(sl_ctx *ctx, const sl_call *c,
                                        int threads) {
  const sl_tensor *x = &c->arg[0], *mask = &c->arg[1];
  int64_t n = sl__numel(x);
  if (n == 0) return SL_STATUS_OK;
  int team = sl__team(threads, n);
  int64_t ms[SL_MAX_DIMS];
  sl__mask_strides(x, mask, ms);
  /* start[t] is the first source element of chunk t (exclusive scan). */
  int64_t *start = sl__malloc(((size_t)team + 1) * sizeof *start);
  if (!start)
    return sl_ctx_fail(ctx, SL_STATUS_OUT_OF_MEMORY,
                       "masked_scatter: no memory for %d chunk counts", team);
  start[0] = 0;
#pragma omp parallel num_threads(team) if (team > 1)
  {
#pragma omp for schedule(static)
    for (int t = 0; t < team; ++t) {
      int64_t b, e;
      sl__chunk(n, team, t, &b, &e);
      start[t + 1] = b < e ? sl__mask_count(x, mask, ms, b, e) : 0;
    }
#pragma omp single
    for (int t = 0; t < team; ++t) start[t + 1] += start[t];
#pragma omp for schedule(static)
    for (int t = 0; t < team; ++t) {
      int64_t b, e;
      sl__chunk(n, team, t, &b, &e);
      if (b < e) sl__masked_scatter_range(c, ms, b, e, start[t]);
    }
  }
  sl__free(start);
  return SL_STATUS_OK;
}

sl_status sl_masked_scatter_cpu_omp(sl_ctx *ctx, sl_call *c) {
  const int threads = sl__threads(ctx);
  sl_call rm = *c;
  unsigned char *copy = sl__mask_row_major(&rm.arg[0], &rm.arg[1], threads);
  sl__x_from_out(&rm, threads);
  const sl_status st = sl__masked_scatter_omp(ctx, &rm, threads);
  sl__free(copy);
  return st;
}
