/*
 * scatter_reduce_backward on the GPU: cuda.atomic and cuda.sorted, the
 * strategies of cuda/reduce_backward.cuh. Every element of index is a
 * contribution: src and grad_src at the same coordinates, aimed at the
 * position of x whose coordinate along dim is the index value.
 *
 * The index is checked on the device first (infer cannot read it there),
 * with the CPU's message.
 */
#include "cuda/reduce_backward.cuh"

/* Slots. */
enum { G_ = 0, X_, I_, S_, R_, GX_, GS_ };

sl__rb_addr sl__scatter_reduce_backward_addr(const sl_call *c) {
  const sl_tensor *a = c->arg, *x = &a[X_], *index = &a[I_];
  const int dim = (int)c->p.dim;
  /* Rank 0 counts as rank 1 of extent 1 (infer checked the ranks). */
  int64_t rm[SL_MAX_DIMS], sst[SL_MAX_DIMS], gst[SL_MAX_DIMS], xst[SL_MAX_DIMS];
  sl_contiguous_strides(x->ndim, x->shape, rm);
  for (int d = 0; d < index->ndim; ++d) {
    sst[d] = a[S_].ndim ? a[S_].strides[d] : 0;
    gst[d] = a[GS_].ndim ? a[GS_].strides[d] : 0;
    xst[d] = d == dim || x->ndim == 0 ? 0 : rm[d];
  }
  sl__rb_addr ad;
  memset(&ad, 0, sizeof ad);
  const int64_t *pst[4] = {a[G_].strides, x->strides, a[R_].strides,
                           a[GX_].strides};
  ad.pit = sl__it_make(x->ndim, x->shape, 4, pst, -1);
  const int64_t *cst[4] = {sst, gst, xst, index->strides};
  ad.cit = sl__it_make(index->ndim, index->shape, 4, cst, -1);
  ad.npos = sl__numel(x);
  ad.ncon = sl__numel(index);
  ad.index = index->data;
  ad.is64 = index->dtype == SL_I64;
  ad.rm_dim = x->ndim ? rm[dim] : 0;
  return ad;
}

static sl_status sl__srb_cuda(sl_ctx *ctx, sl_call *c, sl__strategy how) {
  const sl_tensor *x = &c->arg[X_];
  return sl__reduce_backward_cuda(ctx, c, how,
                                  x->ndim ? x->shape[(int)c->p.dim] : 1,
                                  sl__scatter_reduce_backward_addr);
}

sl_status sl_scatter_reduce_backward_cuda_atomic(sl_ctx *ctx, sl_call *c) {
  return sl__srb_cuda(ctx, c, SL__ATOMIC);
}

sl_status sl_scatter_reduce_backward_cuda_sorted(sl_ctx *ctx, sl_call *c) {
  return sl__srb_cuda(ctx, c, SL__SORTED);
}
