/*
 * The reference of select_scatter (docs/spec.md §1).
 */
#include "ref_internal.h"

slref_tensors slref_select_scatter(const sl_call &call) {
  at::Tensor x = slref_arg(call, 0), value = slref_arg(call, 1);
  /* LibTorch's select_scatter copies x keeping its strides
   * (clone_preserve_strides, LibTorch 2.11.0): from an x whose elements
   * share memory (an unfold or as_strided view, strides > 0, which
   * has_internal_overlap calls too hard to tell rather than overlapping),
   * the output shares it too, and the slice written shows through at the
   * other positions that share its memory. By the op's definition out is x
   * with one slice replaced: such an x goes in as a contiguous copy of
   * its values (docs/reference-differences.md; found by the fuzzer's
   * overlapped layout, issue 48). */
  if (!x.is_non_overlapping_and_dense()) x = x.contiguous();
  return {at::select_scatter(x, value, call.p.dim, call.p.index)};
}
