/*
 * gather: out[i] = x[i with i_dim := index[i]].
 *
 * Shape contract: x and index have the same rank (a rank-0 tensor counts as
 * rank 1, as in LibTorch); index.size(k) <= x.size(k) for k != dim; out has
 * index's shape and x's dtype; every index value lies in [0, x.size(dim)).
 * Duplicate indices are harmless: gather only reads.
 */

#include "sl_internal.h"

sl_status sl__gather_infer(sl_ctx *ctx, sl_call *c, sl__infer_mode mode) {
  const sl_tensor *x = &c->arg[0], *index = &c->arg[1];
  int64_t dim;
  sl_status st = sl__normalize_dim(ctx, "dim", c->p.dim, x->ndim, &dim);
  if (st) return st;
  c->p.dim = dim;
  sl__set_out(&c->arg[2], x->dtype, index->ndim, index->shape);
  /* LibTorch checks nothing of an empty index (rank, shape, dtype): the
   * output is empty. */
  if (sl__numel(index) == 0) return SL_STATUS_OK;
  st = sl__check_index_like_x(ctx, index, x, dim);
  if (st) return st;
  int64_t bound = x->ndim ? x->shape[dim] : 1;
  return sl__check_index_range(ctx, mode, "index", index, bound, dim, x);
}
