/*
 * scatter_reduce_backward: the gradients of scatter_reduce(x, dim, index,
 * src, reduce, include_self) = result, given grad_out, as LibTorch 1.13's
 * autograd computes them (scatter_reduce_backward in FunctionsManual.cpp;
 * the formulas are in reduce.h above sl__rbline).
 *
 * Slots: grad_out x index src result | grad_x grad_src.
 * Shape contract: x, index, src, dim and reduce as scatter_reduce's; x is
 * f16, bf16, f32 or f64 (only floating tensors have gradients); src has
 * index's shape (LibTorch's gradient of a src larger than index is either
 * an error, for sum and mean, or broadcast garbage, so it is refused);
 * grad_out and result have x's shape and dtype. grad_x has x's shape,
 * grad_src src's.
 *
 * Duplicate indices: each src element gets its own gradient; for amax/amin
 * the gradient of a position is shared evenly among the values equal to the
 * result (x among them even when include_self is false, as in 1.13).
 */
#include "reduce.h"

sl_status sl__scatter_reduce_backward_infer(sl_ctx *ctx, sl_call *c,
                                            sl__infer_mode mode) {
  const sl_tensor *x = &c->arg[1], *index = &c->arg[2], *src = &c->arg[3];
  char a[160], b[160];
  /* scatter's rules on a forward call x index src | out. */
  sl_call f;
  sl_call_init(&f, SL_OP_SCATTER_REDUCE);
  f.arg[0] = *x;
  f.arg[1] = *index;
  f.arg[2] = *src;
  f.p = c->p;
  sl_status st = sl__scatter_like_infer(ctx, &f, 1);
  if (st) return st;
  st = sl__check_reduce(ctx, c->p.reduce, SL__REDUCES_SCATTER);
  if (st) return st;
  st = sl__check_op_dtype(ctx, c->op, c->p.reduce, "x", x->dtype);
  if (st) return st;
  int same = src->ndim == index->ndim;
  for (int d = 0; same && d < src->ndim; ++d)
    same = src->shape[d] == index->shape[d];
  if (!same)
    return sl_ctx_fail(ctx, SL_STATUS_SHAPE_MISMATCH,
                       "src: expected shape %s (the shape of index; LibTorch "
                       "has no gradient for a larger src), got %s",
                       sl_shape_str(index->ndim, index->shape, a, sizeof a),
                       sl_shape_str(src->ndim, src->shape, b, sizeof b));
  st = sl__check_like_x(ctx, "grad_out", &c->arg[0], x);
  if (st) return st;
  st = sl__check_like_x(ctx, "result", &c->arg[4], x);
  if (st) return st;
  st = sl__scatter_like_index(ctx, &f, mode, -1);
  if (st) return st;
  c->p.dim = f.p.dim;
  sl__set_out(&c->arg[5], x->dtype, x->ndim, x->shape);
  sl__set_out(&c->arg[6], src->dtype, src->ndim, src->shape);
  return SL_STATUS_OK;
}
