/*
 * A walk of at most two dims (what sl__it_make leaves of a tensor walk
 * whose dims merge): rows along blockIdx.y, columns along the threads, so
 * that no element pays a division, and each thread issues SL__ROWS_UNROLL
 * loads before it waits for any. The copy-like kernels (gather, scatter)
 * are bound by the loads in flight: one per thread left gather along dim 1
 * at 47% of the device's copy bandwidth on an H200 (docs/notes).
 */
#ifndef SL_CUDA_ROWS_CUH
#define SL_CUDA_ROWS_CUH

#include "cuda/cuda_common.cuh"

/* Columns per thread, SL__THREADS apart (each unrolled load coalesces). */
enum { SL__ROWS_UNROLL = 4 };
/* Rows narrower than this keep the general walk: most of a block's threads
 * would have no column. */
enum { SL__ROWS_MIN_COLS = 128 };

/* Row and column strides of NT tensors, in the offset type O (int32_t when
 * every offset fits, as for sl__it_at's 32-bit walk). */
template <int NT, class O> struct sl__rows {
  int64_t rows, cols;
  O rs[NT], cs[NT];
};

static inline bool sl__rows_fit(const sl__it &it) {
  return it.ndim >= 1 && it.ndim <= 2 &&
         it.shape[it.ndim - 1] >= SL__ROWS_MIN_COLS;
}

template <int NT, class O>
static sl__rows<NT, O> sl__rows_of(const sl__it &it) {
  sl__rows<NT, O> w;
  const int lo = it.ndim - 1;
  w.cols = it.shape[lo];
  w.rows = lo ? it.shape[0] : 1;
  for (int t = 0; t < NT; ++t) {
    w.cs[t] = (O)it.st[t][lo];
    w.rs[t] = lo ? (O)it.st[t][0] : 0;
  }
  return w;
}

/* Whether a walk of three tensors (the last one indexed along a dim of
 * stride `dim_stride` by values below `bound`) fits the 32-bit offsets. */
static inline bool sl__rows_narrow(const sl__it &it, int64_t bound,
                                   int64_t dim_stride) {
  const int64_t st = dim_stride < 0 ? -dim_stride : dim_stride;
  return it.numel <= INT32_MAX && sl__it_span(it, 0) <= INT32_MAX &&
         sl__it_span(it, 1) <= INT32_MAX &&
         sl__it_span(it, 2) + (bound - 1) * st <= INT32_MAX;
}

/* The index check of a rows kernel: v in [0, bound), else the element's
 * row-major position r * cols + c recorded in the verdict slot. */
__device__ __forceinline__ bool sl__rows_ok(int64_t v, int64_t bound, int64_t r,
                                            int64_t cols, int64_t c,
                                            unsigned long long *bad) {
  if (v >= 0 && v < bound) return true;
  atomicMin(bad, (unsigned long long)(r * cols + c));
  return false;
}

/* One block per SL__THREADS * SL__ROWS_UNROLL columns of a row; rows
 * beyond the grid's 65535 are taken in turns (blockIdx.y steps). */
static inline dim3 sl__rows_grid(int64_t rows, int64_t cols) {
  const int64_t per = (int64_t)SL__THREADS * SL__ROWS_UNROLL;
  const int64_t bx = (cols + per - 1) / per;
  const int64_t by = rows < 65535 ? rows : 65535;
  return dim3((unsigned)bx, (unsigned)(by < 1 ? 1 : by));
}

/* The columns of thread threadIdx.x in its block, for a row: c0 + u *
 * blockDim.x for u < SL__ROWS_UNROLL (those below cols). */
__device__ __forceinline__ int64_t sl__rows_c0(void) {
  return (int64_t)blockIdx.x * blockDim.x * SL__ROWS_UNROLL + threadIdx.x;
}

#endif /* SL_CUDA_ROWS_CUH */
