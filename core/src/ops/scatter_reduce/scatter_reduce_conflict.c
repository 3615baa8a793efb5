/*
 * scatter_reduce parallel over its inputs (conflict.h): cpu.atomic, cpu.lock
 * and cpu.sorted. Each index line along dim feeds the out line with the same
 * coordinates off dim; the conflict engine (conflict_lines.h) splits the
 * contributions of every line among the threads, with a destination being
 * one element of out (its lock, for cpu.lock, is that element's).
 *
 * Results: integer results and amax/amin values are the serial ones
 * (atomic and lock may keep the other of two equal values, -0.0 versus 0.0,
 * when they run on several threads; reduce_ops.h counts them equal). Float
 * sums, products and means of cpu.atomic and cpu.lock depend on the order in
 * which threads arrive; cpu.sorted applies every destination's inputs in index
 * order and is bitwise the serial answer.
 */
#include <stdlib.h>

#include "conflict_lines.h"

/* The lines of a validated call; out must already hold x. */
static sl_status sl__sr_clines(sl_ctx *ctx, const sl_call *c, sl__clines *p) {
  const sl_tensor *index = &c->arg[1], *src = &c->arg[2], *out = &c->arg[3];
  const int dim = (int)c->p.dim;
  memset(p, 0, sizeof *p);
  p->what = "scatter_reduce";
  p->dt = out->dtype;
  p->reduce = c->p.reduce;
  p->self = c->p.include_self;
  p->rows = 0;
  p->es = (int64_t)sl_dtype_size(out->dtype);
  p->n = out->ndim ? out->shape[dim] : 1;
  p->m = index->ndim ? index->shape[dim] : 1;
  p->ostep = out->ndim ? out->strides[dim] : 0;
  p->sstep = src->ndim ? src->strides[dim] : 0;
  p->istep = index->ndim ? index->strides[dim] : 0;
  p->out = (char *)out->data;
  p->src = (const char *)src->data;
  p->index = index;
  const int64_t numel = sl__numel(index);
  const int64_t L = p->m ? numel / p->m : 0;
  sl_status st = sl__clines_alloc(ctx, p, L);
  if (st) return st;
  int64_t idx[SL_MAX_DIMS] = {0}; /* a 0-D index leaves it all zero */
  for (int64_t l = 0; l < L; ++l) {
    sl__line_start(l, index->ndim, index->shape, dim, idx);
    p->oline[l] = sl__offset(out, idx);
    p->sline[l] = sl__offset(src, idx);
    p->iline[l] = sl__offset(index, idx);
  }
  sl__clines_seal(p);
  return SL_STATUS_OK;
}

static sl_status sl__sr_conflict(sl_ctx *ctx, sl_call *c, sl__cl_strategy run) {
  const int threads = sl__threads(ctx);
  sl__clines p;
  sl_status st = sl__sr_clines(ctx, c, &p);
  if (st) return st;
  sl__copy_strided(&c->arg[3], &c->arg[0], threads);
  st = run(ctx, &p, threads);
  sl__clines_free(&p);
  return st;
}

sl_status sl_scatter_reduce_cpu_atomic(sl_ctx *ctx, sl_call *c) {
  return sl__sr_conflict(ctx, c, sl__clines_atomic);
}

sl_status sl_scatter_reduce_cpu_lock(sl_ctx *ctx, sl_call *c) {
  return sl__sr_conflict(ctx, c, sl__clines_lock);
}

sl_status sl_scatter_reduce_cpu_sorted(sl_ctx *ctx, sl_call *c) {
  return sl__sr_conflict(ctx, c, sl__clines_sorted);
}
