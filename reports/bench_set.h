/*
 * Timings of the store held in memory, one sl__bench per timing row: what
 * the timing tables, the contention chart, compare and history work on.
 * Internal to reports/.
 */
#ifndef SL_BENCH_SET_H
#define SL_BENCH_SET_H

#include <stddef.h>
#include <stdint.h>

#include "sl_store.h"

typedef struct sl__bench {
  int64_t run_id, case_id;
  char *op, *case_line, *variant;
  int threads, cold, reps;
  double median_s, iqr_s, min_s;
  double gbs, pct_peak; /* < 0: not known */
  int64_t bytes;
  double *samples; /* NULL unless loaded with samples */
  int nsamples;
  int anchor; /* compare --anchor: 1 the anchor itself, -1 its case has none */
} sl__bench;

typedef struct sl__bench_set {
  sl__bench *v;
  int n, cap;
} sl__bench_set;

/* Appends the timings of run_id (0: every run) in the store's order (run,
 * case, variant, threads, cold); with_samples keeps the raw samples too.
 * 0, or -1 with the store's message in err. */
int sl__bench_load(sl_store *s, int64_t run_id, int with_samples,
                   sl__bench_set *out, char *err, size_t errlen);
void sl__bench_set_free(sl__bench_set *set);

/* The identity of a benchmark across runs: "case_line\tvariant\tthreads\t
 * cold" in buf (truncated to len; case lines are far shorter). */
void sl__bench_key(const sl__bench *b, char *buf, size_t len);

/* Indices of the newest timing of each benchmark of set (the one of the
 * highest run, then case id), ordered by case line (in the order the lines
 * first appear in the set), threads, cold, then variant with torch.cpu
 * first. *idx is malloc'd. 0, or -1 out of memory. */
int sl__bench_newest(const sl__bench_set *set, int **idx, int *n);

/* --anchor (compare, history): divides every timing among idx[0..n), all
 * of one run, by the median of the `anchor` variant's timing of the same
 * case, threads and cold flag in that run (samples, median, IQR and
 * minimum), so that a machine slower in one run than in another cancels.
 * Marks the anchor's own timings (anchor = 1) and those whose case has no
 * anchor timing (anchor = -1, left as they are). Returns the number of
 * anchor timings, or -1 out of memory. */
int sl__bench_anchor(sl__bench_set *set, const int *idx, int n,
                     const char *anchor);

/* The variant LibTorch's timings are stored under. */
#define SL__TORCH_VARIANT "torch.cpu"

#endif
