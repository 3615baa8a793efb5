/*
 * scatter_reduce on the GPU: cuda.atomic, cuda.lock, cuda.sorted and
 * cuda.warp, the strategies of cuda/reduce_engine.cuh. Every element of
 * index is a contribution of one value (W = 1) to the element of out it
 * names; destinations are out's row-major positions.
 *
 * Order: x is copied to out, then the strategy reduces, checking the index
 * values as it reads them (sl__guard: the verdict is read back once, at the
 * end; out is unspecified after a failure). Float sum, prod and mean
 * combine in another order than the CPU's (except cuda.sorted for
 * destinations of at most 32 contributions): the harness judges them with
 * the tolerance oracle; amax, amin and integers are exact.
 */
#include <stdio.h>

#include "cuda/reduce_engine.cuh"

/* it walks index's shape: tensor 0 index, 1 src, 2 out and 3 out's
 * row-major strides, both 0 along dim (the index value adds v * os_dim and
 * v * rm_dim). oit walks out's shape, to find a destination's element. */
struct sl__sr_addr {
  int64_t rows, width, dests;
  sl__it it, oit;
  const void *index;
  int is64;
  int64_t os_dim, rm_dim;
  sl__guard g; /* r is the element's row-major position in index */
  __device__ bool row(int64_t r, int64_t *dest, int64_t *sb,
                      int64_t *ob) const {
    int64_t off[4];
    sl__it_at<4>(it, r, off);
    const int64_t v = sl__ld_index(index, is64, off[0]);
    if (!g.ok(v, r)) return false;
    *dest = off[3] + v * rm_dim;
    *sb = off[1];
    *ob = off[2] + v * os_dim;
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

static sl_status sl__sr_cuda(sl_ctx *ctx, sl_call *c, sl__strategy how) {
  const sl_tensor *x = &c->arg[0], *index = &c->arg[1], *src = &c->arg[2];
  const sl_tensor *out = &c->arg[3];
  const int dim = (int)c->p.dim;
  cudaStream_t s;
  SL__TRY(sl__cuda_begin(ctx, &s));
  sl__ws ws(ctx, s);
  const int64_t bound = x->ndim ? x->shape[dim] : 1;
  if (sl__numel(index) == 0) return sl__cuda_copy_strided(ctx, s, out, x);
  char xs[160], desc[200];
  snprintf(desc, sizeof desc, "dim %d of x %s", dim,
           sl_shape_str(x->ndim, x->shape, xs, sizeof xs));
  /* An empty out runs no reducing kernel to check the values. */
  if (sl__numel(out) == 0)
    return sl__cuda_check_index(ctx, s, ws, "index", index, bound, desc);
  SL__TRY(sl__cuda_copy_strided(ctx, s, out, x));
  /* Rank 0 counts as rank 1 of extent 1 (infer checked the ranks). */
  int64_t rm[SL_MAX_DIMS], sst[SL_MAX_DIMS], ost[SL_MAX_DIMS], rst[SL_MAX_DIMS];
  sl_contiguous_strides(out->ndim, out->shape, rm);
  for (int d = 0; d < index->ndim; ++d) {
    sst[d] = src->ndim ? src->strides[d] : 0;
    ost[d] = d == dim || out->ndim == 0 ? 0 : out->strides[d];
    rst[d] = d == dim || out->ndim == 0 ? 0 : rm[d];
  }
  sl__sr_addr a;
  memset(&a, 0, sizeof a);
  const int64_t *st[4] = {index->strides, sst, ost, rst};
  a.it = sl__it_make(index->ndim, index->shape, 4, st, -1);
  const int64_t *ot[1] = {out->strides};
  a.oit = sl__it_make(out->ndim, out->shape, 1, ot, -1);
  a.rows = sl__numel(index);
  a.width = 1;
  a.dests = sl__numel(out);
  a.index = index->data;
  a.is64 = index->dtype == SL_I64;
  a.os_dim = out->ndim ? out->strides[dim] : 0;
  a.rm_dim = out->ndim ? rm[dim] : 0;
  SL__TRY(sl__guard_open(ws, bound, &a.g));
  SL__TRY(sl__reduce_dtype(ctx, s, ws, how, a, out->dtype, src->data, out->data,
                           c->p.reduce, c->p.include_self));
  return sl__guard_close(ctx, s, a.g, "index", index, desc);
}

sl_status sl_scatter_reduce_cuda_atomic(sl_ctx *ctx, sl_call *c) {
  return sl__sr_cuda(ctx, c, SL__ATOMIC);
}

sl_status sl_scatter_reduce_cuda_lock(sl_ctx *ctx, sl_call *c) {
  return sl__sr_cuda(ctx, c, SL__LOCK);
}

sl_status sl_scatter_reduce_cuda_sorted(sl_ctx *ctx, sl_call *c) {
  return sl__sr_cuda(ctx, c, SL__SORTED);
}

sl_status sl_scatter_reduce_cuda_warp(sl_ctx *ctx, sl_call *c) {
  return sl__sr_cuda(ctx, c, SL__WARP);
}
