/*
 * index_reduce's assign by whole slices (index_reduce_slices.c): index_copy
 * of any dtype as block copies, for the calls the typed scatter_reduce
 * path does not take (1- and 2-byte dtypes).
 */
#ifndef SL_INDEX_REDUCE_SLICES_H
#define SL_INDEX_REDUCE_SLICES_H

#include "sl_internal.h"

/*
 * Runs an index_reduce assign call (slot 0 x, 1 index, 2 updates, 3 out,
 * index values checked) whose x, updates and out are contiguous: out = x,
 * then for every outer block and every i < m in order, out's slice
 * index[i] = updates' slice i, on `threads` threads (the last of
 * duplicates wins, as serially). Returns 1 when done, 0 having done nothing
 * when the call does not qualify.
 */
int sl__index_assign_slices(sl_call *c, int threads);

#endif /* SL_INDEX_REDUCE_SLICES_H */
