/*
 * scatter_reduce: out = copy of x; for every position i of index,
 * out[i with i_dim := index[i]] = out[...] ⊕ src[i], ⊕ one of sum, prod,
 * mean, amax, amin (LibTorch's Tensor::scatter_reduce).
 *
 * Shape contract: scatter's (x, index and src of one rank, rank 0 counting
 * as 1; index.size(k) <= src.size(k) for every k and <= x.size(k) for
 * k != dim; src has x's dtype; index values in [0, x.size(dim))). x's dtype
 * is one of the reduction group: i32, i64, f16, bf16, f32, f64. out has x's
 * shape and dtype.
 *
 * include_self = false: every targeted position starts from the reduce's
 * identity instead of x (sum/mean 0, prod 1, amax -inf or the lowest
 * integer, amin +inf or the highest); untargeted positions keep x. mean
 * divides by the number of contributions, x counting as one when included.
 *
 * Duplicate indices are the point of the op: contributions to one element
 * are combined in row-major order of index (all come from one line along
 * dim), in every variant here. The float sums therefore round exactly as
 * LibTorch's CPU loop; see reduce.h for NaN and -0.0.
 */
#include "reduce.h"

sl_status sl__scatter_reduce_infer(sl_ctx *ctx, sl_call *c,
                                   sl__infer_mode mode) {
  sl_status st = sl__scatter_like_infer(ctx, c, 1);
  if (st) return st;
  st = sl__check_reduce(ctx, c->p.reduce, SL__REDUCES_SCATTER);
  if (st) return st;
  st = sl__check_op_dtype(ctx, c->op, c->p.reduce, "x", c->arg[0].dtype);
  if (st) return st;
  return sl__scatter_like_index(ctx, c, mode, -1);
}
