/*
 * index_reduce parallel over its inputs (conflict.h): cpu.atomic, cpu.lock and
 * cpu.sorted. Update i moves a whole row (the slice updates[.., i, ..])
 * into the row out[.., index[i], ..]; the conflict engine
 * (conflict_lines.h) gives the rows to the threads:
 *   cpu.atomic  every element of the row combined atomically (assign: the
 *               last update of each row found by an atomic max of i, then
 *               copied: the serial answer);
 *   cpu.lock    one lock per destination row, the row updated under it
 *               (seed 004's `is_occupy`); assign: any writer may win;
 *   cpu.sorted  rows bucketed by destination, each destination's updates
 *               applied in index order by one thread: bitwise the serial
 *               answer.
 * Float sums, products and means of cpu.atomic and cpu.lock depend on the
 * order in which threads arrive (the tolerance oracle judges them).
 */
#include <stdlib.h>

#include "conflict_lines.h"

/* The lines of a validated call; out must already hold x. x of rank 0 and
 * a 0-D index are seen through rank-k views (sl__axis_view). */
static sl_status sl__ir_clines(sl_ctx *ctx, const sl_call *c, sl__clines *p,
                               sl_tensor *out, sl_tensor *upd) {
  const sl_tensor *x = &c->arg[0], *index = &c->arg[1];
  const int k = x->ndim ? x->ndim : 1, dim = (int)c->p.dim;
  sl__axis_view(&c->arg[3], k, dim, out);
  sl__axis_view(&c->arg[2], k, dim, upd);
  memset(p, 0, sizeof *p);
  p->what = "index_reduce";
  p->dt = out->dtype;
  p->reduce = c->p.reduce;
  p->self = c->p.include_self;
  p->rows = 1;
  p->es = (int64_t)sl_dtype_size(out->dtype);
  p->n = out->shape[dim];
  p->m = sl__numel(index);
  p->ostep = out->strides[dim];
  p->sstep = upd->strides[dim];
  p->istep = index->ndim ? index->strides[0] : 0;
  p->out = (char *)out->data;
  p->src = (const char *)upd->data;
  p->index = index;
  const int64_t L = p->n && p->m ? sl__numel(out) / p->n : 0;
  sl_status st = sl__clines_alloc(ctx, p, L);
  if (st) return st;
  int64_t idx[SL_MAX_DIMS];
  for (int64_t l = 0; l < L; ++l) {
    sl__line_start(l, k, out->shape, dim, idx);
    p->oline[l] = sl__offset(out, idx);
    p->sline[l] = sl__offset(upd, idx);
  }
  sl__clines_seal(p);
  return SL_STATUS_OK;
}

static sl_status sl__ir_conflict(sl_ctx *ctx, sl_call *c, sl__cl_strategy run) {
  const int threads = sl__threads(ctx);
  sl__clines p;
  sl_tensor out, upd;
  sl_status st = sl__ir_clines(ctx, c, &p, &out, &upd);
  if (st) return st;
  sl__copy_strided(&c->arg[3], &c->arg[0], threads);
  st = run(ctx, &p, threads);
  sl__clines_free(&p);
  return st;
}

sl_status sl_index_reduce_cpu_atomic(sl_ctx *ctx, sl_call *c) {
  return sl__ir_conflict(ctx, c, sl__clines_atomic);
}

sl_status sl_index_reduce_cpu_lock(sl_ctx *ctx, sl_call *c) {
  return sl__ir_conflict(ctx, c, sl__clines_lock);
}

sl_status sl_index_reduce_cpu_sorted(sl_ctx *ctx, sl_call *c) {
  return sl__ir_conflict(ctx, c, sl__clines_sorted);
}
