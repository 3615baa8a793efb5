/*
 * scatterlab reports: what the results store holds, for people, for
 * spreadsheets and for CI. Reports only read the store (open it
 * SL_STORE_READONLY).
 *
 * Every function returns 0 on success and non-zero on failure with a message
 * in err (naming the database file for store errors); err may be NULL. The
 * CSV headers, the HTML sections and the statistics of compare and history
 * are described in reports/README.md as well.
 */
#ifndef SL_REPORT_H
#define SL_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sl_store.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Text                                                                      */
/* ------------------------------------------------------------------------ */

/* Writes s as text in a markdown table cell (a pull-request comment): '|'
 * escaped, a line break as a space, a backtick as a quote; outside a code
 * span (in_code 0) '<' and '&' as entities, so that nothing from a store
 * is read as HTML. In a code span (in_code 1) they stay as they are:
 * entities would show literally there. */
void sl_md_text(FILE *out, const char *s, int in_code);

/* A readable table of the runs in the store (run_id 0) or of run run_id
 * alone (an error naming it when it is not there), oldest first, one line
 * each:
 *
 *   id  kind   started (UTC)        status      cases  results  failed
 *   commit      command
 *
 * "failed" counts results whose verdict fails (sl_verdict_is_failure:
 * failed, reject_mismatch, crashed, timeout). An empty store prints a line
 * that says so. */
int sl_report_runs(sl_store *s, int64_t run_id, FILE *out, char *err,
                   size_t errlen);

/* `report --failures`: the failure groups of run_id (0: every run), each
 * with its signature, count of cases (shrunk copies not counted), first and
 * last seen, first message and minimal repro line; then the totals. The
 * texts that kernels wrote (signature, message, repro) go through `text`
 * (the harness's neutralizer for CI logs, harness/base/clean_text.h). */
int sl_report_failure_groups(sl_store *s, int64_t run_id, FILE *out,
                             void (*text)(FILE *, const char *), char *err,
                             size_t errlen);
/* Writes the `scatterlab run` repro of `line` for `variant` of run run_id,
 * with the --provider option that loads a provider variant's library, each
 * piece through `text` (an escaper, for HTML). */
void sl_report_repro(FILE *out, sl_store *s, int64_t run_id, const char *line,
                     const char *variant, void (*text)(FILE *, const char *));

/* ------------------------------------------------------------------------ */
/* CSV                                                                       */
/* ------------------------------------------------------------------------ */
/*
 * Every CSV export shares one format: RFC 4180 style with "\n" line ends and
 * a header line. A field is quoted (by libcsv's csv_fwrite, quotes doubled)
 * when it holds a comma, a quote, a line break, or leading or trailing
 * blanks; otherwise it is written as is. NULL is an empty field. Numbers use
 * the shortest decimal form that reads back to the same double. Headers are
 * stable: columns are only ever appended. run_id selects one run (0: every
 * run); a run_id that does not exist is an error.
 */

/* One CSV table's name, what a row is, and its columns in order (a NULL
 * ends them): csv_tables.c spells every header once, for the writers and
 * for `report --help`. */
typedef struct sl_csv_table {
  const char *name, *what;
  const char *const *columns;
} sl_csv_table;
/* The i-th table (results, tallies, timings, coverage, runs), or NULL. */
const sl_csv_table *sl_csv_table_at(size_t i);
/* The table called name, or NULL. */
const sl_csv_table *sl_csv_table_find(const char *name);
/* Writes t's header line. */
void sl_csv_header(FILE *out, const sl_csv_table *t);
/* Writes, for `report --help`, a line per table: its name, what a row is
 * and its header, wrapped at 76 columns. */
void sl_csv_tables_help(FILE *out);

/* The results (verdicts) as CSV, one row per (case, variant), ordered by
 * run, case id, variant:
 *
 *   run_id,case_id,op,variant,verdict,diff1,diff2,diff3,seconds,seed,
 *   case_line,message,shrunk_from
 *
 *   run_id     the run (runs.id)
 *   case_id    the case (cases.id)
 *   op         operator name, e.g. scatter_reduce
 *   variant    device.strategy, e.g. cpu.atomic
 *   verdict    a name of results/verdicts.def: passed failed both_rejected
 *              reject_mismatch crashed timeout unsupported mistrusted
 *   diff1      sum|a-b| / sum|b|        (empty: not compared)
 *   diff2      sqrt(sum(a-b)^2 / sum b^2) (empty: not compared)
 *   diff3      max|a-b|                 (empty: not compared)
 *   seconds    wall time of the kernel call (empty: not measured)
 *   seed       the case's data seed, unsigned decimal
 *   case_line  the case descriptor (pass it to `scatterlab run` to repeat)
 *   message    why, for anything but a pass; may be empty
 *   shrunk_from  for a minimal case found by shrinking, the case_id of the
 *              failing case it was shrunk from; empty otherwise */
int sl_report_csv_results(sl_store *s, int64_t run_id, FILE *out, char *err,
                          size_t errlen);
/* As sl_report_csv_results, the rows whose verdict is one of `verdicts`
 * only (comma-separated names, as sl_report_verdicts_check accepts; NULL:
 * every row). */
int sl_report_csv_results_where(sl_store *s, int64_t run_id,
                                const char *verdicts, FILE *out, char *err,
                                size_t errlen);
/* 0 when `list` is comma-separated verdict names (results/verdicts.def);
 * else -1 with err naming the name, the expected names and the list. */
int sl_report_verdicts_check(const char *list, char *err, size_t errlen);

/* The timings as CSV, one row per (case, variant, threads, cold), ordered by
 * run, case id, variant, threads, cold, with the raw samples:
 *
 *   run_id,case_id,timing_id,op,variant,threads,cold,reps,median_s,iqr_s,
 *   min_s,bytes,gbs,pct_peak,case_line,samples
 *
 *   timing_id  the timing row (timings.id)
 *   threads    CPU threads used; cold 1: caches flushed before each call
 *   reps       timed repetitions
 *   median_s iqr_s min_s   seconds per call
 *   bytes      useful bytes moved by one call
 *   gbs        bytes / median_s / 1e9 (empty: not computed)
 *   pct_peak   100 * gbs / the run's copy bandwidth (empty: no probe)
 *   samples    every raw sample in seconds, in the order run, separated by
 *              single spaces (empty: none stored) */
int sl_report_csv_timings(sl_store *s, int64_t run_id, FILE *out, char *err,
                          size_t errlen);

/* Every verdict counted, kept or not (the store's tallies), ordered by run,
 * op, dtype, variant, verdict:
 *
 *   run_id,op,dtype,variant,verdict,count */
int sl_report_csv_tallies(sl_store *s, int64_t run_id, FILE *out, char *err,
                          size_t errlen);

/* The fuzzing coverage cells as CSV, ordered by run, cell:
 *
 *   run_id,cell,cases,failures */
int sl_report_csv_coverage(sl_store *s, int64_t run_id, FILE *out, char *err,
                           size_t errlen);

/* The runs as CSV, ordered by id:
 *
 *   run_id,kind,started_at,finished_at,status,git_commit,host,cpu_model,
 *   cores,threads,compiler,flags,version,device,copy_gbs,command_line,
 *   cases,results,failed,copy_gbs_end,core_rtt_ns,core_rtt_ns_end,reference
 *
 *   started_at finished_at  ISO-8601 UTC (finished_at empty while running)
 *   cores threads copy_gbs  empty when unknown; device empty without a GPU
 *   copy_gbs_end            bench's second probe, after the suite; empty
 *                           for other runs and runs made before it
 *   core_rtt_ns(_end)       bench's core-to-core round trip at its start
 *                           and end (ns); empty where not probed
 *   cases results failed    counts, as in sl_report_runs
 *   reference               "LibTorch 2.11.0 (PyPI torch 2.11.0)"; "unknown"
 *                           for runs stored before it was recorded
 * Columns are in the order of their first release (copy_gbs_end, the two
 * round trips and reference came later, and are appended: schema v5 had
 * put three of them before command_line, which broke readers by
 * position). */
int sl_report_csv_runs(sl_store *s, int64_t run_id, FILE *out, char *err,
                       size_t errlen);

/* Reads a CSV file of case lines for `scatterlab import` and calls fn with
 * each non-empty value of its case_line column, with the 1-based record
 * number. When the first record holds a field named exactly "case_line" it
 * is a header and that column is read (so a results or timings export reads
 * back); otherwise the first column of every record is. Leading blanks are
 * dropped; empty values, values starting with '#' (comments) and values
 * seen before in the file (an export repeats a case line once per variant)
 * are skipped. fn returns 0 to go on, or a positive value that stops the
 * walk and is returned. A malformed file is an error (-1) naming `name` and
 * the record. */
int sl_report_csv_read_cases(FILE *in, const char *name,
                             int (*fn)(void *user, const char *line,
                                       long record),
                             void *user, char *err, size_t errlen);

/* ------------------------------------------------------------------------ */
/* HTML                                                                      */
/* ------------------------------------------------------------------------ */

typedef struct sl_html_opts {
  int64_t run_id;   /* 0: every run */
  int max_failures; /* rows of the failures table (default 500) */
  int max_history;  /* history charts (default 60) */
  int min_segment;  /* change points: shortest segment (default 3) */
} sl_html_opts;

void sl_html_opts_init(sl_html_opts *o);

/* One self-contained HTML page (no script, no external asset; charts are
 * inline SVG) with the sections: runs, summary (verdicts by op x dtype x
 * variant, coverage cells), failures with their minimal repro lines,
 * timings (median, IQR, GB/s, % of peak, speed-up over torch.cpu), the
 * contention chart and the history of every benchmark across runs with its
 * change points. Timings show the newest measurement of each benchmark in
 * the selection; history always spans every run. */
int sl_report_html(sl_store *s, const sl_html_opts *o, FILE *out, char *err,
                   size_t errlen);

/* ------------------------------------------------------------------------ */
/* Comparing two runs                                                        */
/* ------------------------------------------------------------------------ */

typedef enum sl_cmp_verdict {
  SL_CMP_SAME,
  SL_CMP_FASTER,
  SL_CMP_SLOWER,
  SL_CMP_AMBIGUOUS
} sl_cmp_verdict;

const char *sl_cmp_verdict_name(sl_cmp_verdict v);

typedef struct sl_cmp_opts {
  double threshold; /* smallest change that counts (default 0.05: 5%) */
  double alpha;     /* significance level of the U test (default 0.05) */
  int min_samples;  /* fewer per side: "too few samples" (default 5) */
  /* NULL: compare seconds. A variant name ("torch.cpu"): compare each
   * time over that variant's median on the same case in the same run (the
   * bench times them in turns), so that a machine slower in one run than
   * in the other moves both and cancels; the anchor's own rows are not
   * judged, and a benchmark whose case has no anchor timing is ambiguous. */
  const char *anchor;
} sl_cmp_opts;

void sl_cmp_opts_init(sl_cmp_opts *o);

/* The comparison of one benchmark: candidate time over base time. */
typedef struct sl_cmp_stat {
  int n_base, n_cand;
  double median_base, median_cand;  /* seconds */
  double ratio, ratio_lo, ratio_hi; /* Hodges-Lehmann, 95% interval */
  double p;                         /* Mann-Whitney U; NaN: too few */
  double noise; /* the larger relative IQR of the two sides */
  sl_cmp_verdict verdict;
  char reason[96]; /* why that verdict, one short phrase */
} sl_cmp_stat;

/* Compares two samples of the same benchmark (seconds; any order). The
 * change counts (faster or slower) only when the U test is significant,
 * the interval excludes 1, and |ratio - 1| is at least the threshold and
 * beyond the noise. Below min_samples on a side the verdict is ambiguous
 * with p NaN and reason "too few samples". */
void sl_cmp_samples(const double *base, int n_base, const double *cand,
                    int n_cand, const sl_cmp_opts *o, sl_cmp_stat *out);

/* One side of a comparison: a store and a run in it. */
typedef struct sl_cmp_side {
  sl_store *store;
  int64_t run_id;
} sl_cmp_side;

/* One benchmark of a comparison: the key and the statistics. */
typedef struct sl_cmp_row {
  char *case_line, *variant;
  int threads, cold;
  sl_cmp_stat stat;
} sl_cmp_row;

typedef struct sl_cmp_set {
  int64_t base_run, cand_run;
  char *base_name, *cand_name; /* "store.db run 3" */
  /* Each run's machine as its run recorded it: "AMD EPYC, 2 cores, 2
   * threads, copy 44.3 GB/s, core round trip 90 ns" ('?' for what it did
   * not record; the round trip only where probed), and why the two differ
   * in what moves timings ("" when they do not): another CPU model, core or
   * thread count, copy probes more than 20% apart or round trips more than
   * 2x apart, between the runs or within one. */
  char base_machine[320], cand_machine[320];
  char machines_differ[320];
  /* Whether the runs ran other kernels (a provider added, dropped or
   * rebuilt: reports/machines.h's sl__kernels_differ): kernels_same 1 when
   * both runs recorded their providers and every one matches by SHA-256;
   * else kernels_differ says how, or both are empty/0 when unknown. */
  char kernels_differ[320];
  int kernels_same;
  sl_cmp_row *rows; /* benchmarks in both, by case line */
  int n;
  int only_base, only_cand; /* benchmarks present on one side only */
  int counts[4];            /* rows per sl_cmp_verdict */
  char anchor[64]; /* sl_cmp_opts.anchor: medians are ratios to it; "" */
} sl_cmp_set;

/* Whether two copy-bandwidth probes (GB/s, <= 0: none) are more than 20%
 * apart: then the machine moved between them (a shared VM's probe sits at
 * one of two levels, 1.8x apart), and % of peak does not compare. */
int sl_copy_probes_apart(double a, double b);

/* Whether two core-to-core round trips (ns, <= 0: none) are more than 2x
 * apart: then the threads ran on cores placed otherwise (sharing a cache
 * or not; one placement's probe moves within 1.6x), and multi-threaded
 * timings do not compare. */
int sl_core_rtts_apart(double a, double b);

/* Pairs the timings of base and cand by (case line, variant, threads, cold)
 * and compares their samples. */
int sl_cmp_runs(const sl_cmp_side *base, const sl_cmp_side *cand,
                const sl_cmp_opts *o, sl_cmp_set *out, char *err,
                size_t errlen);
void sl_cmp_set_free(sl_cmp_set *set);

typedef enum sl_cmp_format {
  SL_CMP_TEXT,
  SL_CMP_MARKDOWN,
  SL_CMP_CSV,
  SL_CMP_HTML
} sl_cmp_format;

/* Writes the comparison. CSV header:
 *
 *   base_run,cand_run,case_line,variant,threads,cold,n_base,n_cand,
 *   median_base_s,median_cand_s,ratio,ratio_lo,ratio_hi,p_value,noise,
 *   verdict,reason
 *
 * (ratio = candidate / base time; p_value empty when too few samples). */
int sl_cmp_write(const sl_cmp_set *set, const sl_cmp_opts *o, sl_cmp_format fmt,
                 FILE *out);

/* ------------------------------------------------------------------------ */
/* History                                                                   */
/* ------------------------------------------------------------------------ */

typedef struct sl_hist_opts {
  const char *match; /* only benchmarks whose case line or variant holds
                        this text (NULL: all) */
  int min_segment;   /* shortest segment between change points (default 3) */
  int all;           /* text: list benchmarks without change points too */
  /* --anchor VARIANT: each median over VARIANT's median on the same case
   * in the same run (NULL: seconds), as compare --anchor */
  const char *anchor;
} sl_hist_opts;

void sl_hist_opts_init(sl_hist_opts *o);

/* The median of every benchmark across runs, its change points and the
 * segments between them, as text. Returns the number of change points
 * found (>= 0), -1 on error, -2 when o->anchor has no timing in the store
 * (an input error; err names it). */
int sl_report_history(sl_store *s, const sl_hist_opts *o, FILE *out, char *err,
                      size_t errlen);

/* s as one word of a POSIX shell command: as it is when every byte is in
 * [A-Za-z0-9_@%+=:,./-] (and s is not empty), else in single quotes with
 * each ' written '\''. Pasting the result into sh gives s back exactly,
 * whatever it holds. Returns 0, or -1 with out "" when it does not fit in
 * len bytes (a cut word would paste as another one). */
int sl_shell_word(const char *s, char *out, size_t len);

/* The part of a repro command (`scatterlab run 'LINE' --variants V`) that
 * loads the provider of V, named `name` and loaded from the absolute path
 * abs, in a form that pastes on another machine: "" when it was found
 * through SCATTERLAB_PROVIDERS (from_env; the variant's prefix is resolved
 * there by the same variable), else " --provider NAME=PATH" with PATH
 * relative to the working folder, or absolute, followed by a shell comment
 * saying so, when the two share no folder below the root. Quoted for the
 * shell. 0, or -1 with out "" when it does not fit in len bytes. */
int sl_repro_provider(const char *name, const char *abs, int from_env,
                      char *out, size_t len);

#ifdef __cplusplus
}
#endif

#endif
