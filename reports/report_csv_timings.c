/*
 * CSV export of timings with their raw samples (header in sl_report.h). The
 * samples share one field, space-separated, so a row stays one benchmark
 * and the file keeps one row per timing however many repetitions it took.
 */
#include <inttypes.h>
#include <math.h>

#include "csv_fields.h"
#include "report_common.h"
#include "sl_report.h"

static int sl__timing_row(void *user, const sl_timing_view *t) {
  FILE *out = user;
  fprintf(out, "%" PRId64 ",%" PRId64 ",%" PRId64 ",", t->run_id, t->case_id,
          t->timing_id);
  sl__csv_text(out, t->op);
  fputc(',', out);
  sl__csv_text(out, t->variant);
  fprintf(out, ",%d,%d,%d,", t->threads, t->cold, t->reps);
  sl__csv_real(out, t->median_s);
  fputc(',', out);
  sl__csv_real(out, t->iqr_s);
  fputc(',', out);
  sl__csv_real(out, t->min_s);
  fprintf(out, ",%" PRId64 ",", t->bytes);
  sl__csv_real(out, t->gbs >= 0 ? t->gbs : NAN);
  fputc(',', out);
  sl__csv_real(out, t->pct_peak >= 0 ? t->pct_peak : NAN);
  fputc(',', out);
  sl__csv_text(out, t->case_line);
  fputc(',', out);
  for (int i = 0; i < t->nsamples; ++i) {
    if (i) fputc(' ', out);
    sl__csv_real(out, t->samples[i]);
  }
  fputc('\n', out);
  return ferror(out) ? 1 : 0;
}

int sl_report_csv_timings(sl_store *s, int64_t run_id, FILE *out, char *err,
                          size_t errlen) {
  if (!err) errlen = 0;
  if (sl__report_check(s, out, run_id, "sl_report_csv_timings", err, errlen))
    return -1;
  sl_csv_header(out, sl_csv_table_find("timings"));
  if (sl_store_each_timing(s, run_id, sl__timing_row, out) < 0) {
    snprintf(err, errlen, "%s", sl_store_errmsg(s));
    return -1;
  }
  return sl__report_finish(out, "CSV export", sl_store_path(s), err, errlen);
}
