/*
 * Resuming and merging: run configs, fuzz cursors, the version 1 -> 2
 * migration, and sl_store_merge (copies, renumbering, no duplicates, a
 * source that is not a store).
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sl_store.h"
#include "sl_test.h"

extern const char sl__schema_v1_sql[]; /* results/schema.sql, embedded */

static char tmpdir[256];

static void path_in(char *buf, size_t len, const char *name) {
  snprintf(buf, len, "%s/%s", tmpdir, name);
}

static long long raw_int(const char *path, const char *sql) {
  sqlite3 *db;
  long long v = -12345;
  if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK) {
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
      if (sqlite3_step(st) == SQLITE_ROW) v = sqlite3_column_int64(st, 0);
      sqlite3_finalize(st);
    } else {
      fprintf(stderr, "raw_int: %s: %s\n", sql, sqlite3_errmsg(db));
    }
  }
  sqlite3_close(db);
  return v;
}

/* A store with `runs` runs of 3 cases each: 2 results, 1 timing with 4
 * samples and 2 coverage cells per run; one case shrunk from another. */
static void make_store(const char *path, int runs) {
  char err[512];
  sl_store *s;
  CHECK_MSG(sl_store_open(path, SL_STORE_READWRITE, &s, err, sizeof err) == 0,
            "%s", err);
  if (!s) return;
  for (int r = 0; r < runs; ++r) {
    sl_run_info ri = {0};
    ri.kind = "fuzz";
    int64_t run, c[3], tid;
    CHECK(sl_store_run_begin(s, &ri, &run) == 0);
    CHECK(sl_store_begin(s) == 0);
    for (int k = 0; k < 3; ++k) {
      char line[64];
      snprintf(line, sizeof line, "gather x=%d index=1", k + 1);
      CHECK(sl_store_add_case(s, run, "gather", line, 7, k == 2 ? c[0] : 0,
                              &c[k]) == 0);
    }
    sl_result_row a = {"cpu.serial", "passed", NULL, 0, 0, 0, 0, 0.5};
    sl_result_row b = {"cpu.omp", "failed", "wrong", 1, 1, 1, 1, -1};
    CHECK(sl_store_add_result(s, c[0], &a) == 0);
    CHECK(sl_store_add_result(s, c[1], &b) == 0);
    double samples[4] = {1, 2, 3, 4};
    sl_timing_row t = {"cpu.omp", 2, 4, 0, 2.5, 1, 1, 3, -1, 100, samples, 4};
    CHECK(sl_store_add_timing(s, c[1], &t, &tid) == 0);
    CHECK(sl_store_add_coverage(s, run, "gather|f32", 3, 1) == 0);
    CHECK(sl_store_add_coverage(s, run, "gather|f64", 2, 0) == 0);
    CHECK(sl_store_set_cursor(s, run, 0, 41) == 0);
    CHECK(sl_store_set_run_config(s, run, "--seed 3 --cases 99") == 0);
    CHECK(sl_store_commit(s) == 0);
    CHECK(sl_store_run_finish(s, run, "finished") == 0);
  }
  sl_store_close(s);
}

static void test_config_and_cursors(void) {
  char p[300], err[512];
  path_in(p, sizeof p, "cursors.db");
  make_store(p, 1);
  sl_store *s;
  CHECK(sl_store_open(p, SL_STORE_READWRITE, &s, err, sizeof err) == 0);
  sl_run_brief b;
  CHECK(sl_store_get_run(s, 1, &b) == 0);
  CHECK(strcmp(b.kind, "fuzz") == 0 && strcmp(b.status, "finished") == 0);
  CHECK(strcmp(b.config, "--seed 3 --cases 99") == 0);
  CHECK(sl_store_get_run(s, 5, &b) != 0);
  CHECK_CONTAINS(sl_store_errmsg(s), "no run 5");
  int64_t next = -1;
  CHECK(sl_store_get_cursor(s, 1, 0, &next) == 0 && next == 41);
  CHECK(sl_store_get_cursor(s, 1, 1, &next) == 0 && next == 0);
  CHECK(sl_store_set_cursor(s, 1, 0, 50) == 0);
  CHECK(sl_store_get_cursor(s, 1, 0, &next) == 0 && next == 50);
  CHECK(sl_store_set_cursor(s, 1, -1, 5) != 0);
  CHECK_CONTAINS(sl_store_errmsg(s), "expected job >= 0");
  /* A cursor of a run that does not exist breaks the foreign key. */
  CHECK(sl_store_set_cursor(s, 9, 0, 5) != 0);
  CHECK(sl_store_run_reopen(s, 1) == 0);
  CHECK(sl_store_get_run(s, 1, &b) == 0 && strcmp(b.status, "running") == 0);
  CHECK(sl_store_run_reopen(s, 9) != 0);
  sl_store_close(s);
  CHECK(raw_int(p, "SELECT finished_at IS NULL FROM runs WHERE id = 1") == 1);
}

static void test_upgrade_from_v1(void) {
  char p[300], err[512];
  path_in(p, sizeof p, "v1.db");
  sqlite3 *db;
  CHECK(sqlite3_open(p, &db) == SQLITE_OK);
  CHECK(sqlite3_exec(db, sl__schema_v1_sql, NULL, NULL, NULL) == SQLITE_OK);
  CHECK(sqlite3_exec(db,
                     "INSERT INTO runs (kind, started_at) VALUES"
                     " ('run', '2026-01-01T00:00:00.000Z'),"
                     " ('fuzz', '2026-01-02T00:00:00.000Z')",
                     NULL, NULL, NULL) == SQLITE_OK);
  sqlite3_close(db);
  CHECK(raw_int(p, "PRAGMA user_version") == 1);
  sl_store *s;
  CHECK_MSG(sl_store_open(p, SL_STORE_READWRITE, &s, err, sizeof err) == 0,
            "%s", err);
  sl_store_close(s);
  CHECK(raw_int(p, "PRAGMA user_version") == 2);
  /* Each old run got its own 32-hex-digit uid. */
  CHECK(raw_int(p, "SELECT count(DISTINCT uid) FROM runs WHERE length(uid) = "
                   "32") == 2);
}

static void test_merge(void) {
  char a[300], b[300], all[300], junk[300], err[512];
  path_in(a, sizeof a, "a.db");
  path_in(b, sizeof b, "b.db");
  path_in(all, sizeof all, "all.db");
  path_in(junk, sizeof junk, "junk.db");
  make_store(a, 2);
  make_store(b, 1);
  sl_store *s;
  CHECK(sl_store_open(all, SL_STORE_READWRITE, &s, err, sizeof err) == 0);
  if (!s) return;
  sl_merge_stats m;
  CHECK_MSG(sl_store_merge(s, a, &m) == 0, "%s", sl_store_errmsg(s));
  CHECK(m.runs_copied == 2 && m.runs_present == 0 && m.cases == 6);
  CHECK(m.results == 4 && m.timings == 2);
  CHECK_MSG(sl_store_merge(s, b, &m) == 0, "%s", sl_store_errmsg(s));
  CHECK(m.runs_copied == 1 && m.cases == 3);
  /* The same store again: nothing new. */
  CHECK(sl_store_merge(s, a, &m) == 0);
  CHECK(m.runs_copied == 0 && m.runs_present == 2 && m.cases == 0);
  CHECK(sl_store_check(s) == 0);
  FILE *f = fopen(junk, "w");
  if (f) fputs("this is not a database, just some text\n", f), fclose(f);
  CHECK(sl_store_merge(s, junk, &m) != 0);
  CHECK_CONTAINS(sl_store_errmsg(s), "not a SQLite database");
  sl_store_close(s);
  CHECK(raw_int(all, "SELECT count(*) FROM runs") == 3);
  CHECK(raw_int(all, "SELECT count(*) FROM cases") == 9);
  CHECK(raw_int(all, "SELECT count(*) FROM results") == 6);
  CHECK(raw_int(all, "SELECT count(*) FROM samples") == 12);
  CHECK(raw_int(all, "SELECT count(*) FROM coverage") == 6);
  CHECK(raw_int(all, "SELECT count(*) FROM fuzz_cursors") == 3);
  /* Every shrunk case points at a case of its own run. */
  CHECK(raw_int(all, "SELECT count(*) FROM cases c JOIN cases o ON"
                     " c.shrunk_from = o.id WHERE c.run_id = o.run_id") == 3);
  /* Samples follow their timing. */
  CHECK(raw_int(all, "SELECT count(*) FROM samples s JOIN timings t ON"
                     " s.timing_id = t.id") == 12);
  /* A read-only source is fine: it is only read. */
  chmod(b, 0444);
  path_in(all, sizeof all, "all2.db");
  CHECK(sl_store_open(all, SL_STORE_READWRITE, &s, err, sizeof err) == 0);
  CHECK_MSG(sl_store_merge(s, b, &m) == 0 && m.runs_copied == 1, "%s",
            sl_store_errmsg(s));
  sl_store_close(s);
}

int main(void) {
  const char *base = getenv("TMPDIR");
  snprintf(tmpdir, sizeof tmpdir, "%s/sl_campaign_XXXXXX",
           base && *base ? base : "/tmp");
  if (!mkdtemp(tmpdir)) {
    perror("mkdtemp");
    return 1;
  }
  test_config_and_cursors();
  test_upgrade_from_v1();
  test_merge();
  return sl_test_finish("test_campaign_store");
}
