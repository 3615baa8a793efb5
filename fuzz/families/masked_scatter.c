/*
 * The generator's op family masked_scatter: a boolean mask and a source read in order: its
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

/* masked_scatter: x, a mask that broadcasts to x, a long enough source. */
void sl__gen_masked(sl__gen *g, sl_case *c) {
  int64_t X[SL_MAX_DIMS] = {0}, Mk[SL_MAX_DIMS], S[SL_MAX_DIMS];
  const int R = sl__pick_rank(g, 0, SL_MAX_DIMS);
  sl__gen_x(g, R, X);
  const int64_t n = sl__prod(R, X);
  const int Rm = (R == 0 || sl__pct(g, 70)) ? R : (int)sl__range(g, 0, R);
  for (int j = 0; j < Rm; ++j) {
    int64_t e = X[R - Rm + j];
    Mk[j] = sl__pct(g, 25) ? 1 : e;
  }
  sl__shape_set(&c->arg[0], R, X);
  sl__shape_set(&c->arg[1], Rm, Mk);
  int u = (int)sl_rng_below(&g->r, 10);
  if (u >= 6 && u < 8 && R >= 1) {
    sl__shape_set(&c->arg[2], R, X); /* x's own shape */
    return;
  }
  if (u >= 8) {
    int64_t b = sl__range(g, 1, 4), a = (n + b - 1) / b;
    if (a * b <= g->max) {
      S[0] = a;
      S[1] = b;
      sl__shape_set(&c->arg[2], 2, S);
      return;
    }
  }
  S[0] = sl__min64(n + sl__range(g, 0, 3), g->max);
  if (S[0] < n) S[0] = n;
  sl__shape_set(&c->arg[2], 1, S);
}

sl_fuzz_class sl__classify_masked(const sl_case *c, sl_op op) {
  (void)op;
  const sl_case_shape *x = &c->arg[0], *mask = &c->arg[1], *src = &c->arg[2];
  if (!x->present || !mask->present || !src->present) return SL_FUZZ_SHAPE;
  if (mask->ndim > x->ndim) return SL_FUZZ_MASK;
  for (int j = 0; j < mask->ndim; ++j) {
    int64_t m = mask->shape[j], e = x->shape[x->ndim - mask->ndim + j];
    if (m != e && m != 1) return SL_FUZZ_MASK;
  }
  /* The source must cover the mask's true count, which depends on the
   * data; a source of numel(x) elements always does. */
  if (sl__shape_numel(src) >= sl__shape_numel(x)) return SL_FUZZ_VALID;
  return sl__shape_numel(src) < sl__mask_true_count(c) ? SL_FUZZ_SHORT
                                                       : SL_FUZZ_VALID;
}

void sl__repair_masked(sl_case *fw, sl_op op) {
  sl_case_shape *x = &fw->arg[0], *a1 = &fw->arg[1];
  const int R = x->ndim;
  (void)op;
  if (a1->ndim > R) return;
  for (int j = 0; j < a1->ndim; ++j)
    if (a1->shape[j] != 1) a1->shape[j] = x->shape[R - a1->ndim + j];
}

int sl__drop_axis_masked(sl_case *fw, int k) {
  sl_case_shape *x = &fw->arg[0], *a1 = &fw->arg[1];
  const int R = x->ndim;
  const int j = k - (R - a1->ndim);
  sl__shrink_drop(x, k);
  if (j >= 0) sl__shrink_drop(a1, j);
  return 0;
}

const sl__fuzz_op sl__fuzz_masked_scatter = {
    .gen = sl__gen_masked,
    .repair = sl__repair_masked,
    .drop_axis = sl__drop_axis_masked,
    .classify = sl__classify_masked,
    .classes = SL__CL(MASK) | SL__CL(SHORT)};
