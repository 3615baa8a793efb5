/* The strided copy of a transposed source by tiles (copy_tiled.c). */
#ifndef SL_COPY_TILED_H
#define SL_COPY_TILED_H

#include "sl_internal.h"

/* Whether a step of `stride` elements of `es` bytes reaches the next cache
 * line: the copy by tiles pays off only along such an axis of x. */
static inline int sl__steps_a_line(int64_t stride, size_t es) {
  return (stride < 0 ? -stride : stride) * (int64_t)es >= 64;
}

/*
 * out := x (same shape, no overlap) by square tiles of the plane of out's
 * unit-stride axis and one of x's, when x steps at least a cache line
 * along the first; on `threads` threads. Returns 1 when done, 0 having
 * done nothing when the layouts do not call for it.
 */
int sl__copy_tiled(sl_tensor *out, const sl_tensor *x, int threads);

#endif /* SL_COPY_TILED_H */
