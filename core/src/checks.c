/* Validation helpers shared by the ops' infer functions: each failure
 * names the argument, what was expected and what was found (sl.h). */
#include <stdio.h>

#include <string.h>

#include "sl_internal.h"
#include "walk.h"

sl_status sl__check_input(sl_ctx *ctx, const sl_call *c, int slot) {
  return sl_tensor_check(ctx, sl_op_get(c->op)->arg_names[slot], &c->arg[slot]);
}

sl_status sl__check_index_dtype(sl_ctx *ctx, const char *what,
                                const sl_tensor *index) {
  if (index->dtype == SL_I32 || index->dtype == SL_I64) return SL_STATUS_OK;
  return sl_ctx_fail(ctx, SL_STATUS_INDEX_DTYPE,
                     "%s: expected dtype i32 or i64, got %s", what,
                     sl_dtype_name(index->dtype));
}

sl_status sl__check_rank_of_x(sl_ctx *ctx, const char *what, const sl_tensor *t,
                              const sl_tensor *x) {
  if ((t->ndim ? t->ndim : 1) == (x->ndim ? x->ndim : 1)) return SL_STATUS_OK;
  char a[160], b[160];
  return sl_ctx_fail(ctx, SL_STATUS_RANK_MISMATCH,
                     "%s: expected rank %d (the rank of x %s), got rank %d %s",
                     what, x->ndim,
                     sl_shape_str(x->ndim, x->shape, a, sizeof a), t->ndim,
                     sl_shape_str(t->ndim, t->shape, b, sizeof b));
}

sl_status sl__check_index_fits(sl_ctx *ctx, const sl_tensor *index,
                               const char *name, const sl_tensor *t, int k) {
  /* A rank-0 tensor counts as one element of extent 1, as in LibTorch. */
  int64_t ie = index->ndim ? index->shape[k] : 1;
  int64_t te = t->ndim ? t->shape[k] : 1;
  if (ie <= te) return SL_STATUS_OK;
  char a[160], b[160];
  return sl_ctx_fail(ctx, SL_STATUS_SHAPE_MISMATCH,
                     "index: expected size <= %lld in dim %d (%s is %s), got "
                     "%s",
                     (long long)te, k, name,
                     sl_shape_str(t->ndim, t->shape, a, sizeof a),
                     sl_shape_str(index->ndim, index->shape, b, sizeof b));
}

sl_status sl__check_index_like_x(sl_ctx *ctx, const sl_tensor *index,
                                 const sl_tensor *x, int64_t dim) {
  sl_status st = sl__check_index_dtype(ctx, "index", index);
  if (st) return st;
  st = sl__check_rank_of_x(ctx, "index", index, x);
  for (int k = 0; !st && k < (index->ndim ? index->ndim : 1); ++k)
    if (k != dim) st = sl__check_index_fits(ctx, index, "x", x, k);
  return st;
}

sl_status sl__check_feats_like(sl_ctx *ctx, const sl_call *c, const char *what,
                               const char *layout, const sl_tensor *t) {
  char a[160];
  if (t->ndim != 2)
    return sl_ctx_fail(ctx, SL_STATUS_RANK_MISMATCH,
                       "%s: expected rank 2 %s, got rank %d %s", what, layout,
                       t->ndim, sl_shape_str(t->ndim, t->shape, a, sizeof a));
  return sl__check_op_dtype(ctx, c->op, c->p.reduce, what, t->dtype);
}

sl_status sl__normalize_dim(sl_ctx *ctx, const char *what, int64_t dim,
                            int ndim, int64_t *out) {
  int64_t n = ndim > 0 ? ndim : 1; /* a scalar behaves as rank 1 for dims */
  if (dim < -n || dim >= n)
    return sl_ctx_fail(ctx, SL_STATUS_DIM_OUT_OF_RANGE,
                       "%s: expected a value in [%lld,%lld] for a rank-%d "
                       "tensor, got %lld",
                       what, (long long)-n, (long long)(n - 1), ndim,
                       (long long)dim);
  *out = dim < 0 ? dim + n : dim;
  return SL_STATUS_OK;
}

/* Whether any of the n values of index at off, off + step, ... lies
 * outside [0, bound): unsigned compares catch negative values too, and an
 * i32 bound above INT32_MAX leaves only the negative values bad. */
SL__ALWAYS_INLINE int sl__row_has_bad(const sl_tensor *index, int64_t off,
                                      int64_t step, int64_t n, int64_t bound) {
  int bad = 0;
  if (index->dtype == SL_I32) {
    const uint32_t *v = (const uint32_t *)index->data + off;
    const uint32_t ub = bound > INT32_MAX ? 0x80000000u : (uint32_t)bound;
    for (int64_t j = 0; j < n; ++j) bad |= v[j * step] >= ub;
  } else {
    const uint64_t *v = (const uint64_t *)index->data + off;
    for (int64_t j = 0; j < n; ++j) bad |= v[j * step] >= (uint64_t)bound;
  }
  return bad;
}

/* The first row-major position in [b, e) of index whose value lies
 * outside [0, bound), or -1. Walks the rows with an odometer (no division
 * per element); a contiguous index is a plain loop. */
SL__SIMD_CLONES int64_t sl__index_first_bad(const sl_tensor *index, int64_t b,
                                            int64_t e, int64_t bound) {
  if (sl_tensor_is_contiguous(index)) {
    /* Blocks without an early exit, which the compiler vectorizes; the
     * block holding a bad value is then searched. */
    enum { BLOCK = SL__TH_INDEX_BLOCK };
    for (int64_t at = b; at < e; at += BLOCK) {
      int64_t stop = e - at < BLOCK ? e : at + BLOCK;
      int bad = sl__row_has_bad(index, at, 1, stop - at, bound);
      if (!bad) continue;
      for (int64_t i = at; i < stop; ++i) {
        int64_t v = sl__load_index(index, i);
        if (v < 0 || v >= bound) return i;
      }
    }
    return -1;
  }
  /* Row by row (walk.h: extent-1 axes dropped, adjacent ones merged): a
   * strided row is one loop without an early exit, as a contiguous block
   * is; one element at a time with an odometer's carry each checked a
   * strided i64 index at 1 ns an element. */
  const int64_t *st[1] = {index->strides};
  sl__walk w;
  sl__walk_init(&w, index->ndim, index->shape, 1, st, b);
  for (int64_t at = b, n; at < e; at += n, sl__walk_next(&w)) {
    n = sl__walk_span(&w, e - at);
    const int64_t off = sl__walk_at(&w, 0), step = sl__walk_step(&w, 0);
    if (sl__row_has_bad(index, off, step, n, bound))
      for (int64_t q = 0; q < n; ++q) {
        const int64_t v = sl__load_index(index, off + q * step);
        if (v < 0 || v >= bound) return at + q;
      }
  }
  return -1;
}

sl_status sl__check_index_range(sl_ctx *ctx, sl__infer_mode mode,
                                const char *what, const sl_tensor *index,
                                int64_t bound, int64_t dim,
                                const sl_tensor *x) {
  if (index->device != SL_DEVICE_CPU || mode == SL__INFER_SHAPES)
    return SL_STATUS_OK;
  return sl__check_index_values(ctx, what, index, bound, dim, x);
}

/* The first position of index (in its own row-major order) whose value
 * lies outside [0, bound), or -1; large indices are checked in parallel
 * chunks, and the smallest position wins whatever the split. */
static int64_t sl__first_bad_parallel(const sl_tensor *index, int64_t bound,
                                      int parts) {
  const int64_t n = sl__numel(index);
  int64_t bad = INT64_MIN; /* -position of the first bad value, if any */
#pragma omp parallel for num_threads(parts) schedule(static) if (parts > 1)    \
    reduction(max                                                              \
              : bad)
  for (int t = 0; t < parts; ++t) {
    int64_t first = sl__index_first_bad(
        index, n / parts * t, t + 1 < parts ? n / parts * (t + 1) : n, bound);
    /* max over -position: the smallest position wins. */
    if (first >= 0 && -first > bad) bad = -first;
  }
  return bad == INT64_MIN ? -1 : -bad;
}

/* Threads for a scan of index: one under SL__TH_PARALLEL_CHECK values. */
static int sl__check_parts(const sl_ctx *ctx, const sl_tensor *index) {
  return sl__numel(index) >= SL__TH_PARALLEL_CHECK ? sl__threads(ctx) : 1;
}

int sl__index_any_bad(const sl_ctx *ctx, const sl_tensor *index,
                      int64_t bound) {
  /* Read in memory order: in row-major order a column-major index costs a
   * cache line (and a page) an element. */
  sl_tensor in_memory = *index; /* a transposed index reads contiguously */
  sl__memory_order(1, &in_memory);
  /* A broadcast index repeats its values along its stride-0 axes: each is
   * read once (an i64 index broadcast to 11 million positions for an i8
   * gather took as long to check as the gather took). */
  for (int d = 0; d < in_memory.ndim; ++d)
    if (in_memory.strides[d] == 0 && in_memory.shape[d] > 1)
      in_memory.shape[d] = 1; /* an empty index stays empty */
  return sl__first_bad_parallel(&in_memory, bound,
                                sl__check_parts(ctx, index)) >= 0;
}

sl_status sl__check_index_values(sl_ctx *ctx, const char *what,
                                 const sl_tensor *index, int64_t bound,
                                 int64_t dim, const sl_tensor *x) {
  if (!sl__index_any_bad(ctx, index, bound)) return SL_STATUS_OK;
  /* Only a bad value needs the row-major walk, for the first position. */
  const int64_t at =
      sl__first_bad_parallel(index, bound, sl__check_parts(ctx, index));
  return sl__index_out_of_range(ctx, what, index, at, bound, dim, x);
}

sl_status sl__index_out_of_range(sl_ctx *ctx, const char *what,
                                 const sl_tensor *index, int64_t at,
                                 int64_t bound, int64_t dim,
                                 const sl_tensor *x) {
  int64_t idx[SL_MAX_DIMS];
  int64_t v = sl__load_index(index, sl__offset_linear(index, at));
  char pos[160], xs[160];
  size_t k = 0;
  sl__unravel(at, index->ndim, index->shape, idx);
  pos[0] = '\0';
  for (int d = 0; d < index->ndim && k < sizeof pos; ++d)
    k += (size_t)snprintf(pos + k, sizeof pos - k, d ? ",%lld" : "%lld",
                          (long long)idx[d]);
  return sl_ctx_fail(ctx, SL_STATUS_INDEX_OUT_OF_RANGE,
                     "%s[%s]=%lld out of range [0,%lld) for dim %lld of x %s",
                     what, pos, (long long)v, (long long)bound, (long long)dim,
                     sl_shape_str(x->ndim, x->shape, xs, sizeof xs));
}

static const char *sl__reduce_name_at(int i) {
  return sl_reduce_name((sl_reduce)i);
}
static const char *sl__dtype_name_at(int i) {
  return sl_dtype_name((sl_dtype)i);
}

/* The names of mask's set bits below count, comma-separated, into list. */
static void sl__name_list(char *list, size_t size, unsigned mask, int count,
                          const char *(*name)(int)) {
  size_t k = 0;
  list[0] = '\0';
  for (int i = 0; i < count && k < size; ++i)
    if (mask & (1u << i))
      k += (size_t)snprintf(list + k, size - k, k ? ", %s" : "%s", name(i));
}

sl_status sl__check_reduce(sl_ctx *ctx, sl_reduce r, unsigned allowed) {
  if ((unsigned)r < SL_REDUCE_COUNT && (allowed & (1u << r)))
    return SL_STATUS_OK;
  char list[160];
  sl__name_list(list, sizeof list, allowed, SL_REDUCE_COUNT,
                sl__reduce_name_at);
  if ((unsigned)r < SL_REDUCE_COUNT)
    return sl_ctx_fail(ctx, SL_STATUS_UNKNOWN_REDUCE,
                       "reduce: expected one of {%s}, got %s", list,
                       sl_reduce_name(r));
  return sl_ctx_fail(ctx, SL_STATUS_UNKNOWN_REDUCE,
                     "reduce: expected one of {%s}, got code %d", list, (int)r);
}

sl_status sl__check_op_dtype(sl_ctx *ctx, sl_op op, sl_reduce r,
                             const char *what, sl_dtype dt) {
  const sl_op_info *info = sl_op_get(op);
  unsigned set = sl__op_dtype_set(info, r);
  if ((unsigned)dt < SL_DTYPE_COUNT && (set & (1u << dt))) return SL_STATUS_OK;
  char list[160], note[160] = "", kind[64] = "";
  sl__name_list(list, sizeof list, set, SL_DTYPE_COUNT, sl__dtype_name_at);
  if (info->dtypes_note)
    snprintf(note, sizeof note, " (%s)", info->dtypes_note);
  /* Name the reduce where the set depends on it (scatter_nd, index_reduce). */
  if (info->data_dtypes[0] != info->data_dtypes[1])
    snprintf(kind, sizeof kind, " for reduce %s", sl_reduce_name(r));
  return sl_ctx_fail(ctx, SL_STATUS_UNSUPPORTED_DTYPE,
                     "%s: expected one of %s%s%s, got %s", what, list, note,
                     kind, sl_dtype_name(dt));
}

void sl__set_out(sl_tensor *out, sl_dtype dt, int ndim, const int64_t *shape) {
  out->dtype = dt;
  out->ndim = ndim;
  for (int d = 0; d < ndim; ++d) out->shape[d] = shape[d];
  for (int d = ndim; d < SL_MAX_DIMS; ++d) out->shape[d] = 0;
  sl_contiguous_strides(ndim, out->shape, out->strides);
}
