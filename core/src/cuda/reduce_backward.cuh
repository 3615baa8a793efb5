/*
 * The backward of scatter_reduce and index_reduce on the GPU, written once
 * for both: the formulas of reduce.h (above sl__rbline) as the CPU's
 * reduce_backward.c computes them, element by element instead of line by
 * line.
 *
 * The model: x has `npos` positions (row-major); grad_out, x, result and
 * grad_x are tensors of x's shape, each with its own strides. There are
 * `ncon` contributions (scatter_reduce: the elements of index, src and
 * grad_src; index_reduce: the elements of updates and grad_updates), each
 * aimed at one position t of x. An op describes that with sl__rb_addr.
 *
 * Per position, the reduction needs a little state: how many contributions
 * it has (mean), how many equal the result (amax/amin), and for prod the
 * products A (x with zeros masked, times every src), R (x times every src,
 * the forward in the accumulation dtype) and B (x times every src but a
 * single zero), and the number of zero srcs. Then one kernel over the
 * positions writes grad_x and one over the contributions grad_src, and
 * with include_self = false one more zeroes grad_x where a contribution
 * lands. The strategies differ only in how the state is gathered:
 *
 *   atomic  one thread per contribution, integer atomicAdd for the counts
 *           (exact, so mean and amax/amin are deterministic).
 *   sorted  a stable CUB radix sort of the contributions by position and
 *           one thread per position, which walks its contributions in
 *           index order as the CPU does: deterministic. A position with a
 *           million contributions is one thread's loop (the contention
 *           suite's worst case).
 *
 * prod takes the sorted walk in both: a product's value depends on the
 * order of its factors, beyond rounding. Multiplied in f32 one at a time,
 * as LibTorch does, a product that overflows to inf before it meets a zero
 * ends NaN, and one that meets the zero first ends 0. A compare-and-swap
 * product in arrival order gave grad_x NaN where the reference has -0 in
 * the first GPU fuzz campaign (zipf indices, 13,614 factors on few
 * positions), which no tolerance can accept; in index order the variant
 * computes the reference's products bit for bit.
 *
 * Arithmetic is reduce.h's: values are read as double, products rounded to
 * the accumulation dtype (f32 for f16/bf16) after each step, results stored
 * through f32 for the half types; an f32 count stops growing at 2^24.
 */
#ifndef SL_REDUCE_BACKWARD_CUH
#define SL_REDUCE_BACKWARD_CUH

#include <stdio.h>

#include "cuda/reduce_engine.cuh"

/* Where things are. pit walks x's shape (tensors 0 grad_out, 1 x, 2 result,
 * 3 grad_x); cit walks the contributions' shape (0 src, 1 grad_src, 2 the
 * row-major position in x less the axis' part, 3 index for scatter_reduce).
 * The axis' part is the index value times rm_dim; index_reduce reads index
 * at the contribution's coordinate along the axis (cit's kept dim). */
/* Host and device, so that core/tests/test_cuda_iter.cu checks the
 * addressing on a machine without a GPU. */
struct sl__rb_addr {
  int64_t npos, ncon;
  sl__it pit, cit;
  const void *index;
  int is64, per_slice;
  int64_t istep, rm_dim;
  __host__ __device__ void pos(int64_t p, int64_t (&o)[4]) const {
    sl__it_at<4>(pit, p, o);
  }
  /* The position contribution e aims at; *so and *gso its elements. */
  __host__ __device__ int64_t con(int64_t e, int64_t *so, int64_t *gso) const {
    int64_t o[4], kc;
    sl__it_at<4>(cit, e, o, &kc);
    const int64_t at = per_slice ? kc * istep : o[3];
    const int64_t v =
        is64 ? ((const int64_t *)index)[at] : ((const int32_t *)index)[at];
    *so = o[0];
    *gso = o[1];
    return o[2] + v * rm_dim;
  }
};

/* The addressing of a call of each op (ops/<op>/<op>_cuda.cu; host). */
sl__rb_addr sl__scatter_reduce_backward_addr(const sl_call *c);
sl__rb_addr sl__index_reduce_backward_addr(const sl_call *c);

template <class T> struct sl__rbp {
  sl__rb_addr a;
  const T *g, *x, *res, *src;
  T *gx, *gs;
  sl_reduce r;
  int self; /* include_self, and not assign (which overwrites x) */
  unsigned long long *cnt; /* per position: contributions (mean), matches
                              (amax/amin) or zero srcs (prod) */
  double *A, *B, *R;       /* per position, prod only */
};

/* Element reads and writes through the accumulation dtype. */
template <class T> __device__ __forceinline__ double sl__rb_ld(T v) {
  return (double)sl__to_acc<typename sl__acc_of<T>::type>(v);
}
template <class T> __device__ __forceinline__ void sl__rb_st(T *p, double v) {
  typedef typename sl__acc_of<T>::type A;
  *p = sl__from_acc<T, A>((A)v);
}
/* reduce.h's sl__round_to(sl__acc_dtype(dt), v). */
template <class T> __device__ __forceinline__ double sl__rb_rd(double v) {
  return (double)(typename sl__acc_of<T>::type)v;
}
/* A count of the accumulation dtype: 2^24 + 1 is 2^24 in f32. */
template <class T>
__device__ __forceinline__ double sl__rb_count(unsigned long long n) {
  const double cap = sizeof(typename sl__acc_of<T>::type) == 4
                         ? 16777216.0
                         : 9007199254740992.0;
  return (double)n > cap ? cap : (double)n;
}

/* prod: every position's products start from x (A with zeros as 1). */
template <class T> __global__ void sl__rb_prod_init_k(sl__rbp<T> p) {
  SL__GRID_STRIDE(t, p.a.npos) {
    int64_t o[4];
    p.a.pos(t, o);
    const double xv = sl__rb_ld(p.x[o[1]]);
    p.A[t] = xv == 0.0 ? 1.0 : xv;
    p.B[t] = p.R[t] = xv;
  }
}

/* The result at position t (amax/amin: what a contribution must equal). */
template <class T>
__device__ __forceinline__ double sl__rb_result(const sl__rbp<T> &p,
                                                int64_t t) {
  int64_t o[4];
  p.a.pos(t, o);
  return sl__rb_ld(p.res[o[2]]);
}

/* atomic: the counts of mean and amax/amin. */
template <class T> __global__ void sl__rb_atomic_k(sl__rbp<T> p) {
  SL__GRID_STRIDE(e, p.a.ncon) {
    int64_t so, gso;
    const int64_t t = p.a.con(e, &so, &gso);
    if (p.r == SL_REDUCE_MEAN || sl__rb_ld(p.src[so]) == sl__rb_result(p, t))
      atomicAdd(&p.cnt[t], 1ull);
  }
}

/* sorted: keys are positions, values contributions. */
template <class T, class I>
__global__ void sl__rb_keys_k(sl__rbp<T> p, I *keys, I *vals) {
  SL__GRID_STRIDE(e, p.a.ncon) {
    int64_t so, gso;
    keys[e] = (I)p.a.con(e, &so, &gso);
    vals[e] = (I)e;
  }
}

/* sorted: one thread per position that has contributions, walking them in
 * index order (the stable sort kept it), as reduce_backward.c does. */
template <class T, class I>
__global__ void sl__rb_segment_k(sl__rbp<T> p, const I *perm, const I *uniq,
                                 const I *lens, const I *start,
                                 const I *nruns) {
  SL__GRID_STRIDE(sg, (int64_t)*nruns) {
    const int64_t t = (int64_t)uniq[sg], b = (int64_t)start[sg];
    const int64_t len = (int64_t)lens[sg];
    int64_t so, gso;
    if (p.r == SL_REDUCE_MEAN) {
      p.cnt[t] = (unsigned long long)len;
    } else if (p.r == SL_REDUCE_AMAX || p.r == SL_REDUCE_AMIN) {
      const double rv = sl__rb_result(p, t);
      unsigned long long n = 0;
      for (int64_t k = 0; k < len; ++k) {
        p.a.con((int64_t)perm[b + k], &so, &gso);
        n += sl__rb_ld(p.src[so]) == rv;
      }
      p.cnt[t] = n;
    } else if (p.r == SL_REDUCE_PROD) {
      double A = p.self ? p.A[t] : 1.0, R = p.self ? p.R[t] : 1.0;
      double B = p.self ? p.B[t] : 1.0;
      unsigned long long z = 0;
      for (int64_t k = 0; k < len; ++k) {
        p.a.con((int64_t)perm[b + k], &so, &gso);
        const double s = sl__rb_ld(p.src[so]);
        A = sl__rb_rd<T>(A * s);
        R = sl__rb_rd<T>(R * s);
        z += s == 0.0;
      }
      for (int64_t k = 0; k < len; ++k) {
        p.a.con((int64_t)perm[b + k], &so, &gso);
        const double s = sl__rb_ld(p.src[so]);
        B = sl__rb_rd<T>(B * (s == 0.0 && z == 1 ? 1.0 : s));
      }
      p.A[t] = A;
      p.B[t] = B;
      p.R[t] = R;
      p.cnt[t] = z;
    }
  }
}

/* mean's divisor at position t (N.masked_fill_(N == 0, 1)). */
template <class T>
__device__ __forceinline__ double sl__rb_mean_n(const sl__rbp<T> &p,
                                                int64_t t) {
  const double n = sl__rb_count<T>(p.cnt[t] + (p.self ? 1 : 0));
  return n == 0.0 ? 1.0 : n;
}

/* amax/amin's divisor at t: x itself when it equals the result (even
 * without include_self, as LibTorch 1.13 counts it), then the srcs that do. */
template <class T>
__device__ __forceinline__ double sl__rb_max_n(const sl__rbp<T> &p, int64_t t,
                                               bool x_is_res) {
  return sl__rb_count<T>(p.cnt[t] + (x_is_res ? 1 : 0));
}

/* amax/amin: a position's gradient shared among the values equal to the
 * result, (hit) * (g / N): a zero N gives inf or NaN, and 0 * inf is NaN,
 * as in LibTorch. */
template <class T>
__device__ __forceinline__ double sl__rb_share(const sl__rbp<T> &p, int64_t t,
                                               bool x_is_res, bool hit,
                                               double g) {
  return (hit ? 1.0 : 0.0) * sl__rb_rd<T>(g / sl__rb_max_n(p, t, x_is_res));
}

/* grad_x, every position. */
template <class T> __global__ void sl__rb_grad_x_k(sl__rbp<T> p) {
  SL__GRID_STRIDE(t, p.a.npos) {
    int64_t o[4];
    p.a.pos(t, o);
    T *out = p.gx + o[3];
    const double g = sl__rb_ld(p.g[o[0]]);
    switch (p.r) {
    case SL_REDUCE_MEAN:
      sl__rb_st(out, g / sl__rb_mean_n(p, t));
      break;
    case SL_REDUCE_PROD: {
      const double xv = sl__rb_ld(p.x[o[1]]);
      sl__rb_st(out, sl__rb_rd<T>(g * p.A[t]) / (xv == 0.0 ? 1.0 : xv));
      break;
    }
    case SL_REDUCE_AMAX:
    case SL_REDUCE_AMIN: {
      const bool xr = sl__rb_ld(p.x[o[1]]) == sl__rb_ld(p.res[o[2]]);
      sl__rb_st(out, sl__rb_share(p, t, xr, xr, g));
      break;
    }
    default: /* sum, assign */
      *out = p.g[o[0]];
      break;
    }
  }
}

/* grad_src, every contribution. */
template <class T> __global__ void sl__rb_grad_src_k(sl__rbp<T> p) {
  SL__GRID_STRIDE(e, p.a.ncon) {
    int64_t so, gso, o[4];
    const int64_t t = p.a.con(e, &so, &gso);
    p.a.pos(t, o);
    T *out = p.gs + gso;
    const double g = sl__rb_ld(p.g[o[0]]);
    switch (p.r) {
    case SL_REDUCE_MEAN:
      sl__rb_st(out, g / sl__rb_mean_n(p, t));
      break;
    case SL_REDUCE_PROD: {
      const double s = sl__rb_ld(p.src[so]);
      if (s == 0.0 && p.cnt[t] == 1) {
        sl__rb_st(out, g * p.B[t]);
      } else {
        /* f16/bf16: the f32 product R, not the rounded result. */
        const double r =
            sl__is_half<T>::value ? p.R[t] : sl__rb_ld(p.res[o[2]]);
        sl__rb_st(out, sl__rb_rd<T>(g * r) / (s == 0.0 ? 1.0 : s));
      }
      break;
    }
    case SL_REDUCE_AMAX:
    case SL_REDUCE_AMIN: {
      const double rv = sl__rb_ld(p.res[o[2]]);
      sl__rb_st(out, sl__rb_share(p, t, sl__rb_ld(p.x[o[1]]) == rv,
                                  sl__rb_ld(p.src[so]) == rv, g));
      break;
    }
    default: /* sum, assign */
      *out = p.g[o[0]];
      break;
    }
  }
}

/* Without x: grad_x is 0 where a contribution lands. */
template <class T> __global__ void sl__rb_untouched_x_k(sl__rbp<T> p) {
  SL__GRID_STRIDE(e, p.a.ncon) {
    int64_t so, gso, o[4];
    p.a.pos(p.a.con(e, &so, &gso), o);
    p.gx[o[3]] = sl__from_acc<T>((typename sl__acc_of<T>::type)0);
  }
}

/* sorted: the state of every position with contributions. */
template <class T, class I>
sl_status sl__rb_sorted(sl_ctx *ctx, cudaStream_t s, sl__ws &ws,
                        const sl__rbp<T> &p) {
  const int64_t n = p.a.ncon;
  I *keys, *vals, *perm, *uniq, *lens, *start, *nruns;
  SL__TRY(ws.get(&keys, (size_t)n, "sorted: keys"));
  SL__TRY(ws.get(&vals, (size_t)n, "sorted: contributions"));
  SL__TRY(ws.get(&start, (size_t)n + 1, "sorted: segments"));
  sl__rb_keys_k<T, I>
      <<<sl__blocks(n, SL__THREADS), SL__THREADS, 0, s>>>(p, keys, vals);
  SL__CUDA_LAUNCHED(ctx, "backward sorted: key kernel");
  SL__TRY(sl__sort_runs<I>(ctx, s, ws, n, keys, vals,
                           sl__bits_for((uint64_t)p.a.npos), &perm, &uniq,
                           &lens, &nruns));
  size_t tb = 0;
  SL__CUDA_TRY(
      ctx, cub::DeviceScan::ExclusiveSum(nullptr, tb, lens, start, n + 1, s),
      "backward sorted: scan size");
  unsigned char *tmp;
  SL__TRY(ws.get(&tmp, tb, "backward sorted: scan workspace"));
  SL__CUDA_TRY(ctx,
               cub::DeviceScan::ExclusiveSum(tmp, tb, lens, start, n + 1, s),
               "backward sorted: scan of segment lengths");
  sl__rb_segment_k<T, I><<<sl__blocks(n, SL__THREADS), SL__THREADS, 0, s>>>(
      p, perm, uniq, lens, start, nruns);
  SL__CUDA_LAUNCHED(ctx, "backward sorted: segment kernel");
  return SL_STATUS_OK;
}

/* The gradients with strategy `how` (SL__ATOMIC or SL__SORTED). */
template <class T>
sl_status sl__rb_run(sl_ctx *ctx, cudaStream_t s, sl__ws &ws, sl__strategy how,
                     sl__rbp<T> p) {
  const int64_t np = p.a.npos, nc = p.a.ncon;
  if (np == 0) return SL_STATUS_OK; /* x empty: index and src too */
  const sl_reduce r = p.r;
  const bool counted = r == SL_REDUCE_MEAN || r == SL_REDUCE_AMAX ||
                       r == SL_REDUCE_AMIN || r == SL_REDUCE_PROD;
  if (counted) SL__TRY(ws.get_set(&p.cnt, (size_t)np, 0, "backward: counts"));
  if (r == SL_REDUCE_PROD) {
    SL__TRY(ws.get(&p.A, (size_t)np, "backward: products"));
    SL__TRY(ws.get(&p.B, (size_t)np, "backward: products"));
    SL__TRY(ws.get(&p.R, (size_t)np, "backward: products"));
    sl__rb_prod_init_k<T>
        <<<sl__blocks(np, SL__THREADS), SL__THREADS, 0, s>>>(p);
    SL__CUDA_LAUNCHED(ctx, "backward: product initialisation kernel");
  }
  if (counted && nc > 0) {
    if (how == SL__SORTED || r == SL_REDUCE_PROD) { /* prod: see the top */
      if ((uint64_t)np < UINT32_MAX && (uint64_t)nc < UINT32_MAX)
        SL__TRY((sl__rb_sorted<T, uint32_t>(ctx, s, ws, p)));
      else
        SL__TRY((sl__rb_sorted<T, uint64_t>(ctx, s, ws, p)));
    } else {
      sl__rb_atomic_k<T><<<sl__blocks(nc, SL__THREADS), SL__THREADS, 0, s>>>(p);
      SL__CUDA_LAUNCHED(ctx, "backward atomic: count kernel");
    }
  }
  sl__rb_grad_x_k<T><<<sl__blocks(np, SL__THREADS), SL__THREADS, 0, s>>>(p);
  SL__CUDA_LAUNCHED(ctx, "backward: grad_x kernel");
  if (nc == 0) return SL_STATUS_OK;
  sl__rb_grad_src_k<T><<<sl__blocks(nc, SL__THREADS), SL__THREADS, 0, s>>>(p);
  SL__CUDA_LAUNCHED(ctx, "backward: grad_src kernel");
  if (!p.self) {
    sl__rb_untouched_x_k<T>
        <<<sl__blocks(nc, SL__THREADS), SL__THREADS, 0, s>>>(p);
    SL__CUDA_LAUNCHED(ctx, "backward: grad_x zeroing kernel");
  }
  return SL_STATUS_OK;
}

/* The tensors of a backward call: grad_out x index src result | grad_x
 * grad_src, slots 0-6 (both ops). */
template <class T>
sl_status sl__rb_typed(sl_ctx *ctx, cudaStream_t s, sl__ws &ws,
                       sl__strategy how, const sl__rb_addr &a,
                       const sl_call *c) {
  sl__rbp<T> p;
  memset(&p, 0, sizeof p);
  p.a = a;
  p.g = (const T *)c->arg[0].data;
  p.x = (const T *)c->arg[1].data;
  p.src = (const T *)c->arg[3].data;
  p.res = (const T *)c->arg[4].data;
  p.gx = (T *)c->arg[5].data;
  p.gs = (T *)c->arg[6].data;
  p.r = c->p.reduce;
  p.self = c->p.include_self && c->p.reduce != SL_REDUCE_ASSIGN;
  return sl__rb_run<T>(ctx, s, ws, how, p);
}

/* The dtype switch (infer admits f16, bf16, f32 and f64). */
static inline sl_status sl__rb_dtype(sl_ctx *ctx, cudaStream_t s, sl__ws &ws,
                                     sl__strategy how, const sl__rb_addr &a,
                                     const sl_call *c) {
  switch (c->arg[1].dtype) {
  case SL_F16:
    return sl__rb_typed<__half>(ctx, s, ws, how, a, c);
  case SL_BF16:
    return sl__rb_typed<__nv_bfloat16>(ctx, s, ws, how, a, c);
  case SL_F32:
    return sl__rb_typed<float>(ctx, s, ws, how, a, c);
  case SL_F64:
    return sl__rb_typed<double>(ctx, s, ws, how, a, c);
  default:
    return sl_ctx_fail(ctx, SL_STATUS_UNSUPPORTED_DTYPE,
                       "x: expected one of f16, bf16, f32, f64, got %s",
                       sl_dtype_name(c->arg[1].dtype));
  }
}

/* A backward call of either op: the index checked on the device (infer
 * cannot read it there; the CPU's message, bound being the extent of x's
 * axis), then the gradients with strategy `how`, addressed by `addr`. */
static inline sl_status
sl__reduce_backward_cuda(sl_ctx *ctx, sl_call *c, sl__strategy how,
                         int64_t bound, sl__rb_addr (*addr)(const sl_call *)) {
  const sl_tensor *x = &c->arg[1], *index = &c->arg[2];
  cudaStream_t s;
  SL__TRY(sl__cuda_begin(ctx, &s));
  sl__ws ws(ctx, s);
  if (sl__numel(index) > 0) {
    char b[160], desc[200];
    snprintf(desc, sizeof desc, "dim %d of x %s", (int)c->p.dim,
             sl_shape_str(x->ndim, x->shape, b, sizeof b));
    SL__TRY(sl__cuda_check_index(ctx, s, ws, "index", index, bound, desc));
  }
  return sl__rb_dtype(ctx, s, ws, how, addr(c), c);
}

#endif /* SL_REDUCE_BACKWARD_CUH */
