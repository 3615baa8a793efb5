/*
 * scatter: out = copy of x; out[i with i_dim := index[i]] = src[i] (or the
 * scalar value) for every position i of index.
 *
 * Shape contract (LibTorch's): x, index and src have the same rank (rank 0
 * counts as 1); index.size(k) <= src.size(k) for every k and
 * index.size(k) <= x.size(k) for k != dim; src has x's dtype; index values in
 * [0, x.size(dim)). out has x's shape and dtype.
 *
 * Duplicate indices: several positions of index may name the same element of
 * out. cpu.serial writes in row-major order of index, so the last one wins
 * (as LibTorch CPU does); cpu.omp owns whole lines along dim per thread and
 * keeps that order, so it gives the same answer.
 */

#include "sl_internal.h"

/* The shape rules shared by scatter and scatter_reduce. */
sl_status sl__scatter_like_infer(sl_ctx *ctx, sl_call *c, int has_src) {
  const sl_tensor *x = &c->arg[0], *index = &c->arg[1], *src = &c->arg[2];
  char a[160], b[160];
  sl_status st;
  if (has_src && src->dtype != x->dtype)
    return sl_ctx_fail(ctx, SL_STATUS_UNSUPPORTED_DTYPE,
                       "src: expected dtype %s (the dtype of x), got %s",
                       sl_dtype_name(x->dtype), sl_dtype_name(src->dtype));
  int64_t dim;
  st = sl__normalize_dim(ctx, "dim", c->p.dim, x->ndim, &dim);
  if (st) return st;
  c->p.dim = dim;
  sl__set_out(&c->arg[3], x->dtype, x->ndim, x->shape);
  /* LibTorch checks nothing of an empty index (not its rank, shape or
   * dtype): there is nothing to scatter, out is x. */
  if (sl__numel(index) == 0) return SL_STATUS_OK;
  st = sl__check_index_dtype(ctx, "index", index);
  if (st) return st;
  int xr = x->ndim ? x->ndim : 1, ir = index->ndim ? index->ndim : 1;
  if (xr != ir)
    return sl_ctx_fail(ctx, SL_STATUS_RANK_MISMATCH,
                       "index: expected rank %d (the rank of x %s), got rank "
                       "%d %s",
                       x->ndim, sl_shape_str(x->ndim, x->shape, a, sizeof a),
                       index->ndim,
                       sl_shape_str(index->ndim, index->shape, b, sizeof b));
  if (has_src) {
    int sr = src->ndim ? src->ndim : 1;
    if (sr != xr)
      return sl_ctx_fail(ctx, SL_STATUS_RANK_MISMATCH,
                         "src: expected rank %d (the rank of x %s), got rank "
                         "%d %s",
                         x->ndim, sl_shape_str(x->ndim, x->shape, a, sizeof a),
                         src->ndim,
                         sl_shape_str(src->ndim, src->shape, b, sizeof b));
  }
  /* A rank-0 tensor counts as one element of extent 1, as in LibTorch. */
  for (int k = 0; k < ir; ++k) {
    int64_t ie = index->ndim ? index->shape[k] : 1;
    int64_t se = has_src && src->ndim ? src->shape[k] : 1;
    int64_t xe = x->ndim ? x->shape[k] : 1;
    if (has_src && ie > se)
      return sl_ctx_fail(ctx, SL_STATUS_SHAPE_MISMATCH,
                         "index: expected size <= %lld in dim %d (src is %s), "
                         "got %s",
                         (long long)se, k,
                         sl_shape_str(src->ndim, src->shape, a, sizeof a),
                         sl_shape_str(index->ndim, index->shape, b, sizeof b));
    if (k != dim && ie > xe)
      return sl_ctx_fail(ctx, SL_STATUS_SHAPE_MISMATCH,
                         "index: expected size <= %lld in dim %d (x is %s), "
                         "got %s",
                         (long long)xe, k,
                         sl_shape_str(x->ndim, x->shape, a, sizeof a),
                         sl_shape_str(index->ndim, index->shape, b, sizeof b));
  }
  return SL_STATUS_OK;
}

sl_status sl__scatter_like_index(sl_ctx *ctx, const sl_call *c, int now,
                                 int64_t bad) {
  const sl_tensor *x = &c->arg[0], *index = &c->arg[1];
  if (sl__numel(index) == 0) return SL_STATUS_OK;
  const int64_t bound = x->ndim ? x->shape[c->p.dim] : 1, dim = c->p.dim;
  if (bad >= 0)
    return sl__index_out_of_range(ctx, "index", index, bad, bound, dim, x);
  if (now) return sl__check_index_values(ctx, "index", index, bound, dim, x);
  return sl__check_index_range(ctx, "index", index, bound, dim, x);
}

sl_status sl__scatter_infer(sl_ctx *ctx, sl_call *c) {
  sl_status st = sl__scatter_like_infer(ctx, c, !c->p.has_value);
  if (st) return st;
  return sl__scatter_like_index(ctx, c, 0, -1);
}
