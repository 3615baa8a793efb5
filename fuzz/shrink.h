/*
 * Shrinking a failing case: candidate smaller versions of it, for a caller
 * that re-runs each candidate and keeps the first one that fails the same
 * way (same variant, same verdict), until no candidate does.
 *
 * Steps, most aggressive first: drop an axis (keeping the op's shape rules
 * consistent across x / index / src / updates / value / mask), halve an
 * extent, set an extent to 1, fewer index columns (gather_nd/scatter_nd), a
 * minimal masked_scatter source, then simpler data: dp -> rand, each layout
 * -> contiguous, ip -> rand, dims -> default, negative dim / at ->
 * normalized. The seed never changes.
 *
 * A candidate of a valid case is valid (sl_fuzz_classify); a candidate of
 * an invalid case keeps the original's class. Every candidate has a
 * strictly smaller sl_case_size, so repeated shrinking terminates.
 */
#ifndef SL_SHRINK_H
#define SL_SHRINK_H

#include <stdint.h>

#include "case.h"

/* Writes up to max candidates into out; returns how many. */
int sl_shrink_candidates(const sl_case *c, sl_case *out, int max);

/*
 * Size measure: the elements of every input the line gives, plus one per
 * non-contiguous layout (k-1 for a step k), one for a non-default index or
 * data pattern, one for explicit dims, one for a negative dim or at.
 */
int64_t sl_case_size(const sl_case *c);

#endif
