/*
 * gather_nd on the GPU (cuda.plain): one thread per position of
 * index.shape[:-1]; it reads the position's M index values, checks each
 * against its axis and copies the element of x they name. One writer per
 * element of out: deterministic. The index check is made in the same pass,
 * as in gather_cuda.cu (out is unspecified after a failure).
 */
#include <stdio.h>

#include "cuda/cuda_common.cuh"
#include "cuda/cuda_slots.cuh"
#include "ops/gather_nd/nd_index.h"

/* The M indexed axes: step of index along its last dim, and per column the
 * x stride and bound of axis dims[k]. */
struct sl__nd_cols {
  int m;
  int64_t istep;
  int64_t xs[SL_MAX_DIMS];
  int64_t bound[SL_MAX_DIMS];
};

/* it walks index.shape[:-1]; tensor 0 is out, 1 index, 2 x with stride 0 on
 * the indexed axes. A bad value records its row-major position in index
 * (position * M + column). */
template <class E, class I>
__global__ void sl__gather_nd_k(sl__it it, sl__nd_cols cols, E *out,
                                const I *index, const E *x,
                                unsigned long long *bad) {
  SL__GRID_STRIDE(i, it.numel) {
    int64_t off[3];
    sl__it_at<3>(it, i, off);
    int64_t xo = off[2];
    int ok = 1;
    for (int k = 0; k < cols.m; ++k) {
      int64_t v = index[off[1] + k * cols.istep];
      if (v < 0 || v >= cols.bound[k]) {
        atomicMin(bad, (unsigned long long)(i * cols.m + k));
        ok = 0;
        break;
      }
      xo += v * cols.xs[k];
    }
    if (ok) out[off[0]] = x[xo];
  }
}

template <class E, class I>
static sl_status sl__gather_nd_launch(sl_ctx *ctx, cudaStream_t s,
                                      const sl__it &it, const sl__nd_cols &cols,
                                      const sl_call *c,
                                      unsigned long long *bad) {
  sl__gather_nd_k<E, I>
      <<<sl__blocks(it.numel, SL__THREADS), SL__THREADS, 0, s>>>(
          it, cols, (E *)c->arg[2].data, (const I *)c->arg[1].data,
          (const E *)c->arg[0].data, bad);
  SL__CUDA_LAUNCHED(ctx, "gather_nd kernel");
  return SL_STATUS_OK;
}

template <class I>
static sl_status
sl__gather_nd_by_size(sl_ctx *ctx, cudaStream_t s, const sl__it &it,
                      const sl__nd_cols &cols, const sl_call *c,
                      unsigned long long *bad) {
  switch (sl_dtype_size(c->arg[0].dtype)) {
  case 1:
    return sl__gather_nd_launch<uint8_t, I>(ctx, s, it, cols, c, bad);
  case 2:
    return sl__gather_nd_launch<uint16_t, I>(ctx, s, it, cols, c, bad);
  case 4:
    return sl__gather_nd_launch<uint32_t, I>(ctx, s, it, cols, c, bad);
  case 8:
    return sl__gather_nd_launch<uint64_t, I>(ctx, s, it, cols, c, bad);
  default:
    return sl__gather_nd_launch<sl__e16, I>(ctx, s, it, cols, c, bad);
  }
}

sl_status sl_gather_nd_cuda_plain(sl_ctx *ctx, sl_call *c) {
  const sl_tensor *x = &c->arg[0], *index = &c->arg[1], *out = &c->arg[2];
  const int K = x->ndim;
  if (sl__nd_positions(index) == 0) return SL_STATUS_OK;
  cudaStream_t s;
  SL__TRY(sl__cuda_begin(ctx, &s));
  sl__nd_cols cols;
  memset(&cols, 0, sizeof cols);
  cols.m = c->p.ndims;
  cols.istep = index->strides[K];
  int64_t xst[SL_MAX_DIMS];
  for (int d = 0; d < K; ++d) xst[d] = x->strides[d];
  for (int k = 0; k < cols.m; ++k) {
    int64_t d = c->p.dims[k];
    cols.xs[k] = x->strides[d];
    cols.bound[k] = x->shape[d];
    xst[d] = 0;
  }
  const int64_t *st[3] = {out->strides, index->strides, xst};
  sl__it it = sl__it_make(K, index->shape, 3, st, -1);
  unsigned long long *bad;
  SL__TRY(sl__cuda_slots(ctx, s, 1, &bad));
  if (index->dtype == SL_I64)
    SL__TRY(sl__gather_nd_by_size<int64_t>(ctx, s, it, cols, c, bad));
  else
    SL__TRY(sl__gather_nd_by_size<int32_t>(ctx, s, it, cols, c, bad));
  int64_t pos, v;
  SL__TRY(sl__cuda_read_bad(ctx, s, bad, index, &pos, &v));
  if (pos < 0) return SL_STATUS_OK;
  char p[160], a[160];
  sl__cuda_pos_str(index, pos, p, sizeof p);
  const int64_t d = c->p.dims[pos % (cols.m ? cols.m : 1)];
  return sl_ctx_fail(ctx, SL_STATUS_INDEX_OUT_OF_RANGE,
                     "index[%s]=%lld out of range [0,%lld) for dim %lld of x "
                     "%s",
                     p, (long long)v, (long long)x->shape[d], (long long)d,
                     sl_shape_str(x->ndim, x->shape, a, sizeof a));
}
