/*
 * dynamic_scatter_backward on the CPU.
 *
 * max follows seed 004's scheme 1 (two kernels): pass 1 finds, per voxel and
 * channel, the smallest point index whose feature equals the voxel's
 * maximum (N when none does); pass 2 writes every element of grad_feats,
 * the voxel's gradient where the point is that smallest index and 0
 * elsewhere. sum and mean need only pass 2.
 *
 * cpu.serial runs pass 1 over all channels and pass 2 over all points.
 * cpu.omp splits pass 1 by channel blocks: a thread owns the minima of its
 * channels for every voxel, scans the points in increasing index and keeps
 * the first match, so no two threads write the same minimum and no atomics
 * are needed. The minima are stored channel-major ([C][M]) so that a
 * thread's minima are one contiguous block (no false sharing). Pass 2 splits
 * the points: each element of grad_feats has one writer. Both passes give
 * the same minima and values as the serial loop: deterministic.
 */
#include <stdlib.h>

#include "dynamic_scatter_backward_cpu.h"

/* Chunk t of `parts` equal chunks of [0,n). */
static inline int64_t sl__dsb_chunk(int64_t n, int parts, int t) {
  return (n / parts) * t + (t < n % parts ? t : n % parts);
}

/* Pass 1 for channels [c0,c1): first[ch*M + v] = the smallest point n with
 * map[n] = v and feats[n,ch] == voxel_feats[v,ch], or N when none. */
static void sl__dsb_first_channels(const sl_call *c, int64_t c0, int64_t c1,
                                   int64_t *first) {
  const sl_tensor *feats = &c->arg[1], *vfeats = &c->arg[2], *map = &c->arg[3];
  const int64_t N = feats->shape[0], M = vfeats->shape[0];
  for (int64_t ch = c0; ch < c1; ++ch)
    for (int64_t v = 0; v < M; ++v) first[ch * M + v] = N;
  for (int64_t n = 0; n < N; ++n) {
    const int64_t v = sl__dsb_i32(map, n);
    if (v < 0) continue;
    for (int64_t ch = c0; ch < c1; ++ch) {
      int64_t *slot = &first[ch * M + v];
      /* Points come in increasing index: the first match is the smallest. */
      if (*slot == N &&
          sl__dsb_getf(feats, n * feats->strides[0] + ch * feats->strides[1]) ==
              sl__dsb_getf(vfeats,
                           v * vfeats->strides[0] + ch * vfeats->strides[1]))
        *slot = n;
    }
  }
}

/* Pass 2 for points [n0,n1): every element of those rows of grad_feats. */
static void sl__dsb_write(const sl_call *c, int64_t n0, int64_t n1,
                          const sl__dsb_minima *mn) {
  const sl_tensor *grad = &c->arg[0], *map = &c->arg[3], *count = &c->arg[4];
  const sl_tensor *out = &c->arg[5];
  const int64_t C = out->shape[1];
  const sl_reduce reduce = c->p.reduce;
  for (int64_t n = n0; n < n1; ++n) {
    const int64_t v = sl__dsb_i32(map, n);
    const double k = v >= 0 ? (double)sl__dsb_i32(count, v) : 1.0;
    for (int64_t ch = 0; ch < C; ++ch) {
      double g = 0.0;
      if (v >= 0 && (reduce != SL_REDUCE_MAX ||
                     mn->first[v * mn->vstride + ch * mn->cstride] == n)) {
        g = sl__dsb_getf(grad, v * grad->strides[0] + ch * grad->strides[1]);
        if (reduce == SL_REDUCE_MEAN) g /= k;
      }
      sl__dsb_setf(out, n * out->strides[0] + ch * out->strides[1], g);
    }
  }
}

sl_status sl__dsb_run(sl_ctx *ctx, sl_call *c, int threads,
                      sl__dsb_find_fn find, int voxel_major) {
  const int64_t N = c->arg[1].shape[0], C = c->arg[1].shape[1];
  const int64_t M = c->arg[0].shape[0];
  if (N == 0 || C == 0) return SL_STATUS_OK;
  sl__dsb_minima mn = {NULL, voxel_major ? C : 1, voxel_major ? 1 : M};
  if (c->p.reduce == SL_REDUCE_MAX && M > 0) {
    /* infer bounded M * C by the size of an element, not of an int64. */
    if ((uint64_t)M * (uint64_t)C <= SIZE_MAX / sizeof *mn.first)
      mn.first = malloc((size_t)(M * C) * sizeof *mn.first);
    if (!mn.first)
      return sl_ctx_fail(ctx, SL_STATUS_OUT_OF_MEMORY,
                         "dynamic_scatter_backward: expected workspace for "
                         "%lld x %lld minima, got an allocation failure",
                         (long long)M, (long long)C);
    sl_status st = find(ctx, c, threads, &mn);
    if (st) {
      free(mn.first);
      return st;
    }
  }
  /* With M = 0 every map entry is -1 (checked by infer): first is never
   * read, and every point gets 0. */
  int parts = (int64_t)threads < N ? threads : (int)N;
#pragma omp parallel for num_threads(parts) schedule(static) if (parts > 1)
  for (int t = 0; t < parts; ++t)
    sl__dsb_write(c, sl__dsb_chunk(N, parts, t), sl__dsb_chunk(N, parts, t + 1),
                  &mn);
  free(mn.first);
  return SL_STATUS_OK;
}

/* Pass 1 of cpu.serial and cpu.omp: a thread per block of channels. */
static sl_status sl__dsb_find_channels(sl_ctx *ctx, const sl_call *c,
                                       int threads, sl__dsb_minima *mn) {
  (void)ctx;
  const int64_t C = c->arg[1].shape[1];
  int blocks = (int64_t)threads < C ? threads : (int)C;
#pragma omp parallel for num_threads(blocks) schedule(static) if (blocks > 1)
  for (int t = 0; t < blocks; ++t)
    sl__dsb_first_channels(c, sl__dsb_chunk(C, blocks, t),
                           sl__dsb_chunk(C, blocks, t + 1), mn->first);
  return SL_STATUS_OK;
}

sl_status sl_dynamic_scatter_backward_cpu_serial(sl_ctx *ctx, sl_call *c) {
  return sl__dsb_run(ctx, c, 1, sl__dsb_find_channels, 0);
}

sl_status sl_dynamic_scatter_backward_cpu_omp(sl_ctx *ctx, sl_call *c) {
  return sl__dsb_run(ctx, c, sl__threads(ctx), sl__dsb_find_channels, 0);
}
