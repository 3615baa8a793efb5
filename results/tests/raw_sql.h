/*
 * SQL run directly on a store file, behind the API, for the results tests:
 * one integer or one text value of a query's first row.
 */
#ifndef SL_RAW_SQL_H
#define SL_RAW_SQL_H

#include <sqlite3.h>
#include <stdio.h>

/* The first column of the first row, or -12345 when there is none. */
static inline long long raw_int(const char *path, const char *sql) {
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

/* The first column of the first row into out, or "" when there is none. */
static inline void raw_text(const char *path, const char *sql, char *out,
                            size_t len) {
  sqlite3 *db;
  out[0] = '\0';
  if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK) {
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
      if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
        snprintf(out, len, "%s", (const char *)sqlite3_column_text(st, 0));
      sqlite3_finalize(st);
    }
  }
  sqlite3_close(db);
}

#endif /* SL_RAW_SQL_H */
