/*
 * The huge-offset schedule of the case generator (`fuzz --huge`): every
 * valid case of an op that addresses one large tensor (gather, gather_nd,
 * scatter, scatter_reduce, scatter_nd, index_reduce, select_scatter) in a
 * 1- or 2-byte dtype is rewritten so that its x holds more than 2^31
 * elements (2^32 where the memory cap allows) and its index values come
 * from the top sixteenth of their range (ip=high): every element it reads
 * or writes lies past 2^31, where a 32-bit element offset wraps (TensorFlow
 * #127164, onnxruntime #28107, torch_scatter #456), and for the 2-byte
 * dtypes past 2^32 bytes. The index stays small, so the cost is x's bytes:
 * a case fits the campaign's memory cap (its inputs plus twice its
 * outputs, as the runner counts them) or is left as drawn. Cases of other
 * ops and dtypes are left as drawn.
 */
#ifndef SL_FUZZ_HUGE_H
#define SL_FUZZ_HUGE_H

#include <stdint.h>

#include "case.h"

struct sl_fuzz_opts;

/* x's element count of a huge case: this base times 9/8, so that the top
 * sixteenth of its rows lies wholly past the base. */
#define SL_FUZZ_HUGE_BASE ((int64_t)1 << 31)

/* Whether op (a forward op) has huge cases. */
int sl_fuzz_huge_op(sl_op op);

/*
 * Rewrites the forward case fw of a case of op `op` into a huge-offset
 * case when o->huge_bytes is set, op (a forward op: a backward case would
 * hold several tensors of x's size) and fw's dtype qualify and the case
 * fits o->huge_bytes; its own random stream (seed, i). Returns 1 when
 * rewritten.
 */
int sl_fuzz_huge(const struct sl_fuzz_opts *o, uint64_t seed, uint64_t i,
                 sl_op op, sl_case *fw);

/* The power of two, 31 or 32, that case c's (forward) x passes in
 * elements; 0 when it passes neither. */
int sl_fuzz_huge_shape(const sl_case *c);

#endif
