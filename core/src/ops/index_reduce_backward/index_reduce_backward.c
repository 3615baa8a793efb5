/*
 * index_reduce_backward: the gradients of index_reduce(x, dim, index,
 * updates, reduce, include_self) = result, given grad_out, as LibTorch 1.13's
 * autograd gives them for the reference's formulation: index_copy (assign),
 * index_add after index_fill(0) (sum), index_reduce (prod, mean, amax,
 * amin; seed 001's backward). The formulas are in reduce.h above
 * sl__rbline, with index_select for gather and index_add for scatter_add.
 *
 * Slots: grad_out x index updates result | grad_x grad_updates.
 * Shape contract: x, index, updates, dim and reduce as index_reduce's; x is
 * f16, bf16, f32 or f64 (a 0-D x is one element along the axis, as in the
 * forward; LibTorch 1.13's autograd refused the mean of one, until the
 * reference reduced into a [1] view); grad_out and result have x's shape
 * and dtype.
 * grad_x has x's shape, grad_updates updates' (the slice for a 0-D index).
 *
 * Duplicate indices: every update gets its own gradient; with assign every
 * duplicate gets the gradient of its target (index_copy's backward is
 * grad.index_select, not only the winner's), and grad_x is 0 there.
 */
#include "reduce.h"

sl_status sl__index_reduce_backward_infer(sl_ctx *ctx, sl_call *c,
                                          sl__infer_mode mode) {
  const sl_tensor *x = &c->arg[1], *updates = &c->arg[3];
  int64_t dim = c->p.dim;
  sl_status st = sl__index_reduce_check(
      ctx, x, &c->arg[2], updates, c->p.reduce, SL__REDUCES_INDEX, mode, &dim);
  if (st) return st;
  st = sl__check_op_dtype(ctx, c->op, c->p.reduce, "x", x->dtype);
  if (st) return st;
  st = sl__check_like_x(ctx, "grad_out", &c->arg[0], x);
  if (st) return st;
  st = sl__check_like_x(ctx, "result", &c->arg[4], x);
  if (st) return st;
  c->p.dim = dim;
  sl__set_out(&c->arg[5], x->dtype, x->ndim, x->shape);
  sl__set_out(&c->arg[6], updates->dtype, updates->ndim, updates->shape);
  return SL_STATUS_OK;
}
