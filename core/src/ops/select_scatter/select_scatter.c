/*
 * select_scatter (seed 002): out = copy of x with the slice
 * x.select(dim, index) replaced by value.
 *
 * Shape contract (LibTorch's torch::select_scatter): x has rank K >= 1
 * (select() cannot be applied to a 0-dim tensor); dim (p.dim) in [-K, K);
 * the integer index (p.index) in [-x.size(dim), x.size(dim)), a negative one
 * counting from the end; value has exactly the slice's shape, x's shape
 * without axis dim (no broadcast, no extra size-1 axis), and x's dtype
 * (LibTorch would cast another dtype; the contract asks for the same one);
 * out has x's shape and dtype. No element is written twice, so there are no
 * duplicates. The normalized dim and index are written back into c->p.
 */
#include <stdio.h>

#include "sl_internal.h"

sl_status sl__select_scatter_infer(sl_ctx *ctx, sl_call *c,
                                   sl__infer_mode mode) {
  (void)mode; /* no index values to check */
  const sl_tensor *x = &c->arg[0], *value = &c->arg[1];
  char a[160], b[160], e[160];
  if (x->ndim == 0)
    return sl_ctx_fail(ctx, SL_STATUS_DIM_OUT_OF_RANGE,
                       "dim: expected an axis of x, got dim %lld of the "
                       "rank-0 x [] (select() cannot be applied to a 0-dim "
                       "tensor)",
                       (long long)c->p.dim);
  int64_t dim;
  sl_status st = sl__normalize_dim(ctx, "dim", c->p.dim, x->ndim, &dim);
  if (st) return st;
  int64_t size = x->shape[dim], index = c->p.index;
  if (index < -size || index >= size)
    return sl_ctx_fail(ctx, SL_STATUS_INDEX_OUT_OF_RANGE,
                       "index: expected a value in [%lld,%lld) for dim %lld "
                       "of x %s, got %lld",
                       (long long)-size, (long long)size, (long long)dim,
                       sl_shape_str(x->ndim, x->shape, a, sizeof a),
                       (long long)index);
  if (value->dtype != x->dtype)
    return sl_ctx_fail(ctx, SL_STATUS_UNSUPPORTED_DTYPE,
                       "value: expected dtype %s (the dtype of x), got %s",
                       sl_dtype_name(x->dtype), sl_dtype_name(value->dtype));
  /* The slice's shape: x's without axis dim. */
  int64_t slice[SL_MAX_DIMS];
  for (int d = 0, j = 0; d < x->ndim; ++d)
    if (d != dim) slice[j++] = x->shape[d];
  int same = value->ndim == x->ndim - 1;
  for (int d = 0; same && d < value->ndim; ++d)
    same = value->shape[d] == slice[d];
  if (!same)
    return sl_ctx_fail(ctx, SL_STATUS_SHAPE_MISMATCH,
                       "value: expected shape %s (x %s without dim %lld), "
                       "got %s",
                       sl_shape_str(x->ndim - 1, slice, a, sizeof a),
                       sl_shape_str(x->ndim, x->shape, b, sizeof b),
                       (long long)dim,
                       sl_shape_str(value->ndim, value->shape, e, sizeof e));
  c->p.dim = dim;
  c->p.index = index < 0 ? index + size : index;
  sl__set_out(&c->arg[2], x->dtype, x->ndim, x->shape);
  return SL_STATUS_OK;
}
