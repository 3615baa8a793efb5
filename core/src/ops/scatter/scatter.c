/*
 * scatter: out = copy of x; out[i with i_dim := index[i]] = src[i] (or the
 * scalar value) for every position i of index.
 *
 * Shape contract (LibTorch's): x, index and src have the same rank (rank 0
 * counts as 1); index.size(k) <= src.size(k) for every k and
 * index.size(k) <= x.size(k) for k != dim; src has x's dtype; index values in
 * [0, x.size(dim)). out has x's shape and dtype. The scalar form takes a
 * value that x's dtype can hold (scalar.c has the rule per dtype).
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
  st = sl__check_index_like_x(ctx, index, x, dim);
  if (st) return st;
  if (!has_src) return SL_STATUS_OK;
  st = sl__check_rank_of_x(ctx, "src", src, x);
  /* Rank 0 counts as 1; index has x's rank, checked above. */
  for (int k = 0; !st && k < (x->ndim ? x->ndim : 1); ++k)
    st = sl__check_index_fits(ctx, index, "src", src, k);
  return st;
}

sl_status sl__scatter_like_index(sl_ctx *ctx, const sl_call *c,
                                 sl__infer_mode mode, int64_t bad) {
  const sl_tensor *x = &c->arg[0], *index = &c->arg[1];
  if (sl__numel(index) == 0) return SL_STATUS_OK;
  const int64_t bound = x->ndim ? x->shape[c->p.dim] : 1, dim = c->p.dim;
  if (bad >= 0)
    return sl__index_out_of_range(ctx, "index", index, bad, bound, dim, x);
  return sl__check_index_range(ctx, mode, "index", index, bound, dim, x);
}

sl_status sl__scatter_infer(sl_ctx *ctx, sl_call *c, sl__infer_mode mode) {
  sl_status st = sl__scatter_like_infer(ctx, c, !c->p.has_value);
  if (st) return st;
  /* LibTorch converts the scalar only when there is something to scatter:
   * an empty index takes any value, as it takes any shape. */
  if (c->p.has_value && sl__numel(&c->arg[1]) > 0) {
    st = sl__check_scalar(ctx, "value", c->arg[0].dtype, &c->p);
    if (st) return st;
  }
  return sl__scatter_like_index(ctx, c, mode, -1);
}
