/*
 * Internals of the results store, shared by store.c (open, close, writes),
 * store_read.c (the walks for reports) and migrate.c (schema versions).
 * Nothing outside results/ includes this file.
 */
#ifndef SL_STORE_INTERNAL_H
#define SL_STORE_INTERNAL_H

#include <sqlite3.h>
#include <stddef.h>

#include "sl_store.h"

/* PRAGMA application_id of a scatterlab store: 'SLAB' (schema.sql sets it). */
#define SL__STORE_APP_ID 0x534C4142

/* Every statement the store runs. Each is prepared the first time it is used
 * and then kept on the handle, so a handle prepares a statement at most once
 * and a read-only handle never prepares the writes. */
typedef enum sl__stmt_id {
  SL__STMT_BEGIN,
  SL__STMT_BEGIN_READ,
  SL__STMT_COMMIT,
  SL__STMT_ROLLBACK,
  SL__STMT_SAVEPOINT,
  SL__STMT_RELEASE,
  SL__STMT_ROLLBACK_TO,
  SL__STMT_RUN_INSERT,
  SL__STMT_RUN_FINISH,
  SL__STMT_RUN_COPY_GBS,
  SL__STMT_RUN_COPY_GBS_END,
  SL__STMT_RUN_CORE_RTT_END,
  SL__STMT_CASE_INSERT,
  SL__STMT_RESULT_INSERT,
  SL__STMT_TIMING_INSERT,
  SL__STMT_SAMPLE_INSERT,
  SL__STMT_COVERAGE_ADD,
  SL__STMT_RUNS,
  SL__STMT_RESULTS_ALL,
  SL__STMT_RESULTS_RUN,
  SL__STMT_TIMINGS_ALL,
  SL__STMT_TIMINGS_RUN,
  SL__STMT_SAMPLES,
  SL__STMT_COVERAGE_ALL,
  SL__STMT_COVERAGE_RUN,
  SL__STMT_LAST_RUN,
  SL__STMT_HAS_RUN,
  /* Campaigns (store_campaign.c). */
  SL__STMT_RUN_SET_CONFIG,
  SL__STMT_RUN_GET,
  SL__STMT_RUN_REOPEN,
  SL__STMT_CURSOR_SET,
  SL__STMT_CURSOR_GET,
  SL__STMT_RUNS_OPEN,
  SL__STMT_RUN_ABANDON,
  /* Providers (schema 7): run_begin's savepoint and rows, and the walk. */
  SL__STMT_RUN_SAVEPOINT,
  SL__STMT_RUN_RELEASE,
  SL__STMT_RUN_ROLLBACK_TO,
  SL__STMT_PROVIDER_INSERT,
  SL__STMT_RUN_PROVIDERS,
  /* Store modes (schema 8): verdict tallies and judged cases. */
  SL__STMT_TALLY_ADD,
  SL__STMT_RUN_NCASES_ADD,
  SL__STMT_TALLIES_ALL,
  SL__STMT_TALLIES_RUN,
  SL__STMT_CASE_KEY,
  SL__STMT_COUNT
} sl__stmt_id;

struct sl_store {
  sqlite3 *db;
  sl_store_mode mode;
  char *path;
  char err[1024];
  sqlite3_stmt *stmt[SL__STMT_COUNT];
  /* The case the last results were tallied for (its run, op and dtype), so
   * that a case's verdicts cost one lookup at most. */
  int64_t tally_case, tally_run;
  int tally_skip; /* tally_case is a shrunk copy: its verdicts not counted */
  char tally_op[64], tally_dtype[16];
  double *samples; /* buffer behind sl_timing_view.samples */
  size_t samples_cap;
};

/* Records "path: op: reason" on s and returns -1. */
/* The checks of sl_store_verify on an open handle (store.c): 0 sound, 1
 * damaged (first findings in msg; every one printed to out if not NULL),
 * -1 not checkable. */
int sl__store_verify(sqlite3 *db, int full, FILE *out, char *msg,
                     size_t msglen);
int sl__store_fail(sl_store *s, const char *op, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Records "path: op: <SQLite's message for the last error>" and returns -1. */
int sl__store_fail_db(sl_store *s, const char *op);
/* The statement `id`, prepared on first use; NULL (message on s) on failure.
 * `op` names the public operation for that message. */
sqlite3_stmt *sl__store_stmt(sl_store *s, sl__stmt_id id, const char *op);
/* Where a statement's text wants the SQL list of the failing verdicts
 * ("x.verdict IN " SL__FAILING_VERDICTS): sl__store_prepare writes
 * sl_verdict_sql_list's list there, so that the list comes from
 * verdicts.def and no statement restates it. */
#define SL__FAILING_VERDICTS "@failing_verdicts@"
/* Prepares sql (SL__FAILING_VERDICTS written out) with prepare_v3's flags;
 * NULL (message on s, naming op) on failure. */
sqlite3_stmt *sl__store_prepare(sl_store *s, const char *sql, unsigned flags,
                                const char *op);
/* Runs a statement that returns no rows (bindings made), then resets it. */
int sl__store_step_done(sl_store *s, sqlite3_stmt *st, const char *op);
/* 0 when s is a usable handle. */
int sl__store_check_handle(const sl_store *s);
/* 0 when s is open read-write; otherwise a message and -1. */
int sl__store_writable(sl_store *s, const char *op);
/* Binds v (NULL as '') without copying: the statement is reset before the
 * caller's string can change. */
int sl__store_bind_text(sqlite3_stmt *st, int i, const char *v);
/* Resets a statement and clears its bindings, so that it holds no read
 * snapshot and keeps no pointer to the caller's strings. */
void sl__store_done(sqlite3_stmt *st);

/* Checks that a freshly opened connection holds a scatterlab store this
 * build can use: a SQLite file, ours (or empty), not newer than the code; a
 * read-only store must be current. Touches nothing. Sets *upgrade when the
 * read-write store needs migration steps. 0 ok; otherwise a message naming
 * `path` in err. */
int sl__store_schema_check(sqlite3 *db, const char *path, sl_store_mode mode,
                           int *upgrade, char *err, size_t errlen);
/* Applies the missing migration steps in one transaction. 0 ok; otherwise a
 * message naming `path` in err and nothing changed. */
int sl__store_upgrade(sqlite3 *db, const char *path, char *err, size_t errlen);
/* The highest schema version the migration steps reach. */
int sl__store_known_version(void);

/* The name to open or ATTACH path by: for reading, a URI with immutable=1
 * on a read-only file system (no -shm can be made there), else the path. A
 * malloc'd string, or NULL when out of memory. */
char *sl__store_open_name(const char *path, int reading);

/* The process writing a run, as runs.process records it (run_owner.c); ''
 * where /proc cannot tell. SL__OWNER_BYTES hold any. */
#define SL__OWNER_BYTES 256
void sl__run_owner_self(char *buf, size_t n);
/* 1 when `owner` names a process of this boot and pid namespace that no
 * longer runs (gone, reused pid, zombie); 0 when it runs or cannot be
 * judged here (another machine or namespace, '' unknown). */
int sl__run_owner_gone(const char *owner);
/* A run's status as the reads report it: 'interrupted' for a 'running' run
 * whose owner is gone, as sl_store_open marks it (also read-only, where
 * nothing is written). Never NULL. live_pid (may be NULL): the owner's pid
 * when the run is 'running' and its owner runs on this machine now (same
 * boot and pid namespace, same start time, not a zombie), else 0. */
const char *sl__run_status_seen(const char *status, const char *owner,
                                long long *live_pid);

/* Failure groups across runs (store_groups.c, schema 12). */
/* Registers the store's SQL functions on a new connection (before any
 * migration step, which uses them): sl_signature_id(TEXT). SQLite's code. */
int sl__store_functions(sqlite3 *db);
/* The statement that derives the failure_groups rows of the signatures
 * `which` (an SQL query of signatures) from the failing results that carry
 * them, cases shrunk from another not counted, and writes them over the
 * rows there: the first and last run, the first run's commit, the count. */
#define SL__GROUPS_REFRESH_SQL(which)                                          \
  "INSERT INTO failure_groups (signature_id, signature, first_run,"            \
  " first_commit, last_run, count)"                                            \
  " SELECT sl_signature_id(g.sig), g.sig, g.first_run, r.git_commit,"          \
  " g.last_run, g.n FROM (SELECT x.signature AS sig,"                          \
  " min(c.run_id) AS first_run, max(c.run_id) AS last_run, count(*) AS n"      \
  " FROM cases c JOIN results x ON x.case_id = c.id"                           \
  " WHERE x.signature != '' AND c.shrunk_from IS NULL"                         \
  " AND x.signature IN (" which ") GROUP BY x.signature) g"                    \
  " JOIN runs r ON r.id = g.first_run WHERE 1"                                 \
  " ON CONFLICT (signature_id) DO UPDATE SET signature = excluded.signature,"  \
  " first_run = excluded.first_run, first_commit = excluded.first_commit,"     \
  " last_run = excluded.last_run, count = excluded.count"

/* schema.sql, embedded by results/CMakeLists.txt (generated schema_sql.c). */
extern const char sl__schema_v1_sql[];

/* How long a writer waits for another process's transaction to end. */
#define SL__BUSY_MS 10000

/* store.c, for store_open.c and store_write.c */
/* Runs one of the argument-less statements (BEGIN, COMMIT, ...). */
int sl__store_run(sl_store *s, sl__stmt_id id, const char *op);
/* Binds v, or NULL when v is NULL. */
int sl__store_bind_text_or_null(sqlite3_stmt *st, int i, const char *v);
/* NaN has no SQL value: SQLite stores it as NULL, which is what we mean. */
int sl__store_bind_real_or_null(sqlite3_stmt *st, int i, int present, double v);
/* The message of a NULL handle. */
extern const char sl__store_null_msg[];

#endif
