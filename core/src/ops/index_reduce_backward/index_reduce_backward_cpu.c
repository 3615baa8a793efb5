/*
 * index_reduce_backward on the CPU: serial, and OpenMP over the lines of x
 * along dim (the coordinates other than the axis). Every line takes the
 * whole index; its updates and grad_updates are the line with the same
 * coordinates, so each thread writes its own elements only.
 */
#include "ops/index_reduce_backward/index_reduce_backward_shares.h"
#include "ops/index_reduce_backward/index_reduce_backward_slices.h"
#include "reduce.h"

/* Slots. */
enum { G_ = 0, X_, I_, U_, R_, GX_, GU_ };

/* Every tensor as rank k = max(rank of x, 1); updates and grad_updates get
 * their extent-1 dim back for a 0-D index. */
typedef struct sl__irb_views {
  sl_tensor t[7];
  int k, dim;
  int64_t n, lines, m; /* m: contributions per line, numel(index) */
} sl__irb_views;

static void sl__irb_make_views(const sl_call *c, sl__irb_views *v) {
  const sl_tensor *x = &c->arg[X_];
  v->k = x->ndim ? x->ndim : 1;
  v->dim = (int)c->p.dim;
  for (int s = 0; s < 7; ++s)
    if (s != I_) sl__axis_view(&c->arg[s], v->k, v->dim, &v->t[s]);
  v->n = v->t[X_].shape[v->dim];
  v->lines = v->n ? sl__numel(x) / v->n : 0; /* x empty: updates too */
  v->m = sl__numel(&c->arg[I_]);
}

/* Where the lines lie: every line takes the whole index from its start,
 * and its updates and grad_updates are the line with its coordinates. */
static void sl__irb_geometry(const sl__irb_views *v, sl__rbgeo *geo) {
  sl__rbgeo_tensors(geo, v->t, v->k);
  for (int d = 0; d < v->k; ++d) {
    geo->step[d][SL__RB_IDX] = 0;
    geo->cover[d] = INT64_MAX;
  }
  geo->m = v->m;
}

static sl_status sl__irb_run(sl_ctx *ctx, sl_call *c, int threads) {
  if (sl__index_backward_slices(c, threads)) return SL_STATUS_OK;
  sl_status st;
  if (sl__index_backward_shares(ctx, c, threads, &st)) return st;
  sl__irb_views v;
  sl__irb_make_views(c, &v);
  sl__rbgeo geo;
  sl__irb_geometry(&v, &geo);
  const sl_tensor *index = &c->arg[I_], *t = v.t;
  const int dim = v.dim;
  const sl__rbline b = {.dt = t[X_].dtype,
                        .reduce = c->p.reduce,
                        .include_self = c->p.include_self,
                        .n = v.n,
                        .gstep = t[G_].strides[dim],
                        .xstep = t[X_].strides[dim],
                        .rstep = t[R_].strides[dim],
                        .gxstep = t[GX_].strides[dim],
                        .index = index,
                        .istep = index->ndim ? index->strides[0] : 0,
                        .sstep = t[U_].strides[dim],
                        .gsstep = t[GU_].strides[dim],
                        .walk_ndim = v.k,
                        .walk_dim = dim,
                        .walk_shape = t[X_].shape,
                        .geo = &geo};
  return sl__reduce_backward_run(ctx, "index_reduce_backward", &b, v.lines,
                                 threads);
}

sl_status sl_index_reduce_backward_cpu_serial(sl_ctx *ctx, sl_call *c) {
  return sl__irb_run(ctx, c, 1);
}

sl_status sl_index_reduce_backward_cpu_omp(sl_ctx *ctx, sl_call *c) {
  return sl__irb_run(ctx, c, sl__threads(ctx));
}
