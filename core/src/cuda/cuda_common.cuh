/*
 * Shared device helpers of the cuda.* variants (internal to core/, prefix
 * sl__): CUDA error checking that records a message on the ctx, a
 * stream-ordered workspace, strided iteration with fast integer division,
 * the reduction arithmetic (reduce_ops.h's) by type, atomics, and the
 * device-side index check.
 *
 * Every kernel receives plain structs by value (shapes, strides, dividers),
 * so any stride is accepted. Every CUDA call is checked, and every launch is
 * followed by cudaGetLastError (SL__CUDA_LAUNCHED).
 */
#ifndef SL_CUDA_COMMON_CUH
#define SL_CUDA_COMMON_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

#include "reduce_ops.h"
#include "sl_internal.h"

/* ------------------------------------------------------------------------ */
/* Errors                                                                    */
/* ------------------------------------------------------------------------ */

/* Records a CUDA error on ctx ("what: cudaErrorX (text)") and returns the
 * status: OUT_OF_MEMORY, NO_DEVICE for a machine without a usable device,
 * DEVICE_ERROR otherwise. */
sl_status sl__cuda_fail(sl_ctx *ctx, cudaError_t err, const char *what);

#define SL__CUDA_TRY(ctx, call, what)                                          \
  do {                                                                         \
    cudaError_t sl__e = (call);                                                \
    if (sl__e != cudaSuccess) return sl__cuda_fail((ctx), sl__e, (what));      \
  } while (0)

/* After every kernel launch: a bad configuration (or an earlier error of
 * the stream) is reported here, naming the kernel. */
#define SL__CUDA_LAUNCHED(ctx, what) SL__CUDA_TRY(ctx, cudaGetLastError(), what)

/* Propagates a failed sl_status. */
#define SL__TRY(expr)                                                          \
  do {                                                                         \
    sl_status sl__s = (expr);                                                  \
    if (sl__s != SL_STATUS_OK) return sl__s;                                   \
  } while (0)

/* The stream of ctx and the one-time setup of this process's use of CUDA
 * (the memory pool keeps freed workspace, so that cudaMallocAsync is cheap
 * on every call after the first). */
sl_status sl__cuda_begin(sl_ctx *ctx, cudaStream_t *stream);

/* Set once this process has made a CUDA call (see sl_cuda_device_count). */
extern volatile int sl__cuda_used;

/* Multiprocessors of the current device (for grid sizes). */
int sl__cuda_sms(void);

/* Whether the current device launches cooperative kernels (grid-wide
 * barriers); asked once per device. */
int sl__cuda_coop(void);

/* ------------------------------------------------------------------------ */
/* Workspace: stream-ordered allocations freed when the owner goes out of   */
/* scope (after the kernels queued before the free, by stream order).        */
/* ------------------------------------------------------------------------ */
struct sl__ws {
  sl_ctx *ctx;
  cudaStream_t stream;
  void *p[32];
  int n;
  sl__ws(sl_ctx *c, cudaStream_t s) : ctx(c), stream(s), n(0) {}
  ~sl__ws() {
    for (int i = 0; i < n; ++i) cudaFreeAsync(p[i], stream);
  }
  sl__ws(const sl__ws &) = delete;
  sl__ws &operator=(const sl__ws &) = delete;
  /* count elements of T (at least one), uninitialised. */
  template <class T> sl_status get(T **out, size_t count, const char *what) {
    *out = nullptr;
    if (count == 0) count = 1;
    if (count > SIZE_MAX / sizeof(T) || n == (int)(sizeof p / sizeof p[0]))
      return sl_ctx_fail(ctx, SL_STATUS_OUT_OF_MEMORY,
                         "%s: expected workspace for %zu elements of %zu "
                         "bytes, got a size that cannot be allocated",
                         what, count, sizeof(T));
    void *q = nullptr;
    cudaError_t e = cudaMallocAsync(&q, count * sizeof(T), stream);
    if (e != cudaSuccess) return sl__cuda_fail(ctx, e, what);
    p[n++] = q;
    *out = (T *)q;
    return SL_STATUS_OK;
  }
  /* The same, filled with the byte `byte`. */
  template <class T>
  sl_status get_set(T **out, size_t count, int byte, const char *what) {
    SL__TRY(get(out, count, what));
    SL__CUDA_TRY(
        ctx,
        cudaMemsetAsync(*out, byte, (count ? count : 1) * sizeof(T), stream),
        what);
    return SL_STATUS_OK;
  }
};

/* ------------------------------------------------------------------------ */
/* Launch geometry                                                           */
/* ------------------------------------------------------------------------ */
enum { SL__THREADS = 256 };

/* Blocks for n work items of `per_block` items each: enough to fill the
 * device several times over, at most what grid-stride loops need. */
static inline unsigned sl__blocks(int64_t n, int64_t per_block) {
  int64_t b = (n + per_block - 1) / per_block;
  int64_t cap = (int64_t)sl__cuda_sms() * 32;
  if (b > cap) b = cap;
  return b < 1 ? 1u : (unsigned)b;
}

#define SL__GRID_STRIDE(i, n)                                                  \
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < (n);    \
       i += (int64_t)gridDim.x * blockDim.x)

/* ------------------------------------------------------------------------ */
/* Integer division by a run-time constant. When both the divisor and every */
/* dividend fit in 31 bits, a multiply-high and a shift replace the         */
/* division (the method of PyTorch's IntDivider); otherwise 64-bit division. */
/* ------------------------------------------------------------------------ */
struct sl__divmod {
  int64_t d;
  uint32_t m, s;
  int fast;
};

static inline sl__divmod sl__divmod_make(int64_t d, int64_t max_dividend) {
  sl__divmod v;
  v.d = d > 0 ? d : 1;
  v.m = 0;
  v.s = 0;
  v.fast = v.d <= INT32_MAX && max_dividend <= INT32_MAX;
  if (v.fast) {
    uint32_t s = 0;
    while (s < 32 && ((uint64_t)1 << s) < (uint64_t)v.d) ++s;
    uint64_t one = 1;
    v.s = s;
    v.m = (uint32_t)(((one << 32) * ((one << s) - (uint64_t)v.d)) /
                         (uint64_t)v.d +
                     1);
  }
  return v;
}

/* Host and device, so that core/tests/test_cuda_iter.cu checks it on a
 * machine without a GPU. */
__host__ __device__ __forceinline__ int64_t sl__div(const sl__divmod &v,
                                                    int64_t n) {
  if (v.fast) {
#ifdef __CUDA_ARCH__
    uint32_t t = __umulhi((uint32_t)n, v.m);
#else
    uint32_t t = (uint32_t)(((uint64_t)(uint32_t)n * v.m) >> 32);
#endif
    return (int64_t)((t + (uint32_t)n) >> v.s);
  }
  return n / v.d;
}

/* ------------------------------------------------------------------------ */
/* Strided iteration: a row-major walk over `shape` that yields, for every   */
/* linear position, the element offsets of up to SL__IT_MAX tensors (each    */
/* with its own strides over that shape, 0 for broadcast). Dims of extent 1 */
/* are dropped and neighbours that every tensor walks contiguously are       */
/* merged, so a contiguous case costs one division at most. One dim may be  */
/* kept apart (its coordinate is reported).                                 */
/* ------------------------------------------------------------------------ */
enum { SL__IT_MAX = 4 };

struct sl__it {
  int ndim, nt, keep; /* keep: position of the kept dim, or -1 */
  int64_t numel;
  int64_t shape[SL_MAX_DIMS];
  sl__divmod div[SL_MAX_DIMS];
  int64_t st[SL__IT_MAX][SL_MAX_DIMS];
};

/* strides[t] lists tensor t's strides over shape (ndim entries). keep_dim
 * is a dim of shape whose coordinate the walk reports, or -1. */
sl__it sl__it_make(int ndim, const int64_t *shape, int nt,
                   const int64_t *const *strides, int keep_dim);

/* Offsets of position i; *kc receives the kept dim's coordinate (0 when the
 * kept dim has extent 1). */
/* #pragma unroll for device code only (gcc would warn about it in the host
 * copy of a __host__ __device__ function). */
#ifdef __CUDA_ARCH__
#define SL__UNROLL _Pragma("unroll")
#else
#define SL__UNROLL
#endif

template <int NT>
__host__ __device__ __forceinline__ void sl__it_at(const sl__it &it, int64_t i,
                                                   int64_t (&off)[NT],
                                                   int64_t *kc = nullptr) {
  SL__UNROLL
  for (int t = 0; t < NT; ++t) off[t] = 0;
  if (kc) *kc = 0;
  for (int d = it.ndim - 1; d >= 0; --d) {
    int64_t q = d ? sl__div(it.div[d], i) : 0;
    int64_t c = d ? i - q * it.shape[d] : i;
    SL__UNROLL
    for (int t = 0; t < NT; ++t) off[t] += c * it.st[t][d];
    if (d == it.keep && kc) *kc = c;
    i = q;
  }
}

/* The same walk in 32-bit arithmetic, for kernels whose every offset and
 * position fits (sl__it_span): a 64-bit multiply is several instructions
 * on the GPU, and the offset computation is most of an element's work in a
 * copy-like kernel (PyTorch's OffsetCalculator makes the same choice). */
template <int NT>
__host__ __device__ __forceinline__ void sl__it_at(const sl__it &it, int64_t i,
                                                   int32_t (&off)[NT]) {
  SL__UNROLL
  for (int t = 0; t < NT; ++t) off[t] = 0;
  uint32_t r = (uint32_t)i;
  for (int d = it.ndim - 1; d >= 0; --d) {
    const uint32_t q = d ? (uint32_t)sl__div(it.div[d], r) : 0;
    const uint32_t c = d ? r - q * (uint32_t)it.shape[d] : r;
    SL__UNROLL
    for (int t = 0; t < NT; ++t) off[t] += (int32_t)c * (int32_t)it.st[t][d];
    r = q;
  }
}

/* The largest |offset| tensor t reaches over the walk: with numel, what
 * decides whether the 32-bit walk above may be used. */
int64_t sl__it_span(const sl__it &it, int t);

/* ------------------------------------------------------------------------ */
/* Element types                                                             */
/* ------------------------------------------------------------------------ */

/* 16-byte elements (complex128) move as one 16-byte word, never as two
 * 8-byte halves: two threads writing the same element (duplicate targets,
 * where the ops' contracts let any writer win) would otherwise leave the real
 * part of one and the imaginary part of the other, a value nobody wrote (seen
 * on the H200). sl_run_variant checks the 16-byte alignment, as PyTorch's
 * c10::complex<double> has it. */
struct __align__(16) sl__e16 {
  uint64_t a, b;
};

/* A store to an element that other threads may store to at the same time.
 * For 16-byte elements on sm_90 and later, a 128-bit atomic exchange (the
 * only store that the PTX memory model makes single-copy atomic at that
 * width); before sm_90, one 16-byte vector store, a single transaction on
 * NVIDIA GPUs though the model promises no more than 8 bytes. */
template <class E> __device__ __forceinline__ void sl__st_racy(E *p, E v) {
  *p = v;
}
template <>
__device__ __forceinline__ void sl__st_racy<sl__e16>(sl__e16 *p, sl__e16 v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  atomicExch(p, v);
#else
  *p = v;
#endif
}

/* Accumulation type of a reduction (reduce.h's sl__acc_dtype): f32 for
 * f16 and bf16. */
template <class T> struct sl__acc_of { typedef T type; };
template <> struct sl__acc_of<__half> { typedef float type; };
template <> struct sl__acc_of<__nv_bfloat16> { typedef float type; };

template <class T> struct sl__is_half { static const bool value = false; };
template <> struct sl__is_half<__half> { static const bool value = true; };
template <> struct sl__is_half<__nv_bfloat16> {
  static const bool value = true;
};

template <class A, class T> __device__ __forceinline__ A sl__to_acc(T v) {
  return (A)v;
}
template <>
__device__ __forceinline__ float sl__to_acc<float, __half>(__half v) {
  return __half2float(v);
}
template <>
__device__ __forceinline__ float
sl__to_acc<float, __nv_bfloat16>(__nv_bfloat16 v) {
  return __bfloat162float(v);
}

template <class T, class A> __device__ __forceinline__ T sl__from_acc(A v) {
  return (T)v;
}
template <>
__device__ __forceinline__ __half sl__from_acc<__half, float>(float v) {
  return __float2half_rn(v);
}
template <>
__device__ __forceinline__ __nv_bfloat16
sl__from_acc<__nv_bfloat16, float>(float v) {
  return __float2bfloat16_rn(v);
}

/* Reads an i32 or i64 index element. */
__device__ __forceinline__ int64_t sl__ld_index(const void *base, int is64,
                                                int64_t off) {
  return is64 ? ((const int64_t *)base)[off] : ((const int32_t *)base)[off];
}

/* The dtypes that reduce (the catalogue's computing set, catalog.c) and the
 * floating ones among their accumulation types. */
template <class T> struct sl__reducible { static const bool value = false; };
template <> struct sl__reducible<int32_t> { static const bool value = true; };
template <> struct sl__reducible<int64_t> { static const bool value = true; };
template <> struct sl__reducible<__half> { static const bool value = true; };
template <> struct sl__reducible<__nv_bfloat16> {
  static const bool value = true;
};
template <> struct sl__reducible<float> { static const bool value = true; };
template <> struct sl__reducible<double> { static const bool value = true; };
template <class A> struct sl__is_float { static const bool value = false; };
template <> struct sl__is_float<float> { static const bool value = true; };
template <> struct sl__is_float<double> { static const bool value = true; };

/* ------------------------------------------------------------------------ */
/* Reduction arithmetic (reduce_ops.h's, by type)                            */
/* ------------------------------------------------------------------------ */

/* Data-movement element types only assign (the last value wins). */
template <class A> struct sl__arith {
  static __device__ __forceinline__ A combine(sl_reduce, A, A b) { return b; }
  static __device__ __forceinline__ A identity(sl_reduce) { return A(); }
  static __device__ __forceinline__ A mean(A s, uint64_t) { return s; }
};

/* The combines and identities are reduce_ops.h's, which the CPU kernels
 * share; sl__arith only picks them by type and adds the mean. */
template <> struct sl__arith<float> {
  static __device__ __forceinline__ float combine(sl_reduce r, float a,
                                                  float b) {
    return sl__combine_f32(r, a, b);
  }
  static __device__ __forceinline__ float identity(sl_reduce r) {
    return sl__identity_f32(r);
  }
  /* A float count is exact up to 2^24 and then stops growing, as the
   * LibTorch count tensor of the accumulation dtype does. */
  static __device__ __forceinline__ float mean(float s, uint64_t count) {
    double c = count > (1u << 24) ? (double)(1u << 24) : (double)count;
    return s / (float)c;
  }
};

template <> struct sl__arith<double> {
  static __device__ __forceinline__ double combine(sl_reduce r, double a,
                                                   double b) {
    return sl__combine_f64(r, a, b);
  }
  static __device__ __forceinline__ double identity(sl_reduce r) {
    return sl__identity_f64(r);
  }
  static __device__ __forceinline__ double mean(double s, uint64_t count) {
    return s / (double)count;
  }
};

/* Integers: sum and prod wrap, mean is floor division. */
template <> struct sl__arith<int32_t> {
  static __device__ __forceinline__ int32_t combine(sl_reduce r, int32_t a,
                                                    int32_t b) {
    return sl__combine_i32(r, a, b);
  }
  static __device__ __forceinline__ int32_t identity(sl_reduce r) {
    return sl__identity_i32(r);
  }
  static __device__ __forceinline__ int32_t mean(int32_t s, uint64_t count) {
    return sl__floor_div_i32(s, (int32_t)count);
  }
};
template <> struct sl__arith<int64_t> {
  static __device__ __forceinline__ int64_t combine(sl_reduce r, int64_t a,
                                                    int64_t b) {
    return sl__combine_i64(r, a, b);
  }
  static __device__ __forceinline__ int64_t identity(sl_reduce r) {
    return sl__identity_i64(r);
  }
  static __device__ __forceinline__ int64_t mean(int64_t s, uint64_t count) {
    return sl__floor_div_i64(s, (int64_t)count);
  }
};

/* ------------------------------------------------------------------------ */
/* Atomics                                                                   */
/* ------------------------------------------------------------------------ */

/* Bit-level views for compare-and-swap. */
__device__ __forceinline__ unsigned sl__bits(float v) {
  return __float_as_uint(v);
}
__device__ __forceinline__ unsigned long long sl__bits(double v) {
  return (unsigned long long)__double_as_longlong(v);
}
__device__ __forceinline__ float sl__from_bits(unsigned b, float) {
  return __uint_as_float(b);
}
__device__ __forceinline__ double sl__from_bits(unsigned long long b, double) {
  return __longlong_as_double((long long)b);
}

/*
 * *p = *p ⊕ v for floats with a compare-and-swap loop: exact semantics of
 * sl__arith (NaN propagates, equal values keep the accumulator) whatever
 * the operation. Returns early when the operation would not change *p (the
 * common case of max/min under contention), so losers of a race do not
 * keep the cache line busy.
 */
template <class F>
__device__ __forceinline__ void sl__atomic_cas(F *p, sl_reduce r, F v) {
  typedef decltype(sl__bits(v)) B;
  B *q = (B *)p;
  B old = *(volatile B *)q;
  for (;;) {
    F cur = sl__from_bits(old, v);
    F nv = sl__arith<F>::combine(r, cur, v);
    B nb = sl__bits(nv);
    if (nb == old) return;
    /* A NaN accumulator stays NaN under max/min (any payload will do). */
    if ((r == SL_REDUCE_AMAX || r == SL_REDUCE_AMIN || r == SL_REDUCE_MAX) &&
        isnan(cur))
      return;
    B seen = atomicCAS(q, old, nb);
    if (seen == old) return;
    old = seen;
  }
}

/*
 * Float max/min with one native integer atomic (the sign trick): an IEEE
 * float with the sign bit clear orders like a signed integer of its bits,
 * and one with the sign bit set orders in reverse like an unsigned one. The
 * test must be the sign bit, not v >= 0: -0.0 >= 0 holds, and atomicMax of
 * -0.0's bits (INT_MIN) against -1.0 would keep -1.0 although -0.0 is
 * larger. NaN cannot be ordered this way: it is stored as the bit pattern
 * that no later operation replaces (0x7fff... under max: the largest signed
 * value and, unsigned, below every negative float; 0xffff... under min),
 * which requires that *p holds no other NaN beforehand (callers canonicalise
 * it, see sl__canonical_nan).
 */
__device__ __forceinline__ void sl__atomic_sign_max(float *p, float v) {
  if (isnan(v))
    atomicExch((unsigned *)p, 0x7fffffffu);
  else if (!signbit(v))
    atomicMax((int *)p, __float_as_int(v));
  else
    atomicMin((unsigned *)p, __float_as_uint(v));
}
__device__ __forceinline__ void sl__atomic_sign_min(float *p, float v) {
  if (isnan(v))
    atomicExch((unsigned *)p, 0xffffffffu);
  else if (!signbit(v))
    atomicMin((int *)p, __float_as_int(v));
  else
    atomicMax((unsigned *)p, __float_as_uint(v));
}
__device__ __forceinline__ void sl__atomic_sign_max(double *p, double v) {
  if (isnan(v))
    atomicExch((unsigned long long *)p, 0x7fffffffffffffffull);
  else if (!signbit(v))
    atomicMax((long long *)p, __double_as_longlong(v));
  else
    atomicMin((unsigned long long *)p,
              (unsigned long long)__double_as_longlong(v));
}
__device__ __forceinline__ void sl__atomic_sign_min(double *p, double v) {
  if (isnan(v))
    atomicExch((unsigned long long *)p, 0xffffffffffffffffull);
  else if (!signbit(v))
    atomicMin((long long *)p, __double_as_longlong(v));
  else
    atomicMax((unsigned long long *)p,
              (unsigned long long)__double_as_longlong(v));
}

/* The NaN that the sign trick keeps for reduce r (see above). */
__device__ __forceinline__ float sl__canonical_nan(sl_reduce r, float) {
  return __uint_as_float(r == SL_REDUCE_AMIN ? 0xffffffffu : 0x7fffffffu);
}
__device__ __forceinline__ double sl__canonical_nan(sl_reduce r, double) {
  return __longlong_as_double(r == SL_REDUCE_AMIN ? (long long)-1
                                                  : 0x7fffffffffffffffll);
}

/*
 * *p = *p ⊕ v with the device's atomics. `sign` selects the sign trick for
 * float max/min (else a compare-and-swap loop); sums use native atomicAdd;
 * float prod always loops. Integers: native add (wrapping, as unsigned),
 * max and min; prod loops.
 */
template <class A> struct sl__atomic {
  /* Data-movement element types: assignment, which needs no atomic. */
  static __device__ __forceinline__ void apply(A *p, sl_reduce, A v, bool) {
    *p = v;
  }
};

template <class F> struct sl__atomic_float {
  static __device__ __forceinline__ void apply(F *p, sl_reduce r, F v,
                                               bool sign) {
    switch (r) {
    case SL_REDUCE_SUM:
    case SL_REDUCE_MEAN:
      atomicAdd(p, v);
      return;
    case SL_REDUCE_AMAX:
    case SL_REDUCE_MAX:
      if (sign) {
        sl__atomic_sign_max(p, v);
        return;
      }
      break;
    case SL_REDUCE_AMIN:
      if (sign) {
        sl__atomic_sign_min(p, v);
        return;
      }
      break;
    default:
      break;
    }
    sl__atomic_cas(p, r, v);
  }
};
template <> struct sl__atomic<float> : sl__atomic_float<float> {};
template <> struct sl__atomic<double> : sl__atomic_float<double> {};

template <> struct sl__atomic<int32_t> {
  static __device__ __forceinline__ void apply(int32_t *p, sl_reduce r,
                                               int32_t v, bool) {
    switch (r) {
    case SL_REDUCE_SUM:
    case SL_REDUCE_MEAN:
      atomicAdd((unsigned *)p, (unsigned)v);
      return;
    case SL_REDUCE_AMAX:
    case SL_REDUCE_MAX:
      atomicMax((int *)p, (int)v);
      return;
    case SL_REDUCE_AMIN:
      atomicMin((int *)p, (int)v);
      return;
    default: {
      unsigned *q = (unsigned *)p, old = *(volatile unsigned *)q;
      for (;;) {
        unsigned nv = old * (unsigned)v;
        if (nv == old) return;
        unsigned seen = atomicCAS(q, old, nv);
        if (seen == old) return;
        old = seen;
      }
    }
    }
  }
};

template <> struct sl__atomic<int64_t> {
  static __device__ __forceinline__ void apply(int64_t *p, sl_reduce r,
                                               int64_t v, bool) {
    switch (r) {
    case SL_REDUCE_SUM:
    case SL_REDUCE_MEAN:
      atomicAdd((unsigned long long *)p, (unsigned long long)v);
      return;
    case SL_REDUCE_AMAX:
    case SL_REDUCE_MAX:
      atomicMax((long long *)p, (long long)v);
      return;
    case SL_REDUCE_AMIN:
      atomicMin((long long *)p, (long long)v);
      return;
    default: {
      unsigned long long *q = (unsigned long long *)p;
      unsigned long long old = *(volatile unsigned long long *)q;
      for (;;) {
        unsigned long long nv = old * (unsigned long long)v;
        if (nv == old) return;
        unsigned long long seen = atomicCAS(q, old, nv);
        if (seen == old) return;
        old = seen;
      }
    }
    }
  }
};

/* Loads and stores that bypass the (incoherent) L1 cache: data protected by
 * a lock that other multiprocessors update. */
__device__ __forceinline__ float sl__ld_cg(const float *p) { return __ldcg(p); }
__device__ __forceinline__ double sl__ld_cg(const double *p) {
  return __ldcg(p);
}
__device__ __forceinline__ int32_t sl__ld_cg(const int32_t *p) {
  return __ldcg((const int *)p);
}
__device__ __forceinline__ int64_t sl__ld_cg(const int64_t *p) {
  return (int64_t)__ldcg((const long long *)p);
}
__device__ __forceinline__ void sl__st_cg(float *p, float v) { __stcg(p, v); }
__device__ __forceinline__ void sl__st_cg(double *p, double v) { __stcg(p, v); }
__device__ __forceinline__ void sl__st_cg(int32_t *p, int32_t v) {
  __stcg((int *)p, (int)v);
}
__device__ __forceinline__ void sl__st_cg(int64_t *p, int64_t v) {
  __stcg((long long *)p, (long long)v);
}

/* A spin lock word (0 free, 1 held). Acquire orders the protected loads
 * after it, release publishes the protected stores before it. Independent
 * thread scheduling (sm_70 and later) lets a lane spin while another lane
 * of its warp holds the lock.
 *
 * Waiters read the word (a load from L2) and try the compare-and-swap only
 * when it is free, sleeping twice as long after each failure (up to 1 us).
 * Spinning on atomicCAS itself queued every waiter's atomic in front of the
 * holder's release at L2: on the H100, 61,839 rows of one destination (a
 * fuzz case of dynamic_scatter) took more than 10 s, and scatter_reduce
 * with 2^20 rows on one element (the contention suite's first level) did
 * not finish in 100 s. */
__device__ __forceinline__ void sl__lock(int *lk) {
  unsigned ns = 32;
  while (*(volatile int *)lk != 0 || atomicCAS(lk, 0, 1) != 0) {
    __nanosleep(ns);
    if (ns < 1024) ns *= 2;
  }
  __threadfence();
}
__device__ __forceinline__ void sl__unlock(int *lk) {
  __threadfence();
  atomicExch(lk, 0);
}

/* ------------------------------------------------------------------------ */
/* Device-side index checks                                                  */
/* ------------------------------------------------------------------------ */

/* "3,17": the multi-index of row-major position `linear` of t. */
void sl__cuda_pos_str(const sl_tensor *t, int64_t linear, char *buf,
                      size_t len);

/* The first bad positions reported by kernels through n (at most 4)
 * consecutive slots (UINT64_MAX when none; kernels atomicMin their linear
 * position into one), read in one copy: waits for the stream. pos[k] = -1
 * when slot k holds none. */
sl_status sl__cuda_read_slots(sl_ctx *ctx, cudaStream_t s,
                              const unsigned long long *bad, int n,
                              int64_t *pos);

/* The integer element at row-major position pos of t (on the device). */
sl_status sl__cuda_value_at(sl_ctx *ctx, const sl_tensor *t, int64_t pos,
                            int64_t *value);

/* One slot (sl__cuda_read_slots) and the index element at its position.
 * *pos = -1 when none. */
sl_status sl__cuda_read_bad(sl_ctx *ctx, cudaStream_t s,
                            const unsigned long long *bad,
                            const sl_tensor *index, int64_t *pos,
                            int64_t *value);

/*
 * Finds the first element (row-major) of an integer tensor (i32 or i64, on
 * the device) outside [lo, hi), where hi is his[c] and c the element's
 * coordinate along dim `col_dim` (his[0] for all when col_dim < 0). *pos is
 * -1 when every element is in range. One pass and one wait for the stream.
 */
sl_status sl__cuda_find_bad(sl_ctx *ctx, cudaStream_t s, sl__ws &ws,
                            const sl_tensor *t, int64_t lo, const int64_t *his,
                            int col_dim, int64_t *pos, int64_t *value);

/* The check of sl__check_index_range on the device: every element of index
 * in [0, bound), failing with the same message. */
sl_status sl__cuda_check_index(sl_ctx *ctx, cudaStream_t s, sl__ws &ws,
                               const char *what, const sl_tensor *index,
                               int64_t bound, const char *ctxdesc);

/*
 * The same check made by the kernels that read the index, for the reducing
 * ops: a value outside [0, hi) makes its row skipped and its row-major
 * position recorded (the smallest wins), and the call reads the verdict
 * once, after its last kernel (sl__guard_close). A separate checking pass
 * would read the index once more and, worse, wait for the device in the
 * middle of the call: on the GPU that wait cost more than the reduction
 * itself on 2^20 updates. out is unspecified after a failure, as on the CPU.
 */
struct sl__guard {
  unsigned long long *bad;
  int64_t hi;
  __device__ __forceinline__ bool ok(int64_t v, int64_t pos) const {
    if (v >= 0 && v < hi) return true;
    atomicMin(bad, (unsigned long long)pos);
    return false;
  }
};

sl_status sl__guard_open(sl__ws &ws, int64_t hi, sl__guard *g);

/* After the kernels: sl__cuda_check_index's failure when a value was out. */
sl_status sl__guard_close(sl_ctx *ctx, cudaStream_t s, const sl__guard &g,
                          const char *what, const sl_tensor *index,
                          const char *ctxdesc);

/* out := x elementwise (same shape, any strides), on the device. */
sl_status sl__cuda_copy_strided(sl_ctx *ctx, cudaStream_t s,
                                const sl_tensor *out, const sl_tensor *x);

#endif /* SL_CUDA_COMMON_CUH */
