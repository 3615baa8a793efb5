/*
 * The CPU walk of the gather-like ops, gather and gather_nd: every output
 * position reads one element of x, at x's own coordinates except on the
 * axes the index names, where m index values (one for gather) decide. Every
 * output element has exactly one writer, so threads split the positions
 * freely: in chunks of row-major order, or, when x is too large for the
 * caches and the positions' last axis moves through it, in panels of
 * columns (walk.h). Each row of positions is one loop typed by element size
 * and index dtype; the contiguous rows of a large x start with AVX-512
 * gathers (avx512_rows.h).
 */
#ifndef SL_GATHER_WALK_H
#define SL_GATHER_WALK_H

#include "sl_internal.h"

/* One gather-like call: out and x have `ndim` axes, those of the positions;
 * index has them too and, for gather_nd (m values per position), one more
 * whose stride is `ik`. dims[k] is the axis of x that index value k
 * decides. */
typedef struct sl__gather_spec {
  const sl_tensor *x, *index, *out;
  int ndim;
  int m;
  const int64_t *dims;
  int64_t ik;
} sl__gather_spec;

/* out[p] = x[p with axis dims[k] set to index[p, k] for k < m], on
 * `threads` threads (1: on this one). The index values are in range. */
void sl__gather_walk_run(const sl__gather_spec *spec, int threads);

#endif /* SL_GATHER_WALK_H */
