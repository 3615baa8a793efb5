/*
 * scatter_nd on the CPU.
 *
 * Positions of index.shape[:-1] are grouped by their coordinates on the
 * axes that dims does not name: those coordinates are kept in the target,
 * so two positions of different groups never write the same element. All
 * writers of an element therefore sit in one group, and a group is walked
 * in row-major order of its positions: each element sees its writes in
 * row-major order of index, whichever thread runs the group. When there are
 * fewer groups than threads (e.g. every axis indexed), each thread instead
 * owns a range of out's row-major positions and scans every group, writing
 * only the targets in its range; the order per element is the same again.
 * Both ways give bitwise the serial answer, duplicates and sums included.
 *
 * f16/bf16 sums accumulate in f32 (sl__acc_dtype): a float accumulator per
 * element of out starts at x's value on the element's first contribution, takes
 * the contributions in order, and is rounded to the half type once at the end.
 * (Rounding after every step would be LibTorch's own f16 loop, under which
 * 4096 ones sum to 2048.)
 */
#include <stdlib.h>

#include "half_wide.h"
#include "ops/gather_nd/nd_index.h"
#include "reduce_rows.h"
#include "scatter_nd_split.h"
#include "walk.h"

/* How positions split into groups (non-indexed axes) and members (indexed
 * axes, among the K axes of index.shape[:-1]), and the f32 accumulators of
 * a half-precision sum. */
typedef struct sl__nd_plan {
  int n_free, n_idx;
  int free_ax[SL_MAX_DIMS], idx_ax[SL_MAX_DIMS];
  int64_t groups, members;
  int64_t row[SL_MAX_DIMS]; /* row-major strides of out's shape */
  float *acc;               /* per row-major element of out, or NULL */
  unsigned char *touched;   /* acc[r] holds a value */
} sl__nd_plan;

static int sl__nd_half_sum(const sl_call *c) {
  sl_dtype dt = c->arg[3].dtype;
  return c->p.reduce == SL_REDUCE_SUM && (dt == SL_F16 || dt == SL_BF16);
}

/* Fills the plan; OUT_OF_MEMORY when the accumulators cannot be had. */
static sl_status sl__nd_plan_make(sl_ctx *ctx, const sl_call *c,
                                  sl__nd_plan *pl) {
  const sl_tensor *index = &c->arg[1], *out = &c->arg[3];
  int K = index->ndim - 1;
  int indexed[SL_MAX_DIMS] = {0};
  for (int k = 0; k < c->p.ndims; ++k) indexed[c->p.dims[k]] = 1;
  pl->n_free = pl->n_idx = 0;
  pl->groups = pl->members = 1;
  for (int d = 0; d < K; ++d) {
    if (indexed[d]) {
      pl->idx_ax[pl->n_idx++] = d;
      pl->members *= index->shape[d];
    } else {
      pl->free_ax[pl->n_free++] = d;
      pl->groups *= index->shape[d];
    }
  }
  sl_contiguous_strides(out->ndim, out->shape, pl->row);
  pl->acc = NULL;
  pl->touched = NULL;
  if (pl->groups * pl->members == 0 || !sl__nd_half_sum(c)) return SL_STATUS_OK;
  size_t n = (size_t)sl__numel(out);
  pl->acc = sl__malloc(n * sizeof *pl->acc);
  pl->touched = sl__calloc(n, 1);
  if (pl->acc && pl->touched) return SL_STATUS_OK;
  sl__free(pl->acc);
  sl__free(pl->touched);
  return sl_ctx_fail(ctx, SL_STATUS_OUT_OF_MEMORY,
                     "scatter_nd: no memory for %zu f32 accumulators", n);
}

/* Writes the coordinates of `linear` over the listed axes into pos. */
static void sl__nd_unravel_axes(int64_t linear, int n, const int *axes,
                                const int64_t *shape, int64_t *pos) {
  for (int j = n - 1; j >= 0; --j) {
    int64_t e = shape[axes[j]];
    pos[axes[j]] = linear % e;
    linear /= e;
  }
}

/* out[t] := src[i] or out[t] += src[i]; `row` is t's row-major position. */
static void sl__scatter_nd_apply(const sl_call *c, const sl__nd_plan *pl,
                                 int64_t row, char *dst, const char *from) {
  sl_dtype dt = c->arg[3].dtype;
  if (c->p.reduce != SL_REDUCE_SUM) {
    sl__copy_elem(dst, from, sl__dtype_size(dt));
  } else if (pl->acc) {
    if (!pl->touched[row]) {
      pl->acc[row] = (float)sl__load_f(dt, dst);
      pl->touched[row] = 1;
    }
    pl->acc[row] += (float)sl__load_f(dt, from);
  } else if (dt == SL_I32 || dt == SL_I64) {
    /* Unsigned addition wraps where signed overflow would be undefined. */
    uint64_t s = (uint64_t)sl__load_i(dt, dst) + (uint64_t)sl__load_i(dt, from);
    sl__store_i(dt, dst, (int64_t)s);
  } else {
    /* f32 and f64: one addition in double rounded to the dtype is the
     * dtype's own addition. */
    sl__store_f(dt, dst, sl__load_f(dt, dst) + sl__load_f(dt, from));
  }
}

/*
 * Scatters the groups [gbegin, gend), writing only the targets whose
 * row-major position in out lies in [lo, hi). Requires groups * members > 0
 * (every extent non-zero).
 */
static void sl__scatter_nd_groups(const sl_call *c, const sl__nd_plan *pl,
                                  int64_t gbegin, int64_t gend, int64_t lo,
                                  int64_t hi) {
  const sl_tensor *index = &c->arg[1], *src = &c->arg[2], *out = &c->arg[3];
  int64_t pos[SL_MAX_DIMS], coord[SL_MAX_DIMS];
  for (int64_t g = gbegin; g < gend; ++g) {
    sl__nd_unravel_axes(g, pl->n_free, pl->free_ax, index->shape, pos);
    for (int64_t m = 0; m < pl->members; ++m) {
      sl__nd_unravel_axes(m, pl->n_idx, pl->idx_ax, index->shape, pos);
      sl__nd_target(index, &c->p, pos, coord);
      int64_t row = 0;
      for (int d = 0; d < out->ndim; ++d) row += coord[d] * pl->row[d];
      if (row < lo || row >= hi) continue;
      sl__scatter_nd_apply(c, pl, row, sl__ptr(out, sl__offset(out, coord)),
                           sl__ptr(src, sl__offset(src, pos)));
    }
  }
}

/* Rounds the f32 accumulators of out's positions [begin, end) into out. */
static void sl__scatter_nd_flush(const sl_call *c, const sl__nd_plan *pl,
                                 int64_t begin, int64_t end) {
  const sl_tensor *out = &c->arg[3];
  for (int64_t r = begin; r < end; ++r)
    if (pl->touched[r])
      sl__store_f(out->dtype, sl__ptr(out, sl__offset_linear(out, r)),
                  pl->acc[r]);
}

static void sl__nd_plan_free(sl__nd_plan *pl) {
  sl__free(pl->acc);
  sl__free(pl->touched);
}

/*
 * f32/f64/i32/i64 (sum or plain writes): the positions walked in row-major
 * order a row at a time with a typed loop (reduce_rows.h), in slabs along
 * axes that dims does not name when there are threads to share (the groups
 * above, cut by sl__slabs_plan). Returns 0 (nothing done) for other dtypes.
 */
/* The row walk of c (out already holding x) with row loop `row`, in slabs
 * when there are threads to share. */
static void sl__nd_walk_rows(const sl_call *c, int threads,
                             sl__reduce_row_fn row) {
  const sl_tensor *index = &c->arg[1], *out = &c->arg[3];
  int K = index->ndim - 1;
  int64_t ost[SL_MAX_DIMS], od[SL_MAX_DIMS];
  sl__scatter_walk s;
  unsigned fixed = sl__scatter_walk_init(&s, c, K, c->p.ndims, c->p.dims,
                                         index->strides[K], ost, od);
  s.row = row;
  sl__slabs sl;
  sl__slabs_plan(&sl, K, index->shape, out, fixed, threads);
  sl__scatter_walk_run(&s, &sl);
}

static int sl__nd_rows(sl_call *c, int threads) {
  const sl_tensor *index = &c->arg[1], *out = &c->arg[3];
  sl__reduce_row_fn row =
      sl__reduce_row_for(out->dtype, c->p.reduce, index->dtype, c->p.ndims);
  if (!row) return 0;
  sl__copy_strided(&c->arg[3], &c->arg[0], threads);
  sl__nd_walk_rows(c, threads, row);
  return 1;
}

/*
 * An f16/bf16 sum with contiguous src and out: out and src widened to f32
 * and summed by the f32 row loop, then rounded back once. Each element
 * takes its contributions in row-major order from x's value, as the
 * per-element path (sl__scatter_nd_groups) does; an untouched one goes
 * back to its half value exactly. That path's loop set-up per element was
 * most of its time: an f16 sum of 198,593 updates ran at 0.5-0.6x
 * LibTorch. Returns 0 having done nothing when the call does not qualify
 * or the f32 copies find no memory.
 */
static int sl__nd_half_rows(sl_call *c, int threads) {
  sl__reduce_row_fn row =
      sl__reduce_row_for(SL_F32, SL_REDUCE_SUM, c->arg[1].dtype, c->p.ndims);
  if (!sl__nd_half_sum(c) || !row) return 0;
  sl_call f;
  float *wide = sl__half_wide_begin(c, &f, threads);
  if (!wide) return 0;
  sl__nd_walk_rows(&f, threads, row);
  sl__half_wide_end(c, wide, threads);
  return 1;
}

sl_status sl_scatter_nd_cpu_serial(sl_ctx *ctx, sl_call *c) {
  if (sl__nd_rows(c, 1) || sl__nd_half_rows(c, 1)) return SL_STATUS_OK;
  sl__nd_plan pl;
  sl_status st = sl__nd_plan_make(ctx, c, &pl);
  if (st) return st;
  sl__copy_strided(&c->arg[3], &c->arg[0], 1);
  if (pl.groups * pl.members == 0) return SL_STATUS_OK;
  sl__scatter_nd_groups(c, &pl, 0, pl.groups, 0, INT64_MAX);
  if (pl.acc) sl__scatter_nd_flush(c, &pl, 0, sl__numel(&c->arg[3]));
  sl__nd_plan_free(&pl);
  return SL_STATUS_OK;
}

/* Checks the index itself (SL_CHECKS_INDEX_VALUES): the split by target
 * (scatter_nd_split.c) checks each value as it files it, before anything
 * is written; every other plan checks the whole index first. */
sl_status sl_scatter_nd_cpu_omp(sl_ctx *ctx, sl_call *c) {
  const int threads = sl__threads(ctx);
  if (sl__scatter_nd_split(c, threads) > 0) return SL_STATUS_OK;
  sl_status st = sl__nd_check_index(ctx, c); /* or report the split's find */
  if (st) return st;
  if (sl__nd_rows(c, threads) || sl__nd_half_rows(c, threads))
    return SL_STATUS_OK;
  sl__nd_plan pl;
  st = sl__nd_plan_make(ctx, c, &pl);
  if (st) return st;
  sl__copy_strided(&c->arg[3], &c->arg[0], threads);
  if (pl.groups * pl.members == 0) return SL_STATUS_OK;
  int64_t n = sl__numel(&c->arg[3]);
  int64_t chunk = (n + threads - 1) / threads;
  if (pl.groups >= threads) {
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int64_t g = 0; g < pl.groups; ++g)
      sl__scatter_nd_groups(c, &pl, g, g + 1, 0, INT64_MAX);
  } else {
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int t = 0; t < threads; ++t) {
      int64_t lo = t * chunk, hi = lo + chunk < n ? lo + chunk : n;
      if (lo < hi) sl__scatter_nd_groups(c, &pl, 0, pl.groups, lo, hi);
    }
  }
  if (pl.acc) {
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int t = 0; t < threads; ++t) {
      int64_t lo = t * chunk, hi = lo + chunk < n ? lo + chunk : n;
      if (lo < hi) sl__scatter_nd_flush(c, &pl, lo, hi);
    }
  }
  sl__nd_plan_free(&pl);
  return SL_STATUS_OK;
}
