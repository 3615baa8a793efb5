/*
 * The reference of gather (docs/spec.md §1): LibTorch's gather.
 */
#include "ref_internal.h"

slref_tensors slref_gather(const sl_call &call) {
  at::Tensor x = slref_arg(call, 0), index = slref_index_arg(call, 1);
  return {at::gather(x, call.p.dim, index)};
}
