/*
 * index_reduce_backward on the GPU: cuda.atomic and cuda.sorted, the
 * strategies of cuda/reduce_backward.cuh. Every element of updates is a
 * contribution, aimed at the position of x with the same coordinates off
 * the axis and index[i] along it, i being its coordinate along the axis.
 * Every tensor is seen at rank max(rank of x, 1), as on the CPU.
 *
 * The index is checked on the device first (infer cannot read it there),
 * with the CPU's message.
 */
#include "cuda/reduce_backward.cuh"
#include "reduce.h"

/* Slots. */
enum { G_ = 0, X_, I_, U_, R_, GX_, GU_ };

/* Every tensor but index at rank k = max(rank of x, 1). */
static void sl__irb_views(const sl_call *c, sl_tensor *v) {
  const int k = c->arg[X_].ndim ? c->arg[X_].ndim : 1;
  for (int t = 0; t < 7; ++t)
    if (t != I_) sl__axis_view(&c->arg[t], k, (int)c->p.dim, &v[t]);
}

sl__rb_addr sl__index_reduce_backward_addr(const sl_call *c) {
  const sl_tensor *index = &c->arg[I_];
  const int dim = (int)c->p.dim;
  sl_tensor v[7];
  sl__irb_views(c, v);
  const int k = v[X_].ndim;
  int64_t rm[SL_MAX_DIMS], xst[SL_MAX_DIMS], zero[SL_MAX_DIMS] = {0};
  sl_contiguous_strides(k, v[X_].shape, rm);
  for (int d = 0; d < k; ++d) xst[d] = d == dim ? 0 : rm[d];
  sl__rb_addr ad;
  memset(&ad, 0, sizeof ad);
  const int64_t *pst[4] = {v[G_].strides, v[X_].strides, v[R_].strides,
                           v[GX_].strides};
  ad.pit = sl__it_make(k, v[X_].shape, 4, pst, -1);
  const int64_t *cst[4] = {v[U_].strides, v[GU_].strides, xst, zero};
  ad.cit = sl__it_make(k, v[U_].shape, 4, cst, dim);
  ad.npos = sl__numel(&v[X_]);
  ad.ncon = sl__numel(&v[U_]);
  ad.index = index->data;
  ad.is64 = index->dtype == SL_I64;
  ad.per_slice = 1;
  ad.istep = index->ndim ? index->strides[0] : 0;
  ad.rm_dim = rm[dim];
  return ad;
}

static sl_status sl__irb_cuda(sl_ctx *ctx, sl_call *c, sl__strategy how) {
  sl_tensor v[7];
  sl__irb_views(c, v);
  return sl__reduce_backward_cuda(ctx, c, how, v[X_].shape[(int)c->p.dim],
                                  sl__index_reduce_backward_addr);
}

sl_status sl_index_reduce_backward_cuda_atomic(sl_ctx *ctx, sl_call *c) {
  return sl__irb_cuda(ctx, c, SL__ATOMIC);
}

sl_status sl_index_reduce_backward_cuda_sorted(sl_ctx *ctx, sl_call *c) {
  return sl__irb_cuda(ctx, c, SL__SORTED);
}
