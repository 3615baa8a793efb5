/*
 * masked_scatter on the GPU when out, x and the mask are one contiguous run
 * of the same positions (the mask not broadcast) and source is contiguous:
 * the chunked scheme of masked_scatter_cuda.cu without its per-element
 * walk, and with the mask read in 16-byte words.
 *
 * A chunk of SL__MS_CHUNK positions is 32 steps of 32 positions. Lane l
 * loads the chunk's bytes [32 l, 32 l + 32), which are exactly step l's
 * flags, and packs them into one 32-bit word. Step k's flags are then lane
 * k's word (one shuffle), and the rank of the step's first true position is
 * an exclusive scan of the words' popcounts over the lanes: no step waits
 * for the one before, so a warp has all its loads of x and source in
 * flight at once. The general kernel loaded the mask one byte per lane
 * (32 bytes a warp-wide load) and carried the rank from step to step.
 */
#ifndef SL_MASKED_SCATTER_CUDA_FLAT_CUH
#define SL_MASKED_SCATTER_CUDA_FLAT_CUH

#include "cuda/cuda_common.cuh"

enum { SL__MS_ITEMS = 32, SL__MS_CHUNK = 32 * SL__MS_ITEMS };

/* Bit b set when byte b of w is non-zero (4 bits). */
__device__ __forceinline__ unsigned sl__ms_nibble(unsigned w) {
  const unsigned ones = __vcmpne4(w, 0u) & 0x01010101u;
  /* Bytes' low bits 0, 8, 16, 24 land on bits 24..27 with no carries. */
  return (ones * 0x01020408u) >> 24;
}

/* Lane's 32 flags of chunk w: positions w * SL__MS_CHUNK + 32 lane + b,
 * as bit b (positions at or past n read as false). */
__device__ __forceinline__ unsigned
sl__ms_flags(const unsigned char *mask, int64_t n, int64_t w, unsigned lane) {
  const int64_t p0 = w * SL__MS_CHUNK + (int64_t)lane * 32;
  unsigned bits = 0;
  if (p0 + 32 <= n) {
    const uint4 *q = (const uint4 *)(mask + p0);
    const uint4 a = q[0], b = q[1];
    const unsigned v[8] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w};
    SL__UNROLL
    for (int i = 0; i < 8; ++i) bits |= sl__ms_nibble(v[i]) << (4 * i);
  } else {
    for (int64_t b = 0; b < 32 && p0 + b < n; ++b)
      bits |= (unsigned)(mask[p0 + b] != 0) << b;
  }
  return bits;
}

__global__ void sl__ms_count_flat_k(int64_t n, const unsigned char *mask,
                                    int64_t chunks,
                                    unsigned long long *counts) {
  const unsigned lane = threadIdx.x & 31u;
  const int64_t warps = (int64_t)gridDim.x * (blockDim.x / 32);
  for (int64_t w = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
       w < chunks; w += warps) {
    unsigned c = (unsigned)__popc(sl__ms_flags(mask, n, w, lane));
    for (int o = 16; o > 0; o >>= 1) c += __shfl_xor_sync(0xffffffffu, c, o);
    if (lane == 0) counts[w] = c;
  }
}

/* first[w]: the source element of chunk w's first true position; ranks
 * from have on are not written. */
template <class E>
__global__ void
sl__ms_write_flat_k(int64_t n, E *out, const E *x, const unsigned char *mask,
                    const E *source, int64_t chunks,
                    const unsigned long long *first, int64_t have) {
  const unsigned lane = threadIdx.x & 31u, below = (1u << lane) - 1u;
  const int64_t warps = (int64_t)gridDim.x * (blockDim.x / 32);
  for (int64_t w = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
       w < chunks; w += warps) {
    const unsigned mine = sl__ms_flags(mask, n, w, lane);
    const int cnt = __popc(mine);
    int upto = cnt; /* inclusive scan of the counts over the lanes */
    for (int o = 1; o < 32; o <<= 1) {
      const int t = __shfl_up_sync(0xffffffffu, upto, o);
      if ((int)lane >= o) upto += t;
    }
    const int64_t rank0 = (int64_t)first[w] + (upto - cnt);
    const int64_t p0 = w * SL__MS_CHUNK + lane;
#pragma unroll 8
    for (int k = 0; k < SL__MS_ITEMS; ++k) {
      const unsigned b = __shfl_sync(0xffffffffu, mine, k);
      const int64_t r = __shfl_sync(0xffffffffu, rank0, k);
      const int64_t p = p0 + k * 32;
      if (p >= n) continue;
      const int64_t rank = r + __popc(b & below);
      if (!((b >> lane) & 1u))
        out[p] = x[p];
      else if (rank < have) /* past the end: the call fails */
        out[p] = source[rank];
    }
  }
}

/* Whether the flat kernels apply: out, x and the mask (tensors 0-2 of it)
 * and source (sit) walked with unit strides, the mask 16-byte aligned. */
static inline bool sl__ms_flat(const sl__it &it, const sl__it &sit,
                               const void *mask) {
  bool unit = it.ndim == 0 || (it.ndim == 1 && it.st[0][0] == 1 &&
                               it.st[1][0] == 1 && it.st[2][0] == 1);
  unit = unit && (sit.ndim == 0 || (sit.ndim == 1 && sit.st[0][0] == 1));
  return unit && ((uintptr_t)mask & 15u) == 0;
}

#endif /* SL_MASKED_SCATTER_CUDA_FLAT_CUH */
