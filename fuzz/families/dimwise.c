/*
 * The generator's op family gather, scatter, scatter_reduce and
 * scatter_reduce_backward: one index as large as the updates, along one dim:
 * its valid shapes, breakers, classifier, shrink hooks and table rows
 * (casegen_internal.h's sl__fuzz_op).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "casegen_internal.h"
#include "datagen.h"
#include "huge.h"
#include "shrink.h"
#include "stress.h"

/* gather, scatter, scatter_reduce: x, index (and src). */
static void sl__gen_dimwise(sl__gen *g, sl_case *c, int with_src) {
  /* X and I zeroed: at -O1 (I) and -O3 (X) gcc cannot see that rank-0
   * shapes leave them unread, and -Werror stopped the build there. */
  int64_t X[SL_MAX_DIMS] = {0}, I[SL_MAX_DIMS] = {0}, S[SL_MAX_DIMS];
  const int R = sl__pick_rank(g, 0, SL_MAX_DIMS);
  sl__gen_x(g, R, X);
  const int Rn = R ? R : 1;
  int64_t d;
  c->dim = sl__pick_dim(g, Rn, &d);
  int iR = R;
  if (R == 0) {
    /* A scalar x takes a scalar index, or a 1-D one (rank 0 counts as 1);
     * every value must be 0. */
    if (g->sc == SL__SC_EMPTY || sl__pct(g, 20)) {
      iR = 1;
      I[0] = g->sc == SL__SC_EMPTY ? 0 : sl__range(g, 1, 2);
    }
  } else {
    for (int k = 0; k < R; ++k)
      I[k] = k == d ? sl__free_extent(g, X[k]) : sl__bounded_extent(g, X[k]);
    if (g->sc == SL__SC_EMPTY && g->empty_index)
      I[sl_rng_below(&g->r, (uint64_t)R)] = 0;
    sl__fit(I, R, NULL, g->max);
  }
  sl__shape_set(&c->arg[0], R, X);
  sl__shape_set(&c->arg[1], iR, I);
  if (!with_src) return;
  /* src may be larger than index, except for the backward: LibTorch has no
   * gradient for the part of src that index does not cover. */
  const int larger = !sl_case_is_backward(g->op);
  for (int k = 0; k < iR; ++k) {
    int64_t hi = sl__max64(I[k], k < R ? X[k] : I[k]);
    S[k] = !larger || sl__pct(g, 50) ? I[k] : sl__range(g, I[k], hi + 1);
  }
  sl__fit(S, iR, I, g->max);
  sl__shape_set(&c->arg[2], iR, S);
}

/* The ops' shape generators (sl__fuzz_op.gen). */
void sl__gen_gather(sl__gen *g, sl_case *fw) { sl__gen_dimwise(g, fw, 0); }

/* scatter's scalar: exact in every dtype, or one time in five an end of
 * what the dtype holds, so that campaigns meet the edges of the core's
 * rule (sl__break_scalar goes one past them). */
static void sl__pick_val(sl__gen *g, sl_case *c) {
  c->has_val = 1;
  if (sl__pct(g, 20) && sl__edge_val(g, c, 0) == 0) return;
  if (c->dt == SL_BOOL || c->dt == SL_U8) {
    c->val_is_int = 1;
    c->ival = sl__range(g, 0, c->dt == SL_BOOL ? 1 : 16);
  } else if (sl_dtype_is_int(c->dt) || sl__pct(g, 50)) {
    c->val_is_int = 1;
    c->ival = sl__range(g, -8, 8);
  } else {
    /* An odd number of quarters: never an integer, exact in f16. */
    c->val_is_int = 0;
    c->val = (double)(2 * sl__range(g, -16, 15) + 1) / 4.0;
    return;
  }
  c->val = (double)c->ival;
}

/* scatter: a scalar value instead of src in a fifth of the cases. */
void sl__gen_scatter(sl__gen *g, sl_case *fw) {
  if (sl__pct(g, 20)) {
    sl__pick_val(g, fw);
    sl__gen_dimwise(g, fw, 0);
  } else {
    sl__gen_dimwise(g, fw, 1);
  }
}

void sl__gen_scatter_reduce(sl__gen *g, sl_case *fw) {
  sl__gen_dimwise(g, fw, 1);
}

int sl__break_dim_dimwise(sl__gen *g, sl_case *fw) {
  const int n = fw->arg[0].ndim ? fw->arg[0].ndim : 1;
  fw->dim =
      sl__pct(g, 50) ? n + sl__range(g, 0, 1) : -n - 1 - sl__range(g, 0, 1);
  return 0;
}

int sl__break_rank_dimwise(sl__gen *g, sl_case *fw, sl_op op) {
  (void)op;
  sl_case_shape *x = &fw->arg[0], *a1 = &fw->arg[1];
  /* index gets one axis more (an extent 1) or, from rank 2 up, one less;
   * rank 0 and rank 1 count as the same rank. */
  int xr = x->ndim ? x->ndim : 1;
  if (xr >= 2 && (xr == SL_MAX_DIMS || sl__pct(g, 50))) {
    a1->ndim = xr;
    sl__drop(a1, xr - 1);
    return 0;
  }
  if (xr + 1 > SL_MAX_DIMS) return -1;
  if (a1->ndim == 0) {
    a1->ndim = 1;
    a1->shape[0] = 1;
  }
  a1->shape[a1->ndim++] = 1;
  return a1->ndim == xr + 1 ? 0 : -1;
}

int sl__break_shape_dimwise(sl__gen *g, sl_case *fw) {
  sl_case_shape *x = &fw->arg[0], *a1 = &fw->arg[1], *a2 = &fw->arg[2];
  int64_t d = 0;
  const int xr = x->ndim ? x->ndim : 1;
  if (!sl__norm_dim(fw->dim, xr, &d)) return -1;
  int has_src = sl_case_has_src(fw);
  if (has_src && a2->ndim >= 1 && (x->ndim < 2 || sl__pct(g, 50))) {
    /* src smaller than index in one axis */
    int k = (int)sl_rng_below(&g->r, (uint64_t)a1->ndim);
    a2->shape[k] = a1->shape[k] - 1;
    return 0;
  }
  if (x->ndim < 2) return -1;
  /* index longer than x on an axis other than dim (and src follows) */
  int k = (int)((d + 1 + (int64_t)sl_rng_below(&g->r, (uint64_t)xr - 1)) % xr);
  a1->shape[k] = x->shape[k] + 1;
  if (has_src && a2->shape[k] < a1->shape[k]) a2->shape[k] = a1->shape[k];
  if (sl__shape_numel(a1) > g->max || (has_src && sl__shape_numel(a2) > g->max))
    return -1;
  return 0;
}

sl_fuzz_class sl__classify_dimwise(const sl_case *c, sl_op op) {
  const sl_case_shape *x = &c->arg[0], *index = &c->arg[1], *src = &c->arg[2];
  const int has_src = sl_case_has_src(c);
  if (!x->present || !index->present || (has_src && !src->present))
    return SL_FUZZ_SHAPE;
  int xr = x->ndim ? x->ndim : 1;
  if ((index->ndim ? index->ndim : 1) != xr) return SL_FUZZ_RANK;
  if (has_src && (src->ndim ? src->ndim : 1) != xr) return SL_FUZZ_RANK;
  int64_t d;
  if (!sl__norm_dim(c->dim, xr, &d)) return SL_FUZZ_DIM;
  /* Index extents matter only when there is an index element (LibTorch
   * skips its checks for an empty index; so does the core). */
  const int64_t ni = sl__shape_numel(index);
  for (int k = 0; k < xr && ni > 0; ++k) {
    if (has_src && sl__ext(index, k) > sl__ext(src, k)) return SL_FUZZ_SHAPE;
    if (k != d && sl__ext(index, k) > sl__ext(x, k)) return SL_FUZZ_SHAPE;
  }
  if (sl_case_is_backward(op)) {
    /* the backward's src is index's shape exactly */
    if (src->ndim != index->ndim) return SL_FUZZ_SHAPE;
    for (int k = 0; k < src->ndim; ++k)
      if (src->shape[k] != index->shape[k]) return SL_FUZZ_SHAPE;
  }
  if (ni == 0) return SL_FUZZ_VALID;
  if (c->has_val) { /* scatter's val= in place of src */
    sl_params p;    /* the scalar as the harness hands it over */
    sl_case_params(c, &p);
    if (!sl_scalar_fits(c->dt, p.value, p.ivalue)) return SL_FUZZ_SCALAR;
  }
  return sl__value_class(c, sl__ext(x, (int)d) == 0);
}

/*
 * The repairs by family of forward op (sl__fuzz_op.repair): each restores
 * the rules of a valid case after x (or src, index, ...) got smaller: index
 * extents are clamped to what x and src allow, derived shapes (updates, value,
 * scatter_nd's src, coors' rows) follow x and index. Only ever makes extents
 * smaller.
 */
void sl__repair_dimwise(sl_case *fw, sl_op op) {
  sl_case_shape *x = &fw->arg[0], *a1 = &fw->arg[1], *a2 = &fw->arg[2];
  int64_t d = 0;
  const int xr = x->ndim ? x->ndim : 1;
  if (!sl__norm_dim(fw->dim, xr, &d)) return;
  if ((a1->ndim ? a1->ndim : 1) != xr) return;
  int has_src =
      sl_case_has_src(fw) && a2->present && (a2->ndim ? a2->ndim : 1) == xr;
  for (int k = 0; k < a1->ndim; ++k) {
    if (has_src)
      a1->shape[k] = sl__min64(a1->shape[k], a2->ndim ? a2->shape[k] : 1);
    if (k != d && x->ndim) a1->shape[k] = sl__min64(a1->shape[k], x->shape[k]);
  }
  if (x->ndim && x->shape[d] == 0 && a1->ndim) a1->shape[d] = 0;
  /* the backward's src is index's shape exactly */
  if (sl_case_is_backward(op) && a2->present)
    sl__reshape(a2, a1->ndim, a1->shape);
}

/* The axis droppers by family of forward op (sl__fuzz_op.drop_axis): each
 * drops axis k (< x's rank) of x and the matching axes of the other inputs,
 * or returns -1 when the op's rules do not allow it for this case. */
int sl__drop_axis_dimwise(sl_case *fw, int k) {
  sl_case_shape *x = &fw->arg[0], *a1 = &fw->arg[1], *a2 = &fw->arg[2];
  const int R = x->ndim;
  int64_t d = 0;
  if (sl__norm_dim(fw->dim, R ? R : 1, &d))
    fw->dim = k < d ? d - 1 : k == d ? 0 : d;
  sl__shrink_drop(x, k);
  sl__shrink_drop(a1, k);
  if (a2->present) sl__shrink_drop(a2, k);
  return 0;
}

/* The axis mergers by family of forward op (sl__fuzz_op.merge_axes): x,
 * index and src share their rank here, so each merges the same pair; the
 * dim follows the axis it was on (a negative dim stays negative). The
 * rules hold after it: a product of extents no larger than another's is
 * no larger. */
int sl__merge_axes_dimwise(sl_case *fw, int k) {
  sl_case_shape *x = &fw->arg[0], *a1 = &fw->arg[1], *a2 = &fw->arg[2];
  const int R = x->ndim;
  int64_t d = 0;
  if (k + 1 >= R || a1->ndim != R || (a2->present && a2->ndim != R) ||
      !sl__norm_dim(fw->dim, R, &d))
    return -1;
  const int64_t nd = d <= k ? d : d - 1;
  fw->dim = fw->dim < 0 ? nd - (R - 1) : nd;
  sl__shrink_merge(x, k);
  sl__shrink_merge(a1, k);
  if (a2->present) sl__shrink_merge(a2, k);
  return 0;
}

/* gather, scatter, scatter_reduce: an [m, k] index (and src, unless
 * scatter's val= stands for it). */
void sl__huge_dimwise(sl_case *fw, const sl__huge_dims *h, sl_rng *r) {
  (void)r;
  sl__huge_shape(&fw->arg[1], 2, h->m, h->k);
  if (fw->arg[2].present) sl__huge_shape(&fw->arg[2], 2, h->m, h->k);
}

/* The reduces scatter_reduce refuses (casegen_internal.h). */
const sl_reduce sl__bad_sr[3] = {SL_REDUCE_NONE, SL_REDUCE_ASSIGN,
                                 SL_REDUCE_MAX};

const sl__fuzz_op sl__fuzz_gather = {.gen = sl__gen_gather,
                                     .break_dim = sl__break_dim_dimwise,
                                     .break_rank = sl__break_rank_dimwise,
                                     .break_shape = sl__break_shape_dimwise,
                                     .huge = sl__huge_dimwise,
                                     .repair = sl__repair_dimwise,
                                     .drop_axis = sl__drop_axis_dimwise,
                                     .merge_axes = sl__merge_axes_dimwise,
                                     .classify = sl__classify_dimwise,
                                     .out_like_index = 1,
                                     .classes = SL__INDEX_CLASSES};

const sl__fuzz_op sl__fuzz_scatter = {.gen = sl__gen_scatter,
                                      .break_dim = sl__break_dim_dimwise,
                                      .break_rank = sl__break_rank_dimwise,
                                      .break_shape = sl__break_shape_dimwise,
                                      .huge = sl__huge_dimwise,
                                      .stress = 1,
                                      .repair = sl__repair_dimwise,
                                      .drop_axis = sl__drop_axis_dimwise,
                                      .merge_axes = sl__merge_axes_dimwise,
                                      .classify = sl__classify_dimwise,
                                      .classes =
                                          SL__INDEX_CLASSES | SL__CL(SCALAR)};

const sl__fuzz_op sl__fuzz_scatter_reduce = {
    .gen = sl__gen_scatter_reduce,
    .break_dtype = sl__break_dtype_reducing,
    .bad_reduces = sl__bad_sr,
    .n_bad_reduces = SL__COUNT(sl__bad_sr),
    .break_dim = sl__break_dim_dimwise,
    .break_rank = sl__break_rank_dimwise,
    .break_shape = sl__break_shape_dimwise,
    .huge = sl__huge_dimwise,
    .stress = 1,
    .repair = sl__repair_dimwise,
    .drop_axis = sl__drop_axis_dimwise,
    .merge_axes = sl__merge_axes_dimwise,
    .classify = sl__classify_dimwise,
    .classes = SL__INDEX_CLASSES};

const sl__fuzz_op sl__fuzz_scatter_reduce_backward = {
    .break_dtype = sl__break_dtype_reducing,
    .bad_reduces = sl__bad_sr,
    .n_bad_reduces = SL__COUNT(sl__bad_sr),
    .stress = 1,
    .classes = SL__INDEX_CLASSES};
