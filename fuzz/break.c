/* Breaking a valid case in exactly one way (casegen_internal.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "casegen_internal.h"
#include "datagen.h"
#include "stress.h"

/* ------------------------------------------------------------------------ */
/* Breaking a valid case (docs/spec.md §4), one class at a time             */
/* ------------------------------------------------------------------------ */

/*
 * Each breaker takes a valid, non-empty forward view and breaks it in one
 * way that the core and LibTorch 1.13 (with the reference shim's own
 * checks) both reject; it returns 0, or -1 when the class does not apply to
 * this case (the caller then tries the next class). `op` is the real op
 * (backward ops break through their forward inputs).
 */

/* A value out of range (neg: a negative one) in what the op's slot 1 holds
 * (cases/case.h sl_case_arg1), or select_scatter's `at` past the axis. */
static int sl__break_value(sl__gen *g, sl_case *fw, int neg) {
  const sl_case_arg1 arg1 = sl_case_spec_of(fw->op)->arg1;
  if (arg1 == SL_ARG1_SLICE) {
    if (neg) return -1; /* a negative at counts from the end */
    int64_t d, e;
    if (!sl__norm_dim(fw->dim, fw->arg[0].ndim, &d)) return -1;
    e = fw->arg[0].shape[d];
    fw->at = sl__pct(g, 50) ? e : -e - 1;
    return 0;
  }
  if (arg1 == SL_ARG1_LENGTHS) {
    /* lengths (cases/segments.h): a row that sums past the axis, or a
     * negative length; offsets need two entries for the latter */
    const sl_case_shape *len = &fw->arg[1];
    const int64_t m = len->ndim ? len->shape[len->ndim - 1] : 0;
    if (sl__shape_numel(len) == 0 || (neg && fw->offsets && m < 2)) return -1;
    fw->ip = neg ? SL_IP_NEG : SL_IP_OOB;
    fw->ip_param = 0;
    return 0;
  }
  if (!sl_case_has_index(fw->op) || sl__shape_numel(&fw->arg[1]) == 0)
    return -1;
  fw->ip = neg ? SL_IP_NEG : SL_IP_OOB;
  fw->ip_param = (int)sl_rng_below(
      &g->r, (uint64_t)(neg ? SL_IP_NEG_KINDS : SL_IP_OOB_KINDS));
  return 0;
}

static int sl__break_dim(sl__gen *g, sl_case *fw) {
  const sl__fuzz_op *f = sl__fuzz_op_of(fw->op);
  return f && f->break_dim ? f->break_dim(g, fw) : -1;
}

static int sl__break_rank(sl__gen *g, sl_case *fw, sl_op op) {
  const sl__fuzz_op *f = sl__fuzz_op_of(fw->op);
  return f && f->break_rank ? f->break_rank(g, fw, op) : -1;
}

static int sl__break_shape(sl__gen *g, sl_case *fw) {
  const sl__fuzz_op *f = sl__fuzz_op_of(fw->op);
  return f && f->break_shape ? f->break_shape(g, fw) : -1;
}

static int sl__break_itype(sl__gen *g, sl_case *fw) {
  if (!sl_case_takes_values(fw->op)) return -1;
  fw->it = sl__pct(g, 50) ? SL_F32 : SL_F64;
  return 0;
}

/* scatter_reduce, index_reduce and their backward: LibTorch 1.13 takes
 * u8/i8/i16 and even bool or complex for most reduces; it refuses mean on
 * bool and amax/amin on complex. */
int sl__break_dtype_reducing(sl__gen *g, sl_case *fw) {
  if (sl__pct(g, 50)) {
    fw->dt = SL_BOOL;
    fw->reduce = SL_REDUCE_MEAN;
  } else {
    fw->dt = sl__pct(g, 50) ? SL_C64 : SL_C128;
    fw->reduce = sl__pct(g, 50) ? SL_REDUCE_AMAX : SL_REDUCE_AMIN;
  }
  return 0;
}

static int sl__break_dtype(sl__gen *g, sl_case *fw, sl_op op) {
  const sl__fuzz_op *f = sl__fuzz_op_of(op);
  if (!f || !f->break_dtype || f->break_dtype(g, fw)) return -1;
  fw->dp = SL_DP_RAND;
  return 0;
}

static int sl__break_reduce(sl__gen *g, sl_case *fw, sl_op op) {
  const sl__fuzz_op *f = sl__fuzz_op_of(op);
  if (!f || f->n_bad_reduces == 0) return -1;
  fw->reduce = f->bad_reduces[sl_rng_below(&g->r, (uint64_t)f->n_bad_reduces)];
  return 0;
}

/* masked_scatter (the ops with the mask class): a mask that does not
 * broadcast to x. */
static int sl__break_mask(sl__gen *g, sl_case *fw) {
  sl_case_shape *x = &fw->arg[0], *mask = &fw->arg[1];
  const int R = x->ndim;
  if (R == 0 || (R < SL_MAX_DIMS && sl__pct(g, 30))) {
    /* more axes than x (a leading 2, so not even numpy broadcasts it) */
    sl_case_shape m = *x;
    m.shape[0] = 2;
    for (int d = 0; d < R; ++d) m.shape[d + 1] = x->shape[d];
    m.ndim = R + 1;
    m.layout = SL_LAYOUT_CONTIGUOUS;
    m.step = 0;
    *mask = m;
    return sl__shape_numel(mask) > g->max ? -1 : 0;
  }
  /* x's shape with one extent e -> e + 1 (neither e nor 1, as e >= 1) */
  int k = (int)sl_rng_below(&g->r, (uint64_t)R);
  *mask = *x;
  mask->layout = SL_LAYOUT_CONTIGUOUS;
  mask->step = 0;
  mask->shape[k] += 1;
  return sl__shape_numel(mask) > g->max ? -1 : 0;
}

/* masked_scatter: an empty source for a mask with a true element. The mask
 * comes from the case's seed, so the seed moves on until the mask that
 * datagen makes has a true element. */
static int sl__break_short(sl__gen *g, sl_case *fw) {
  (void)g;
  sl_case_shape *x = &fw->arg[0], *mask = &fw->arg[1], *src = &fw->arg[2];
  if (sl__shape_numel(x) == 0) return -1;
  *mask = *x;
  mask->layout = SL_LAYOUT_CONTIGUOUS;
  mask->step = 0;
  int64_t zero = 0;
  sl__shape_set(src, 1, &zero);
  for (int tries = 0; tries < 64; ++tries, ++fw->seed)
    if (sl__mask_true_count(fw) > 0) return 0;
  return -1;
}

/* scatter (the ops with the scalar class): a value one past what x's dtype
 * holds; a case with src takes the value form instead. */
int sl__break_scalar(sl__gen *g, sl_case *fw) {
  if (sl__shape_numel(&fw->arg[1]) == 0) return -1;
  fw->has_val = 1;
  memset(&fw->arg[2], 0, sizeof fw->arg[2]);
  return sl__edge_val(g, fw, 1);
}

int sl__break(sl__gen *g, sl_case *fw, sl_op op, sl_fuzz_class k) {
  switch (k) {
  case SL_FUZZ_OOB:
    return sl__break_value(g, fw, 0);
  case SL_FUZZ_NEG:
    return sl__break_value(g, fw, 1);
  case SL_FUZZ_DIM:
    return sl__break_dim(g, fw);
  case SL_FUZZ_RANK:
    return sl__break_rank(g, fw, op);
  case SL_FUZZ_SHAPE:
    return sl__break_shape(g, fw);
  case SL_FUZZ_ITYPE:
    return sl__break_itype(g, fw);
  case SL_FUZZ_DTYPE:
    return sl__break_dtype(g, fw, op);
  case SL_FUZZ_REDUCE:
    return sl__break_reduce(g, fw, op);
  case SL_FUZZ_MASK:
    return sl__break_mask(g, fw);
  case SL_FUZZ_SHORT:
    return sl__break_short(g, fw);
  case SL_FUZZ_SCALAR:
    return sl__break_scalar(g, fw);
  default:
    return -1;
  }
}
