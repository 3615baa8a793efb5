/* select_scatter on the CPU: one pass over out, each element written once
 * (from value on the selected slice, from x elsewhere), so the OpenMP
 * variant splits the positions without conflicts. */
#include "sl_internal.h"

/* Writes out's positions [begin, end) in row-major order. */
static void sl__select_scatter_range(const sl_call *c, int64_t begin,
                                     int64_t end) {
  const sl_tensor *x = &c->arg[0], *value = &c->arg[1], *out = &c->arg[2];
  size_t es = sl_dtype_size(x->dtype);
  int dim = (int)c->p.dim;
  int64_t pos[SL_MAX_DIMS];
  for (int64_t i = begin; i < end; ++i) {
    sl__unravel(i, out->ndim, out->shape, pos);
    const char *from;
    if (pos[dim] == c->p.index) {
      /* value's coordinates are pos without axis dim. */
      int64_t off = 0;
      for (int d = 0, j = 0; d < out->ndim; ++d)
        if (d != dim) off += pos[d] * value->strides[j++];
      from = sl__ptr(value, off);
    } else {
      from = sl__ptr(x, sl__offset(x, pos));
    }
    sl__copy_elem(sl__ptr(out, sl__offset(out, pos)), from, es);
  }
}

sl_status sl_select_scatter_cpu_serial(sl_ctx *ctx, sl_call *c) {
  (void)ctx;
  sl__select_scatter_range(c, 0, sl__numel(&c->arg[2]));
  return SL_STATUS_OK;
}

sl_status sl_select_scatter_cpu_omp(sl_ctx *ctx, sl_call *c) {
  int64_t n = sl__numel(&c->arg[2]);
  int threads = sl__threads(ctx);
  int64_t chunk = (n + threads - 1) / threads;
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int t = 0; t < threads; ++t) {
    int64_t b = t * chunk, e = b + chunk < n ? b + chunk : n;
    if (b < e) sl__select_scatter_range(c, b, e);
  }
  return SL_STATUS_OK;
}
