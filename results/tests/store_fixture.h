/*
 * The scratch folder and run descriptions shared by the results store's
 * tests (test_store.c, test_store_upgrades.c): each is its own executable,
 * so the folder is a static of the one that includes this.
 */
#ifndef SL_STORE_FIXTURE_H
#define SL_STORE_FIXTURE_H

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sl_store.h"

static char tmpdir[256];

/* A fresh folder under $TMPDIR (or /tmp) for the test's files; 0 on
 * success. */
static inline int fixture_begin(void) {
  const char *base = getenv("TMPDIR");
  snprintf(tmpdir, sizeof tmpdir, "%s/sl_store_XXXXXX",
           base && *base ? base : "/tmp");
  if (mkdtemp(tmpdir)) return 0;
  perror("mkdtemp");
  return 1;
}

static inline void fixture_end(void) {
  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmpdir);
}

static inline void path_in(char *buf, size_t len, const char *name) {
  snprintf(buf, len, "%s/%s", tmpdir, name);
}

static inline int raw_exec(const char *path, const char *sql) {
  sqlite3 *db;
  int rc = sqlite3_open(path, &db);
  if (rc == SQLITE_OK) rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
  sqlite3_close(db);
  return rc;
}

static inline sl_run_info test_info(const char *kind) {
  sl_run_info ri;
  memset(&ri, 0, sizeof ri);
  ri.kind = kind;
  ri.command_line = "scatterlab run 'gather x=4 index=4'";
  ri.git_commit = "abc123";
  ri.host = "testhost";
  ri.cpu_model = "Test CPU";
  ri.compiler = "GNU 12";
  ri.flags = "-O2";
  ri.version = "0.1.0";
  ri.cores = 8;
  ri.threads = 4;
  return ri;
}

/* A walk re-entered from its own callback: the inner call's status and
 * message (the store must refuse it, not corrupt the walk). */
typedef struct reenter {
  sl_store *s;
  int inner_rc;
  char msg[256];
} reenter;

#endif /* SL_STORE_FIXTURE_H */
