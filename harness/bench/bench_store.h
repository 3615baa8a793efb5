/*
 * A timed case into the store, after its timing: the timing can still
 * change a verdict the check gave (a kernel that passed its check, then
 * crashed, hung or wrote its inputs while timed), and the stored row must
 * say what happened. So `bench` and `ab` keep a case's timings until its
 * contenders are all timed, then store the case with its final verdicts
 * and the timings under it.
 */
#ifndef SL_BENCH_STORE_H
#define SL_BENCH_STORE_H

#include <stdint.h>

#include "bench_case.h"
#include "bench_worker.h"
#include "runner.h"
#include "sl_store.h"
#include "timing.h"

/* One timing row, kept until its case is stored. */
typedef struct sl_kept_timing {
  char variant[SL_VARIANT_NAME_LEN];
  sl_timing t;   /* its samples, statistics and counts per call */
  int64_t bytes; /* useful bytes of one call */
  int threads;   /* 0: a device row */
  int cold;      /* --cold */
  double peak;   /* the copy bandwidth % of peak is against; <= 0: none */
} sl_kept_timing;

/* The timings of the case in hand (zeroed: empty). */
typedef struct sl_kept_timings {
  sl_kept_timing *rows;
  int n, cap;
} sl_kept_timings;

/* Keeps a copy of row (its variant, samples and counts). 0, or -1 when
 * memory ran out (the row is then not stored). */
int sl_kept_timings_add(sl_kept_timings *k, const sl_kept_timing *row);

void sl_kept_timings_free(sl_kept_timings *k);

/* What the timing did to contender `name` after its check, into res: a
 * variant that passed gets the verdict of `lost` and the message "crashed
 * in the timing: why" (the same text in why), and counts as a failure of
 * the case. A name res does not hold (torch.cpu), or res NULL, only gets
 * why. */
void sl_bench_case_lost(sl_case_result *res, const char *name,
                        const sl_bw_lost *lost, char *why, size_t len);

/* Stores case bc of run run_id with its verdicts res (every one kept, as a
 * benchmark's), then the kept timings under it, and empties k. 0, or -1
 * with the store's error in st. */
int sl_bench_case_store(sl_store *st, int64_t run_id, const sl_bench_case *bc,
                        const sl_case_result *res, sl_kept_timings *k);

#endif
