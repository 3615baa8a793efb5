/*
 * Run-to-run comparison of benchmark timings, for a CI job that must fail
 * on a real slowdown and stay quiet on noise.
 *
 * Per benchmark (case line, variant, threads, cold) the raw samples of the
 * two runs are compared on log times:
 *   ratio     exp(Hodges-Lehmann shift): the typical candidate/base ratio,
 *             with its 95% distribution-free interval;
 *   p         two-sided Mann-Whitney U test (normal approximation, tie and
 *             continuity corrections);
 *   noise     the larger relative IQR (IQR / median) of the two samples.
 * A change counts (faster or slower) only when it is significant (p < alpha
 * and the interval excludes 1), at least the threshold, and beyond the
 * noise. A significant change below the threshold is the same; a change
 * beyond the threshold that is not significant, or lies within the noise,
 * is ambiguous; fewer than min_samples on a side is ambiguous with "too few
 * samples". With an anchor (sl_cmp_opts.anchor) the samples are first
 * divided by the anchor's median on the same case in the same run.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_set.h"
#include "machines.h"
#include "sl_report.h"
#include "sl_stats.h"
#include "strmap.h"

const char *sl_cmp_verdict_name(sl_cmp_verdict v) {
  static const char *const names[] = {"same", "faster", "slower", "ambiguous"};
  return (unsigned)v < sizeof names / sizeof names[0] ? names[v] : "?";
}

void sl_cmp_opts_init(sl_cmp_opts *o) {
  o->threshold = 0.05;
  o->alpha = 0.05;
  o->min_samples = 5;
  o->anchor = NULL;
}

/* Relative IQR of x: (Q3 - Q1) / median; also sets *median. */
static double sl__rel_iqr(const double *x, int n, double *median) {
  double q1, q3;
  if (sl_stats_quartiles(x, n, &q1, median, &q3) || !(*median > 0)) return NAN;
  return (q3 - q1) / *median;
}

/* Natural logs of x (times are positive; a zero would be a broken timer). */
static double *sl__logs(const double *x, int n) {
  double *v = malloc(sizeof *v * (size_t)(n ? n : 1));
  if (!v) return NULL;
  for (int i = 0; i < n; ++i) v[i] = log(x[i] > 0 ? x[i] : 1e-300);
  return v;
}

static void sl__judge(const sl_cmp_opts *o, sl_cmp_stat *r) {
  double change = r->ratio - 1, size = fabs(change);
  int significant = r->p < o->alpha && (r->ratio_lo > 1 || r->ratio_hi < 1);
  int beyond_threshold = size >= o->threshold;
  int beyond_noise = size > r->noise;
  if (significant && beyond_threshold && beyond_noise) {
    r->verdict = change > 0 ? SL_CMP_SLOWER : SL_CMP_FASTER;
    snprintf(r->reason, sizeof r->reason, "%+.1f%%, p=%.2g", 100 * change,
             r->p);
  } else if (!beyond_threshold) {
    r->verdict = SL_CMP_SAME;
    snprintf(r->reason, sizeof r->reason,
             significant ? "%+.1f%% is below the %.0f%% threshold"
                         : "%+.1f%%, not significant",
             100 * change, 100 * o->threshold);
  } else if (!significant) {
    r->verdict = SL_CMP_AMBIGUOUS;
    snprintf(r->reason, sizeof r->reason,
             "%+.1f%% but not significant "
             "(p=%.2g)",
             100 * change, r->p);
  } else {
    r->verdict = SL_CMP_AMBIGUOUS;
    snprintf(r->reason, sizeof r->reason,
             "%+.1f%% is within the noise "
             "(%.1f%%)",
             100 * change, 100 * r->noise);
  }
}

void sl_cmp_samples(const double *base, int n_base, const double *cand,
                    int n_cand, const sl_cmp_opts *o, sl_cmp_stat *r) {
  sl_cmp_opts def;
  sl_cmp_opts_init(&def);
  if (!o) o = &def;
  memset(r, 0, sizeof *r);
  r->n_base = n_base;
  r->n_cand = n_cand;
  r->median_base = r->median_cand = NAN;
  r->ratio = r->ratio_lo = r->ratio_hi = r->p = r->noise = NAN;
  double nb = sl__rel_iqr(base, n_base, &r->median_base);
  double nc = sl__rel_iqr(cand, n_cand, &r->median_cand);
  r->noise = nb > nc ? nb : nc;
  if (n_base > 0 && n_cand > 0 && r->median_base > 0)
    r->ratio = r->median_cand / r->median_base;
  r->verdict = SL_CMP_AMBIGUOUS;
  int min = o->min_samples > 1 ? o->min_samples : 2;
  if (n_base < min || n_cand < min) {
    snprintf(r->reason, sizeof r->reason,
             "too few samples (%d and %d; need %d per side)", n_base, n_cand,
             min);
    return;
  }
  double *lb = sl__logs(base, n_base), *lc = sl__logs(cand, n_cand);
  double shift, lo, hi;
  if (!lb || !lc ||
      sl_stats_hodges_lehmann(lb, n_base, lc, n_cand, 0.95, &shift, &lo, &hi)) {
    snprintf(r->reason, sizeof r->reason, "out of memory");
    free(lb);
    free(lc);
    return;
  }
  r->ratio = exp(shift);
  r->ratio_lo = exp(lo);
  r->ratio_hi = exp(hi);
  r->p = sl_stats_mann_whitney(lb, n_base, lc, n_cand, NULL);
  free(lb);
  free(lc);
  sl__judge(o, r);
}

/* ------------------------------------------------------------------------ */
/* Two runs                                                                  */
/* ------------------------------------------------------------------------ */

static char *sl__side_name(const sl_cmp_side *s) {
  char buf[1200];
  snprintf(buf, sizeof buf, "%s run %lld", sl_store_path(s->store),
           (long long)s->run_id);
  return strdup(buf);
}

/* The newest timing of each benchmark of one side, with samples. */
static int sl__load_side(const sl_cmp_side *side, sl__bench_set *set, int **idx,
                         int *n, char *err, size_t errlen) {
  *idx = NULL;
  if (!side || !side->store) {
    snprintf(err, errlen, "sl_cmp_runs: store is NULL");
    return -1;
  }
  int has = sl_store_has_run(side->store, side->run_id);
  if (has < 0) {
    snprintf(err, errlen, "%s", sl_store_errmsg(side->store));
    return -1;
  }
  if (!has) {
    snprintf(err, errlen, "%s: no run %lld", sl_store_path(side->store),
             (long long)side->run_id);
    return -1;
  }
  if (sl__bench_load(side->store, side->run_id, 1, set, err, errlen)) return -1;
  if (sl__bench_newest(set, idx, n)) {
    snprintf(err, errlen, "sl_cmp_runs: out of memory");
    return -1;
  }
  return 0;
}

/* Fills the machine fields of out from the two runs' records. Returns the
 * store that failed to give its run, or NULL. */
static sl_store *sl__machines(const sl_cmp_side *base, const sl_cmp_side *cand,
                              sl_cmp_set *out) {
  sl_run_brief m[2];
  if (sl_store_get_run(base->store, base->run_id, &m[0])) return base->store;
  if (sl_store_get_run(cand->store, cand->run_id, &m[1])) return cand->store;
  sl__machine_text(&m[0], out->base_machine, sizeof out->base_machine);
  sl__machine_text(&m[1], out->cand_machine, sizeof out->cand_machine);
  sl__machines_differ(&m[0], &m[1], "base", "candidate", out->machines_differ,
                      sizeof out->machines_differ);
  int k = sl__kernels_differ(base->store, base->run_id, cand->store,
                             cand->run_id, "base", "candidate",
                             out->kernels_differ, sizeof out->kernels_differ);
  if (k < 0) return k == -1 ? base->store : cand->store;
  out->kernels_same = k == 0;
  return NULL;
}

static int sl__pair(const sl__bench_set *bs, const int *bi, int bn,
                    const sl__bench_set *cs, const int *ci, int cn,
                    const sl_cmp_opts *o, sl_cmp_set *out) {
  sl__strmap map = {0};
  char key[4400];
  int *used = calloc((size_t)(bn ? bn : 1), sizeof *used);
  out->rows = calloc((size_t)(cn ? cn : 1), sizeof *out->rows);
  int rc = used && out->rows ? 0 : -1;
  for (int i = 0; !rc && i < bn; ++i) {
    sl__bench_key(&bs->v[bi[i]], key, sizeof key);
    rc = sl__strmap_put(&map, key, i);
  }
  for (int j = 0; !rc && j < cn; ++j) {
    const sl__bench *c = &cs->v[ci[j]];
    if (c->anchor == 1) continue; /* the yardstick, not judged */
    sl__bench_key(c, key, sizeof key);
    int i = sl__strmap_get(&map, key);
    if (i < 0) {
      ++out->only_cand;
      continue;
    }
    used[i] = 1;
    const sl__bench *b = &bs->v[bi[i]];
    sl_cmp_row *r = &out->rows[out->n++];
    r->case_line = strdup(c->case_line);
    r->variant = strdup(c->variant);
    r->threads = c->threads;
    r->cold = c->cold;
    if (!r->case_line || !r->variant) rc = -1;
    sl_cmp_samples(b->samples, b->nsamples, c->samples, c->nsamples, o,
                   &r->stat);
    if (b->anchor < 0 || c->anchor < 0) {
      r->stat.verdict = SL_CMP_AMBIGUOUS;
      snprintf(r->stat.reason, sizeof r->stat.reason,
               "no %.40s timing of this case in the %s run", o->anchor,
               b->anchor < 0 ? "base" : "candidate");
    }
    ++out->counts[r->stat.verdict];
  }
  for (int i = 0; !rc && i < bn; ++i)
    out->only_base += !used[i] && bs->v[bi[i]].anchor != 1;
  free(used);
  sl__strmap_free(&map);
  return rc;
}

int sl_cmp_runs(const sl_cmp_side *base, const sl_cmp_side *cand,
                const sl_cmp_opts *o, sl_cmp_set *out, char *err,
                size_t errlen) {
  if (!err) errlen = 0;
  if (errlen) err[0] = '\0';
  memset(out, 0, sizeof *out);
  sl_cmp_opts def;
  sl_cmp_opts_init(&def);
  if (!o) o = &def;
  sl__bench_set bs = {0}, cs = {0};
  int *bi = NULL, *ci = NULL, bn = 0, cn = 0, rc = -1;
  if (sl__load_side(base, &bs, &bi, &bn, err, errlen) ||
      sl__load_side(cand, &cs, &ci, &cn, err, errlen))
    goto done;
  if (o->anchor) {
    int fb = sl__bench_anchor(&bs, bi, bn, o->anchor);
    int fc = fb < 0 ? -1 : sl__bench_anchor(&cs, ci, cn, o->anchor);
    if (fb < 0 || fc < 0) {
      snprintf(err, errlen, "sl_cmp_runs: out of memory");
      goto done;
    }
    if (!fb || !fc) {
      snprintf(err, errlen,
               "--anchor %s: expected timings of it in both runs, %s run "
               "%lld has none",
               o->anchor, !fb ? "the base" : "the candidate",
               (long long)(!fb ? base->run_id : cand->run_id));
      goto done;
    }
    snprintf(out->anchor, sizeof out->anchor, "%s", o->anchor);
  }
  out->base_run = base->run_id;
  out->cand_run = cand->run_id;
  out->base_name = sl__side_name(base);
  out->cand_name = sl__side_name(cand);
  rc = !out->base_name || !out->cand_name ||
       sl__pair(&bs, bi, bn, &cs, ci, cn, o, out);
  sl_store *bad = rc ? NULL : sl__machines(base, cand, out);
  if (rc)
    snprintf(err, errlen, "sl_cmp_runs: out of memory");
  else if (bad) {
    snprintf(err, errlen, "%s", sl_store_errmsg(bad));
    rc = -1;
  }
done:
  free(bi);
  free(ci);
  sl__bench_set_free(&bs);
  sl__bench_set_free(&cs);
  if (rc) sl_cmp_set_free(out);
  return rc ? -1 : 0;
}

void sl_cmp_set_free(sl_cmp_set *set) {
  for (int i = 0; i < set->n; ++i) {
    free(set->rows[i].case_line);
    free(set->rows[i].variant);
  }
  free(set->rows);
  free(set->base_name);
  free(set->cand_name);
  memset(set, 0, sizeof *set);
}
