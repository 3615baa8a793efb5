/*
 * index_reduce_backward of mean, amax, amin and prod by whole slices
 * (index_reduce_backward_shares.c; prod's formulas in
 * index_reduce_backward_products.c).
 */
#ifndef SL_INDEX_REDUCE_BACKWARD_SHARES_H
#define SL_INDEX_REDUCE_BACKWARD_SHARES_H

#include "sl_internal.h"

/* The geometry: `outer` blocks; in each, the n slices of grad_out, x,
 * result and grad_x and the m of updates and grad_updates, of `inner`
 * elements each. The index names nu distinct targets, u[0] < ... <
 * u[nu - 1]; target k's contributions are by[first[k]] to
 * by[first[k + 1] - 1], in index order. mean's count is one per target
 * (mean_n); amax/amin count per element, a chunk at a time. */
typedef struct sl__irb_shares {
  sl_dtype dt;
  sl_reduce reduce;
  int self;
  const char *g, *x, *res, *src;
  char *gx, *gs;
  const int64_t *u, *first, *by;
  const double *mean_n;
  int64_t outer, n, m, nu, inner;
} sl__irb_shares;

/* Column j0 of slice t of block o, in a tensor of nslices slices. The
 * slices pass's loops take their pointers once a chunk: a store through
 * char * may alias the geometry, which the compiler then reloaded per
 * element. */
static inline char *sl__irb_slice(const void *base, const sl__irb_shares *s,
                                  size_t es, int64_t o, int64_t nslices,
                                  int64_t t, int64_t j0) {
  return (char *)base + (size_t)(((o * nslices + t) * s->inner) + j0) * es;
}

/* Columns a target takes at a time: its counts or products and its
 * slices' chunks of grad_out, x and result stay in L1 while its
 * contributions go by. */
enum { SL__IRB_CHUNK = 256 };

/* prod: len elements of grad_x from element off on, where no target
 * lies; and target k's chunk of columns [j, j + len) of block o, len <=
 * SL__IRB_CHUNK (its grad_x and its contributions' grad_updates). */
void sl__irb_prod_untargeted(const sl__irb_shares *s, int64_t off, int64_t len);
void sl__irb_prod_chunk(const sl__irb_shares *s, int64_t o, int64_t k,
                        int64_t j, int64_t len);

/*
 * Runs an index_reduce_backward mean, amax, amin or prod call (slots: 0
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
