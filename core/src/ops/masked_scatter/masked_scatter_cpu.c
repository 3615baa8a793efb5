/*
 * masked_scatter on the CPU. cpu.serial walks x's positions once. cpu.omp is
 * seed 003's prefix-sum scheme on the CPU: each thread counts the true mask
 * positions of its chunk, an exclusive scan of the counts gives every chunk
 * the index of its first source element, and each thread then writes its
 * chunk. Both write every element of out once, in the same way.
 */
#include <stdlib.h>

#include "ops/masked_scatter/masked_scatter.h"

/*
 * Writes out's row-major positions [begin, end): source's element `first`
 * and the following ones go to the true positions in order, x's element to
 * the others.
 */
static void sl__masked_scatter_range(const sl_call *c, const int64_t *ms,
                                     int64_t begin, int64_t end,
                                     int64_t first) {
  const sl_tensor *x = &c->arg[0], *mask = &c->arg[1], *source = &c->arg[2];
  const sl_tensor *out = &c->arg[3];
  size_t es = sl_dtype_size(x->dtype);
  int64_t k = first, pos[SL_MAX_DIMS];
  for (int64_t i = begin; i < end; ++i) {
    sl__unravel(i, x->ndim, x->shape, pos);
    const char *from = sl__mask_at(x, mask, ms, pos)
                           ? sl__ptr(source, sl__offset_linear(source, k++))
                           : sl__ptr(x, sl__offset(x, pos));
    sl__copy_elem(sl__ptr(out, sl__offset(out, pos)), from, es);
  }
}

sl_status sl_masked_scatter_cpu_serial(sl_ctx *ctx, sl_call *c) {
  (void)ctx;
  int64_t ms[SL_MAX_DIMS];
  sl__mask_strides(&c->arg[0], &c->arg[1], ms);
  sl__masked_scatter_range(c, ms, 0, sl__numel(&c->arg[0]), 0);
  return SL_STATUS_OK;
}

sl_status sl_masked_scatter_cpu_omp(sl_ctx *ctx, sl_call *c) {
  const sl_tensor *x = &c->arg[0], *mask = &c->arg[1];
  int64_t n = sl__numel(x);
  if (n == 0) return SL_STATUS_OK;
  int threads = sl__threads(ctx);
  int64_t chunk = (n + threads - 1) / threads;
  int64_t ms[SL_MAX_DIMS];
  sl__mask_strides(x, mask, ms);
  /* start[t] is the first source element of chunk t (exclusive scan). */
  int64_t *start = malloc(((size_t)threads + 1) * sizeof *start);
  if (!start)
    return sl_ctx_fail(ctx, SL_STATUS_OUT_OF_MEMORY,
                       "masked_scatter: no memory for %d chunk counts",
                       threads);
  start[0] = 0;
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int t = 0; t < threads; ++t) {
    int64_t b = t * chunk, e = b + chunk < n ? b + chunk : n;
    start[t + 1] = b < e ? sl__mask_count(x, mask, ms, b, e) : 0;
  }
  for (int t = 0; t < threads; ++t) start[t + 1] += start[t];
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int t = 0; t < threads; ++t) {
    int64_t b = t * chunk, e = b + chunk < n ? b + chunk : n;
    if (b < e) sl__masked_scatter_range(c, ms, b, e, start[t]);
  }
  free(start);
  return SL_STATUS_OK;
}
