/*
 * Preparing the store's statements: every SL__FAILING_VERDICTS mark of a
 * statement's text becomes the SQL list of the failing verdicts of
 * results/verdicts.def (sl_verdict_sql_list), so that no statement
 * restates which verdicts fail.
 */
#include <string.h>

#include "sl_verdict.h"
#include "store_internal.h"

sqlite3_stmt *sl__store_prepare(sl_store *s, const char *sql, unsigned flags,
                                const char *op) {
  static const char mark[] = SL__FAILING_VERDICTS;
  char list[512], text[8192];
  if (strstr(sql, mark)) {
    if (sl_verdict_sql_list(1, list, sizeof list) < 0) {
      sl__store_fail(s, op,
                     "the failing verdicts' SQL list is longer than "
                     "%zu bytes",
                     sizeof list - 1);
      return NULL;
    }
    size_t n = 0;
    for (const char *from = sql;;) {
      const char *hit = strstr(from, mark);
      const size_t keep = hit ? (size_t)(hit - from) : strlen(from);
      const char *add = hit ? list : "";
      const size_t nadd = strlen(add);
      if (n + keep + nadd >= sizeof text) {
        sl__store_fail(s, op,
                       "statement longer than %zu bytes with the "
                       "failing verdicts written out",
                       sizeof text - 1);
        return NULL;
      }
      memcpy(text + n, from, keep);
      memcpy(text + n + keep, add, nadd);
      n += keep + nadd;
      if (!hit) break;
      from = hit + sizeof mark - 1;
    }
    text[n] = '\0';
    sql = text;
  }
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v3(s->db, sql, -1, flags, &st, NULL) != SQLITE_OK) {
    sl__store_fail_db(s, op);
    sqlite3_finalize(st);
    return NULL;
  }
  return st;
}
