/*
 * select_scatter on the GPU (cuda.plain): one pass over out, each element
 * written once, from value on the selected slice and from x elsewhere (x is
 * not read on the slice: the fewest bytes). Deterministic.
 */
#include "cuda/cuda_common.cuh"

/* it walks out's shape keeping dim apart; tensor 0 is out, 1 x, 2 value
 * (stride 0 along dim). */
template <class E>
__global__ void sl__select_scatter_k(sl__it it, E *out, const E *x,
                                     const E *value, int64_t at) {
  SL__GRID_STRIDE(i, it.numel) {
    int64_t off[3], kc;
    sl__it_at<3>(it, i, off, &kc);
    out[off[0]] = kc == at ? value[off[2]] : x[off[1]];
  }
}

template <class E>
static sl_status sl__select_scatter_launch(sl_ctx *ctx, cudaStream_t s,
                                           const sl__it &it, const sl_call *c) {
  sl__select_scatter_k<E>
      <<<sl__blocks(it.numel, SL__THREADS), SL__THREADS, 0, s>>>(
          it, (E *)c->arg[2].data, (const E *)c->arg[0].data,
          (const E *)c->arg[1].data, c->p.index);
  SL__CUDA_LAUNCHED(ctx, "select_scatter kernel");
  return SL_STATUS_OK;
}

sl_status sl_select_scatter_cuda_plain(sl_ctx *ctx, sl_call *c) {
  const sl_tensor *x = &c->arg[0], *value = &c->arg[1], *out = &c->arg[2];
  if (sl__numel(out) == 0) return SL_STATUS_OK;
  cudaStream_t s;
  SL__TRY(sl__cuda_begin(ctx, &s));
  const int dim = (int)c->p.dim;
  /* value's coordinates are out's without dim. */
  int64_t vst[SL_MAX_DIMS];
  for (int d = 0, j = 0; d < out->ndim; ++d)
    vst[d] = d == dim ? 0 : value->strides[j++];
  const int64_t *st[3] = {out->strides, x->strides, vst};
  sl__it it = sl__it_make(out->ndim, out->shape, 3, st, dim);
  switch (sl_dtype_size(x->dtype)) {
  case 1:
    return sl__select_scatter_launch<uint8_t>(ctx, s, it, c);
  case 2:
    return sl__select_scatter_launch<uint16_t>(ctx, s, it, c);
  case 4:
    return sl__select_scatter_launch<uint32_t>(ctx, s, it, c);
  case 8:
    return sl__select_scatter_launch<uint64_t>(ctx, s, it, c);
  default:
    return sl__select_scatter_launch<sl__e16>(ctx, s, it, c);
  }
}
