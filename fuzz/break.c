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

int sl__break_dim_dimwise(sl__gen *g, sl_case *fw) {
  const int n = fw->arg[0].ndim ? fw->arg[0].ndim : 1;
  fw->dim =
      sl__pct(g, 50) ? n + sl__range(g, 0, 1) : -n - 1 - sl__range(g, 0, 1);
  return 0;
}

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

static int sl__break_dim(sl__gen *g, sl_case *fw) {
  const sl__fuzz_op *f = sl__fuzz_op_of(fw->op);
  return f && f->break_dim ? f->break_dim(g, fw) : -1;
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

static int sl__break_rank(sl__gen *g, sl_case *fw, sl_op op) {
  const sl__fuzz_op *f = sl__fuzz_op_of(fw->op);
  return f && f->break_rank ? f->break_rank(g, fw, op) : -1;
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

int sl__break_shape_select(sl__gen *g, sl_case *fw) {
  sl_case_shape *a1 = &fw->arg[1];
  if (a1->ndim < 1) return -1;
  a1->shape[sl_rng_below(&g->r, (uint64_t)a1->ndim)] += 1;
  return sl__shape_numel(a1) > g->max ? -1 : 0;
}

int sl__break_shape_dynamic(sl__gen *g, sl_case *fw) {
  sl_case_shape *a1 = &fw->arg[1];
  a1->shape[0] += 1; /* coors rows != feats rows */
  return sl__shape_numel(a1) > g->max ? -1 : 0;
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

/* The dynamic ops take f32 and f64 only. */
int sl__break_dtype_dynamic(sl__gen *g, sl_case *fw) {
  static const sl_dtype bad[] = {SL_I32, SL_I64,  SL_F16, SL_BF16,
                                 SL_U8,  SL_BOOL, SL_C64};
  fw->dt = bad[sl_rng_below(&g->r, 7)];
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
