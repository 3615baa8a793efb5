/*
 * What a fuzz campaign needs to be resumed: the options it ran with (the
 * run's config) and, per job, the next case it would have run (a cursor
 * written in the same transaction as each batch of results, so a resumed
 * campaign neither repeats nor skips a committed case).
 */
#include <stdio.h>
#include <string.h>

#include "store_internal.h"

/* An UPDATE of exactly one run; "no run N" otherwise. */
static int sl__one_run_changed(sl_store *s, sqlite3_stmt *st, int64_t run_id,
                               const char *op) {
  if (sl__store_step_done(s, st, op)) return -1;
  if (sqlite3_changes(s->db) != 1)
    return sl__store_fail(s, op, "no run %lld", (long long)run_id);
  return 0;
}

int sl_store_set_run_config(sl_store *s, int64_t run_id, const char *config) {
  static const char op[] = "set_run_config";
  if (sl__store_check_handle(s)) return -1;
  if (!config) return sl__store_fail(s, op, "config is NULL");
  if (sl__store_writable(s, op)) return -1;
  sqlite3_stmt *st = sl__store_stmt(s, SL__STMT_RUN_SET_CONFIG, op);
  if (!st) return -1;
  sqlite3_bind_int64(st, 1, run_id);
  sl__store_bind_text(st, 2, config);
  return sl__one_run_changed(s, st, run_id, op);
}

int sl_store_run_reopen(sl_store *s, int64_t run_id) {
  static const char op[] = "run_reopen";
  if (sl__store_check_handle(s)) return -1;
  if (sl__store_writable(s, op)) return -1;
  sqlite3_stmt *st = sl__store_stmt(s, SL__STMT_RUN_REOPEN, op);
  if (!st) return -1;
  sqlite3_bind_int64(st, 1, run_id);
  /* the resuming process writes the run from now on */
  char owner[SL__OWNER_BYTES];
  sl__run_owner_self(owner, sizeof owner);
  sl__store_bind_text(st, 2, owner);
  return sl__one_run_changed(s, st, run_id, op);
}

static void sl__copy_column(sqlite3_stmt *st, int col, char *buf, size_t len) {
  if (!buf || !len) return;
  const unsigned char *t = sqlite3_column_text(st, col);
  snprintf(buf, len, "%s", t ? (const char *)t : "");
}

int sl_store_get_run(sl_store *s, int64_t run_id, sl_run_brief *out) {
  static const char op[] = "get_run";
  if (sl__store_check_handle(s)) return -1;
  if (!out) return sl__store_fail(s, op, "out is NULL");
  sqlite3_stmt *st = sl__store_stmt(s, SL__STMT_RUN_GET, op);
  if (!st) return -1;
  sqlite3_bind_int64(st, 1, run_id);
  int rc = sqlite3_step(st);
  if (rc == SQLITE_ROW) {
    sl__copy_column(st, 0, out->kind, sizeof out->kind);
    snprintf(out->status, sizeof out->status, "%s",
             sl__run_status_seen((const char *)sqlite3_column_text(st, 1),
                                 (const char *)sqlite3_column_text(st, 3),
                                 &out->pid));
    sl__copy_column(st, 4, out->cpu_model, sizeof out->cpu_model);
    out->cores = sqlite3_column_int(st, 5);
    out->threads = sqlite3_column_int(st, 6);
    out->copy_gbs = sqlite3_column_double(st, 7);
    out->copy_gbs_end = sqlite3_column_double(st, 8);
    out->core_rtt_ns = sqlite3_column_double(st, 9);
    out->core_rtt_ns_end = sqlite3_column_double(st, 10);
    sl__copy_column(st, 11, out->git_commit, sizeof out->git_commit);
    sl__copy_column(st, 12, out->reference, sizeof out->reference);
    sl__copy_column(st, 2, out->config, sizeof out->config);
  }
  int ret = rc == SQLITE_ROW ? 0
            : rc == SQLITE_DONE
                ? sl__store_fail(s, op, "no run %lld", (long long)run_id)
                : sl__store_fail_db(s, op);
  sl__store_done(st);
  return ret;
}

int sl_store_set_cursor(sl_store *s, int64_t run_id, int job,
                        int64_t next_case) {
  static const char op[] = "set_cursor";
  if (sl__store_check_handle(s)) return -1;
  if (job < 0 || next_case < 0)
    return sl__store_fail(s, op,
                          "expected job >= 0 and next_case >= 0, got "
                          "job %d, next_case %lld",
                          job, (long long)next_case);
  if (sl__store_writable(s, op)) return -1;
  sqlite3_stmt *st = sl__store_stmt(s, SL__STMT_CURSOR_SET, op);
  if (!st) return -1;
  sqlite3_bind_int64(st, 1, run_id);
  sqlite3_bind_int(st, 2, job);
  sqlite3_bind_int64(st, 3, next_case);
  return sl__store_step_done(s, st, op);
}

int sl_store_get_cursor(sl_store *s, int64_t run_id, int job,
                        int64_t *next_case) {
  static const char op[] = "get_cursor";
  if (sl__store_check_handle(s)) return -1;
  if (!next_case) return sl__store_fail(s, op, "next_case is NULL");
  sqlite3_stmt *st = sl__store_stmt(s, SL__STMT_CURSOR_GET, op);
  if (!st) return -1;
  sqlite3_bind_int64(st, 1, run_id);
  sqlite3_bind_int(st, 2, job);
  int rc = sqlite3_step(st);
  *next_case = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
  int ret =
      rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : sl__store_fail_db(s, op);
  sl__store_done(st);
  return ret;
}
