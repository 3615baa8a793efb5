/* gather on the CPU: serial and OpenMP over output elements (no conflicts),
 * by the gather-like walk (gather_walk.h) with one index value per
 * position, deciding the coordinate on dim. */
#include "gather_walk.h"

static void sl__gather_cpu(const sl_call *c, int threads) {
  const sl_tensor *index = &c->arg[1];
  const sl__gather_spec spec = {.x = &c->arg[0],
                                .index = index,
                                .out = &c->arg[2],
                                .ndim = index->ndim,
                                .m = 1,
                                .dims = &c->p.dim};
  sl__gather_walk_run(&spec, threads);
}

sl_status sl_gather_cpu_serial(sl_ctx *ctx, sl_call *c) {
  (void)ctx;
  sl__gather_cpu(c, 1);
  return SL_STATUS_OK;
}

sl_status sl_gather_cpu_omp(sl_ctx *ctx, sl_call *c) {
  sl__gather_cpu(c, sl__threads(ctx));
  return SL_STATUS_OK;
}
