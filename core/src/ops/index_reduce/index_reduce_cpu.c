/*
 * index_reduce on the CPU: serial, and OpenMP without write conflicts.
 * f32/f64/i32/i64 with assign, sum, prod, mean, amax, amin run as
 * scatter_reduce with the index broadcast over updates (sl__ir_rows);
 * assign, amax and amin of the other dtypes by whole slices where out is
 * contiguous (index_reduce_slices.c), f16/bf16 sum, prod and mean likewise
 * in float (index_reduce_half.c), both through a row-major copy of an
 * updates whose layout they do not take, and the f16/bf16 calls those do
 * not take (narrow slices) but sum, prod, amax or amin, in f32 as
 * scatter_reduce (sl__ir_half_rows). The rest (mean of the other dtypes,
 * strided out, f16/bf16 means of narrow slices) go by the lines along dim (all
 * the coordinates other than the axis): every line takes the whole index in
 * order, so the threads never write the same element and the answer is
 * the serial one.
 */
#include "half_wide.h"
#include "index_reduce_slices.h"
#include "reduce.h"
#include "reduce_rows.h"

/* x, out and updates as rank-k tensors (k = max(rank of x, 1)). */
typedef struct sl__ir_views {
  sl_tensor out, updates;
  int k, dim;
  int64_t lines;
  int distinct; /* no index value twice (sl__rlines.distinct) */
} sl__ir_views;

/* Whether the m values of index are all different (0 when memory is
 * short); asked only where the f16/bf16 lines use it. */
static int sl__ir_distinct(const sl_call *c, int64_t n) {
  const sl_tensor *index = &c->arg[1];
  const sl_dtype dt = c->arg[0].dtype;
  const int64_t m = sl__numel(index);
  if (sl__acc_dtype(dt) == dt || c->p.reduce == SL_REDUCE_ASSIGN || m > n)
    return 0;
  uint8_t *first =
      sl__index_firsts(index, index->ndim ? index->strides[0] : 0, m, n);
  int64_t i = 0;
  while (first && i < m && first[i]) ++i;
  sl__free(first);
  return first && i == m;
}

static void sl__ir_make_views(const sl_call *c, sl__ir_views *v) {
  const sl_tensor *x = &c->arg[0];
  v->k = x->ndim ? x->ndim : 1;
  v->dim = (int)c->p.dim;
  sl__axis_view(&c->arg[3], v->k, v->dim, &v->out);
  sl__axis_view(&c->arg[2], v->k, v->dim, &v->updates);
  int64_t n = v->out.shape[v->dim];
  v->lines = n && sl__numel(&c->arg[1]) ? sl__numel(x) / n : 0;
  v->distinct = v->lines && sl__ir_distinct(c, n);
}

/* Reduces the lines [begin, end) of out along dim, SL__LINE_BATCH at a
 * time (neighbouring lines are neighbouring elements when dim is not the
 * innermost: each index value then serves the batch at once). */
static void sl__ir_lines(const sl_call *c, const sl__ir_views *v, int64_t begin,
                         int64_t end, double *counts) {
  const sl_tensor *index = &c->arg[1];
  sl__rlines p;
  p.dt = v->out.dtype;
  p.reduce = c->p.reduce;
  p.include_self = c->p.include_self;
  p.n = v->out.shape[v->dim];
  p.m = sl__numel(index);
  p.index = index;
  p.istep = index->ndim ? index->strides[0] : 0;
  p.out = (char *)v->out.data;
  p.ostep = v->out.strides[v->dim];
  p.src = (const char *)v->updates.data;
  p.sstep = v->updates.strides[v->dim];
  p.distinct = v->distinct;
  int64_t oo[SL__LINE_BATCH], so[SL__LINE_BATCH], io[SL__LINE_BATCH] = {0};
  int64_t idx[SL_MAX_DIMS];
  sl__line_start(begin, v->k, v->out.shape, v->dim, idx);
  for (int64_t l = begin; l < end; l += SL__LINE_BATCH) {
    int k = end - l < SL__LINE_BATCH ? (int)(end - l) : SL__LINE_BATCH;
    for (int j = 0; j < k; ++j) {
      oo[j] = sl__offset(&v->out, idx);
      so[j] = sl__offset(&v->updates, idx);
      sl__line_next(v->k, v->out.shape, v->dim, idx);
    }
    sl__reduce_lines(&p, k, oo, so, io, counts);
  }
}

/*
 * index_reduce is scatter_reduce with the index broadcast over updates: the
 * positions are updates' (as a rank-k view), the index moves along dim only.
 * *s gets c as that scatter_reduce call.
 */
static void sl__ir_as_scatter(const sl_call *c, sl_call *s) {
  const sl_tensor *index = &c->arg[1];
  int k = c->arg[0].ndim ? c->arg[0].ndim : 1, dim = (int)c->p.dim;
  *s = *c;
  sl__axis_view(&c->arg[0], k, dim, &s->arg[0]);
  sl__axis_view(&c->arg[2], k, dim, &s->arg[2]);
  sl__axis_view(&c->arg[3], k, dim, &s->arg[3]);
  sl_tensor *iv = &s->arg[1];
  *iv = s->arg[2];
  iv->dtype = index->dtype;
  iv->data = index->data;
  for (int d = 0; d < k; ++d) iv->strides[d] = 0;
  iv->strides[dim] = index->ndim ? index->strides[0] : 0;
}

/* scatter_reduce's typed path (a mean too); 0 when it does not take the
 * call (1- and 2-byte dtypes). */
static int sl__ir_rows(sl_call *c, int threads, int parted) {
  sl_call s;
  sl__ir_as_scatter(c, &s);
  return sl__scatter_reduce_rows(&s, threads, parted) ||
         sl__scatter_reduce_mean_rows(&s, threads, parted);
}

/* f16/bf16 sum, prod, mean, amax and amin in f32 through that path
 * (sl__half_wide_rows), for the calls the slices do not take (narrow
 * ones: under 8 columns), where it was measured (f16 sum of 800000 rows of
 * 4 into 1000000: 0.34x LibTorch by lines, 2.7x so); 0 when it does not
 * take the call. */
static int sl__ir_half_rows(sl_call *c, int threads, int parted) {
  sl_call s;
  sl__ir_as_scatter(c, &s);
  return sl__half_wide_rows(&s, threads, parted);
}

/* Whether a slice path may take the call by its dtype and reduce
 * (index_reduce_slices.c and index_reduce_half.c say the rest). */
static int sl__ir_slices_may(const sl_call *c) {
  const sl_reduce r = c->p.reduce;
  const sl_dtype dt = c->arg[0].dtype;
  return r == SL_REDUCE_ASSIGN || r == SL_REDUCE_AMAX || r == SL_REDUCE_AMIN ||
         ((dt == SL_F16 || dt == SL_BF16) &&
          (r == SL_REDUCE_SUM || r == SL_REDUCE_PROD || r == SL_REDUCE_MEAN));
}

/* Whether some axis of t repeats its elements (a stride of 0). */
static int sl__ir_broadcast(const sl_tensor *t) {
  for (int d = 0; d < t->ndim; ++d)
    if (t->shape[d] > 1 && t->strides[d] == 0) return 1;
  return 0;
}

/* The slice paths through a contiguous copy of updates, where updates'
 * layout kept them from the call (a column-major updates: its slices do
 * not collapse into rows): a pass over updates, against lines that cost
 * more than a step each. Not for a broadcast updates, which the copy
 * would spell out. 0 having done nothing. */
static int sl__ir_slices_dense(sl_call *c, int threads) {
  const sl_tensor *u = &c->arg[2];
  if (sl_tensor_is_contiguous(u) || sl__ir_broadcast(u) ||
      !sl_tensor_is_contiguous(&c->arg[3]) || !sl__ir_slices_may(c))
    return 0;
  sl_call d = *c;
  sl_contiguous_strides(u->ndim, u->shape, d.arg[2].strides);
  d.arg[2].data =
      sl__malloc((size_t)sl__numel(u) * sl_dtype_size(u->dtype) + 1);
  if (!d.arg[2].data) return 0;
  sl__copy_strided(&d.arg[2], u, threads);
  const int done =
      sl__index_slices(&d, threads) || sl__index_half_slices(&d, threads);
  sl__free(d.arg[2].data);
  return done;
}

/* A call and its views: what a batch of lines needs. */
typedef struct sl__ir_job {
  const sl_call *c;
  sl__ir_views v;
} sl__ir_job;

/* A batch of lines (an sl__line_batch_fn). */
static void sl__ir_batch(const void *user, int64_t begin, int64_t end,
                         double *scratch) {
  const sl__ir_job *j = user;
  sl__ir_lines(j->c, &j->v, begin, end, scratch);
}

static sl_status sl__ir_run(sl_ctx *ctx, sl_call *c, int threads, int parted) {
  if (sl__ir_rows(c, threads, parted) || sl__index_slices(c, threads) ||
      sl__index_half_slices(c, threads) || sl__ir_slices_dense(c, threads) ||
      sl__ir_half_rows(c, threads, parted))
    return SL_STATUS_OK;
  sl__ir_job j = {.c = c};
  sl__ir_make_views(c, &j.v);
  return sl__reduce_line_batches(ctx, "index_reduce", c, j.v.lines,
                                 j.v.out.shape[j.v.dim], threads, sl__ir_batch,
                                 &j);
}

sl_status sl_index_reduce_cpu_serial(sl_ctx *ctx, sl_call *c) {
  return sl__ir_run(ctx, c, 1, 0);
}

sl_status sl_index_reduce_cpu_omp(sl_ctx *ctx, sl_call *c) {
  return sl__ir_run(ctx, c, sl__threads(ctx), 1);
}
