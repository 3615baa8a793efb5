/*
 * The page the timing worker shares with the command (bench_worker.h):
 * the request in hand, the answer, and the worker's stamps. Only
 * bench_worker.c (the command's side) and bench_worker_child.c (the
 * worker's) include it.
 */
#ifndef SL_BENCH_WORKER_PAGE_H
#define SL_BENCH_WORKER_PAGE_H

#include "bench_worker.h"
#include "case.h"

#define SL_BW_REQUEST_MAP(X)                                                   \
  X(HELLO, "starting")                                                         \
  X(PROBE, "the probes")                                                       \
  X(DEVICE, "the device's description")                                        \
  X(OPEN, "building the case")                                                 \
  X(TIME, "timing")                                                            \
  X(AB, "timing the pair")

typedef enum sl_bw_kind {
#define SL__BW_KIND(e, what) SL_BW_##e,
  SL_BW_REQUEST_MAP(SL__BW_KIND)
#undef SL__BW_KIND
} sl_bw_kind;

typedef struct sl_bw_request {
  sl_bw_kind kind;
  unsigned seq;
  int threads, device, n;
  uint64_t max_case_bytes;
  sl_bw_timing timing;
  sl_bw_pair pair; /* its names point into names[0..1] in the worker */
  char names[SL_BW_MAX][SL_VARIANT_NAME_LEN];
  char line[SL_CASE_LINE_MAX];
} sl_bw_request;

typedef struct sl_bw_page {
  sl_bw_request req;
  /* The answer to request `answered` is complete. */
  volatile unsigned answered;
  /* The call in flight: contender `current` (-1: none; the case, a probe)
   * since `started` (CLOCK_MONOTONIC), `span` calls long. */
  volatile double started;
  volatile int current, span;
  int rc;
  char err[512];
  sl_bw_info info;
  double gbs, rtt_ns, dev_gbs;
  char device[256];
  sl_bw_case bcase;
  int trc[SL_BW_MAX];
  char tmsg[SL_BW_MAX][512];
  sl_timing t[SL_BW_MAX];
  sl_ab_result ab;
} sl_bw_page;

/* The worker's life: answers requests on the page until its pipe closes
 * (bench_worker_child.c). in: wake-ups from the command; out: its own. */
_Noreturn void sl_bw_child_main(sl_bw_page *pg, const sl_bw_setup *s,
                                int parent, int in, int out);

/* In the worker: contender `who` runs `span` calls from now (the stamp the
 * command's time limit reads); one call of it starts at t0. */
void sl_bw_stamp(int who, int span);
void sl_bw_stamp_call(double t0);

/* In the worker: an AB request on the open case's inputs
 * (bench_worker_ab.c); counter NULL: none. */
void sl_bw_child_ab(sl_bw_page *pg, const sl_bw_request *q,
                    const struct sl_bundle *in, const sl_turn_counter *counter);

#endif
