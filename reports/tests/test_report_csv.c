/*
 * The CSV export and the runs table. A small store is written with messages
 * and case lines full of commas, quotes, line breaks and edge blanks; the
 * export is parsed back with libcsv's own parser (strict mode) and every
 * field must equal what was written. Expected rows are spelled out by hand
 * in the order the header comment of sl_report.h promises.
 */
#include <csv.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sl_report.h"
#include "sl_store.h"
#include "sl_test.h"

#define NCOLS 13
#define MAXCOLS 24 /* the widest table read back: runs, 19 columns */

/* What a row must read back as; NAN for a NULL (empty) number. */
typedef struct expected_row {
  int64_t run_id, case_id;
  const char *op, *variant, *verdict;
  double diff1, diff2, diff3, seconds;
  uint64_t seed;
  const char *case_line, *message;
} expected_row;

/* ------------------------------------------------------------------------ */
/* Reading CSV back with libcsv                                              */
/* ------------------------------------------------------------------------ */

typedef struct parsed {
  int nrows;
  int ncols[32];
  char *field[32][MAXCOLS];
  int col; /* fields seen in the current row */
} parsed;

static void on_field(void *s, size_t len, void *data) {
  parsed *p = data;
  if (p->nrows < 32 && p->col < MAXCOLS) {
    char *v = malloc(len + 1);
    if (v) {
      if (len) memcpy(v, s, len);
      v[len] = '\0';
    }
    p->field[p->nrows][p->col] = v;
  }
  ++p->col;
}

static void on_row(int c, void *data) {
  (void)c;
  parsed *p = data;
  if (p->nrows < 32) p->ncols[p->nrows] = p->col;
  ++p->nrows;
  p->col = 0;
}

static int parse_csv(const char *text, size_t len, parsed *p) {
  memset(p, 0, sizeof *p);
  struct csv_parser cp;
  if (csv_init(&cp, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL) != 0)
    return -1;
  int rc = 0;
  if (csv_parse(&cp, text, len, on_field, on_row, p) != len) {
    fprintf(stderr, "csv_parse: %s\n", csv_strerror(csv_error(&cp)));
    rc = -1;
  }
  if (csv_fini(&cp, on_field, on_row, p) != 0) rc = -1;
  csv_free(&cp);
  return rc;
}

static void free_parsed(parsed *p) {
  for (int r = 0; r < 32; ++r)
    for (int c = 0; c < MAXCOLS; ++c) free(p->field[r][c]);
}

static void check_real(const char *field, double want, int row,
                       const char *col) {
  if (isnan(want)) {
    CHECK_MSG(strcmp(field, "") == 0, "row %d %s: \"%s\", expected empty", row,
              col, field);
    return;
  }
  char *end;
  double got = strtod(field, &end);
  CHECK_MSG(*field && *end == '\0' && got == want,
            "row %d %s: \"%s\", expected %.17g", row, col, field, want);
}

static void check_row(parsed *p, int r, const expected_row *e) {
  char **f = p->field[r];
  CHECK_MSG(p->ncols[r] == NCOLS, "row %d has %d fields", r, p->ncols[r]);
  if (p->ncols[r] != NCOLS) return;
  CHECK(strtoll(f[0], NULL, 10) == e->run_id);
  CHECK(strtoll(f[1], NULL, 10) == e->case_id);
  CHECK_MSG(strcmp(f[2], e->op) == 0, "row %d op \"%s\"", r, f[2]);
  CHECK_MSG(strcmp(f[3], e->variant) == 0, "row %d variant \"%s\"", r, f[3]);
  CHECK_MSG(strcmp(f[4], e->verdict) == 0, "row %d verdict \"%s\"", r, f[4]);
  check_real(f[5], e->diff1, r, "diff1");
  check_real(f[6], e->diff2, r, "diff2");
  check_real(f[7], e->diff3, r, "diff3");
  check_real(f[8], e->seconds, r, "seconds");
  CHECK_MSG(strtoull(f[9], NULL, 10) == e->seed, "row %d seed \"%s\"", r, f[9]);
  CHECK_MSG(strcmp(f[10], e->case_line) == 0, "row %d case_line \"%s\"", r,
            f[10]);
  CHECK_MSG(strcmp(f[11], e->message) == 0, "row %d message \"%s\"", r, f[11]);
  /* No case of this store was shrunk: shrunk_from is empty (NULL). */
  CHECK_MSG(strcmp(f[12], "") == 0, "row %d shrunk_from \"%s\"", r, f[12]);
}

/* ------------------------------------------------------------------------ */
/* The store                                                                 */
/* ------------------------------------------------------------------------ */

static const char msg_multiline[] =
    "line one\nline two, with a comma\r\nand \"quoted\" words";
static const char msg_blanks[] = "  leading and trailing blanks\t ";
static const char msg_quote_only[] = "\"";
static const char line_commas[] = "gather_nd x=4x3 index=2x2 dims=0,1 seed=9";
static const char cell_quoted[] = "scatter/f32/dup,\"odd\"";

/* Writes the store; the expected rows below follow from these calls. */
static int fill_store(sl_store *s) {
  sl_run_info ri;
  memset(&ri, 0, sizeof ri);
  ri.kind = "run";
  ri.command_line = "scatterlab run --batch cases.txt";
  ri.git_commit = "0123456789abcdef";
  ri.version = "0.1.0";
  int64_t run1, run2, ca, cb, cc;
  int bad = sl_store_run_begin(s, &ri, &run1) || sl_store_begin(s);
  bad = bad || sl_store_add_case(s, run1, "gather",
                                 "gather x=4x3 index=2x3 dim=0", 1, 0, &ca);
  sl_result_row a1 = {"cpu.serial", "passed", "", 1, 0, 0, 0, 0.001};
  sl_result_row a2 = {
      "cpu.omp", "failed", "out[1,2]=3, expected \"4\"", 1, 0.1, 0.2, 3, -1};
  bad =
      bad || sl_store_add_result(s, ca, &a1) || sl_store_add_result(s, ca, &a2);
  bad = bad || sl_store_add_case(s, run1, "gather_nd", line_commas, UINT64_MAX,
                                 0, &cb);
  sl_result_row b1 = {"cpu.serial", "crashed", msg_multiline, 0, 0, 0, 0, -1};
  sl_result_row b2 = {"cpu.atomic", "mistrusted", msg_blanks, 0, 0, 0, 0,
                      2.5e-7};
  sl_result_row b3 = {
      "cuda.atomic", "unsupported", msg_quote_only, 0, 0, 0, 0, -1};
  bad = bad || sl_store_add_result(s, cb, &b1) ||
        sl_store_add_result(s, cb, &b2) || sl_store_add_result(s, cb, &b3);
  bad = bad || sl_store_commit(s) || sl_store_run_finish(s, run1, "finished");
  ri.kind = "fuzz";
  ri.command_line = "scatterlab fuzz --seconds 5";
  ri.core_rtt_ns = 87.5; /* probed at the start only */
  ri.reference = "LibTorch 2.11.0 (PyPI torch 2.11.0)"; /* run 1: none */
  bad = bad || sl_store_run_begin(s, &ri, &run2);
  bad = bad ||
        sl_store_add_case(s, run2, "scatter", "scatter x=2 index=1", 0, 0, &cc);
  sl_result_row c1 = {"cpu.serial", "passed", "",       1,
                      1e-300,       1.5e308,  INFINITY, 0.1};
  bad = bad || sl_store_add_result(s, cc, &c1);
  /* A timing with its samples on case 1, and a coverage cell whose name
   * needs quoting. */
  static const double samples[] = {0.0021, 0.002, 0.0019};
  sl_timing_row t = {"cpu.omp", 4,   3,  0,    0.002,   0.0001,
                     0.0019,    1.5, -1, 3000, samples, 3};
  bad = bad || sl_store_begin(s) || sl_store_add_timing(s, ca, &t, NULL) ||
        sl_store_add_coverage(s, run2, cell_quoted, 10, 1) ||
        sl_store_commit(s);
  if (bad) fprintf(stderr, "fill_store: %s\n", sl_store_errmsg(s));
  return bad ? -1 : 0;
}

static const expected_row want_rows[] = {
    {1, 1, "gather", "cpu.omp", "failed", 0.1, 0.2, 3, NAN, 1,
     "gather x=4x3 index=2x3 dim=0", "out[1,2]=3, expected \"4\""},
    {1, 1, "gather", "cpu.serial", "passed", 0, 0, 0, 0.001, 1,
     "gather x=4x3 index=2x3 dim=0", ""},
    {1, 2, "gather_nd", "cpu.atomic", "mistrusted", NAN, NAN, NAN, 2.5e-7,
     UINT64_MAX, line_commas, msg_blanks},
    {1, 2, "gather_nd", "cpu.serial", "crashed", NAN, NAN, NAN, NAN, UINT64_MAX,
     line_commas, msg_multiline},
    {1, 2, "gather_nd", "cuda.atomic", "unsupported", NAN, NAN, NAN, NAN,
     UINT64_MAX, line_commas, msg_quote_only},
    {2, 3, "scatter", "cpu.serial", "passed", 1e-300, 1.5e308, INFINITY, 0.1, 0,
     "scatter x=2 index=1", ""},
};
#define NWANT ((int)(sizeof want_rows / sizeof want_rows[0]))

static const char header[] = "run_id,case_id,op,variant,verdict,diff1,diff2,"
                             "diff3,seconds,seed,case_line,message,"
                             "shrunk_from";

/* Runs the export into memory. */
static int export(sl_store *s, int64_t run, char **buf, size_t *len, char *err,
                  size_t errlen) {
  FILE *f = open_memstream(buf, len);
  if (!f) return -1;
  int rc = sl_report_csv_results(s, run, f, err, errlen);
  fclose(f);
  return rc;
}

static void test_csv(sl_store *s) {
  char err[512], *buf = NULL;
  size_t len = 0;
  CHECK_MSG(export(s, 0, &buf, &len, err, sizeof err) == 0, "%s", err);
  if (!buf) return;
  /* The header line, and plain fields left unquoted with the shortest
   * numbers: hand-written from the first expected row. */
  CHECK(strncmp(buf, header, strlen(header)) == 0 &&
        buf[strlen(header)] == '\n');
  CHECK_CONTAINS(buf, "\n1,1,gather,cpu.omp,failed,0.1,0.2,3,,1,"
                      "gather x=4x3 index=2x3 dim=0,"
                      "\"out[1,2]=3, expected \"\"4\"\"\",\n");
  CHECK_CONTAINS(buf, ",\"  leading and trailing blanks\t \",\n");
  CHECK_CONTAINS(buf, ",\"\"\"\",\n"); /* a lone quote */

  parsed p;
  CHECK(parse_csv(buf, len, &p) == 0);
  /* Header + one row per (case, variant). */
  CHECK_MSG(p.nrows == 1 + NWANT, "%d rows", p.nrows);
  CHECK(p.ncols[0] == NCOLS);
  const char *names[NCOLS] = {"run_id",     "case_id", "op",        "variant",
                              "verdict",    "diff1",   "diff2",     "diff3",
                              "seconds",    "seed",    "case_line", "message",
                              "shrunk_from"};
  for (int c = 0; c < NCOLS && c < p.ncols[0]; ++c)
    CHECK(strcmp(p.field[0][c], names[c]) == 0);
  for (int r = 0; r < NWANT && r + 1 < p.nrows; ++r)
    check_row(&p, r + 1, &want_rows[r]);
  free_parsed(&p);
  free(buf);

  /* --verdict: the rows of those verdicts only; an unknown name is an
   * error naming it and the names expected. */
  buf = NULL;
  FILE *vf = open_memstream(&buf, &len);
  CHECK_MSG(sl_report_csv_results_where(s, 0, "crashed,mistrusted", vf, err,
                                        sizeof err) == 0,
            "%s", err);
  fclose(vf);
  CHECK(parse_csv(buf, len, &p) == 0);
  int nwant = 0;
  for (int r = 0; r < NWANT; ++r)
    nwant += strcmp(want_rows[r].verdict, "crashed") == 0 ||
             strcmp(want_rows[r].verdict, "mistrusted") == 0;
  CHECK_MSG(nwant > 0 && p.nrows == 1 + nwant, "%d rows, want %d", p.nrows,
            1 + nwant);
  for (int r = 1; r < p.nrows; ++r)
    CHECK_MSG(strcmp(p.field[r][4], "crashed") == 0 ||
                  strcmp(p.field[r][4], "mistrusted") == 0,
              "row %d verdict %s", r, p.field[r][4]);
  free_parsed(&p);
  free(buf);
  CHECK(sl_report_csv_results_where(s, 0, "failed,crashd", stdout, err,
                                    sizeof err) == -1);
  CHECK_CONTAINS(err, "--verdict failed,crashd: expected verdict names");
  CHECK_CONTAINS(err, "got \"crashd\"");
  CHECK(sl_report_verdicts_check("failed,", err, sizeof err) == -1);
  CHECK(sl_report_verdicts_check("timeout,passed", err, sizeof err) == 0);

  /* One run only. */
  buf = NULL;
  CHECK_MSG(export(s, 2, &buf, &len, err, sizeof err) == 0, "%s", err);
  CHECK(parse_csv(buf, len, &p) == 0);
  CHECK(p.nrows == 2);
  if (p.nrows == 2) check_row(&p, 1, &want_rows[NWANT - 1]);
  free_parsed(&p);
  free(buf);

  /* A run that does not exist, and bad arguments. */
  buf = NULL;
  CHECK(export(s, 3, &buf, &len, err, sizeof err) != 0);
  CHECK_CONTAINS(err, "no run 3");
  CHECK_CONTAINS(err, sl_store_path(s));
  free(buf);
  CHECK(sl_report_csv_results(NULL, 0, stdout, err, sizeof err) != 0);
  CHECK_CONTAINS(err, "store is NULL");
  CHECK(sl_report_csv_results(s, 0, NULL, err, sizeof err) != 0);
  CHECK_CONTAINS(err, "out is NULL");
  CHECK(sl_report_csv_results(s, -1, stdout, NULL, 0) != 0);
}

static void test_runs(sl_store *s) {
  char err[512], *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  CHECK(sl_report_runs(s, 0, f, err, sizeof err) == 0);
  fclose(f);
  if (!buf) return;
  CHECK_CONTAINS(buf, sl_store_path(s));
  CHECK_CONTAINS(buf, "scatterlab run --batch cases.txt");
  /* Parse the two run lines back: id kind date time status cases results
   * failed commit. Run 1: 2 cases, 5 results, failed + crashed = 2. */
  long long id, cases, results, failed;
  char kind[16], date[16], time[16], status[16], commit[16];
  const char *l1 = strstr(buf, "\n   1  ");
  const char *l2 = strstr(buf, "\n   2  ");
  CHECK(l1 && l2);
  if (l1 && l2) {
    CHECK(sscanf(l1, "%lld %15s %15s %15s %15s %lld %lld %lld %15s", &id, kind,
                 date, time, status, &cases, &results, &failed, commit) == 9);
    CHECK(id == 1 && strcmp(kind, "run") == 0);
    CHECK(strlen(date) == 10 && date[4] == '-' && strlen(time) == 8);
    CHECK(strcmp(status, "finished") == 0);
    CHECK(cases == 2 && results == 5 && failed == 2);
    CHECK(strcmp(commit, "0123456789ab") == 0);
    CHECK(sscanf(l2, "%lld %15s %15s %15s %15s %lld %lld %lld", &id, kind, date,
                 time, status, &cases, &results, &failed) == 8);
    CHECK(id == 2 && strcmp(kind, "fuzz") == 0);
    CHECK(strcmp(status, "running") == 0);
    CHECK(cases == 1 && results == 1 && failed == 0);
  }
  free(buf);
  /* --run 2 shows run 2 alone; --run 999 is an error naming it (the text
   * report used to ignore --run and list every run). */
  buf = NULL;
  f = open_memstream(&buf, &len);
  CHECK(sl_report_runs(s, 2, f, err, sizeof err) == 0);
  fclose(f);
  CHECK(buf && strstr(buf, "\n   2  ") && !strstr(buf, "\n   1  "));
  free(buf);
  CHECK(sl_report_runs(s, 999, stdout, err, sizeof err) != 0);
  CHECK_CONTAINS(err, ": no run 999");
  CHECK(sl_report_runs(NULL, 0, stdout, err, sizeof err) != 0);
  CHECK_CONTAINS(err, "store is NULL");
}

/* Exports one table into memory. */
static int export_table(int (*fn)(sl_store *, int64_t, FILE *, char *, size_t),
                        sl_store *s, int64_t run, char **buf, size_t *len) {
  char err[512];
  FILE *f = open_memstream(buf, len);
  if (!f) return -1;
  int rc = fn(s, run, f, err, sizeof err);
  fclose(f);
  if (rc) fprintf(stderr, "export: %s\n", err);
  return rc;
}

static void test_timings_csv(sl_store *s) {
  char *buf = NULL;
  size_t len = 0;
  CHECK(export_table(sl_report_csv_timings, s, 0, &buf, &len) == 0);
  if (!buf) return;
  /* Written by hand from fill_store's timing: pct_peak NULL is empty, the
   * samples in the order run, space-separated. */
  CHECK(strcmp(buf, "run_id,case_id,timing_id,op,variant,threads,cold,reps,"
                    "median_s,iqr_s,min_s,bytes,gbs,pct_peak,case_line,"
                    "samples\n"
                    "1,1,1,gather,cpu.omp,4,0,3,0.002,0.0001,0.0019,3000,1.5,,"
                    "gather x=4x3 index=2x3 dim=0,0.0021 0.002 0.0019\n") == 0);
  parsed p;
  CHECK(parse_csv(buf, len, &p) == 0 && p.nrows == 2 && p.ncols[1] == 16);
  free_parsed(&p);
  free(buf);
  buf = NULL;
  /* Run 2 has no timings: the header only. */
  CHECK(export_table(sl_report_csv_timings, s, 2, &buf, &len) == 0);
  CHECK(buf && strchr(buf, '\n') == buf + len - 1);
  free(buf);
}

static void test_coverage_csv(sl_store *s) {
  char *buf = NULL;
  size_t len = 0;
  CHECK(export_table(sl_report_csv_coverage, s, 0, &buf, &len) == 0);
  if (!buf) return;
  CHECK(strcmp(buf, "run_id,cell,cases,failures\n"
                    "2,\"scatter/f32/dup,\"\"odd\"\"\",10,1\n") == 0);
  parsed p;
  CHECK(parse_csv(buf, len, &p) == 0 && p.nrows == 2);
  if (p.nrows == 2) CHECK(strcmp(p.field[1][1], cell_quoted) == 0);
  free_parsed(&p);
  free(buf);
}

static void test_runs_csv(sl_store *s) {
  char *buf = NULL;
  size_t len = 0;
  CHECK(export_table(sl_report_csv_runs, s, 0, &buf, &len) == 0);
  if (!buf) return;
  parsed p;
  CHECK(parse_csv(buf, len, &p) == 0);
  CHECK_MSG(p.nrows == 3 && p.ncols[0] == 24 && p.ncols[1] == 24 &&
                p.ncols[2] == 24,
            "%d rows", p.nrows);
  /* In the order of first release (csv_tables.c): the columns added with
   * schemas 4 to 6 come after failed. */
  const char *names[24] = {"run_id",      "kind",
                           "started_at",  "finished_at",
                           "status",      "git_commit",
                           "host",        "cpu_model",
                           "cores",       "threads",
                           "compiler",    "flags",
                           "version",     "device",
                           "copy_gbs",    "command_line",
                           "cases",       "results",
                           "failed",      "copy_gbs_end",
                           "core_rtt_ns", "core_rtt_ns_end",
                           "reference",   "config"};
  for (int c = 0; c < 24 && p.ncols[0] == 24; ++c)
    CHECK_MSG(strcmp(p.field[0][c], names[c]) == 0, "column %d: %s", c,
              p.field[0][c]);
  if (p.nrows == 3 && p.ncols[1] == 24 && p.ncols[2] == 24) {
    char **r1 = p.field[1], **r2 = p.field[2];
    CHECK(strcmp(r1[0], "1") == 0 && strcmp(r1[1], "run") == 0);
    CHECK(strlen(r1[2]) == 24 && r1[2][10] == 'T' && r1[2][23] == 'Z');
    CHECK(strcmp(r1[4], "finished") == 0 && strlen(r1[3]) == 24);
    CHECK(strcmp(r1[5], "0123456789abcdef") == 0);
    CHECK(strcmp(r1[8], "") == 0 && strcmp(r1[9], "") == 0); /* unknown */
    CHECK(strcmp(r1[12], "0.1.0") == 0 && strcmp(r1[13], "") == 0);
    CHECK(strcmp(r1[14], "") == 0 && strcmp(r1[19], "") == 0);
    CHECK(strcmp(r1[20], "") == 0 && strcmp(r1[21], "") == 0);
    CHECK(strcmp(r1[15], "scatterlab run --batch cases.txt") == 0);
    CHECK(strcmp(r1[16], "2") == 0 && strcmp(r1[17], "5") == 0 &&
          strcmp(r1[18], "2") == 0);
    CHECK(strcmp(r2[1], "fuzz") == 0 && strcmp(r2[3], "") == 0 &&
          strcmp(r2[4], "running") == 0);
    CHECK(strcmp(r2[20], "87.5") == 0 && strcmp(r2[21], "") == 0);
    /* Run 1 recorded no reference (a store written before schema 6). */
    CHECK_MSG(strcmp(r1[22], "unknown") == 0, "%s", r1[22]);
    /* No config stored: empty (a fuzz run's options, --tolerance). */
    CHECK_MSG(strcmp(r1[23], "") == 0, "%s", r1[23]);
    CHECK_MSG(strcmp(r2[22], "LibTorch 2.11.0 (PyPI torch 2.11.0)") == 0, "%s",
              r2[22]);
  }
  free_parsed(&p);
  free(buf);
  buf = NULL;
  CHECK(export_table(sl_report_csv_runs, s, 2, &buf, &len) == 0);
  CHECK(parse_csv(buf, len, &p) == 0 && p.nrows == 2);
  if (p.nrows == 2) CHECK(strcmp(p.field[1][0], "2") == 0);
  free_parsed(&p);
  free(buf);
  char err[256];
  CHECK(sl_report_csv_runs(s, 7, stdout, err, sizeof err) != 0);
  CHECK_CONTAINS(err, "no run 7");
}

/* ------------------------------------------------------------------------ */
/* Import: reading case lines back                                           */
/* ------------------------------------------------------------------------ */

typedef struct got_lines {
  char *v[16];
  long rec[16];
  int n;
} got_lines;

static int collect(void *user, const char *line, long record) {
  got_lines *g = user;
  if (g->n < 16) {
    g->v[g->n] = strdup(line);
    g->rec[g->n] = record;
  }
  ++g->n;
  return 0;
}

static void free_lines(got_lines *g) {
  for (int i = 0; i < g->n && i < 16; ++i) free(g->v[i]);
  memset(g, 0, sizeof *g);
}

static int read_bytes(const char *text, size_t n, got_lines *g, char *err,
                      size_t len) {
  memset(g, 0, sizeof *g);
  FILE *f = fmemopen((void *)text, n, "r");
  if (!f) return -9;
  int rc = sl_report_csv_read_cases(f, "cases.csv", collect, g, err, len);
  fclose(f);
  return rc;
}

static int read_text(const char *text, got_lines *g, char *err, size_t len) {
  return read_bytes(text, strlen(text), g, err, len);
}

static void test_import(sl_store *s) {
  char err[512];
  got_lines g;
  /* A header names the column; quotes, commas and line breaks inside
   * fields; a comment, an empty value and a repeat are skipped. */
  const char *csv = "note,case_line\n"
                    "a,\"gather_nd x=4x3 index=2x2 dims=0,1 seed=9\"\n"
                    "\"b,\nc\",\"scatter dt=f32 x=2 index=1 val=\"\"2\"\"\"\n"
                    "d,\"line one\nline two\"\n"
                    "e,# a comment\n"
                    "f,\n"
                    "g,\"gather_nd x=4x3 index=2x2 dims=0,1 seed=9\"\n";
  CHECK_MSG(read_text(csv, &g, err, sizeof err) == 0, "%s", err);
  CHECK_MSG(g.n == 3, "%d lines", g.n);
  if (g.n == 3) {
    CHECK(strcmp(g.v[0], "gather_nd x=4x3 index=2x2 dims=0,1 seed=9") == 0);
    CHECK(strcmp(g.v[1], "scatter dt=f32 x=2 index=1 val=\"2\"") == 0);
    CHECK(strcmp(g.v[2], "line one\nline two") == 0);
    CHECK(g.rec[0] == 2 && g.rec[1] == 3 && g.rec[2] == 4);
  }
  free_lines(&g);
  /* No header: the first column of every record, the first record too. */
  CHECK(read_text("gather x=4 index=4,1\n\"scatter x=2, index=1\",2\n", &g, err,
                  sizeof err) == 0);
  CHECK(g.n == 2 && strcmp(g.v[0], "gather x=4 index=4") == 0 &&
        strcmp(g.v[1], "scatter x=2, index=1") == 0 && g.rec[0] == 1);
  free_lines(&g);
  /* A quote left open is an error that names the file and the record. */
  CHECK(read_text("case_line\n\"gather x=4\n", &g, err, sizeof err) == -1);
  CHECK_CONTAINS(err, "cases.csv: record 2");
  free_lines(&g);
  CHECK(read_text("case_line\ngather \"x\"=4\n", &g, err, sizeof err) == -1);
  free_lines(&g);
  /* A UTF-8 byte order mark before the header (as spreadsheets write). */
  CHECK(read_text("\xEF\xBB\xBF"
                  "case_line\ngather x=4 index=4\n",
                  &g, err, sizeof err) == 0);
  CHECK_MSG(g.n == 1 && strcmp(g.v[0], "gather x=4 index=4") == 0,
            "%d lines, first \"%s\"", g.n, g.n ? g.v[0] : "");
  free_lines(&g);
  /* A NUL inside a quoted field: refused, naming record and field (it used
   * to end the value, and the case ran with seed 0). */
  static const char nul[] = "note,case_line\n"
                            "a,\"gather x=4x3 index=2x3 dim=0\0 seed=5\"\n";
  CHECK(read_bytes(nul, sizeof nul - 1, &g, err, sizeof err) == -1);
  CHECK_CONTAINS(err, "cases.csv: record 2, field 2: a NUL byte");
  CHECK(g.n == 0);
  free_lines(&g);
  /* A field longer than a case line may be. */
  char *big = malloc(70000 + 32);
  if (big) {
    memcpy(big, "case_line\n\"", 11);
    memset(big + 11, 'x', 70000);
    memcpy(big + 11 + 70000, "\"\n", 3);
    CHECK(read_text(big, &g, err, sizeof err) == -1);
    CHECK_CONTAINS(err, "record 2, field 1: a field of more than 65,536");
    free_lines(&g);
    free(big);
  }

  /* Round trip: the results export reads back as its distinct case lines,
   * in order, however many variants each had. */
  char *buf = NULL;
  size_t len = 0;
  CHECK(export(s, 0, &buf, &len, err, sizeof err) == 0);
  if (buf) {
    CHECK(read_text(buf, &g, err, sizeof err) == 0);
    CHECK_MSG(g.n == 3, "%d lines", g.n);
    if (g.n == 3) {
      CHECK(strcmp(g.v[0], "gather x=4x3 index=2x3 dim=0") == 0);
      CHECK(strcmp(g.v[1], line_commas) == 0);
      CHECK(strcmp(g.v[2], "scatter x=2 index=1") == 0);
    }
    free_lines(&g);
  }
  free(buf);
}

static void test_empty(const char *path) {
  char err[512], *buf = NULL;
  size_t len = 0;
  sl_store *s = NULL;
  CHECK_MSG(sl_store_open(path, SL_STORE_READWRITE, &s, err, sizeof err) == 0,
            "%s", err);
  if (!s) return;
  FILE *f = open_memstream(&buf, &len);
  CHECK(sl_report_runs(s, 0, f, err, sizeof err) == 0);
  fclose(f);
  CHECK(buf && strstr(buf, "(no runs yet)"));
  free(buf);
  buf = NULL;
  CHECK(export(s, 0, &buf, &len, err, sizeof err) == 0);
  CHECK(buf && strlen(buf) == strlen(header) + 1);
  free(buf);
  sl_store_close(s);
}

int main(void) {
  const char *base = getenv("TMPDIR");
  char dir[256];
  snprintf(dir, sizeof dir, "%s/sl_report_XXXXXX",
           base && *base ? base : "/tmp");
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 1;
  }
  char path[300], empty[300], err[512];
  snprintf(path, sizeof path, "%s/r.db", dir);
  snprintf(empty, sizeof empty, "%s/empty.db", dir);
  sl_store *s = NULL;
  CHECK_MSG(sl_store_open(path, SL_STORE_READWRITE, &s, err, sizeof err) == 0,
            "%s", err);
  CHECK(s && fill_store(s) == 0);
  sl_store_close(s);
  /* Reports read through a read-only handle, as `scatterlab report` does. */
  s = NULL;
  CHECK_MSG(sl_store_open(path, SL_STORE_READONLY, &s, err, sizeof err) == 0,
            "%s", err);
  if (s) {
    test_csv(s);
    test_runs(s);
    test_timings_csv(s);
    test_coverage_csv(s);
    test_runs_csv(s);
    test_import(s);
    sl_store_close(s);
  }
  test_empty(empty);
  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
  return sl_test_finish("test_report_csv");
}
