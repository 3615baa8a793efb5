/*
 * The generator's op family gather_nd and scatter_nd: index tuples of the leading dims: its
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

/* gather_nd, scatter_nd: x [K], index [B..., M], src [B...]. */
static void sl__gen_nd(sl__gen *g, sl_case *c, int scatter) {
  int64_t X[SL_MAX_DIMS], B[SL_MAX_DIMS + 1];
  const int K = sl__pick_rank(g, 1, SL_MAX_DIMS - 1);
  sl__gen_x(g, K, X);
  const int M = (int)sl__range(g, 1, K);
  int indexed[SL_MAX_DIMS] = {0};
  if (sl__pct(g, 50)) {
    c->ndims = 0; /* the leading M axes */
    for (int k = 0; k < M; ++k) indexed[k] = 1;
  } else {
    int perm[SL_MAX_DIMS];
    for (int d = 0; d < K; ++d) perm[d] = d;
    for (int k = 0; k < M; ++k) {
      int j = k + (int)sl_rng_below(&g->r, (uint64_t)(K - k));
      int t = perm[k];
      perm[k] = perm[j];
      perm[j] = t;
      indexed[perm[k]] = 1;
      c->dims[k] = sl__pct(g, 25) ? perm[k] - K : perm[k];
    }
    c->ndims = M;
  }
  for (int d = 0; d < K; ++d)
    B[d] = indexed[d] ? sl__free_extent(g, X[d]) : sl__bounded_extent(g, X[d]);
  if (g->sc == SL__SC_EMPTY && g->empty_index)
    B[sl_rng_below(&g->r, (uint64_t)K)] = 0;
  sl__fit(B, K, NULL, g->max / M);
  B[K] = M;
  sl__shape_set(&c->arg[0], K, X);
  sl__shape_set(&c->arg[1], K + 1, B);
  if (scatter) sl__shape_set(&c->arg[2], K, B);
}

void sl__gen_gather_nd(sl__gen *g, sl_case *fw) { sl__gen_nd(g, fw, 0); }

void sl__gen_scatter_nd(sl__gen *g, sl_case *fw) { sl__gen_nd(g, fw, 1); }

int sl__break_dim_nd(sl__gen *g, sl_case *fw) {
  const int K = fw->arg[0].ndim;
  const int M = (int)fw->arg[1].shape[K];
  if (fw->ndims == 0) {
    for (int k = 0; k < M; ++k) fw->dims[k] = k;
    fw->ndims = M;
  }
  if (M >= 2 && sl__pct(g, 50)) {
    /* A repeated axis, at any two positions, written either way (d or
     * d - K): the same axis named twice. */
    const int a = (int)sl_rng_below(&g->r, (uint64_t)M);
    const int b = (a + 1 + (int)sl_rng_below(&g->r, (uint64_t)M - 1)) % M;
    int64_t d = 0;
    if (!sl__norm_dim(fw->dims[a], K, &d)) return -1;
    fw->dims[b] = sl__pct(g, 50) ? d : d - K;
    return 0;
  }
  fw->dims[sl_rng_below(&g->r, (uint64_t)M)] = sl__pct(g, 50) ? K : -K - 1;
  return 0;
}

int sl__break_rank_nd(sl__gen *g, sl_case *fw, sl_op op) {
  (void)g, (void)op;
  sl_case_shape *x = &fw->arg[0], *a1 = &fw->arg[1];
  const int K = x->ndim;
  if (K + 2 <= SL_MAX_DIMS) {
    /* [B..., 1, M] */
    a1->shape[K + 1] = a1->shape[K];
    a1->shape[K] = 1;
    a1->ndim = K + 2;
  } else {
    sl__drop(a1, 0);
  }
  return 0;
}

int sl__break_shape_nd(sl__gen *g, sl_case *fw) {
  sl_case_shape *x = &fw->arg[0], *a1 = &fw->arg[1], *a2 = &fw->arg[2];
  const int K = x->ndim;
  const int M = (int)a1->shape[K];
  int indexed[SL_MAX_DIMS] = {0};
  for (int k = 0; k < M; ++k) {
    int64_t d = k;
    if (fw->ndims) sl__norm_dim(fw->dims[k], K, &d);
    indexed[d] = 1;
  }
  if (sl_case_has_src(fw) && sl__pct(g, 50)) {
    /* src not index.shape[:-1] */
    int k = (int)sl_rng_below(&g->r, (uint64_t)K);
    a2->shape[k] += 1;
    return sl__shape_numel(a2) > g->max ? -1 : 0;
  }
  if (M < K) {
    /* a non-indexed axis of index longer than x's */
    int k = (int)sl_rng_below(&g->r, (uint64_t)K);
    while (indexed[k]) k = (k + 1) % K;
    a1->shape[k] = x->shape[k] + 1;
    if (sl_case_has_src(fw)) a2->shape[k] = a1->shape[k];
  } else {
    /* M = K + 1 columns for a rank-K x */
    a1->shape[K] = K + 1;
    fw->ndims = 0;
  }
  if (sl__shape_numel(a1) > g->max || sl__shape_numel(a2) > g->max) return -1;
  return 0;
}

sl_fuzz_class sl__classify_nd(const sl_case *c, sl_op op) {
  (void)op;
  const sl_case_shape *x = &c->arg[0], *index = &c->arg[1], *src = &c->arg[2];
  const int scatter = sl_case_has_src(c);
  if (!x->present || !index->present || (scatter && !src->present))
    return SL_FUZZ_SHAPE;
  const int K = x->ndim;
  if (index->ndim != K + 1) return SL_FUZZ_RANK;
  const int64_t M = index->shape[K];
  if (M < 1 || M > K) return SL_FUZZ_SHAPE;
  if (c->ndims != 0 && c->ndims != M) return SL_FUZZ_DIM;
  int indexed[SL_MAX_DIMS] = {0};
  for (int k = 0; k < M; ++k) {
    int64_t d = k;
    if (c->ndims && !sl__norm_dim(c->dims[k], K, &d)) return SL_FUZZ_DIM;
    if (indexed[d]) return SL_FUZZ_DIM;
    indexed[d] = 1;
  }
  if (scatter) {
    if (src->ndim != K) return SL_FUZZ_RANK;
    for (int d = 0; d < K; ++d)
      if (src->shape[d] != index->shape[d]) return SL_FUZZ_SHAPE;
  }
  if (sl__shape_numel(index) == 0) return SL_FUZZ_VALID;
  int empty_target = 0;
  for (int d = 0; d < K; ++d) {
    if (!indexed[d] && index->shape[d] > x->shape[d]) return SL_FUZZ_SHAPE;
    if (indexed[d] && x->shape[d] == 0) empty_target = 1;
  }
  return sl__value_class(c, empty_target);
}

/* gather_nd / scatter_nd: which axes of x the index's columns address.
 * Returns M, or -1 when the case does not say it consistently. */
static int sl__nd_indexed(const sl_case *fw, int *indexed) {
  const int K = fw->arg[0].ndim;
  if (fw->arg[1].ndim != K + 1) return -1;
  const int64_t M = fw->arg[1].shape[K];
  if (M < 1 || M > K || (fw->ndims && fw->ndims != M)) return -1;
  memset(indexed, 0, sizeof(int) * SL_MAX_DIMS);
  for (int k = 0; k < M; ++k) {
    int64_t d = k;
    if (fw->ndims && !sl__norm_dim(fw->dims[k], K, &d)) return -1;
    if (indexed[d]) return -1;
    indexed[d] = 1;
  }
  return (int)M;
}

void sl__repair_nd(sl_case *fw, sl_op op) {
  (void)op;
  sl_case_shape *x = &fw->arg[0], *a1 = &fw->arg[1], *a2 = &fw->arg[2];
  int indexed[SL_MAX_DIMS];
  const int K = x->ndim;
  if (sl__nd_indexed(fw, indexed) < 0) return;
  for (int k = 0; k < K; ++k) {
    if (!indexed[k])
      a1->shape[k] = sl__min64(a1->shape[k], x->shape[k]);
    else if (x->shape[k] == 0)
      a1->shape[k] = 0;
  }
  if (sl_case_has_src(fw)) sl__reshape(a2, K, a1->shape);
}

int sl__drop_axis_nd(sl_case *fw, int k) {
  sl_case_shape *x = &fw->arg[0], *a1 = &fw->arg[1], *a2 = &fw->arg[2];
  const int R = x->ndim;
  int indexed[SL_MAX_DIMS];
  const int M = sl__nd_indexed(fw, indexed);
  if (R < 2 || M < 0 || (indexed[k] && M == 1)) return -1;
  if (fw->ndims) {
    int j = 0;
    for (int i = 0; i < fw->ndims; ++i) {
      int64_t v = 0;
      sl__norm_dim(fw->dims[i], R, &v);
      if (v == k) continue;
      fw->dims[j++] = v > k ? v - 1 : v;
    }
    fw->ndims = j;
  }
  if (indexed[k]) a1->shape[R] -= 1;
  sl__shrink_drop(x, k);
  sl__shrink_drop(a1, k);
  if (sl_case_has_src(fw)) sl__shrink_drop(a2, k);
  return 0;
}

/* gather_nd, scatter_nd: m x 1 (row, column) tuples over both axes (the
 * index has x's rank plus one: docs/spec.md §1), and scatter_nd's src. */
void sl__huge_nd(sl_case *fw, const sl__huge_dims *h, sl_rng *r) {
  (void)r;
  sl_case_shape *index = &fw->arg[1];
  sl__huge_shape(index, 3, h->m, 1);
  index->shape[2] = 2;
  fw->ndims = 0;
  memset(fw->dims, 0, sizeof fw->dims);
  if (fw->arg[2].present) sl__huge_shape(&fw->arg[2], 2, h->m, 1);
}

/* The reduces scatter_nd refuses, in the order the breaker draws them
 * (pinned by e2e.case_stream): the complement of the catalogue's, but for
 * amin, which it leaves out. */
static const sl_reduce sl__bad_nd[] = {SL_REDUCE_ASSIGN, SL_REDUCE_PROD,
                                       SL_REDUCE_MEAN, SL_REDUCE_AMAX,
                                       SL_REDUCE_MAX};

const sl__fuzz_op sl__fuzz_gather_nd = {.gen = sl__gen_gather_nd,
                                               .break_dim = sl__break_dim_nd,
                                               .break_rank = sl__break_rank_nd,
                                               .break_shape =
                                                   sl__break_shape_nd,
                                               .huge = sl__huge_nd,
                                               .repair = sl__repair_nd,
                                               .drop_axis = sl__drop_axis_nd,
                                               .classify = sl__classify_nd,
                                               .out_like_index = 1,
                                               .classes = SL__INDEX_CLASSES};

const sl__fuzz_op sl__fuzz_scatter_nd = {
    .gen = sl__gen_scatter_nd,
    .bad_reduces = sl__bad_nd,
    .n_bad_reduces = SL__COUNT(sl__bad_nd),
    .break_dim = sl__break_dim_nd,
    .break_rank = sl__break_rank_nd,
    .break_shape = sl__break_shape_nd,
    .huge = sl__huge_nd,
    .stress = 1,
    .repair = sl__repair_nd,
    .drop_axis = sl__drop_axis_nd,
    .classify = sl__classify_nd,
    .classes = SL__INDEX_CLASSES};
