/*
 * What every benchmark does to a case before it times anything (correct
 * before fast): the selected variants are run through the reference and
 * judged, the case and its verdicts go to the store, and fresh inputs are
 * built for timing together with the op's useful bytes. Shared by
 * the CPU and the CUDA sides of `scatterlab bench`.
 */
#ifndef SL_BENCH_CASE_H
#define SL_BENCH_CASE_H

#include <stddef.h>
#include <stdint.h>

#include "bench_worker.h"
#include "case.h"
#include "datagen.h"
#include "runner.h"
#include "sl_store.h"
#include "worker.h"

typedef struct sl_bench_case {
  sl_case c;        /* the case as built */
  sl_bw_case built; /* what the timing worker built: useful bytes (0 when
                       LibTorch rejects the case), LibTorch's answer, the
                       inputs' layouts */
} sl_bench_case;

/* The processes that run a timing command's kernels: the engine's worker
 * for the check (worker.h), the timing worker for the rest
 * (bench_worker.h), and the time limit of one call. */
typedef struct sl_bench_workers {
  sl_worker *check;
  sl_bench_worker *timing;
  double timeout_s;
} sl_bench_workers;

/* Forks both (before the command runs anything parallel: bench_worker.h),
 * the check's with options ro, the timing worker with ro's threads and the
 * hardware counters when `counters`; w->timeout_s set by the caller. 0, or
 * -1 with err. */
int sl_bench_workers_start(sl_bench_workers *w, const sl_run_opts *ro,
                           int counters, sl_bw_info *info, char *err,
                           size_t errlen);
void sl_bench_workers_stop(sl_bench_workers *w);

/* A new timing worker in place of the old one (same setup): a fresh
 * process, whose libraries, inputs and buffers land at new addresses, for
 * a measurement that must not share the first one's process state. 0, or
 * -1 with why. */
int sl_bench_workers_renew_timing(sl_bench_workers *w, const sl_run_opts *ro,
                                  int counters, sl_bw_info *info, char *err,
                                  size_t errlen);

/* Bytes of t's elements (t's shape times its dtype's size). */
int64_t sl_tensor_bytes(const sl_tensor *t);

/*
 * The roofline's numerator for one call: each input the op needs read once
 * (not x, src or the result for the backward of a linear reduce: sum,
 * mean, assign; masked_scatter's source only as far as the mask takes it),
 * each output (ref[k]: output k as LibTorch shapes it, dynamic_scatter's M
 * rows) written once.
 */
int64_t sl_useful_bytes(const sl_call *call, const sl_tensor *ref);

/*
 * Judges c0 with the variants of `ro` into `res` in the check worker (a
 * kernel that crashes, hangs or exits gets its verdict there), has the
 * timing worker build the inputs to time (sl_bw_open) and prints the case
 * line and its useful bytes (sl_useful_bytes). The case is stored after
 * its timing (bench_store.h), which can still change a verdict. 0, or -1
 * with err set (the case could not be built).
 */
int sl_bench_case_open(sl_bench_case *bc, const sl_case *c0,
                       const sl_run_opts *ro, const sl_bench_workers *w,
                       sl_case_result *res, char *err, size_t errlen);

/* Output buffers for call c (shapes from sl_infer), zeroed, in mem[slot]
 * (the caller frees each): c's output slots point at them, laid out as
 * LibTorch's result when like_reference (out_layout.h: scatterlab's own CPU
 * kernels, as the check ran them), else row-major. 0, or -1 when the call
 * is invalid or memory runs out. */
int sl_bench_alloc_outputs(sl_call *c, int like_reference, void **mem);

#endif /* SL_BENCH_CASE_H */
