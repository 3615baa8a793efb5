/*
 * The reference of scatter_nd (docs/spec.md §1): LibTorch's index_put over
 * gather_nd's index tuple (ref_gather_nd.cpp).
 */
#include "ref_internal.h"

slref_tensors slref_scatter_nd(const sl_call &call) {
  at::Tensor x = slref_arg(call, 0), index = slref_index_arg(call, 1);
  at::Tensor src = slref_arg(call, 2);
  c10::List<c10::optional<at::Tensor>> tuple = slref_nd_index(call, x, index);
  /* index_put broadcasts src; the contract wants src's shape exactly. */
  at::IntArrayRef want = index.sizes().slice(0, index.dim() - 1);
  if (src.sizes() != want)
    throw slref_reject(slref_fmt(
        "scatter_nd: src must have shape index.shape[:-1] = %s, got %s",
        slref_shape(want).c_str(), slref_shape(src).c_str()));
  bool accumulate;
  switch (call.p.reduce) {
  case SL_REDUCE_NONE:
    accumulate = false;
    break;
  case SL_REDUCE_SUM:
    accumulate = true;
    break;
  default:
    throw slref_reject(slref_fmt("scatter_nd: reduce must be none or sum, "
                                 "got %s",
                                 sl_reduce_name(call.p.reduce)));
  }
  if (x.dim() == 0) {
    if (src.scalar_type() != x.scalar_type())
      throw slref_reject(slref_fmt("scatter_nd: src dtype %s differs from "
                                   "x's %s",
                                   slref_dtype_name(src), slref_dtype_name(x)));
    return {accumulate ? x + src : src.clone()};
  }
  return {at::index_put(x, tuple, src, accumulate)};
}
