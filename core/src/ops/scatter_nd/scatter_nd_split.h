/*
 * scatter_nd split by target among threads, for the calls whose walk has
 * nothing to share out (every axis of the positions indexed, e.g. single
 * elements of a matrix): see scatter_nd_split.c.
 */
#ifndef SL_SCATTER_ND_SPLIT_H
#define SL_SCATTER_ND_SPLIT_H

#include "sl_internal.h"

/*
 * Runs a whole scatter_nd call whose index values are not yet checked
 * (out = x, then every position's write or sum, in row-major order per
 * element) on `threads` threads. Returns 1 when done, -1 when an index
 * value lies outside x (out untouched: the caller reports it), 0 having
 * done nothing, and checked nothing, when the call does not qualify (see
 * the .c; f32/f64/i32/i64 only, the dtypes with typed row loops).
 */
int sl__scatter_nd_split(sl_call *c, int threads);

/* Whether every position's target is its index columns alone (each axis of
 * index.shape[:-1] indexed or of extent 1) and x, index, src and out are
 * contiguous: then position p's target is sum_k index[p*M + k] times out's
 * stride along dims[k], and its value src[p]. */
int sl__scatter_nd_direct(const sl_call *c);

#endif /* SL_SCATTER_ND_SPLIT_H */
