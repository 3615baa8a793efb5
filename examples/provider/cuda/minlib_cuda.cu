/*
 * minlibcuda: the GPU counterpart of ../minlib.c, a scatterlab provider with
 * one variant, cuda.atomic_min: scatter_reduce with reduce=amin (slots
 * x index src | out) for f32, i32 and i64 on the device.
 *
 *   out = x (a strided copy); with include_self=0 every targeted element
 *   then takes amin's identity (+inf, or the highest integer); then every
 *   index position i combines src[i] into out[i with i_dim := index[i]]:
 *   atomicMin for the integers, a compare-and-swap loop on the bit pattern
 *   for f32 (a NaN wins over any number, a NaN in out stays: LibTorch's
 *   amin propagates NaN).
 *
 * Contract (sl/sl_provider.h): every data pointer is device memory; the
 * harness has validated the call on the host (shapes, index values in
 * range, p.dim >= 0) and allocated the outputs; strides are in elements,
 * 0 for a broadcast dimension. Work goes on ctx->cuda_stream; the kernel
 * may return before it finishes: the harness synchronizes the stream and
 * judges any error it reports. Launch errors are reported here, as
 * SL_STATUS_DEVICE_ERROR.
 */
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "sl/sl_provider.h"

/* A row-major walk over ext[0..nd) with the element offsets of up to three
 * tensors; a rank-0 tensor counts as rank 1 of extent 1 (the op's
 * contract), and a dimension a tensor lacks has stride 0. Passed by value
 * to the kernels. */
struct mlc_walk {
  int nd;
  int64_t ext[SL_MAX_DIMS];
  int64_t str[3][SL_MAX_DIMS];
};

static int64_t mlc_extent(const sl_tensor *t, int d) {
  return d < t->ndim ? t->shape[d] : 1;
}
static int64_t mlc_stride(const sl_tensor *t, int d) {
  return d < t->ndim ? t->strides[d] : 0;
}

/* Fills w for shape's extents over ts[0..nt); returns the positions. */
static int64_t mlc_walk_init(mlc_walk *w, int nd, const sl_tensor *shape,
                             int nt, const sl_tensor *const *ts) {
  int64_t n = 1;
  memset(w, 0, sizeof *w);
  w->nd = nd;
  for (int d = 0; d < nd; ++d) {
    w->ext[d] = mlc_extent(shape, d);
    n *= w->ext[d];
    for (int t = 0; t < nt; ++t) w->str[t][d] = mlc_stride(ts[t], d);
  }
  return n;
}

/* The offsets of row-major position n. */
__device__ static void mlc_offsets(const mlc_walk &w, int64_t n,
                                   int64_t off[3]) {
  off[0] = off[1] = off[2] = 0;
  for (int d = w.nd - 1; d >= 0; --d) {
    const int64_t i = n % w.ext[d];
    n /= w.ext[d];
    for (int t = 0; t < 3; ++t) off[t] += i * w.str[t][d];
  }
}

/* Whether b replaces a under amin. */
__device__ static bool mlc_wins(float b, float a) {
  return !isnan(a) && (isnan(b) || b < a);
}

__device__ static void mlc_atomic_min(int32_t *p, int32_t b) {
  atomicMin(p, b);
}
__device__ static void mlc_atomic_min(int64_t *p, int64_t b) {
  /* int64_t is long here; CUDA's 64-bit atomicMin takes long long. */
  atomicMin(reinterpret_cast<long long *>(p), static_cast<long long>(b));
}
__device__ static void mlc_atomic_min(float *p, float b) {
  int *a = reinterpret_cast<int *>(p);
  int old = *reinterpret_cast<volatile int *>(a);
  while (mlc_wins(b, __int_as_float(old))) {
    const int seen = atomicCAS(a, old, __float_as_int(b));
    if (seen == old) break;
    old = seen;
  }
}

/* Grid-stride loop over n positions. */
#define MLC_FOR(i, n)                                                          \
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < (n);    \
       i += (int64_t)gridDim.x * blockDim.x)

/* out = x: the walk's tensors are x and out. */
template <typename T>
__global__ static void mlc_copy(mlc_walk w, int64_t n, const T *x, T *out) {
  MLC_FOR(i, n) {
    int64_t off[3];
    mlc_offsets(w, i, off);
    out[off[1]] = x[off[0]];
  }
}

/* One pass over index: the walk's tensors are index, src and out with
 * out's stride along dim zeroed (the index value gives that coordinate).
 * identity: store it into every targeted element (racing stores of one
 * value); else combine src into it. */
template <typename T>
__global__ static void mlc_scatter(mlc_walk w, int64_t n, const void *index,
                                   int is64, const T *src, T *out,
                                   int64_t ostep, int identity, T ident) {
  MLC_FOR(i, n) {
    int64_t off[3];
    mlc_offsets(w, i, off);
    const int64_t v = is64 ? static_cast<const int64_t *>(index)[off[0]]
                           : static_cast<const int32_t *>(index)[off[0]];
    T *target = out + off[2] + v * ostep;
    if (identity)
      *target = ident;
    else
      mlc_atomic_min(target, src[off[1]]);
  }
}

template <typename T> static T mlc_identity();
template <> float mlc_identity<float>() { return INFINITY; }
template <> int32_t mlc_identity<int32_t>() { return INT32_MAX; }
template <> int64_t mlc_identity<int64_t>() { return INT64_MAX; }

static unsigned mlc_blocks(int64_t n) {
  const int64_t b = (n + 255) / 256;
  return (unsigned)(b < 4096 ? b : 4096);
}

template <typename T> static sl_status mlc_run(sl_ctx *ctx, sl_call *c) {
  const sl_tensor *x = &c->arg[0], *index = &c->arg[1], *src = &c->arg[2];
  const sl_tensor *out = &c->arg[3];
  const int dim = (int)c->p.dim;
  cudaStream_t s = static_cast<cudaStream_t>(ctx->cuda_stream);
  int nd = x->ndim;
  if (index->ndim > nd) nd = index->ndim;
  if (src->ndim > nd) nd = src->ndim;

  mlc_walk wc;
  const sl_tensor *tc[2] = {x, out};
  const int64_t out_n = mlc_walk_init(&wc, out->ndim, out, 2, tc);
  if (out_n == 0) return SL_STATUS_OK;
  mlc_copy<T><<<mlc_blocks(out_n), 256, 0, s>>>(
      wc, out_n, static_cast<const T *>(x->data), static_cast<T *>(out->data));

  sl_tensor out_off_dim = *out;
  if (dim < out_off_dim.ndim) out_off_dim.strides[dim] = 0;
  const sl_tensor *ts[3] = {index, src, &out_off_dim};
  mlc_walk w;
  const int64_t n = mlc_walk_init(&w, nd, index, 3, ts);
  if (n > 0) {
    const int is64 = index->dtype == SL_I64;
    const int64_t ostep = mlc_stride(out, dim);
    /* Launches on one stream run in order: every identity is in place
     * before the first min. */
    for (int identity = c->p.include_self ? 0 : 1; identity >= 0; --identity)
      mlc_scatter<T><<<mlc_blocks(n), 256, 0, s>>>(
          w, n, index->data, is64, static_cast<const T *>(src->data),
          static_cast<T *>(out->data), ostep, identity, mlc_identity<T>());
  }
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess)
    return sl_provider_fail(ctx, SL_STATUS_DEVICE_ERROR,
                            "cuda.atomic_min: kernel launch failed: %s",
                            cudaGetErrorString(e));
  return SL_STATUS_OK;
}

static sl_status mlc_atomic_min_kernel(sl_ctx *ctx, sl_call *c) {
  switch (c->arg[0].dtype) {
  case SL_F32:
    return mlc_run<float>(ctx, c);
  case SL_I32:
    return mlc_run<int32_t>(ctx, c);
  default:
    return mlc_run<int64_t>(ctx, c); /* SL_I64: the caps say so */
  }
}

/* f32, i32, i64; both index dtypes; amin; both include_self values; any
 * rank and layout. Not SL_DETERMINISTIC: threads race to equal values
 * (-0.0 and 0.0, NaNs with different payloads). C++ has designated
 * initializers only from C++20: the fields in order. */
static const sl_provider_variant mlc_variants[] = {
    {SL_OP_SCATTER_REDUCE,
     "cuda.atomic_min",
     SL_DEVICE_CUDA,
     mlc_atomic_min_kernel,
     0,
     {SL_DTYPE_BIT(SL_F32) | SL_DTYPE_BIT(SL_I32) | SL_DTYPE_BIT(SL_I64),
      SL_INDEX_DTYPES_ALL, SL_REDUCE_BIT(SL_REDUCE_AMIN), SL_INCLUDE_SELF_BOTH,
      SL_MAX_DIMS, SL_LAYOUTS_ALL}},
};

static const sl_provider mlc_provider = {
    SL_PROVIDER_ABI_VERSION,
    sizeof(sl_provider),
    "minlibcuda",
    "1.0",
    sizeof mlc_variants / sizeof mlc_variants[0],
    mlc_variants,
    nullptr, /* alloc_faults: its scratch is not counted */
    nullptr, /* release_scratch: it keeps nothing between calls */
};

/* SL_PROVIDER_ENTRY gives the entry point C linkage: the harness looks it
 * up by its C name. */
SL_PROVIDER_ENTRY { return &mlc_provider; }
