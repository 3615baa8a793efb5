/*
 * The reference of masked_scatter (docs/spec.md §1).
 */
#include "ref_internal.h"

/*
 * LibTorch 1.13's masked_scatter takes a uint8 mask (deprecated) and even a
 * float one, and broadcasts x up to a larger mask's shape; the contract
 * wants a bool mask that broadcasts to x (docs/spec.md §4 "mask not bool or not
 * broadcastable"), so both are checked here.
 */
slref_tensors slref_masked_scatter(const sl_call &call) {
  at::Tensor x = slref_arg(call, 0), mask = slref_arg(call, 1);
  at::Tensor source = slref_arg(call, 2);
  if (mask.scalar_type() != at::kBool)
    throw slref_reject(slref_fmt("masked_scatter: mask must be bool, got %s",
                                 slref_dtype_name(mask)));
  bool fits = mask.dim() <= x.dim();
  for (int64_t k = 1; fits && k <= mask.dim(); ++k) {
    int64_t m = mask.size(-k), n = x.size(-k);
    fits = m == n || m == 1;
  }
  if (!fits)
    throw slref_reject(slref_fmt("masked_scatter: mask %s is not "
                                 "broadcastable to x %s",
                                 slref_shape(mask).c_str(),
                                 slref_shape(x).c_str()));
  return {x.masked_scatter(mask, source)};
}
