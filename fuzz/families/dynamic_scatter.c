/*
 * The generator's op family dynamic_scatter and its backward: points reduced into voxels: its
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

/* dynamic_scatter: feats [N,C], coors [N,D]. */
void sl__gen_dynamic(sl__gen *g, sl_case *c) {
  int64_t N, C, D = sl__range(g, 1, 4);
  if (g->sc == SL__SC_LARGE) {
    int64_t t = sl__range(g, g->min > 0 ? g->min : SL__LARGE_NUMEL, g->max);
    C = sl__range(g, 1, 16);
    N = t / C;
  } else {
    N = sl__range(g, 2, 64);
    C = sl__range(g, 2, 8);
    if (g->sc == SL__SC_UNIT) {
      int w = (int)sl_rng_below(&g->r, 3);
      if (w == 0) N = 1;
      if (w == 1) C = 1;
      if (w == 2) D = 1;
    }
    if (g->sc == SL__SC_EMPTY) {
      if (sl__pct(g, 60))
        N = 0;
      else
        C = 0;
    }
  }
  int64_t wide = sl__max64(C, D);
  if (N > g->max / wide) N = g->max / wide;
  int64_t f[2] = {N, C}, k[2] = {N, D};
  sl__shape_set(&c->arg[0], 2, f);
  sl__shape_set(&c->arg[1], 2, k);
}

int sl__break_rank_dynamic(sl__gen *g, sl_case *fw, sl_op op) {
  sl_case_shape *x = &fw->arg[0], *a1 = &fw->arg[1];
  /* feats [N,C,1]; for the forward alone also coors [N] */
  if (!sl_case_is_backward(op) && sl__pct(g, 50)) {
    a1->ndim = 1;
    a1->layout = SL_LAYOUT_CONTIGUOUS;
    return 0;
  }
  x->shape[2] = 1;
  x->ndim = 3;
  return 0;
}

int sl__break_shape_dynamic(sl__gen *g, sl_case *fw) {
  sl_case_shape *a1 = &fw->arg[1];
  a1->shape[0] += 1; /* coors rows != feats rows */
  return sl__shape_numel(a1) > g->max ? -1 : 0;
}

/* The dynamic ops take f32 and f64 only. */
int sl__break_dtype_dynamic(sl__gen *g, sl_case *fw) {
  static const sl_dtype bad[] = {SL_I32, SL_I64,  SL_F16, SL_BF16,
                                 SL_U8,  SL_BOOL, SL_C64};
  fw->dt = bad[sl_rng_below(&g->r, 7)];
  return 0;
}

sl_fuzz_class sl__classify_dynamic(const sl_case *c, sl_op op) {
  (void)op;
  const sl_case_shape *feats = &c->arg[0], *coors = &c->arg[1];
  if (!feats->present || !coors->present) return SL_FUZZ_SHAPE;
  if (feats->ndim != 2 || coors->ndim != 2) return SL_FUZZ_RANK;
  if (coors->shape[0] != feats->shape[0]) return SL_FUZZ_SHAPE;
  if (coors->shape[1] < 1 || coors->shape[1] > 4) return SL_FUZZ_SHAPE;
  return SL_FUZZ_VALID;
}

void sl__repair_dynamic(sl_case *fw, sl_op op) {
  sl_case_shape *x = &fw->arg[0], *a1 = &fw->arg[1];
  (void)op;
  if (x->ndim == 2 && a1->ndim == 2) a1->shape[0] = x->shape[0];
}

/* The reduces dynamic_scatter refuses, in the order the breaker draws them
 * (pinned by e2e.case_stream). */
static const sl_reduce sl__bad_dy[] = {SL_REDUCE_NONE, SL_REDUCE_ASSIGN,
                                       SL_REDUCE_PROD, SL_REDUCE_AMAX,
                                       SL_REDUCE_AMIN};

const sl__fuzz_op sl__fuzz_dynamic_scatter = {
    .gen = sl__gen_dynamic,
    .break_dtype = sl__break_dtype_dynamic,
    .bad_reduces = sl__bad_dy,
    .n_bad_reduces = SL__COUNT(sl__bad_dy),
    .break_rank = sl__break_rank_dynamic,
    .break_shape = sl__break_shape_dynamic,
    .stress = 1,
    .repair = sl__repair_dynamic,
    .classify = sl__classify_dynamic,
    .classes = SL__CL(RANK) | SL__CL(SHAPE)};

const sl__fuzz_op sl__fuzz_dynamic_scatter_backward = {
    .break_dtype = sl__break_dtype_dynamic,
    .bad_reduces = sl__bad_dy,
    .n_bad_reduces = SL__COUNT(sl__bad_dy),
    .stress = 1,
    .classes = SL__CL(RANK)};
