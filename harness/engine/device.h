/*
 * Running and timing cuda.* variants from the harness, whose cases live in
 * host memory (core's sl_device_* functions do the CUDA calls; in a build
 * without CUDA every function here fails with core's "built without CUDA").
 *
 * Checking a run (sl_device_run_variant):
 * - the inputs are copied to the device once per case (kept while the next
 *   variants of the same case run; a case is recognised by its host
 *   buffers and a hash of their bytes, so a new case that reuses freed host
 *   memory is never mistaken for the old one);
 * - every output lives in a device buffer with a guard region of
 *   SL_DEVICE_GUARD bytes on each side, filled with a pattern that must
 *   survive the run (a write out of bounds shows there);
 * - the variant runs twice, the outputs poisoned with 0xA5 before the first
 *   run and 0x5A before the second: an element that still holds its run's
 *   poison after both was never written (one poison alone could be a real
 *   value), which fails the variant, as does any CUDA error after the run;
 * - the first run's outputs are copied back into the call's host outputs
 *   for the judge.
 */
#ifndef SL_DEVICE_H
#define SL_DEVICE_H

#include <stddef.h>

#include "sl/sl.h"
#include "timing.h"

#define SL_DEVICE_GUARD 4096
#define SL_DEVICE_POISON_A 0xA5
#define SL_DEVICE_POISON_B 0x5A
#define SL_DEVICE_GUARD_BYTE 0xC3

/*
 * Runs `variant` (a cuda.* variant of call->op) on call, whose input and
 * output tensors are in host memory (outputs shaped as sl_infer says). On
 * success the outputs hold the result and call->p / call->out_rows are
 * updated as sl_run updates them. The status is the variant's, or
 * DEVICE_ERROR / INTERNAL with a message on ctx when the run broke a check
 * above ("harness check: ..."). *fault is set to 1 exactly then: the
 * variant misbehaved (a device fault after it ran, a guard overwritten, an
 * output element never written, another row count on the same inputs),
 * which is a failure whatever the reference says, not a refusal; 0 when the
 * status is the variant's own (or the harness could not set the run up).
 */
sl_status sl_device_run_variant(sl_ctx *ctx, const sl_variant *v, sl_call *call,
                                int *fault);

/*
 * Times `variant` on call (host tensors) with CUDA events: warm-up runs,
 * then repetitions under o's rules (budget, minimum and maximum count, stop
 * once IQR/median < target), each sample the device time between two events
 * around one sl_run. cold: before every repetition (outside the events) a
 * buffer of twice the L2 size is written, so that no input starts in the
 * cache. Returns 0, or -1 with the reason on ctx.
 */
int sl_device_time_variant(sl_ctx *ctx, const sl_variant *v,
                           const sl_call *call, int cold,
                           const sl_timing_opts *o, sl_timing *t);

/* The same for LibTorch's CUDA op on the same inputs (the bench's
 * "torch.cuda" row; slref_run_device): the sample covers what a PyTorch
 * call costs on the device, the widening of an int32 index included. Fails
 * with the reason when LibTorch has no CUDA backend. */
int sl_device_time_torch(sl_ctx *ctx, const sl_call *call, int cold,
                         const sl_timing_opts *o, sl_timing *t);

/*
 * Timing in turns (ab's paired rounds): one case's inputs on the device
 * (the cached copies above), one set of outputs that every turn
 * overwrites (as ab's CPU arms share theirs), and a timer.
 * sl_device_turn runs v (NULL: LibTorch's CUDA op) k times, each sample the
 * device time between two events around one run; nothing is checked there
 * (ab times only variants that passed the case). Returns 0, or -1 with the
 * reason on ctx.
 */
typedef struct sl_device_turns sl_device_turns;
int sl_device_turns_open(sl_ctx *ctx, const sl_call *call,
                         sl_device_turns **out);
int sl_device_turn(sl_ctx *ctx, sl_device_turns *t, const sl_variant *v, int k,
                   double *samples);
/* After the turns: 0 when every input's device copy still holds the bytes
 * uploaded, 1 (the message on ctx) when a run wrote one, -1 when it could
 * not be read back. */
int sl_device_turns_inputs_intact(sl_ctx *ctx, const sl_device_turns *t);
void sl_device_turns_close(sl_device_turns *t);

/* GB/s of a device-to-device copy of `bytes` (bytes read plus bytes
 * written, the way the bench counts useful bytes), the median of repeated
 * copies timed with events; <= 0 when it cannot be measured. */
double sl_device_copy_bandwidth_gbs(size_t bytes);

/* Frees the cached device copies of the last case's inputs. */
void sl_device_release(void);

#endif
