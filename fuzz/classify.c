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
int64_t sl__ext(const sl_case_shape *t, int k) {
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
sl_fuzz_class sl__value_class(const sl_case *c, int empty_target) {
  if (empty_target) return SL_FUZZ_OOB;
  if (c->ip == SL_IP_OOB) return SL_FUZZ_OOB;
  if (c->ip == SL_IP_NEG) return SL_FUZZ_NEG;
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
