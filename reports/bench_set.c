/* Timings of the store in memory (see bench_set.h). */
#include "bench_set.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_common.h"
#include "sl_stats.h"
#include "strmap.h"

typedef struct sl__load {
  sl__bench_set *set;
  int with_samples, oom;
} sl__load;

static int sl__load_row(void *user, const sl_timing_view *t) {
  sl__load *l = user;
  sl__bench_set *set = l->set;
  if (sl__grow((void **)&set->v, set->n, &set->cap, sizeof *set->v))
    return l->oom = 1;
  sl__bench *b = &set->v[set->n];
  memset(b, 0, sizeof *b);
  b->run_id = t->run_id;
  b->case_id = t->case_id;
  b->op = strdup(t->op);
  b->case_line = strdup(t->case_line);
  b->variant = strdup(t->variant);
  b->threads = t->threads;
  b->cold = t->cold;
  b->reps = t->reps;
  b->median_s = t->median_s;
  b->iqr_s = t->iqr_s;
  b->min_s = t->min_s;
  b->gbs = t->gbs;
  b->pct_peak = t->pct_peak;
  b->bytes = t->bytes;
  if (l->with_samples && t->nsamples > 0) {
    b->samples = malloc(sizeof *b->samples * (size_t)t->nsamples);
    if (b->samples) {
      memcpy(b->samples, t->samples, sizeof *b->samples * (size_t)t->nsamples);
      b->nsamples = t->nsamples;
    }
  }
  ++set->n;
  if (!b->op || !b->case_line || !b->variant ||
      (l->with_samples && t->nsamples > 0 && !b->samples))
    return l->oom = 1;
  return 0;
}

int sl__bench_load(sl_store *s, int64_t run_id, int with_samples,
                   sl__bench_set *out, char *err, size_t errlen) {
  sl__load l = {out, with_samples, 0};
  int rc = sl_store_each_timing(s, run_id, sl__load_row, &l);
  if (l.oom) {
    snprintf(err, errlen, "%s: out of memory reading %d timings",
             sl_store_path(s), out->n);
    return -1;
  }
  if (rc) {
    snprintf(err, errlen, "%s", sl_store_errmsg(s));
    return -1;
  }
  return 0;
}

void sl__bench_set_free(sl__bench_set *set) {
  for (int i = 0; i < set->n; ++i) {
    free(set->v[i].op);
    free(set->v[i].case_line);
    free(set->v[i].variant);
    free(set->v[i].samples);
  }
  free(set->v);
  memset(set, 0, sizeof *set);
}

void sl__bench_key(const sl__bench *b, char *buf, size_t len) {
  snprintf(buf, len, "%s\t%s\t%d\t%d", b->case_line, b->variant, b->threads,
           b->cold);
}

/* qsort has no user pointer: the set being sorted and the rank of each
 * row's case line are passed through here, which is fine for reports (one
 * thread). */
static const sl__bench *sl__sorting;
static const int *sl__line_rank;

static int sl__cmp_newest(const void *pa, const void *pb) {
  int ia = *(const int *)pa, ib = *(const int *)pb;
  const sl__bench *a = &sl__sorting[ia], *b = &sl__sorting[ib];
  if (sl__line_rank[ia] != sl__line_rank[ib])
    return sl__line_rank[ia] < sl__line_rank[ib] ? -1 : 1;
  if (a->threads != b->threads) return a->threads < b->threads ? -1 : 1;
  if (a->cold != b->cold) return a->cold < b->cold ? -1 : 1;
  int ta = strcmp(a->variant, SL__TORCH_VARIANT) == 0;
  int tb = strcmp(b->variant, SL__TORCH_VARIANT) == 0;
  if (ta != tb) return ta ? -1 : 1;
  return strcmp(a->variant, b->variant);
}

/* rank[i]: the position of row i's case line in the order the lines were
 * first seen, so that tables keep the order in which the cases ran. */
static int sl__rank_lines(const sl__bench_set *set, int *rank) {
  sl__strmap m = {0};
  int next = 0;
  for (int i = 0; i < set->n; ++i) {
    int at = sl__strmap_get(&m, set->v[i].case_line);
    if (at < 0 && sl__strmap_put(&m, set->v[i].case_line, at = next++)) {
      sl__strmap_free(&m);
      return -1;
    }
    rank[i] = at;
  }
  sl__strmap_free(&m);
  return 0;
}

int sl__bench_newest(const sl__bench_set *set, int **idx, int *n) {
  *idx = NULL;
  *n = 0;
  sl__strmap m = {0};
  size_t cnt = (size_t)(set->n ? set->n : 1);
  int *v = malloc(sizeof *v * cnt), *rank = malloc(sizeof *rank * cnt);
  int k = 0, rc = v && rank ? sl__rank_lines(set, rank) : -1;
  char key[4400];
  /* The set comes in run and case order: a later row of the same key is
   * newer and takes the earlier one's place. */
  for (int i = 0; !rc && i < set->n; ++i) {
    sl__bench_key(&set->v[i], key, sizeof key);
    int at = sl__strmap_get(&m, key);
    if (at >= 0)
      v[at] = i;
    else if (!(rc = sl__strmap_put(&m, key, k)))
      v[k++] = i;
  }
  sl__strmap_free(&m);
  if (!rc) {
    sl__sorting = set->v;
    sl__line_rank = rank;
    qsort(v, (size_t)k, sizeof *v, sl__cmp_newest);
    *idx = v;
    *n = k;
  } else {
    free(v);
  }
  free(rank);
  return rc;
}

/* The median of b: of its raw samples when they are loaded, else the one
 * stored with the timing. */
static double sl__bench_median(const sl__bench *b) {
  if (b->nsamples < 1) return b->median_s;
  double q1, med, q3;
  return sl_stats_quartiles(b->samples, b->nsamples, &q1, &med, &q3) ? NAN
                                                                     : med;
}

int sl__bench_anchor(sl__bench_set *set, const int *idx, int n,
                     const char *anchor) {
  sl__strmap map = {0};
  char key[4400];
  int found = 0, rc = 0;
  double *med = calloc((size_t)(n ? n : 1), sizeof *med);
  if (!med) return -1;
  for (int i = 0; i < n && !rc; ++i) {
    sl__bench *b = &set->v[idx[i]];
    if (strcmp(b->variant, anchor) != 0) continue;
    b->anchor = 1;
    ++found;
    med[i] = sl__bench_median(b); /* NAN: no anchor for its case */
    snprintf(key, sizeof key, "%s\t%d\t%d", b->case_line, b->threads, b->cold);
    rc = sl__strmap_put(&map, key, i);
  }
  for (int i = 0; i < n && !rc; ++i) {
    sl__bench *b = &set->v[idx[i]];
    if (b->anchor) continue;
    snprintf(key, sizeof key, "%s\t%d\t%d", b->case_line, b->threads, b->cold);
    int a = sl__strmap_get(&map, key);
    if (a < 0 || !(med[a] > 0)) {
      b->anchor = -1;
      continue;
    }
    for (int k = 0; k < b->nsamples; ++k) b->samples[k] /= med[a];
    b->median_s /= med[a], b->iqr_s /= med[a], b->min_s /= med[a];
  }
  free(med);
  sl__strmap_free(&map);
  return rc ? -1 : found;
}
