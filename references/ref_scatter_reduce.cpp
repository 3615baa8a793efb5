/*
 * The references of scatter_reduce and its backward (docs/spec.md §1).
 */
#include "ref_internal.h"

/*
 * The reduce goes by its name, so that LibTorch's own check rejects what it
 * does not know ("none"). LibTorch 2.11 also takes "max" (as amax), which
 * neither its documentation nor the op's contract (sum, prod, mean, amax,
 * amin) lists and 1.13 refused; the shim refuses every name outside the
 * contract itself, in 1.13's words (docs/reference-differences.md).
 */
static const char *slref_scatter_reduce_name(sl_reduce r) {
  switch (r) {
  case SL_REDUCE_SUM:
  case SL_REDUCE_PROD:
  case SL_REDUCE_MEAN:
  case SL_REDUCE_AMAX:
  case SL_REDUCE_AMIN:
  case SL_REDUCE_NONE:
    return sl_reduce_name(r);
  default:
    throw slref_reject(slref_fmt("reduce argument must be either sum, prod, "
                                 "mean, amax or amin, got %s",
                                 sl_reduce_name(r)));
  }
}

slref_tensors slref_scatter_reduce(const sl_call &call) {
  at::Tensor x = slref_arg(call, 0), index = slref_index_arg(call, 1);
  at::Tensor src = slref_arg(call, 2);
  return {x.scatter_reduce(call.p.dim, index, src,
                           slref_scatter_reduce_name(call.p.reduce),
                           call.p.include_self != 0)};
}

slref_tensors slref_scatter_reduce_backward(const sl_call &call) {
  /* grad_out x index src result: result is not needed, autograd recomputes
   * the forward. */
  at::Tensor grad_out = slref_arg(call, 0), x = slref_arg(call, 1);
  at::Tensor index = slref_index_arg(call, 2), src = slref_arg(call, 3);
  const sl_params &p = call.p;
  return slref_autograd(
      grad_out, x, src, [&](const at::Tensor &xl, const at::Tensor &sl) {
        return xl.scatter_reduce(p.dim, index, sl,
                                 slref_scatter_reduce_name(p.reduce),
                                 p.include_self != 0);
      });
}
