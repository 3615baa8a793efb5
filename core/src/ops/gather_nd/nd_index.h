/*
 * The index of gather_nd and scatter_nd (seed 000's CINN form), shared by
 * both ops: validation of x, index and dims, and the addressing that turns a
 * position of index.shape[:-1] into the element of x (or out) it names.
 *
 * x has rank K; index has rank K+1 and last extent M (0 <= M <= K). The
 * positions i range over index.shape[:-1], which has rank K. Column k of
 * index replaces coordinate dims[k] of i; every other coordinate of i
 * addresses x directly, so index.shape[d] <= x.shape[d] for those axes.
 */
#ifndef SL_ND_INDEX_H
#define SL_ND_INDEX_H

#include "sl_internal.h"

/*
 * Validates index (dtype, rank K+1, last extent M <= K), the dims of c->p
 * (count M or 0 for the default 0..M-1, each in [-K,K), no axis twice), the
 * extents of the non-indexed axes and, with mode SL__INFER_ALL, every index
 * value against x.shape[dims[k]]. On success writes the normalized dims back:
 * c->p.ndims = M and c->p.dims[0..M) in [0,K).
 */
sl_status sl__nd_index_infer(sl_ctx *ctx, sl_call *c, sl__infer_mode mode);

/*
 * The check of every index value against x.shape[dims[k]] that
 * sl__nd_index_infer skips for a variant that checks them itself
 * (SL_CHECKS_INDEX_VALUES), for a call it has inferred (c->p.dims
 * normalized): the same status and message, naming the first bad value in
 * row-major order.
 */
sl_status sl__nd_check_index(sl_ctx *ctx, const sl_call *c);

/* Number of positions of a validated call: the product of index.shape[:-1]. */
static inline int64_t sl__nd_positions(const sl_tensor *index) {
  int64_t n = 1;
  for (int d = 0; d + 1 < index->ndim; ++d) n *= index->shape[d];
  return n;
}

/*
 * For position `pos` (a multi-index over index.shape[:-1]) of a validated
 * call, writes into coord the multi-index of the element it names in a
 * tensor of x's shape: pos with coordinate dims[k] replaced by index[pos, k].
 */
static inline void sl__nd_target(const sl_tensor *index, const sl_params *p,
                                 const int64_t *pos, int64_t *coord) {
  int K = index->ndim - 1;
  int64_t base = 0;
  for (int d = 0; d < K; ++d) {
    coord[d] = pos[d];
    base += pos[d] * index->strides[d];
  }
  for (int k = 0; k < p->ndims; ++k)
    coord[p->dims[k]] =
        sl__load_index(index, base + (int64_t)k * index->strides[K]);
}

#endif /* SL_ND_INDEX_H */
