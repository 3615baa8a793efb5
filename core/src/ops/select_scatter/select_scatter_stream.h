/* select_scatter's copy past the caches with the slice inside x's memory
 * order (select_scatter_stream.c). */
#ifndef SL_SELECT_SCATTER_STREAM_H
#define SL_SELECT_SCATTER_STREAM_H

#include "sl_internal.h"

/* out := x with out's slice at c->p.index along c->p.dim := value, out
 * written once, past the caches, never read. Returns 0 having done
 * nothing when x and out are not laid out alike and densely, dim is
 * their outermost axis in memory, or the compact copy of value finds no
 * memory. */
int sl__select_scatter_streamed(sl_call *c, int threads);

#endif /* SL_SELECT_SCATTER_STREAM_H */
