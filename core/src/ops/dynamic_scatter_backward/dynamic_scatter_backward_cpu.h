/*
 * dynamic_scatter_backward's two passes, shared by every CPU variant: the
 * variants differ only in how pass 1 of max finds, per voxel and channel,
 * the smallest point index whose feature equals the voxel's maximum
 * (dynamic_scatter_backward_cpu.c: by channel blocks; _conflict.c: atomic
 * min, row locks, buckets). Pass 2 and the workspace are common.
 */
#ifndef SL_DYNAMIC_SCATTER_BACKWARD_CPU_H
#define SL_DYNAMIC_SCATTER_BACKWARD_CPU_H

#include "sl_internal.h"

/* f32 or f64 (checked by infer) as double; a quotient rounded back to f32
 * is the f32 quotient (double rounding is innocuous for /). */
static inline double sl__dsb_getf(const sl_tensor *t, int64_t off) {
  if (t->dtype == SL_F32) return ((const float *)t->data)[off];
  return ((const double *)t->data)[off];
}

static inline void sl__dsb_setf(const sl_tensor *t, int64_t off, double v) {
  if (t->dtype == SL_F32)
    ((float *)t->data)[off] = (float)v;
  else
    ((double *)t->data)[off] = v;
}

static inline int64_t sl__dsb_i32(const sl_tensor *t, int64_t i) {
  return ((const int32_t *)t->data)[i * t->strides[0]];
}

/* The minima of pass 1: the one for voxel v, channel ch is
 * first[v * vstride + ch * cstride]; N stands for "no point". */
typedef struct sl__dsb_minima {
  int64_t *first;
  int64_t vstride, cstride;
} sl__dsb_minima;

/* Pass 1 (max only, M > 0): fills every minimum. */
typedef sl_status (*sl__dsb_find_fn)(sl_ctx *ctx, const sl_call *c, int threads,
                                     sl__dsb_minima *mn);

/* Runs a validated call: the minima laid out voxel-major ([M][C]) or
 * channel-major ([C][M]), pass 1 by `find` (max only), then pass 2 on
 * `threads` threads. */
sl_status sl__dsb_run(sl_ctx *ctx, sl_call *c, int threads,
                      sl__dsb_find_fn find, int voxel_major);

#endif /* SL_DYNAMIC_SCATTER_BACKWARD_CPU_H */
