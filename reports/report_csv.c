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

/* ------------------------------------------------------------------------ */
/* Results                                                                   */
/* ------------------------------------------------------------------------ */

static const char sl__results_header[] =
    "run_id,case_id,op,variant,verdict,diff1,diff2,diff3,seconds,seed,"
    "case_line,message\n";

static int sl__results_row(void *user, const sl_result_view *r) {
  FILE *out = user;
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
  fputc('\n', out);
  /* Stop at the first write error (disk full) rather than go on. */
  return ferror(out) ? 1 : 0;
}

int sl_report_csv_results(sl_store *s, int64_t run_id, FILE *out, char *err,
                          size_t errlen) {
  if (!err) errlen = 0;
  if (sl__report_check(s, out, run_id, "sl_report_csv_results", err, errlen))
    return -1;
  fputs(sl__results_header, out);
  if (sl_store_each_result(s, run_id, sl__results_row, out) < 0) {
    snprintf(err, errlen, "%s", sl_store_errmsg(s));
    return -1;
  }
  return sl__report_finish(out, "CSV export", sl_store_path(s), err, errlen);
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
  fputs("run_id,cell,cases,failures\n", out);
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
  fputs("run_id,op,dtype,variant,verdict,count\n", out);
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
  sl__csv_real(out, r->copy_gbs_end > 0 ? r->copy_gbs_end : NAN);
  fputc(',', out);
  sl__csv_real(out, r->core_rtt_ns > 0 ? r->core_rtt_ns : NAN);
  fputc(',', out);
  sl__csv_real(out, r->core_rtt_ns_end > 0 ? r->core_rtt_ns_end : NAN);
  fputc(',', out);
  sl__csv_text(out, r->command_line);
  fprintf(out, ",%" PRId64 ",%" PRId64 ",%" PRId64 ",", r->ncases, r->nresults,
          r->nfailed);
  sl__csv_text(out, r->reference);
  fputc('\n', out);
  return ferror(out) ? 1 : 0;
}

int sl_report_csv_runs(sl_store *s, int64_t run_id, FILE *out, char *err,
                       size_t errlen) {
  if (!err) errlen = 0;
  if (sl__report_check(s, out, run_id, "sl_report_csv_runs", err, errlen))
    return -1;
  fputs("run_id,kind,started_at,finished_at,status,git_commit,host,cpu_model,"
        "cores,threads,compiler,flags,version,device,copy_gbs,copy_gbs_end,"
        "core_rtt_ns,core_rtt_ns_end,command_line,cases,results,failed,"
        "reference\n",
        out);
  sl__runs_csv c = {out, run_id};
  if (sl_store_each_run(s, sl__runs_row, &c) < 0) {
    snprintf(err, errlen, "%s", sl_store_errmsg(s));
    return -1;
  }
  return sl__report_finish(out, "CSV export", sl_store_path(s), err, errlen);
}
