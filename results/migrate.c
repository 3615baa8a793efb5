/*
 * Schema versions of the results store.
 *
 * A store's version is its PRAGMA user_version. Migration steps are an
 * ordered list: step N turns a version N-1 database into version N and ends
 * by setting user_version to N itself (step 1 is schema.sql). Opening an
 * older store read-write applies the missing steps inside one transaction,
 * so a crash or a failing step leaves the file as it was. A store newer than
 * this build is refused rather than guessed at.
 *
 * PRAGMA application_id tells our files from other SQLite databases, which
 * are never modified: the checks here run before anything is written.
 */
#include <stdio.h>

#include "store_internal.h"

typedef struct sl__migration {
  int version;      /* the user_version the step produces */
  const char *sql;  /* statements of the step, run by sqlite3_exec */
  const char *what; /* for messages */
} sl__migration;

/*
 * Version 2: each run gets a uid, unique across every store (so that
 * `scatterlab merge` recognises a run it has already copied), and the
 * options a fuzz campaign is resumed with; fuzz_cursors records, in the same
 * transaction as each committed batch, where every job of a campaign goes on
 * (`scatterlab fuzz --resume`).
 */
static const char sl__schema_v2_sql[] =
    "ALTER TABLE runs ADD COLUMN uid TEXT NOT NULL DEFAULT '';"
    "UPDATE runs SET uid = lower(hex(randomblob(16)));"
    "CREATE UNIQUE INDEX runs_uid ON runs (uid);"
    "ALTER TABLE runs ADD COLUMN config TEXT NOT NULL DEFAULT '';"
    "CREATE TABLE fuzz_cursors ("
    " run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,"
    " job INTEGER NOT NULL CHECK (job >= 0),"
    " next_case INTEGER NOT NULL CHECK (next_case >= 0),"
    " PRIMARY KEY (run_id, job)) STRICT, WITHOUT ROWID;"
    "PRAGMA user_version = 2;";

/*
 * Version 3: each run records the process that writes it (run_owner.c), so
 * that a run whose process died without finishing it (kill -9, a CI
 * timeout) is marked 'interrupted' instead of staying 'running' for ever.
 */
static const char sl__schema_v3_sql[] =
    "ALTER TABLE runs ADD COLUMN process TEXT NOT NULL DEFAULT '';"
    "PRAGMA user_version = 3;";

/*
 * Version 4: the copy bandwidth probed again at the end of a bench run. On
 * a shared machine the probe moves between runs and within one (this VM:
 * 41-45 or 74-80 GB/s), so a run's % of peak is only as good as the two
 * probes' agreement; NULL where there was no second probe.
 */
static const char sl__schema_v4_sql[] =
    "ALTER TABLE runs ADD COLUMN copy_gbs_end REAL;"
    "PRAGMA user_version = 4;";

/*
 * Version 5: the round trip of a cache line between the cores of threads 0
 * and 1, probed at a bench run's start and end
 * (harness/bench/cpu_round_trip.h). On a shared VM the vCPUs move between cores
 * that share a cache and cores that do not (85-140 vs 360 ns), and
 * multi-threaded timings move with them while the copy probe stays; NULL where
 * not probed.
 */
static const char sl__schema_v5_sql[] =
    "ALTER TABLE runs ADD COLUMN core_rtt_ns REAL;"
    "ALTER TABLE runs ADD COLUMN core_rtt_ns_end REAL;"
    "PRAGMA user_version = 5;";

/*
 * Version 6: the reference every verdict and every "x LibTorch" figure of
 * the run came from, with its origin ("LibTorch 2.11.0 (PyPI torch 2.11.0)");
 * NULL for runs written before it was recorded, which read "unknown".
 */
static const char sl__schema_v6_sql[] =
    "ALTER TABLE runs ADD COLUMN reference TEXT;"
    "PRAGMA user_version = 6;";

/*
 * Version 7: the providers (kernel libraries, core/include/sl/sl_provider.h)
 * each run loaded, in load order, with what identifies the code that ran:
 * the file's SHA-256 tells two builds at the same path apart, the version
 * text is the provider's own claim. Runs stored before have no rows.
 *
 *   run_id      the run
 *   position    load order, 0 first
 *   name        the prefix of its variants ("mylib" of "mylib:cpu.min");
 *               "scatterlab" for the built-in kernels, whose variants keep
 *               their plain names; one name once per run
 *   path        the library's absolute path
 *   version     the provider's version text; NULL when it gave none
 *   abi         the SL_PROVIDER_ABI_VERSION it was built for
 *   n_variants  the variants it declared
 *   builtin     1 for scatterlab's own kernels library, else 0
 *   sha256      SHA-256 of the library file, 64 lower-case hex digits
 */
static const char sl__schema_v7_sql[] =
    "CREATE TABLE run_providers ("
    " run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,"
    " position INTEGER NOT NULL CHECK (position >= 0),"
    " name TEXT NOT NULL CHECK (name <> ''),"
    " path TEXT NOT NULL CHECK (substr(path, 1, 1) = '/'),"
    " version TEXT,"
    " abi INTEGER NOT NULL CHECK (abi >= 0),"
    " n_variants INTEGER NOT NULL CHECK (n_variants >= 0),"
    " builtin INTEGER NOT NULL CHECK (builtin IN (0, 1)),"
    " sha256 TEXT NOT NULL CHECK (length(sha256) = 64"
    "  AND sha256 NOT GLOB '*[^0-9a-f]*'),"
    " PRIMARY KEY (run_id, position),"
    " UNIQUE (run_id, name)) STRICT, WITHOUT ROWID;"
    "PRAGMA user_version = 7;";

/*
 * Version 8: store modes. A fuzz campaign at one verdict row per variant
 * and case grew a store 16 GB an hour; by default it now keeps the cases
 * with a failing verdict only (runs.keep = 'failures'; 'all' keeps every
 * verdict, as every run before this version did), and counts every verdict
 * in tallies, which the reports read:
 *
 *   runs.keep     'all' or 'failures': which cases and results the run kept
 *   runs.ncases   the cases the run judged (kept or not)
 *   tallies       per run, op, dtype, variant and verdict: how many
 *
 * Existing runs get their tallies from their results (the dtype from the
 * case line's dt=, f32 when it has none, as the case parser defaults).
 */
#define SL__LINE "(' ' || c.case_line || ' ')"
#define SL__DT_AT "instr(" SL__LINE ", ' dt=')"
#define SL__DT_REST "substr(" SL__LINE ", " SL__DT_AT " + 4)"
static const char sl__schema_v8_sql[] =
    "ALTER TABLE runs ADD COLUMN keep TEXT NOT NULL DEFAULT 'all'"
    " CHECK (keep IN ('all', 'failures'));"
    "ALTER TABLE runs ADD COLUMN ncases INTEGER NOT NULL DEFAULT 0"
    " CHECK (ncases >= 0);"
    "UPDATE runs SET ncases = (SELECT count(*) FROM cases c"
    " WHERE c.run_id = runs.id);"
    "CREATE TABLE tallies ("
    " run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,"
    " op TEXT NOT NULL,"
    " dtype TEXT NOT NULL,"
    " variant TEXT NOT NULL,"
    " verdict TEXT NOT NULL,"
    " count INTEGER NOT NULL CHECK (count >= 0),"
    " PRIMARY KEY (run_id, op, dtype, variant, verdict)) STRICT, WITHOUT ROWID;"
    "INSERT INTO tallies (run_id, op, dtype, variant, verdict, count)"
    " SELECT c.run_id, c.op,"
    " CASE WHEN " SL__DT_AT " > 0 THEN substr(" SL__DT_REST ", 1,"
    " instr(" SL__DT_REST ", ' ') - 1) ELSE 'f32' END,"
    " x.variant, x.verdict, count(*)"
    " FROM cases c JOIN results x ON x.case_id = c.id GROUP BY 1, 2, 3, 4, 5;"
    "PRAGMA user_version = 8;";
#undef SL__LINE
#undef SL__DT_AT
#undef SL__DT_REST

/*
 * Version 9: failure triage. Each failing verdict carries the signature of
 * its failure group (harness/engine/failure_group.h), so that `scatterlab
 * report
 * --failures` counts groups across runs and jobs; '' where none was
 * computed (other verdicts, rows written before).
 */
static const char sl__schema_v9_sql[] =
    "ALTER TABLE results ADD COLUMN signature TEXT NOT NULL DEFAULT '';"
    "CREATE INDEX results_signature ON results (signature)"
    " WHERE signature != '';"
    "PRAGMA user_version = 9;";

/*
 * Version 10: hardware counts beside each timing (`bench`, `ab`): retired
 * instructions, CPU cycles and cache misses per call, user space, the
 * median over the timed turns; NULL where the machine had no counters
 * (a VM without a PMU, perf_event_paranoid) or the row is not a CPU one.
 */
static const char sl__schema_v10_sql[] =
    "ALTER TABLE timings ADD COLUMN instructions REAL;"
    "ALTER TABLE timings ADD COLUMN cycles REAL;"
    "ALTER TABLE timings ADD COLUMN cache_misses REAL;"
    "PRAGMA user_version = 10;";

/*
 * Version 11: how each provider of a run was found: 'builtin' (scatterlab's
 * own kernels), 'env' (a path of SCATTERLAB_PROVIDERS) or 'option'
 * (--provider); NULL for runs stored before. A repro names a provider found
 * through the environment by its variants' prefix only (the variable
 * resolves it where the repro is pasted), any other by a path relative to
 * the working folder (reports/shell_word.c).
 */
static const char sl__schema_v11_sql[] =
    "ALTER TABLE run_providers ADD COLUMN origin TEXT"
    " CHECK (origin IN ('builtin', 'env', 'option'));"
    "PRAGMA user_version = 11;";

/*
 * Version 12: failure groups across runs (store_groups.c). One row per
 * failure group (harness/engine/failure_group.h) the store has met, so
 * that a campaign reports each of its groups as new or known (first seen
 * in run N, at commit C) and `fuzz --fail-on new` fails a CI job on new
 * defects only:
 *
 *   signature_id  the signature's id (FNV-1a 64 of its text, 16 hex digits)
 *   signature     the signature's text
 *   first_run     the run of its first failing case (the lowest run id)
 *   first_commit  that run's git_commit ('' unknown)
 *   last_run      the run of its last failing case
 *   count         its failing cases over every run (shrunk copies not
 *                 counted, as `report --failures` counts)
 *
 * Derived from the failing results that carry a signature (schema 9),
 * which also fill it here for the runs stored before.
 */
#define SL__V12_FILL SL__GROUPS_REFRESH_SQL("SELECT signature FROM results") ";"
static const char sl__schema_v12_sql[] =
    "CREATE TABLE failure_groups ("
    " signature_id TEXT NOT NULL PRIMARY KEY CHECK (length(signature_id) = 16"
    "  AND signature_id NOT GLOB '*[^0-9a-f]*'),"
    " signature TEXT NOT NULL CHECK (signature <> ''),"
    " first_run INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,"
    " first_commit TEXT NOT NULL DEFAULT '',"
    " last_run INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,"
    " count INTEGER NOT NULL CHECK (count >= 0)) STRICT, WITHOUT ROWID;"
    "CREATE INDEX failure_groups_first_run ON failure_groups (first_run);"
    "CREATE INDEX failure_groups_last_run ON failure_groups (last_run);"
    /* The rows of the runs stored before (the refresh's query keeps only
     * non-empty signatures). */
    SL__V12_FILL "PRAGMA user_version = 12;";
#undef SL__V12_FILL

/*
 * Version 13: the defect each failure group was last reported under
 * (harness/engine/failure_group.h: sl_defect_signature, joined across the
 * run's groups), so that `report --failures` and the HTML page count
 * defects first, as the campaign did: '' where the group was its own
 * defect or was met before this version.
 */
static const char sl__schema_v13_sql[] =
    "ALTER TABLE failure_groups ADD COLUMN defect TEXT NOT NULL DEFAULT '';"
    "PRAGMA user_version = 13;";

/* To change the schema, append a step (never edit a released one) and add a
 * test that opens a database of the previous version. */
static const sl__migration sl__steps[] = {
    {1, sl__schema_v1_sql, "create the version 1 schema"},
    {2, sl__schema_v2_sql, "run uids, fuzz configs and cursors"},
    {3, sl__schema_v3_sql, "the process writing each run"},
    {4, sl__schema_v4_sql, "the copy bandwidth at a bench run's end"},
    {5, sl__schema_v5_sql, "the core-to-core round trip of a bench run"},
    {6, sl__schema_v6_sql, "the reference of each run"},
    {7, sl__schema_v7_sql, "the providers each run loaded"},
    {8, sl__schema_v8_sql, "store modes: kept cases and verdict tallies"},
    {9, sl__schema_v9_sql, "failure group signatures"},
    {10, sl__schema_v10_sql, "hardware counts beside timings"},
    {11, sl__schema_v11_sql, "how each provider of a run was found"},
    {12, sl__schema_v12_sql, "failure groups across runs"},
    {13, sl__schema_v13_sql, "the defect of each failure group"},
};

#define SL__NSTEPS ((int)(sizeof sl__steps / sizeof sl__steps[0]))

int sl__store_known_version(void) { return sl__steps[SL__NSTEPS - 1].version; }

/* Runs a constant single-value query into *v. Returns the SQLite code. */
static int sl__query_int(sqlite3 *db, const char *sql, int *v) {
  sqlite3_stmt *st;
  int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
  if (rc != SQLITE_OK) return rc;
  rc = sqlite3_step(st);
  if (rc == SQLITE_ROW) {
    *v = sqlite3_column_int(st, 0);
    rc = SQLITE_OK;
  }
  sqlite3_finalize(st);
  return rc;
}

/* The user_version, inside the migration's transaction. */
static int sl__read_version(sqlite3 *db, const char *path, int *version,
                            char *err, size_t errlen) {
  int rc = sl__query_int(db, "PRAGMA user_version", version);
  if (rc == SQLITE_OK) return 0;
  snprintf(err, errlen, "%s: cannot read the schema version: %s", path,
           sqlite3_errmsg(db));
  return -1;
}

static int sl__newer(const char *path, int version, char *err, size_t errlen) {
  snprintf(err, errlen,
           "%s: schema version %d is newer than this scatterlab (knows %d); "
           "upgrade scatterlab",
           path, version, sl__store_known_version());
  return -1;
}

/* The three facts that identify a store, read in one statement so that
 * they come from one snapshot: read one by one, a migration committed by
 * another process in between would show tables without a version. */
static const char sl__identify_sql[] =
    "SELECT (SELECT user_version FROM pragma_user_version),"
    " (SELECT application_id FROM pragma_application_id),"
    " (SELECT count(*) FROM sqlite_master)";

int sl__store_schema_check(sqlite3 *db, const char *path, sl_store_mode mode,
                           int *upgrade, char *err, size_t errlen) {
  int version = 0, app = 0, tables = 0;
  *upgrade = 0;
  sqlite3_stmt *st = NULL;
  int rc = sqlite3_prepare_v2(db, sl__identify_sql, -1, &st, NULL);
  if (rc == SQLITE_OK) rc = sqlite3_step(st);
  if (rc == SQLITE_ROW) {
    version = sqlite3_column_int(st, 0);
    app = sqlite3_column_int(st, 1);
    tables = sqlite3_column_int(st, 2);
    rc = SQLITE_OK;
  }
  sqlite3_finalize(st);
  /* A file that is not a database is only noticed on the first read. */
  if ((rc & 0xff) == SQLITE_NOTADB) {
    snprintf(err, errlen, "%s: not a SQLite database (%s)", path,
             sqlite3_errstr(rc));
    return -1;
  }
  /* The schema's own pages damaged (sqlite_master past page 1): the store
   * is, as sl__store_verify would say of any other page. */
  if ((rc & 0xff) == SQLITE_CORRUPT) {
    snprintf(err, errlen,
             "%s: the store is damaged: cannot read its schema (%s); nothing "
             "was written (`scatterlab check --db %s` lists every problem; "
             "restore a copy or start a new store)",
             path, sqlite3_errmsg(db), path);
    return -1;
  }
  if (rc != SQLITE_OK) {
    snprintf(err, errlen, "%s: cannot read the database header: %s", path,
             sqlite3_errmsg(db));
    return -1;
  }
  int known = sl__store_known_version();
  int empty = app == 0 && version == 0 && tables == 0;
  if (app != SL__STORE_APP_ID && !empty) {
    snprintf(err, errlen,
             "%s: not a scatterlab results database (application_id %d, "
             "user_version %d, %d schema objects)",
             path, app, version, tables);
    return -1;
  }
  if (version > known) return sl__newer(path, version, err, errlen);
  if (version == known) return 0;
  if (mode == SL_STORE_READONLY) {
    if (empty)
      snprintf(err, errlen,
               "%s: empty database, no scatterlab results in it yet", path);
    else
      snprintf(err, errlen,
               "%s: schema version %d is older than this scatterlab (knows "
               "%d); open it read-write once (any scatterlab run) to upgrade",
               path, version, known);
    return -1;
  }
  *upgrade = 1;
  return 0;
}

/* sqlite3_exec with its message copied into err. */
static int sl__exec(sqlite3 *db, const char *sql, const char *path,
                    const char *what, char *err, size_t errlen) {
  char *msg = NULL;
  int rc = sqlite3_exec(db, sql, NULL, NULL, &msg);
  if (rc != SQLITE_OK)
    snprintf(err, errlen, "%s: %s: %s", path, what,
             msg ? msg : sqlite3_errstr(rc));
  sqlite3_free(msg);
  return rc == SQLITE_OK ? 0 : -1;
}

int sl__store_upgrade(sqlite3 *db, const char *path, char *err, size_t errlen) {
  /* IMMEDIATE: take the write lock first, so two processes opening a new
   * store at once migrate it once (the second waits, then finds it done). */
  if (sl__exec(db, "BEGIN IMMEDIATE", path, "schema migration: begin", err,
               errlen))
    return -1;
  int version = 0;
  if (sl__read_version(db, path, &version, err, errlen)) goto fail;
  if (version > sl__store_known_version()) {
    sl__newer(path, version, err, errlen);
    goto fail;
  }
  for (int i = 0; i < SL__NSTEPS; ++i) {
    const sl__migration *m = &sl__steps[i];
    if (m->version <= version) continue;
    char what[128];
    snprintf(what, sizeof what, "schema migration to version %d (%s)",
             m->version, m->what);
    if (sl__exec(db, m->sql, path, what, err, errlen)) goto fail;
    int now = 0;
    if (sl__read_version(db, path, &now, err, errlen)) goto fail;
    if (now != m->version) {
      snprintf(err, errlen, "%s: %s left user_version at %d", path, what, now);
      goto fail;
    }
    version = now;
  }
  if (sl__exec(db, "COMMIT", path, "schema migration: commit", err, errlen))
    goto fail;
  return 0;
fail:
  /* The step's own failure is already in err; keep it. */
  sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
  return -1;
}
