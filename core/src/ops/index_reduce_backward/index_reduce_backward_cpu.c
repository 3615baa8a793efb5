/*
 * index_reduce_backward on the CPU: serial, and OpenMP over the lines of x
 * along dim (the coordinates other than the axis). Every line takes the
 * whole index; its updates and grad_updates are the line with the same
 * coordinates, so each thread writes its own elements only.
 */
#include <stdlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "reduce.h"

/* Slots. */
enum { G_ = 0, X_, I_, U_, R_, GX_, GU_ };

/* Every tensor as rank k = max(rank of x, 1); updates and grad_updates get
 * their extent-1 dim back for a 0-D index. */
typedef struct sl__irb_views {
  sl_tensor t[7];
  int k, dim;
  int64_t n, lines;
} sl__irb_views;

static void sl__irb_make_views(const sl_call *c, sl__irb_views *v) {
  const sl_tensor *x = &c->arg[X_];
  v->k = x->ndim ? x->ndim : 1;
  v->dim = (int)c->p.dim;
  for (int s = 0; s < 7; ++s)
    if (s != I_) sl__axis_view(&c->arg[s], v->k, v->dim, &v->t[s]);
  v->n = v->t[X_].shape[v->dim];
  v->lines = v->n ? sl__numel(x) / v->n : 0;
}

static void sl__irb_lines(const sl_call *c, const sl__irb_views *v,
                          int64_t begin, int64_t end, double *scratch) {
  const sl_tensor *index = &c->arg[I_];
  const sl_tensor *t = v->t;
  int dim = v->dim;
  sl__rbline b;
  b.dt = t[X_].dtype;
  b.reduce = c->p.reduce;
  b.include_self = c->p.include_self;
  b.n = v->n;
  b.m = sl__numel(index);
  b.index = index;
  b.ioff = 0;
  b.istep = index->ndim ? index->strides[0] : 0;
  b.gstep = t[G_].strides[dim];
  b.xstep = t[X_].strides[dim];
  b.rstep = t[R_].strides[dim];
  b.gxstep = t[GX_].strides[dim];
  b.sstep = t[U_].strides[dim];
  b.gsstep = t[GU_].strides[dim];
  int64_t idx[SL_MAX_DIMS];
  for (int64_t l = begin; l < end; ++l) {
    sl__line_start(l, v->k, t[X_].shape, dim, idx);
    b.g = sl__ptr(&t[G_], sl__offset(&t[G_], idx));
    b.x = sl__ptr(&t[X_], sl__offset(&t[X_], idx));
    b.res = sl__ptr(&t[R_], sl__offset(&t[R_], idx));
    b.gx = sl__ptr(&t[GX_], sl__offset(&t[GX_], idx));
    b.src = sl__ptr(&t[U_], sl__offset(&t[U_], idx));
    b.gs = sl__ptr(&t[GU_], sl__offset(&t[GU_], idx));
    sl__reduce_backward_line(&b, scratch);
  }
}

static sl_status sl__irb_run(sl_ctx *ctx, sl_call *c, int threads) {
  sl__irb_views v;
  sl__irb_make_views(c, &v);
  if (v.lines == 0) return SL_STATUS_OK; /* x empty: updates too */
  int team = v.lines < threads ? (int)v.lines : threads;
  int64_t per = sl__reduce_backward_scratch(c->p.reduce, v.n);
  double *scratch = NULL;
  if (per) {
    scratch = malloc((size_t)team * (size_t)per * sizeof(double));
    if (!scratch)
      return sl_ctx_fail(ctx, SL_STATUS_OUT_OF_MEMORY,
                         "index_reduce_backward: no memory for scratch");
  }
#pragma omp parallel num_threads(team) if (team > 1)
  {
#ifdef _OPENMP
    double *mine = scratch ? scratch + omp_get_thread_num() * per : NULL;
#else
    double *mine = scratch;
#endif
#pragma omp for schedule(static)
    for (int64_t l = 0; l < v.lines; ++l) sl__irb_lines(c, &v, l, l + 1, mine);
  }
  free(scratch);
  return SL_STATUS_OK;
}

sl_status sl_index_reduce_backward_cpu_serial(sl_ctx *ctx, sl_call *c) {
  return sl__irb_run(ctx, c, 1);
}

sl_status sl_index_reduce_backward_cpu_omp(sl_ctx *ctx, sl_call *c) {
  return sl__irb_run(ctx, c, sl__threads(ctx));
}
