/* The static case classifier: the docs/spec.md §4 class of a case line
 * (casegen.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "casegen_internal.h"
#include "datagen.h"
#include "stress.h"

/* ------------------------------------------------------------------------ */
/* Classification                                                            */
/* ------------------------------------------------------------------------ */

static const char *const sl__class_names[SL_FUZZ_CLASS_COUNT] = {
    "valid", "oob",   "neg",    "dim",  "rank",  "shape",
    "itype", "dtype", "reduce", "mask", "short", "scalar"};

const char *sl_fuzz_class_name(sl_fuzz_class k) {
  return (unsigned)k < SL_FUZZ_CLASS_COUNT ? sl__class_names[k] : "?";
}

/* Extent of t in dim k as LibTorch sees it: a scalar has extent 1. */
static int64_t sl__ext(const sl_case_shape *t, int k) {
  return t->ndim ? t->shape[k] : 1;
}

/* Whether dim lies in [-n, n); *out gets it normalized. */
int sl__norm_dim(int64_t dim, int n, int64_t *out) {
  if (dim < -n || dim >= n) return 0;
  *out = dim < 0 ? dim + n : dim;
  return 1;
}

/* The index-value classes: a pattern out of range, or an empty axis that a
 * non-empty index points into. */
static sl_fuzz_class sl__value_class(const sl_case *c, int empty_target) {
  if (empty_target) return SL_FUZZ_OOB;
  if (c->ip == SL_IP_OOB) return SL_FUZZ_OOB;
  if (c->ip == SL_IP_NEG) return SL_FUZZ_NEG;
  return SL_FUZZ_VALID;
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

/*
 * How many true elements the mask that datagen makes for case fw has after
 * broadcasting to x: each element of a broadcast mask stands for
 * numel(x) / numel(mask) positions. -1 when it cannot be built.
 */
int64_t sl__mask_true_count(const sl_case *fw) {
  const sl_case_shape *x = &fw->arg[0], *mask = &fw->arg[1];
  const int64_t nm = sl__shape_numel(mask), nx = sl__shape_numel(x);
  if (nm == 0 || nx == 0) return 0;
  sl_bundle b;
  char err[128];
  sl_bundle_init(&b, fw->op);
  if (sl_bundle_alloc(&b, 1, SL_BOOL, mask, "mask", err, sizeof err)) return -1;
  sl_tensor *t = &b.call.arg[1];
  sl_gen_fill_data(t, SL_DP_RAND, fw->seed, 3000);
  int64_t trues = 0, idx[SL_MAX_DIMS] = {0};
  for (int64_t i = 0; i < nm; ++i) {
    int64_t off = 0;
    for (int d = 0; d < t->ndim; ++d) off += idx[d] * t->strides[d];
    trues += ((const uint8_t *)t->data)[off] != 0;
    for (int d = t->ndim - 1; d >= 0; --d) {
      if (++idx[d] < t->shape[d]) break;
      idx[d] = 0;
    }
  }
  sl_bundle_free(&b);
  return trues * (nx / nm);
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

sl_fuzz_class sl__classify_dynamic(const sl_case *c, sl_op op) {
  (void)op;
  const sl_case_shape *feats = &c->arg[0], *coors = &c->arg[1];
  if (!feats->present || !coors->present) return SL_FUZZ_SHAPE;
  if (feats->ndim != 2 || coors->ndim != 2) return SL_FUZZ_RANK;
  if (coors->shape[0] != feats->shape[0]) return SL_FUZZ_SHAPE;
  if (coors->shape[1] < 1 || coors->shape[1] > 4) return SL_FUZZ_SHAPE;
  return SL_FUZZ_VALID;
}

sl_fuzz_class sl_fuzz_classify(const sl_case *c) {
  const sl_case_spec *spec = c ? sl_case_spec_of(c->op) : NULL;
  if (!spec) return SL_FUZZ_SHAPE;
  if ((spec->keys & SL_KEY_REDUCE) &&
      ((unsigned)c->reduce >= SL_REDUCE_COUNT ||
       !(sl__op_reduce_union(c->op) & SL__BIT(c->reduce))))
    return SL_FUZZ_REDUCE;
  if (!sl_fuzz_dtype_ok(c->op, c->dt, c->reduce)) return SL_FUZZ_DTYPE;
  if ((spec->keys & SL_KEY_IT) && c->it != SL_I32 && c->it != SL_I64)
    return SL_FUZZ_ITYPE;
  sl_case fw;
  sl_case_forward(c, &fw);
  const sl__fuzz_op *f = sl__fuzz_op_of(fw.op);
  return f && f->classify ? f->classify(&fw, c->op) : SL_FUZZ_SHAPE;
}
