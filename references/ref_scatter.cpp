/*
 * The reference of scatter (docs/spec.md §1): LibTorch's scatter, with a
 * tensor src or a scalar value.
 */
#include "ref_internal.h"

/* scatter's scalar in x's kind: integers take the exact int64 ivalue, bool
 * takes value != 0, floats and complex take value. */
static at::Scalar slref_scatter_value(const at::Tensor &x, const sl_params &p) {
  if (x.scalar_type() == at::kBool) return at::Scalar(p.value != 0);
  if (at::isIntegralType(x.scalar_type(), /*includeBool=*/false))
    return at::Scalar(p.ivalue);
  return at::Scalar(p.value);
}

slref_tensors slref_scatter(const sl_call &call) {
  at::Tensor x = slref_arg(call, 0), index = slref_index_arg(call, 1);
  if (call.p.has_value)
    return {at::scatter(x, call.p.dim, index, slref_scatter_value(x, call.p))};
  return {at::scatter(x, call.p.dim, index, slref_arg(call, 2))};
}
