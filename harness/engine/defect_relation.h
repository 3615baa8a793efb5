/*
 * How a failing variant's outputs relate to the right ones, measured on
 * the case (its minimal case, in a campaign): the evidence that failures
 * of several ops are one defect of code they share (failure_group.h:
 * sl_defect_signature). The outputs are compared, whole, with LibTorch's
 * answer to the same inputs under another call: another reduce (a float
 * amin that keeps the larger value answers as amax does, in every op that
 * uses the helper), include_self flipped (a reduce that starts from the
 * output's value whatever include_self says), with x itself (the writes
 * lost), with an input read with its strides ignored (a walk that steps
 * by one element where the input steps by more), or every wrong element
 * still holding the poison the outputs start as (writes skipped: a loop
 * that stops one short). A whole-output match of a
 * definite other call is evidence of a code path; "a value wrong" or "larger
 * than expected" is not, so nothing weaker counts.
 */
#ifndef SL_DEFECT_RELATION_H
#define SL_DEFECT_RELATION_H

#include <stddef.h>

#include "case.h"
#include "sl/sl.h"

/* The end of the relation of an input read with its strides ignored
 * ("= index, strides ignored"): 31 bytes with the longest input name. */
#define SL_RELATION_STRIDES_IGNORED ", strides ignored"
/* Every wrong element still holds the poison the outputs start as. */
#define SL_RELATION_NEVER_WRITTEN "= never written where wrong"

/* The relation of the outputs of vc (the variant's call, its outputs as
 * produced) on case c: "= reduce=amax", "= include_self=1", "= a NaN
 * lost where wrong", "= x", "= never written where wrong", "= index, strides
 * ignored", "= the start value where wrong", "= zero where wrong", "= the sum
 * over a wrong count", "= one ulp off where wrong" (the first row of
 * defect_relation.c that holds), or "" when none does. out holds at least 32
 * bytes. Runs LibTorch once per row tried: only for a failure that is shown
 * (runner.h: sl_run_opts.shown), never per case. */
void sl_defect_relation(const sl_case *c, const sl_call *vc, char *out,
                        size_t len);

#endif
