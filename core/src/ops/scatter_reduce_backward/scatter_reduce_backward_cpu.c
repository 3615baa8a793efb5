/*
 * scatter_reduce_backward on the CPU: serial, and OpenMP over the lines of x
 * along dim (sum with x included: a copy and a gather). A line of x takes the
 * index line with the same coordinates off dim, when index reaches that far, so
 * each thread writes its own lines of grad_x and grad_src only.
 */
#include "reduce.h"

/* Slots. */
enum { G_ = 0, X_, I_, S_, R_, GX_, GS_ };

/* The line geometry: a line of x along dim takes the index line with the
 * same coordinates off dim, when index reaches that far. The tensors
 * (slots G_..GS_) without x's axes of extent 1 other than dim, which
 * every position has at 0: a line's coordinates cost a division per axis
 * kept (x 1x2444611x1x1 along an extent-1 axis: 2.4M lines, each one
 * located through four axes, was most of the time). */
typedef struct sl__srb_geometry {
  int k;   /* rank of the walk: the axes kept, at least 1 */
  int dim; /* dim among them */
  int64_t xs[SL_MAX_DIMS];
  sl_tensor t[GS_ + 1];
  int has_index;
} sl__srb_geometry;

static void sl__srb_geometry_init(sl__srb_geometry *geo, const sl_call *c) {
  const sl_tensor *x = &c->arg[X_];
  geo->has_index = sl__numel(&c->arg[I_]) > 0;
  for (int s = G_; s <= GS_; ++s) geo->t[s] = c->arg[s];
  geo->k = 0, geo->dim = 0;
  for (int d = 0; d < x->ndim; ++d) {
    if (x->shape[d] == 1 && d != c->p.dim) continue;
    if (d == c->p.dim) geo->dim = geo->k;
    geo->xs[geo->k] = x->shape[d];
    for (int s = G_; s <= GS_; ++s) {
      geo->t[s].shape[geo->k] = c->arg[s].shape[d];
      geo->t[s].strides[geo->k] = c->arg[s].strides[d];
    }
    ++geo->k;
  }
  for (int s = G_; s <= GS_ && x->ndim > 0; ++s) geo->t[s].ndim = geo->k;
  if (geo->k == 0) geo->k = 1, geo->xs[0] = 1; /* a 0-D x */
}

/* Where the lines lie (sl__rbgeo): a line takes the index line with its
 * coordinates while the index reaches that far off dim. */
static void sl__srb_places(const sl__srb_geometry *geo, sl__rbgeo *at) {
  sl__rbgeo_tensors(at, geo->t, geo->k);
  const sl_tensor *index = &geo->t[I_];
  for (int d = 0; d < geo->k; ++d) {
    at->step[d][SL__RB_IDX] = d < index->ndim ? index->strides[d] : 0;
    at->cover[d] = d < index->ndim ? index->shape[d] : INT64_MAX;
  }
  at->m = !geo->has_index ? 0 : index->ndim ? index->shape[geo->dim] : 1;
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
  const sl_tensor *a = c->arg;
  const int dim = (int)c->p.dim;
  sl__srb_geometry geo;
  sl__srb_geometry_init(&geo, c);
  sl__rbgeo at;
  sl__srb_places(&geo, &at);
#define SL__STEP(t) (a[t].ndim ? a[t].strides[dim] : 0)
  const sl__rbline b = {.dt = a[X_].dtype,
                        .reduce = c->p.reduce,
                        .include_self = c->p.include_self,
                        .n = a[X_].ndim ? a[X_].shape[dim] : 1,
                        .gstep = SL__STEP(G_),
                        .xstep = SL__STEP(X_),
                        .rstep = SL__STEP(R_),
                        .gxstep = SL__STEP(GX_),
                        .index = &a[I_],
                        .istep = SL__STEP(I_),
                        .sstep = SL__STEP(S_),
                        .gsstep = SL__STEP(GS_),
                        .walk_ndim = geo.k,
                        .walk_dim = geo.dim,
                        .walk_shape = geo.xs,
                        .geo = &at};
#undef SL__STEP
  int64_t lines = b.n ? sl__numel(&a[X_]) / b.n : 0; /* x empty: index too */
  return sl__reduce_backward_run(ctx, "scatter_reduce_backward", &b, lines,
                                 threads);
}

sl_status sl_scatter_reduce_backward_cpu_serial(sl_ctx *ctx, sl_call *c) {
  return sl__srb_run(ctx, c, 1);
}

sl_status sl_scatter_reduce_backward_cpu_omp(sl_ctx *ctx, sl_call *c) {
  return sl__srb_run(ctx, c, sl__threads(ctx));
}
