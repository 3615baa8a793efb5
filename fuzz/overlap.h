/*
 * Overlapped input views (issue 48): one valid case in o->overlap has
 * some of its read-only inputs laid out as views whose elements share
 * memory (layout o<k>, cases/case.h), as unfold and as_strided make them:
 * dim 0 steps by ceil(n1 / k) of dim 1's n1 rows, so neighbours along
 * dim 0 share rows. Legal in PyTorch for what an op only reads (x, which
 * the out-of-place ops copy before writing, src, the index); outputs are
 * never overlapped: the case line has no layout for them, and the harness
 * hands every variant and LibTorch fresh contiguous ones.
 */
#ifndef SL_FUZZ_OVERLAP_H
#define SL_FUZZ_OVERLAP_H

#include <stdint.h>

#include "case.h"

struct sl_fuzz_opts;

/* The default share: one valid case in 16. */
int64_t sl_fuzz_overlap_default(void);

/* Whether input `slot` of forward view fw may be overlapped: x and the
 * data inputs, and an index whose values all have one bound (gather's,
 * scatter's), or a tuple index of rank 3 or more, whose shared rows keep
 * their columns (at rank 2 a column would take another axis's values);
 * never masks, lengths or coordinates, whose values say where the others
 * go. Rank 2 or more, two rows or more along dims 0 and 1 and no empty
 * extent, or there is nothing to share. */
int sl_fuzz_overlap_eligible(const sl_case *fw, int slot);

/*
 * The schedule, on a stream of its own (seed, i), so that every other
 * case stays as it was; on when o->overlap > 0 and the size mix is on (the
 * pinned case stream, tests/e2e/case_stream.sh, turns the schedules off
 * with --size-mix 0; fuzz has no option of its own for this one yet). A
 * picked valid forward view fw gets o<k> (k = 2..4) on each eligible input
 * with probability 1/2, on one at least. Returns 1 when it changed fw.
 */
int sl_fuzz_overlap(const struct sl_fuzz_opts *o, uint64_t seed, uint64_t i,
                    sl_case *fw);

/* Whether some input of c (forward or backward) is overlapped: shares
 * memory between its elements. */
int sl_fuzz_overlapped(const sl_case *c);

#endif
