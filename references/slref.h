/*
 * slref: the LibTorch reference of every scatterlab op, behind a C ABI.
 *
 * The harness calls this shim to get the expected answer of a case; the
 * kernel core never does. The header speaks only plain C types (sl_call and
 * sl_tensor from sl/sl.h), so C code links the shim without seeing any C++.
 *
 * Inputs are wrapped without copying (any strides, including 0), never
 * written, and may be of any dtype: where LibTorch rejects a dtype or a shape
 * the shim reports LibTorch's own message. Only where a reference is built
 * from several LibTorch ops (gather_nd, scatter_nd, dynamic_scatter and its
 * backward) does the shim check the inputs itself, because LibTorch would
 * otherwise accept what the op's contract (docs/spec.md §4) rejects.
 */
#ifndef SLREF_H
#define SLREF_H

#include <stddef.h>

#include "sl/sl.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Return codes of slref_run and slref_time. */
enum {
  SLREF_OK = 0,       /* outputs written */
  SLREF_REJECTED = 1, /* LibTorch (or the shim's own contract check) refused */
  SLREF_INTERNAL = 2  /* the shim failed: bad descriptor device, no memory */
};

/*
 * Runs the LibTorch reference of call->op on the inputs call->arg[0..n_in)
 * (CPU tensors, any strides including 0, any dtype) with call->p.
 * Returns SLREF_OK: outs[0..n_out) (the op's outputs in slot order, see
 * core/src/catalog.c) are filled with freshly malloc()'d contiguous tensors;
 * the caller frees outs[i].data with free(). A zero-element output has data
 * NULL. dynamic_scatter's outputs have exactly M rows (not the N-row capacity
 * that sl_infer reports).
 * Returns SLREF_REJECTED when LibTorch rejects the call: err gets the first
 * line of its message (no backtrace), truncated to errlen.
 * Returns SLREF_INTERNAL on a failure of the shim itself, with a message.
 * On any failure outs[] is left zeroed, so freeing every data is safe.
 */
int slref_run(const sl_call *call, sl_tensor *outs, char *err, size_t errlen);

/*
 * A known defect of LibTorch's CPU operators that would decide an expected
 * answer wrongly (references/slref_defects.def). Where the linked LibTorch
 * has it (active), slref_run computes the calls it touches by the op's
 * definition instead, and still runs LibTorch as a user would to see
 * whether the defect shows on that call.
 */
typedef struct slref_defect {
  const char *name;     /* "half-scatter-accumulate" */
  const char *what;     /* one sentence: what LibTorch does wrong */
  const char *upstream; /* "pytorch/pytorch#103427", or "" when none known */
  const char *fixed_in; /* "2.1": first LibTorch without it; "" when none */
  int active;           /* 1: the linked LibTorch has it */
} slref_defect;

/* The rows of the table, active or not: i in [0, slref_defect_count()). */
int slref_defect_count(void);
const slref_defect *slref_defect_at(int i);

/*
 * The defect that the last successful slref_run on this thread worked
 * around and that showed: LibTorch's own answer differed (bits, with any
 * NaN equal to any NaN) from the expected one it returned. NULL when the
 * call touched no active defect, or LibTorch's own answer agreed.
 */
const slref_defect *slref_last_defect(void);

/* "LibTorch 2.11.0": the version that LibTorch's headers carry
 * (TORCH_VERSION). Debian's libtorch-dev 1.13.1+dfsg ships headers and sonames
 * saying 1.13.0; the string is LibTorch's own, not the package's. */
const char *slref_version(void);

/* Where the linked LibTorch came from, as the build was configured
 * (SL_REFERENCE): "PyPI torch 2.11.0" or "Debian libtorch-dev 1.13.1+dfsg-4".
 */
const char *slref_origin(void);

/*
 * Sets LibTorch's intra-op thread count (process-wide) to threads when it
 * differs; threads <= 0 leaves it. A fuzz job calls it with its share of the
 * cores: left at every core, two jobs' LibTorch teams spin against each
 * other (LibTorch 2.11 parallelizes small gathers and scatters that 1.13 ran
 * on one thread; the default campaign ran at half its speed).
 */
void slref_set_threads(int threads);

/*
 * Times reps runs of the reference on call (the bench's "torch.cpu"
 * variant): samples[r] gets the wall-clock seconds of run r. A run covers
 * wrapping the inputs (including widening an int32 index to int64, which
 * LibTorch needs) and the LibTorch computation, not copying outputs out.
 * No warm-up run is made: discarding early samples is the caller's choice.
 * threads > 0 sets LibTorch's intra-op thread count (process-wide, and
 * left so: LibTorch's first calls after a change run 2-3x slower, which
 * restoring the old count after every batch made every batch pay). OpenMP
 * code that relies on omp_get_max_threads() instead of an explicit count
 * sees the change. Returns as slref_run.
 */
int slref_time(const sl_call *call, int threads, int reps, double *samples,
               char *err, size_t errlen);

/*
 * Runs the reference's LibTorch computation of call on CUDA tensors (every
 * data pointer a device address), through LibTorch's CUDA backend, the way
 * a PyTorch user would call the op (native dtypes: no f32 widening of
 * f16/bf16 as slref_run does; an int32 index is widened to int64 on the
 * device, as LibTorch needs). The outputs are dropped: this is the timed
 * peer "torch.cuda" of the GPU bench, not an oracle. Work is queued on
 * LibTorch's current stream (the legacy default stream, where the harness's
 * event timer records); the call does not synchronize. Returns as
 * slref_run; SLREF_REJECTED with a message when LibTorch has no CUDA
 * backend (PyPI's CPU LibTorch, Debian's).
 */
int slref_run_device(const sl_call *call, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif /* SLREF_H */
