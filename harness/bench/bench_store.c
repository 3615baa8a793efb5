/* A timed case into the store, after its timing (bench_store.h). */
#include "bench_store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_verdicts.h"

int sl_kept_timings_add(sl_kept_timings *k, const sl_kept_timing *row) {
  if (k->n == k->cap) {
    const int cap = k->cap ? 2 * k->cap : 8;
    sl_kept_timing *rows = realloc(k->rows, sizeof *rows * (size_t)cap);
    if (!rows) return -1;
    k->rows = rows, k->cap = cap;
  }
  k->rows[k->n++] = *row;
  return 0;
}

void sl_kept_timings_free(sl_kept_timings *k) {
  free(k->rows);
  memset(k, 0, sizeof *k);
}

void sl_bench_case_lost(sl_case_result *res, const char *name,
                        const sl_bw_lost *lost, char *why, size_t len) {
  snprintf(why, len, "%s in the timing: %s", sl_verdict_name(lost->verdict),
           lost->message);
  for (int i = 0; res && i < res->n; ++i) {
    sl_variant_result *r = &res->v[i];
    if (strcmp(r->variant, name) != 0) continue;
    if (!sl_verdict_is_failure(r->verdict)) ++res->failures;
    r->verdict = lost->verdict;
    snprintf(r->message, sizeof r->message, "%.500s", why);
  }
}

int sl_bench_case_store(sl_store *st, int64_t run_id, const sl_bench_case *bc,
                        const sl_case_result *res, sl_kept_timings *k) {
  int64_t case_id, id;
  const int n = k->n;
  k->n = 0;
  if (sl_store_verdicts(st, run_id, bc->c.op, bc->c.dt, res->line, bc->c.seed,
                        0, 1, res->v, res->n, &case_id))
    return -1;
  for (int i = 0; i < n; ++i) {
    const sl_kept_timing *r = &k->rows[i];
    const sl_timing *t = &r->t;
    const double gbs =
        t->median_s > 0 ? (double)r->bytes / t->median_s / 1e9 : 0;
    const sl_timing_row row = {
        r->variant, r->threads,  t->reps,
        r->cold,    t->median_s, t->iqr_s,
        t->min_s,   gbs,         r->peak > 0 ? 100.0 * gbs / r->peak : -1,
        r->bytes,   t->samples,  t->reps};
    const sl_timing_counts counts = {t->counts.instructions, t->counts.cycles,
                                     t->counts.cache_misses};
    if (sl_store_add_timing_counted(st, case_id, &row, &counts, &id)) return -1;
  }
  return 0;
}
