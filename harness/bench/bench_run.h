/*
 * The timing side of `scatterlab bench`, shared by cmd_bench.c (the command
 * line) and bench_run.c (the probes, each case's check and timings, the
 * rows printed and stored).
 */
#ifndef SL_BENCH_RUN_H
#define SL_BENCH_RUN_H

#include <stdint.h>
#include <stdio.h>

#include "bench_case.h"
#include "bench_table.h"
#include "run_counters.h"
#include "sl_store.h"

/* The machine as a run sees it (0: not measured): the copy bandwidth, for
 * % of peak, and the core-to-core round trip, which tells where the
 * threads run. */
typedef struct sl__probes {
  double gbs, rtt_ns;
} sl__probes;

/* One bench run: its options, store, probes and what it has gathered. */
typedef struct sl__bench_ctx {
  sl_store *st;
  int64_t run_id;
  int threads, cold, min_reps;
  double budget, peak_gbs;
  double outpaced; /* --stop-slower: the CPU rounds' outpaced (0: off) */
  int outpaced_n;  /* rows that stopped outpaced (said after the run) */
  int retime;      /* --retime: more CPU timings of a scattered verdict */
  int retimed_n;   /* cases timed again (said after the run) */
  int retimed;     /* the case in hand: its CPU timings repeated, */
  int scattered;   /* and its kept speed-up's timings still scattered */
  uint64_t max_case_bytes; /* --max-case-bytes; 0: the default */
  const char *variants;
  int cpu;        /* the CPU side: torch.cpu and the CPU probes (off when
                     --variants selects cuda.* variants only) */
  int cuda;       /* cuda.* variants selected and a device to time them on */
  int no_torch;   /* --no-torch: no torch.cuda row */
  double dev_gbs; /* the device's copy bandwidth: %peak of the cuda rows */
  sl_bench_table table; /* every CPU timing, for the closing tables */
  int failing;          /* cases with a variant that failed its check */
  /* --format json: the cases so far, and the timings of the case in hand
   * (NULL without it) */
  FILE *jcases, *jtimings;
  int jn, jtn;
  sl_bench_workers workers; /* where the kernels run (bench_case.h) */
  int counted;              /* the timing worker counts every CPU turn */
  int died;                 /* a contender killed the timing worker */
} sl__bench_ctx;

/* bench_run.c */
/* The probes at the start of a run (threads: the copy's), in the timing
 * worker. */
sl__probes sl__probe(sl_bench_worker *w, int threads);

/* The probes again after the suite. On a shared machine both move (the
 * 2-core development VM: copy 41-45 or 74-80 GB/s, round trip 85-140 or
 * 360 ns, from run to run and within one): a run that saw them move says
 * so, since its % of peak uses the first probe and its multi-threaded
 * timings follow the threads' placement, while the ratios between
 * contenders, timed in turns, still compare like with like. Returns the end
 * probes, which the run stores (runs.copy_gbs_end, core_rtt_ns_end). */
sl__probes sl__probe_again(sl_bench_worker *w, const sl__probes *start,
                           int threads);

/* Correctness first (every variant through the reference), then LibTorch
 * and the variants that passed, timed. 0, 1 when a cuda.* variant that
 * passed could not be timed, -1 when the case could not be built. Counts
 * the case in b->failing when a variant failed its check. */
int sl__bench_case(sl__bench_ctx *b, const sl_case *c0);

/* bench --shrink (bench_shrink.c), after the run: each case of b->table
 * whose best CPU variant is slower than torch.cpu is shrunk by the fuzz
 * shrinker (fuzz/shrink.h) while that variant stays slower, each candidate
 * checked and timed with the run's budget, not printed nor stored; the
 * shrunk case is timed three more times. Prints each; with json, writes
 * ", \"shrunk\": [...]" there. */
void sl__bench_shrink(sl__bench_ctx *b, FILE *json);

#endif
