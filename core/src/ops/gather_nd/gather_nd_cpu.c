/* gather_nd on the CPU: serial and OpenMP over output positions (no
 * conflicts: every output element has exactly one writer), by the
 * gather-like walk (gather_walk.h): index's last axis holds the
 * p.ndims coordinates of each position, on the axes p.dims. */
#include "gather_walk.h"

static void sl__gather_nd_cpu(const sl_call *c, int threads) {
  const sl_tensor *index = &c->arg[1];
  const int K = index->ndim - 1;
  const sl__gather_spec spec = {.x = &c->arg[0],
                                .index = index,
                                .out = &c->arg[2],
                                .ndim = K,
                                .m = c->p.ndims,
                                .dims = c->p.dims,
                                .ik = index->strides[K]};
  sl__gather_walk_run(&spec, threads);
}

sl_status sl_gather_nd_cpu_serial(sl_ctx *ctx, sl_call *c) {
  (void)ctx;
  sl__gather_nd_cpu(c, 1);
  return SL_STATUS_OK;
}

sl_status sl_gather_nd_cpu_omp(sl_ctx *ctx, sl_call *c) {
  sl__gather_nd_cpu(c, sl__threads(ctx));
  return SL_STATUS_OK;
}
