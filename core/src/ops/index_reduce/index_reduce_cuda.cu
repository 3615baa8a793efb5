/*
 * index_reduce on the GPU: cuda.atomic, cuda.lock, cuda.sorted and
 * cuda.warp (cuda/reduce_engine.cuh). Contribution i is the slice
 * updates[.., i, ..] (W values: everything off the axis) aimed at slice
 * index[i] of out; destinations are the n slices of out along the axis, so
 * cuda.lock holds one lock per destination slice (seed 001's row) and
 * cuda.sorted sorts the m index values only, then reduces whole slices.
 *
 * assign (any dtype) moves bytes: atomic, lock and warp let any writer win
 * (index_reduce.c; the harness's any-valid oracle), sorted lets the last one in
 * index order win, as the CPU does. The index values are checked by the
 * reducing kernels as they read them (sl__guard), read back at the end.
 */
#include <stdio.h>

#include "cuda/reduce_engine.cuh"
#include "reduce.h"

/* cit walks the slice shape (out's without the axis): tensor 0 out, 1
 * updates. */
struct sl__ir_addr {
  int64_t rows, width, dests;
  sl__it cit;
  const void *index;
  int is64;
  int64_t istep, os_d, us_d;
  sl__guard g; /* r is the position in index */
  __device__ bool row(int64_t r, int64_t *dest, int64_t *sb,
                      int64_t *ob) const {
    const int64_t v = sl__ld_index(index, is64, r * istep);
    if (!g.ok(v, r)) return false;
    *dest = v;
    *sb = r * us_d;
    *ob = v * os_d;
    return true;
  }
  __device__ int64_t scol(int64_t j) const {
    int64_t off[2];
    sl__it_at<2>(cit, j, off);
    return off[1];
  }
  __device__ int64_t ocol(int64_t j) const {
    int64_t off[2];
    sl__it_at<2>(cit, j, off);
    return off[0];
  }
  __device__ int64_t obase_of(int64_t dest) const { return dest * os_d; }
};

static sl_status sl__ir_cuda(sl_ctx *ctx, sl_call *c, sl__strategy how) {
  const sl_tensor *x = &c->arg[0], *index = &c->arg[1], *upd = &c->arg[2];
  const sl_tensor *out = &c->arg[3];
  const int dim = (int)c->p.dim;
  const int k = x->ndim ? x->ndim : 1;
  cudaStream_t s;
  SL__TRY(sl__cuda_begin(ctx, &s));
  sl__ws ws(ctx, s);
  sl_tensor ov, uv;
  sl__axis_view(out, k, dim, &ov);
  sl__axis_view(upd, k, dim, &uv);
  const int64_t n = ov.shape[dim], m = sl__numel(index);
  if (m == 0) return sl__cuda_copy_strided(ctx, s, out, x);
  char xs[160], desc[200];
  snprintf(desc, sizeof desc, "dim %d of x %s", dim,
           sl_shape_str(x->ndim, x->shape, xs, sizeof xs));
  /* An empty out (no slice, or no destination) runs no reducing kernel to
   * check the values. */
  if (sl__numel(out) == 0)
    return sl__cuda_check_index(ctx, s, ws, "index", index, n, desc);
  SL__TRY(sl__cuda_copy_strided(ctx, s, out, x));
  /* The slice: out's and updates' dims other than the axis. */
  int64_t shape[SL_MAX_DIMS], os[SL_MAX_DIMS], us[SL_MAX_DIMS];
  int ns = 0;
  for (int d = 0; d < k; ++d) {
    if (d == dim) continue;
    shape[ns] = ov.shape[d];
    os[ns] = ov.strides[d];
    us[ns] = uv.strides[d];
    ++ns;
  }
  sl__ir_addr a;
  memset(&a, 0, sizeof a);
  const int64_t *st[2] = {os, us};
  a.cit = sl__it_make(ns, shape, 2, st, -1);
  a.rows = m;
  a.width = a.cit.numel;
  a.dests = n;
  a.index = index->data;
  a.is64 = index->dtype == SL_I64;
  a.istep = index->ndim ? index->strides[0] : 0;
  a.os_d = ov.strides[dim];
  a.us_d = uv.strides[dim];
  SL__TRY(sl__guard_open(ws, n, &a.g));
  SL__TRY(sl__reduce_dtype(ctx, s, ws, how, a, out->dtype, upd->data, out->data,
                           c->p.reduce, c->p.include_self));
  return sl__guard_close(ctx, s, a.g, "index", index, desc);
}

sl_status sl_index_reduce_cuda_atomic(sl_ctx *ctx, sl_call *c) {
  return sl__ir_cuda(ctx, c, SL__ATOMIC);
}

sl_status sl_index_reduce_cuda_lock(sl_ctx *ctx, sl_call *c) {
  return sl__ir_cuda(ctx, c, SL__LOCK);
}

sl_status sl_index_reduce_cuda_sorted(sl_ctx *ctx, sl_call *c) {
  return sl__ir_cuda(ctx, c, SL__SORTED);
}

sl_status sl_index_reduce_cuda_warp(sl_ctx *ctx, sl_call *c) {
  return sl__ir_cuda(ctx, c, SL__WARP);
}
