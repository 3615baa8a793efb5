/*
 * masked_scatter (seed 003): out = copy of x in which the positions where
 * mask is true, taken in row-major order, receive source's elements in
 * row-major order, one each.
 *
 * Shape contract (LibTorch's Tensor::masked_scatter, narrowed): mask has
 * dtype bool and broadcasts to x's shape with numpy rules (aligned on the
 * trailing axes; each of its extents equals x's or is 1; it may have fewer
 * axes but not more, because out keeps x's shape); source has x's dtype and
 * any shape, with at least as many elements as the mask has true positions
 * after broadcasting (the ones beyond are ignored); out has x's shape and
 * dtype. Every element of out is written once, so there are no duplicates.
 * LibTorch 1.13 also takes a u8 mask (deprecated) and grows x to a larger
 * mask's shape; the contract rejects both (BAD_MASK, SHAPE_MISMATCH).
 */
#include <stdio.h>

#include "ops/masked_scatter/masked_scatter.h"

sl_status sl__masked_scatter_infer(sl_ctx *ctx, sl_call *c,
                                   sl__infer_mode mode) {
  (void)mode; /* no index values to check */
  const sl_tensor *x = &c->arg[0], *mask = &c->arg[1], *source = &c->arg[2];
  char a[160], b[160];
  if (mask->dtype != SL_BOOL)
    return sl_ctx_fail(ctx, SL_STATUS_BAD_MASK,
                       "mask: expected dtype bool, got %s",
                       sl_dtype_name(mask->dtype));
  int fits = mask->ndim <= x->ndim;
  for (int j = 0; fits && j < mask->ndim; ++j) {
    int64_t m = mask->shape[j], e = x->shape[j + x->ndim - mask->ndim];
    fits = m == e || m == 1;
  }
  if (!fits)
    return sl_ctx_fail(ctx, SL_STATUS_BAD_MASK,
                       "mask: expected a shape that broadcasts to x %s "
                       "(out keeps x's shape), got %s",
                       sl_shape_str(x->ndim, x->shape, a, sizeof a),
                       sl_shape_str(mask->ndim, mask->shape, b, sizeof b));
  if (source->dtype != x->dtype)
    return sl_ctx_fail(ctx, SL_STATUS_UNSUPPORTED_DTYPE,
                       "source: expected dtype %s (the dtype of x), got %s",
                       sl_dtype_name(x->dtype), sl_dtype_name(source->dtype));
  if (mask->device == SL_DEVICE_CPU) {
    int64_t ms[SL_MAX_DIMS];
    sl__mask_strides(x, mask, ms);
    int64_t want = sl__mask_count(x, mask, ms, 0, sl__numel(x));
    int64_t have = sl__numel(source);
    if (have < want)
      return sl_ctx_fail(ctx, SL_STATUS_SHAPE_MISMATCH,
                         "source: expected at least %lld elements (the "
                         "mask's true count), got %lld",
                         (long long)want, (long long)have);
  }
  sl__set_out(&c->arg[3], x->dtype, x->ndim, x->shape);
  return SL_STATUS_OK;
}
