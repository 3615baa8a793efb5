/*
 * masked_scatter on the GPU (cuda.plain): seed 003's prefix sum over the
 * mask, without materialising it per element.
 *
 *   1. Each warp owns a chunk of SL__MS_CHUNK consecutive positions of x
 *      (row-major) and counts its true mask positions (ballot + popc).
 *   2. An exclusive prefix sum over the chunk counts (CUB) gives every chunk
 *      the index of its first source element, and the total: the mask's
 *      true count.
 *   3. Each warp walks its chunk again, 32 positions at a time: a ballot and
 *      a popc of the lanes below give each true position its rank, so lane
 *      l writes source[first + rank] or x's element. Every element of out is
 *      written once: deterministic. A rank past source's end is not
 *      written (nor read).
 *   4. The true count is read back and checked against source's length
 *      (one read-back, after the write: the device never idles waiting for
 *      the host mid-call). A short source fails the call with out's
 *      contents unspecified, as sl_infer's contract allows the one-pass
 *      kernels.
 *
 * Bytes: the mask is read twice (one byte per element), x, source and out
 * once, and the chunk counts are negligible. Contiguous calls take the
 * flat kernels of masked_scatter_cuda_flat.cuh (the same chunks).
 */
#include <cub/device/device_scan.cuh>
#include <stdio.h>

#include "cuda/cuda_common.cuh"
#include "ops/masked_scatter/masked_scatter.h"
#include "ops/masked_scatter/masked_scatter_cuda_flat.cuh"

/* it walks x's shape; tensor 0 is out, 1 x, 2 the mask broadcast to x. */
__global__ void sl__ms_count_k(sl__it it, const unsigned char *mask,
                               int64_t chunks, unsigned long long *counts) {
  const int lane = threadIdx.x & 31;
  const int64_t warps = (int64_t)gridDim.x * (blockDim.x / 32);
  for (int64_t w = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
       w < chunks; w += warps) {
    unsigned long long n = 0;
    for (int k = 0; k < SL__MS_ITEMS; ++k) {
      int64_t p = w * SL__MS_CHUNK + k * 32 + lane;
      int f = 0;
      if (p < it.numel) {
        int64_t off[3];
        sl__it_at<3>(it, p, off);
        f = mask[off[2]] != 0;
      }
      n += (unsigned)__popc(__ballot_sync(0xffffffffu, f));
    }
    if (lane == 0) counts[w] = n;
  }
}

/* sit walks source's shape (tensor 0: source). */
template <class E>
__global__ void sl__ms_write_k(sl__it it, sl__it sit, E *out, const E *x,
                               const unsigned char *mask, const E *source,
                               int64_t chunks, const unsigned long long *first,
                               int64_t have) {
  const int lane = threadIdx.x & 31;
  const unsigned below = (1u << lane) - 1u;
  const int64_t warps = (int64_t)gridDim.x * (blockDim.x / 32);
  for (int64_t w = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
       w < chunks; w += warps) {
    int64_t k0 = (int64_t)first[w];
    for (int k = 0; k < SL__MS_ITEMS; ++k) {
      int64_t p = w * SL__MS_CHUNK + k * 32 + lane;
      int64_t off[3] = {0, 0, 0};
      int f = 0;
      if (p < it.numel) {
        sl__it_at<3>(it, p, off);
        f = mask[off[2]] != 0;
      }
      unsigned b = __ballot_sync(0xffffffffu, f);
      if (p < it.numel) {
        const int64_t rank = k0 + __popc(b & below);
        if (f && rank < have) {
          int64_t so[1];
          sl__it_at<1>(sit, rank, so);
          out[off[0]] = source[so[0]];
        } else if (!f) {
          out[off[0]] = x[off[1]];
        }
      }
      k0 += __popc(b);
    }
  }
}

template <class E>
static sl_status sl__ms_write(sl_ctx *ctx, cudaStream_t s, const sl__it &it,
                              const sl__it &sit, const sl_call *c,
                              int64_t chunks, const unsigned long long *first) {
  const unsigned blocks = sl__blocks(chunks, SL__THREADS / 32);
  E *out = (E *)c->arg[3].data;
  const E *x = (const E *)c->arg[0].data, *source = (const E *)c->arg[2].data;
  const unsigned char *mask = (const unsigned char *)c->arg[1].data;
  const int64_t have = sit.numel;
  if (sl__ms_flat(it, sit, mask))
    sl__ms_write_flat_k<E><<<blocks, SL__THREADS, 0, s>>>(
        it.numel, out, x, mask, source, chunks, first, have);
  else
    sl__ms_write_k<E><<<blocks, SL__THREADS, 0, s>>>(
        it, sit, out, x, mask, source, chunks, first, have);
  SL__CUDA_LAUNCHED(ctx, "masked_scatter write kernel");
  return SL_STATUS_OK;
}

static sl_status sl__ms_write_as(sl_ctx *ctx, cudaStream_t s, const sl__it &it,
                                 const sl__it &sit, const sl_call *c,
                                 int64_t chunks,
                                 const unsigned long long *first) {
  switch (sl_dtype_size(c->arg[0].dtype)) {
  case 1:
    return sl__ms_write<uint8_t>(ctx, s, it, sit, c, chunks, first);
  case 2:
    return sl__ms_write<uint16_t>(ctx, s, it, sit, c, chunks, first);
  case 4:
    return sl__ms_write<uint32_t>(ctx, s, it, sit, c, chunks, first);
  case 8:
    return sl__ms_write<uint64_t>(ctx, s, it, sit, c, chunks, first);
  default:
    return sl__ms_write<sl__e16>(ctx, s, it, sit, c, chunks, first);
  }
}

/* first[w] for every chunk w, and first[chunks] the mask's true count. */
static sl_status sl__ms_first(sl_ctx *ctx, cudaStream_t s, sl__ws &ws,
                              const sl__it &it, const sl__it &sit,
                              const unsigned char *mask, int64_t chunks,
                              unsigned long long **first) {
  /* counts[chunks] stays 0, so first[chunks] is the true count. */
  unsigned long long *counts;
  SL__TRY(ws.get_set(&counts, (size_t)chunks + 1, 0, "masked_scatter: counts"));
  SL__TRY(ws.get(first, (size_t)chunks + 1, "masked_scatter: offsets"));
  const unsigned blocks = sl__blocks(chunks, SL__THREADS / 32);
  if (sl__ms_flat(it, sit, mask))
    sl__ms_count_flat_k<<<blocks, SL__THREADS, 0, s>>>(it.numel, mask, chunks,
                                                       counts);
  else
    sl__ms_count_k<<<blocks, SL__THREADS, 0, s>>>(it, mask, chunks, counts);
  SL__CUDA_LAUNCHED(ctx, "masked_scatter count kernel");
  size_t tmp_bytes = 0;
  SL__CUDA_TRY(ctx,
               cub::DeviceScan::ExclusiveSum(nullptr, tmp_bytes, counts, *first,
                                             chunks + 1, s),
               "masked_scatter: scan size");
  unsigned char *tmp;
  SL__TRY(ws.get(&tmp, tmp_bytes, "masked_scatter: scan workspace"));
  SL__CUDA_TRY(ctx,
               cub::DeviceScan::ExclusiveSum(tmp, tmp_bytes, counts, *first,
                                             chunks + 1, s),
               "masked_scatter: scan");
  return SL_STATUS_OK;
}

sl_status sl_masked_scatter_cuda_plain(sl_ctx *ctx, sl_call *c) {
  const sl_tensor *x = &c->arg[0], *mask = &c->arg[1], *source = &c->arg[2];
  const sl_tensor *out = &c->arg[3];
  const int64_t n = sl__numel(x);
  if (n == 0) return SL_STATUS_OK;
  cudaStream_t s;
  SL__TRY(sl__cuda_begin(ctx, &s));
  sl__ws ws(ctx, s);
  int64_t ms[SL_MAX_DIMS];
  sl__mask_strides(x, mask, ms);
  const int64_t *st[3] = {out->strides, x->strides, ms};
  sl__it it = sl__it_make(x->ndim, x->shape, 3, st, -1);
  const int64_t *sst[1] = {source->strides};
  sl__it sit = sl__it_make(source->ndim, source->shape, 1, sst, -1);
  const int64_t chunks = (n + SL__MS_CHUNK - 1) / SL__MS_CHUNK;
  unsigned long long *first;
  SL__TRY(sl__ms_first(ctx, s, ws, it, sit, (const unsigned char *)mask->data,
                       chunks, &first));
  SL__TRY(sl__ms_write_as(ctx, s, it, sit, c, chunks, first));
  /* The count is read after the write, which takes no source element past
   * the end, so the device does not wait for the host in between. */
  unsigned long long total = 0;
  SL__CUDA_TRY(ctx,
               cudaMemcpyAsync(&total, first + chunks, sizeof total,
                               cudaMemcpyDeviceToHost, s),
               "masked_scatter: read the true count");
  SL__CUDA_TRY(ctx, cudaStreamSynchronize(s), "masked_scatter: wait");
  const int64_t have = sl__numel(source);
  if ((int64_t)total > have)
    return sl_ctx_fail(ctx, SL_STATUS_SHAPE_MISMATCH,
                       "source: expected at least %lld elements (the mask's "
                       "true count), got %lld",
                       (long long)total, (long long)have);
  return SL_STATUS_OK;
}
