/*
 * The results store: round trips of every row type, the constraints of the
 * schema, transactions, reopening, schema versions, read-only mode, files
 * that are not stores, and bad arguments (test_store_upgrades.c: providers,
 * upgrades, failure groups, merging, concurrent writers). Expected values
 * are the ones the test itself wrote, counted by hand.
 */
#include <math.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "raw_sql.h"
#include "sl_store.h"
#include "sl_test.h"
#include "store_fixture.h"

static int file_exists(const char *p) {
  struct stat sb;
  return stat(p, &sb) == 0;
}

/* ------------------------------------------------------------------------ */
/* Collectors for the walks                                                  */
/* ------------------------------------------------------------------------ */

typedef struct runs_seen {
  int n;
  int64_t id[8], ncases[8], nresults[8], nfailed[8];
  char kind[8][16], status[8][16], started[8][40];
  int finished_set[8], device_set[8], cores[8], threads[8];
  double copy_gbs[8], copy_gbs_end[8], rtt[8], rtt_end[8];
  char reference[8][64];
} runs_seen;

static int collect_run(void *u, const sl_run_view *r) {
  runs_seen *rs = u;
  if (rs->n >= 8) return 1;
  int i = rs->n++;
  rs->id[i] = r->id;
  rs->ncases[i] = r->ncases;
  rs->nresults[i] = r->nresults;
  rs->nfailed[i] = r->nfailed;
  snprintf(rs->kind[i], sizeof rs->kind[i], "%s", r->kind);
  snprintf(rs->status[i], sizeof rs->status[i], "%s", r->status);
  snprintf(rs->started[i], sizeof rs->started[i], "%s", r->started_at);
  rs->finished_set[i] = r->finished_at != NULL;
  rs->device_set[i] = r->device != NULL;
  rs->cores[i] = r->cores;
  rs->threads[i] = r->threads;
  rs->copy_gbs[i] = r->copy_gbs;
  rs->copy_gbs_end[i] = r->copy_gbs_end;
  rs->rtt[i] = r->core_rtt_ns;
  rs->rtt_end[i] = r->core_rtt_ns_end;
  snprintf(rs->reference[i], sizeof rs->reference[i], "%s", r->reference);
  return 0;
}

typedef struct results_seen {
  int n;
  int64_t run_id[16], case_id[16];
  char variant[16][32], verdict[16][32], message[16][64], op[16][32];
  uint64_t seed[16];
  int has_diffs[16];
  double diff1[16], diff2[16], diff3[16], seconds[16];
  int stop_after; /* 0: never */
} results_seen;

static int collect_result(void *u, const sl_result_view *r) {
  results_seen *rs = u;
  if (rs->n >= 16) return 1;
  int i = rs->n++;
  rs->run_id[i] = r->run_id;
  rs->case_id[i] = r->case_id;
  snprintf(rs->variant[i], sizeof rs->variant[i], "%s", r->variant);
  snprintf(rs->verdict[i], sizeof rs->verdict[i], "%s", r->verdict);
  snprintf(rs->message[i], sizeof rs->message[i], "%s", r->message);
  snprintf(rs->op[i], sizeof rs->op[i], "%s", r->op);
  rs->seed[i] = r->seed;
  rs->has_diffs[i] = r->has_diffs;
  rs->diff1[i] = r->diff1;
  rs->diff2[i] = r->diff2;
  rs->diff3[i] = r->diff3;
  rs->seconds[i] = r->seconds;
  return rs->stop_after && rs->n == rs->stop_after ? 7 : 0;
}

static int count_result(void *u, const sl_result_view *r) {
  (void)r;
  ++*(int *)u;
  return 0;
}

typedef struct timings_seen {
  int n;
  char variant[4][32];
  int threads[4], reps[4], cold[4], nsamples[4];
  double median[4], iqr[4], min[4], gbs[4], pct[4], samples[4][8];
  int64_t bytes[4];
} timings_seen;

static int collect_timing(void *u, const sl_timing_view *t) {
  timings_seen *ts = u;
  if (ts->n >= 4) return 1;
  int i = ts->n++;
  snprintf(ts->variant[i], sizeof ts->variant[i], "%s", t->variant);
  ts->threads[i] = t->threads;
  ts->reps[i] = t->reps;
  ts->cold[i] = t->cold;
  ts->median[i] = t->median_s;
  ts->iqr[i] = t->iqr_s;
  ts->min[i] = t->min_s;
  ts->gbs[i] = t->gbs;
  ts->pct[i] = t->pct_peak;
  ts->bytes[i] = t->bytes;
  ts->nsamples[i] = t->nsamples;
  for (int k = 0; k < t->nsamples && k < 8; ++k)
    ts->samples[i][k] = t->samples[k];
  return 0;
}

typedef struct cov_seen {
  int n;
  char cell[4][32];
  int64_t cases[4], failures[4];
} cov_seen;

static int collect_cov(void *u, const sl_coverage_view *c) {
  cov_seen *cs = u;
  if (cs->n >= 4) return 1;
  int i = cs->n++;
  snprintf(cs->cell[i], sizeof cs->cell[i], "%s", c->cell);
  cs->cases[i] = c->cases;
  cs->failures[i] = c->failures;
  return 0;
}

/* Re-entering a walk from its own callback must be refused, not corrupt it. */

static int reenter_cb(void *u, const sl_result_view *r) {
  (void)r;
  reenter *re = u;
  int dummy = 0;
  re->inner_rc = sl_store_each_result(re->s, 0, count_result, &dummy);
  snprintf(re->msg, sizeof re->msg, "%s", sl_store_errmsg(re->s));
  return 1;
}

static int count_results(sl_store *s, int64_t run) {
  int n = 0;
  if (sl_store_each_result(s, run, count_result, &n)) return -1;
  return n;
}

/* ------------------------------------------------------------------------ */
/* The tests                                                                 */
/* ------------------------------------------------------------------------ */

static void test_round_trip(const char *db) {
  char err[512];
  sl_store *s = NULL;
  /* The parent folder "results/" does not exist yet: open creates it. */
  CHECK_MSG(sl_store_open(db, SL_STORE_READWRITE, &s, err, sizeof err) == 0,
            "%s", err);
  if (!s) return;
  CHECK(strcmp(sl_store_path(s), db) == 0);
  CHECK(strcmp(sl_store_errmsg(s), "") == 0);
  CHECK(sl_store_schema_version() == 13);
  CHECK(sl_store_last_run(s) == 0);

  sl_run_info ri = test_info("run");
  int64_t run = 0, run2 = 0;
  CHECK(sl_store_run_begin(s, &ri, &run) == 0);
  CHECK(run == 1);
  CHECK(sl_store_begin(s) == 0);

  /* Case 1: two variants inserted out of name order. */
  int64_t c1 = 0, c2 = 0;
  const uint64_t big_seed = UINT64_C(0xfedcba9876543210);
  CHECK(sl_store_add_case(s, run, "gather", "gather x=4x3 index=2x3 dim=0",
                          big_seed, 0, &c1) == 0);
  sl_result_row serial = {"cpu.serial", "passed", NULL, 1,
                          0.0,          1e-300,   2.5,  0.125};
  sl_result_row omp = {
      "cpu.omp", "failed", "out[1,2]=3 expected 4", 1, 0.25, 0.5, 1.0, -1};
  CHECK_MSG(sl_store_add_result(s, c1, &serial) == 0, "%s", sl_store_errmsg(s));
  CHECK_MSG(sl_store_add_result(s, c1, &omp) == 0, "%s", sl_store_errmsg(s));
  /* Case 2: shrunk from case 1, one result without diffs. */
  CHECK(sl_store_add_case(s, run, "scatter", "scatter x=2 index=1 src=1", 7, c1,
                          &c2) == 0);
  sl_result_row crash = {"cpu.atomic", "crashed", "signal 11", 0, 9, 9, 9, 0.5};
  CHECK(sl_store_add_result(s, c2, &crash) == 0);

  /* A timing with samples, and one without pct_peak. */
  double samples[5] = {3e-3, 1e-3, 2e-3, 5e-3, 4e-3};
  sl_timing_row t1 = {"cpu.serial", 4,   5,    0,    3e-3,    2e-3,
                      1e-3,         1.5, 37.5, 4096, samples, 5};
  sl_timing_row t2 = {"cpu.serial", 4,   0,  1,    2e-3, 0,
                      2e-3,         2.0, -1, 4096, NULL, 0};
  int64_t tid1 = 0, tid2 = 0;
  CHECK_MSG(sl_store_add_timing(s, c1, &t1, &tid1) == 0, "%s",
            sl_store_errmsg(s));
  CHECK(sl_store_add_timing(s, c1, &t2, &tid2) == 0);
  CHECK(tid1 > 0 && tid2 > tid1);
  /* With hardware counts (schema 10): a count that read nothing is NULL, a
   * zero is a zero. */
  const sl_timing_counts counts = {1234.5, -1, 0};
  int64_t tid3 = 0;
  sl_timing_row t3 = t2;
  t3.variant = "cpu.omp";
  CHECK_MSG(sl_store_add_timing_counted(s, c2, &t3, &counts, &tid3) == 0, "%s",
            sl_store_errmsg(s));
  CHECK(tid3 > tid2);
  /* Coverage adds up across calls (parallel fuzz jobs). */
  CHECK(sl_store_add_coverage(s, run, "gather/f32/dup", 10, 1) == 0);
  CHECK(sl_store_add_coverage(s, run, "gather/f32/dup", 5, 2) == 0);
  CHECK(sl_store_add_coverage(s, run, "scatter/i32/unique", 3, 0) == 0);
  CHECK_MSG(sl_store_commit(s) == 0, "%s", sl_store_errmsg(s));
  CHECK(sl_store_run_finish(s, run, "finished") == 0);
  CHECK(sl_store_set_copy_gbs(s, run, 12.5) == 0);
  CHECK(sl_store_set_copy_gbs_end(s, run, 11.25) == 0);
  CHECK(sl_store_set_core_rtt_end(s, run, 360.5) == 0);

  /* A second run, with a device and no cores, left running. */
  ri = test_info("bench");
  ri.device = "NVIDIA H100";
  ri.cores = 0;
  ri.copy_gbs = 3.0;
  ri.core_rtt_ns = 87.25;
  ri.reference = "LibTorch 2.11.0 (PyPI torch 2.11.0)";
  CHECK(sl_store_run_begin(s, &ri, &run2) == 0);
  CHECK(run2 == 2);
  CHECK(sl_store_last_run(s) == 2);
  CHECK(sl_store_has_run(s, 2) == 1);
  CHECK(sl_store_has_run(s, 3) == 0);

  runs_seen rs;
  memset(&rs, 0, sizeof rs);
  CHECK(sl_store_each_run(s, collect_run, &rs) == 0);
  CHECK(rs.n == 2);
  CHECK(rs.id[0] == 1 && rs.id[1] == 2);
  CHECK(strcmp(rs.kind[0], "run") == 0 && strcmp(rs.kind[1], "bench") == 0);
  CHECK(strcmp(rs.status[0], "finished") == 0);
  CHECK(strcmp(rs.status[1], "running") == 0);
  CHECK(rs.finished_set[0] == 1 && rs.finished_set[1] == 0);
  CHECK(rs.device_set[0] == 0 && rs.device_set[1] == 1);
  /* ISO-8601 UTC: 2024-05-01T12:00:00.000Z */
  CHECK_MSG(strlen(rs.started[0]) == 24 && rs.started[0][10] == 'T' &&
                rs.started[0][23] == 'Z',
            "started_at \"%s\"", rs.started[0]);
  /* Case 2 is a shrunk copy of case 1: neither it nor its verdicts are
   * counted again (schema 9; before, a campaign's report counted every
   * failure twice). */
  CHECK(rs.ncases[0] == 1 && rs.nresults[0] == 2);
  CHECK(rs.nfailed[0] == 1); /* case 1's failed; not the copy's crashed */
  CHECK(rs.ncases[1] == 0 && rs.nresults[1] == 0 && rs.nfailed[1] == 0);
  CHECK(rs.cores[0] == 8 && rs.cores[1] == 0 && rs.threads[0] == 4);
  CHECK(rs.copy_gbs[0] == 12.5 && rs.copy_gbs[1] == 3.0);
  CHECK(rs.copy_gbs_end[0] == 11.25 && rs.copy_gbs_end[1] == 0); /* NULL */
  /* The round trip: run 1's start was not probed, run 2's end not yet. */
  CHECK(rs.rtt[0] == 0 && rs.rtt_end[0] == 360.5);
  CHECK(rs.rtt[1] == 87.25 && rs.rtt_end[1] == 0);
  /* The reference: run 1 recorded none (NULL), run 2 its LibTorch. */
  CHECK_MSG(strcmp(rs.reference[0], "unknown") == 0, "%s", rs.reference[0]);
  CHECK_MSG(strcmp(rs.reference[1], "LibTorch 2.11.0 (PyPI torch 2.11.0)") == 0,
            "%s", rs.reference[1]);
  CHECK(raw_int(db, "SELECT count(*) FROM runs WHERE reference IS NULL") == 1);
  sl_run_brief brief;
  CHECK(sl_store_get_run(s, run, &brief) == 0 && brief.copy_gbs == 12.5 &&
        brief.copy_gbs_end == 11.25 && brief.core_rtt_ns == 0 &&
        brief.core_rtt_ns_end == 360.5);
  CHECK_MSG(strcmp(brief.git_commit, "abc123") == 0, "%s", brief.git_commit);
  CHECK(strcmp(brief.reference, "unknown") == 0);
  CHECK(sl_store_get_run(s, run2, &brief) == 0 && brief.core_rtt_ns == 87.25 &&
        brief.core_rtt_ns_end == 0);
  CHECK_MSG(strcmp(brief.reference, "LibTorch 2.11.0 (PyPI torch 2.11.0)") == 0,
            "%s", brief.reference);

  results_seen res;
  memset(&res, 0, sizeof res);
  CHECK(sl_store_each_result(s, run, collect_result, &res) == 0);
  CHECK(res.n == 3);
  /* Ordered by case, then variant: cpu.omp before cpu.serial. */
  CHECK(strcmp(res.variant[0], "cpu.omp") == 0);
  CHECK(strcmp(res.variant[1], "cpu.serial") == 0);
  CHECK(strcmp(res.variant[2], "cpu.atomic") == 0);
  CHECK(res.case_id[0] == c1 && res.case_id[2] == c2 && res.run_id[2] == run);
  CHECK(res.seed[0] == big_seed && res.seed[2] == 7);
  CHECK(strcmp(res.op[0], "gather") == 0 && strcmp(res.op[2], "scatter") == 0);
  CHECK(strcmp(res.verdict[0], "failed") == 0);
  CHECK(strcmp(res.message[0], "out[1,2]=3 expected 4") == 0);
  CHECK(strcmp(res.message[1], "") == 0); /* NULL message is stored as '' */
  CHECK(res.has_diffs[0] && res.diff1[0] == 0.25 && res.diff2[0] == 0.5 &&
        res.diff3[0] == 1.0);
  CHECK(res.diff2[1] == 1e-300 && res.diff3[1] == 2.5);
  CHECK(res.seconds[0] < 0); /* -1 in: NULL */
  CHECK(res.seconds[1] == 0.125);
  CHECK(!res.has_diffs[2] && isnan(res.diff1[2]));
  CHECK(raw_int(db, "SELECT shrunk_from FROM cases WHERE id = 2") == c1);
  CHECK(raw_int(db, "SELECT count(*) FROM cases WHERE shrunk_from IS NULL") ==
        1);

  /* Stopping early returns the callback's value. */
  memset(&res, 0, sizeof res);
  res.stop_after = 1;
  CHECK(sl_store_each_result(s, 0, collect_result, &res) == 7);
  CHECK(res.n == 1);
  /* The statement was reset: a new walk starts from the top. */
  CHECK(count_results(s, 0) == 3);
  reenter re = {s, 0, ""};
  CHECK(sl_store_each_result(s, 0, reenter_cb, &re) == 1);
  CHECK(re.inner_rc != 0);
  CHECK_CONTAINS(re.msg, "called again from its own callback");

  timings_seen ts;
  memset(&ts, 0, sizeof ts);
  CHECK(sl_store_each_timing(s, run, collect_timing, &ts) == 0);
  CHECK(ts.n == 3); /* t1, t2 and the counted one, last */
  CHECK(ts.cold[0] == 0 && ts.cold[1] == 1);
  CHECK(ts.threads[0] == 4 && ts.reps[0] == 5 && ts.bytes[0] == 4096);
  CHECK(ts.median[0] == 3e-3 && ts.iqr[0] == 2e-3 && ts.min[0] == 1e-3);
  CHECK(ts.gbs[0] == 1.5 && ts.pct[0] == 37.5 && ts.pct[1] < 0);
  CHECK(ts.nsamples[0] == 5 && ts.nsamples[1] == 0);
  for (int k = 0; k < 5; ++k) CHECK(ts.samples[0][k] == samples[k]);
  CHECK(raw_int(db, "SELECT count(*) FROM samples") == 5);

  cov_seen cs;
  memset(&cs, 0, sizeof cs);
  CHECK(sl_store_each_coverage(s, run, collect_cov, &cs) == 0);
  CHECK(cs.n == 2);
  CHECK(strcmp(cs.cell[0], "gather/f32/dup") == 0);
  CHECK(cs.cases[0] == 15 && cs.failures[0] == 3);
  CHECK(cs.cases[1] == 3 && cs.failures[1] == 0);

  CHECK_MSG(sl_store_check(s) == 0, "%s", sl_store_errmsg(s));
  sl_store_close(s);

  /* The file as SQLite sees it. */
  char mode[32];
  raw_text(db, "PRAGMA journal_mode", mode, sizeof mode);
  CHECK_MSG(strcmp(mode, "wal") == 0, "journal_mode %s", mode);
  CHECK(raw_int(db, "PRAGMA user_version") == 13);
  CHECK(raw_int(db, "SELECT count(*) FROM timings WHERE instructions = 1234.5"
                    " AND cycles IS NULL AND cache_misses = 0") == 1);
  CHECK(raw_int(db, "SELECT count(*) FROM timings WHERE instructions IS NULL"
                    " AND cycles IS NULL AND cache_misses IS NULL") == 2);
  CHECK(raw_int(db, "PRAGMA application_id") == 0x534C4142);
  char ok[64];
  raw_text(db, "PRAGMA integrity_check", ok, sizeof ok);
  CHECK_MSG(strcmp(ok, "ok") == 0, "integrity_check: %s", ok);
  /* Every table is STRICT. */
  CHECK(raw_int(db, "SELECT count(*) FROM pragma_table_list WHERE schema = "
                    "'main' AND name NOT LIKE 'sqlite_%' AND strict = 0") == 0);
  CHECK(raw_int(db, "SELECT count(*) FROM pragma_table_list WHERE schema = "
                    "'main' AND name NOT LIKE 'sqlite_%'") ==
        10); /* 6 of v1, fuzz_cursors of v2, run_providers of v7, tallies of
                v8, failure_groups of v12 */
}

static void test_constraints(const char *db) {
  char err[512];
  sl_store *s = NULL;
  CHECK_MSG(sl_store_open(db, SL_STORE_READWRITE, &s, err, sizeof err) == 0,
            "%s", err);
  if (!s) return;
  int64_t run = sl_store_last_run(s), c = 0;
  CHECK(run == 2);
  CHECK(sl_store_add_case(s, run, "gather", "gather x=4 index=4", 1, 0, &c) ==
        0);

  /* CHECK on the verdict. */
  sl_result_row bad = {"cpu.serial", "bogus", "", 0, 0, 0, 0, -1};
  CHECK(sl_store_add_result(s, c, &bad) != 0);
  const char *m = sl_store_errmsg(s);
  CHECK_CONTAINS(m, db);
  CHECK_CONTAINS(m, "add_result");
  CHECK_CONTAINS(m, "verdict bogus");
  CHECK_CONTAINS(m, "CHECK constraint failed");

  /* UNIQUE (case_id, variant). */
  sl_result_row good = {"cpu.serial", "passed", "", 0, 0, 0, 0, -1};
  CHECK(sl_store_add_result(s, c, &good) == 0);
  CHECK(sl_store_add_result(s, c, &good) != 0);
  CHECK_CONTAINS(sl_store_errmsg(s), "UNIQUE constraint failed");
  good.variant = "cpu.omp";
  CHECK(sl_store_add_result(s, c, &good) == 0);

  /* CHECK on kind and status; a run that does not exist. */
  sl_run_info ri = test_info("picnic");
  int64_t r = 0;
  CHECK(sl_store_run_begin(s, &ri, &r) != 0);
  CHECK_CONTAINS(sl_store_errmsg(s), "run_begin");
  CHECK_CONTAINS(sl_store_errmsg(s), "CHECK constraint failed");
  CHECK(sl_store_run_finish(s, run, "done-ish") != 0);
  CHECK_CONTAINS(sl_store_errmsg(s), "CHECK constraint failed");
  CHECK(sl_store_run_finish(s, 999, "finished") != 0);
  CHECK_CONTAINS(sl_store_errmsg(s), "run_finish: no run 999");
  CHECK(sl_store_set_copy_gbs(s, 999, 1.0) != 0);
  CHECK_CONTAINS(sl_store_errmsg(s), "no run 999");
  CHECK(sl_store_set_core_rtt_end(s, 999, 1.0) != 0);
  CHECK_CONTAINS(sl_store_errmsg(s), "set_core_rtt_end: no run 999");

  /* Foreign keys are enforced. */
  CHECK(sl_store_add_case(s, 999, "gather", "x", 1, 0, &c) != 0);
  CHECK_CONTAINS(sl_store_errmsg(s), "FOREIGN KEY constraint failed");
  CHECK(sl_store_add_result(s, 99999, &good) != 0);
  CHECK_CONTAINS(sl_store_errmsg(s), "FOREIGN KEY constraint failed");

  /* cold must be 0 or 1; a NaN sample fails the whole timing, and the
   * summary row it had already written goes with it. */
  double samples[2] = {1e-3, NAN};
  sl_timing_row t = {"cpu.serial", 1, 2,  2, 1e-3,    0,
                     1e-3,         1, -1, 8, samples, 1};
  CHECK(sl_store_add_timing(s, c, &t, NULL) != 0);
  CHECK_CONTAINS(sl_store_errmsg(s), "CHECK constraint failed");
  t.cold = 0;
  t.nsamples = 2;
  int64_t before = raw_int(db, "SELECT count(*) FROM timings");
  CHECK(sl_store_add_timing(s, c, &t, NULL) != 0);
  CHECK_CONTAINS(sl_store_errmsg(s), "NOT NULL constraint failed: "
                                     "samples.seconds");
  CHECK(raw_int(db, "SELECT count(*) FROM timings") == before);
  t.nsamples = 3;
  t.samples = NULL;
  CHECK(sl_store_add_timing(s, c, &t, NULL) != 0);
  CHECK_CONTAINS(sl_store_errmsg(s), "nsamples is 3 with samples NULL");

  /* A rolled-back transaction leaves nothing behind. */
  int n0 = count_results(s, 0);
  long long cases0 = raw_int(db, "SELECT count(*) FROM cases");
  CHECK(sl_store_begin(s) == 0);
  CHECK(sl_store_add_case(s, run, "gather", "gather x=9 index=9", 2, 0, &c) ==
        0);
  CHECK(sl_store_add_result(s, c, &good) == 0);
  CHECK(sl_store_add_coverage(s, run, "rolled/back", 1, 1) == 0);
  CHECK(count_results(s, 0) == n0 + 1); /* visible inside the transaction */
  CHECK(sl_store_rollback(s) == 0);
  CHECK(count_results(s, 0) == n0);
  CHECK(raw_int(db, "SELECT count(*) FROM cases") == cases0);
  CHECK(raw_int(db, "SELECT count(*) FROM coverage WHERE cell = "
                    "'rolled/back'") == 0);
  /* Transactions do not nest; COMMIT without BEGIN is an error. */
  CHECK(sl_store_begin(s) == 0);
  CHECK(sl_store_begin(s) != 0);
  CHECK_CONTAINS(sl_store_errmsg(s), "begin");
  CHECK(sl_store_commit(s) == 0);
  CHECK(sl_store_commit(s) != 0);
  CHECK_CONTAINS(sl_store_errmsg(s), "commit");

  /* Closing with an open transaction rolls it back. */
  CHECK(sl_store_begin(s) == 0);
  CHECK(sl_store_add_case(s, run, "gather", "lost", 3, 0, NULL) == 0);
  sl_store_close(s);
  CHECK(raw_int(db, "SELECT count(*) FROM cases WHERE case_line = 'lost'") ==
        0);
}

static void test_reopen_and_readonly(const char *db) {
  char err[512];
  sl_store *s = NULL;
  /* Reopening an existing store keeps its data. */
  CHECK_MSG(sl_store_open(db, SL_STORE_READWRITE, &s, err, sizeof err) == 0,
            "%s", err);
  CHECK(sl_store_last_run(s) == 2);
  CHECK(count_results(s, 1) == 3);
  sl_store_close(s);

  s = NULL;
  CHECK_MSG(sl_store_open(db, SL_STORE_READONLY, &s, err, sizeof err) == 0,
            "%s", err);
  if (!s) return;
  CHECK(count_results(s, 1) == 3);
  CHECK(count_results(s, 2) == 2);
  runs_seen rs;
  memset(&rs, 0, sizeof rs);
  CHECK(sl_store_each_run(s, collect_run, &rs) == 0 && rs.n == 2);
  int64_t c;
  CHECK(sl_store_add_case(s, 1, "gather", "x", 1, 0, &c) != 0);
  CHECK_CONTAINS(sl_store_errmsg(s), db);
  CHECK_CONTAINS(sl_store_errmsg(s), "add_case: the store is open read-only");
  sl_run_info ri = test_info("run");
  CHECK(sl_store_run_begin(s, &ri, &c) != 0);
  CHECK_CONTAINS(sl_store_errmsg(s), "read-only");
  sl_result_row row = {"cpu.x", "passed", "", 0, 0, 0, 0, -1};
  CHECK(sl_store_add_result(s, 1, &row) != 0);
  CHECK(sl_store_run_finish(s, 1, "failed") != 0);
  CHECK(sl_store_add_coverage(s, 1, "x", 1, 0) != 0);
  CHECK(sl_store_set_copy_gbs(s, 1, 2.0) != 0);
  CHECK_CONTAINS(sl_store_errmsg(s), "set_copy_gbs: the store is open "
                                     "read-only");
  CHECK(sl_store_set_copy_gbs_end(s, 1, 2.0) != 0);
  CHECK_CONTAINS(sl_store_errmsg(s), "set_copy_gbs_end: the store is open "
                                     "read-only");
  CHECK(sl_store_set_core_rtt_end(s, 1, 2.0) != 0);
  CHECK_CONTAINS(sl_store_errmsg(s), "set_core_rtt_end: the store is open "
                                     "read-only");
  sl_timing_row t = {"cpu.x", 1, 0, 0, 1, 0, 1, 1, -1, 8, NULL, 0};
  CHECK(sl_store_add_timing(s, 1, &t, NULL) != 0);
  CHECK_CONTAINS(sl_store_errmsg(s), "add_timing: the store is open "
                                     "read-only");
  /* begin on a read-only handle is a read snapshot. */
  CHECK(sl_store_begin(s) == 0);
  CHECK(count_results(s, 0) == 5);
  CHECK(sl_store_commit(s) == 0);
  CHECK_MSG(sl_store_check(s) == 0, "%s", sl_store_errmsg(s));
  sl_store_close(s);
  CHECK(raw_int(db, "SELECT count(*) FROM runs") == 2);

  /* Read-only never creates a file. */
  char missing[300];
  path_in(missing, sizeof missing, "nowhere/none.db");
  s = NULL;
  CHECK(sl_store_open(missing, SL_STORE_READONLY, &s, err, sizeof err) != 0);
  CHECK(s == NULL);
  CHECK_CONTAINS(err, missing);
  CHECK(!file_exists(missing));
}

static void test_versions_and_foreign_files(const char *db) {
  char err[512], p[300];
  sl_store *s = NULL;

  /* A store from a newer scatterlab. */
  path_in(p, sizeof p, "newer.db");
  CHECK(sl_store_open(p, SL_STORE_READWRITE, &s, err, sizeof err) == 0);
  sl_store_close(s);
  CHECK(raw_exec(p, "PRAGMA user_version = 99") == SQLITE_OK);
  s = NULL;
  CHECK(sl_store_open(p, SL_STORE_READWRITE, &s, err, sizeof err) != 0);
  CHECK(s == NULL);
  char want[400];
  snprintf(want, sizeof want,
           "%s: schema version 99 is newer than this scatterlab (knows 13); "
           "upgrade scatterlab",
           p);
  CHECK_MSG(strcmp(err, want) == 0, "got \"%s\"", err);
  CHECK(sl_store_open(p, SL_STORE_READONLY, &s, err, sizeof err) != 0);
  CHECK_MSG(strcmp(err, want) == 0, "got \"%s\"", err);
  CHECK(raw_int(p, "PRAGMA user_version") == 99); /* left alone */

  /* A text file. */
  path_in(p, sizeof p, "notes.txt");
  FILE *f = fopen(p, "w");
  CHECK(f != NULL);
  if (f) {
    fputs("this is not a database, just some notes that are long enough "
          "to fill a SQLite header of one hundred bytes or so...........\n",
          f);
    fclose(f);
  }
  CHECK(sl_store_open(p, SL_STORE_READWRITE, &s, err, sizeof err) != 0);
  CHECK_CONTAINS(err, p);
  CHECK_CONTAINS(err, "not a SQLite database");
  CHECK(sl_store_open(p, SL_STORE_READONLY, &s, err, sizeof err) != 0);
  CHECK_CONTAINS(err, "not a SQLite database");

  /* Somebody else's SQLite database is refused and left unchanged. */
  path_in(p, sizeof p, "other.db");
  CHECK(raw_exec(p, "CREATE TABLE t (x); INSERT INTO t VALUES (1)") ==
        SQLITE_OK);
  CHECK(sl_store_open(p, SL_STORE_READWRITE, &s, err, sizeof err) != 0);
  CHECK_CONTAINS(err, p);
  CHECK_CONTAINS(err, "not a scatterlab results database");
  char mode[32];
  raw_text(p, "PRAGMA journal_mode", mode, sizeof mode);
  CHECK_MSG(strcmp(mode, "delete") == 0, "journal_mode %s", mode);
  CHECK(raw_int(p, "SELECT count(*) FROM sqlite_master") == 1);

  /* An empty SQLite file (version 0) is upgraded read-write and refused
   * read-only. */
  path_in(p, sizeof p, "empty.db");
  f = fopen(p, "w"); /* zero bytes: a valid, empty SQLite database */
  CHECK(f != NULL);
  if (f) fclose(f);
  CHECK(sl_store_open(p, SL_STORE_READONLY, &s, err, sizeof err) != 0);
  CHECK_CONTAINS(err, "empty database");
  s = NULL;
  CHECK_MSG(sl_store_open(p, SL_STORE_READWRITE, &s, err, sizeof err) == 0,
            "%s", err);
  sl_store_close(s);
  CHECK(raw_int(p, "PRAGMA user_version") == 13);

  /* The parent folder must be a folder. */
  char q[300];
  path_in(q, sizeof q, "notes.txt/x.db");
  CHECK(sl_store_open(q, SL_STORE_READWRITE, &s, err, sizeof err) != 0);
  CHECK_CONTAINS(err, "is not a folder");
  (void)db;
}

static void test_bad_arguments(void) {
  char err[256];
  sl_store *s = (sl_store *)&err; /* must be reset to NULL on failure */
  CHECK(sl_store_open(NULL, SL_STORE_READWRITE, &s, err, sizeof err) != 0);
  CHECK(s == NULL);
  CHECK_CONTAINS(err, "path");
  CHECK(sl_store_open("", SL_STORE_READWRITE, &s, err, sizeof err) != 0);
  CHECK(sl_store_open("x.db", SL_STORE_READWRITE, NULL, err, sizeof err) != 0);
  CHECK_CONTAINS(err, "out");
  CHECK(sl_store_open(NULL, SL_STORE_READONLY, &s, NULL, 0) != 0);

  sl_run_info ri = test_info("run");
  sl_result_row row = {"cpu.serial", "passed", "", 0, 0, 0, 0, -1};
  sl_timing_row t = {"cpu.serial", 1, 0, 0, 1, 0, 1, 1, -1, 0, NULL, 0};
  int64_t id;
  CHECK(sl_store_run_begin(NULL, &ri, &id) != 0);
  CHECK(sl_store_run_finish(NULL, 1, "finished") != 0);
  CHECK(sl_store_set_copy_gbs(NULL, 1, 1.0) != 0);
  CHECK(sl_store_set_copy_gbs_end(NULL, 1, 1.0) != 0);
  CHECK(sl_store_set_core_rtt_end(NULL, 1, 1.0) != 0);
  CHECK(sl_store_begin(NULL) != 0);
  CHECK(sl_store_commit(NULL) != 0);
  CHECK(sl_store_rollback(NULL) != 0);
  CHECK(sl_store_add_case(NULL, 1, "gather", "x", 1, 0, &id) != 0);
  CHECK(sl_store_add_result(NULL, 1, &row) != 0);
  CHECK(sl_store_add_timing(NULL, 1, &t, &id) != 0);
  CHECK(sl_store_add_coverage(NULL, 1, "x", 1, 1) != 0);
  CHECK(sl_store_each_run(NULL, collect_run, NULL) != 0);
  CHECK(sl_store_each_result(NULL, 0, collect_result, NULL) != 0);
  CHECK(sl_store_each_timing(NULL, 0, collect_timing, NULL) != 0);
  CHECK(sl_store_each_coverage(NULL, 0, collect_cov, NULL) != 0);
  CHECK(sl_store_last_run(NULL) < 0);
  CHECK(sl_store_has_run(NULL, 1) < 0);
  CHECK(sl_store_check(NULL) != 0);
  CHECK(strlen(sl_store_errmsg(NULL)) > 0);
  CHECK(strcmp(sl_store_path(NULL), "") == 0);
  sl_store_close(NULL);

  /* NULL fields on a real handle. */
  char p[300];
  path_in(p, sizeof p, "args.db");
  s = NULL;
  CHECK(sl_store_open(p, SL_STORE_READWRITE, &s, err, sizeof err) == 0);
  if (!s) return;
  CHECK(sl_store_run_begin(s, NULL, &id) != 0);
  CHECK_CONTAINS(sl_store_errmsg(s), "run_begin: info is NULL");
  ri.kind = NULL;
  CHECK(sl_store_run_begin(s, &ri, &id) != 0);
  CHECK_CONTAINS(sl_store_errmsg(s), "info->kind is NULL");
  CHECK(sl_store_run_finish(s, 1, NULL) != 0);
  CHECK_CONTAINS(sl_store_errmsg(s), "status is NULL");
  CHECK(sl_store_add_case(s, 1, NULL, "x", 1, 0, &id) != 0);
  CHECK_CONTAINS(sl_store_errmsg(s), "add_case: op is NULL");
  CHECK(sl_store_add_result(s, 1, NULL) != 0);
  CHECK_CONTAINS(sl_store_errmsg(s), "add_result: row is NULL");
  row.verdict = NULL;
  CHECK(sl_store_add_result(s, 1, &row) != 0);
  CHECK_CONTAINS(sl_store_errmsg(s), "verdict is NULL");
  CHECK(sl_store_add_timing(s, 1, NULL, &id) != 0);
  CHECK_CONTAINS(sl_store_errmsg(s), "add_timing: row is NULL");
  CHECK(sl_store_add_coverage(s, 1, NULL, 1, 1) != 0);
  CHECK_CONTAINS(sl_store_errmsg(s), "cell is NULL");
  CHECK(sl_store_each_result(s, 0, NULL, NULL) != 0);
  CHECK_CONTAINS(sl_store_errmsg(s), "each_result: callback is NULL");
  CHECK(sl_store_each_result(s, -4, collect_result, NULL) != 0);
  CHECK_CONTAINS(sl_store_errmsg(s), "negative");
  /* Every walk checks its callback and run id before it starts. */
  CHECK(sl_store_each_run(s, NULL, NULL) != 0);
  CHECK_CONTAINS(sl_store_errmsg(s), "each_run: callback is NULL");
  CHECK(sl_store_each_timing(s, -1, NULL, NULL) != 0);
  CHECK_CONTAINS(sl_store_errmsg(s), "each_timing: callback is NULL");
  CHECK(sl_store_each_coverage(s, 0, NULL, NULL) != 0);
  CHECK_CONTAINS(sl_store_errmsg(s), "each_coverage: callback is NULL");
  CHECK(sl_store_each_failure(s, -2, NULL, NULL) != 0);
  CHECK_CONTAINS(sl_store_errmsg(s), "each_failure: callback is NULL");
  CHECK(sl_store_each_timing(s, -3, collect_timing, NULL) != 0);
  CHECK_CONTAINS(sl_store_errmsg(s), "each_timing: run id -3 is negative");
  CHECK(sl_store_each_coverage(s, -5, collect_cov, NULL) != 0);
  CHECK_CONTAINS(sl_store_errmsg(s), "each_coverage: run id -5 is negative");
  sl_store_close(s);
}

int main(void) {
  if (fixture_begin()) return 1;
  char db[300];
  path_in(db, sizeof db, "results/x.db");
  test_round_trip(db);
  test_constraints(db);
  test_reopen_and_readonly(db);
  test_versions_and_foreign_files(db);
  test_bad_arguments();
  fixture_end();
  return sl_test_finish("test_store");
}
