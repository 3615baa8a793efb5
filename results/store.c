/*
 * The results store: its statements, errors and transactions. Opening and
 * closing are store_open.c, the writes store_write.c, the reads
 * store_read.c.
 *
 * Every statement is a constant in sl__sql below, prepared once per handle
 * (on first use) and reused with bound parameters: no SQL text is ever built
 * from data (the failing verdicts' list, SL__FAILING_VERDICTS, is written
 * from results/verdicts.def by sl__store_prepare, store_prepare.c). Errors
 * are recorded on the handle as "path: operation: reason".
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "store_internal.h"
/* Timestamps: ISO-8601 UTC with milliseconds, computed by SQLite. */
#define SL__NOW "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"
/* A run stored before schema 6 recorded no reference (NULL): readers get
 * SL_REFERENCE_UNKNOWN, in one place. */
#define SL__REFERENCE_OR_UNKNOWN                                               \
  "coalesce(reference, '" SL_REFERENCE_UNKNOWN "')"

static const char *const sl__sql[SL__STMT_COUNT] = {
    [SL__STMT_BEGIN] = "BEGIN IMMEDIATE",
    [SL__STMT_BEGIN_READ] = "BEGIN",
    [SL__STMT_COMMIT] = "COMMIT",
    [SL__STMT_ROLLBACK] = "ROLLBACK",
    [SL__STMT_SAVEPOINT] = "SAVEPOINT sl_timing",
    [SL__STMT_RELEASE] = "RELEASE sl_timing",
    [SL__STMT_ROLLBACK_TO] = "ROLLBACK TO sl_timing",
    [SL__STMT_RUN_INSERT] =
        "INSERT INTO runs (kind, started_at, status, command_line, git_commit,"
        " host, cpu_model, compiler, flags, version, device, cores, threads,"
        " copy_gbs, process, core_rtt_ns, reference, keep, uid) VALUES "
        "(?1, " SL__NOW
        ", 'running', ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12,"
        " ?13, ?14, ?15, ?16, lower(hex(randomblob(16))))",
    [SL__STMT_RUN_SET_CONFIG] = "UPDATE runs SET config = ?2 WHERE id = ?1",
    [SL__STMT_RUN_GET] =
        "SELECT kind, status, config, process, cpu_model, cores, threads,"
        " copy_gbs, copy_gbs_end, core_rtt_ns, core_rtt_ns_end, git_commit,"
        " " SL__REFERENCE_OR_UNKNOWN " FROM runs WHERE id = ?1",
    [SL__STMT_RUN_REOPEN] =
        "UPDATE runs SET status = 'running', finished_at = NULL, process = ?2"
        " WHERE id = ?1",
    [SL__STMT_RUNS_OPEN] = "SELECT id, process FROM runs"
                           " WHERE status = 'running' AND process <> ''",
    [SL__STMT_RUN_ABANDON] =
        "UPDATE runs SET status = 'interrupted'"
        " WHERE id = ?1 AND status = 'running' AND process = ?2",
    [SL__STMT_CURSOR_SET] =
        "INSERT INTO fuzz_cursors (run_id, job, next_case) VALUES (?1, ?2, ?3)"
        " ON CONFLICT (run_id, job)"
        " DO UPDATE SET next_case = excluded.next_case",
    [SL__STMT_CURSOR_GET] =
        "SELECT next_case FROM fuzz_cursors WHERE run_id = ?1 AND job = ?2",
    [SL__STMT_RUN_FINISH] =
        "UPDATE runs SET status = ?2, finished_at = " SL__NOW " WHERE id = ?1",
    [SL__STMT_RUN_COPY_GBS] = "UPDATE runs SET copy_gbs = ?2 WHERE id = ?1",
    [SL__STMT_RUN_COPY_GBS_END] =
        "UPDATE runs SET copy_gbs_end = ?2 WHERE id = ?1",
    [SL__STMT_RUN_CORE_RTT_END] =
        "UPDATE runs SET core_rtt_ns_end = ?2 WHERE id = ?1",
    [SL__STMT_CASE_INSERT] =
        "INSERT INTO cases (run_id, op, case_line, seed, shrunk_from)"
        " VALUES (?1, ?2, ?3, ?4, ?5)",
    [SL__STMT_RESULT_INSERT] =
        "INSERT INTO results (case_id, variant, verdict, diff1, diff2, diff3,"
        " message, seconds) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    [SL__STMT_TIMING_INSERT] =
        "INSERT INTO timings (case_id, variant, threads, reps, median_s, iqr_s,"
        " min_s, bytes, gbs, pct_peak, cold, instructions, cycles,"
        " cache_misses)"
        " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
    [SL__STMT_SAMPLE_INSERT] =
        "INSERT INTO samples (timing_id, rep, seconds) VALUES (?1, ?2, ?3)",
    [SL__STMT_COVERAGE_ADD] =
        "INSERT INTO coverage (run_id, cell, cases, failures)"
        " VALUES (?1, ?2, ?3, ?4) ON CONFLICT (run_id, cell) DO UPDATE SET"
        " cases = cases + excluded.cases,"
        " failures = failures + excluded.failures",
    [SL__STMT_RUNS] =
        "SELECT r.id, r.kind, r.started_at, r.finished_at, r.status,"
        " r.git_commit, r.host, r.cpu_model, r.compiler, r.flags,"
        " r.command_line, r.version, r.device, r.cores, r.threads, r.copy_gbs,"
        " r.process, r.copy_gbs_end, r.core_rtt_ns, r.core_rtt_ns_end,"
        " " SL__REFERENCE_OR_UNKNOWN ","
        " r.ncases,"
        " (SELECT coalesce(sum(count), 0) FROM tallies t WHERE t.run_id = "
        "r.id),"
        " (SELECT coalesce(sum(count), 0) FROM tallies t WHERE t.run_id = r.id"
        "  AND t.verdict IN " SL__FAILING_VERDICTS "), r.keep, r.config"
        " FROM runs r ORDER BY r.id",
    [SL__STMT_TALLY_ADD] =
        "INSERT INTO tallies (run_id, op, dtype, variant, verdict, count)"
        " VALUES (?1, ?2, ?3, ?4, ?5, 1) ON CONFLICT DO UPDATE"
        " SET count = count + 1",
    [SL__STMT_CASE_KEY] =
        "SELECT run_id, op, case_line FROM cases WHERE id = ?1",
    [SL__STMT_RUN_NCASES_ADD] =
        "UPDATE runs SET ncases = ncases + 1 WHERE id = ?1",
    [SL__STMT_TALLIES_ALL] =
        "SELECT run_id, op, dtype, variant, verdict, count FROM tallies"
        " ORDER BY run_id, op, dtype, variant, verdict",
    [SL__STMT_TALLIES_RUN] =
        "SELECT run_id, op, dtype, variant, verdict, count FROM tallies"
        " WHERE run_id = ?1 ORDER BY op, dtype, variant, verdict",
    [SL__STMT_RESULTS_ALL] =
        "SELECT c.run_id, c.id, c.op, c.case_line, x.variant, x.verdict,"
        " x.message, c.seed, x.diff1, x.diff2, x.diff3, x.seconds,"
        " c.shrunk_from FROM results x JOIN cases c ON c.id = x.case_id"
        " ORDER BY c.run_id, c.id, x.variant",
    [SL__STMT_RESULTS_RUN] =
        "SELECT c.run_id, c.id, c.op, c.case_line, x.variant, x.verdict,"
        " x.message, c.seed, x.diff1, x.diff2, x.diff3, x.seconds,"
        " c.shrunk_from FROM cases c JOIN results x ON x.case_id = c.id"
        " WHERE c.run_id = ?1 ORDER BY c.id, x.variant",
    [SL__STMT_TIMINGS_ALL] =
        "SELECT c.run_id, c.id, t.id, c.op, c.case_line, t.variant, t.threads,"
        " t.reps, t.cold, t.median_s, t.iqr_s, t.min_s, t.gbs, t.pct_peak,"
        " t.bytes FROM timings t JOIN cases c ON c.id = t.case_id"
        " ORDER BY c.run_id, c.id, t.variant, t.threads, t.cold",
    [SL__STMT_TIMINGS_RUN] =
        "SELECT c.run_id, c.id, t.id, c.op, c.case_line, t.variant, t.threads,"
        " t.reps, t.cold, t.median_s, t.iqr_s, t.min_s, t.gbs, t.pct_peak,"
        " t.bytes FROM cases c JOIN timings t ON t.case_id = c.id"
        " WHERE c.run_id = ?1 ORDER BY c.id, t.variant, t.threads, t.cold",
    [SL__STMT_SAMPLES] =
        "SELECT seconds FROM samples WHERE timing_id = ?1 ORDER BY rep",
    [SL__STMT_COVERAGE_ALL] = "SELECT run_id, cell, cases, failures"
                              " FROM coverage ORDER BY run_id, cell",
    [SL__STMT_COVERAGE_RUN] = "SELECT run_id, cell, cases, failures"
                              " FROM coverage WHERE run_id = ?1 ORDER BY cell",
    [SL__STMT_LAST_RUN] = "SELECT coalesce(max(id), 0) FROM runs",
    [SL__STMT_HAS_RUN] = "SELECT count(*) FROM runs WHERE id = ?1",
    [SL__STMT_RUN_SAVEPOINT] = "SAVEPOINT sl_run",
    [SL__STMT_RUN_RELEASE] = "RELEASE sl_run",
    [SL__STMT_RUN_ROLLBACK_TO] = "ROLLBACK TO sl_run",
    [SL__STMT_PROVIDER_INSERT] =
        "INSERT INTO run_providers (run_id, position, name, path, version,"
        " abi, n_variants, builtin, sha256, origin)"
        " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
    [SL__STMT_RUN_PROVIDERS] =
        "SELECT name, path, version, abi, n_variants, builtin, sha256, origin"
        " FROM run_providers WHERE run_id = ?1 ORDER BY position",
};

/* ------------------------------------------------------------------------ */
/* Errors and statements                                                     */
/* ------------------------------------------------------------------------ */

int sl__store_fail(sl_store *s, const char *op, const char *fmt, ...) {
  int n = snprintf(s->err, sizeof s->err, "%s: %s: ", s->path, op);
  if (n < 0 || (size_t)n >= sizeof s->err) return -1;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(s->err + n, sizeof s->err - (size_t)n, fmt, ap);
  va_end(ap);
  return -1;
}

int sl__store_fail_db(sl_store *s, const char *op) {
  return sl__store_fail(s, op, "%s", sqlite3_errmsg(s->db));
}

sqlite3_stmt *sl__store_stmt(sl_store *s, sl__stmt_id id, const char *op) {
  if (s->stmt[id]) return s->stmt[id];
  /* PERSISTENT: the statement lives as long as the handle. */
  s->stmt[id] =
      sl__store_prepare(s, sl__sql[id], SQLITE_PREPARE_PERSISTENT, op);
  return s->stmt[id];
}

void sl__store_done(sqlite3_stmt *st) {
  sqlite3_reset(st);
  sqlite3_clear_bindings(st);
}

/* Runs a statement that returns no rows; the bindings are already made. */
int sl__store_step_done(sl_store *s, sqlite3_stmt *st, const char *op) {
  int rc = sqlite3_step(st);
  int ret = rc == SQLITE_DONE ? 0 : sl__store_fail_db(s, op);
  sl__store_done(st);
  return ret;
}

/* Runs one of the argument-less statements (BEGIN, COMMIT, ...). */
int sl__store_run(sl_store *s, sl__stmt_id id, const char *op) {
  sqlite3_stmt *st = sl__store_stmt(s, id, op);
  return st ? sl__store_step_done(s, st, op) : -1;
}

const char sl__store_null_msg[] = "no store (NULL handle)";

/* The argument checks of every public function. */
int sl__store_check_handle(const sl_store *s) { return s && s->db ? 0 : -1; }

int sl__store_writable(sl_store *s, const char *op) {
  if (s->mode == SL_STORE_READONLY)
    return sl__store_fail(s, op, "the store is open read-only");
  return 0;
}

int sl__store_bind_text(sqlite3_stmt *st, int i, const char *v) {
  /* SQLITE_STATIC: the statement is reset before the caller's string can
   * change, so SQLite need not copy it. */
  return sqlite3_bind_text(st, i, v ? v : "", -1, SQLITE_STATIC);
}

int sl__store_bind_text_or_null(sqlite3_stmt *st, int i, const char *v) {
  return v ? sqlite3_bind_text(st, i, v, -1, SQLITE_STATIC)
           : sqlite3_bind_null(st, i);
}

/* NaN has no SQL value: SQLite stores it as NULL, which is what we mean. */
int sl__store_bind_real_or_null(sqlite3_stmt *st, int i, int present,
                                double v) {
  return present ? sqlite3_bind_double(st, i, v) : sqlite3_bind_null(st, i);
}

/* ------------------------------------------------------------------------ */
/* Transactions                                                              */
/* ------------------------------------------------------------------------ */

int sl_store_begin(sl_store *s) {
  if (sl__store_check_handle(s)) return -1;
  /* IMMEDIATE takes the write lock now, so a busy database is waited for
   * here (busy_timeout) rather than failing at the first insert. A
   * read-only handle gets a read transaction: one snapshot for several
   * walks. */
  return s->mode == SL_STORE_READONLY
             ? sl__store_run(s, SL__STMT_BEGIN_READ, "begin")
             : sl__store_run(s, SL__STMT_BEGIN, "begin");
}

int sl_store_commit(sl_store *s) {
  if (sl__store_check_handle(s)) return -1;
  return sl__store_run(s, SL__STMT_COMMIT, "commit");
}

int sl_store_rollback(sl_store *s) {
  if (sl__store_check_handle(s)) return -1;
  s->tally_case = 0; /* its rowid may be taken again by another case */
  return sl__store_run(s, SL__STMT_ROLLBACK, "rollback");
}
