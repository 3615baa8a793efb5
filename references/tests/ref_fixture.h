/*
 * What the reference shim's tests share (test_ref.c, test_ref_ops.c):
 * descriptors over caller memory, one call through the shim, and
 * comparisons of its outputs with hand-computed answers.
 */
#ifndef SL_REF_FIXTURE_H
#define SL_REF_FIXTURE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sl_test.h"
#include "slref.h"

/* A contiguous CPU descriptor over caller memory. */
static inline sl_tensor mk(sl_dtype dt, int ndim, const int64_t *shape,
                           void *data) {
  return sl_tensor_make(dt, ndim, shape, data);
}

/* Runs call; on success checks the output count's slots are contiguous CPU
 * tensors. Returns slref_run's code; err gets the message. */
static inline int run(const sl_call *call, sl_tensor *outs, char *err,
                      size_t n) {
  int rc = slref_run(call, outs, err, n);
  if (rc == 0) {
    const sl_op_info *info = sl_op_get(call->op);
    for (int i = 0; i < info->n_out; ++i) {
      CHECK(outs[i].device == SL_DEVICE_CPU);
      CHECK(sl_tensor_is_contiguous(&outs[i]));
    }
  } else {
    CHECK_MSG(err[0] != '\0', "rc %d without a message", rc);
    CHECK(strchr(err, '\n') == NULL);
  }
  return rc;
}

static inline void free_outs(sl_tensor *outs, int n) {
  for (int i = 0; i < n; ++i) free(outs[i].data);
  memset(outs, 0, sizeof *outs * (size_t)n);
}

/* out is a [rows x cols] f32/f64 tensor equal to want (NaN matches NaN). */
static inline int same_f(const sl_tensor *out, int ndim, const int64_t *shape,
                         const double *want) {
  if (out->ndim != ndim) return 0;
  int64_t n = 1;
  for (int d = 0; d < ndim; ++d) {
    if (out->shape[d] != shape[d]) return 0;
    n *= shape[d];
  }
  for (int64_t i = 0; i < n; ++i) {
    double v = out->dtype == SL_F32 ? ((const float *)out->data)[i]
                                    : ((const double *)out->data)[i];
    if (isnan(want[i]) ? !isnan(v) : v != want[i]) {
      fprintf(stderr, "  element %lld: got %g, want %g\n", (long long)i, v,
              want[i]);
      return 0;
    }
  }
  return 1;
}

static inline int same_i32(const sl_tensor *out, int ndim, const int64_t *shape,
                           const int32_t *want) {
  if (out->dtype != SL_I32 || out->ndim != ndim) return 0;
  int64_t n = 1;
  for (int d = 0; d < ndim; ++d) {
    if (out->shape[d] != shape[d]) return 0;
    n *= shape[d];
  }
  for (int64_t i = 0; i < n; ++i)
    if (((const int32_t *)out->data)[i] != want[i]) return 0;
  return 1;
}

/* Seed 000's example: A = arange(12) as 4x3, index [[0,1,1],[3,2,0]]. */
static float A[12] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
static int64_t IDX[6] = {0, 1, 1, 3, 2, 0};
static const int64_t S43[2] = {4, 3}, S23[2] = {2, 3};

/* The major version of the linked LibTorch, from "LibTorch 2.11.0". */

#endif /* SL_REF_FIXTURE_H */
