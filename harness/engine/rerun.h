/*
 * Determinism, measured: a variant that passed a case is run again on the
 * same inputs, with another thread count, into fresh outputs, and the two
 * answers are compared bit for bit. A variant flagged SL_DETERMINISTIC
 * must give the same bits (else it fails: its flag is a promise users
 * build on, e.g. to compare two builds bit for bit); for the others the
 * spread between the runs is recorded with the verdict.
 */
#ifndef SL_RERUN_H
#define SL_RERUN_H

#include <stddef.h>

#include "oracles.h"
#include "providers.h"
#include "sl/sl.h"
#include "variant_call.h"

/* The outputs as the kernel produced them: dynamic_scatter's first
 * out_rows rows (its outputs are allocated for every point). */
void sl_outputs_as_produced(sl_call *call);

/* The first output slot of got that its oracle does not pass against
 * first's (*d its comparison), or -1 when every output passes. The oracle:
 * c's of each output when c is given (a tolerance judged from got's
 * inputs), else o. */
int sl_first_output_differing(const sl_call *got, const sl_call *first,
                              const sl_case *c, sl_oracle o, sl_diff *d);

/* Runs v on call (inputs as given, outputs fresh) with `threads` threads
 * into *vc, as produced. Returns the kernel's status; *fault as
 * sl_device_run_variant's. vc is prepared whatever the status (free it). */
sl_status sl_run_again(const sl_variant *v, const sl_call *call,
                       unsigned copies, int threads, sl_variant_call *vc,
                       sl_ctx *ctx, int *fault);

/* The thread count a rerun uses after a first run with `threads`: 1 after
 * a parallel run, 2 after a serial one. */
int sl_rerun_threads(int threads);

/* Whether a case with this seed is rerun under `every` (sl_run_opts'
 * rerun_every): 0 never, N every case whose seed is a multiple of N. */
int sl_rerun_selected(int every, unsigned long long seed);

/*
 * Runs v again on `inferred` (the call the first run was built from, with
 * `copies` its layouts made contiguous) with `threads` threads (0:
 * sl_rerun_threads(first_threads)) and compares every output bitwise (a NaN
 * matches any NaN) with `first`, the first run's call as produced. Returns 1
 * when they agree; 0 when they do not, *spread the largest |difference| and msg
 * naming the output and the first position that differs (a second run that
 * refuses what the first took, or breaks a device check, differs by infinity);
 * -1 when the rerun could not be made (no memory, no device), msg saying why.
 */
int sl_rerun_agrees(const sl_variant *v, const sl_call *inferred,
                    unsigned copies, int first_threads, int threads,
                    const sl_call *first, double *spread, char *msg,
                    size_t len);

/*
 * Invariance under a permutation: where the op's result cannot depend on
 * the order in which its updates arrive (amax and amin of any dtype, every
 * reduce of an integer dtype: scatter_reduce, index_reduce but assign,
 * scatter_nd sum), v runs again on the updates reversed (along dim for
 * scatter_reduce, index's entries with updates' slices for index_reduce,
 * the axes dims names for scatter_nd: the same pairs of target and value,
 * in another order) and every output must equal the first run's
 * value for value (-0.0 matching 0.0, NaN matching NaN). No reference is
 * involved, so a reference bug cannot hide an order bug (a combine that
 * drops a NaN, a lost update that depends on which comes first).
 * Returns 1 when they agree or the check does not apply (*applied 0);
 * 0 when they differ, msg saying where; -1 when it could not be made.
 */
int sl_permuted_agrees(const sl_variant *v, const sl_call *inferred,
                       unsigned copies, int threads, const sl_call *first,
                       int *applied, char *msg, size_t len);

#endif
