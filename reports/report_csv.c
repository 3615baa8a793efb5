/*
 * CSV exports of verdicts, coverage cells and runs. The headers and the
 * quoting rules are documented in sl_report.h; quoting itself is libcsv's
 * csv_fwrite (csv_fields.c), so the output reads back with any CSV parser,
 * libcsv's included. Timings have their own file (report_csv_timings.c).
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "csv_fields.h"
#include "report_common.h"
#include "sl_report.h"
#include "sl_verdict.h"

/* ------------------------------------------------------------------------ */
/* Results                                                                   */
/* ------------------------------------------------------------------------ */

/* The verdicts of a --verdict list as a bit mask (bit v: sl_verdict v,
 * results/verdicts.def); -1 with err on a name that is none of them. */
static int sl__verdict_mask(const char *list, unsigned *mask, char *err,
                            size_t errlen) {
  _Static_assert(SL_VERDICT_COUNT <= 32, "a verdict per bit of an unsigned");
  *mask = 0;
  for (const char *p = list;;) {
    size_t k = strcspn(p, ",");
    char name[64] = "";
    int found = -1;
    if (k < sizeof name) {
      memcpy(name, p, k);
      name[k] = '\0';
      found = sl_verdict_from_name(name);
    }
    if (found < 0) {
      char names[512];
      sl_verdict_names_joined(", ", names, sizeof names);
      snprintf(err, errlen,
               "--verdict %s: expected verdict names separated by commas "
               "(%s), got \"%.*s\"",
               list, names, (int)k, p);
      return -1;
    }
    *mask |= 1u << found;
    if (!p[k]) return 0;
    p += k + 1;
  }
}

int sl_report_verdicts_check(const char *list, char *err, size_t errlen) {
  unsigned mask;
  if (!err) errlen = 0;
  return sl__verdict_mask(list ? list : "", &mask, err, errlen);
}

typedef struct sl__results_csv {
  FILE *out;
  unsigned mask; /* verdicts written, bit v for sl_verdict v */
} sl__results_csv;

static int sl__results_row(void *user, const sl_result_view *r) {
  const sl__results_csv *c = user;
  FILE *out = c->out;
  const int v = sl_verdict_from_name(r->verdict);
  if (v >= 0 && !(c->mask & (1u << v))) return 0;
  fprintf(out, "%" PRId64 ",%" PRId64 ",", r->run_id, r->case_id);
  sl__csv_text(out, r->op);
  fputc(',', out);
  sl__csv_text(out, r->variant);
  fputc(',', out);
  sl__csv_text(out, r->verdict);
  fputc(',', out);
  sl__csv_real(out, r->has_diffs ? r->diff1 : NAN);
  fputc(',', out);
  sl__csv_real(out, r->has_diffs ? r->diff2 : NAN);
  fputc(',', out);
  sl__csv_real(out, r->has_diffs ? r->diff3 : NAN);
  fputc(',', out);
  sl__csv_real(out, r->seconds >= 0 ? r->seconds : NAN);
  fprintf(out, ",%" PRIu64 ",", r->seed);
  sl__csv_text(out, r->case_line);
  fputc(',', out);
  sl__csv_text(out, r->message);
  fputc(',', out);
  if (r->shrunk_from > 0) fprintf(out, "%" PRId64, r->shrunk_from);
  fputc('\n', out);
  /* Stop at the first write error (disk full) rather than go on. */
  return ferror(out) ? 1 : 0;
}

int sl_report_csv_results_where(sl_store *s, int64_t run_id,
                                const char *verdicts, FILE *out, char *err,
                                size_t errlen) {
  if (!err) errlen = 0;
  sl__results_csv c = {out, ~0u};
  if (verdicts && sl__verdict_mask(verdicts, &c.mask, err, errlen)) return -1;
  if (sl__report_check(s, out, run_id, "sl_report_csv_results", err, errlen))
    return -1;
  sl_csv_header(out, sl_csv_table_find("results"));
  if (sl_store_each_result(s, run_id, sl__results_row, &c) < 0) {
    snprintf(err, errlen, "%s", sl_store_errmsg(s));
    return -1;
  }
  return sl__report_finish(out, "CSV export", sl_store_path(s), err, errlen);
}

int sl_report_csv_results(sl_store *s, int64_t run_id, FILE *out, char *err,
                          size_t errlen) {
  return sl_report_csv_results_where(s, run_id, NULL, out, err, errlen);
}

/* ------------------------------------------------------------------------ */
/* Coverage                                                                  */
/* ------------------------------------------------------------------------ */

static int sl__coverage_row(void *user, const sl_coverage_view *c) {
  FILE *out = user;
  fprintf(out, "%" PRId64 ",", c->run_id);
  sl__csv_text(out, c->cell);
  fprintf(out, ",%" PRId64 ",%" PRId64 "\n", c->cases, c->failures);
  return ferror(out) ? 1 : 0;
}

int sl_report_csv_coverage(sl_store *s, int64_t run_id, FILE *out, char *err,
                           size_t errlen) {
  if (!err) errlen = 0;
  if (sl__report_check(s, out, run_id, "sl_report_csv_coverage", err, errlen))
    return -1;
  sl_csv_header(out, sl_csv_table_find("coverage"));
  if (sl_store_each_coverage(s, run_id, sl__coverage_row, out) < 0) {
    snprintf(err, errlen, "%s", sl_store_errmsg(s));
    return -1;
  }
  return sl__report_finish(out, "CSV export", sl_store_path(s), err, errlen);
}

/* ------------------------------------------------------------------------ */
/* Tallies                                                                   */
/* ------------------------------------------------------------------------ */

static int sl__tally_row(void *user, const sl_tally_view *t) {
  FILE *out = user;
  fprintf(out, "%" PRId64 ",", t->run_id);
  const char *f[4] = {t->op, t->dtype, t->variant, t->verdict};
  for (int i = 0; i < 4; ++i) {
    sl__csv_text(out, f[i]);
    fputc(',', out);
  }
  fprintf(out, "%" PRId64 "\n", t->count);
  return ferror(out) ? 1 : 0;
}

int sl_report_csv_tallies(sl_store *s, int64_t run_id, FILE *out, char *err,
                          size_t errlen) {
  if (!err) errlen = 0;
  if (sl__report_check(s, out, run_id, "sl_report_csv_tallies", err, errlen))
    return -1;
  sl_csv_header(out, sl_csv_table_find("tallies"));
  if (sl_store_each_tally(s, run_id, sl__tally_row, out) < 0) {
    snprintf(err, errlen, "%s", sl_store_errmsg(s));
    return -1;
  }
  return sl__report_finish(out, "CSV export", sl_store_path(s), err, errlen);
}

/* ------------------------------------------------------------------------ */
/* Runs                                                                      */
/* ------------------------------------------------------------------------ */

typedef struct sl__runs_csv {
  FILE *out;
  int64_t run_id;
} sl__runs_csv;

/* An integer field that is empty when unknown (stored as NULL, read as 0). */
static void sl__known_int(FILE *out, int v) {
  if (v > 0) fprintf(out, "%d", v);
}

static int sl__runs_row(void *user, const sl_run_view *r) {
  sl__runs_csv *c = user;
  if (c->run_id && r->id != c->run_id) return 0;
  FILE *out = c->out;
  const char *text[] = {
      r->kind,     r->started_at, r->finished_at ? r->finished_at : "",
      r->status,   r->git_commit, r->host,
      r->cpu_model};
  fprintf(out, "%" PRId64, r->id);
  for (size_t i = 0; i < sizeof text / sizeof text[0]; ++i) {
    fputc(',', out);
    sl__csv_text(out, text[i]);
  }
  fputc(',', out);
  sl__known_int(out, r->cores);
  fputc(',', out);
  sl__known_int(out, r->threads);
  const char *build[] = {r->compiler, r->flags, r->version,
                         r->device ? r->device : ""};
  for (size_t i = 0; i < sizeof build / sizeof build[0]; ++i) {
    fputc(',', out);
    sl__csv_text(out, build[i]);
  }
  fputc(',', out);
  sl__csv_real(out, r->copy_gbs > 0 ? r->copy_gbs : NAN);
  fputc(',', out);
  sl__csv_text(out, r->command_line);
  fprintf(out, ",%" PRId64 ",%" PRId64 ",%" PRId64 ",", r->ncases, r->nresults,
          r->nfailed);
  /* The columns released after the first: at the end, in their order. */
  sl__csv_real(out, r->copy_gbs_end > 0 ? r->copy_gbs_end : NAN);
  fputc(',', out);
  sl__csv_real(out, r->core_rtt_ns > 0 ? r->core_rtt_ns : NAN);
  fputc(',', out);
  sl__csv_real(out, r->core_rtt_ns_end > 0 ? r->core_rtt_ns_end : NAN);
  fputc(',', out);
  sl__csv_text(out, r->reference);
  fputc(',', out);
  sl__csv_text(out, r->config);
  fputc('\n', out);
  return ferror(out) ? 1 : 0;
}

int sl_report_csv_runs(sl_store *s, int64_t run_id, FILE *out, char *err,
                       size_t errlen) {
  if (!err) errlen = 0;
  if (sl__report_check(s, out, run_id, "sl_report_csv_runs", err, errlen))
    return -1;
  sl_csv_header(out, sl_csv_table_find("runs"));
  sl__runs_csv c = {out, run_id};
  if (sl_store_each_run(s, sl__runs_row, &c) < 0) {
    snprintf(err, errlen, "%s", sl_store_errmsg(s));
    return -1;
  }
  return sl__report_finish(out, "CSV export", sl_store_path(s), err, errlen);
}
