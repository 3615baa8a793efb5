/*
 * Failure groups across runs (schema 12): the store remembers each group
 * (harness/engine/failure_group.h) it has seen, with the run and commit
 * that met it first, so that a campaign tells a new defect from a known
 * one. The rows are derived from the failing results that carry the
 * signature, and refreshed from them after every run that met the group:
 * a run killed before its refresh is counted by the next one that meets
 * the group, and a merge refreshes the groups of the runs it copied.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "store_internal.h"

void sl_store_signature_id(const char *signature, char id[17]) {
  uint64_t h = 1469598103934665603ull; /* FNV-1a 64 */
  for (const char *p = signature ? signature : ""; *p; ++p)
    h = (h ^ (unsigned char)*p) * 1099511628211ull;
  snprintf(id, 17, "%016" PRIx64, h);
}

/* sl_signature_id(TEXT): the SQL face of sl_store_signature_id, for the
 * statements that derive the rows (migration 12, the refresh, merge). */
static void sl__signature_id_fn(sqlite3_context *ctx, int argc,
                                sqlite3_value **argv) {
  (void)argc;
  const unsigned char *t = sqlite3_value_text(argv[0]);
  if (!t) {
    sqlite3_result_null(ctx);
    return;
  }
  char id[17];
  sl_store_signature_id((const char *)t, id);
  sqlite3_result_text(ctx, id, 16, SQLITE_TRANSIENT);
}

int sl__store_functions(sqlite3 *db) {
  return sqlite3_create_function_v2(db, "sl_signature_id", 1,
                                    SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL,
                                    sl__signature_id_fn, NULL, NULL, NULL);
}

int sl_store_known_group(sl_store *s, const char *id, sl_known_group *g) {
  static const char op[] = "known_group";
  static const char sql[] =
      "SELECT first_run, first_commit, last_run, count FROM failure_groups"
      " WHERE signature_id = ?1";
  if (sl__store_check_handle(s)) return -1;
  if (!id || !g) return sl__store_fail(s, op, "%s is NULL", id ? "g" : "id");
  memset(g, 0, sizeof *g);
  sqlite3_stmt *st = sl__store_prepare(s, sql, 0, op);
  if (!st) return -1;
  sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
  int rc = sqlite3_step(st), found = 0;
  if (rc == SQLITE_ROW) {
    g->first_run = sqlite3_column_int64(st, 0);
    const unsigned char *c = sqlite3_column_text(st, 1);
    snprintf(g->first_commit, sizeof g->first_commit, "%s",
             c ? (const char *)c : "");
    g->last_run = sqlite3_column_int64(st, 2);
    g->count = sqlite3_column_int64(st, 3);
    found = 1;
  } else if (rc != SQLITE_DONE) {
    found = sl__store_fail_db(s, op);
  }
  sqlite3_finalize(st);
  return found;
}

int sl_store_refresh_groups(sl_store *s, int64_t run_id) {
  static const char op[] = "refresh_groups";
  static const char sql[] = SL__GROUPS_REFRESH_SQL(
      "SELECT x2.signature FROM cases c2 JOIN results x2"
      " ON x2.case_id = c2.id WHERE c2.run_id = ?1 AND x2.signature != ''");
  if (sl__store_check_handle(s) || sl__store_writable(s, op)) return -1;
  if (run_id <= 0)
    return sl__store_fail(s, op, "run id %lld is not positive",
                          (long long)run_id);
  sqlite3_stmt *st = sl__store_prepare(s, sql, 0, op);
  if (!st) return -1;
  sqlite3_bind_int64(st, 1, run_id);
  int rc = sqlite3_step(st);
  sqlite3_finalize(st);
  return rc == SQLITE_DONE ? 0 : sl__store_fail_db(s, op);
}

int sl_store_set_group_defect(sl_store *s, const char *id, const char *defect) {
  static const char op[] = "set_group_defect";
  static const char sql[] =
      "UPDATE failure_groups SET defect = ?2 WHERE signature_id = ?1";
  if (sl__store_check_handle(s) || sl__store_writable(s, op)) return -1;
  if (!id || !defect)
    return sl__store_fail(s, op, "%s is NULL", id ? "defect" : "id");
  sqlite3_stmt *st = sl__store_prepare(s, sql, 0, op);
  if (!st) return -1;
  sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 2, defect, -1, SQLITE_STATIC);
  const int rc = sqlite3_step(st);
  sqlite3_finalize(st);
  return rc == SQLITE_DONE ? 0 : sl__store_fail_db(s, op);
}
