/* gather on the CPU: serial and OpenMP over output elements (no conflicts). */
#include "sl_internal.h"

/* Gathers output elements [begin, end) in row-major order of index. */
static void sl__gather_range(const sl_call *c, int64_t begin, int64_t end) {
  const sl_tensor *x = &c->arg[0], *index = &c->arg[1], *out = &c->arg[2];
  size_t es = sl_dtype_size(x->dtype);
  int dim = (int)c->p.dim;
  int64_t idx[SL_MAX_DIMS];
  for (int64_t i = begin; i < end; ++i) {
    sl__unravel(i, index->ndim, index->shape, idx);
    int64_t v = sl__load_index(index, sl__offset(index, idx));
    int64_t off = 0;
    for (int d = 0; d < x->ndim; ++d)
      off += (d == dim ? v : idx[d]) * x->strides[d];
    sl__copy_elem(sl__ptr(out, sl__offset(out, idx)), sl__ptr(x, off), es);
  }
}

sl_status sl_gather_cpu_serial(sl_ctx *ctx, sl_call *c) {
  (void)ctx;
  sl__gather_range(c, 0, sl__numel(&c->arg[1]));
  return SL_STATUS_OK;
}

sl_status sl_gather_cpu_omp(sl_ctx *ctx, sl_call *c) {
  int64_t n = sl__numel(&c->arg[1]);
  int threads = sl__threads(ctx);
  int64_t chunk = (n + threads - 1) / threads;
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int t = 0; t < threads; ++t) {
    int64_t b = t * chunk, e = b + chunk < n ? b + chunk : n;
    if (b < e) sl__gather_range(c, b, e);
  }
  return SL_STATUS_OK;
}
