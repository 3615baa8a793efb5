/*
 * The sections of the HTML report, one file each; report_html.c puts them
 * on the page in order. Each writes an <h2 id=...> and its content, and
 * returns 0 or -1 with a message in err. Internal to reports/.
 */
#ifndef SL_HTML_SECTIONS_H
#define SL_HTML_SECTIONS_H

#include <stddef.h>
#include <stdio.h>

#include "bench_set.h"
#include "sl_report.h"

/* Runs: one row per run of the selection (html_summary.c). */
int sl__html_runs(sl_store *s, const sl_html_opts *o, FILE *out, char *err,
                  size_t errlen);
/* Summary: the verdicts counted, the op x dtype x variant rows with
 * failures, the others counted (html_summary.c). */
int sl__html_summary(sl_store *s, const sl_html_opts *o, FILE *out, char *err,
                     size_t errlen);
/* Details, at the page's end: every op x dtype x variant row, collapsed,
 * then the coverage (html_summary.c). */
int sl__html_verdict_details(sl_store *s, const sl_html_opts *o, FILE *out,
                             char *err, size_t errlen);
/* Coverage: each op's fuzz cells by axis, and the cells that failed
 * (html_coverage.c). */
int sl__html_coverage(sl_store *s, const sl_html_opts *o, FILE *out, char *err,
                      size_t errlen);
/* Failures with their minimal repro lines (html_failures.c). */
int sl__html_failures(sl_store *s, const sl_html_opts *o, FILE *out, char *err,
                      size_t errlen);
/* Timing tables: the newest timing of each benchmark, idx into set
 * (html_timings.c). */
void sl__html_timings(const sl__bench_set *set, const int *idx, int n,
                      FILE *out);
/* The bench summary and crossover grid, as bench prints them, from the
 * same timings (html_bench.c). 0, or -1 out of memory. */
int sl__html_bench_summary(const sl__bench_set *set, const int *idx, int n,
                           FILE *out);
/* The contention chart from the same timings (html_contention.c). */
int sl__html_contention(const sl__bench_set *set, const int *idx, int n,
                        FILE *out);
/* History charts of every benchmark across all runs (html_history.c). */
int sl__html_history(sl_store *s, const sl_html_opts *o, FILE *out, char *err,
                     size_t errlen);

#endif
