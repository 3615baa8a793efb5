/*
 * scatter_reduce on the CPU: serial, and OpenMP without write conflicts.
 * f32/f64/i32/i64 with sum, prod, amax, amin take the typed row path
 * (sl__scatter_reduce_rows): threads own slabs of out, or, when the
 * contributions outnumber out 4:1, private copies of it merged in part
 * order (the parts fixed by the call, so cpu.omp gives the same bits on
 * any number of threads); f16 and bf16 with a dense out (any src) take it
 * in f32 (sl__sr_half_rows). The mean of f32/f64/i32/i64 takes it for
 * its sum and its counts (reduce_rows_mean.c). The rest (f16 and bf16
 * means, f16 and bf16 in other layouts) go by whole index lines.
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
  int64_t oo[SL__LINE_BATCH], so[SL__LINE_BATCH], io[SL__LINE_BATCH];
  int64_t idx[SL_MAX_DIMS] = {0}; /* a 0-D index leaves it all zero */
  for (int64_t l = begin; l < end; l += SL__LINE_BATCH) {
    int k = end - l < SL__LINE_BATCH ? (int)(end - l) : SL__LINE_BATCH;
    for (int j = 0; j < k; ++j) {
      sl__line_start(l + j, index->ndim, index->shape, dim, idx);
      oo[j] = sl__offset(out, idx);
      so[j] = sl__offset(src, idx);
      io[j] = sl__offset(index, idx);
    }
    sl__reduce_lines(&p, k, oo, so, io, counts);
  }
}

/*
 * f16/bf16 sum, prod, amax and amin with a dense out (half_wide.h): out := x
 * and src widened to f32, reduced in place by the f32 row path, rounded
 * back once. That is the lines' arithmetic (reduce.c: every step an f32
 * operation, one rounding to the half type at the end; cpu.omp's private
 * copies add in part order, as for f32), with the f32 path's plans: the
 * lines took a target's chain through a double and two conversions a
 * step (f16 sum and amin into 4 targets: 0.2-0.46x LibTorch). Returns 0
 * having done nothing when the call does not qualify or the f32 copies
 * find no memory.
 */
static int sl__sr_half_rows(sl_call *c, int threads, int parted) {
  const sl_dtype dt = c->arg[3].dtype;
  if ((dt != SL_F16 && dt != SL_BF16) ||
      !sl__reduce_row_for(SL_F32, c->p.reduce, c->arg[1].dtype, 1) ||
      c->p.reduce == SL_REDUCE_ASSIGN || c->p.reduce == SL_REDUCE_NONE)
    return 0;
  /* Widening x and narrowing out cost three passes over out: with fewer
   * contributions than a quarter of its elements the lines, which touch
   * only the targets, were faster (f16 x=4M with 1,000 updates: 22.6x
   * LibTorch by lines, 1.6x so; bf16 256x65536 with 256x8192: 1.38x,
   * 1.13x; with a quarter, 1.07x, 1.65x). */
  if (sl__numel(&c->arg[1]) * 4 < sl__numel(&c->arg[3])) return 0;
  sl_call f;
  float *wide = sl__half_wide_begin(c, &f, threads);
  if (!wide) return 0;
  sl__scatter_reduce_rows(&f, threads, parted);
  sl__half_wide_end(c, wide, threads);
  return 1;
}

/* Copies x to out, then reduces every index line on `threads` threads
 * (one thread and no parts for cpu.serial: sl__scatter_reduce_rows). */
static sl_status sl__sr_run(sl_ctx *ctx, sl_call *c, int threads, int parted) {
  if (sl__scatter_reduce_rows(c, threads, parted) ||
      sl__scatter_reduce_mean_rows(c, threads, parted) ||
      sl__sr_half_rows(c, threads, parted))
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
