/*
 * index_reduce_backward of mean, amax and amin by whole slices
 * (index_reduce_backward_shares.c).
 */
#ifndef SL_INDEX_REDUCE_BACKWARD_SHARES_H
#define SL_INDEX_REDUCE_BACKWARD_SHARES_H

#include "sl_internal.h"

/*
 * Runs an index_reduce_backward mean, amax or amin call (slots: 0
 * grad_out, 1 x, 2 index, 3 updates, 4 result, 5 grad_x, 6 grad_updates;
 * index values checked) whose tensors other than the index are contiguous
 * and whose slices are at least a cache line, with the line walk's
 * formulas (reduce_backward.c), on `threads` threads. Returns 1 when it
 * took the call, *status then OK or out of memory (on ctx); 0 having done
 * nothing when the call does not qualify.
 */
int sl__index_backward_shares(sl_ctx *ctx, sl_call *c, int threads,
                              sl_status *status);

#endif /* SL_INDEX_REDUCE_BACKWARD_SHARES_H */
