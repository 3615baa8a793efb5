/*
 * index_reduce: Paddle's scatter(x, index, updates, overwrite, axis, reduce)
 * of seed 001. out = copy of x; for every i < index.numel,
 *   out[.., index[i], ..] = out[.., index[i], ..] ⊕ updates[.., i, ..]
 * along dim (the axis), ⊕ one of assign (overwrite), sum, prod, mean, amax,
 * amin. include_self = false: every targeted slice starts from the
 * reduce's identity (Paddle's default; seed 001 zeroes them for sum); the
 * other slices keep x. LibTorch: index_copy (assign), index_fill(0) +
 * index_add (sum), Tensor::index_reduce (the rest).
 *
 * Shape contract: index is 1-D or 0-D, i32 or i64, values in
 * [0, x.size(dim)). With a 1-D index of length m, updates has x's rank and
 * shape except updates.size(dim) == m (a 0-D updates is also taken when x
 * has rank <= 1 and m == 1, as LibTorch does). With a 0-D index, updates is
 * the (K-1)-D slice: x's shape without dim. updates has x's dtype. x's dtype:
 * any (assign) or the reduction group i32, i64, f16, bf16, f32, f64. out
 * has x's shape and dtype. LibTorch's index_add/index_reduce would also
 * broadcast an updates of extent 1 off dim; this contract does not (nor
 * does index_copy).
 *
 * Duplicate indices: contributions to one slice combine in index order.
 * With assign, cpu.serial and cpu.omp both let the last one win (each line
 * along dim is walked in index order by one thread).
 */
#include <stdio.h>

#include "reduce.h"

sl_status sl__index_reduce_check(sl_ctx *ctx, const sl_tensor *x,
                                 const sl_tensor *index,
                                 const sl_tensor *updates, sl_reduce reduce,
                                 unsigned allowed, sl__infer_mode mode,
                                 int64_t *dim) {
  char a[160], b[160];
  sl_status st = sl__check_index_dtype(ctx, "index", index);
  if (st) return st;
  if (index->ndim > 1)
    return sl_ctx_fail(ctx, SL_STATUS_RANK_MISMATCH,
                       "index: expected rank 0 or 1, got rank %d %s",
                       index->ndim,
                       sl_shape_str(index->ndim, index->shape, a, sizeof a));
  if (updates->dtype != x->dtype)
    return sl_ctx_fail(ctx, SL_STATUS_UNSUPPORTED_DTYPE,
                       "updates: expected dtype %s (the dtype of x), got %s",
                       sl_dtype_name(x->dtype), sl_dtype_name(updates->dtype));
  int64_t d;
  st = sl__normalize_dim(ctx, "dim", *dim, x->ndim, &d);
  if (st) return st;
  /* x of rank 0 behaves as [1]. */
  int k = x->ndim ? x->ndim : 1;
  int64_t xs[SL_MAX_DIMS];
  for (int i = 0; i < k; ++i) xs[i] = x->ndim ? x->shape[i] : 1;
  int64_t m = index->ndim ? index->shape[0] : 1;
  sl_shape_str(x->ndim, x->shape, a, sizeof a);
  sl_shape_str(updates->ndim, updates->shape, b, sizeof b);
  int64_t want[SL_MAX_DIMS];
  int wr;
  char why[200];
  if (index->ndim == 0 || (updates->ndim == 0 && k == 1 && m == 1)) {
    /* The slice form: x's shape without dim. */
    wr = k - 1;
    for (int i = 0, j = 0; i < k; ++i)
      if (i != d) want[j++] = xs[i];
    snprintf(why, sizeof why, "x %s without dim %lld, for a 0-D index", a,
             (long long)d);
  } else {
    wr = k;
    for (int i = 0; i < k; ++i) want[i] = i == d ? m : xs[i];
    snprintf(why, sizeof why, "x %s with dim %lld of the index's length %lld",
             a, (long long)d, (long long)m);
  }
  if (updates->ndim != wr)
    return sl_ctx_fail(ctx, SL_STATUS_RANK_MISMATCH,
                       "updates: expected rank %d (%s), got rank %d %s", wr,
                       why, updates->ndim, b);
  for (int i = 0; i < wr; ++i)
    if (updates->shape[i] != want[i]) {
      char w[160];
      return sl_ctx_fail(ctx, SL_STATUS_SHAPE_MISMATCH,
                         "updates: expected shape %s (%s), got %s",
                         sl_shape_str(wr, want, w, sizeof w), why, b);
    }
  st = sl__check_index_range(ctx, mode, "index", index, xs[d], d, x);
  if (st) return st;
  st = sl__check_reduce(ctx, reduce, allowed);
  if (st) return st;
  *dim = d;
  return SL_STATUS_OK;
}

sl_status sl__index_reduce_infer(sl_ctx *ctx, sl_call *c, sl__infer_mode mode) {
  const sl_tensor *x = &c->arg[0];
  int64_t dim = c->p.dim;
  sl_status st =
      sl__index_reduce_check(ctx, x, &c->arg[1], &c->arg[2], c->p.reduce,
                             SL__REDUCES_INDEX, mode, &dim);
  if (st) return st;
  /* assign moves data of any dtype; the others compute. */
  st = sl__check_op_dtype(ctx, c->op, c->p.reduce, "x", x->dtype);
  if (st) return st;
  c->p.dim = dim;
  sl__set_out(&c->arg[3], x->dtype, x->ndim, x->shape);
  return SL_STATUS_OK;
}
