/*
 * dynamic_scatter: mmcv's dynamic_point_to_voxel_forward (seed 004).
 *
 * Shape contract: feats [N,C] f32 or f64, coors [N,D] i32 with D >= 1,
 * reduce one of sum, mean, max. A row of coors with any negative entry is
 * invalid: its point belongs to no voxel (point2voxel_map = -1). The voxels
 * are the distinct valid rows of coors in sorted lexicographic order; voxel
 * v's features are the sum, mean (sum / count) or max of the features of its
 * points. Outputs (capacity N rows, because the number of voxels M is known
 * only after the kernel ran):
 *   voxel_feats [N,C] (feats' dtype), voxel_coors [N,D] i32,
 *   point2voxel_map [N] i32, voxel_points_count [N] i32.
 * The kernel writes rows [0,M) of the voxel outputs, every element of
 * point2voxel_map, and stores M in call->out_rows; rows [M,N) are left as
 * they were. N = 0 or no valid row gives M = 0.
 *
 * Duplicate coordinates are the point of the op: they make one voxel.
 * Points are reduced in increasing point index within a voxel, so float sums
 * are the same on every CPU variant. NaN, inf and -0.0 in feats follow
 * reduce_ops.h's rules (a max propagates NaN; docs/spec.md §2). The map
 * and the counts are i32, so N is limited to INT32_MAX rows.
 */
#include <stdio.h>

#include "reduce.h"
#include "sl_internal.h"

sl_status sl__dynamic_scatter_infer(sl_ctx *ctx, sl_call *c,
                                    sl__infer_mode mode) {
  (void)mode; /* no index values to check */
  const sl_tensor *feats = &c->arg[0], *coors = &c->arg[1];
  char a[160], b[160];
  sl_status st = sl__check_feats_like(ctx, c, "feats", "[N,C]", feats);
  if (st) return st;
  if (coors->ndim != 2)
    return sl_ctx_fail(ctx, SL_STATUS_RANK_MISMATCH,
                       "coors: expected rank 2 [N,D], got rank %d %s",
                       coors->ndim,
                       sl_shape_str(coors->ndim, coors->shape, a, sizeof a));
  /* An integer of another width is a dtype the op does not take; a
   * non-integer is not an index at all. */
  if (coors->dtype != SL_I32)
    return sl_ctx_fail(
        ctx,
        sl_dtype_is_int(coors->dtype) ? SL_STATUS_UNSUPPORTED_DTYPE
                                      : SL_STATUS_INDEX_DTYPE,
        "coors: expected dtype i32, got %s", sl_dtype_name(coors->dtype));
  const int64_t N = feats->shape[0], C = feats->shape[1], D = coors->shape[1];
  if (coors->shape[0] != N)
    return sl_ctx_fail(ctx, SL_STATUS_SHAPE_MISMATCH,
                       "coors: expected %lld rows (the rows of feats %s), got "
                       "%s",
                       (long long)N,
                       sl_shape_str(feats->ndim, feats->shape, a, sizeof a),
                       sl_shape_str(coors->ndim, coors->shape, b, sizeof b));
  if (D < 1)
    return sl_ctx_fail(ctx, SL_STATUS_SHAPE_MISMATCH,
                       "coors: expected at least 1 column, got %s",
                       sl_shape_str(coors->ndim, coors->shape, a, sizeof a));
  if (N > INT32_MAX)
    return sl_ctx_fail(ctx, SL_STATUS_OVERFLOW,
                       "feats: expected at most %d rows (point2voxel_map and "
                       "voxel_points_count are i32), got %lld",
                       INT32_MAX, (long long)N);
  st = sl__check_reduce(ctx, c->p.reduce, SL__REDUCES_DYNAMIC);
  if (st) return st;
  sl__set_out(&c->arg[2], feats->dtype, 2, (int64_t[]){N, C});
  sl__set_out(&c->arg[3], SL_I32, 2, (int64_t[]){N, D});
  sl__set_out(&c->arg[4], SL_I32, 1, (int64_t[]){N});
  sl__set_out(&c->arg[5], SL_I32, 1, (int64_t[]){N});
  return SL_STATUS_OK;
}
