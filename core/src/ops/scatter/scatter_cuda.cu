/*
 * scatter on the GPU (cuda.plain): out = x (a device copy), then one thread
 * per element of index writes src's element (or the scalar) to the element
 * of out that it names. Duplicate targets get one of the written values,
 * whichever thread wrote last (scatter.c: any writer may win; sl__st_racy
 * keeps a c128 write whole); the harness judges that with its any-valid
 * oracle. The index check is made in the
 * writing pass, as in gather_cuda.cu (out is unspecified after a failure).
 */
#include <stdio.h>

#include "cuda/cuda_common.cuh"
#include "cuda/cuda_slots.cuh"
#include "cuda/rows.cuh"

/* it walks index's shape; tensor 0 is index, 1 src (unused for a scalar),
 * 2 out with stride 0 along dim (+ v * os_dim). */
template <class E, class I>
__global__ void sl__scatter_k(sl__it it, const I *index, const E *src, E *out,
                              int64_t os_dim, int64_t bound, int has_value,
                              E value, unsigned long long *bad) {
  SL__GRID_STRIDE(i, it.numel) {
    int64_t off[3];
    sl__it_at<3>(it, i, off);
    int64_t v = index[off[0]];
    if (v < 0 || v >= bound) {
      atomicMin(bad, (unsigned long long)i);
      continue;
    }
    sl__st_racy(&out[off[2] + v * os_dim], has_value ? value : src[off[1]]);
  }
}

/* sl__scatter_k over a walk of at most two dims (cuda/rows.cuh): no
 * division per element, SL__ROWS_UNROLL index and src loads in flight per
 * thread before its writes. */
template <class E, class I, class O>
__global__ void sl__scatter_rows_k(sl__rows<3, O> w, const I *index,
                                   const E *src, E *out, int64_t os_dim,
                                   int64_t bound, int has_value, E value,
                                   unsigned long long *bad) {
  const int64_t c0 = sl__rows_c0();
  for (int64_t r = blockIdx.y; r < w.rows; r += gridDim.y) {
    int64_t v[SL__ROWS_UNROLL];
    E e[SL__ROWS_UNROLL];
#pragma unroll
    for (int u = 0; u < SL__ROWS_UNROLL; ++u) {
      const int64_t c = c0 + u * (int64_t)blockDim.x;
      if (c >= w.cols) continue;
      v[u] = index[(O)r * w.rs[0] + (O)c * w.cs[0]];
      e[u] = has_value ? value : src[(O)r * w.rs[1] + (O)c * w.cs[1]];
    }
#pragma unroll
    for (int u = 0; u < SL__ROWS_UNROLL; ++u) {
      const int64_t c = c0 + u * (int64_t)blockDim.x;
      if (c >= w.cols || !sl__rows_ok(v[u], bound, r, w.cols, c, bad)) continue;
      sl__st_racy(&out[(O)r * w.rs[2] + (O)c * w.cs[2] + (O)v[u] * (O)os_dim],
                  e[u]);
    }
  }
}

template <class E, class I>
static sl_status
sl__scatter_launch(sl_ctx *ctx, cudaStream_t s, const sl__it &it,
                   const sl_call *c, int64_t os_dim, int64_t bound,
                   const unsigned char *scalar, unsigned long long *bad) {
  E value;
  memcpy(&value, scalar, sizeof value);
  const I *index = (const I *)c->arg[1].data;
  const E *src = (const E *)c->arg[2].data;
  E *out = (E *)c->arg[3].data;
  /* The 32-bit walk where every offset fits (as gather_cuda.cu). */
  const bool narrow = sl__rows_narrow(it, bound, os_dim);
  if (sl__rows_fit(it) && narrow) {
    const sl__rows<3, int32_t> w = sl__rows_of<3, int32_t>(it);
    sl__scatter_rows_k<E, I, int32_t>
        <<<sl__rows_grid(w.rows, w.cols), SL__THREADS, 0, s>>>(
            w, index, src, out, os_dim, bound, c->p.has_value, value, bad);
  } else if (sl__rows_fit(it)) {
    const sl__rows<3, int64_t> w = sl__rows_of<3, int64_t>(it);
    sl__scatter_rows_k<E, I, int64_t>
        <<<sl__rows_grid(w.rows, w.cols), SL__THREADS, 0, s>>>(
            w, index, src, out, os_dim, bound, c->p.has_value, value, bad);
  } else {
    sl__scatter_k<E, I>
        <<<sl__blocks(it.numel, SL__THREADS), SL__THREADS, 0, s>>>(
            it, index, src, out, os_dim, bound, c->p.has_value, value, bad);
  }
  SL__CUDA_LAUNCHED(ctx, "scatter kernel");
  return SL_STATUS_OK;
}

template <class I>
static sl_status
sl__scatter_by_size(sl_ctx *ctx, cudaStream_t s, const sl__it &it,
                    const sl_call *c, int64_t os_dim, int64_t bound,
                    const unsigned char *scalar, unsigned long long *bad) {
  switch (sl_dtype_size(c->arg[0].dtype)) {
  case 1:
    return sl__scatter_launch<uint8_t, I>(ctx, s, it, c, os_dim, bound, scalar,
                                          bad);
  case 2:
    return sl__scatter_launch<uint16_t, I>(ctx, s, it, c, os_dim, bound, scalar,
                                           bad);
  case 4:
    return sl__scatter_launch<uint32_t, I>(ctx, s, it, c, os_dim, bound, scalar,
                                           bad);
  case 8:
    return sl__scatter_launch<uint64_t, I>(ctx, s, it, c, os_dim, bound, scalar,
                                           bad);
  default:
    return sl__scatter_launch<sl__e16, I>(ctx, s, it, c, os_dim, bound, scalar,
                                          bad);
  }
}

sl_status sl_scatter_cuda_plain(sl_ctx *ctx, sl_call *c) {
  const sl_tensor *x = &c->arg[0], *index = &c->arg[1], *src = &c->arg[2];
  const sl_tensor *out = &c->arg[3];
  cudaStream_t s;
  SL__TRY(sl__cuda_begin(ctx, &s));
  SL__TRY(sl__cuda_copy_strided(ctx, s, out, x));
  if (sl__numel(index) == 0) return SL_STATUS_OK;
  const int dim = (int)c->p.dim;
  /* The scalar in x's dtype, as cpu.serial encodes it. */
  unsigned char scalar[16] = {0};
  if (c->p.has_value) {
    if (sl_dtype_is_int(x->dtype))
      sl__store_i(x->dtype, scalar, c->p.ivalue);
    else
      sl__store_f(x->dtype, scalar, c->p.value);
  }
  /* Rank 0 counts as rank 1 of extent 1 (infer checked the ranks). */
  int64_t sst[SL_MAX_DIMS], ost[SL_MAX_DIMS];
  for (int d = 0; d < index->ndim; ++d) {
    sst[d] = c->p.has_value || src->ndim == 0 ? 0 : src->strides[d];
    ost[d] = d == dim || out->ndim == 0 ? 0 : out->strides[d];
  }
  const int64_t *st[3] = {index->strides, sst, ost};
  sl__it it = sl__it_make(index->ndim, index->shape, 3, st, -1);
  const int64_t os_dim = out->ndim ? out->strides[dim] : 0;
  const int64_t bound = x->ndim ? x->shape[dim] : 1;
  unsigned long long *bad;
  SL__TRY(sl__cuda_slots(ctx, s, 1, &bad));
  if (index->dtype == SL_I64)
    SL__TRY(sl__scatter_by_size<int64_t>(ctx, s, it, c, os_dim, bound, scalar,
                                         bad));
  else
    SL__TRY(sl__scatter_by_size<int32_t>(ctx, s, it, c, os_dim, bound, scalar,
                                         bad));
  int64_t pos, v;
  SL__TRY(sl__cuda_read_bad(ctx, s, bad, index, &pos, &v));
  if (pos < 0) return SL_STATUS_OK;
  char p[160], a[160];
  sl__cuda_pos_str(index, pos, p, sizeof p);
  return sl_ctx_fail(ctx, SL_STATUS_INDEX_OUT_OF_RANGE,
                     "index[%s]=%lld out of range [0,%lld) for dim %d of x %s",
                     p, (long long)v, (long long)bound, dim,
                     sl_shape_str(x->ndim, x->shape, a, sizeof a));
}
