/* The results store: opening (schema checks, WAL, a run whose process is gone),
 * verifying and closing (store_internal.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "store_internal.h"
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
  if (sl__store_functions(db) != SQLITE_OK) {
    snprintf(err, errlen, "%s: cannot register the store's SQL functions: %s",
             path, sqlite3_errmsg(db));
    goto fail_db;
  }
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
  return s ? s->err : sl__store_null_msg;
}

const char *sl_store_path(const sl_store *s) {
  return s && s->path ? s->path : "";
}
