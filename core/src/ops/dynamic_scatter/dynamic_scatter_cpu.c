/*
 * dynamic_scatter on the CPU: sort the valid points by their coordinates,
 * cut the sorted list into runs of equal coordinates (the voxels), then
 * reduce each run.
 *
 * cpu.serial and cpu.omp run the same steps; cpu.omp runs each step on
 * several threads where the step's outputs are independent:
 *   1. compaction of the valid points (chunks of points, offsets from a
 *      prefix sum over the chunks),
 *   2. a merge sort (insertion-sorted blocks, then merge passes whose pairs
 *      of runs are merged in parallel),
 *   3. the voxel boundaries (a compaction of the sorted list),
 *   4. the per-voxel reduction (each voxel owns its output rows and its
 *      points' map entries).
 * The sort key is (coordinates, point index): every key is distinct, so the
 * sorted order is unique whichever algorithm or thread count produced it,
 * and within a voxel the points come in increasing point index. The float
 * sums are therefore added in the same order on every variant (bitwise the
 * same result, and LibTorch's index_add order too).
 */
#include <stdlib.h>
#include <string.h>

#include "dynamic_scatter_voxels.h"
#include "reduce_ops.h"

/* Chunk t of `parts` equal chunks of [0,n). */
static inline int64_t sl__dyn_chunk(int64_t n, int parts, int t) {
  return (n / parts) * t + (t < n % parts ? t : n % parts);
}

/* Step 1 by blocks of points, the block's validity computed column by column
 * into a byte per point: a loop over the points of one column is free of
 * branches and vectorizes where coors is contiguous or broadcast (a loop
 * over the columns of each point cost 2 ns a point). */
enum { SL__DYN_BLOCK = 1024 };

/* valid[k] for the points [b, b + n): no coordinate of the row negative. */
static void sl__dyn_valid_block(const sl__dyn *w, int64_t b, int64_t n,
                                uint8_t *valid) {
  const sl_tensor *coors = &w->c->arg[1];
  const int64_t s0 = coors->strides[0], s1 = coors->strides[1];
  memset(valid, 1, (size_t)n);
  for (int64_t d = 0; d < w->D; ++d) {
    const int32_t *col = sl__dyn_i32(coors, b * s0 + d * s1);
    if (s0 == 1)
      for (int64_t k = 0; k < n; ++k) valid[k] &= col[k] >= 0;
    else if (s0 == 0 && col[0] < 0) /* broadcast rows */
      memset(valid, 0, (size_t)n);
    else if (s0 != 0)
      for (int64_t k = 0; k < n; ++k) valid[k] &= col[k * s0] >= 0;
  }
}

/* The valid points of a block (n <= SL__DYN_BLOCK: a 32-bit sum, which
 * vectorizes better than a 64-bit one). */
static int64_t sl__dyn_block_kept(const uint8_t *valid, int64_t n) {
  uint32_t kept = 0;
  for (int64_t k = 0; k < n; ++k) kept += valid[k];
  return kept;
}

static int64_t sl__dyn_count_valid(const sl__dyn *w, int64_t b, int64_t e) {
  uint8_t valid[SL__DYN_BLOCK];
  int64_t kept = 0;
  for (; b < e; b += SL__DYN_BLOCK) {
    const int64_t n = e - b < SL__DYN_BLOCK ? e - b : SL__DYN_BLOCK;
    sl__dyn_valid_block(w, b, n, valid);
    kept += sl__dyn_block_kept(valid, n);
  }
  return kept;
}

/* The points [b, e), the first valid one of rank j: a valid point gets its
 * key row and point index, a dropped one map = -1. */
static void sl__dyn_emit_valid(sl__dyn *w, int64_t b, int64_t e, int64_t j) {
  const sl_tensor *coors = &w->c->arg[1], *map = &w->c->arg[4];
  const int64_t s0 = coors->strides[0], s1 = coors->strides[1], D = w->D;
  const int64_t ms = map->strides[0];
  int32_t *const m = map->data, *const point = w->point, *const keys = w->keys;
  uint8_t valid[SL__DYN_BLOCK];
  for (; b < e; b += SL__DYN_BLOCK) {
    const int64_t n = e - b < SL__DYN_BLOCK ? e - b : SL__DYN_BLOCK;
    sl__dyn_valid_block(w, b, n, valid);
    if (sl__dyn_block_kept(valid, n) == 0) {
      for (int64_t k = 0; k < n; ++k) m[(b + k) * ms] = -1;
      continue;
    }
    for (int64_t k = 0; k < n; ++k) {
      const int64_t i = b + k;
      if (!valid[k]) {
        m[i * ms] = -1;
        continue;
      }
      point[j] = (int32_t)i;
      for (int64_t d = 0; d < D; ++d)
        keys[j * D + d] = *sl__dyn_i32(coors, i * s0 + d * s1);
      ++j;
    }
  }
}

/* ------------------------------------------------------------------------ */
/* Step 2: sort the valid positions by (key, position).                     */
/* ------------------------------------------------------------------------ */
static inline int sl__dyn_key_cmp(const sl__dyn *w, int32_t a, int32_t b) {
  const int32_t *ka = w->keys + (int64_t)a * w->D;
  const int32_t *kb = w->keys + (int64_t)b * w->D;
  for (int64_t d = 0; d < w->D; ++d)
    if (ka[d] != kb[d]) return ka[d] < kb[d] ? -1 : 1;
  return 0;
}

/* The total order of the sort: key first, then position (= point order). */
static inline int sl__dyn_less(const sl__dyn *w, int32_t a, int32_t b) {
  int k = sl__dyn_key_cmp(w, a, b);
  return k ? k < 0 : a < b;
}

static void sl__dyn_insertion_sort(const sl__dyn *w, int32_t *v, int64_t n) {
  for (int64_t i = 1; i < n; ++i) {
    int32_t x = v[i];
    int64_t j = i;
    for (; j > 0 && sl__dyn_less(w, x, v[j - 1]); --j) v[j] = v[j - 1];
    v[j] = x;
  }
}

/* Merges src[lo,mid) and src[mid,hi) into dst[lo,hi). */
static void sl__dyn_merge(const sl__dyn *w, const int32_t *src, int32_t *dst,
                          int64_t lo, int64_t mid, int64_t hi) {
  int64_t i = lo, j = mid, k = lo;
  while (i < mid && j < hi)
    dst[k++] = sl__dyn_less(w, src[j], src[i]) ? src[j++] : src[i++];
  while (i < mid) dst[k++] = src[i++];
  while (j < hi) dst[k++] = src[j++];
}

enum { SL__DYN_RUN = SL__TH_DYN_RUN };

/* Sorts w->order[0,nv) (which holds 0..nv-1); the result lands in w->order
 * or w->tmp and w->sorted points to it. Every pass is a worksharing loop
 * over independent blocks or pairs, with a barrier between passes. */
static void sl__dyn_sort(sl__dyn *w, int64_t nv, int threads) {
  int64_t blocks = (nv + SL__DYN_RUN - 1) / SL__DYN_RUN;
  int32_t *result = w->order;
#pragma omp parallel num_threads(threads) if (threads > 1)
  {
    int32_t *src = w->order, *dst = w->tmp;
#pragma omp for schedule(static)
    for (int64_t k = 0; k < blocks; ++k) {
      int64_t lo = k * SL__DYN_RUN;
      int64_t len = nv - lo < SL__DYN_RUN ? nv - lo : SL__DYN_RUN;
      sl__dyn_insertion_sort(w, src + lo, len);
    }
    for (int64_t width = SL__DYN_RUN; width < nv; width *= 2) {
      int64_t pairs = (nv + 2 * width - 1) / (2 * width);
#pragma omp for schedule(static)
      for (int64_t p = 0; p < pairs; ++p) {
        int64_t lo = p * 2 * width;
        int64_t mid = lo + width < nv ? lo + width : nv;
        int64_t hi = lo + 2 * width < nv ? lo + 2 * width : nv;
        sl__dyn_merge(w, src, dst, lo, mid, hi);
      }
      int32_t *t = src;
      src = dst;
      dst = t;
    }
#pragma omp single
    result = src;
  }
  w->sorted = result;
}

/* ------------------------------------------------------------------------ */
/* Step 3: a sorted slot starts a voxel when its key differs from the slot  */
/* before it.                                                               */
/* ------------------------------------------------------------------------ */
static inline int sl__dyn_keep_start(const sl__dyn *w, int64_t i) {
  return i == 0 || sl__dyn_key_cmp(w, w->sorted[i], w->sorted[i - 1]) != 0;
}

static inline void sl__dyn_emit_start(sl__dyn *w, int64_t i, int64_t j) {
  if (j >= 0) w->starts[j] = (int32_t)i;
}

/* ------------------------------------------------------------------------ */
/* Compaction of steps 1 and 3: keep(i) says whether item i is kept;        */
/* emit(i, j) is called for every item, j its rank among the kept items or  */
/* -1 for a dropped one. Chunk t counts its kept items, a prefix sum over   */
/* the chunks gives each chunk its first rank, then the chunks emit in      */
/* parallel. The step is chosen once per chunk, outside the loops, so that  */
/* keep and emit are inlined in them (a call per item cost more than the    */
/* work of one).                                                            */
/* ------------------------------------------------------------------------ */
typedef enum { SL__DYN_VALID, SL__DYN_STARTS } sl__dyn_step;

static int64_t sl__dyn_count(const sl__dyn *w, sl__dyn_step step, int64_t b,
                             int64_t e) {
  int64_t kept = 0;
  if (step == SL__DYN_VALID) return sl__dyn_count_valid(w, b, e);
  for (int64_t i = b; i < e; ++i) kept += sl__dyn_keep_start(w, i);
  return kept;
}

static void sl__dyn_emit(sl__dyn *w, sl__dyn_step step, int64_t b, int64_t e,
                         int64_t j) {
  if (step == SL__DYN_VALID) {
    sl__dyn_emit_valid(w, b, e, j);
    return;
  }
  for (int64_t i = b; i < e; ++i)
    sl__dyn_emit_start(w, i, sl__dyn_keep_start(w, i) ? j++ : -1);
}

static int64_t sl__dyn_compact(sl__dyn *w, int64_t n, int parts, int64_t *base,
                               sl__dyn_step step) {
#pragma omp parallel for num_threads(parts) schedule(static) if (parts > 1)
  for (int t = 0; t < parts; ++t)
    base[t + 1] = sl__dyn_count(w, step, sl__dyn_chunk(n, parts, t),
                                sl__dyn_chunk(n, parts, t + 1));
  base[0] = 0;
  for (int t = 0; t < parts; ++t) base[t + 1] += base[t];
#pragma omp parallel for num_threads(parts) schedule(static) if (parts > 1)
  for (int t = 0; t < parts; ++t)
    sl__dyn_emit(w, step, sl__dyn_chunk(n, parts, t),
                 sl__dyn_chunk(n, parts, t + 1), base[t]);
  return base[parts];
}

/* ------------------------------------------------------------------------ */
/* Step 4: voxel v owns sorted slots [starts[v], starts[v+1]), its output   */
/* rows and its points' map entries: no two voxels write the same element.  */
/* ------------------------------------------------------------------------ */
void sl__dyn_label_voxel(const sl__dyn *w, int64_t v) {
  const sl_call *c = w->c;
  const sl_tensor *vcoors = &c->arg[3], *map = &c->arg[4], *count = &c->arg[5];
  const int64_t b = w->starts[v], e = w->starts[v + 1];
  const int32_t *key = w->keys + (int64_t)w->sorted[b] * w->D;
  for (int64_t d = 0; d < w->D; ++d)
    *sl__dyn_i32(vcoors, v * vcoors->strides[0] + d * vcoors->strides[1]) =
        key[d];
  *sl__dyn_i32(count, v * count->strides[0]) = (int32_t)(e - b);
  for (int64_t i = b; i < e; ++i)
    *sl__dyn_i32(map, w->point[w->sorted[i]] * map->strides[0]) = (int32_t)v;
}

static void sl__dyn_reduce_voxel(const sl__dyn *w, int64_t v) {
  const sl_call *c = w->c;
  const sl_tensor *feats = &c->arg[0], *vfeats = &c->arg[2];
  const int64_t C = feats->shape[1];
  const int64_t b = w->starts[v], e = w->starts[v + 1];
  const int64_t fs0 = feats->strides[0], fs1 = feats->strides[1];
  const int64_t os0 = vfeats->strides[0], os1 = vfeats->strides[1];
  sl__dyn_label_voxel(w, v);
  for (int64_t i = b; i < e; ++i) {
    const int64_t n = w->point[w->sorted[i]];
    for (int64_t ch = 0; ch < C; ++ch) {
      double x = sl__dyn_getf(feats, n * fs0 + ch * fs1);
      int64_t off = v * os0 + ch * os1;
      if (i == b)
        /* A sum starts from +0.0 (as LibTorch's zeros + index_add does), so
         * that a voxel whose points are all -0.0 sums to +0.0. */
        sl__dyn_setf(vfeats, off, c->p.reduce == SL_REDUCE_MAX ? x : 0.0 + x);
      else
        /* reduce_ops.h's combine, as cpu.atomic and cpu.lock take it: a
         * max keeps the first of equal values (std::max) and propagates a
         * NaN (a `x > max` test dropped one that came after a number). */
        sl__dyn_setf(vfeats, off,
                     sl__combine_f64(c->p.reduce == SL_REDUCE_MAX
                                         ? SL_REDUCE_MAX
                                         : SL_REDUCE_SUM,
                                     sl__dyn_getf(vfeats, off), x));
    }
  }
  if (c->p.reduce == SL_REDUCE_MEAN)
    for (int64_t ch = 0; ch < C; ++ch) {
      int64_t off = v * os0 + ch * os1;
      sl__dyn_setf(vfeats, off, sl__dyn_getf(vfeats, off) / (double)(e - b));
    }
}

sl_status sl__dyn_voxelize(sl_ctx *ctx, sl_call *c, int threads, sl__dyn *w,
                           int64_t *M) {
  const int64_t N = c->arg[0].shape[0];
  memset(w, 0, sizeof *w);
  *M = 0;
  if (N == 0) return SL_STATUS_OK;
  w->c = c;
  w->D = c->arg[1].shape[1];
  /* The compaction's chunk count only sets the work split, never the
   * result; keep chunks of at least 1024 points so small calls stay cheap. */
  int parts = threads;
  if ((int64_t)parts > (N + 1023) / 1024) parts = (int)((N + 1023) / 1024);
  w->keys = sl__malloc((size_t)(N * w->D) * sizeof *w->keys);
  w->point = sl__malloc((size_t)N * sizeof *w->point);
  w->order = sl__malloc((size_t)N * sizeof *w->order);
  w->tmp = sl__malloc((size_t)N * sizeof *w->tmp);
  w->starts = sl__malloc((size_t)(N + 1) * sizeof *w->starts);
  int64_t *base = sl__malloc((size_t)(parts + 1) * sizeof *base);
  if (!w->keys || !w->point || !w->order || !w->tmp || !w->starts || !base) {
    sl__free(base);
    sl__dyn_free(w);
    return sl_ctx_fail(ctx, SL_STATUS_OUT_OF_MEMORY,
                       "dynamic_scatter: expected workspace for %lld points, "
                       "got an allocation failure",
                       (long long)N);
  }
  const int64_t nv = sl__dyn_compact(w, N, parts, base, SL__DYN_VALID);
  if (nv > 0) {
    for (int64_t i = 0; i < nv; ++i) w->order[i] = (int32_t)i;
    sl__dyn_sort(w, nv, threads);
    *M = sl__dyn_compact(w, nv, parts, base, SL__DYN_STARTS);
    w->starts[*M] = (int32_t)nv;
  }
  sl__free(base);
  return SL_STATUS_OK;
}

void sl__dyn_free(sl__dyn *w) {
  sl__free(w->starts);
  sl__free(w->tmp);
  sl__free(w->order);
  sl__free(w->point);
  sl__free(w->keys);
  memset(w, 0, sizeof *w);
}

static sl_status sl__dynamic_scatter_body(sl_ctx *ctx, sl_call *c,
                                          int threads) {
  sl__dyn w;
  int64_t M;
  c->out_rows = 0;
  sl_status st = sl__dyn_voxelize(ctx, c, threads, &w, &M);
  if (st) return st;
    /* Voxels differ in size: dynamic scheduling balances them; the result
     * does not depend on which thread reduces which voxel. */
#pragma omp parallel for num_threads(threads)                                  \
    schedule(dynamic, 64) if (threads > 1)
  for (int64_t v = 0; v < M; ++v) sl__dyn_reduce_voxel(&w, v);
  c->out_rows = M;
  sl__dyn_free(&w);
  return SL_STATUS_OK;
}

sl_status sl_dynamic_scatter_cpu_serial(sl_ctx *ctx, sl_call *c) {
  return sl__dynamic_scatter_body(ctx, c, 1);
}

sl_status sl_dynamic_scatter_cpu_omp(sl_ctx *ctx, sl_call *c) {
  return sl__dynamic_scatter_body(ctx, c, sl__threads(ctx));
}
