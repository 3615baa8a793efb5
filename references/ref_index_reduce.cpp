/*
 * The references of index_reduce (Paddle's scatter of seed 001) and its
 * backward (docs/spec.md §1).
 */
#include "ref_internal.h"

/*
 * index_reduce's forward, shared with the backward (where x and updates are
 * autograd leaves). A 0-D index addresses one slice: updates is then that
 * (K-1)-D slice, so both are given the axis back. assign is index_copy; sum
 * is index_add, after zeroing the targeted slices when include_self is false
 * (index_reduce has no "sum" in 1.13); the other reduces are index_reduce,
 * whose check rejects unknown names ("none", "max").
 */
static at::Tensor slref_index_reduce_forward(const at::Tensor &x,
                                             at::Tensor index,
                                             at::Tensor updates,
                                             const sl_params &p) {
  if (x.dim() == 0) {
    /* A 0-D x is one element along the axis (rank 0 counts as 1, docs/spec.md
     * §2). LibTorch 1.13 reduces into it so; 2.11 refuses the shapes ("source
     * tensor shape must match self tensor shape"), so the reference reduces
     * into a [1] view and returns the 0-D result. */
    (void)c10::maybe_wrap_dim(p.dim, 0); /* dim is 0 or -1, as LibTorch says */
    if (updates.dim() == 0 && index.dim() == 1) updates = updates.reshape({1});
    return slref_index_reduce_forward(x.reshape({1}), index, updates, p)
        .reshape({});
  }
  const int64_t axis = c10::maybe_wrap_dim(p.dim, x.dim());
  if (index.dim() == 0) {
    index = index.unsqueeze(0);
    updates = updates.unsqueeze(axis);
  }
  switch (p.reduce) {
  case SL_REDUCE_ASSIGN:
    return x.index_copy(axis, index, updates);
  case SL_REDUCE_SUM:
    if (p.include_self) return x.index_add(axis, index, updates);
    return x.index_fill(axis, index, 0).index_add(axis, index, updates);
  default:
    return x.index_reduce(axis, index, updates, sl_reduce_name(p.reduce),
                          p.include_self != 0);
  }
}

slref_tensors slref_index_reduce(const sl_call &call) {
  at::Tensor x = slref_arg(call, 0), index = slref_index_arg(call, 1);
  at::Tensor updates = slref_arg(call, 2);
  return {slref_index_reduce_forward(x, index, updates, call.p)};
}

slref_tensors slref_index_reduce_backward(const sl_call &call) {
  /* grad_out x index updates result: result is not needed, autograd
   * recomputes the forward. */
  at::Tensor grad_out = slref_arg(call, 0), x = slref_arg(call, 1);
  at::Tensor index = slref_index_arg(call, 2), updates = slref_arg(call, 3);
  const sl_params &p = call.p;
  return slref_autograd(grad_out, x, updates,
                        [&](const at::Tensor &xl, const at::Tensor &ul) {
                          return slref_index_reduce_forward(xl, index, ul, p);
                        });
}
