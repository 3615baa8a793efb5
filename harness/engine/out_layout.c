/* Outputs laid out as LibTorch's result (out_layout.h). */
#include "out_layout.h"

#include "op_facts.h"

/* x's axes of extent > 1 from the largest stride to the smallest, ties in
 * axis order; returns their count. Axes of extent 1 address nothing: any
 * stride serves them, and they keep out's. */
static int sl__axes_by_stride(const sl_tensor *x, int *axes) {
  int n = 0;
  for (int d = 0; d < x->ndim; ++d) {
    if (x->shape[d] <= 1) continue;
    int k = n++;
    for (; k > 0 && x->strides[axes[k - 1]] < x->strides[d]; --k)
      axes[k] = axes[k - 1];
    axes[k] = d;
  }
  return n;
}

int sl_outputs_like_reference(sl_call *call) {
  const sl_harness_op *h = sl_harness_op_of(call->op);
  const sl_out_layout how = h ? h->out_layout : SL_OUT_ROW_MAJOR;
  const sl_tensor *x = &call->arg[0];
  sl_tensor *out = &call->arg[sl_op_get(call->op)->n_in];
  if (how == SL_OUT_ROW_MAJOR || !x->data || out->ndim != x->ndim) return 0;
  for (int d = 0; d < x->ndim; ++d)
    if (out->shape[d] != x->shape[d]) return 0;
  int axes[SL_MAX_DIMS];
  const int n = sl__axes_by_stride(x, axes);
  /* From the innermost axis out: dense strides in x's order; x does not
   * overlap while each stride passes the farthest element of the axes
   * inside it (a broadcast's stride 0 never does). */
  int64_t dense[SL_MAX_DIMS], span = 1, reach = 1;
  int exact = 1;
  for (int k = n - 1; k >= 0; --k) {
    const int d = axes[k];
    if (x->strides[d] < reach) return 0;
    exact &= x->strides[d] == span;
    dense[d] = span;
    span *= x->shape[d];
    reach += (x->shape[d] - 1) * x->strides[d];
  }
  if (how == SL_OUT_DENSE_X && !exact) return 0;
  int changed = 0;
  for (int k = 0; k < n; ++k) {
    changed |= out->strides[axes[k]] != dense[axes[k]];
    out->strides[axes[k]] = dense[axes[k]];
  }
  return changed;
}
