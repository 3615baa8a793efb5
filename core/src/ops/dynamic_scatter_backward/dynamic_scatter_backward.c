/*
 * dynamic_scatter_backward: mmcv's dynamic_point_to_voxel_backward (seed 004).
 *
 * Shape contract: grad_voxel_feats [M,C], feats [N,C] and voxel_feats [M,C]
 * share one dtype, f32 or f64; point2voxel_map [N] i32 with values in
 * [-1, M); voxel_points_count [M] i32 with values > 0; reduce one of sum,
 * mean, max. Output grad_feats [N,C] in feats' dtype:
 *   sum:  grad_feats[n] = grad_voxel_feats[map[n]];
 *   mean: the same divided by voxel_points_count[map[n]];
 *   max:  per channel c, the gradient of voxel v goes to the smallest point
 *         index n with map[n] = v and feats[n,c] == voxel_feats[v,c]; every
 *         other point gets 0 (exact, seed 004's diff3 = 0). A channel whose
 *         maximum matches no point gives its gradient to nobody.
 * A point with map[n] = -1 (dropped by the forward) gets 0. M = 0 (every
 * point dropped) gives a zero gradient.
 *
 * Many points map to one voxel; the max scheme resolves that by the unique
 * smallest index, so the result does not depend on the order of the work.
 * The map and count values are checked here for CPU tensors, so a kernel
 * never reads or writes out of bounds.
 */
#include <stdio.h>

#include "reduce.h"
#include "sl_internal.h"

/* An i32 vector of `len` elements (`rows_of` says where len comes from). */
static sl_status sl__dsb_check_i32(sl_ctx *ctx, const char *what,
                                   const sl_tensor *t, int64_t len,
                                   const char *rows_of) {
  char a[160];
  if (t->dtype != SL_I32)
    return sl_ctx_fail(ctx,
                       sl_dtype_is_int(t->dtype) ? SL_STATUS_UNSUPPORTED_DTYPE
                                                 : SL_STATUS_INDEX_DTYPE,
                       "%s: expected dtype i32, got %s", what,
                       sl_dtype_name(t->dtype));
  if (t->ndim != 1)
    return sl_ctx_fail(ctx, SL_STATUS_RANK_MISMATCH,
                       "%s: expected rank 1 [%lld], got rank %d %s", what,
                       (long long)len, t->ndim,
                       sl_shape_str(t->ndim, t->shape, a, sizeof a));
  if (t->shape[0] != len)
    return sl_ctx_fail(ctx, SL_STATUS_SHAPE_MISMATCH,
                       "%s: expected shape [%lld] (%s), got %s", what,
                       (long long)len, rows_of,
                       sl_shape_str(t->ndim, t->shape, a, sizeof a));
  return SL_STATUS_OK;
}

/* The values that index: map in [-1, M), counts > 0 (CPU tensors only; a
 * CUDA variant checks on the device before it writes). */
static sl_status sl__dsb_check_values(sl_ctx *ctx, const sl_tensor *grad,
                                      const sl_tensor *map,
                                      const sl_tensor *count) {
  const int64_t N = map->shape[0], M = count->shape[0];
  char a[160];
  if (map->device == SL_DEVICE_CPU)
    for (int64_t n = 0; n < N; ++n) {
      int32_t v = ((const int32_t *)map->data)[n * map->strides[0]];
      if (v < -1 || v >= M)
        return sl_ctx_fail(ctx, SL_STATUS_INDEX_OUT_OF_RANGE,
                           "point2voxel_map[%lld]=%d out of range [-1,%lld) "
                           "for the voxels of grad_voxel_feats %s",
                           (long long)n, (int)v, (long long)M,
                           sl_shape_str(grad->ndim, grad->shape, a, sizeof a));
    }
  if (count->device == SL_DEVICE_CPU)
    for (int64_t m = 0; m < M; ++m) {
      int32_t k = ((const int32_t *)count->data)[m * count->strides[0]];
      if (k <= 0)
        return sl_ctx_fail(ctx, SL_STATUS_INVALID_ARGUMENT,
                           "voxel_points_count[%lld]: expected a count > 0, "
                           "got %d",
                           (long long)m, (int)k);
    }
  return SL_STATUS_OK;
}

sl_status sl__dynamic_scatter_backward_infer(sl_ctx *ctx, sl_call *c,
                                             sl__infer_mode mode) {
  (void)mode; /* no index values to check */
  const sl_tensor *grad = &c->arg[0], *feats = &c->arg[1];
  const sl_tensor *vfeats = &c->arg[2], *map = &c->arg[3], *count = &c->arg[4];
  char a[160], b[160];
  sl_status st =
      sl__check_feats_like(ctx, c, "grad_voxel_feats", "[M,C]", grad);
  if (!st) st = sl__check_feats_like(ctx, c, "feats", "[N,C]", feats);
  if (!st) st = sl__check_feats_like(ctx, c, "voxel_feats", "[M,C]", vfeats);
  if (st) return st;
  const int64_t M = grad->shape[0], C = grad->shape[1], N = feats->shape[0];
  if (feats->dtype != grad->dtype || vfeats->dtype != grad->dtype) {
    const char *what = feats->dtype != grad->dtype ? "feats" : "voxel_feats";
    sl_dtype got = feats->dtype != grad->dtype ? feats->dtype : vfeats->dtype;
    return sl_ctx_fail(ctx, SL_STATUS_UNSUPPORTED_DTYPE,
                       "%s: expected dtype %s (the dtype of grad_voxel_feats), "
                       "got %s",
                       what, sl_dtype_name(grad->dtype), sl_dtype_name(got));
  }
  if (feats->shape[1] != C)
    return sl_ctx_fail(ctx, SL_STATUS_SHAPE_MISMATCH,
                       "feats: expected %lld columns (grad_voxel_feats is "
                       "%s), got %s",
                       (long long)C,
                       sl_shape_str(grad->ndim, grad->shape, a, sizeof a),
                       sl_shape_str(feats->ndim, feats->shape, b, sizeof b));
  if (vfeats->shape[0] != M || vfeats->shape[1] != C)
    return sl_ctx_fail(ctx, SL_STATUS_SHAPE_MISMATCH,
                       "voxel_feats: expected shape %s (the shape of "
                       "grad_voxel_feats), got %s",
                       sl_shape_str(grad->ndim, grad->shape, a, sizeof a),
                       sl_shape_str(vfeats->ndim, vfeats->shape, b, sizeof b));
  st = sl__dsb_check_i32(ctx, "point2voxel_map", map, N, "the rows of feats");
  if (!st)
    st = sl__dsb_check_i32(ctx, "voxel_points_count", count, M,
                           "the rows of grad_voxel_feats");
  if (!st) st = sl__check_reduce(ctx, c->p.reduce, SL__REDUCES_DYNAMIC);
  if (!st) st = sl__dsb_check_values(ctx, grad, map, count);
  if (st) return st;
  sl__set_out(&c->arg[5], feats->dtype, 2, feats->shape);
  return SL_STATUS_OK;
}
