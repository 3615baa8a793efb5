/*
 * gather: out[i] = x[i with i_dim := index[i]].
 *
 * Shape contract: x and index have the same rank (a rank-0 tensor counts as
 * rank 1, as in LibTorch); index.size(k) <= x.size(k) for k != dim; out has
 * index's shape and x's dtype; every index value lies in [0, x.size(dim)).
 * Duplicate indices are harmless: gather only reads.
 */

#include "sl_internal.h"

sl_status sl__gather_infer(sl_ctx *ctx, sl_call *c) {
  const sl_tensor *x = &c->arg[0], *index = &c->arg[1];
  char a[160], b[160];
  int64_t dim;
  sl_status st = sl__normalize_dim(ctx, "dim", c->p.dim, x->ndim, &dim);
  if (st) return st;
  c->p.dim = dim;
  sl__set_out(&c->arg[2], x->dtype, index->ndim, index->shape);
  /* LibTorch checks nothing of an empty index (rank, shape, dtype): the
   * output is empty. */
  if (sl__numel(index) == 0) return SL_STATUS_OK;
  st = sl__check_index_dtype(ctx, "index", index);
  if (st) return st;
  int xr = x->ndim ? x->ndim : 1, ir = index->ndim ? index->ndim : 1;
  if (xr != ir)
    return sl_ctx_fail(ctx, SL_STATUS_RANK_MISMATCH,
                       "index: expected rank %d (the rank of x %s), got rank "
                       "%d %s",
                       x->ndim, sl_shape_str(x->ndim, x->shape, a, sizeof a),
                       index->ndim,
                       sl_shape_str(index->ndim, index->shape, b, sizeof b));
  for (int k = 0; k < ir; ++k) {
    int64_t ie = index->ndim ? index->shape[k] : 1;
    int64_t xe = x->ndim ? x->shape[k] : 1;
    if (k != dim && ie > xe)
      return sl_ctx_fail(ctx, SL_STATUS_SHAPE_MISMATCH,
                         "index: expected size <= %lld in dim %d (x is %s), "
                         "got %s",
                         (long long)xe, k,
                         sl_shape_str(x->ndim, x->shape, a, sizeof a),
                         sl_shape_str(index->ndim, index->shape, b, sizeof b));
  }
  int64_t bound = x->ndim ? x->shape[dim] : 1;
  return sl__check_index_range(ctx, "index", index, bound, dim, x);
}
