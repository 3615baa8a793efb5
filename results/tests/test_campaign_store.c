/*
 * Resuming and merging: run configs, fuzz cursors, the version 1 -> 7
 * migrations, runs whose process died, and sl_store_merge (copies,
 * renumbering, no duplicates, a source that is not a store).
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "raw_sql.h"
#include "sl_store.h"
#include "sl_test.h"

extern const char sl__schema_v1_sql[]; /* results/schema.sql, embedded */

static char tmpdir[256];

static void path_in(char *buf, size_t len, const char *name) {
  snprintf(buf, len, "%s/%s", tmpdir, name);
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
    ri.reference = "LibTorch 1.13.0 (Debian libtorch-dev 1.13.1+dfsg-4)";
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
    CHECK(sl_store_set_copy_gbs_end(s, run, 40.5) == 0);
    CHECK(sl_store_set_core_rtt_end(s, run, 120.5) == 0);
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
  CHECK(raw_int(p, "PRAGMA user_version") == 13);
  /* Each old run got its own 32-hex-digit uid. */
  CHECK(raw_int(p, "SELECT count(DISTINCT uid) FROM runs WHERE length(uid) = "
                   "32") == 2);
  /* Their process is unknown, so they are never judged gone. */
  CHECK(raw_int(p, "SELECT count(*) FROM runs WHERE process = '' AND "
                   "status = 'running'") == 2);
  /* Nor was their bandwidth probed at the end (v4): NULL, read as 0. */
  CHECK(raw_int(p, "SELECT count(*) FROM runs WHERE copy_gbs_end IS NULL") ==
        2);
  CHECK(sl_store_open(p, SL_STORE_READONLY, &s, err, sizeof err) == 0);
  sl_run_brief b;
  CHECK(sl_store_get_run(s, 2, &b) == 0 && b.copy_gbs_end == 0);
  /* Nor their core-to-core round trip (v5). */
  CHECK(raw_int(p, "SELECT count(*) FROM runs WHERE core_rtt_ns IS NULL AND"
                   " core_rtt_ns_end IS NULL") == 2);
  CHECK(b.core_rtt_ns == 0 && b.core_rtt_ns_end == 0);
  /* Nor their reference (v6): NULL, read as "unknown". */
  CHECK(raw_int(p, "SELECT count(*) FROM runs WHERE reference IS NULL") == 2);
  CHECK_MSG(strcmp(b.reference, "unknown") == 0, "%s", b.reference);
  /* Nor their providers (v7): the table is there, without rows. */
  CHECK(raw_int(p, "SELECT count(*) FROM run_providers") == 0);
  sl_store_close(s);
}

static void raw_set_process(const char *path, int run, const char *process) {
  sqlite3 *db;
  CHECK(sqlite3_open(path, &db) == SQLITE_OK);
  sqlite3_stmt *st;
  CHECK(sqlite3_prepare_v2(db, "UPDATE runs SET process = ?2 WHERE id = ?1", -1,
                           &st, NULL) == SQLITE_OK);
  sqlite3_bind_int(st, 1, run);
  sqlite3_bind_text(st, 2, process, -1, SQLITE_TRANSIENT);
  CHECK(sqlite3_step(st) == SQLITE_DONE);
  sqlite3_finalize(st);
  sqlite3_close(db);
}

typedef struct statuses {
  char s[8][16];
} statuses;

static int collect_status(void *user, const sl_run_view *r) {
  statuses *st = user;
  if (r->id >= 1 && r->id < 8)
    snprintf(st->s[r->id], sizeof st->s[r->id], "%s", r->status);
  return 0;
}

/* A run whose process died without finishing it (kill -9) reads
 * 'interrupted', and a read-write open marks it so; a live process, a
 * process of another boot and an unknown one keep their runs 'running'. */
static void test_runs_of_gone_processes(void) {
  char p[300], err[512], mine[256], other[300];
  path_in(p, sizeof p, "gone.db");
  sl_store *s;
  CHECK(sl_store_open(p, SL_STORE_READWRITE, &s, err, sizeof err) == 0);
  if (!s) return;
  sl_run_info ri = {0};
  ri.kind = "bench";
  int64_t run;
  for (int r = 1; r <= 7; ++r) CHECK(sl_store_run_begin(s, &ri, &run) == 0);
  CHECK(sl_store_run_finish(s, 6, "finished") == 0);
  sl_store_close(s);

  /* Run 1 names this process. */
  raw_text(p, "SELECT process FROM runs WHERE id = 1", mine, sizeof mine);
  char want[64];
  snprintf(want, sizeof want, " pid=%lld start=", (long long)getpid());
  CHECK_MSG(strncmp(mine, "boot=", 5) == 0 && strstr(mine, want), "%s", mine);
  const char *pid_at = strstr(mine, " pid=");
  if (!pid_at) return;
  int scope = (int)(pid_at - mine);
  unsigned long long start = 0;
  CHECK(sscanf(strstr(mine, "start="), "start=%llu", &start) == 1);

  /* Run 2: a process that has exited and been reaped. */
  pid_t child = fork();
  if (child == 0) _exit(0);
  CHECK(child > 0 && waitpid(child, NULL, 0) == child);
  snprintf(other, sizeof other, "%.*s pid=%lld start=%llu", scope, mine,
           (long long)child, start);
  raw_set_process(p, 2, other);
  /* Run 3: this pid, started later: the pid was reused. */
  snprintf(other, sizeof other, "%.*s pid=%lld start=%llu", scope, mine,
           (long long)getpid(), start + 1);
  raw_set_process(p, 3, other);
  /* Run 4: another boot (or machine); run 5: unknown; run 6: finished, its
   * process gone; run 7: a pid namespace of its own. */
  snprintf(other, sizeof other, "boot=00000000-0000-0000-0000-000000000000%s",
           strstr(mine, " pidns="));
  char *pid_of = strstr(other, " pid=");
  if (pid_of) snprintf(pid_of, 32, " pid=%lld start=1", (long long)child);
  raw_set_process(p, 4, other);
  raw_set_process(p, 5, "");
  snprintf(other, sizeof other, "%.*s pid=%lld start=%llu", scope, mine,
           (long long)child, start);
  raw_set_process(p, 6, other);
  snprintf(other, sizeof other, "%.*s7 pid=%lld start=%llu",
           (int)(strstr(mine, " pid=") - mine), mine, (long long)child, start);
  raw_set_process(p, 7, other);

  /* Read-only: the reads say interrupted, the file is left as it is. */
  statuses st;
  memset(&st, 0, sizeof st);
  CHECK(sl_store_open(p, SL_STORE_READONLY, &s, err, sizeof err) == 0);
  if (!s) return;
  CHECK(sl_store_each_run(s, collect_status, &st) == 0);
  sl_run_brief b;
  CHECK(sl_store_get_run(s, 2, &b) == 0 &&
        strcmp(b.status, "interrupted") == 0 && b.pid == 0);
  /* Only a process known to run here now has a pid: this one. */
  CHECK(sl_store_get_run(s, 1, &b) == 0 && strcmp(b.status, "running") == 0 &&
        b.pid == (long long)getpid());
  for (int r = 3; r <= 7; ++r)
    CHECK_MSG(sl_store_get_run(s, r, &b) == 0 && b.pid == 0, "run %d: pid %lld",
              r, b.pid);
  sl_store_close(s);
  const char *expect[8] = {"",        "running", "interrupted", "interrupted",
                           "running", "running", "finished",    "running"};
  for (int r = 1; r <= 7; ++r)
    CHECK_MSG(strcmp(st.s[r], expect[r]) == 0, "run %d: %s, expected %s", r,
              st.s[r], expect[r]);
  CHECK(raw_int(p, "SELECT count(*) FROM runs WHERE status = 'running'") == 6);

  /* Read-write: runs 2 and 3 are marked, finished_at stays unknown. */
  CHECK(sl_store_open(p, SL_STORE_READWRITE, &s, err, sizeof err) == 0);
  if (!s) return;
  CHECK(sl_store_run_reopen(s, 3) == 0); /* resumed: this process owns it */
  sl_store_close(s);
  CHECK(raw_int(p, "SELECT group_concat(id) = '2' FROM runs WHERE status = "
                   "'interrupted' AND finished_at IS NULL") == 1);
  CHECK(raw_int(p, "SELECT count(*) FROM runs WHERE status = 'running'") == 5);
  CHECK(sl_store_open(p, SL_STORE_READWRITE, &s, err, sizeof err) == 0);
  if (s) sl_store_close(s);
  CHECK(raw_int(p, "SELECT status = 'running' FROM runs WHERE id = 3") == 1);
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
  CHECK(raw_int(all, "SELECT count(*) FROM runs WHERE copy_gbs_end = 40.5") ==
        3);
  CHECK(raw_int(all, "SELECT count(*) FROM runs WHERE core_rtt_ns_end = "
                     "120.5") == 3);
  CHECK(raw_int(all, "SELECT count(*) FROM runs WHERE reference LIKE "
                     "'LibTorch 1.13.0 (Debian%'") == 3);
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
  test_runs_of_gone_processes();
  test_merge();
  sl_test_remove_dir(tmpdir);
  return sl_test_finish("test_campaign_store");
}
