/*
 * scatter_reduce on the CPU: serial, and OpenMP without write conflicts.
 * f32/f64/i32/i64 with sum, prod, amax, amin take the typed row path
 * (sl__scatter_reduce_rows): threads own slabs of out, or, when the
 * contributions outnumber out 4:1, private copies of it merged in part
 * order (the parts fixed by the call, so cpu.omp gives the same bits on
 * any number of threads); f16 and bf16 with a dense out (any src) take it
 * in f32 (sl__half_wide_rows), or, for amax and amin with few
 * contributions, on the half bits (sl__scatter_reduce_half_extremes). A
 * mean takes it for its sum and its counts (reduce_rows_mean.c), a half
 * one in f32. The rest (f16 and bf16 sums, products and means with few
 * contributions, other layouts) go by whole index lines.
 */
#include "half_wide.h"
#include "reduce.h"
#include "reduce_rows.h"
#include "walk.h"

/* Index lines along dim: numel(index) / index.size(dim). */
static int64_t sl__sr_line_count(const sl_call *c) {
  const sl_tensor *index = &c->arg[1];
  int64_t n = sl__numel(index);
  int64_t len = index->ndim ? index->shape[c->p.dim] : 1;
  return len ? n / len : 0;
}

/*
 * Reduces index lines [begin, end) of call (an sl__line_batch_fn). Index
 * line l (see sl__line_start) holds the contributions to the line of out
 * with the same coordinates off dim, so lines never share an output
 * element.
 */
static void sl__sr_lines(const void *call, int64_t begin, int64_t end,
                         double *counts) {
  const sl_call *c = call;
  const sl_tensor *index = &c->arg[1], *src = &c->arg[2], *out = &c->arg[3];
  int dim = (int)c->p.dim;
  sl__rlines p;
  p.dt = out->dtype;
  p.reduce = c->p.reduce;
  p.include_self = c->p.include_self;
  p.n = out->ndim ? out->shape[dim] : 1;
  p.m = index->ndim ? index->shape[dim] : 1;
  p.index = index;
  p.istep = index->ndim ? index->strides[dim] : 0;
  p.out = (char *)out->data;
  p.ostep = out->ndim ? out->strides[dim] : 0;
  p.src = (const char *)src->data;
  p.sstep = src->ndim ? src->strides[dim] : 0;
  p.distinct = 0;
  int64_t oo[SL__LINE_BATCH], so[SL__LINE_BATCH], io[SL__LINE_BATCH];
  int64_t idx[SL_MAX_DIMS] = {0}; /* a 0-D index leaves it all zero */
  sl__line_start(begin, index->ndim, index->shape, dim, idx);
  for (int64_t l = begin; l < end; l += SL__LINE_BATCH) {
    int k = end - l < SL__LINE_BATCH ? (int)(end - l) : SL__LINE_BATCH;
    for (int j = 0; j < k; ++j) {
      oo[j] = sl__offset(out, idx);
      so[j] = sl__offset(src, idx);
      io[j] = sl__offset(index, idx);
      sl__line_next(index->ndim, index->shape, dim, idx);
    }
    sl__reduce_lines(&p, k, oo, so, io, counts);
  }
}

/* Copies x to out, then reduces every index line on `threads` threads
 * (one thread and no parts for cpu.serial: sl__scatter_reduce_rows). */
static sl_status sl__sr_run(sl_ctx *ctx, sl_call *c, int threads, int parted) {
  if (sl__scatter_reduce_rows(c, threads, parted) ||
      sl__scatter_reduce_mean_rows(c, threads, parted) ||
      sl__half_wide_rows(c, threads, parted) ||
      sl__scatter_reduce_half_extremes(c, threads, parted))
    return SL_STATUS_OK;
  const sl_tensor *out = &c->arg[3];
  return sl__reduce_line_batches(ctx, "scatter_reduce", c, sl__sr_line_count(c),
                                 out->ndim ? out->shape[c->p.dim] : 1, threads,
                                 sl__sr_lines, c);
}

sl_status sl_scatter_reduce_cpu_serial(sl_ctx *ctx, sl_call *c) {
  return sl__sr_run(ctx, c, 1, 0);
}

/* Checks the index itself (SL_CHECKS_INDEX_VALUES): the private-copies plan
 * checks each block as it streams it in, saving the separate pass over an
 * index that is often the largest input (128 of 192 MB read on the
 * standard scatter_reduce); any other plan checks it whole first. */
sl_status sl_scatter_reduce_cpu_omp(sl_ctx *ctx, sl_call *c) {
  const int threads = sl__threads(ctx);
  int64_t bad;
  if (sl__scatter_reduce_rows_unchecked(c, threads, &bad))
    return bad < 0 ? SL_STATUS_OK
                   : sl__scatter_like_index(ctx, c, SL__INFER_ALL, bad);
  sl_status st = sl__scatter_like_index(ctx, c, SL__INFER_ALL, -1);
  if (st) return st;
  return sl__sr_run(ctx, c, threads, 1);
}
