/*
 * The timing worker of `bench` and `ab`: one forked process that runs every
 * kernel and every LibTorch call the timing needs (the probes, the case's
 * inputs and reference, the timing loops, the device side), so that a
 * kernel that crashes, hangs, aborts or calls exit() costs its own
 * contender only, as in `run` and `fuzz` (worker.h). The check before the
 * timing runs in the engine's worker (worker.h); this process only times.
 *
 * Forked when the command starts, before the command's own process has
 * run anything parallel: libgomp hangs in a child forked after its parent
 * ran an OpenMP region, and CUDA cannot be used in a child forked after its
 * parent used it. So the command's process never runs OpenMP, LibTorch,
 * CUDA or a kernel, and a dead worker is replaced by a fresh fork of it.
 *
 * Requests and answers go through a mapping shared with the parent (as
 * worker.c's page): the timed loops stay whole in the worker, with no
 * message per call; the worker stamps each call on the page (a store, no
 * system call), which is how the parent tells a hang and whom to blame.
 * The hardware counters are opened in the worker (perf_event_open counts
 * the threads of its own process).
 */
#ifndef SL_BENCH_WORKER_H
#define SL_BENCH_WORKER_H

#include <stddef.h>
#include <stdint.h>

#include "ab.h"
#include "runner.h"
#include "timing.h"

/* The most contenders of one request: LibTorch and every variant. */
#define SL_BW_MAX (SL_MAX_VERDICTS + 1)

typedef struct sl_bench_worker sl_bench_worker;

typedef struct sl_bw_setup {
  int threads;      /* the kernels' and LibTorch's threads */
  int counters;     /* open the hardware counters (0: --no-counters) */
  double timeout_s; /* per call (and for building a case) */
} sl_bw_setup;

/* What the worker says when it starts: its counters. */
typedef struct sl_bw_info {
  int counted;      /* counters opened: each timed turn is counted */
  int instructions; /* the instructions counter among them */
  char counters[512];
} sl_bw_info;

/* A contender the timing lost, with the verdict it earned after its check:
 * it crashed (a signal, abort, exit()) or passed the time limit while it
 * ran (the worker died with it), or it wrote its inputs during the timing
 * (SL_VERDICT_FAILED: the worker restored them and lives on). */
typedef struct sl_bw_lost {
  int lost;           /* 0: it was not lost */
  sl_verdict verdict; /* SL_VERDICT_CRASHED, _TIMEOUT or _FAILED */
  char message[512];  /* "worker killed by signal 11 (...)" */
} sl_bw_lost;

/* Forks the worker. 0, or -1 with err. */
int sl_bw_start(sl_bench_worker **w, const sl_bw_setup *s, sl_bw_info *info,
                char *err, size_t errlen);
void sl_bw_stop(sl_bench_worker *w);

/* How many workers were replaced after a death. */
int sl_bw_restarts(const sl_bench_worker *w);

/* The machine's probes (bench_run.h's sl__probe) in the worker: the copy
 * bandwidth (GB/s) and the core-to-core round trip (ns); 0 where a probe
 * could not be run. */
void sl_bw_probe(sl_bench_worker *w, int threads, double *gbs, double *rtt_ns);

/* The device: its description and L2 size, and its copy bandwidth. 0, or
 * -1 with why (no device, built without CUDA, ...). */
int sl_bw_device(sl_bench_worker *w, char *desc, size_t len, double *dev_gbs,
                 char *why, size_t whylen);

/* What the worker built for case `line` (sl_bw_open). */
typedef struct sl_bw_case {
  int64_t bytes;     /* useful bytes (sl_useful_bytes); 0 when rejected */
  int ref_rc;        /* 0: LibTorch computed the case */
  char ref_msg[512]; /* else why not */
  unsigned layouts;  /* every input's layout (sl_input_layout), or'ed */
} sl_bw_case;

/* Builds the inputs of case `line` in the worker (kept for the next
 * timings) and runs LibTorch on them once. 0; -1 with err when the case
 * cannot be built or the worker died building it (death says so). */
int sl_bw_open(sl_bench_worker *w, const char *line, uint64_t max_case_bytes,
               sl_bw_case *out, sl_bw_lost *death, char *err, size_t errlen);

/* The rules of a bench timing. */
typedef struct sl_bw_timing {
  double budget_s;
  int min_reps, cold, threads;
  double outpaced; /* the CPU rounds' sl_timing_opts.outpaced (0: off) */
} sl_bw_timing;

/*
 * Times contenders names[0..n) ("" for LibTorch: torch.cpu, or torch.cuda
 * when device) on the open case: the CPU ones in interleaved rounds
 * (sl_time_rounds), the device ones one after the other with CUDA events.
 * t[i], rc[i] (0: timed) and msg[i] (why not) for each; a contender that
 * kills the worker gets death[i], and the others are timed again in a
 * fresh worker (the case built again there); a CPU one that wrote its
 * inputs gets death[i] (failed, where it wrote) and the others are timed
 * again on the inputs restored. Returns 0, or 1 when the
 * case could not be built again after a death (the rest then have rc 1 and
 * say so).
 */
int sl_bw_time(sl_bench_worker *w, int device,
               const char (*names)[SL_VARIANT_NAME_LEN], int n,
               const sl_bw_timing *o, sl_timing *t, int *rc, char (*msg)[512],
               sl_bw_lost *death);

/* One pair of `ab` on the open case. */
typedef struct sl_bw_pair {
  const char *base, *cand; /* variant names */
  int threads;
  int torch;    /* LibTorch as the third arm */
  double plant; /* --plant-slowdown as a fraction */
  sl_ab_opts o; /* its counter is ignored: the worker's own is used */
} sl_bw_pair;

/*
 * sl_ab_time_ref of the pair in the worker. 0; else non-zero with why, and
 * when an arm killed the worker, *dead_arm is 0 (base), 1 (cand) or 2
 * (LibTorch) and death says how (a fresh worker is ready for what
 * follows); when an arm wrote its inputs, *dead_arm names it and death
 * says where (failed; the inputs are restored); -1 otherwise.
 */
int sl_bw_ab(sl_bench_worker *w, const sl_bw_pair *p, sl_ab_result *r,
             char *why, size_t whylen, int *dead_arm, sl_bw_lost *death);

#endif
