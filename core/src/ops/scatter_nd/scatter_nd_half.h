/*
 * scatter_nd's f16/bf16 sums through the f32 paths (scatter_nd_half.c).
 */
#ifndef SL_SCATTER_ND_HALF_H
#define SL_SCATTER_ND_HALF_H

#include "sl_internal.h"

/* A path of scatter_nd_cpu.c: > 0 when it did the whole call, 0 having
 * done nothing, < 0 when an index value lies outside x (out untouched). */
typedef int (*sl__nd_path_fn)(sl_call *c, int threads);

/*
 * Runs c, an f16/bf16 sum, by `path` on f32 copies of x, src and out, then
 * rounds out into c's out once. Returns path's answer, or 0 (nothing done)
 * when c is no half sum or the copies cannot be had.
 */
int sl__scatter_nd_half(sl_call *c, int threads, sl__nd_path_fn path);

#endif /* SL_SCATTER_ND_HALF_H */
