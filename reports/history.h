/*
 * The history of every benchmark across runs: its median per run and the
 * change points of that series. Shared by `scatterlab history` (text) and
 * the HTML report's history charts. Internal to reports/.
 */
#ifndef SL_HISTORY_H
#define SL_HISTORY_H

#include <stddef.h>
#include <stdint.h>

#include "sl_store.h"

typedef struct sl__hist {
  char *case_line, *variant;
  int threads, cold;
  int n;          /* runs that timed it */
  int64_t *run;   /* ascending */
  double *median; /* seconds, one per run */
  double *iqr;    /* seconds, one per run (its timing's interquartile range) */
  int ncps;
  int *cps;          /* indices into run[] where a new level starts */
  double max_change; /* largest |relative change| between adjacent levels */
} sl__hist;

typedef struct sl__hist_set {
  sl__hist *v;
  int n;
  /* --anchor: the variant every median is a ratio to (the caller's
   * string); NULL: medians in seconds */
  const char *anchor;
} sl__hist_set;

/* Every benchmark of the store whose case line or variant contains match
 * (NULL: all), with its change points (segments of at least min_seg runs),
 * ordered by case line, variant, threads, cold. With anchor (NULL: none)
 * each median is the ratio to the anchor variant's median on the same case
 * in the same run (sl__bench_anchor): the anchor's own series and the runs
 * without an anchor timing are left out. 0, or -1 with err; -2 (and err)
 * when the store holds no timing of the anchor at all. */
int sl__hist_build(sl_store *s, const char *match, int min_seg,
                   const char *anchor, sl__hist_set *out, char *err,
                   size_t errlen);

/* A level as text: a time, or with an anchor "0.412x torch.cpu". */
void sl__hist_fmt_level(const sl__hist_set *set, double level, char *buf,
                        size_t len);
void sl__hist_set_free(sl__hist_set *set);

/* The level of runs [from, to) of h: the geometric mean of their medians
 * (the segments are found on log times). */
double sl__hist_level(const sl__hist *h, int from, int to);

/* Segment k (0..ncps) of h as [*from, *to). */
void sl__hist_segment(const sl__hist *h, int k, int *from, int *to);

/* What lies on either side of change point k (1..ncps) of h: the last
 * run before it and the first after, their commits, and why their machines
 * differ ("" when they do not: then the commits are the suspects). */
typedef struct sl__hist_cause {
  int64_t before, after;                    /* run ids */
  char before_commit[48], after_commit[48]; /* as recorded; "" unknown */
  /* SL__SAME_COMMIT: both runs built from one clean commit; SL__SAME_DIRTY:
   * from one commit with uncommitted changes, which may differ; 0: from
   * different commits, or unknown. */
  int same;
  char machines[320];
  char kernels[320]; /* how the runs' kernels differ (sl__kernels_differ) */
} sl__hist_cause;

enum { SL__SAME_COMMIT = 1, SL__SAME_DIRTY = 2 };

/* 0, or -1 when the store cannot give either run (message on s). */
int sl__hist_cause_of(sl_store *s, const sl__hist *h, int k,
                      sl__hist_cause *out);

/* A run of a benchmark's median may move by this much (relative) without
 * being noise the change-point test must explain: the floor of its noise
 * estimate. */
#define SL__HIST_SIGMA_FLOOR 0.01

#endif
