/*
 * The generator's op family select_scatter: one slice written at an integer position: its
 * valid shapes, breakers, classifier, shrink hooks and table rows
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

/* select_scatter: x [K], value = x without dim, at. */
void sl__gen_select(sl__gen *g, sl_case *c) {
  int64_t X[SL_MAX_DIMS], V[SL_MAX_DIMS];
  const int K = sl__pick_rank(g, 1, SL_MAX_DIMS);
  sl__gen_x(g, K, X);
  int64_t d;
  c->dim = sl__pick_dim(g, K, &d);
  if (X[d] == 0) {
    /* at needs a slice to select: the empty axis moves elsewhere. */
    X[d] = sl__range(g, 1, 3);
    if (K >= 2)
      X[(d + 1 + (int64_t)sl_rng_below(&g->r, (uint64_t)K - 1)) % K] = 0;
  }
  c->at = sl__range(g, -X[d], X[d] - 1);
  int v = 0;
  for (int k = 0; k < K; ++k)
    if (k != d) V[v++] = X[k];
  sl__shape_set(&c->arg[0], K, X);
  sl__shape_set(&c->arg[1], K - 1, V);
}

int sl__break_rank_select(sl__gen *g, sl_case *fw, sl_op op) {
  (void)g, (void)op;
  sl_case_shape *x = &fw->arg[0], *a1 = &fw->arg[1];
  /* value with x's full rank (the selected axis kept, extent 1) */
  *a1 = *x;
  {
    int64_t d = 0;
    if (!sl__norm_dim(fw->dim, x->ndim, &d)) return -1;
    a1->shape[d] = 1;
  }
  a1->layout = SL_LAYOUT_CONTIGUOUS;
  a1->step = 0;
  return 0;
}

int sl__break_shape_select(sl__gen *g, sl_case *fw) {
  sl_case_shape *a1 = &fw->arg[1];
  if (a1->ndim < 1) return -1;
  a1->shape[sl_rng_below(&g->r, (uint64_t)a1->ndim)] += 1;
  return sl__shape_numel(a1) > g->max ? -1 : 0;
}

sl_fuzz_class sl__classify_select(const sl_case *c, sl_op op) {
  (void)op;
  const sl_case_shape *x = &c->arg[0], *value = &c->arg[1];
  if (!x->present || !value->present) return SL_FUZZ_SHAPE;
  const int K = x->ndim;
  if (K == 0) return SL_FUZZ_RANK;
  int64_t d;
  if (!sl__norm_dim(c->dim, K, &d)) return SL_FUZZ_DIM;
  if (value->ndim != K - 1) return SL_FUZZ_RANK;
  for (int k = 0, v = 0; k < K; ++k)
    if (k != d && value->shape[v++] != x->shape[k]) return SL_FUZZ_SHAPE;
  if (c->at < -x->shape[d] || c->at >= x->shape[d]) return SL_FUZZ_OOB;
  return SL_FUZZ_VALID;
}

void sl__repair_select(sl_case *fw, sl_op op) {
  sl_case_shape *x = &fw->arg[0], *a1 = &fw->arg[1];
  int64_t d = 0, e[SL_MAX_DIMS];
  (void)op;
  const int K = x->ndim;
  if (K == 0 || !sl__norm_dim(fw->dim, K, &d)) return;
  int u = 0;
  for (int k = 0; k < K; ++k)
    if (k != d) e[u++] = x->shape[k];
  sl__reshape(a1, K - 1, e);
  const int64_t n = x->shape[d];
  if (n > 0 && fw->at >= n) fw->at = n - 1;
  if (n > 0 && fw->at < -n) fw->at = -n;
}

int sl__drop_axis_select(sl_case *fw, int k) {
  sl_case_shape *x = &fw->arg[0], *a1 = &fw->arg[1];
  const int R = x->ndim;
  int64_t d = 0;
  if (R < 2 || !sl__norm_dim(fw->dim, R, &d) || k == d) return -1;
  sl__shrink_drop(x, k);
  sl__shrink_drop(a1, k > d ? k - 1 : k);
  fw->dim = k < d ? d - 1 : d;
  return 0;
}

/* select_scatter: value is a row, at one of the last rows; no index. */
void sl__huge_select(sl_case *fw, const sl__huge_dims *h, sl_rng *r) {
  fw->ip = SL_IP_RAND;
  sl__huge_shape(&fw->arg[1], 1, h->cols, 0);
  fw->at = h->rows - 1 - (int64_t)sl_rng_below(r, (uint64_t)h->rows / 16);
}

const sl__fuzz_op sl__fuzz_select_scatter = {
    .gen = sl__gen_select,
    .break_dim = sl__break_dim_dimwise,
    .break_rank = sl__break_rank_select,
    .break_shape = sl__break_shape_select,
    .huge = sl__huge_select,
    .repair = sl__repair_select,
    .drop_axis = sl__drop_axis_select,
    .classify = sl__classify_select,
    .classes = SL__CL(OOB) | SL__CL(DIM) | SL__CL(RANK) | SL__CL(SHAPE)};
