/*
 * scatter_reduce_backward on the CPU: serial, and OpenMP over the lines of x
 * along dim (sum with x included: a copy and a gather). A line of x takes the
 * index line with the same coordinates off dim, when index reaches that far, so
 * each thread writes its own lines of grad_x and grad_src only.
 */
#include <stdlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "reduce.h"

/* Slots. */
enum { G_ = 0, X_, I_, S_, R_, GX_, GS_ };

/* The backward of the lines [begin, end) of x along dim. */
static void sl__srb_lines(const sl_call *c, int64_t begin, int64_t end,
                          double *scratch) {
  const sl_tensor *g = &c->arg[G_], *x = &c->arg[X_], *index = &c->arg[I_];
  const sl_tensor *src = &c->arg[S_], *res = &c->arg[R_];
  const sl_tensor *gx = &c->arg[GX_], *gs = &c->arg[GS_];
  int dim = (int)c->p.dim;
  int k = x->ndim ? x->ndim : 1;
  int64_t xs[SL_MAX_DIMS];
  for (int d = 0; d < k; ++d) xs[d] = x->ndim ? x->shape[d] : 1;
  int has_index = sl__numel(index) > 0;
  sl__rbline b;
  b.dt = x->dtype;
  b.reduce = c->p.reduce;
  b.include_self = c->p.include_self;
  b.n = xs[dim];
  b.index = index;
  b.gstep = g->ndim ? g->strides[dim] : 0;
  b.xstep = x->ndim ? x->strides[dim] : 0;
  b.rstep = res->ndim ? res->strides[dim] : 0;
  b.gxstep = gx->ndim ? gx->strides[dim] : 0;
  b.istep = index->ndim ? index->strides[dim] : 0;
  b.sstep = src->ndim ? src->strides[dim] : 0;
  b.gsstep = gs->ndim ? gs->strides[dim] : 0;
  int64_t idx[SL_MAX_DIMS] = {0};
  for (int64_t l = begin; l < end; ++l) {
    sl__line_start(l, k, xs, dim, idx);
    b.g = sl__ptr(g, sl__offset(g, idx));
    b.x = sl__ptr(x, sl__offset(x, idx));
    b.res = sl__ptr(res, sl__offset(res, idx));
    b.gx = sl__ptr(gx, sl__offset(gx, idx));
    /* Is this line inside index's extent off dim? */
    int covered = has_index;
    for (int d = 0; covered && d < index->ndim; ++d)
      covered = d == dim || idx[d] < index->shape[d];
    b.m = covered ? (index->ndim ? index->shape[dim] : 1) : 0;
    if (covered) {
      b.ioff = sl__offset(index, idx);
      b.src = sl__ptr(src, sl__offset(src, idx));
      b.gs = sl__ptr(gs, sl__offset(gs, idx));
    }
    sl__reduce_backward_line(&b, scratch);
  }
}

/*
 * sum with x included: grad_x is grad_out and grad_src is grad_out gathered
 * along dim by index (LibTorch's formula), pure data movement: the copy and
 * gather kernels instead of the per-line loop (large suite, 2048x4096 f32:
 * the line loop moved 5% of the copy bandwidth). Returns 0 for any other
 * call.
 */
static int sl__srb_sum(sl_ctx *ctx, sl_call *c, int threads) {
  if (c->p.reduce != SL_REDUCE_SUM || !c->p.include_self) return 0;
  sl__copy_strided(&c->arg[GX_], &c->arg[G_], threads);
  if (sl__numel(&c->arg[I_]) == 0) return 1;
  sl_call g;
  sl_call_init(&g, SL_OP_GATHER);
  g.arg[0] = c->arg[G_];
  g.arg[1] = c->arg[I_];
  g.arg[2] = c->arg[GS_];
  g.p.dim = c->p.dim;
  if (threads > 1)
    sl_gather_cpu_omp(ctx, &g);
  else
    sl_gather_cpu_serial(ctx, &g);
  return 1;
}

static sl_status sl__srb_run(sl_ctx *ctx, sl_call *c, int threads) {
  if (sl__srb_sum(ctx, c, threads)) return SL_STATUS_OK;
  const sl_tensor *x = &c->arg[X_];
  int64_t n = x->ndim ? x->shape[c->p.dim] : 1;
  int64_t lines = n ? sl__numel(x) / n : 0;
  if (lines == 0) return SL_STATUS_OK; /* x empty: so are index and src */
  int team = lines < threads ? (int)lines : threads;
  int64_t per = sl__reduce_backward_scratch(c->p.reduce, n);
  double *scratch = NULL;
  if (per) {
    scratch = malloc((size_t)team * (size_t)per * sizeof(double));
    if (!scratch)
      return sl_ctx_fail(ctx, SL_STATUS_OUT_OF_MEMORY,
                         "scatter_reduce_backward: no memory for scratch");
  }
#pragma omp parallel num_threads(team) if (team > 1)
  {
#ifdef _OPENMP
    double *mine = scratch ? scratch + omp_get_thread_num() * per : NULL;
#else
    double *mine = scratch;
#endif
#pragma omp for schedule(static)
    for (int64_t l = 0; l < lines; ++l) sl__srb_lines(c, l, l + 1, mine);
  }
  free(scratch);
  return SL_STATUS_OK;
}

sl_status sl_scatter_reduce_backward_cpu_serial(sl_ctx *ctx, sl_call *c) {
  return sl__srb_run(ctx, c, 1);
}

sl_status sl_scatter_reduce_backward_cpu_omp(sl_ctx *ctx, sl_call *c) {
  return sl__srb_run(ctx, c, sl__threads(ctx));
}
