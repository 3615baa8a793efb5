/*
 * dynamic_scatter_backward on the CPU.
 *
 * Every variant writes grad_feats a point row at a time with one typed loop
 * (sl__dsb_rows): sum copies the voxel's gradient, mean divides it by the
 * voxel's count (or copies the voxel's quotients, divided first when the
 * points are many), max gives it to one point per (voxel, channel) and 0
 * to the others; sum and mean split the points among threads. Which point
 * takes max's gradient is decided in one of two ways:
 *
 * cpu.serial and cpu.omp fuse seed 004's two passes into one: the points
 * are scanned in increasing index, and the first one whose feature equals
 * the voxel's maximum takes the gradient and marks the (voxel, channel)
 * taken in a byte map. That is the smallest such index, as scheme 1's
 * atomic minimum gives, without its [M][C] workspace of int64 minima.
 * cpu.omp splits the voxels among threads: each thread scans every point
 * but handles only those of its voxels (and its share of the dropped
 * points), so every row of grad_feats and every byte of the map has one
 * writer and the answer is the serial one.
 *
 * cpu.atomic, cpu.lock and cpu.sorted (_conflict.c) compute the minima
 * first, in parallel over the points, then write the rows (sl__dsb_run).
 */
#include <stdlib.h>

#include "dynamic_scatter_backward_cpu.h"
#include "walk.h"

/* The rows one call of sl__dsb_rows writes: the points n in [n0,n1) whose
 * voxel lies in [v0,v1), and the dropped ones (map -1) in [d0,d1). Max is
 * decided by `first` (minima, voxel-major) when given, else by `taken`. */
typedef struct sl__dsb_part {
  int64_t n0, n1, v0, v1, d0, d1;
  const int64_t *first;
  unsigned char *taken; /* [M][C], 1 once a point has taken (v, ch) */
  const void *quot;     /* mean: [M][C] quotients of the dtype, or NULL */
} sl__dsb_part;

/* The run of dropped points (map -1) from n, within the part's [d0, d1)
 * and [n0, n1), their rows zeroed: one memset where the rows are
 * adjacent (a memset per row of a few channels cost more than the row:
 * 3M dropped points of 2 channels ran at 0.6x LibTorch). Returns the end
 * of the run. */
static int64_t sl__dsb_zero_run(const sl_call *c, int64_t n,
                                const sl__dsb_part *p) {
  const sl_tensor *map = &c->arg[3], *ot = &c->arg[5];
  const int64_t C = ot->shape[1], os = ot->strides[1];
  const int64_t end = p->d1 < p->n1 ? p->d1 : p->n1;
  int64_t e = n + 1;
  while (e < end && sl__dsb_i32(map, e) < 0) ++e;
  const size_t es = sl_dtype_size(ot->dtype);
  char *o = (char *)ot->data + n * ot->strides[0] * (int64_t)es;
  if (os == 1 && ot->strides[0] == C) {
    memset(o, 0, (size_t)((e - n) * C) * es);
    return e;
  }
  for (int64_t i = n; i < e; ++i, o += ot->strides[0] * (int64_t)es)
    for (int64_t ch = 0; ch < C; ++ch) /* f32 or f64 (infer) */
      if (es == 4)
        ((float *)o)[ch * os] = 0;
      else
        ((double *)o)[ch * os] = 0;
  return e;
}

/* The max channel loop: the first point matching (v, ch) takes its
 * gradient. Loads and selects without branches so that it vectorizes. */
#define SL__DSB_TAKE(T, fs, vs, gs, os)                                        \
  for (int64_t ch = 0; ch < C; ++ch) {                                         \
    const unsigned char was = taken[ch];                                       \
    const unsigned char take =                                                 \
        (unsigned char)((f[ch * (fs)] == vf[ch * (vs)]) & (was == 0));         \
    const T gv = g[ch * (gs)];                                                 \
    taken[ch] = was | take;                                                    \
    o[ch * (os)] = take ? gv : (T)0;                                           \
  }

/* One typed loop per dtype: strides in elements; the channel loops run
 * unit-stride in the common contiguous layout, which the compiler
 * versions for. */
#define SL__DSB_ROWS(name, T)                                                  \
  static void name(const sl_call *c, const sl__dsb_part *p) {                  \
    const sl_tensor *gt = &c->arg[0], *ft = &c->arg[1], *vt = &c->arg[2];      \
    const sl_tensor *map = &c->arg[3], *count = &c->arg[4], *ot = &c->arg[5];  \
    const T *grad = gt->data, *feats = ft->data, *vfeats = vt->data;           \
    T *out = ot->data;                                                         \
    const int64_t C = ot->shape[1], gs = gt->strides[1];                       \
    const int64_t fs = ft->strides[1], vs = vt->strides[1];                    \
    const int64_t os = ot->strides[1];                                         \
    const sl_reduce reduce = c->p.reduce;                                      \
    for (int64_t n = p->n0; n < p->n1; ++n) {                                  \
      const int64_t v = sl__dsb_i32(map, n);                                   \
      T *o = out + n * ot->strides[0];                                         \
      if (v < 0) {                                                             \
        if (n >= p->d0 && n < p->d1) n = sl__dsb_zero_run(c, n, p) - 1;        \
        continue;                                                              \
      }                                                                        \
      if (v < p->v0 || v >= p->v1) continue;                                   \
      const T *g = grad + v * gt->strides[0];                                  \
      if (reduce == SL_REDUCE_SUM) {                                           \
        for (int64_t ch = 0; ch < C; ++ch) o[ch * os] = g[ch * gs];            \
      } else if (reduce == SL_REDUCE_MEAN && p->quot) {                        \
        const T *q = (const T *)p->quot + v * C;                               \
        for (int64_t ch = 0; ch < C; ++ch) o[ch * os] = q[ch];                 \
      } else if (reduce == SL_REDUCE_MEAN) {                                   \
        /* In double: the quotient rounded to f32 is f32's own. */             \
        const double k = (double)sl__dsb_i32(count, v);                        \
        for (int64_t ch = 0; ch < C; ++ch)                                     \
          o[ch * os] = (T)((double)g[ch * gs] / k);                            \
      } else if (p->first) {                                                   \
        const int64_t *first = p->first + v * C;                               \
        for (int64_t ch = 0; ch < C; ++ch) {                                   \
          const T gv = g[ch * gs]; /* loaded anyway: no branch */              \
          o[ch * os] = first[ch] == n ? gv : (T)0;                             \
        }                                                                      \
      } else {                                                                 \
        const T *f = feats + n * ft->strides[0];                               \
        const T *vf = vfeats + v * vt->strides[0];                             \
        unsigned char *taken = p->taken + v * C;                               \
        if (fs == 1 && vs == 1 && gs == 1 && os == 1) {                        \
          SL__DSB_TAKE(T, 1, 1, 1, 1);                                         \
        } else {                                                               \
          SL__DSB_TAKE(T, fs, vs, gs, os);                                     \
        }                                                                      \
      }                                                                        \
    }                                                                          \
  }
SL__DSB_ROWS(sl__dsb_rows_f32, float)
SL__DSB_ROWS(sl__dsb_rows_f64, double)

/* q[v][ch] = grad[v][ch] / count[v], the rows' own division. */
#define SL__DSB_QUOT(name, T)                                                  \
  static void name(const sl_call *c, void *quot, int64_t v0, int64_t v1) {     \
    const sl_tensor *gt = &c->arg[0], *count = &c->arg[4];                     \
    const T *grad = gt->data;                                                  \
    T *q = quot;                                                               \
    const int64_t C = gt->shape[1];                                            \
    for (int64_t v = v0; v < v1; ++v) {                                        \
      const double k = (double)sl__dsb_i32(count, v);                          \
      const T *g = grad + v * gt->strides[0];                                  \
      for (int64_t ch = 0; ch < C; ++ch)                                       \
        q[v * C + ch] = (T)((double)g[ch * gt->strides[1]] / k);               \
    }                                                                          \
  }
SL__DSB_QUOT(sl__dsb_quot_f32, float)
SL__DSB_QUOT(sl__dsb_quot_f64, double)

/*
 * Mean's quotients a voxel at a time, when the points are at least twice
 * the voxels: each point's row then copies its voxel's, where it divided
 * (dynamic_scatter_backward f64 of 1,358,410 points into one voxel: 2.7M
 * divisions, 0.79-0.87x LibTorch, which divides the voxels' rows first).
 * NULL when there are fewer points, or no memory: the rows divide.
 */
static void *sl__dsb_quotients(const sl_call *c, int threads) {
  const int64_t N = c->arg[1].shape[0], C = c->arg[1].shape[1];
  const int64_t M = c->arg[0].shape[0];
  if (c->p.reduce != SL_REDUCE_MEAN || M == 0 || N < 2 * M) return NULL;
  const size_t es = sl_dtype_size(c->arg[0].dtype);
  void *quot = sl__malloc((size_t)(M * C) * es);
  if (!quot) return NULL;
  const int parts = (int64_t)threads < M ? threads : (int)M;
#pragma omp parallel for num_threads(parts) schedule(static) if (parts > 1)
  for (int t = 0; t < parts; ++t) {
    int64_t v0, v1;
    sl__chunk(M, parts, t, &v0, &v1);
    if (es == 4)
      sl__dsb_quot_f32(c, quot, v0, v1);
    else
      sl__dsb_quot_f64(c, quot, v0, v1);
  }
  return quot;
}

#define SL__DSB_MASK(name, T)                                                  \
  static uint64_t name(const sl_call *c, int64_t n, int64_t v, int64_t ch0) {  \
    const sl_tensor *ft = &c->arg[1], *vt = &c->arg[2];                        \
    const T *f =                                                               \
        (const T *)ft->data + n * ft->strides[0] + ch0 * ft->strides[1];       \
    const T *vf =                                                              \
        (const T *)vt->data + v * vt->strides[0] + ch0 * vt->strides[1];       \
    const int64_t fs = ft->strides[1], vs = vt->strides[1];                    \
    const int64_t k = ft->shape[1] - ch0 < 64 ? ft->shape[1] - ch0 : 64;       \
    uint64_t mask = 0;                                                         \
    for (int64_t j = 0; j < k; ++j)                                            \
      mask |= (uint64_t)(f[j * fs] == vf[j * vs]) << j;                        \
    return mask;                                                               \
  }
SL__DSB_MASK(sl__dsb_mask_f32, float)
SL__DSB_MASK(sl__dsb_mask_f64, double)

uint64_t sl__dsb_match_mask(const sl_call *c, int64_t n, int64_t v,
                            int64_t ch0) {
  if (c->arg[1].dtype == SL_F32) return sl__dsb_mask_f32(c, n, v, ch0);
  return sl__dsb_mask_f64(c, n, v, ch0);
}

/* f32 or f64 (checked by infer). */
static void sl__dsb_rows(const sl_call *c, const sl__dsb_part *p) {
  if (c->arg[1].dtype == SL_F32)
    sl__dsb_rows_f32(c, p);
  else
    sl__dsb_rows_f64(c, p);
}

/* Every point's row, the points split among `threads` (each row has one
 * writer whatever its voxel): sum, mean, and max decided by `first`. */
static void sl__dsb_by_points(const sl_call *c, int threads,
                              const int64_t *first) {
  const int64_t N = c->arg[1].shape[0], M = c->arg[0].shape[0];
  void *quot = sl__dsb_quotients(c, threads);
  int parts = (int64_t)threads < N ? threads : (int)N;
#pragma omp parallel for num_threads(parts) schedule(static) if (parts > 1)
  for (int t = 0; t < parts; ++t) {
    int64_t n0, n1;
    sl__chunk(N, parts, t, &n0, &n1);
    sl__dsb_part p = {n0, n1, 0, M, n0, n1, first, NULL, quot};
    sl__dsb_rows(c, &p);
  }
  sl__free(quot);
}

sl_status sl__dsb_run(sl_ctx *ctx, sl_call *c, int threads,
                      sl__dsb_find_fn find) {
  const int64_t N = c->arg[1].shape[0], C = c->arg[1].shape[1];
  const int64_t M = c->arg[0].shape[0];
  if (N == 0 || C == 0) return SL_STATUS_OK;
  int64_t *first = NULL;
  if (c->p.reduce == SL_REDUCE_MAX && M > 0) {
    /* infer bounded M * C by the size of an element, not of an int64. */
    if ((uint64_t)M * (uint64_t)C <= SIZE_MAX / sizeof *first)
      first = sl__malloc((size_t)(M * C) * sizeof *first);
    if (!first)
      return sl_ctx_fail(ctx, SL_STATUS_OUT_OF_MEMORY,
                         "dynamic_scatter_backward: expected workspace for "
                         "%lld x %lld minima, got an allocation failure",
                         (long long)M, (long long)C);
    sl_status st = find(ctx, c, threads, first);
    if (st) {
      sl__free(first);
      return st;
    }
  }
  /* With M = 0 every map entry is -1 (checked by infer): first is never
   * read, and every point gets 0. */
  sl__dsb_by_points(c, threads, first);
  sl__free(first);
  return SL_STATUS_OK;
}

/* cpu.serial and cpu.omp: one pass; max splits the voxels among
 * `threads` (every thread scanning every point, for the first taker), sum
 * and mean the points. */
static sl_status sl__dsb_fused(sl_ctx *ctx, sl_call *c, int threads) {
  const int64_t N = c->arg[1].shape[0], C = c->arg[1].shape[1];
  const int64_t M = c->arg[0].shape[0];
  if (N == 0 || C == 0) return SL_STATUS_OK;
  if (c->p.reduce != SL_REDUCE_MAX) {
    sl__dsb_by_points(c, threads, NULL);
    return SL_STATUS_OK;
  }
  unsigned char *taken = NULL;
  if (M > 0) {
    taken = sl__calloc((size_t)M, (size_t)C);
    if (!taken)
      return sl_ctx_fail(ctx, SL_STATUS_OUT_OF_MEMORY,
                         "dynamic_scatter_backward: expected a map of %lld x "
                         "%lld taken flags, got an allocation failure",
                         (long long)M, (long long)C);
  }
  int parts = threads;
  if ((int64_t)parts > M) parts = M > 0 ? (int)M : 1;
#pragma omp parallel for num_threads(parts) schedule(static) if (parts > 1)
  for (int t = 0; t < parts; ++t) {
    sl__dsb_part p = {0, N, 0, 0, 0, 0, NULL, taken, NULL};
    sl__chunk(M, parts, t, &p.v0, &p.v1);
    sl__chunk(N, parts, t, &p.d0, &p.d1);
    sl__dsb_rows(c, &p);
  }
  sl__free(taken);
  return SL_STATUS_OK;
}

sl_status sl_dynamic_scatter_backward_cpu_serial(sl_ctx *ctx, sl_call *c) {
  return sl__dsb_fused(ctx, c, 1);
}

sl_status sl_dynamic_scatter_backward_cpu_omp(sl_ctx *ctx, sl_call *c) {
  return sl__dsb_fused(ctx, c, sl__threads(ctx));
}
