/*
 * scatter_nd (seed 000, the inverse of gather_nd): out = copy of x, then for
 * every position i of index.shape[:-1], with t = i with i_{dims[k]} :=
 * index[i, k]: out[t] = src[i] (reduce none) or out[t] += src[i] (sum).
 *
 * Shape contract: x, index and dims as for gather_nd (index rank K+1, last
 * extent M <= K, dims M distinct axes, default 0..M-1, non-indexed extents
 * of index <= x's, index values in [0, x.shape[dims[k]])); src has shape
 * index.shape[:-1] exactly (no broadcast) and x's dtype; out has x's shape
 * and dtype. reduce none takes every dtype of the data-movement group; sum
 * takes the reduction group (i32, i64, f16, bf16, f32, f64): f16/bf16
 * accumulate in f32 and are rounded once per element (sl__acc_dtype; LibTorch's
 * own f16 loop rounds after every addition), and integers wrap modulo
 * 2^bits.
 *
 * Duplicate targets: cpu.serial visits positions in row-major order of
 * index, so with none the last writer wins (as LibTorch CPU) and with sum
 * the contributions are added in that order. cpu.omp splits the positions
 * so that all writers of one element go to the same thread in the same
 * order, which gives bitwise the serial answer. The normalized dims are
 * written back into c->p (ndims = M).
 */
#include "ops/gather_nd/nd_index.h"
#include "reduce.h"

sl_status sl__scatter_nd_infer(sl_ctx *ctx, sl_call *c, sl__infer_mode mode) {
  const sl_tensor *x = &c->arg[0], *index = &c->arg[1], *src = &c->arg[2];
  char a[160], b[160], e[160];
  sl_status st = sl__check_reduce(ctx, c->p.reduce, SL__REDUCES_ND);
  if (st) return st;
  /* none moves data of any dtype; sum computes. */
  st = sl__check_op_dtype(ctx, c->op, c->p.reduce, "x", x->dtype);
  if (st) return st;
  if (src->dtype != x->dtype)
    return sl_ctx_fail(ctx, SL_STATUS_UNSUPPORTED_DTYPE,
                       "src: expected dtype %s (the dtype of x), got %s",
                       sl_dtype_name(x->dtype), sl_dtype_name(src->dtype));
  st = sl__nd_index_infer(ctx, c, mode);
  if (st) return st;
  /* index.shape[:-1]: the positions, which src must match exactly. */
  int rank = index->ndim - 1;
  int same = src->ndim == rank;
  for (int d = 0; same && d < rank; ++d)
    same = src->shape[d] == index->shape[d];
  if (!same)
    return sl_ctx_fail(ctx,
                       src->ndim == rank ? SL_STATUS_SHAPE_MISMATCH
                                         : SL_STATUS_RANK_MISMATCH,
                       "src: expected shape %s (index.shape[:-1] of index "
                       "%s), got %s",
                       sl_shape_str(rank, index->shape, a, sizeof a),
                       sl_shape_str(index->ndim, index->shape, b, sizeof b),
                       sl_shape_str(src->ndim, src->shape, e, sizeof e));
  sl__set_out(&c->arg[3], x->dtype, x->ndim, x->shape);
  return SL_STATUS_OK;
}
