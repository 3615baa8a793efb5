/*
 * The core's typed entry points (sl.h: sl_gather, sl_scatter_reduce, ...)
 * checked in every campaign: cpu.serial's passing answer is computed again
 * through the op's typed entry point, from the call's tensors and
 * parameters handed over by name, and must equal the first answer bit for
 * bit. A typed entry point that puts a tensor in the wrong slot, drops a
 * parameter (include_self, offsets, an initial value) or mishandles
 * dynamic_scatter's voxel count differs here, with no reference involved.
 */
#ifndef SL_TYPED_CALLS_H
#define SL_TYPED_CALLS_H

#include <stddef.h>

#include "sl/sl.h"

/* Runs `call` (inputs and outputs in their slots, parameters in call->p)
 * through its op's typed entry point with `variant`; sets call->out_rows
 * where the op reports one. Returns the entry point's status. */
sl_status sl_typed_run(sl_ctx *ctx, const char *variant, sl_call *call);

/* Whether the typed entry point can express `call`'s parameters: not a
 * value of an integer dtype that a double does not hold exactly
 * (sl_scatter_value takes a double). */
int sl_typed_expressible(const sl_call *call);

/*
 * Runs the core's cpu.serial through the typed entry point on `inferred`
 * (with `copies` its layouts made contiguous, as the first run had them)
 * into fresh, guarded outputs, and compares every output bitwise with
 * `first` (the first cpu.serial run as produced). Returns 1 when they agree
 * or the check does not apply (*applied 0); 0 when they differ, msg naming
 * the output and position; -1 when it could not be made (no memory).
 */
int sl_typed_agrees(const sl_call *inferred, unsigned copies,
                    const sl_call *first, int *applied, char *msg, size_t len);

#endif
