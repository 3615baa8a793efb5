/*
 * dynamic_scatter parallel over its points (conflict.h), after the shared
 * voxelization (dynamic_scatter_voxels.h) has found the voxels and the map:
 *   cpu.atomic  mmcv's CUDA scheme: every point combines its row of
 *               features into its voxel's row, one atomic add (sum, mean)
 *               or compare-and-swap max per channel;
 *   cpu.lock    one lock per voxel row (seed 004's `is_occupy`): a point
 *               takes its voxel's lock and updates the whole row under it;
 *   cpu.sorted  the sorted strategy is the op's own: the voxelization sorts
 *               the points by voxel, and each voxel's run is reduced by one
 *               thread in point order. cpu.sorted is cpu.omp's algorithm,
 *               listed under the strategy's name so that the atomic / lock /
 *               sorted comparison covers this op too.
 * The rows start from +0.0 (sum, mean: LibTorch's zeros + index_add) or
 * -inf (max, which propagates a NaN: reduce_ops.h). Sums and means of
 * cpu.atomic and cpu.lock depend on the order of arrival (tolerance); max
 * is exact (equal values may leave -0.0 for 0.0, which reduce_ops.h
 * counts equal).
 */
#include <math.h>

#include "conflict.h"
#include "dynamic_scatter_voxels.h"
#include "reduce_ops.h"

/* Combines point n's row into its voxel's row; under the voxel's lock when
 * lk is given, else atomically. */
static inline void sl__dsc_point(const sl_call *c, const sl__locks *lk,
                                 sl_reduce r, int64_t n) {
  const sl_tensor *feats = &c->arg[0], *vfeats = &c->arg[2], *map = &c->arg[4];
  const int64_t v = ((const int32_t *)map->data)[n * map->strides[0]];
  if (v < 0) return;
  const int64_t C = feats->shape[1];
  const char *f = sl__ptr(feats, n * feats->strides[0]);
  char *o = sl__ptr(vfeats, v * vfeats->strides[0]);
  const int64_t fs = feats->strides[1] * (int64_t)sl_dtype_size(feats->dtype);
  const int64_t os = vfeats->strides[1] * (int64_t)sl_dtype_size(feats->dtype);
  if (lk) {
    sl__lock(lk, v);
    sl__row_plain(feats->dtype, r, o, vfeats->strides[1], f, feats->strides[1],
                  C);
    sl__unlock(lk, v);
  } else {
    for (int64_t ch = 0; ch < C; ++ch)
      sl__atomic_elem(feats->dtype, r, o + ch * os, f + ch * fs);
  }
}

static sl_status sl__dsc_run(sl_ctx *ctx, sl_call *c, int use_locks) {
  const int threads = sl__threads(ctx);
  const sl_tensor *feats = &c->arg[0], *vfeats = &c->arg[2];
  const sl_tensor *count = &c->arg[5];
  const int64_t N = feats->shape[0], C = feats->shape[1];
  const sl_reduce r =
      c->p.reduce == SL_REDUCE_MAX ? SL_REDUCE_MAX : SL_REDUCE_SUM;
  sl__dyn w;
  int64_t M;
  c->out_rows = 0;
  sl_status st = sl__dyn_voxelize(ctx, c, threads, &w, &M);
  if (st) return st;
  sl__locks lk = {NULL, 0};
  if (use_locks && M > 0) st = sl__locks_open(ctx, "dynamic_scatter", &lk, M);
  if (st) goto done;
  int team = sl__conflict_team(threads, M * (C + 1));
#pragma omp parallel for num_threads(team) schedule(static) if (team > 1)
  for (int64_t v = 0; v < M; ++v) {
    sl__dyn_label_voxel(&w, v);
    for (int64_t ch = 0; ch < C; ++ch)
      sl__store_f(
          feats->dtype,
          sl__ptr(vfeats, v * vfeats->strides[0] + ch * vfeats->strides[1]),
          sl__identity_f64(r));
  }
  team = sl__conflict_team(threads, N * (C + 1));
#pragma omp parallel for num_threads(team) schedule(static) if (team > 1)
  for (int64_t n = 0; n < N; ++n)
    sl__dsc_point(c, use_locks ? &lk : NULL, r, n);
  if (c->p.reduce == SL_REDUCE_MEAN) {
    team = sl__conflict_team(threads, M * C);
#pragma omp parallel for num_threads(team) schedule(static) if (team > 1)
    for (int64_t v = 0; v < M; ++v) {
      const double k = ((const int32_t *)count->data)[v * count->strides[0]];
      for (int64_t ch = 0; ch < C; ++ch)
        sl__reduce_mean_finish(
            feats->dtype,
            sl__ptr(vfeats, v * vfeats->strides[0] + ch * vfeats->strides[1]),
            k);
    }
  }
  c->out_rows = M;
done:
  sl__locks_close(&lk);
  sl__dyn_free(&w);
  return st;
}

sl_status sl_dynamic_scatter_cpu_atomic(sl_ctx *ctx, sl_call *c) {
  return sl__dsc_run(ctx, c, 0);
}

sl_status sl_dynamic_scatter_cpu_lock(sl_ctx *ctx, sl_call *c) {
  return sl__dsc_run(ctx, c, 1);
}

sl_status sl_dynamic_scatter_cpu_sorted(sl_ctx *ctx, sl_call *c) {
  return sl_dynamic_scatter_cpu_omp(ctx, c);
}
