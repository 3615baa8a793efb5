/*
 * The generator's op family index_reduce and its backward: a vector index along
 * one axis: its valid shapes, breakers, classifier, shrink hooks and table rows
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

/* index_reduce of a 0-D x (one element along the axis, as rank 0 counts as
 * 1): index [L] with updates [L], or a 0-D index with a 0-D update. */
static void sl__gen_index_reduce_0d(sl__gen *g, sl_case *c) {
  int64_t a;
  c->dim = sl__pick_dim(g, 1, &a);
  sl__shape_set(&c->arg[0], 0, NULL);
  if (g->sc != SL__SC_EMPTY && sl__pct(g, 20)) {
    sl__shape_set(&c->arg[1], 0, NULL);
    sl__shape_set(&c->arg[2], 0, NULL);
    return;
  }
  int64_t L = g->sc == SL__SC_EMPTY ? 0 : sl__free_extent(g, 1);
  if (L > g->max) L = g->max;
  sl__shape_set(&c->arg[1], 1, &L);
  sl__shape_set(&c->arg[2], 1, &L);
}

/* index_reduce: x [K], index [L] or scalar, updates. */
void sl__gen_index_reduce(sl__gen *g, sl_case *c) {
  int64_t X[SL_MAX_DIMS], U[SL_MAX_DIMS], L;
  if (g->sc != SL__SC_LARGE && sl__pct(g, 5)) {
    sl__gen_index_reduce_0d(g, c);
    return;
  }
  const int K = sl__pick_rank(g, 1, SL_MAX_DIMS);
  sl__gen_x(g, K, X);
  int64_t a;
  c->dim = sl__pick_dim(g, K, &a);
  int64_t slice = 1; /* elements of one slice across the axis (<= max) */
  for (int d = 0; d < K; ++d)
    if (d != a) slice *= X[d];
  int empty_index = g->sc == SL__SC_EMPTY && g->empty_index;
  if (X[a] >= 1 && !empty_index && sl__pct(g, 20)) {
    /* A 0-D index: updates is the (K-1)-D slice. */
    int u = 0;
    for (int d = 0; d < K; ++d)
      if (d != a) U[u++] = X[d];
    sl__shape_set(&c->arg[0], K, X);
    sl__shape_set(&c->arg[1], 0, NULL);
    sl__shape_set(&c->arg[2], K - 1, U);
    return;
  }
  L = empty_index ? 0 : sl__free_extent(g, X[a]);
  if (slice > 0 && L > g->max / slice) L = g->max / slice;
  if (L > g->max) L = g->max;
  for (int d = 0; d < K; ++d) U[d] = d == a ? L : X[d];
  sl__shape_set(&c->arg[0], K, X);
  sl__shape_set(&c->arg[1], 1, &L);
  sl__shape_set(&c->arg[2], K, U);
}

int sl__break_rank_index_reduce(sl__gen *g, sl_case *fw, sl_op op) {
  (void)g, (void)op;
  sl_case_shape *a1 = &fw->arg[1];
  /* A 2-D index [L,1]: never a vector. */
  int64_t L = a1->ndim ? a1->shape[0] : 1;
  a1->ndim = 2;
  a1->shape[0] = L;
  a1->shape[1] = 1;
  return 0;
}

int sl__break_shape_index_reduce(sl__gen *g, sl_case *fw) {
  sl_case_shape *x = &fw->arg[0], *a1 = &fw->arg[1], *a2 = &fw->arg[2];
  int64_t a = 0;
  if (!sl__norm_dim(fw->dim, x->ndim, &a)) return -1;
  if (a1->ndim == 0) {
    /* from a 0-D index to [1] with updates of 2 along the axis */
    a1->ndim = 1;
    a1->shape[0] = 1;
    *a2 = *x;
    a2->layout = SL_LAYOUT_CONTIGUOUS;
    a2->shape[a] = 2;
  } else {
    a2->shape[a] = a1->shape[0] + 1;
  }
  return sl__shape_numel(a2) > g->max ? -1 : 0;
}

sl_fuzz_class sl__classify_index_reduce(const sl_case *c, sl_op op) {
  (void)op;
  const sl_case_shape *x = &c->arg[0], *index = &c->arg[1], *up = &c->arg[2];
  if (!x->present || !index->present || !up->present) return SL_FUZZ_SHAPE;
  const int K = x->ndim;
  int64_t a;
  if (!sl__norm_dim(c->dim, K ? K : 1, &a)) return SL_FUZZ_DIM;
  if (index->ndim > 1) return SL_FUZZ_RANK;
  if (K == 0) {
    /* One element along the axis (rank 0 counts as 1): a 0-D update for a
     * 0-D or one-element index, else one update per index element. */
    const int64_t m = index->ndim ? index->shape[0] : 1;
    if (index->ndim == 0 || (up->ndim == 0 && m == 1)) {
      if (up->ndim != 0) return SL_FUZZ_RANK;
    } else {
      if (up->ndim != 1) return SL_FUZZ_RANK;
      if (up->shape[0] != m) return SL_FUZZ_SHAPE;
    }
    return m == 0 ? SL_FUZZ_VALID : sl__value_class(c, 0);
  }
  if (index->ndim == 1) {
    if (up->ndim != K) return SL_FUZZ_RANK;
    for (int d = 0; d < K; ++d)
      if (up->shape[d] != (d == a ? index->shape[0] : x->shape[d]))
        return SL_FUZZ_SHAPE;
  } else {
    if (up->ndim != K - 1) return SL_FUZZ_RANK;
    for (int d = 0, u = 0; d < K; ++d)
      if (d != a && up->shape[u++] != x->shape[d]) return SL_FUZZ_SHAPE;
  }
  if (sl__shape_numel(index) == 0) return SL_FUZZ_VALID;
  return sl__value_class(c, x->shape[a] == 0);
}

void sl__repair_index_reduce(sl_case *fw, sl_op op) {
  sl_case_shape *x = &fw->arg[0], *a1 = &fw->arg[1], *a2 = &fw->arg[2];
  int64_t d = 0, e[SL_MAX_DIMS];
  (void)op;
  const int K = x->ndim;
  if (K == 0 || !sl__norm_dim(fw->dim, K, &d) || a1->ndim > 1) return;
  if (a1->ndim == 0 && x->shape[d] == 0) {
    /* a scalar index needs a slice; an empty axis takes no index */
    int64_t zero = 0;
    sl__reshape(a1, 1, &zero);
  }
  if (a1->ndim == 1) {
    if (x->shape[d] == 0) a1->shape[0] = 0;
    for (int k = 0; k < K; ++k) e[k] = k == d ? a1->shape[0] : x->shape[k];
    sl__reshape(a2, K, e);
  } else {
    int u = 0;
    for (int k = 0; k < K; ++k)
      if (k != d) e[u++] = x->shape[k];
    sl__reshape(a2, K - 1, e);
  }
}

int sl__drop_axis_index_reduce(sl_case *fw, int k) {
  sl_case_shape *x = &fw->arg[0], *a1 = &fw->arg[1], *a2 = &fw->arg[2];
  const int R = x->ndim;
  int64_t d = 0;
  if (R < 2 || !sl__norm_dim(fw->dim, R, &d) || k == d) return -1;
  sl__shrink_drop(x, k);
  sl__shrink_drop(a2, a1->ndim == 0 && k > d ? k - 1 : k);
  fw->dim = k < d ? d - 1 : d;
  return 0;
}

/* Axes k and k + 1 of x and src, neither of them the dim (the index runs
 * along it alone). */
int sl__merge_axes_index_reduce(sl_case *fw, int k) {
  sl_case_shape *x = &fw->arg[0], *a1 = &fw->arg[1], *a2 = &fw->arg[2];
  const int R = x->ndim;
  int64_t d = 0;
  if (k + 1 >= R || a1->ndim != 1 || a2->ndim != R ||
      !sl__norm_dim(fw->dim, R, &d) || k == d || k + 1 == d)
    return -1;
  const int64_t nd = d < k ? d : d - 1;
  fw->dim = fw->dim < 0 ? nd - (R - 1) : nd;
  sl__shrink_merge(x, k);
  sl__shrink_merge(a2, k);
  return 0;
}

/* The ops' huge shapes (sl__fuzz_op.huge), x already [rows, cols]. */

void sl__huge_index_reduce(sl_case *fw, const sl__huge_dims *h, sl_rng *r) {
  (void)r;
  sl__huge_shape(&fw->arg[1], 1, h->m, 0);
  sl__huge_shape(&fw->arg[2], 2, h->m, h->cols);
}

/* The reduces index_reduce refuses, in the order the breaker draws them
 * (pinned by e2e.case_stream). */
static const sl_reduce sl__bad_ir[] = {SL_REDUCE_NONE, SL_REDUCE_MAX};

const sl__fuzz_op sl__fuzz_index_reduce = {
    .gen = sl__gen_index_reduce,
    .break_dtype = sl__break_dtype_reducing,
    .bad_reduces = sl__bad_ir,
    .n_bad_reduces = SL__COUNT(sl__bad_ir),
    .break_dim = sl__break_dim_dimwise,
    .break_rank = sl__break_rank_index_reduce,
    .break_shape = sl__break_shape_index_reduce,
    .huge = sl__huge_index_reduce,
    .stress = 1,
    .repair = sl__repair_index_reduce,
    .drop_axis = sl__drop_axis_index_reduce,
    .merge_axes = sl__merge_axes_index_reduce,
    .classify = sl__classify_index_reduce,
    .classes = SL__INDEX_CLASSES};

const sl__fuzz_op sl__fuzz_index_reduce_backward = {
    .break_dtype = sl__break_dtype_reducing,
    .bad_reduces = sl__bad_ir,
    .n_bad_reduces = SL__COUNT(sl__bad_ir),
    .stress = 1,
    .classes = SL__INDEX_CLASSES};
