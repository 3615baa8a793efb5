/*
 * gather on the GPU (cuda.plain): one thread per element of index, which
 * reads its index value, checks it and copies x's element to out. Every
 * element of out has exactly one writer, so the result is deterministic.
 *
 * The index check is made in the same pass (a separate checking pass would
 * read the index twice and cost a third of the bandwidth): an out-of-range
 * value is never followed, its position is recorded with atomicMin, and the
 * call fails with the message of the CPU check; out is then unspecified.
 */
#include <stdio.h>

#include "cuda/cuda_common.cuh"
#include "cuda/cuda_slots.cuh"
#include "cuda/rows.cuh"

/* Elements handled per thread and loop trip: their index loads are issued
 * together, then their x loads, so several loads are in flight. */
enum { SL__GATHER_UNROLL = 4 };

/* it walks index's shape; tensor 0 is out, 1 index, 2 x with stride 0 along
 * dim (the index value supplies that coordinate: + v * xs_dim). O is the
 * offset type: int32_t when every position and offset fits (the launcher
 * checks), which makes the walk 32-bit arithmetic. */
template <class E, class I, class O>
__global__ void sl__gather_k(sl__it it, E *out, const I *index, const E *x,
                             int64_t xs_dim, int64_t bound,
                             unsigned long long *bad) {
  const int64_t n = it.numel;
  const int64_t step = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i0 = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i0 < n;
       i0 += step * SL__GATHER_UNROLL) {
    O off[SL__GATHER_UNROLL][3];
    int64_t v[SL__GATHER_UNROLL];
#pragma unroll
    for (int u = 0; u < SL__GATHER_UNROLL; ++u) {
      int64_t i = i0 + u * step;
      if (i < n) {
        sl__it_at<3>(it, i, off[u]);
        v[u] = index[off[u][1]];
      }
    }
#pragma unroll
    for (int u = 0; u < SL__GATHER_UNROLL; ++u) {
      int64_t i = i0 + u * step;
      if (i >= n) continue;
      if (v[u] < 0 || v[u] >= bound) {
        atomicMin(bad, (unsigned long long)i);
        continue;
      }
      out[off[u][0]] = x[off[u][2] + (O)v[u] * (O)xs_dim];
    }
  }
}

/* sl__gather_k over a walk of at most two dims (cuda/rows.cuh): no division
 * per element, SL__ROWS_UNROLL index loads in flight per thread before its
 * x loads. r * cols + c is the element's row-major position. */
template <class E, class I, class O>
__global__ void sl__gather_rows_k(sl__rows<3, O> w, E *out, const I *index,
                                  const E *x, int64_t xs_dim, int64_t bound,
                                  unsigned long long *bad) {
  const int64_t c0 = sl__rows_c0();
  for (int64_t r = blockIdx.y; r < w.rows; r += gridDim.y) {
    int64_t v[SL__ROWS_UNROLL];
#pragma unroll
    for (int u = 0; u < SL__ROWS_UNROLL; ++u) {
      const int64_t c = c0 + u * (int64_t)blockDim.x;
      if (c < w.cols) v[u] = index[(O)r * w.rs[1] + (O)c * w.cs[1]];
    }
#pragma unroll
    for (int u = 0; u < SL__ROWS_UNROLL; ++u) {
      const int64_t c = c0 + u * (int64_t)blockDim.x;
      if (c >= w.cols || !sl__rows_ok(v[u], bound, r, w.cols, c, bad)) continue;
      out[(O)r * w.rs[0] + (O)c * w.cs[0]] =
          x[(O)r * w.rs[2] + (O)c * w.cs[2] + (O)v[u] * (O)xs_dim];
    }
  }
}

template <class E, class I, class O>
static void sl__gather_rows_launch(cudaStream_t s, const sl__it &it, E *out,
                                   const I *index, const E *x, int64_t xs_dim,
                                   int64_t bound, unsigned long long *bad) {
  const sl__rows<3, O> w = sl__rows_of<3, O>(it);
  sl__gather_rows_k<E, I, O>
      <<<sl__rows_grid(w.rows, w.cols), SL__THREADS, 0, s>>>(
          w, out, index, x, xs_dim, bound, bad);
}

template <class E, class I>
static sl_status sl__gather_launch(sl_ctx *ctx, cudaStream_t s,
                                   const sl__it &it, const sl_call *c,
                                   int64_t xs_dim, int64_t bound,
                                   unsigned long long *bad) {
  const unsigned blocks = sl__blocks(it.numel, SL__THREADS * SL__GATHER_UNROLL);
  E *out = (E *)c->arg[2].data;
  const I *index = (const I *)c->arg[1].data;
  const E *x = (const E *)c->arg[0].data;
  const bool narrow = sl__rows_narrow(it, bound, xs_dim);
  const bool rowwise = sl__rows_fit(it);
  if (rowwise && narrow)
    sl__gather_rows_launch<E, I, int32_t>(s, it, out, index, x, xs_dim, bound,
                                          bad);
  else if (rowwise)
    sl__gather_rows_launch<E, I, int64_t>(s, it, out, index, x, xs_dim, bound,
                                          bad);
  else if (narrow)
    sl__gather_k<E, I, int32_t>
        <<<blocks, SL__THREADS, 0, s>>>(it, out, index, x, xs_dim, bound, bad);
  else
    sl__gather_k<E, I, int64_t>
        <<<blocks, SL__THREADS, 0, s>>>(it, out, index, x, xs_dim, bound, bad);
  SL__CUDA_LAUNCHED(ctx, "gather kernel");
  return SL_STATUS_OK;
}

template <class I>
static sl_status sl__gather_by_size(sl_ctx *ctx, cudaStream_t s,
                                    const sl__it &it, const sl_call *c,
                                    int64_t xs_dim, int64_t bound,
                                    unsigned long long *bad) {
  switch (sl_dtype_size(c->arg[0].dtype)) {
  case 1:
    return sl__gather_launch<uint8_t, I>(ctx, s, it, c, xs_dim, bound, bad);
  case 2:
    return sl__gather_launch<uint16_t, I>(ctx, s, it, c, xs_dim, bound, bad);
  case 4:
    return sl__gather_launch<uint32_t, I>(ctx, s, it, c, xs_dim, bound, bad);
  case 8:
    return sl__gather_launch<uint64_t, I>(ctx, s, it, c, xs_dim, bound, bad);
  default:
    return sl__gather_launch<sl__e16, I>(ctx, s, it, c, xs_dim, bound, bad);
  }
}

sl_status sl_gather_cuda_plain(sl_ctx *ctx, sl_call *c) {
  const sl_tensor *x = &c->arg[0], *index = &c->arg[1], *out = &c->arg[2];
  if (sl__numel(index) == 0) return SL_STATUS_OK;
  cudaStream_t s;
  SL__TRY(sl__cuda_begin(ctx, &s));
  const int dim = (int)c->p.dim;
  /* A rank-0 x or index counts as rank 1 of extent 1 (infer checked the
   * ranks): x's strides over index's shape, 0 along dim. */
  int64_t xst[SL_MAX_DIMS];
  for (int d = 0; d < index->ndim; ++d)
    xst[d] = d == dim || x->ndim == 0 ? 0 : x->strides[d];
  const int64_t *st[3] = {out->strides, index->strides, xst};
  sl__it it = sl__it_make(index->ndim, index->shape, 3, st, -1);
  const int64_t xs_dim = x->ndim ? x->strides[dim] : 0;
  const int64_t bound = x->ndim ? x->shape[dim] : 1;
  unsigned long long *bad;
  SL__TRY(sl__cuda_slots(ctx, s, 1, &bad));
  if (index->dtype == SL_I64)
    SL__TRY(sl__gather_by_size<int64_t>(ctx, s, it, c, xs_dim, bound, bad));
  else
    SL__TRY(sl__gather_by_size<int32_t>(ctx, s, it, c, xs_dim, bound, bad));
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
