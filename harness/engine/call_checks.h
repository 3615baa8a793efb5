/*
 * The core's refusals, reached on purpose: a case's valid call, broken one
 * way at a time (a NULL call or variant, a variant of another op, an
 * unknown op, a tensor with a rank past SL_MAX_DIMS, a negative extent or
 * stride, an unknown dtype or device, no data, an input on the wrong
 * device or of another valid dtype it does not take, an output of the
 * wrong dtype or shape or overlapping an input),
 * must be refused by sl_run_variant with the status that names the fault
 * and a message naming the argument, before any kernel runs. This is the
 * validation that stands in front of every variant, scatterlab's and the
 * providers'; no valid case takes its refusals.
 */
#ifndef SL_CALL_CHECKS_H
#define SL_CALL_CHECKS_H

#include <stddef.h>
#include <stdint.h>

#include "sl/sl.h"

/* How every message of a broken call's check begins: the defect it shows
 * is the entry's, whatever the op (failure_group.h). */
#define SL_CALL_CHECKS_PREFIX "sl_run_variant given "

/* Breaks the call of `inferred` (with its outputs fresh, and `copies`
 * as the variant takes its inputs) every way that applies, the slots
 * drawn from seed, and runs v on each. Returns 1 when every one is
 * refused as it must be, *applied the number tried; 0 when not, msg naming
 * the break, the status expected and the one got; -1 when the checks
 * could not be made (no memory), msg saying why. */
int sl_call_checks_agree(const sl_variant *v, const sl_call *inferred,
                         unsigned copies, uint64_t seed, int *applied,
                         char *msg, size_t len);

#endif /* SL_CALL_CHECKS_H */
