/*
 * CSV export of verdicts: one row per (case, variant). The header and the
 * quoting rules are documented in sl_report.h; quoting itself is libcsv's
 * csv_fwrite, so the output reads back with any CSV parser, libcsv's
 * included.
 */
#include <csv.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sl_report.h"

static const char sl__csv_header[] =
    "run_id,case_id,op,variant,verdict,diff1,diff2,diff3,seconds,seed,"
    "case_line,message\n";

typedef struct sl__csv_out {
  FILE *out;
  int64_t rows;
} sl__csv_out;

/* Quoting is needed for the CSV specials, and for blanks at either end,
 * which parsers (libcsv among them) trim from unquoted fields. */
static int sl__needs_quotes(const char *v, size_t n) {
  if (n == 0) return 0;
  if (v[0] == ' ' || v[0] == '\t' || v[n - 1] == ' ' || v[n - 1] == '\t')
    return 1;
  return strpbrk(v, ",\"\r\n") != NULL;
}

static void sl__text_field(FILE *out, const char *v) {
  size_t n = strlen(v);
  if (sl__needs_quotes(v, n))
    csv_fwrite(out, v, n);
  else
    fwrite(v, 1, n, out);
}

/* The shortest of %.15g..%.17g that reads back as the same double, so the
 * file is exact without printing 0.10000000000000001 for 0.1. NaN (a NULL
 * that the store reads as NaN) prints as the empty field. */
static void sl__real_field(FILE *out, double v) {
  if (isnan(v)) return;
  char buf[40];
  for (int prec = 15; prec <= 17; ++prec) {
    snprintf(buf, sizeof buf, "%.*g", prec, v);
    if (strtod(buf, NULL) == v) break;
  }
  fputs(buf, out);
}

static int sl__csv_row(void *user, const sl_result_view *r) {
  sl__csv_out *c = user;
  FILE *out = c->out;
  fprintf(out, "%" PRId64 ",%" PRId64 ",", r->run_id, r->case_id);
  sl__text_field(out, r->op);
  fputc(',', out);
  sl__text_field(out, r->variant);
  fputc(',', out);
  sl__text_field(out, r->verdict);
  fputc(',', out);
  sl__real_field(out, r->has_diffs ? r->diff1 : NAN);
  fputc(',', out);
  sl__real_field(out, r->has_diffs ? r->diff2 : NAN);
  fputc(',', out);
  sl__real_field(out, r->has_diffs ? r->diff3 : NAN);
  fputc(',', out);
  sl__real_field(out, r->seconds >= 0 ? r->seconds : NAN);
  fprintf(out, ",%" PRIu64 ",", r->seed);
  sl__text_field(out, r->case_line);
  fputc(',', out);
  sl__text_field(out, r->message);
  fputc('\n', out);
  ++c->rows;
  /* Stop at the first write error (disk full) rather than go on. */
  return ferror(out) ? 1 : 0;
}

int sl_report_csv_results(sl_store *s, int64_t run_id, FILE *out, char *err,
                          size_t errlen) {
  char dummy[8];
  if (!err || errlen == 0) {
    err = dummy;
    errlen = sizeof dummy;
  }
  err[0] = '\0';
  if (!s || !out) {
    snprintf(err, errlen, "sl_report_csv_results: %s is NULL",
             !s ? "store" : "out");
    return -1;
  }
  if (run_id < 0) {
    snprintf(err, errlen, "%s: run %" PRId64 " is not a run id",
             sl_store_path(s), run_id);
    return -1;
  }
  if (run_id > 0) {
    int has = sl_store_has_run(s, run_id);
    if (has < 0) {
      snprintf(err, errlen, "%s", sl_store_errmsg(s));
      return -1;
    }
    if (!has) {
      snprintf(err, errlen, "%s: no run %" PRId64, sl_store_path(s), run_id);
      return -1;
    }
  }
  fputs(sl__csv_header, out);
  sl__csv_out c = {out, 0};
  int rc = sl_store_each_result(s, run_id, sl__csv_row, &c);
  if (rc < 0) {
    snprintf(err, errlen, "%s", sl_store_errmsg(s));
    return -1;
  }
  if (fflush(out) != 0 || ferror(out)) {
    snprintf(err, errlen,
             "CSV export of %s: write error after %" PRId64 " rows",
             sl_store_path(s), c.rows);
    return -1;
  }
  return 0;
}
