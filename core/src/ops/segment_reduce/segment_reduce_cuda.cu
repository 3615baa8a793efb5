/*
 * segment_reduce and its backward on the GPU (cuda.plain): one thread per
 * output element (q, s, r), looping over its segment in position order, so
 * every element has one writer and the answer is deterministic; the
 * arithmetic is the CPU's (reduce_ops.h through sl__arith, f32 for f16 and
 * bf16, rounded once on store).
 *
 * lengths (or offsets) are copied to the host, checked there by the CPU's
 * check (sl__seg_offsets: the same messages) and turned into offsets, which
 * go back to the device before any kernel writes: a bad length fails the
 * call with nothing written. The copy costs O(Q * S), the size of lengths.
 *
 * The backward's prod is scatter_reduce's rule, as on the CPU
 * (segment_reduce_backward_cpu.c): g * P / x, a single zero's gradient
 * from the product of the rest.
 */
#include <vector>

#include "cuda/cuda_common.cuh"
#include "reduce.h"
#include "segment_reduce.h"

namespace {

enum { SL__SEG_UNROLL = 8 };

/* it walks out's shape: tensor 0 out, 1 data at position 0 of the axis, 2
 * the index of the segment's start in the offsets [Q, S + 1]. */
template <class T>
__global__ void sl__seg_fwd_k(sl__it it, const T *data, T *out,
                              const int64_t *offs, int64_t dstep, sl_reduce r,
                              int has_init,
                              typename sl__acc_of<T>::type start) {
  typedef typename sl__acc_of<T>::type A;
  SL__GRID_STRIDE(e, it.numel) {
    int64_t off[3];
    sl__it_at<3>(it, e, off);
    const int64_t b = offs[off[2]], en = offs[off[2] + 1];
    const T *col = data + off[1];
    A acc = start;
    int64_t i = b;
    /* SL__SEG_UNROLL loads in flight before any is combined (still in
     * position order): a thread that walks its segment a load at a time
     * waits out the memory latency on every row (the standard suite's amax
     * case, docs/notes/benchmarks-2026.md). */
    for (; i + SL__SEG_UNROLL <= en; i += SL__SEG_UNROLL) {
      T v[SL__SEG_UNROLL];
      SL__UNROLL
      for (int u = 0; u < SL__SEG_UNROLL; ++u) v[u] = col[(i + u) * dstep];
      SL__UNROLL
      for (int u = 0; u < SL__SEG_UNROLL; ++u)
        acc = sl__arith<A>::combine(r, acc, sl__to_acc<A, T>(v[u]));
    }
    for (; i < en; ++i)
      acc = sl__arith<A>::combine(r, acc, sl__to_acc<A, T>(col[i * dstep]));
    if (r == SL_REDUCE_MEAN) {
      if (en == b) {
        if (!has_init) acc = (A)NAN;
      } else {
        acc = acc / (A)(en - b);
      }
    }
    out[off[0]] = sl__from_acc<T, A>(acc);
  }
}

/* it walks out's shape: tensor 0 grad_out, 1 result, 2 the offsets' index,
 * 3 data at position 0 of the axis; git: grad_data there. */
template <class T>
__global__ void sl__seg_bwd_k(sl__it it, sl__it git, const T *g, const T *res,
                              const T *data, T *gd, const int64_t *offs,
                              int64_t dstep, int64_t gdstep, sl_reduce r,
                              typename sl__acc_of<T>::type start) {
  typedef typename sl__acc_of<T>::type A;
  SL__GRID_STRIDE(e, it.numel) {
    int64_t off[4], go[1];
    sl__it_at<4>(it, e, off);
    sl__it_at<1>(git, e, go);
    const int64_t b = offs[off[2]], en = offs[off[2] + 1];
    if (en == b) continue;
    const A gv = sl__to_acc<A, T>(g[off[0]]);
#define DAT(i) sl__to_acc<A, T>(data[off[3] + (i)*dstep])
#define GD(i) gd[go[0] + (i)*gdstep]
    switch (r) {
    case SL_REDUCE_SUM:
      for (int64_t i = b; i < en; ++i) GD(i) = g[off[0]];
      break;
    case SL_REDUCE_MEAN: {
      const T v = sl__from_acc<T, A>(gv / (A)(en - b));
      for (int64_t i = b; i < en; ++i) GD(i) = v;
      break;
    }
    case SL_REDUCE_PROD: {
      A P = start, rest = start;
      int64_t zeros = 0;
      for (int64_t i = b; i < en; ++i) {
        const A x = DAT(i);
        P = P * x;
        if (x == (A)0)
          ++zeros;
        else
          rest = rest * x;
      }
      const A gp = gv * P, gr = gv * rest;
      for (int64_t i = b; i < en; ++i) {
        const A x = DAT(i);
        GD(i) = sl__from_acc<T, A>(
            x == (A)0 && zeros == 1 ? gr : gp / (x == (A)0 ? (A)1 : x));
      }
      break;
    }
    default: { /* amax, amin: a NaN result equals nothing */
      const A rv = sl__to_acc<A, T>(res[off[1]]);
      int64_t ties = 0;
      for (int64_t i = b; i < en; ++i) ties += DAT(i) == rv;
      const A v = ties ? gv / (A)ties : (A)0;
      for (int64_t i = b; i < en; ++i)
        GD(i) = sl__from_acc<T, A>(DAT(i) == rv ? v : (A)0);
      break;
    }
    }
#undef DAT
#undef GD
  }
}

/* The offsets of a call, checked on the host, on the device in *d_offs. */
sl_status sl__seg_cuda_offsets(sl_ctx *ctx, cudaStream_t s, sl__ws &ws,
                               const sl_call *c, int lslot,
                               const sl__seg_geom *g, int64_t **d_offs) {
  const sl_tensor *len = &c->arg[lslot];
  const int64_t n = sl__numel(len);
  const size_t es = sl_dtype_size(len->dtype);
  sl_tensor host = *len;
  sl_contiguous_strides(len->ndim, len->shape, host.strides);
  std::vector<unsigned char> hbuf((size_t)(n ? n : 1) * es);
  if (n) {
    sl_tensor dev = host;
    char *dbuf;
    SL__TRY(ws.get(&dbuf, (size_t)n * es, "segment_reduce: lengths copy"));
    dev.data = dbuf;
    SL__TRY(sl__cuda_copy_strided(ctx, s, &dev, len));
    SL__CUDA_TRY(ctx,
                 cudaMemcpyAsync(hbuf.data(), dbuf, (size_t)n * es,
                                 cudaMemcpyDeviceToHost, s),
                 "segment_reduce: lengths to the host");
    SL__CUDA_TRY(ctx, cudaStreamSynchronize(s),
                 "segment_reduce: lengths to the host");
  }
  host.data = hbuf.data();
  host.device = SL_DEVICE_CPU;
  const size_t no = (size_t)(g->Q * (g->S + 1));
  std::vector<int64_t> hoffs(no ? no : 1);
  SL__TRY(sl__seg_offsets(ctx, &host, c->segment.offsets, g, hoffs.data()));
  SL__TRY(ws.get(d_offs, no, "segment_reduce: offsets"));
  SL__CUDA_TRY(ctx,
               cudaMemcpyAsync(*d_offs, hoffs.data(), no * sizeof(int64_t),
                               cudaMemcpyHostToDevice, s),
               "segment_reduce: offsets to the device");
  /* hoffs goes out of scope: the copy must be done. */
  SL__CUDA_TRY(ctx, cudaStreamSynchronize(s),
               "segment_reduce: offsets to the device");
  return SL_STATUS_OK;
}

/* Strides over out's shape of the offsets [Q, S + 1] (axis 1, inner 0):
 * an index "tensor". */
void sl__seg_index_strides(const sl__seg_geom *g, int64_t *ost) {
  int64_t lo = g->S + 1;
  for (int d = g->axis - 1; d >= 0; --d) {
    ost[d] = lo;
    lo *= g->lead[d];
  }
  ost[g->axis] = 1;
  for (int d = g->k - 1; d > g->axis; --d) ost[d] = 0;
}

/* A tensor's strides with the axis's set to 0 (position 0 of a segment's
 * walk). */
void sl__seg_base_strides(const sl_tensor *t, int axis, int64_t *st) {
  for (int d = 0; d < t->ndim; ++d) st[d] = d == axis ? 0 : t->strides[d];
}

template <class T>
sl_status sl__seg_fwd_as(sl_ctx *ctx, cudaStream_t s, const sl_call *c,
                         const sl__seg_geom *g, const int64_t *offs) {
  typedef typename sl__acc_of<T>::type A;
  const sl_tensor *data = &c->arg[0], *out = &c->arg[2];
  int64_t dst[SL_MAX_DIMS], ost[SL_MAX_DIMS];
  sl__seg_base_strides(data, g->axis, dst);
  sl__seg_index_strides(g, ost);
  const int64_t *st[3] = {out->strides, dst, ost};
  const sl__it it = sl__it_make(out->ndim, out->shape, 3, st, -1);
  const double start = c->p.has_value ? sl__round_to(data->dtype, c->p.value)
                                      : sl__identity_f64(c->p.reduce);
  sl__seg_fwd_k<T><<<sl__blocks(it.numel, SL__THREADS), SL__THREADS, 0, s>>>(
      it, (const T *)data->data, (T *)out->data, offs, data->strides[g->axis],
      c->p.reduce, c->p.has_value, (A)start);
  SL__CUDA_LAUNCHED(ctx, "segment_reduce kernel");
  return SL_STATUS_OK;
}

template <class T>
sl_status sl__seg_bwd_as(sl_ctx *ctx, cudaStream_t s, const sl_call *c,
                         const sl__seg_geom *g, const int64_t *offs) {
  typedef typename sl__acc_of<T>::type A;
  const sl_tensor *a = c->arg;
  const sl_tensor *gt = &a[0], *data = &a[1], *res = &a[3], *gd = &a[4];
  int64_t dst[SL_MAX_DIMS], gdst[SL_MAX_DIMS], ost[SL_MAX_DIMS];
  sl__seg_base_strides(data, g->axis, dst);
  sl__seg_base_strides(gd, g->axis, gdst);
  sl__seg_index_strides(g, ost);
  const int64_t *st[4] = {gt->strides, res->strides, ost, dst};
  const sl__it it = sl__it_make(gt->ndim, gt->shape, 4, st, -1);
  const int64_t *gst[1] = {gdst};
  const sl__it git = sl__it_make(gt->ndim, gt->shape, 1, gst, -1);
  const double start =
      c->p.has_value ? sl__round_to(data->dtype, c->p.value) : 1.0;
  sl__seg_bwd_k<T><<<sl__blocks(it.numel, SL__THREADS), SL__THREADS, 0, s>>>(
      it, git, (const T *)gt->data, (const T *)res->data, (const T *)data->data,
      (T *)gd->data, offs, data->strides[g->axis], gd->strides[g->axis],
      c->p.reduce, (A)start);
  SL__CUDA_LAUNCHED(ctx, "segment_reduce_backward kernel");
  return SL_STATUS_OK;
}

} // namespace

sl_status sl_segment_reduce_cuda_plain(sl_ctx *ctx, sl_call *c) {
  sl__seg_geom g;
  sl__seg_geom_of(&c->arg[0], &c->arg[1], (int)c->p.dim, c->segment.offsets,
                  &g);
  cudaStream_t s;
  SL__TRY(sl__cuda_begin(ctx, &s));
  sl__ws ws(ctx, s);
  /* The lengths are checked even when out is empty (S = 0 with N > 0). */
  int64_t *offs;
  SL__TRY(sl__seg_cuda_offsets(ctx, s, ws, c, 1, &g, &offs));
  if (sl__numel(&c->arg[2]) == 0) return SL_STATUS_OK;
  switch (c->arg[0].dtype) {
  case SL_F16:
    return sl__seg_fwd_as<__half>(ctx, s, c, &g, offs);
  case SL_BF16:
    return sl__seg_fwd_as<__nv_bfloat16>(ctx, s, c, &g, offs);
  case SL_F32:
    return sl__seg_fwd_as<float>(ctx, s, c, &g, offs);
  default:
    return sl__seg_fwd_as<double>(ctx, s, c, &g, offs);
  }
}

sl_status sl_segment_reduce_backward_cuda_plain(sl_ctx *ctx, sl_call *c) {
  sl__seg_geom g;
  sl__seg_geom_of(&c->arg[1], &c->arg[2], (int)c->p.dim, c->segment.offsets,
                  &g);
  cudaStream_t s;
  SL__TRY(sl__cuda_begin(ctx, &s));
  sl__ws ws(ctx, s);
  int64_t *offs;
  SL__TRY(sl__seg_cuda_offsets(ctx, s, ws, c, 2, &g, &offs));
  if (sl__numel(&c->arg[4]) == 0) return SL_STATUS_OK;
  switch (c->arg[1].dtype) {
  case SL_F16:
    return sl__seg_bwd_as<__half>(ctx, s, c, &g, offs);
  case SL_BF16:
    return sl__seg_bwd_as<__nv_bfloat16>(ctx, s, c, &g, offs);
  case SL_F32:
    return sl__seg_bwd_as<float>(ctx, s, c, &g, offs);
  default:
    return sl__seg_bwd_as<double>(ctx, s, c, &g, offs);
  }
}
