/*
 * `scatterlab report --format html`: one self-contained page. This file
 * only puts the sections (html_*.c) in order under a table of contents.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "bench_set.h"
#include "html.h"
#include "html_sections.h"
#include "report_common.h"
#include "sl_report.h"

void sl_html_opts_init(sl_html_opts *o) {
  memset(o, 0, sizeof *o);
  o->max_failures = 500;
  o->max_history = 60;
  o->min_segment = 3;
}

static void sl__contents(FILE *out, const char *path, int64_t run_id) {
  fputs("<p>Store <code>", out);
  sl__html_text(out, path);
  if (run_id)
    fprintf(out, "</code>, run %" PRId64 ".</p>\n", run_id);
  else
    fputs("</code>, every run.</p>\n", out);
  fputs("<p><a href=\"#summary\">Summary</a> &middot; <a "
        "href=\"#failures\">Failures</a> &middot; <a "
        "href=\"#timings\">Timings</a> &middot; <a "
        "href=\"#contention\">Contention</a> &middot; <a "
        "href=\"#history\">History</a> &middot; <a "
        "href=\"#runs\">Runs</a> &middot; <a "
        "href=\"#details\">Details</a> (<a href=\"#verdicts\">every "
        "verdict</a>, <a href=\"#coverage\">coverage</a>)</p>\n",
        out);
}

/* Timings and the contention chart share the newest timing of each
 * benchmark of the selection. */
static int sl__timing_sections(sl_store *s, int64_t run_id, FILE *out,
                               char *err, size_t errlen) {
  sl__bench_set set = {0};
  if (sl__bench_load(s, run_id, 0, &set, err, errlen)) return -1;
  int *idx, n, rc = -1;
  if (sl__bench_newest(&set, &idx, &n) == 0) {
    sl__html_timings(&set, idx, n, out);
    rc = sl__html_bench_summary(&set, idx, n, out);
    if (!rc) rc = sl__html_contention(&set, idx, n, out);
    free(idx);
  }
  if (rc) snprintf(err, errlen, "timings: out of memory");
  sl__bench_set_free(&set);
  return rc;
}

int sl_report_html(sl_store *s, const sl_html_opts *o, FILE *out, char *err,
                   size_t errlen) {
  if (!err) errlen = 0;
  sl_html_opts def;
  sl_html_opts_init(&def);
  if (!o) o = &def;
  if (sl__report_check(s, out, o->run_id, "sl_report_html", err, errlen))
    return -1;
  sl__html_begin(out, "scatterlab report");
  sl__contents(out, sl_store_path(s), o->run_id);
  /* What answers at a glance first (did anything fail, which, what won),
   * the long tables last. */
  int rc = sl__html_summary(s, o, out, err, errlen);
  if (!rc) rc = sl__html_failures(s, o, out, err, errlen);
  if (!rc) rc = sl__timing_sections(s, o->run_id, out, err, errlen);
  if (!rc) rc = sl__html_history(s, o, out, err, errlen);
  if (!rc) rc = sl__html_runs(s, o, out, err, errlen);
  if (!rc) rc = sl__html_verdict_details(s, o, out, err, errlen);
  if (rc) return -1;
  sl__html_end(out);
  return sl__report_finish(out, "HTML report", sl_store_path(s), err, errlen);
}
