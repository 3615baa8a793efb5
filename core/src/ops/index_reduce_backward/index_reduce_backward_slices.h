/*
 * index_reduce_backward of sum and assign by whole slices
 * (index_reduce_backward_slices.c).
 */
#ifndef SL_INDEX_REDUCE_BACKWARD_SLICES_H
#define SL_INDEX_REDUCE_BACKWARD_SLICES_H

#include "sl_internal.h"

/*
 * Runs an index_reduce_backward sum or assign call (slots: 0 grad_out,
 * 2 index, 5 grad_x, 6 grad_updates; index values checked) whose grad_out,
 * grad_x and grad_updates are contiguous and whose slices are at least a
 * cache line: grad_x = grad_out, zeroed at the targeted slices where the
 * target's own value does not reach the result (include_self false, or
 * assign); grad_updates' slice i = grad_out's slice index[i]. On
 * `threads` threads. Returns 1 when done, 0 having done nothing when the
 * call does not qualify.
 */
int sl__index_backward_slices(sl_call *c, int threads);

/* The blocks of grad_out g along dim: *outer, the product of the extents
 * before dim, and *inner, of those after it (a slice's elements). */
void sl__irb_blocks(const sl_tensor *g, int dim, int64_t *outer,
                    int64_t *inner);

#endif /* SL_INDEX_REDUCE_BACKWARD_SLICES_H */
