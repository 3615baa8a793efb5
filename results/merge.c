/*
 * Merging stores: the runs of a source store that the destination does not
 * hold yet, copied with everything that hangs off them. CI shards write one
 * store each; `scatterlab merge` combines them.
 *
 * Ids are renumbered by offsets (the destination's largest id plus the
 * source's id), which keeps every reference inside the copied rows intact
 * without a lookup table. Runs are matched by uid, never by id.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_internal.h"

static const char sl__runs_cols[] =
    "kind, started_at, finished_at, status, git_commit, host, cpu_model,"
    " cores, compiler, flags, command_line, threads, copy_gbs, device,"
    " version, uid, config, process, copy_gbs_end, core_rtt_ns,"
    " core_rtt_ns_end, reference, keep, ncases";
/* The columns of run_providers besides run_id and position. */
static const char sl__providers_cols[] =
    "name, path, version, abi, n_variants, builtin, sha256, origin";

/* Checks that src_path is a store this build reads: the same messages as
 * opening it ("not a SQLite database", "newer than this scatterlab", ...).
 * An older store is upgraded first, as any read-write open would. */
static int sl__check_source(sl_store *dst, const char *src_path) {
  char err[1024];
  sl_store *src = NULL;
  if (sl_store_open(src_path, SL_STORE_READONLY, &src, err, sizeof err) &&
      (!strstr(err, "is older than") ||
       sl_store_open(src_path, SL_STORE_READWRITE, &src, err, sizeof err)))
    return sl__store_fail(dst, "merge", "%s", err);
  sl_store_close(src);
  return 0;
}

static int sl__exec(sl_store *s, const char *sql) {
  char *msg = NULL;
  if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) == SQLITE_OK) return 0;
  sl__store_fail(s, "merge", "%s", msg ? msg : sqlite3_errmsg(s->db));
  sqlite3_free(msg);
  return -1;
}

/* A single integer from sql into *v. */
static int sl__scalar(sl_store *s, const char *sql, int64_t *v) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
    return sl__store_fail_db(s, "merge");
  int rc = sqlite3_step(st);
  *v = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
  sqlite3_finalize(st);
  return rc == SQLITE_ROW ? 0 : sl__store_fail_db(s, "merge");
}

static int sl__attach(sl_store *s, const char *path) {
  sqlite3_stmt *st;
  char *name = sl__store_open_name(path, 1); /* maybe on a read-only mount */
  if (!name) return sl__store_fail(s, "merge", "%s: out of memory", path);
  if (sqlite3_prepare_v2(s->db, "ATTACH ?1 AS sl_src", -1, &st, NULL) !=
      SQLITE_OK) {
    free(name);
    return sl__store_fail_db(s, "merge");
  }
  sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
  free(name);
  int rc = sqlite3_step(st);
  sqlite3_finalize(st);
  return rc == SQLITE_DONE ? 0 : sl__store_fail_db(s, "merge");
}

/* The copy itself, inside the caller's transaction. */
static int sl__copy(sl_store *s, sl_merge_stats *m) {
  int64_t run_off, case_off, timing_off;
  if (sl__exec(s, "CREATE TEMP TABLE sl_new_runs (id INTEGER PRIMARY KEY);"
                  "CREATE TEMP TABLE sl_new_cases (id INTEGER PRIMARY KEY);"
                  "INSERT INTO sl_new_runs SELECT id FROM sl_src.runs"
                  " WHERE uid NOT IN (SELECT uid FROM main.runs);"
                  "INSERT INTO sl_new_cases SELECT id FROM sl_src.cases"
                  " WHERE run_id IN (SELECT id FROM sl_new_runs);") ||
      sl__scalar(s, "SELECT count(*) FROM sl_new_runs", &m->runs_copied) ||
      sl__scalar(s, "SELECT count(*) FROM sl_src.runs", &m->runs_present) ||
      sl__scalar(s, "SELECT count(*) FROM sl_new_cases", &m->cases) ||
      sl__scalar(s, "SELECT coalesce(max(id), 0) FROM main.runs", &run_off) ||
      sl__scalar(s, "SELECT coalesce(max(id), 0) FROM main.cases", &case_off) ||
      sl__scalar(s, "SELECT coalesce(max(id), 0) FROM main.timings",
                 &timing_off))
    return -1;
  m->runs_present -= m->runs_copied;
  char sql[8192];
  int n = snprintf(
      sql, sizeof sql,
      "INSERT INTO main.runs (id, %s) SELECT id + %" PRId64 ", %s"
      " FROM sl_src.runs WHERE id IN (SELECT id FROM sl_new_runs);"
      "INSERT INTO main.cases (id, run_id, op, case_line, seed, shrunk_from)"
      " SELECT id + %" PRId64 ", run_id + %" PRId64 ", op, case_line, seed,"
      " CASE WHEN shrunk_from IN (SELECT id FROM sl_new_cases)"
      " THEN shrunk_from + %" PRId64 " END"
      " FROM sl_src.cases WHERE id IN (SELECT id FROM sl_new_cases);"
      "INSERT INTO main.results (case_id, variant, verdict, diff1, diff2,"
      " diff3, message, seconds, signature) SELECT case_id + %" PRId64 ","
      " variant, verdict, diff1, diff2, diff3, message, seconds, signature"
      " FROM sl_src.results"
      " WHERE case_id IN (SELECT id FROM sl_new_cases);"
      "INSERT INTO main.timings (id, case_id, variant, threads, reps,"
      " median_s, iqr_s, min_s, bytes, gbs, pct_peak, cold, instructions,"
      " cycles, cache_misses)"
      " SELECT id + %" PRId64 ", case_id + %" PRId64 ", variant, threads,"
      " reps, median_s, iqr_s, min_s, bytes, gbs, pct_peak, cold,"
      " instructions, cycles, cache_misses"
      " FROM sl_src.timings WHERE case_id IN (SELECT id FROM sl_new_cases);"
      "INSERT INTO main.samples (timing_id, rep, seconds)"
      " SELECT timing_id + %" PRId64 ", rep, seconds FROM sl_src.samples"
      " WHERE timing_id IN (SELECT id FROM sl_src.timings"
      " WHERE case_id IN (SELECT id FROM sl_new_cases));"
      "INSERT INTO main.coverage (run_id, cell, cases, failures)"
      " SELECT run_id + %" PRId64 ", cell, cases, failures FROM sl_src.coverage"
      " WHERE run_id IN (SELECT id FROM sl_new_runs);"
      "INSERT INTO main.fuzz_cursors (run_id, job, next_case)"
      " SELECT run_id + %" PRId64 ", job, next_case FROM sl_src.fuzz_cursors"
      " WHERE run_id IN (SELECT id FROM sl_new_runs);"
      "INSERT INTO main.tallies (run_id, op, dtype, variant, verdict, count)"
      " SELECT run_id + %" PRId64 ", op, dtype, variant, verdict, count"
      " FROM sl_src.tallies WHERE run_id IN (SELECT id FROM sl_new_runs);"
      "INSERT INTO main.run_providers (run_id, position, %s)"
      " SELECT run_id + %" PRId64 ", position, %s FROM sl_src.run_providers"
      " WHERE run_id IN (SELECT id FROM sl_new_runs);",
      sl__runs_cols, run_off, sl__runs_cols, case_off, run_off, case_off,
      case_off, timing_off, case_off, timing_off, run_off, run_off, run_off,
      sl__providers_cols, run_off, sl__providers_cols);
  /* A statement cut short would copy part of the runs' rows. */
  if (n < 0 || (size_t)n >= sizeof sql)
    return sl__store_fail(s, "merge",
                          "internal: the copy statement is longer "
                          "than %zu bytes",
                          sizeof sql);
  if (sl__exec(s, sql)) return -1;
  /* The failure groups the copied runs met, derived again from every run's
   * results (schema 12): their first run may now be another. The copied
   * cases are those above the offset. */
  n = snprintf(sql, sizeof sql,
               SL__GROUPS_REFRESH_SQL(
                   "SELECT signature FROM main.results WHERE signature != ''"
                   " AND case_id > %" PRId64) ";",
               case_off);
  if (n < 0 || (size_t)n >= sizeof sql)
    return sl__store_fail(s, "merge",
                          "internal: the groups statement is longer than "
                          "%zu bytes",
                          sizeof sql);
  if (sl__exec(s, sql)) return -1;
  /* The defect each copied group was reported under, where it had one. */
  if (sl__exec(s, "UPDATE main.failure_groups SET defect = (SELECT g.defect"
                  " FROM sl_src.failure_groups g"
                  " WHERE g.signature_id = failure_groups.signature_id)"
                  " WHERE signature_id IN (SELECT signature_id"
                  " FROM sl_src.failure_groups WHERE defect != '')"))
    return -1;
  return sl__scalar(s,
                    "SELECT (SELECT count(*) FROM sl_src.results WHERE case_id"
                    " IN (SELECT id FROM sl_new_cases))",
                    &m->results) ||
         sl__scalar(s,
                    "SELECT (SELECT count(*) FROM sl_src.timings WHERE case_id"
                    " IN (SELECT id FROM sl_new_cases))",
                    &m->timings);
}

int sl_store_merge(sl_store *dst, const char *src_path, sl_merge_stats *stats) {
  static const char op[] = "merge";
  sl_merge_stats local;
  if (!stats) stats = &local;
  memset(stats, 0, sizeof *stats);
  if (sl__store_check_handle(dst)) return -1;
  if (!src_path || !*src_path)
    return sl__store_fail(dst, op, "src_path is NULL or empty");
  if (sl__store_writable(dst, op)) return -1;
  if (!sqlite3_get_autocommit(dst->db))
    return sl__store_fail(dst, op, "a transaction is open on the destination");
  if (sl__check_source(dst, src_path) || sl__attach(dst, src_path)) return -1;
  int ret = sl_store_begin(dst);
  if (ret == 0) ret = sl__copy(dst, stats);
  if (ret == 0) ret = sl_store_commit(dst);
  if (ret) {
    char keep[sizeof dst->err];
    snprintf(keep, sizeof keep, "%s", dst->err); /* the first failure */
    sqlite3_exec(dst->db, "ROLLBACK", NULL, NULL, NULL);
    snprintf(dst->err, sizeof dst->err, "%s", keep);
  }
  sqlite3_exec(dst->db,
               "DROP TABLE IF EXISTS temp.sl_new_runs;"
               "DROP TABLE IF EXISTS temp.sl_new_cases;",
               NULL, NULL, NULL);
  sqlite3_exec(dst->db, "DETACH sl_src", NULL, NULL, NULL);
  return ret ? -1 : 0;
}
