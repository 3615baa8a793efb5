/*
 * What the core tests share: a loop over the CPU variants of an op in the
 * variant table, descriptors too large to build with sl_tensor_make, and
 * the strided views the tests of every op take.
 */
#ifndef SL_CORE_TEST_H
#define SL_CORE_TEST_H

#include <stdint.h>
#include <string.h>

#include "sl/sl.h"

/* Loops over every CPU variant of op `which` in the variant table. */
#define FOR_EACH_VARIANT(which, v)                                             \
  for (size_t v##_i = 0; v##_i < sl_variant_count(); ++v##_i)                  \
    for (const sl_variant *v = sl_variant_at(v##_i);                           \
         v && v->op == (which) && !(v->flags & SL_NEEDS_CUDA); v = NULL)

/* This build's value of size threshold `name` (thresholds.def), or -1
 * when the table has no such row. */
static inline long long sl_test_threshold(const char *name) {
  for (int i = 0; i < sl_threshold_count(); ++i)
    if (strcmp(sl_threshold_at(i)->name, name) == 0)
      return sl_threshold_at(i)->value;
  return -1;
}

/* Whether variant v may keep any writer's value where several write one
 * element: a variant not flagged deterministic runs small calls on one
 * thread, in input order, except in a -DSL_SMALL_THRESHOLDS=ON build, where
 * every call takes the multi-threaded path (thresholds.def). */
static inline int sl_test_any_writer(const sl_variant *v) {
  return !(v->flags & SL_DETERMINISTIC) && sl_thresholds_small();
}

/* A descriptor whose shape product overflows, built by hand: sl_tensor_make
 * would compute its row-major strides, which overflow int64 themselves. */
static inline sl_tensor huge_tensor(sl_dtype dt, int ndim, const int64_t *shape,
                                    void *data) {
  sl_tensor t = sl_tensor_make(dt, 0, NULL, data);
  t.ndim = ndim;
  for (int d = 0; d < ndim; ++d) {
    t.shape[d] = shape[d];
    t.strides[d] = 1;
  }
  return t;
}

/* The transpose of a 4x3 row-major f32 matrix a (12 elements): the
 * logical 3x4 view with strides {1, 3}, t[i][j] = a[3j + i]. */
static inline sl_tensor transposed_3x4(const float *a) {
  sl_tensor t = sl_tensor_make(SL_F32, 2, (int64_t[]){3, 4}, (void *)a);
  t.strides[0] = 1;
  t.strides[1] = 3;
  return t;
}

/* A rows x 4 f32 view of buf that takes every other element, rows 8 apart:
 * t[i][j] = buf[8i + 2j]. buf's 8 * rows elements are set to -7 first, so
 * that a write into a gap shows. */
static inline sl_tensor spaced_rows_x4(float *buf, int64_t rows) {
  for (int64_t k = 0; k < 8 * rows; ++k) buf[k] = -7;
  sl_tensor t = sl_tensor_make(SL_F32, 2, (int64_t[]){rows, 4}, buf);
  t.strides[0] = 8;
  t.strides[1] = 2;
  return t;
}

/* Runs index_reduce's `variant` on ctx (3 threads) of x, index and
 * updates into out, along dim with reduce r and include_self self. */
static inline sl_status run_index_reduce(sl_ctx *ctx, const char *variant,
                                         const sl_tensor *x, int64_t dim,
                                         const sl_tensor *index,
                                         const sl_tensor *updates, sl_reduce r,
                                         int self, const sl_tensor *out) {
  sl_call c;
  sl_call_init(&c, SL_OP_INDEX_REDUCE);
  c.arg[0] = *x;
  c.arg[1] = *index;
  c.arg[2] = *updates;
  c.arg[3] = *out;
  c.p.dim = dim;
  c.p.reduce = r;
  c.p.include_self = self;
  ctx->threads = 3;
  return sl_run(ctx, variant, &c);
}

#endif
