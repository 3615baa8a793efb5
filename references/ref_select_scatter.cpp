/*
 * The reference of select_scatter (docs/spec.md §1).
 */
#include "ref_internal.h"

slref_tensors slref_select_scatter(const sl_call &call) {
  at::Tensor x = slref_arg(call, 0), value = slref_arg(call, 1);
  return {at::select_scatter(x, value, call.p.dim, call.p.index)};
}
