/*
 * dynamic_scatter_backward's scheme 1 (seed 004), shared by the conflict
 * variants (_conflict.c: atomic min, row locks, buckets): pass 1 finds, per
 * voxel and channel, the smallest point index whose feature equals the
 * voxel's maximum; pass 2 (dynamic_scatter_backward_cpu.c) writes the rows.
 */
#ifndef SL_DYNAMIC_SCATTER_BACKWARD_CPU_H
#define SL_DYNAMIC_SCATTER_BACKWARD_CPU_H

#include "sl_internal.h"

static inline int64_t sl__dsb_i32(const sl_tensor *t, int64_t i) {
  return ((const int32_t *)t->data)[i * t->strides[0]];
}

/* Bit k set: feats[n, ch0+k] == voxel_feats[v, ch0+k], for the k < 64
 * with ch0 + k < C. Pass 1 visits the set bits only. */
uint64_t sl__dsb_match_mask(const sl_call *c, int64_t n, int64_t v,
                            int64_t ch0);

/* Calls `body` with ch bound to each channel where point n matches the
 * maximum of its voxel v, in increasing order. */
#define SL__DSB_FOR_MATCHES(c, n, v, C, ch, body)                              \
  for (int64_t ch##0 = 0; ch##0 < (C); ch##0 += 64)                            \
    for (uint64_t ch##m = sl__dsb_match_mask(c, n, v, ch##0); ch##m;           \
         ch##m &= ch##m - 1) {                                                 \
      const int64_t ch = ch##0 + __builtin_ctzll(ch##m);                       \
      body;                                                                    \
    }

/* Pass 1 (max only, M > 0): fills the minima, voxel-major ([M][C], mmcv's
 * reduce_from): the one for voxel v, channel ch is first[v * C + ch]; N
 * stands for "no point". */
typedef sl_status (*sl__dsb_find_fn)(sl_ctx *ctx, const sl_call *c, int threads,
                                     int64_t *first);

/* Runs a validated call: pass 1 by `find` (max only), then pass 2 on
 * `threads` threads. */
sl_status sl__dsb_run(sl_ctx *ctx, sl_call *c, int threads,
                      sl__dsb_find_fn find);

#endif /* SL_DYNAMIC_SCATTER_BACKWARD_CPU_H */
