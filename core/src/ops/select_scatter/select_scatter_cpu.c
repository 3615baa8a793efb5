/* select_scatter on the CPU: out := x, then the selected slice of out :=
 * value. Both are strided copies (copy.c: memcpy where contiguous), so the
 * slice's elements are written twice, which costs 1/size(dim) of the copy
 * and keeps every other element a plain bulk copy. */
#include "sl_internal.h"

/* out with axis dim fixed at `at`: a view of x's shape without dim. */
static sl_tensor sl__slice_view(const sl_tensor *out, int dim, int64_t at) {
  sl_tensor v = *out;
  v.ndim = out->ndim - 1;
  for (int d = 0, j = 0; d < out->ndim; ++d) {
    if (d == dim) continue;
    v.shape[j] = out->shape[d];
    v.strides[j++] = out->strides[d];
  }
  v.data = sl__ptr(out, at * out->strides[dim]);
  return v;
}

static sl_status sl__select_scatter_run(sl_call *c, int threads) {
  sl__copy_streamed(&c->arg[2], &c->arg[0], threads);
  sl_tensor slice = sl__slice_view(&c->arg[2], (int)c->p.dim, c->p.index);
  sl__copy_strided(&slice, &c->arg[1], threads);
  return SL_STATUS_OK;
}

sl_status sl_select_scatter_cpu_serial(sl_ctx *ctx, sl_call *c) {
  (void)ctx;
  return sl__select_scatter_run(c, 1);
}

sl_status sl_select_scatter_cpu_omp(sl_ctx *ctx, sl_call *c) {
  return sl__select_scatter_run(c, sl__threads(ctx));
}
