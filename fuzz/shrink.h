/*
 * Shrinking a failing case: candidate smaller versions of it, for a caller
 * that re-runs each candidate and keeps the first one that fails the same
 * way (same variant, same verdict), until no candidate does.
 *
 * Steps, most aggressive first: drop an axis (keeping the op's shape rules
 * consistent across x / index / src / updates / value / mask), merge two
 * axes into one (the same elements at a lower rank), halve an extent, set
 * an extent to 1, fewer index columns (gather_nd/scatter_nd), a minimal
 * masked_scatter source, then simpler data: dt -> f32, dp -> rand, each
 * layout -> contiguous, ip -> rand, dims -> default, negative dim / at ->
 * normalized, and last each extent a power of two smaller (e/4, e/8, ...
 * down to 2). The seed never changes. sl_shrink adds the bisection of
 * each extent to its boundary.
 *
 * A candidate of a valid case is valid (sl_fuzz_classify); a candidate of
 * an invalid case keeps the original's class. Every candidate precedes
 * the case in sl_case_precedes's order, so repeated shrinking terminates.
 */
#ifndef SL_SHRINK_H
#define SL_SHRINK_H

#include <stdint.h>

#include "case.h"

/* Writes up to max candidates into out; returns how many. */
int sl_shrink_candidates(const sl_case *c, sl_case *out, int max);

/* Whether candidate c still fails the way the case being shrunk did: 1
 * yes, 0 no, -1 stop shrinking (a budget spent). */
typedef int (*sl_shrink_fails)(void *user, const sl_case *c);

/*
 * Shrinks *c in place while fails() holds: the first failing candidate is
 * taken and the candidates made again from it; when none fails, each
 * extent is bisected to the smallest that still fails. Ends at a case no
 * candidate and no smaller extent of which fails (each extent then stands
 * one above a passing value: 1-minimal, when failing grows with the
 * extent), or when fails() says stop. Returns the steps taken.
 */
int sl_shrink(sl_case *c, sl_shrink_fails fails, void *user);

/* The shrinker's order: a precedes b when it has a smaller sl_case_size,
 * then a lower rank over all inputs, then the plain dtype f32. Every
 * candidate precedes the case it came from, so shrinking terminates. */
int sl_case_precedes(const sl_case *a, const sl_case *b);

/*
 * Size measure: the elements of every input the line gives, plus one per
 * non-contiguous layout (k-1 for a step k), one for a non-default index or
 * data pattern, one for explicit dims, one for a negative dim or at.
 */
int64_t sl_case_size(const sl_case *c);

#endif
