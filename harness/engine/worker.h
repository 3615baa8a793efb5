/*
 * Crash isolation: cases run in a forked worker process. A kernel that
 * crashes (SIGSEGV, SIGBUS, SIGFPE, abort, ...) or hangs past the time limit
 * kills only the worker: the variant in flight gets a `crashed` or `timeout`
 * verdict, a fresh worker is forked, and the case goes on with the variants
 * after it. The harness itself never dies with the kernel.
 */
#ifndef SL_WORKER_H
#define SL_WORKER_H

#include "runner.h"

typedef struct sl_worker sl_worker;

/* Starts a worker that runs cases with options o (copied; the callbacks in
 * o are not used: the worker reports to the parent through a pipe). */
int sl_worker_start(sl_worker **w, const sl_run_opts *o, char *err,
                    size_t errlen);

/*
 * Runs case c in the worker with a time limit of timeout_s seconds per
 * variant (and for building the inputs and the reference). Fills res like
 * sl_run_case. Returns 0, or -1 with err when the case could not be prepared
 * (a usage error such as a bad --load file).
 */
int sl_worker_run(sl_worker *w, const sl_case *c, double timeout_s,
                  sl_case_result *res, char *err, size_t errlen);

/* The same with a --variants filter for this case only (NULL: the
 * worker's). */
int sl_worker_run_variants(sl_worker *w, const sl_case *c, const char *variants,
                           double timeout_s, sl_case_result *res, char *err,
                           size_t errlen);

/* Runs case c in the worker with variant `variant` only and writes its
 * inputs, reference and outputs to folder dir (`scatterlab run --save`).
 * In the worker, not here: a process that ran a CUDA kernel cannot use
 * CUDA in the workers it forks later, and a kernel that crashes must not
 * take the fuzz job with it. Returns 0, or -1 with err. */
int sl_worker_save(sl_worker *w, const sl_case *c, const char *variant,
                   const char *dir, double timeout_s, char *err, size_t errlen);

/* Runs case c in the worker with `variants` (NULL: the worker's) and
 * writes its tensors as text into shown (show_tensors.h: the inputs,
 * LibTorch's outputs and each failing variant's, each of up to 64
 * elements), for the reader of a minimal repro; res gets the verdicts,
 * each with the digest of what the variant wrote. The text is empty when
 * a variant crashed. 0, or -1 with err. */
enum { SL_WORKER_SHOWN_MAX = 12288 };
int sl_worker_show(sl_worker *w, const sl_case *c, const char *variants,
                   double timeout_s, char *shown, size_t len,
                   sl_case_result *res, char *err, size_t errlen);

/* Ends the worker process, idle between cases; the next case runs in a
 * fresh one, as a repro line pasted alone does (not counted as a
 * restart). */
void sl_worker_renew(sl_worker *w);

/* How many workers were replaced after a crash or timeout. */
int sl_worker_restarts(const sl_worker *w);

/* Resident size of the worker process in KiB (Linux /proc), or -1. */
long sl_worker_rss_kib(const sl_worker *w);

void sl_worker_stop(sl_worker *w);

/* A dead worker's wait status in words: "worker killed by signal 11
 * (Segmentation fault)", "worker exited with status 0". */
void sl_worker_describe_death(int status, char *buf, size_t len);

/* The name a verdict of the reference's own death or hang carries in the
 * variant's place. */
#define SL_WORKER_REFERENCE "reference"

/* How the words of a death and of a hang begin (failure groups cut a
 * shared check's failure there). */
#define SL_WORKER_DEATH_WORDS "worker "
#define SL_WORKER_HANG_WORDS "no answer within "

#endif
