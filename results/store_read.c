/*
 * Reading the results store for reports: walks over runs, results, timings
 * and coverage that hand each row to a callback as a plain struct, plus a
 * few single-value queries and the integrity check.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "store_internal.h"

/* Text of a column, "" for NULL (the view promises non-NULL strings). */
static const char *sl__text(sqlite3_stmt *st, int i) {
  const unsigned char *v = sqlite3_column_text(st, i);
  return v ? (const char *)v : "";
}

/* Text of a column, NULL for NULL. */
static const char *sl__text_or_null(sqlite3_stmt *st, int i) {
  return (const char *)sqlite3_column_text(st, i);
}

static int sl__is_null(sqlite3_stmt *st, int i) {
  return sqlite3_column_type(st, i) == SQLITE_NULL;
}

/* A REAL column, `none` for NULL. */
static double sl__real(sqlite3_stmt *st, int i, double none) {
  return sl__is_null(st, i) ? none : sqlite3_column_double(st, i);
}

/* Fetches the statement of a walk and refuses to restart it from its own
 * callback (the walk in progress would silently lose its place). */
static sqlite3_stmt *sl__walk_stmt(sl_store *s, sl__stmt_id id,
                                   const char *op) {
  sqlite3_stmt *st = sl__store_stmt(s, id, op);
  if (st && sqlite3_stmt_busy(st)) {
    sl__store_fail(s, op, "called again from its own callback");
    return NULL;
  }
  return st;
}

/* Checks a walk's callback and run id (0: every run); 0, or -1 with the
 * message on s. */
static int sl__walk_check(sl_store *s, int has_fn, int64_t run_id,
                          const char *op) {
  if (!has_fn) return sl__store_fail(s, op, "callback is NULL");
  if (run_id < 0)
    return sl__store_fail(s, op, "run id %lld is negative", (long long)run_id);
  return 0;
}

/* Starts a walk over the rows of run `run_id`, by statement id_run bound
 * to it, or over every run's (run_id 0: id_all). NULL (message on s) when
 * it cannot start. */
static sqlite3_stmt *sl__walk_begin(sl_store *s, int has_fn, int64_t run_id,
                                    sl__stmt_id id_run, sl__stmt_id id_all,
                                    const char *op) {
  if (sl__walk_check(s, has_fn, run_id, op)) return NULL;
  sqlite3_stmt *st = sl__walk_stmt(s, run_id ? id_run : id_all, op);
  if (st && run_id) sqlite3_bind_int64(st, 1, run_id);
  return st;
}

/* Ends a walk: fn's stop value, or -1 when the step failed. */
static int sl__walk_end(sl_store *s, sqlite3_stmt *st, int rc, int stop,
                        const char *op) {
  int ret = stop;
  if (!stop && rc != SQLITE_DONE) ret = sl__store_fail_db(s, op);
  sl__store_done(st);
  return ret;
}

int sl_store_each_run(sl_store *s, int (*fn)(void *user, const sl_run_view *r),
                      void *user) {
  static const char op[] = "each_run";
  if (!s || !s->db) return -1;
  sqlite3_stmt *st =
      sl__walk_begin(s, fn != NULL, 0, SL__STMT_RUNS, SL__STMT_RUNS, op);
  if (!st) return -1;
  int rc = SQLITE_DONE, stop = 0;
  while (!stop && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    sl_run_view v;
    memset(&v, 0, sizeof v);
    v.id = sqlite3_column_int64(st, 0);
    v.kind = sl__text(st, 1);
    v.started_at = sl__text(st, 2);
    v.finished_at = sl__text_or_null(st, 3);
    v.status = sl__run_status_seen(sl__text(st, 4), sl__text(st, 16), NULL);
    v.git_commit = sl__text(st, 5);
    v.host = sl__text(st, 6);
    v.cpu_model = sl__text(st, 7);
    v.compiler = sl__text(st, 8);
    v.flags = sl__text(st, 9);
    v.command_line = sl__text(st, 10);
    v.version = sl__text(st, 11);
    v.device = sl__text_or_null(st, 12);
    v.cores = sqlite3_column_int(st, 13);
    v.threads = sqlite3_column_int(st, 14);
    v.copy_gbs = sl__real(st, 15, 0);
    v.copy_gbs_end = sl__real(st, 17, 0);
    v.core_rtt_ns = sl__real(st, 18, 0);
    v.core_rtt_ns_end = sl__real(st, 19, 0);
    v.reference = sl__text(st, 20);
    v.ncases = sqlite3_column_int64(st, 21);
    v.nresults = sqlite3_column_int64(st, 22);
    v.nfailed = sqlite3_column_int64(st, 23);
    v.keep = sl__text(st, 24);
    v.config = sl__text(st, 25);
    stop = fn(user, &v);
  }
  return sl__walk_end(s, st, rc, stop, op);
}

int sl_store_each_tally(sl_store *s, int64_t run_id,
                        int (*fn)(void *user, const sl_tally_view *t),
                        void *user) {
  static const char op[] = "each_tally";
  if (!s || !s->db) return -1;
  sqlite3_stmt *st = sl__walk_begin(s, fn != NULL, run_id, SL__STMT_TALLIES_RUN,
                                    SL__STMT_TALLIES_ALL, op);
  if (!st) return -1;
  int rc = SQLITE_DONE, stop = 0;
  while (!stop && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    sl_tally_view v;
    v.run_id = sqlite3_column_int64(st, 0);
    v.op = sl__text(st, 1);
    v.dtype = sl__text(st, 2);
    v.variant = sl__text(st, 3);
    v.verdict = sl__text(st, 4);
    v.count = sqlite3_column_int64(st, 5);
    stop = fn(user, &v);
  }
  return sl__walk_end(s, st, rc, stop, op);
}

int sl_store_each_result(sl_store *s, int64_t run_id,
                         int (*fn)(void *user, const sl_result_view *r),
                         void *user) {
  static const char op[] = "each_result";
  if (!s || !s->db) return -1;
  sqlite3_stmt *st = sl__walk_begin(s, fn != NULL, run_id, SL__STMT_RESULTS_RUN,
                                    SL__STMT_RESULTS_ALL, op);
  if (!st) return -1;
  int rc = SQLITE_DONE, stop = 0;
  while (!stop && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    sl_result_view v;
    memset(&v, 0, sizeof v);
    v.run_id = sqlite3_column_int64(st, 0);
    v.case_id = sqlite3_column_int64(st, 1);
    v.op = sl__text(st, 2);
    v.case_line = sl__text(st, 3);
    v.variant = sl__text(st, 4);
    v.verdict = sl__text(st, 5);
    v.message = sl__text(st, 6);
    v.seed = (uint64_t)sqlite3_column_int64(st, 7);
    v.has_diffs =
        !sl__is_null(st, 8) || !sl__is_null(st, 9) || !sl__is_null(st, 10);
    v.diff1 = sl__real(st, 8, NAN);
    v.diff2 = sl__real(st, 9, NAN);
    v.diff3 = sl__real(st, 10, NAN);
    v.seconds = sl__real(st, 11, -1);
    v.shrunk_from = sqlite3_column_int64(st, 12); /* NULL reads as 0 */
    stop = fn(user, &v);
  }
  return sl__walk_end(s, st, rc, stop, op);
}

/* Loads the samples of one timing into the handle's buffer. */
static int sl__load_samples(sl_store *s, int64_t timing_id, int *n,
                            const char *op) {
  sqlite3_stmt *st = sl__store_stmt(s, SL__STMT_SAMPLES, op);
  if (!st) return -1;
  sqlite3_bind_int64(st, 1, timing_id);
  int rc;
  size_t k = 0;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    if (k == s->samples_cap) {
      size_t cap = s->samples_cap ? 2 * s->samples_cap : 64;
      double *p = realloc(s->samples, cap * sizeof *p);
      if (!p) {
        sl__store_done(st);
        return sl__store_fail(s, op, "out of memory for %zu samples", cap);
      }
      s->samples = p;
      s->samples_cap = cap;
    }
    s->samples[k++] = sqlite3_column_double(st, 0);
  }
  int ret = rc == SQLITE_DONE ? 0 : sl__store_fail_db(s, op);
  sl__store_done(st);
  *n = (int)k;
  return ret;
}

int sl_store_each_timing(sl_store *s, int64_t run_id,
                         int (*fn)(void *user, const sl_timing_view *t),
                         void *user) {
  static const char op[] = "each_timing";
  if (!s || !s->db) return -1;
  sqlite3_stmt *st = sl__walk_begin(s, fn != NULL, run_id, SL__STMT_TIMINGS_RUN,
                                    SL__STMT_TIMINGS_ALL, op);
  if (!st) return -1;
  int rc = SQLITE_DONE, stop = 0;
  while (!stop && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    sl_timing_view v;
    memset(&v, 0, sizeof v);
    v.run_id = sqlite3_column_int64(st, 0);
    v.case_id = sqlite3_column_int64(st, 1);
    v.timing_id = sqlite3_column_int64(st, 2);
    v.op = sl__text(st, 3);
    v.case_line = sl__text(st, 4);
    v.variant = sl__text(st, 5);
    v.threads = sqlite3_column_int(st, 6);
    v.reps = sqlite3_column_int(st, 7);
    v.cold = sqlite3_column_int(st, 8);
    v.median_s = sqlite3_column_double(st, 9);
    v.iqr_s = sqlite3_column_double(st, 10);
    v.min_s = sqlite3_column_double(st, 11);
    v.gbs = sl__real(st, 12, -1);
    v.pct_peak = sl__real(st, 13, -1);
    v.bytes = sqlite3_column_int64(st, 14);
    if (sl__load_samples(s, v.timing_id, &v.nsamples, op)) {
      sl__store_done(st);
      return -1;
    }
    v.samples = v.nsamples ? s->samples : NULL;
    stop = fn(user, &v);
  }
  return sl__walk_end(s, st, rc, stop, op);
}

int sl_store_each_coverage(sl_store *s, int64_t run_id,
                           int (*fn)(void *user, const sl_coverage_view *c),
                           void *user) {
  static const char op[] = "each_coverage";
  if (!s || !s->db) return -1;
  sqlite3_stmt *st = sl__walk_begin(
      s, fn != NULL, run_id, SL__STMT_COVERAGE_RUN, SL__STMT_COVERAGE_ALL, op);
  if (!st) return -1;
  int rc = SQLITE_DONE, stop = 0;
  while (!stop && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    sl_coverage_view v;
    v.run_id = sqlite3_column_int64(st, 0);
    v.cell = sl__text(st, 1);
    v.cases = sqlite3_column_int64(st, 2);
    v.failures = sqlite3_column_int64(st, 3);
    stop = fn(user, &v);
  }
  return sl__walk_end(s, st, rc, stop, op);
}

int sl_store_run_providers(sl_store *s, int64_t run_id,
                           int (*fn)(void *user, const sl_provider_record *p),
                           void *user) {
  static const char op[] = "run_providers";
  if (!s || !s->db) return -1;
  if (!fn) return sl__store_fail(s, op, "callback is NULL");
  /* Unlike the walks, 0 does not mean every run: the record does not say
   * which run it belongs to. */
  if (run_id <= 0)
    return sl__store_fail(s, op, "run id %lld is not positive",
                          (long long)run_id);
  sqlite3_stmt *st = sl__walk_stmt(s, SL__STMT_RUN_PROVIDERS, op);
  if (!st) return -1;
  sqlite3_bind_int64(st, 1, run_id);
  int rc = SQLITE_DONE, stop = 0;
  while (!stop && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    sl_provider_record p;
    memset(&p, 0, sizeof p);
    p.name = sl__text(st, 0);
    p.path = sl__text(st, 1);
    p.version = sl__text_or_null(st, 2);
    p.abi = (unsigned)sqlite3_column_int64(st, 3);
    p.n_variants = sqlite3_column_int(st, 4);
    p.builtin = sqlite3_column_int(st, 5);
    p.sha256 = sl__text(st, 6);
    p.origin = sl__text_or_null(st, 7);
    stop = fn(user, &p);
  }
  return sl__walk_end(s, st, rc, stop, op);
}

/* Runs a query that yields one integer; -1 (message on s) on failure. */
static int64_t sl__single(sl_store *s, sl__stmt_id id, int64_t arg,
                          const char *op) {
  sqlite3_stmt *st = sl__store_stmt(s, id, op);
  if (!st) return -1;
  if (sqlite3_bind_parameter_count(st) > 0) sqlite3_bind_int64(st, 1, arg);
  int64_t v = -1;
  if (sqlite3_step(st) == SQLITE_ROW)
    v = sqlite3_column_int64(st, 0);
  else
    sl__store_fail_db(s, op);
  sl__store_done(st);
  return v;
}

int64_t sl_store_last_run(sl_store *s) {
  if (!s || !s->db) return -1;
  return sl__single(s, SL__STMT_LAST_RUN, 0, "last_run");
}

int sl_store_has_run(sl_store *s, int64_t run_id) {
  if (!s || !s->db) return -1;
  int64_t n = sl__single(s, SL__STMT_HAS_RUN, run_id, "has_run");
  return n < 0 ? -1 : n > 0;
}

int sl_store_check(sl_store *s) {
  if (!s || !s->db) return -1;
  char msg[768];
  int v = sl__store_verify(s->db, 1, NULL, msg, sizeof msg);
  return v ? sl__store_fail(s, "check", "%s", msg) : 0;
}

/* ------------------------------------------------------------------------ */
/* Reading for reports: failures with their minimal case, benchmark runs.    */
/* These statements are prepared per call (reports run them once), so they  */
/* need no slot in the handle's statement table.                             */
/* ------------------------------------------------------------------------ */

int sl_store_each_failure(sl_store *s, int64_t run_id,
                          int (*fn)(void *user, const sl_failure_view *f),
                          void *user) {
  static const char op[] = "each_failure";
  /* The newest shrunk child is the smallest case the shrinker reached; the
   * cases_shrunk_from index makes the lookup cheap. */
  static const char sql[] =
      "SELECT c.run_id, c.id, c.op, c.case_line, x.variant, x.verdict,"
      " x.message, coalesce((SELECT m.case_line FROM cases m"
      "  WHERE m.shrunk_from = c.id ORDER BY m.id DESC LIMIT 1), c.case_line),"
      " x.signature"
      " FROM cases c JOIN results x ON x.case_id = c.id"
      " WHERE x.verdict IN " SL__FAILING_VERDICTS
      " AND c.shrunk_from IS NULL AND (?1 = 0 OR c.run_id = ?1)"
      " ORDER BY c.run_id, c.id, x.variant";
  if (!s || !s->db) return -1;
  if (sl__walk_check(s, fn != NULL, run_id, op)) return -1;
  sqlite3_stmt *st = sl__store_prepare(s, sql, 0, op);
  if (!st) return -1;
  sqlite3_bind_int64(st, 1, run_id);
  int rc = SQLITE_DONE, stop = 0;
  while (!stop && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    sl_failure_view v;
    v.run_id = sqlite3_column_int64(st, 0);
    v.case_id = sqlite3_column_int64(st, 1);
    v.op = sl__text(st, 2);
    v.case_line = sl__text(st, 3);
    v.variant = sl__text(st, 4);
    v.verdict = sl__text(st, 5);
    v.message = sl__text(st, 6);
    v.minimal_line = sl__text(st, 7);
    v.signature = sl__text(st, 8);
    stop = fn(user, &v);
  }
  int ret = stop;
  if (!stop && rc != SQLITE_DONE) ret = sl__store_fail_db(s, op);
  sqlite3_finalize(st);
  return ret;
}

int sl_store_each_failure_group(sl_store *s, int64_t run_id,
                                int (*fn)(void *user,
                                          const sl_failure_group_view *g),
                                void *user) {
  static const char op[] = "each_failure_group";
  /* A group's defect (schema 13), its own signature where none is known. */
#define SL__DEFECT "coalesce(nullif(fg.defect, ''), g.sig)"
  /* Only cases not shrunk from another are counted; the first case's
   * newest shrunk child is the group's minimal case. */
  static const char sql[] =
      "WITH g AS (SELECT x.signature AS sig, count(*) AS n,"
      "  min(c.id) AS first_id, max(c.id) AS last_id"
      "  FROM cases c JOIN results x ON x.case_id = c.id"
      "  WHERE x.signature != '' AND c.shrunk_from IS NULL"
      "  AND (?1 = 0 OR c.run_id = ?1) GROUP BY x.signature)"
      " SELECT g.sig, f.op, xf.variant, xf.verdict, xf.message, g.n,"
      " f.run_id, l.run_id, rf.started_at, rl.started_at,"
      " coalesce((SELECT m.case_line FROM cases m"
      "  WHERE m.shrunk_from = f.id ORDER BY m.id DESC LIMIT 1), f.case_line),"
      " f.case_line, coalesce(fg.first_run, f.run_id),"
      " coalesce(fg.first_commit, rf.git_commit), " SL__DEFECT
      " FROM g JOIN cases f ON f.id = g.first_id"
      " JOIN cases l ON l.id = g.last_id"
      " JOIN runs rf ON rf.id = f.run_id JOIN runs rl ON rl.id = l.run_id"
      " JOIN results xf ON xf.case_id = f.id AND xf.signature = g.sig"
      " LEFT JOIN failure_groups fg"
      "  ON fg.signature_id = sl_signature_id(g.sig)"
      " ORDER BY min(g.first_id) OVER (PARTITION BY " SL__DEFECT "),"
      " g.first_id";
#undef SL__DEFECT
  if (!s || !s->db) return -1;
  if (sl__walk_check(s, fn != NULL, run_id, op)) return -1;
  sqlite3_stmt *st = sl__store_prepare(s, sql, 0, op);
  if (!st) return -1;
  sqlite3_bind_int64(st, 1, run_id);
  int rc = SQLITE_DONE, stop = 0;
  while (!stop && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    sl_failure_group_view v;
    v.signature = sl__text(st, 0);
    v.op = sl__text(st, 1);
    v.variant = sl__text(st, 2);
    v.verdict = sl__text(st, 3);
    v.message = sl__text(st, 4);
    v.cases = sqlite3_column_int64(st, 5);
    v.first_run = sqlite3_column_int64(st, 6);
    v.last_run = sqlite3_column_int64(st, 7);
    v.first_seen = sl__text(st, 8);
    v.last_seen = sl__text(st, 9);
    v.minimal_line = sl__text(st, 10);
    v.found_line = sl__text(st, 11);
    v.origin_run = sqlite3_column_int64(st, 12);
    v.origin_commit = sl__text(st, 13);
    v.defect = sl__text(st, 14);
    stop = fn(user, &v);
  }
  int ret = stop;
  if (!stop && rc != SQLITE_DONE) ret = sl__store_fail_db(s, op);
  sqlite3_finalize(st);
  return ret;
}

int64_t sl_store_last_timed_run(sl_store *s) {
  static const char op[] = "last_timed_run";
  static const char sql[] = "SELECT coalesce(max(c.run_id), 0) FROM timings t"
                            " JOIN cases c ON c.id = t.case_id";
  if (!s || !s->db) return -1;
  sqlite3_stmt *st = sl__store_prepare(s, sql, 0, op);
  if (!st) return -1;
  int64_t v = -1;
  if (sqlite3_step(st) == SQLITE_ROW)
    v = sqlite3_column_int64(st, 0);
  else
    sl__store_fail_db(s, op);
  sqlite3_finalize(st);
  return v;
}
