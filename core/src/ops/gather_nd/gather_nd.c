/*
 * gather_nd (seed 000, CINN form): out[i] = x[i with i_{dims[k]} :=
 * index[i, k] for k < M].
 *
 * Shape contract: x has rank K; index has rank K+1, an integer dtype (i32 or
 * i64) and last extent M with 0 <= M <= K; dims names M distinct axes of x
 * (negative values count from the end; p.ndims == 0 means 0..M-1); out has
 * shape index.shape[:-1] and x's dtype. The coordinates of i on axes that
 * are not in dims address x directly, so index.shape[d] <= x.shape[d] there;
 * index[..., k] lies in [0, x.shape[dims[k]]) (no negative wrap).
 * gather(dim=d) equals gather_nd(dims=[d], index.unsqueeze(-1)), and M = 0
 * reads the leading block x[:s_0, ..., :s_{K-1}] (LibTorch's indexing
 * accepts it too). Duplicate indices are harmless: gather_nd only reads.
 * The normalized dims are written back into c->p (ndims = M).
 */
#include "ops/gather_nd/nd_index.h"

sl_status sl__gather_nd_infer(sl_ctx *ctx, sl_call *c, sl__infer_mode mode) {
  sl_status st = sl__nd_index_infer(ctx, c, mode);
  if (st) return st;
  const sl_tensor *x = &c->arg[0], *index = &c->arg[1];
  sl__set_out(&c->arg[2], x->dtype, index->ndim - 1, index->shape);
  return SL_STATUS_OK;
}
