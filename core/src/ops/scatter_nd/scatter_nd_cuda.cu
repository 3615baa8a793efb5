/*
 * scatter_nd on the GPU: cuda.atomic, cuda.lock, cuda.sorted and cuda.warp
 * (cuda/reduce_engine.cuh). Every position of index.shape[:-1] is one
 * contribution (W = 1) to the element of out named by its M index values;
 * destinations are out's row-major positions.
 *
 * reduce none is an assignment of any dtype: atomic, lock and warp store
 * plainly and any writer may win a duplicate target (scatter_nd.c), sorted lets
 * the last position in row-major order win, as cpu.serial does. reduce sum:
 * the strategies; f16/bf16 accumulate in f32 and round once, as the CPU
 * variants do. The index values are checked on the device (each column
 * against its own axis) before x is copied to out.
 */
#include <stdio.h>

#include "cuda/reduce_engine.cuh"
#include "ops/gather_nd/nd_index.h"

/* it walks index.shape[:-1]: tensor 0 index, 1 src, 2 out and 3 out's
 * row-major strides, both 0 on the indexed axes (column k adds
 * v * os[k] and v * rm[k]). oit walks out's shape. */
struct sl__snd_addr {
  int64_t rows, width, dests;
  sl__it it, oit;
  const void *index;
  int is64, m;
  int64_t istep;
  int64_t os[SL_MAX_DIMS], rm[SL_MAX_DIMS];
  __device__ bool row(int64_t r, int64_t *dest, int64_t *sb,
                      int64_t *ob) const {
    int64_t off[4];
    sl__it_at<4>(it, r, off);
    int64_t d = off[3], o = off[2];
    for (int k = 0; k < m; ++k) {
      const int64_t v = sl__ld_index(index, is64, off[0] + k * istep);
      d += v * rm[k];
      o += v * os[k];
    }
    *dest = d;
    *sb = off[1];
    *ob = o;
    return true;
  }
  __device__ int64_t scol(int64_t) const { return 0; }
  __device__ int64_t ocol(int64_t) const { return 0; }
  __device__ int64_t obase_of(int64_t dest) const {
    int64_t off[1];
    sl__it_at<1>(oit, dest, off);
    return off[0];
  }
};

static sl_status sl__snd_cuda(sl_ctx *ctx, sl_call *c, sl__strategy how) {
  const sl_tensor *x = &c->arg[0], *index = &c->arg[1], *src = &c->arg[2];
  const sl_tensor *out = &c->arg[3];
  const int K = x->ndim, M = c->p.ndims;
  cudaStream_t s;
  SL__TRY(sl__cuda_begin(ctx, &s));
  sl__ws ws(ctx, s);
  const int64_t positions = sl__nd_positions(index);
  if (positions > 0 && sl__numel(index) > 0) {
    int64_t bounds[SL_MAX_DIMS];
    for (int k = 0; k < M; ++k) bounds[k] = x->shape[c->p.dims[k]];
    int64_t pos, v;
    SL__TRY(sl__cuda_find_bad(ctx, s, ws, index, 0, bounds, K, &pos, &v));
    if (pos >= 0) {
      char p[160], a[160];
      sl__cuda_pos_str(index, pos, p, sizeof p);
      const int64_t d = c->p.dims[pos % M];
      return sl_ctx_fail(ctx, SL_STATUS_INDEX_OUT_OF_RANGE,
                         "index[%s]=%lld out of range [0,%lld) for dim %lld "
                         "of x %s",
                         p, (long long)v, (long long)x->shape[d], (long long)d,
                         sl_shape_str(x->ndim, x->shape, a, sizeof a));
    }
  }
  SL__TRY(sl__cuda_copy_strided(ctx, s, out, x));
  if (positions == 0 || sl__numel(out) == 0) return SL_STATUS_OK;
  int64_t rm[SL_MAX_DIMS], ost[SL_MAX_DIMS], rst[SL_MAX_DIMS];
  sl_contiguous_strides(out->ndim, out->shape, rm);
  for (int d = 0; d < K; ++d) {
    ost[d] = out->strides[d];
    rst[d] = rm[d];
  }
  sl__snd_addr a;
  memset(&a, 0, sizeof a);
  for (int k = 0; k < M; ++k) {
    const int64_t d = c->p.dims[k];
    a.os[k] = out->strides[d];
    a.rm[k] = rm[d];
    ost[d] = rst[d] = 0;
  }
  const int64_t *st[4] = {index->strides, src->strides, ost, rst};
  a.it = sl__it_make(K, index->shape, 4, st, -1);
  const int64_t *ot[1] = {out->strides};
  a.oit = sl__it_make(out->ndim, out->shape, 1, ot, -1);
  a.rows = positions;
  a.width = 1;
  a.dests = sl__numel(out);
  a.index = index->data;
  a.is64 = index->dtype == SL_I64;
  a.m = M;
  a.istep = index->strides[K];
  const sl_reduce r =
      c->p.reduce == SL_REDUCE_SUM ? SL_REDUCE_SUM : SL_REDUCE_ASSIGN;
  return sl__reduce_dtype(ctx, s, ws, how, a, out->dtype, src->data, out->data,
                          r, 1);
}

sl_status sl_scatter_nd_cuda_atomic(sl_ctx *ctx, sl_call *c) {
  return sl__snd_cuda(ctx, c, SL__ATOMIC);
}

sl_status sl_scatter_nd_cuda_lock(sl_ctx *ctx, sl_call *c) {
  return sl__snd_cuda(ctx, c, SL__LOCK);
}

sl_status sl_scatter_nd_cuda_sorted(sl_ctx *ctx, sl_call *c) {
  return sl__snd_cuda(ctx, c, SL__SORTED);
}

sl_status sl_scatter_nd_cuda_warp(sl_ctx *ctx, sl_call *c) {
  return sl__snd_cuda(ctx, c, SL__WARP);
}
