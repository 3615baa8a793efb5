/*
 * The results store: opening, errors, transactions and the writes.
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
/* How long a writer waits for another process's transaction to end. */
#define SL__BUSY_MS 10000

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
        " abi, n_variants, builtin, sha256)"
        " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    [SL__STMT_RUN_PROVIDERS] =
        "SELECT name, path, version, abi, n_variants, builtin, sha256"
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
static int sl__run(sl_store *s, sl__stmt_id id, const char *op) {
  sqlite3_stmt *st = sl__store_stmt(s, id, op);
  return st ? sl__store_step_done(s, st, op) : -1;
}

static const char sl__null_store[] = "no store (NULL handle)";

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

static int sl__bind_text_or_null(sqlite3_stmt *st, int i, const char *v) {
  return v ? sqlite3_bind_text(st, i, v, -1, SQLITE_STATIC)
           : sqlite3_bind_null(st, i);
}

/* NaN has no SQL value: SQLite stores it as NULL, which is what we mean. */
static int sl__bind_real_or_null(sqlite3_stmt *st, int i, int present,
                                 double v) {
  return present ? sqlite3_bind_double(st, i, v) : sqlite3_bind_null(st, i);
}

/* ------------------------------------------------------------------------ */
/* Open and close                                                            */
/* ------------------------------------------------------------------------ */

int sl_store_schema_version(void) { return sl__store_known_version(); }

/* Creates the folder that will hold `path` (one level: "results/" of
 * "results/x.db"), so a first run needs no mkdir. */
static int sl__make_parent(const char *path, char *err, size_t errlen) {
  const char *slash = strrchr(path, '/');
  if (!slash || slash == path) return 0;
  size_t n = (size_t)(slash - path);
  char *dir = malloc(n + 1);
  if (!dir) {
    snprintf(err, errlen, "%s: out of memory", path);
    return -1;
  }
  memcpy(dir, path, n);
  dir[n] = '\0';
  int ret = 0;
  struct stat sb;
  if (stat(dir, &sb) != 0) {
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
      snprintf(err, errlen, "%s: cannot create folder %s: %s", path, dir,
               strerror(errno));
      ret = -1;
    }
  } else if (!S_ISDIR(sb.st_mode)) {
    snprintf(err, errlen, "%s: %s is not a folder", path, dir);
    ret = -1;
  }
  free(dir);
  return ret;
}

static int sl__pragma(sqlite3 *db, const char *sql, const char *path, char *err,
                      size_t errlen) {
  char *msg = NULL;
  int rc = sqlite3_exec(db, sql, NULL, NULL, &msg);
  if (rc != SQLITE_OK)
    snprintf(err, errlen, "%s: %s: %s", path, sql,
             msg ? msg : sqlite3_errstr(rc));
  sqlite3_free(msg);
  return rc == SQLITE_OK ? 0 : -1;
}

/* Switches the file to WAL. The switch needs an exclusive lock, and SQLite
 * does not wait for it through the busy handler: when several processes
 * open a new store at once (parallel fuzz jobs), the losers see "database is
 * locked". Retrying for as long as busy_timeout would wait is enough, since
 * the winner's switch makes ours a no-op. */
static int sl__set_wal(sqlite3 *db, const char *path, char *err,
                       size_t errlen) {
  int rc = SQLITE_OK;
  for (int waited = 0; waited <= SL__BUSY_MS; waited += 20) {
    rc = sqlite3_exec(db, "PRAGMA journal_mode = WAL", NULL, NULL, NULL);
    if ((rc & 0xff) != SQLITE_BUSY && (rc & 0xff) != SQLITE_LOCKED) break;
    sqlite3_sleep(20);
  }
  if (rc != SQLITE_OK) {
    snprintf(err, errlen, "%s: PRAGMA journal_mode = WAL: %s", path,
             sqlite3_errmsg(db));
    return -1;
  }
  return 0;
}

/* Marks 'interrupted' the runs still 'running' whose process is gone
 * (run_owner.c). Best effort: a run left as it was only reads 'running'
 * until the next open. The UPDATE names the owner that was judged, so a
 * run resumed in between (a new owner) is left alone. */
static void sl__mark_gone_runs(sl_store *s) {
  sqlite3_stmt *q = sl__store_stmt(s, SL__STMT_RUNS_OPEN, "open");
  if (!q) return;
  /* Judged first, written after: the SELECT is done before any UPDATE. */
  struct sl__gone {
    int64_t id;
    char owner[SL__OWNER_BYTES]; /* longer ones are not ours */
  } *gone = NULL;
  size_t n = 0, cap = 0;
  while (sqlite3_step(q) == SQLITE_ROW) {
    const char *o = (const char *)sqlite3_column_text(q, 1);
    if (!sl__run_owner_gone(o)) continue;
    if (n == cap) {
      struct sl__gone *g = realloc(gone, (cap = cap ? 2 * cap : 8) * sizeof *g);
      if (!g) break;
      gone = g;
    }
    gone[n].id = sqlite3_column_int64(q, 0);
    snprintf(gone[n++].owner, sizeof gone->owner, "%s", o);
  }
  sl__store_done(q);
  sqlite3_stmt *u = n ? sl__store_stmt(s, SL__STMT_RUN_ABANDON, "open") : NULL;
  for (size_t i = 0; u && i < n; ++i) {
    sqlite3_bind_int64(u, 1, gone[i].id);
    sl__store_bind_text(u, 2, gone[i].owner);
    sqlite3_step(u);
    sl__store_done(u);
  }
  free(gone);
  s->err[0] = '\0'; /* nothing failed that the caller asked for */
}

/* Runs PRAGMA quick_check (full: integrity_check, then foreign_key_check)
 * and collects what it finds: 0 when the store is sound, 1 when it is
 * damaged (the first findings in msg, all of them printed to out when out
 * is not NULL), -1 when the check itself could not run (msg says why). */
int sl__store_verify(sqlite3 *db, int full, FILE *out, char *msg,
                     size_t msglen) {
  static const char *const checks[2][2] = {
      {"PRAGMA quick_check(100)", NULL},
      {"PRAGMA integrity_check(1000)", "PRAGMA foreign_key_check"}};
  int damaged = 0;
  size_t k = 0;
  msg[0] = '\0';
  for (int c = 0; c < 2 && checks[full][c]; ++c) {
    sqlite3_stmt *q = NULL;
    int rc = sqlite3_prepare_v2(db, checks[full][c], -1, &q, NULL);
    if (rc != SQLITE_OK) {
      snprintf(msg, msglen, "%s: %s", checks[full][c], sqlite3_errmsg(db));
      return -1;
    }
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
      char line[512];
      if (c == 0) {
        const char *t = (const char *)sqlite3_column_text(q, 0);
        if (t && strcmp(t, "ok") == 0) continue;
        snprintf(line, sizeof line, "%s", t ? t : "(no text)");
      } else { /* table, rowid, parent, fkid */
        const char *t = (const char *)sqlite3_column_text(q, 0);
        const char *p = (const char *)sqlite3_column_text(q, 2);
        snprintf(line, sizeof line, "%s row %lld refers to a missing %s row",
                 t ? t : "?", (long long)sqlite3_column_int64(q, 1),
                 p ? p : "?");
      }
      ++damaged;
      if (out) fprintf(out, "  %s\n", line);
      if (k < msglen && damaged <= 3)
        k += (size_t)snprintf(msg + k, msglen - k, "%s%s", k ? "; " : "", line);
    }
    if (rc != SQLITE_DONE) {
      snprintf(msg, msglen, "%s: %s", checks[full][c], sqlite3_errmsg(db));
      sqlite3_finalize(q);
      return damaged ? 1 : -1;
    }
    sqlite3_finalize(q);
  }
  return damaged ? 1 : 0;
}

/* Whether path lies on a read-only file system (a read-only mount, a CD):
 * its folder refuses writes with EROFS. */
static int sl__on_readonly_fs(const char *path) {
  char dir[4096];
  snprintf(dir, sizeof dir, "%s", path);
  char *slash = strrchr(dir, '/');
  if (!slash)
    snprintf(dir, sizeof dir, ".");
  else if (slash == dir)
    dir[1] = '\0';
  else
    *slash = '\0';
  return access(dir, W_OK) != 0 && errno == EROFS;
}

/*
 * The name SQLite should open path by. A store is in WAL mode, and a WAL
 * reader needs the -shm file, which it cannot create on a read-only file
 * system: there the store is named by a URI with immutable=1 (no locks, no
 * -shm), safe only because nothing can write it there either, and only
 * for reading (a writer there fails on its first write, naming the store).
 * Elsewhere path itself; one that starts with "file:" gets "./" so that a
 * connection opened with SQLITE_OPEN_URI (for ATTACH of such a URI, see
 * merge.c) does not read it as one. Returns a malloc'd name, or NULL.
 */
char *sl__store_open_name(const char *path, int reading) {
  size_t n = strlen(path);
  char *name = malloc(3 * n + 32);
  if (!name) return NULL;
  if (!reading || !sl__on_readonly_fs(path)) {
    sprintf(name, "%s%s", strncmp(path, "file:", 5) ? "" : "./", path);
    return name;
  }
  char *u = name + sprintf(name, "file:");
  for (const char *c = path; *c; ++c)
    u += strchr("%?#", *c) ? sprintf(u, "%%%02X", (unsigned char)*c)
                           : sprintf(u, "%c", *c);
  sprintf(u, "?immutable=1");
  return name;
}

/* Opens path read-only (or read-write), by sl__store_open_name's name. */
static int sl__open_named(const char *path, int flags, sqlite3 **db) {
  char *name = sl__store_open_name(path, !(flags & SQLITE_OPEN_READWRITE));
  if (!name) return SQLITE_NOMEM;
  int rc = sqlite3_open_v2(name, db, flags | SQLITE_OPEN_URI, NULL);
  free(name);
  return rc;
}

int sl_store_verify(const char *path, int full, FILE *out, char *err,
                    size_t errlen) {
  sqlite3 *db = NULL;
  int rc = sl__open_named(path, SQLITE_OPEN_READONLY, &db);
  if (rc != SQLITE_OK) {
    snprintf(err, errlen, "%s: cannot open: %s", path,
             db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
    sqlite3_close(db);
    return -1;
  }
  sqlite3_busy_timeout(db, SL__BUSY_MS);
  char msg[1024];
  int v = sl__store_verify(db, full, out, msg, sizeof msg);
  if (v) snprintf(err, errlen, "%s: %s", path, msg);
  sqlite3_close(db);
  return v;
}

int sl_store_open(const char *path, sl_store_mode mode, sl_store **out,
                  char *err, size_t errlen) {
  char dummy[8];
  sqlite3 *db = NULL;
  sl_store *s = NULL;
  int upgrade = 0;
  if (!err || errlen == 0) {
    err = dummy;
    errlen = sizeof dummy;
  }
  err[0] = '\0';
  if (out) *out = NULL;
  if (!path || !*path || !out) {
    snprintf(err, errlen, "sl_store_open: %s is NULL or empty",
             !path || !*path ? "path" : "out");
    return -1;
  }
  if (mode != SL_STORE_READWRITE && mode != SL_STORE_READONLY) {
    snprintf(err, errlen, "%s: unknown open mode %d", path, (int)mode);
    return -1;
  }
  if (mode == SL_STORE_READWRITE && sl__make_parent(path, err, errlen))
    return -1;
  int rc = sl__open_named(path,
                          mode == SL_STORE_READONLY
                              ? SQLITE_OPEN_READONLY
                              : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                          &db);
  if (rc != SQLITE_OK) {
    snprintf(err, errlen, "%s: cannot open: %s", path,
             db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
    goto fail_db;
  }
  sqlite3_extended_result_codes(db, 1);
  /* Another process may hold the write lock for a while (a fuzz job commits
   * twice a second): wait for it instead of failing. */
  sqlite3_busy_timeout(db, SL__BUSY_MS);
  if (sl__store_schema_check(db, path, mode, &upgrade, err, errlen))
    goto fail_db;
  if (mode == SL_STORE_READWRITE) {
    /* A damaged store must not take new results (they could land in a
     * broken b-tree and be lost with it): quick_check reads every page once,
     * which every writing command pays (a 156 MB store on the 2-core VM:
     * 0.9 s with the file cached, a one-case run 2.7 s instead of 1.1 s). */
    char msg[768];
    int v = sl__store_verify(db, 0, NULL, msg, sizeof msg);
    if (v) {
      snprintf(err, errlen,
               "%s: %s%s; nothing was written (`scatterlab check --db %s` "
               "lists every problem; restore a copy or start a new store)",
               path, v > 0 ? "the store is damaged: " : "cannot check: ", msg,
               path);
      goto fail_db;
    }
    /* WAL lets reports read while a run writes; NORMAL is durable in WAL
     * except for the last transactions on power loss, which a rerun redoes. */
    if (sl__set_wal(db, path, err, errlen) ||
        sl__pragma(db, "PRAGMA synchronous = NORMAL", path, err, errlen))
      goto fail_db;
  }
  if (sl__pragma(db, "PRAGMA foreign_keys = ON", path, err, errlen))
    goto fail_db;
  if (upgrade && sl__store_upgrade(db, path, err, errlen)) goto fail_db;

  s = calloc(1, sizeof *s);
  if (!s || !(s->path = strdup(path))) {
    free(s);
    snprintf(err, errlen, "%s: out of memory", path);
    goto fail_db;
  }
  s->db = db;
  s->mode = mode;
  if (mode == SL_STORE_READWRITE) sl__mark_gone_runs(s);
  *out = s;
  return 0;
fail_db:
  sqlite3_close(db);
  return -1;
}

void sl_store_close(sl_store *s) {
  if (!s) return;
  if (s->db && !sqlite3_get_autocommit(s->db))
    sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
  for (int i = 0; i < SL__STMT_COUNT; ++i) sqlite3_finalize(s->stmt[i]);
  sqlite3_close(s->db);
  free(s->samples);
  free(s->path);
  free(s);
}

const char *sl_store_errmsg(const sl_store *s) {
  return s ? s->err : sl__null_store;
}

const char *sl_store_path(const sl_store *s) {
  return s && s->path ? s->path : "";
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
  return s->mode == SL_STORE_READONLY ? sl__run(s, SL__STMT_BEGIN_READ, "begin")
                                      : sl__run(s, SL__STMT_BEGIN, "begin");
}

int sl_store_commit(sl_store *s) {
  if (sl__store_check_handle(s)) return -1;
  return sl__run(s, SL__STMT_COMMIT, "commit");
}

int sl_store_rollback(sl_store *s) {
  if (sl__store_check_handle(s)) return -1;
  s->tally_case = 0; /* its rowid may be taken again by another case */
  return sl__run(s, SL__STMT_ROLLBACK, "rollback");
}

/* ------------------------------------------------------------------------ */
/* Runs                                                                      */
/* ------------------------------------------------------------------------ */

/* Whether v is 64 lower-case hex digits, as sl_sha256_hex writes them. */
static int sl__is_sha256_hex(const char *v) {
  size_t n = 0;
  for (; v[n]; ++n)
    if (!((v[n] >= '0' && v[n] <= '9') || (v[n] >= 'a' && v[n] <= 'f')))
      return 0;
  return n == 64;
}

/* Checks the provider records of a run before anything is written, so that
 * a caller's mistake reads as one, naming the record, rather than as a
 * constraint of the schema. */
static int sl__check_providers(sl_store *s, const sl_run_info *info,
                               const char *op) {
  if (info->n_providers < 0)
    return sl__store_fail(s, op, "info->n_providers is %d", info->n_providers);
  if (info->n_providers > 0 && !info->providers)
    return sl__store_fail(s, op, "info->providers is NULL with n_providers %d",
                          info->n_providers);
  for (int i = 0; i < info->n_providers; ++i) {
    const sl_provider_record *p = &info->providers[i];
    if (!p->name || !*p->name || !p->path || !p->sha256)
      return sl__store_fail(s, op, "provider %d: %s", i,
                            !p->name    ? "name is NULL"
                            : !*p->name ? "name is empty"
                            : !p->path  ? "path is NULL"
                                        : "sha256 is NULL");
    if (p->path[0] != '/')
      return sl__store_fail(s, op,
                            "provider %d (%s): path '%s' is not absolute", i,
                            p->name, p->path);
    if (!sl__is_sha256_hex(p->sha256))
      return sl__store_fail(s, op,
                            "provider %d (%s): sha256 '%s' is not 64 "
                            "lower-case hex digits",
                            i, p->name, p->sha256);
    if (p->n_variants < 0)
      return sl__store_fail(s, op, "provider %d (%s): n_variants is %d", i,
                            p->name, p->n_variants);
  }
  return 0;
}

/* The run_providers rows of a new run. */
static int sl__add_providers(sl_store *s, int64_t run_id,
                             const sl_run_info *info, const char *op) {
  if (info->n_providers == 0) return 0;
  sqlite3_stmt *st = sl__store_stmt(s, SL__STMT_PROVIDER_INSERT, op);
  if (!st) return -1;
  for (int i = 0; i < info->n_providers; ++i) {
    const sl_provider_record *p = &info->providers[i];
    sqlite3_bind_int64(st, 1, run_id);
    sqlite3_bind_int(st, 2, i);
    sl__store_bind_text(st, 3, p->name);
    sl__store_bind_text(st, 4, p->path);
    sl__bind_text_or_null(st, 5, p->version);
    sqlite3_bind_int64(st, 6, (int64_t)p->abi);
    sqlite3_bind_int(st, 7, p->n_variants);
    sqlite3_bind_int(st, 8, p->builtin != 0);
    sl__store_bind_text(st, 9, p->sha256);
    if (sqlite3_step(st) != SQLITE_DONE) {
      /* Name the record: "UNIQUE constraint failed" alone does not say
       * which. */
      sl__store_fail(s, op, "provider %d (%s, %s): %s", i, p->name, p->path,
                     sqlite3_errmsg(s->db));
      sl__store_done(st);
      return -1;
    }
    sl__store_done(st);
  }
  return 0;
}

/* The runs row itself; sets *run_id. */
static int sl__insert_run(sl_store *s, const sl_run_info *info, int64_t *run_id,
                          const char *op) {
  sqlite3_stmt *st = sl__store_stmt(s, SL__STMT_RUN_INSERT, op);
  if (!st) return -1;
  sl__store_bind_text(st, 1, info->kind);
  sl__store_bind_text(st, 2, info->command_line);
  sl__store_bind_text(st, 3, info->git_commit);
  sl__store_bind_text(st, 4, info->host);
  sl__store_bind_text(st, 5, info->cpu_model);
  sl__store_bind_text(st, 6, info->compiler);
  sl__store_bind_text(st, 7, info->flags);
  sl__store_bind_text(st, 8, info->version);
  sl__bind_text_or_null(st, 9, info->device);
  if (info->cores > 0) sqlite3_bind_int(st, 10, info->cores);
  if (info->threads > 0) sqlite3_bind_int(st, 11, info->threads);
  sl__bind_real_or_null(st, 12, info->copy_gbs > 0, info->copy_gbs);
  char owner[SL__OWNER_BYTES];
  sl__run_owner_self(owner, sizeof owner);
  sl__store_bind_text(st, 13, owner);
  sl__bind_real_or_null(st, 14, info->core_rtt_ns > 0, info->core_rtt_ns);
  sl__bind_text_or_null(st, 15, info->reference);
  sl__store_bind_text(st, 16, info->keep && *info->keep ? info->keep : "all");
  if (sl__store_step_done(s, st, op)) return -1;
  *run_id = sqlite3_last_insert_rowid(s->db);
  return 0;
}

int sl_store_run_begin(sl_store *s, const sl_run_info *info, int64_t *run_id) {
  static const char op[] = "run_begin";
  if (sl__store_check_handle(s)) return -1;
  if (!info || !info->kind || !run_id)
    return sl__store_fail(s, op, "%s is NULL",
                          !info         ? "info"
                          : !info->kind ? "info->kind"
                                        : "run_id");
  if (sl__check_providers(s, info, op) || sl__store_writable(s, op)) return -1;
  /* A savepoint makes the run and its providers one unit, inside or
   * outside the caller's transaction: a run is never seen without the
   * providers it ran. */
  if (sl__run(s, SL__STMT_RUN_SAVEPOINT, op)) return -1;
  int64_t id = 0;
  if (sl__insert_run(s, info, &id, op) == 0 &&
      sl__add_providers(s, id, info, op) == 0) {
    if (sl__run(s, SL__STMT_RUN_RELEASE, op)) return -1;
    *run_id = id;
    return 0;
  }
  /* Keep the message of the failure, not of the cleanup. */
  char keep[sizeof s->err];
  memcpy(keep, s->err, sizeof keep);
  sl__run(s, SL__STMT_RUN_ROLLBACK_TO, op);
  sl__run(s, SL__STMT_RUN_RELEASE, op);
  memcpy(s->err, keep, sizeof keep);
  return -1;
}

/* An UPDATE of one run: the run must exist. */
static int sl__update_run(sl_store *s, sqlite3_stmt *st, int64_t run_id,
                          const char *op) {
  if (sl__store_step_done(s, st, op)) return -1;
  if (sqlite3_changes(s->db) != 1)
    return sl__store_fail(s, op, "no run %lld", (long long)run_id);
  return 0;
}

int sl_store_run_finish(sl_store *s, int64_t run_id, const char *status) {
  static const char op[] = "run_finish";
  if (sl__store_check_handle(s)) return -1;
  if (!status) return sl__store_fail(s, op, "status is NULL");
  if (sl__store_writable(s, op)) return -1;
  sqlite3_stmt *st = sl__store_stmt(s, SL__STMT_RUN_FINISH, op);
  if (!st) return -1;
  sqlite3_bind_int64(st, 1, run_id);
  sl__store_bind_text(st, 2, status);
  return sl__update_run(s, st, run_id, op);
}

/* Sets one probe column of a run (statement `which`); value <= 0: NULL. */
static int sl__set_probe(sl_store *s, int which, const char *op, int64_t run_id,
                         double value) {
  if (sl__store_check_handle(s)) return -1;
  if (sl__store_writable(s, op)) return -1;
  sqlite3_stmt *st = sl__store_stmt(s, which, op);
  if (!st) return -1;
  sqlite3_bind_int64(st, 1, run_id);
  sl__bind_real_or_null(st, 2, value > 0, value);
  return sl__update_run(s, st, run_id, op);
}

int sl_store_set_copy_gbs(sl_store *s, int64_t run_id, double gbs) {
  return sl__set_probe(s, SL__STMT_RUN_COPY_GBS, "set_copy_gbs", run_id, gbs);
}

int sl_store_set_copy_gbs_end(sl_store *s, int64_t run_id, double gbs) {
  return sl__set_probe(s, SL__STMT_RUN_COPY_GBS_END, "set_copy_gbs_end", run_id,
                       gbs);
}

int sl_store_set_core_rtt_end(sl_store *s, int64_t run_id, double ns) {
  return sl__set_probe(s, SL__STMT_RUN_CORE_RTT_END, "set_core_rtt_end", run_id,
                       ns);
}

/* ------------------------------------------------------------------------ */
/* Cases, results, timings, coverage                                         */
/* ------------------------------------------------------------------------ */

/* The dtype of a case line as the case parser reads it: the value of its
 * dt= word, f32 when it has none (the migration to schema 8 reads old
 * lines the same way). */
static void sl__line_dtype(const char *line, char *dt, size_t len) {
  snprintf(dt, len, "f32");
  for (const char *p = line; (p = strstr(p, "dt=")); p += 3)
    if (p == line || p[-1] == ' ' || p[-1] == '\t') {
      size_t n = strcspn(p + 3, " \t\r\n");
      snprintf(dt, len, "%.*s", (int)(n < len ? n : len - 1), p + 3);
      return;
    }
}

/* Remembers which run, op and dtype case `id` has, for its tallies. */
static void sl__tally_key(sl_store *s, int64_t id, int64_t run_id,
                          const char *op_name, const char *line) {
  s->tally_case = id;
  s->tally_run = run_id;
  snprintf(s->tally_op, sizeof s->tally_op, "%s", op_name);
  sl__line_dtype(line, s->tally_dtype, sizeof s->tally_dtype);
}

int sl_store_add_case(sl_store *s, int64_t run_id, const char *op_name,
                      const char *case_line, uint64_t seed, int64_t shrunk_from,
                      int64_t *case_id) {
  static const char op[] = "add_case";
  if (sl__store_check_handle(s)) return -1;
  if (!op_name || !case_line)
    return sl__store_fail(s, op, "%s is NULL", !op_name ? "op" : "case_line");
  if (sl__store_writable(s, op)) return -1;
  sqlite3_stmt *st = sl__store_stmt(s, SL__STMT_CASE_INSERT, op);
  if (!st) return -1;
  sqlite3_bind_int64(st, 1, run_id);
  sl__store_bind_text(st, 2, op_name);
  sl__store_bind_text(st, 3, case_line);
  /* SQLite integers are signed: keep the seed's 64 bits as they are. */
  sqlite3_bind_int64(st, 4, (int64_t)seed);
  if (shrunk_from != 0) sqlite3_bind_int64(st, 5, shrunk_from);
  if (sl__store_step_done(s, st, op)) return -1;
  const int64_t id = sqlite3_last_insert_rowid(s->db);
  if (case_id) *case_id = id;
  sl__tally_key(s, id, run_id, op_name, case_line);
  /* A shrunk case is a copy of a failure already counted: neither it nor
   * its verdicts are counted again (runs.ncases, tallies). */
  s->tally_skip = shrunk_from != 0;
  return shrunk_from != 0 ? 0 : sl_store_count_case(s, run_id);
}

int sl_store_count_case(sl_store *s, int64_t run_id) {
  static const char op[] = "count_case";
  if (sl__store_check_handle(s) || sl__store_writable(s, op)) return -1;
  sqlite3_stmt *st = sl__store_stmt(s, SL__STMT_RUN_NCASES_ADD, op);
  if (!st) return -1;
  sqlite3_bind_int64(st, 1, run_id);
  return sl__store_step_done(s, st, op);
}

int sl_store_tally(sl_store *s, int64_t run_id, const char *op_name,
                   const char *dtype, const char *variant,
                   const char *verdict) {
  static const char op[] = "tally";
  if (sl__store_check_handle(s)) return -1;
  if (!op_name || !dtype || !variant || !verdict)
    return sl__store_fail(s, op, "%s is NULL",
                          !op_name   ? "op"
                          : !dtype   ? "dtype"
                          : !variant ? "variant"
                                     : "verdict");
  if (sl__store_writable(s, op)) return -1;
  sqlite3_stmt *st = sl__store_stmt(s, SL__STMT_TALLY_ADD, op);
  if (!st) return -1;
  sqlite3_bind_int64(st, 1, run_id);
  sl__store_bind_text(st, 2, op_name);
  sl__store_bind_text(st, 3, dtype);
  sl__store_bind_text(st, 4, variant);
  sl__store_bind_text(st, 5, verdict);
  return sl__store_step_done(s, st, op);
}

int sl_store_add_result(sl_store *s, int64_t case_id, const sl_result_row *r) {
  static const char op[] = "add_result";
  if (sl__store_check_handle(s)) return -1;
  if (!r || !r->variant || !r->verdict)
    return sl__store_fail(s, op, "%s is NULL",
                          !r            ? "row"
                          : !r->variant ? "variant"
                                        : "verdict");
  if (sl__store_writable(s, op)) return -1;
  sqlite3_stmt *st = sl__store_stmt(s, SL__STMT_RESULT_INSERT, op);
  if (!st) return -1;
  sqlite3_bind_int64(st, 1, case_id);
  sl__store_bind_text(st, 2, r->variant);
  sl__store_bind_text(st, 3, r->verdict);
  sl__bind_real_or_null(st, 4, r->has_diffs, r->diff1);
  sl__bind_real_or_null(st, 5, r->has_diffs, r->diff2);
  sl__bind_real_or_null(st, 6, r->has_diffs, r->diff3);
  sl__store_bind_text(st, 7, r->message);
  sl__bind_real_or_null(st, 8, r->seconds >= 0, r->seconds);
  if (sqlite3_step(st) == SQLITE_DONE) {
    sl__store_done(st);
    /* Every stored verdict is counted too (a run that keeps only some
     * cases counts the others with sl_store_tally). */
    if (s->tally_case == case_id && s->tally_skip) return 0;
    if (s->tally_case != case_id) {
      sqlite3_stmt *k = sl__store_stmt(s, SL__STMT_CASE_KEY, op);
      if (!k) return -1;
      sqlite3_bind_int64(k, 1, case_id);
      if (sqlite3_step(k) != SQLITE_ROW) {
        sl__store_done(k);
        return sl__store_fail(s, op, "case %lld: not found",
                              (long long)case_id);
      }
      sl__tally_key(s, case_id, sqlite3_column_int64(k, 0),
                    (const char *)sqlite3_column_text(k, 1),
                    (const char *)sqlite3_column_text(k, 2));
      s->tally_skip = 0; /* a case added earlier: counted as it always was */
      sl__store_done(k);
    }
    return sl_store_tally(s, s->tally_run, s->tally_op, s->tally_dtype,
                          r->variant, r->verdict);
  }
  /* Name the row: "CHECK constraint failed" alone does not say which. */
  sl__store_fail(s, op, "case %lld, variant %s, verdict %s: %s",
                 (long long)case_id, r->variant, r->verdict,
                 sqlite3_errmsg(s->db));
  sl__store_done(st);
  return -1;
}

int sl_store_set_signature(sl_store *s, int64_t case_id, const char *variant,
                           const char *signature) {
  static const char op[] = "set_signature";
  if (sl__store_check_handle(s)) return -1;
  if (!variant || !signature)
    return sl__store_fail(s, op, "%s is NULL",
                          !variant ? "variant" : "signature");
  if (sl__store_writable(s, op)) return -1;
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(s->db,
                         "UPDATE results SET signature = ?3"
                         " WHERE case_id = ?1 AND variant = ?2",
                         -1, &st, NULL) != SQLITE_OK)
    return sl__store_fail_db(s, op);
  sqlite3_bind_int64(st, 1, case_id);
  sl__store_bind_text(st, 2, variant);
  sl__store_bind_text(st, 3, signature);
  int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : sl__store_fail_db(s, op);
  sqlite3_finalize(st);
  return rc;
}

static int sl__add_timing_rows(sl_store *s, int64_t case_id,
                               const sl_timing_row *t,
                               const sl_timing_counts *counts,
                               int64_t *timing_id) {
  static const char op[] = "add_timing";
  sqlite3_stmt *st = sl__store_stmt(s, SL__STMT_TIMING_INSERT, op);
  sqlite3_stmt *sp = sl__store_stmt(s, SL__STMT_SAMPLE_INSERT, op);
  if (!st || !sp) return -1;
  sqlite3_bind_int64(st, 1, case_id);
  sl__store_bind_text(st, 2, t->variant);
  sqlite3_bind_int(st, 3, t->threads);
  sqlite3_bind_int(st, 4, t->reps);
  sqlite3_bind_double(st, 5, t->median_s);
  sqlite3_bind_double(st, 6, t->iqr_s);
  sqlite3_bind_double(st, 7, t->min_s);
  sqlite3_bind_int64(st, 8, t->bytes);
  sqlite3_bind_double(st, 9, t->gbs);
  sl__bind_real_or_null(st, 10, t->pct_peak >= 0, t->pct_peak);
  sqlite3_bind_int(st, 11, t->cold);
  const sl_timing_counts none = {-1, -1, -1}, *c = counts ? counts : &none;
  sl__bind_real_or_null(st, 12, c->instructions >= 0, c->instructions);
  sl__bind_real_or_null(st, 13, c->cycles >= 0, c->cycles);
  sl__bind_real_or_null(st, 14, c->cache_misses >= 0, c->cache_misses);
  if (sqlite3_step(st) != SQLITE_DONE) {
    sl__store_fail(s, op, "case %lld, variant %s, %d threads, cold %d: %s",
                   (long long)case_id, t->variant, t->threads, t->cold,
                   sqlite3_errmsg(s->db));
    sl__store_done(st);
    return -1;
  }
  sl__store_done(st);
  int64_t id = sqlite3_last_insert_rowid(s->db);
  for (int i = 0; i < t->nsamples; ++i) {
    sqlite3_bind_int64(sp, 1, id);
    sqlite3_bind_int(sp, 2, i);
    sqlite3_bind_double(sp, 3, t->samples[i]);
    if (sl__store_step_done(s, sp, op)) return -1;
  }
  if (timing_id) *timing_id = id;
  return 0;
}

int sl_store_add_timing(sl_store *s, int64_t case_id, const sl_timing_row *t,
                        int64_t *timing_id) {
  return sl_store_add_timing_counted(s, case_id, t, NULL, timing_id);
}

int sl_store_add_timing_counted(sl_store *s, int64_t case_id,
                                const sl_timing_row *t,
                                const sl_timing_counts *counts,
                                int64_t *timing_id) {
  static const char op[] = "add_timing";
  if (sl__store_check_handle(s)) return -1;
  if (!t || !t->variant)
    return sl__store_fail(s, op, "%s is NULL", !t ? "row" : "variant");
  if (t->nsamples < 0 || (t->nsamples > 0 && !t->samples))
    return sl__store_fail(s, op, "nsamples is %d with samples %s", t->nsamples,
                          t->samples ? "set" : "NULL");
  if (sl__store_writable(s, op)) return -1;
  /* A savepoint makes the summary and its samples one unit, inside or
   * outside the caller's transaction. */
  if (sl__run(s, SL__STMT_SAVEPOINT, op)) return -1;
  if (sl__add_timing_rows(s, case_id, t, counts, timing_id) == 0)
    return sl__run(s, SL__STMT_RELEASE, op);
  /* Keep the message of the failure, not of the cleanup. */
  char keep[sizeof s->err];
  memcpy(keep, s->err, sizeof keep);
  sl__run(s, SL__STMT_ROLLBACK_TO, op);
  sl__run(s, SL__STMT_RELEASE, op);
  memcpy(s->err, keep, sizeof keep);
  return -1;
}

int sl_store_add_coverage(sl_store *s, int64_t run_id, const char *cell,
                          int64_t cases, int64_t failures) {
  static const char op[] = "add_coverage";
  if (sl__store_check_handle(s)) return -1;
  if (!cell) return sl__store_fail(s, op, "cell is NULL");
  if (sl__store_writable(s, op)) return -1;
  sqlite3_stmt *st = sl__store_stmt(s, SL__STMT_COVERAGE_ADD, op);
  if (!st) return -1;
  sqlite3_bind_int64(st, 1, run_id);
  sl__store_bind_text(st, 2, cell);
  sqlite3_bind_int64(st, 3, cases);
  sqlite3_bind_int64(st, 4, failures);
  return sl__store_step_done(s, st, op);
}
