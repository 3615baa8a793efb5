/* gather_nd on the CPU: serial and OpenMP over output positions (no
 * conflicts: every output element has exactly one writer). */
#include "ops/gather_nd/nd_index.h"

/* Gathers the output positions [begin, end) in row-major order. */
static void sl__gather_nd_range(const sl_call *c, int64_t begin, int64_t end) {
  const sl_tensor *x = &c->arg[0], *index = &c->arg[1], *out = &c->arg[2];
  size_t es = sl_dtype_size(x->dtype);
  int64_t pos[SL_MAX_DIMS], coord[SL_MAX_DIMS];
  for (int64_t i = begin; i < end; ++i) {
    sl__unravel(i, out->ndim, out->shape, pos);
    sl__nd_target(index, &c->p, pos, coord);
    sl__copy_elem(sl__ptr(out, sl__offset(out, pos)),
                  sl__ptr(x, sl__offset(x, coord)), es);
  }
}

sl_status sl_gather_nd_cpu_serial(sl_ctx *ctx, sl_call *c) {
  (void)ctx;
  sl__gather_nd_range(c, 0, sl__numel(&c->arg[2]));
  return SL_STATUS_OK;
}

sl_status sl_gather_nd_cpu_omp(sl_ctx *ctx, sl_call *c) {
  int64_t n = sl__numel(&c->arg[2]);
  int threads = sl__threads(ctx);
  int64_t chunk = (n + threads - 1) / threads;
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int t = 0; t < threads; ++t) {
    int64_t b = t * chunk, e = b + chunk < n ? b + chunk : n;
    if (b < e) sl__gather_nd_range(c, b, e);
  }
  return SL_STATUS_OK;
}
