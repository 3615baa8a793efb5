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
#include "input_guard.h"

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
  int trc[SL_BW_MAX]; /* 0 timed, SL_BW_WROTE_INPUTS, else not timed */
  char tmsg[SL_BW_MAX][512];
  sl_timing t[SL_BW_MAX];
  sl_ab_result ab;
  int ab_wrote; /* the arm (0 base, 1 cand) that wrote its inputs; -1 */
} sl_bw_page;

/* trc of a contender that wrote its inputs during the timing (tmsg says
 * where): not timed, and failed (bench_worker_inputs.c). */
#define SL_BW_WROTE_INPUTS 3

/* The worker's life: answers requests on the page until its pipe closes
 * (bench_worker_child.c). in: wake-ups from the command; out: its own. */
_Noreturn void sl_bw_child_main(sl_bw_page *pg, const sl_bw_setup *s,
                                int parent, int in, int out);

/* In the worker: contender `who` runs `span` calls from now (the stamp the
 * command's time limit reads); one call of it starts at t0. */
void sl_bw_stamp(int who, int span);
void sl_bw_stamp_call(double t0);

/* In the worker: the inputs' guard of a timing (bench_worker_inputs.c).
 * in is the case's inputs (copy 0); copies[k * SL_MAX_ARGS + s] the buffer
 * of slot s in copy k (1 <= k < ncopies: --cold; NULL with one copy); c0
 * and max_case_bytes build them again. */
typedef struct sl_bw_inputs {
  sl_input_guard g;
  sl_bundle *in;
  void *const *copies;
  int ncopies;
  const sl_case *c0;
  uint64_t max_case_bytes;
} sl_bw_inputs;

/* Before the rounds: the inputs' hashes. */
void sl_bw_inputs_mark(sl_bw_inputs *x);

/* After them: whether any copy of an input no longer hashes as marked. */
int sl_bw_inputs_changed(const sl_bw_inputs *x);

/* Once they changed: the inputs built again, then each contender i not
 * skipped called once alone (fns[i], users[i] as sl_time_rounds takes
 * them) and checked after its call; wrote[i] = 1 and why[i] for each that
 * wrote them. Leaves every copy restored. Returns how many wrote (0: none
 * did when called alone), or -1 when the inputs could not be built again
 * (why[0] says why). */
int sl_bw_inputs_blame(sl_bw_inputs *x, int n, const sl_timed_fn *fns,
                       void *const *users, const int *skip, int *wrote,
                       char (*why)[512]);

/* In the worker: an AB request on the open case's inputs, guarded by x
 * (bench_worker_ab.c); counter NULL: none. */
void sl_bw_child_ab(sl_bw_page *pg, const sl_bw_request *q, sl_bw_inputs *x,
                    const sl_turn_counter *counter);

#endif
