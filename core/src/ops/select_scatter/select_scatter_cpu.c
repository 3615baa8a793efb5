/* select_scatter on the CPU: out := x, then the selected slice of out :=
 * value. Both are strided copies (copy.c: memcpy where contiguous). Where
 * dim is out's outermost axis in memory, x's part before the slice and its
 * part after it are two blocks and go as two copies, so no element of out
 * is written twice (a slice that is all of out, dim of size 1, copies
 * nothing of x); along another axis the parts would be runs as short as
 * the axes inside dim, so all of x is copied and the slice written over
 * it (bool 3668x3667:t along dim 0 by parts: 0.54-0.64x LibTorch, whole:
 * 1.03-1.05x). Past the L3 such a copy goes by select_scatter_stream.c. */
#include "select_scatter_stream.h"

/* out with axis dim fixed at `at`: a view of x's shape without dim. */
static sl_tensor sl__slice_view(const sl_tensor *out, int dim, int64_t at) {
  sl_tensor v = *out;
  v.ndim = out->ndim - 1;
  for (int d = 0, j = 0; d < out->ndim; ++d) {
    if (d == dim) continue;
    v.shape[j] = out->shape[d];
    v.strides[j++] = out->strides[d];
  }
  v.data = sl__ptr(out, at * out->strides[dim]);
  return v;
}

/* t's positions [from, from + len) along axis dim. */
static sl_tensor sl__narrow(const sl_tensor *t, int dim, int64_t from,
                            int64_t len) {
  sl_tensor v = *t;
  v.shape[dim] = len;
  v.data = sl__ptr(t, from * t->strides[dim]);
  return v;
}

/* A copy of x past the L3 (SL__TH_COPY_STREAM) stores past the caches:
 * nothing reads out soon, and streamed stores do not read its lines
 * first. The decision is on all of x, not on each part. */
static void sl__copy_part(sl_tensor *out, const sl_tensor *x, int stream,
                          int threads) {
  if (sl__numel(x) == 0) return;
  if (stream)
    sl__copy_streamed(out, x, threads);
  else
    sl__copy_strided(out, x, threads);
}

/* Whether out's axis dim is its outermost in memory (no axis of more than
 * one position has a larger stride). */
static int sl__outermost(const sl_tensor *out, int dim) {
  for (int d = 0; d < out->ndim; ++d)
    if (d != dim && out->shape[d] > 1 && out->strides[d] > out->strides[dim])
      return 0;
  return 1;
}

static sl_status sl__select_scatter_run(sl_call *c, int threads) {
  const sl_tensor *x = &c->arg[0];
  sl_tensor *out = &c->arg[2];
  const int dim = (int)c->p.dim;
  const int64_t at = c->p.index, size = x->shape[dim];
  const int stream =
      sl__numel(x) * (int64_t)sl_dtype_size(x->dtype) >= SL__TH_COPY_STREAM;
  if (size > 1 && !sl__outermost(out, dim)) {
    if (stream && sl__select_scatter_streamed(c, threads)) return SL_STATUS_OK;
    sl__copy_part(out, x, stream, threads);
  } else {
    sl_tensor out0 = sl__narrow(out, dim, 0, at),
              x0 = sl__narrow(x, dim, 0, at);
    sl__copy_part(&out0, &x0, stream, threads);
    sl_tensor out1 = sl__narrow(out, dim, at + 1, size - at - 1),
              x1 = sl__narrow(x, dim, at + 1, size - at - 1);
    sl__copy_part(&out1, &x1, stream, threads);
  }
  sl_tensor slice = sl__slice_view(out, dim, at);
  sl__copy_strided(&slice, &c->arg[1], threads);
  return SL_STATUS_OK;
}

sl_status sl_select_scatter_cpu_serial(sl_ctx *ctx, sl_call *c) {
  (void)ctx;
  return sl__select_scatter_run(c, 1);
}

sl_status sl_select_scatter_cpu_omp(sl_ctx *ctx, sl_call *c) {
  return sl__select_scatter_run(c, sl__threads(ctx));
}
