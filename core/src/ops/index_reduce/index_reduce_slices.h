/*
 * index_reduce's assign, amax and amin by whole slices
 * (index_reduce_slices.c), for the calls the typed scatter_reduce path does
 * not take (1- and 2-byte dtypes: index_copy of u8/i8/bool/i16, f16/bf16
 * amax/amin).
 */
#ifndef SL_INDEX_REDUCE_SLICES_H
#define SL_INDEX_REDUCE_SLICES_H

#include "sl_internal.h"

/*
 * Runs an index_reduce assign, amax or amin call (slot 0 x, 1 index, 2
 * updates, 3 out, index values checked) whose out is contiguous and whose
 * updates' axes before and after dim each collapse to one: out = x, then
 * for every outer block and every i < m in order, out's slice index[i] =
 * (itself ⊕) updates' slice i, on `threads` threads (the last of duplicates
 * wins, as serially). Returns 1 when done, 0 having done nothing when the
 * call does not qualify.
 */
int sl__index_slices(sl_call *c, int threads);

#endif /* SL_INDEX_REDUCE_SLICES_H */
