/*
 * scatterlab results store: runs, cases, verdicts and timings in SQLite.
 *
 * The schema is results/schema.sql (commented column by column); this header
 * is the only way the rest of scatterlab touches it. No SQLite type appears
 * here: callers pass and receive plain C values.
 *
 * Conventions
 * - Every function returns 0 on success and non-zero on failure (unless its
 *   comment says otherwise); sl_store_errmsg() then names the database file,
 *   the operation and the reason, e.g.
 *   "results/x.db: add_result: UNIQUE constraint failed: results.case_id,
 *   results.variant". A NULL store or a NULL required argument is a failure
 *   with a message, never a crash.
 * - Writes are cheap inside a transaction and slow outside one (each write
 *   is then its own transaction): callers wrap many rows in
 *   sl_store_begin()/sl_store_commit().
 * - One handle belongs to one thread. Several processes may write to the same
 *   file at once (WAL mode; a writer waits up to 10 s for another's
 *   transaction to end).
 * - Strings in the *_view structs passed to callbacks are valid only during
 *   the callback.
 */
#ifndef SL_STORE_H
#define SL_STORE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sl_store sl_store;

typedef enum sl_store_mode {
  SL_STORE_READWRITE, /* creates the file (and its parent folder) if missing */
  SL_STORE_READONLY   /* the file must exist; every write fails */
} sl_store_mode;

/* The schema version (PRAGMA user_version) this build creates and reads. */
int sl_store_schema_version(void);

/* Opens (read-write: creates or upgrades) the store at `path` and sets *out.
 * On failure *out is NULL and err holds a message naming the file, e.g.
 * "results/x.db: schema version 7 is newer than this scatterlab (knows 1);
 * upgrade scatterlab" or "notes.txt: not a SQLite database". err may be NULL.
 */
int sl_store_open(const char *path, sl_store_mode mode, sl_store **out,
                  char *err, size_t errlen);
/* Checks the store at path without writing: quick_check, or with full the
 * integrity and foreign-key checks. Every finding is printed to out (one
 * indented line each; out may be NULL). 0: sound; 1: damaged (err names the
 * file and the first findings); -1: not checkable (err says why). Every
 * read-write sl_store_open runs the quick check and refuses a damaged
 * store. */
int sl_store_verify(const char *path, int full, FILE *out, char *err,
                    size_t errlen);
/* Closes the store; an open transaction is rolled back. NULL is a no-op. */
void sl_store_close(sl_store *s);
/* The message of the last failure on s ("" if none). */
const char *sl_store_errmsg(const sl_store *s);
/* The path s was opened with. */
const char *sl_store_path(const sl_store *s);

/* ------------------------------------------------------------------------ */
/* Writing                                                                   */
/* ------------------------------------------------------------------------ */

/* A provider (kernel library, sl/sl_provider.h) a run loaded: the
 * run_providers table. name, path and sha256 are required; path is
 * absolute; sha256 is 64 lower-case hex digits (harness/base/sha256.h's
 * sl_sha256_file). */
typedef struct sl_provider_record {
  const char *name, *path, *version, *sha256; /* version may be NULL */
  unsigned abi;
  int n_variants;
  int builtin; /* 1 for scatterlab's own kernels library */
  /* How it was found: "builtin", "env" (SCATTERLAB_PROVIDERS) or "option"
   * (--provider); NULL for runs stored before schema 11 (and stores NULL) */
  const char *origin;
} sl_provider_record;

/* What a run records about where and how it ran. NULL strings are stored as
 * '' (device: as NULL, meaning no GPU); kind is required. */
typedef struct sl_run_info {
  const char *kind; /* 'run' 'fuzz' 'bench' 'demo' 'import' */
  const char *command_line, *git_commit, *host, *cpu_model, *compiler, *flags,
      *version, *device;
  int cores, threads; /* <= 0: unknown (NULL) */
  double copy_gbs;    /* <= 0: NULL */
  double core_rtt_ns; /* the core-to-core round trip; <= 0: NULL */
  /* The reference the run's verdicts and "x LibTorch" figures came from:
   * name, version and origin, "LibTorch 2.11.0 (PyPI torch 2.11.0)"; NULL
   * stores NULL (read back as SL_REFERENCE_UNKNOWN). */
  const char *reference;
  /* The providers the run loaded, in load order (position 0 first); NULL
   * with n_providers 0 for none. Stored with the run, all or nothing; a
   * malformed record fails sl_store_run_begin and names it. */
  const sl_provider_record *providers;
  int n_providers;
  /* Which judged cases the run keeps (runs.keep): "all" (NULL or "" too)
   * keeps every case and verdict; "failures" keeps the cases with a
   * failing verdict and the shrunk ones, and every verdict is counted in
   * the run's tallies either way (sl_store_tally). */
  const char *keep;
} sl_run_info;

/* What a run written before the reference was recorded (schema < 6) reads. */
#define SL_REFERENCE_UNKNOWN "unknown"

/* Inserts a run with status 'running' and started_at now, and its
 * providers, as one unit (inside or outside the caller's transaction); sets
 * *run_id. */
int sl_store_run_begin(sl_store *s, const sl_run_info *info, int64_t *run_id);
/* Sets the run's status ('finished', 'interrupted', 'failed', or 'running')
 * and finished_at now. */
int sl_store_run_finish(sl_store *s, int64_t run_id, const char *status);
/* Records the bandwidth probe of a run (gbs <= 0: NULL). */
int sl_store_set_copy_gbs(sl_store *s, int64_t run_id, double gbs);
/* The same probe taken again at the end of a bench run (runs.copy_gbs_end),
 * so that a reader can tell whether the machine's bandwidth moved under the
 * run; gbs <= 0 stores NULL. */
int sl_store_set_copy_gbs_end(sl_store *s, int64_t run_id, double gbs);
/* The core-to-core round trip taken again at the end of a bench run
 * (runs.core_rtt_ns_end; the start's is sl_run_info.core_rtt_ns); ns <= 0
 * stores NULL. */
int sl_store_set_core_rtt_end(sl_store *s, int64_t run_id, double ns);

/* BEGIN IMMEDIATE / COMMIT / ROLLBACK. Transactions do not nest. */
int sl_store_begin(sl_store *s);
int sl_store_commit(sl_store *s);
int sl_store_rollback(sl_store *s);

/* Inserts a case of run_id; shrunk_from is the case it was shrunk from, or 0.
 * The seed is kept bit for bit. */
int sl_store_add_case(sl_store *s, int64_t run_id, const char *op,
                      const char *case_line, uint64_t seed, int64_t shrunk_from,
                      int64_t *case_id);

/* One variant's verdict on a case. verdict is a name of results/verdicts.def
 * (sl_verdict_name: 'passed', 'failed', ...); message NULL is stored as
 * ''. */
typedef struct sl_result_row {
  const char *variant, *verdict, *message;
  int has_diffs; /* 0: diff1..3 are stored as NULL */
  double diff1, diff2, diff3;
  double seconds; /* < 0: NULL */
} sl_result_row;

/* Counts one judged case of run_id (runs.ncases), kept or not. */
int sl_store_count_case(sl_store *s, int64_t run_id);
/* Counts one verdict of run_id in its tallies (op, dtype, variant,
 * verdict), kept or not. */
int sl_store_tally(sl_store *s, int64_t run_id, const char *op,
                   const char *dtype, const char *variant, const char *verdict);

/* Inserts a result; a second row for the same (case, variant) fails. */
int sl_store_add_result(sl_store *s, int64_t case_id, const sl_result_row *r);

/* Records the failure group signature (harness/engine/failure_group.h) of the
 * result of `variant` on case case_id (schema 9). */
int sl_store_set_signature(sl_store *s, int64_t case_id, const char *variant,
                           const char *signature);

/* A timing summary and its raw samples. */
typedef struct sl_timing_row {
  const char *variant;
  int threads, reps, cold;                      /* cold: 0 or 1 */
  double median_s, iqr_s, min_s, gbs, pct_peak; /* pct_peak < 0: NULL */
  int64_t bytes;
  const double *samples; /* nsamples values, stored as rep 0..nsamples-1 */
  int nsamples;
} sl_timing_row;

/* Inserts the timing and its samples, all or nothing; sets *timing_id
 * (timing_id may be NULL). */
int sl_store_add_timing(sl_store *s, int64_t case_id, const sl_timing_row *t,
                        int64_t *timing_id);

/* Hardware counts per call beside a timing (harness/base/timing.h); each < 0:
 * NULL (that counter read nothing). */
typedef struct sl_timing_counts {
  double instructions, cycles, cache_misses;
} sl_timing_counts;

/* sl_store_add_timing with the timing's hardware counts (NULL: none, as
 * sl_store_add_timing stores). */
int sl_store_add_timing_counted(sl_store *s, int64_t case_id,
                                const sl_timing_row *t,
                                const sl_timing_counts *counts,
                                int64_t *timing_id);

/* Adds cases and failures to the coverage count of one generator cell of a
 * fuzz run (parallel jobs of one run add to the same row). */
int sl_store_add_coverage(sl_store *s, int64_t run_id, const char *cell,
                          int64_t cases, int64_t failures);

/* ------------------------------------------------------------------------ */
/* Campaigns: resuming and merging                                           */
/* ------------------------------------------------------------------------ */

/* Records the options a fuzz campaign is resumed with (command-line words,
 * e.g. "--seed 1 --jobs 2 --cases 1000"). */
int sl_store_set_run_config(sl_store *s, int64_t run_id, const char *config);

/* A run's kind, status, config, commit and machine; "no run N" when it
 * does not exist. status reads 'interrupted' for a 'running' run whose process
 * is gone; pid is that of the process writing a 'running' run on this machine
 * right now, or 0 (finished, gone, or elsewhere and so unknown). cpu_model
 * "" and cores, threads and the probes 0 when not recorded. */
typedef struct sl_run_brief {
  char kind[16], status[16];
  char config[16384];
  long long pid;
  char cpu_model[128];
  int cores, threads;
  double copy_gbs, copy_gbs_end;
  double core_rtt_ns, core_rtt_ns_end;
  char git_commit[48]; /* "" when not recorded */
  char reference[128]; /* SL_REFERENCE_UNKNOWN when not recorded */
} sl_run_brief;
int sl_store_get_run(sl_store *s, int64_t run_id, sl_run_brief *out);

/* Marks a run as running again (status 'running', finished_at NULL): a
 * resumed campaign. */
int sl_store_run_reopen(sl_store *s, int64_t run_id);

/* Where job `job` of a fuzz run goes on: the number of its next case (the
 * k of sl_fuzz_case's schedule). Written inside the transaction of the batch
 * it follows. get: 0 when the job has no cursor yet. */
int sl_store_set_cursor(sl_store *s, int64_t run_id, int job,
                        int64_t next_case);
int sl_store_get_cursor(sl_store *s, int64_t run_id, int job,
                        int64_t *next_case);

/* What sl_store_merge copied from one source store. */
typedef struct sl_merge_stats {
  int64_t runs_copied, runs_present, cases, results, timings;
} sl_merge_stats;

/* Copies into dst every run of the store at src_path that dst does not hold
 * yet (runs are recognised by their uid, so merging the same store twice
 * adds nothing), with its cases, results, timings, samples, coverage,
 * cursors and providers, in one transaction. src is only read. */
int sl_store_merge(sl_store *dst, const char *src_path, sl_merge_stats *stats);

/* ------------------------------------------------------------------------ */
/* Reading, for reports                                                      */
/* ------------------------------------------------------------------------ */
/* The sl_store_each_* functions call fn once per row, in a stable order. fn
 * returns 0 to go on or non-zero to stop. They return 0 when every row was
 * visited, fn's value when fn stopped the walk, and -1 on a store error
 * (message on the handle): a callback that stops should return a positive
 * value to keep the two apart. A callback must not start the same walk
 * again on the same handle (that is an error); other calls are fine. */

typedef struct sl_run_view {
  int64_t id;
  /* finished_at and device are NULL when not set; the others never NULL. */
  const char *kind, *started_at, *finished_at, *status, *git_commit, *host,
      *cpu_model, *compiler, *flags, *command_line, *version, *device;
  int cores, threads;  /* 0 when unknown */
  double copy_gbs;     /* 0 when not probed */
  double copy_gbs_end; /* the probe at the run's end; 0 when not taken */
  double core_rtt_ns, core_rtt_ns_end; /* the same for the core-to-core
                                          round trip; 0 when not probed */
  const char *reference; /* never NULL: SL_REFERENCE_UNKNOWN when not
                            recorded */
  int64_t ncases;        /* cases judged (kept or not) */
  int64_t nresults;      /* verdicts, from the tallies */
  int64_t nfailed;       /* failing verdicts (sl_verdict_is_failure) */
  const char *keep;      /* "all" or "failures" (runs.keep) */
  /* runs.config, never NULL: a fuzz run's options for --resume, and any
   * run's --tolerance overrides ("--tolerance f16=0.001"); "" when none */
  const char *config;
} sl_run_view;

typedef struct sl_tally_view {
  int64_t run_id;
  const char *op, *dtype, *variant, *verdict; /* never NULL */
  int64_t count;
} sl_tally_view;

/* The verdict tallies of run_id (0: every run), by run, op, dtype, variant
 * and verdict: every verdict a run judged, kept or not. Returns the rows
 * visited or -1. */
int sl_store_each_tally(sl_store *s, int64_t run_id,
                        int (*fn)(void *user, const sl_tally_view *t),
                        void *user);

/* Every run, by id. */
int sl_store_each_run(sl_store *s, int (*fn)(void *user, const sl_run_view *r),
                      void *user);

typedef struct sl_result_view {
  int64_t run_id, case_id;
  const char *op, *case_line, *variant, *verdict, *message; /* never NULL */
  uint64_t seed;
  int has_diffs; /* 0: diff1..3 are NaN; 1: at least one was stored (a
                    stored NULL, e.g. from a NaN, reads as NaN) */
  double diff1, diff2, diff3;
  double seconds;      /* < 0 when NULL */
  int64_t shrunk_from; /* the case this one was shrunk from; 0: none */
} sl_result_view;

/* The results of run_id (0: of every run), ordered by run, case id, variant.
 */
int sl_store_each_result(sl_store *s, int64_t run_id,
                         int (*fn)(void *user, const sl_result_view *r),
                         void *user);

typedef struct sl_timing_view {
  int64_t run_id, case_id, timing_id;
  const char *op, *case_line, *variant; /* never NULL */
  int threads, reps, cold;
  double median_s, iqr_s, min_s;
  double gbs, pct_peak; /* < 0 when NULL */
  int64_t bytes;
  const double *samples; /* the raw samples by rep; NULL when none */
  int nsamples;
} sl_timing_view;

/* The timings of run_id (0: of every run) with their samples, ordered by
 * run, case id, variant, threads, cold. */
int sl_store_each_timing(sl_store *s, int64_t run_id,
                         int (*fn)(void *user, const sl_timing_view *t),
                         void *user);

typedef struct sl_coverage_view {
  int64_t run_id;
  const char *cell;
  int64_t cases, failures;
} sl_coverage_view;

/* The coverage cells of run_id (0: of every run), ordered by run, cell. */
int sl_store_each_coverage(sl_store *s, int64_t run_id,
                           int (*fn)(void *user, const sl_coverage_view *c),
                           void *user);

/* The providers run_id loaded, in load order. Returns as the walks do (0,
 * fn's non-zero value, or -1 on a store error); run_id must be positive. A
 * run that loaded none, or was stored before they were recorded (schema <
 * 7), or does not exist visits nothing. The record's strings are valid only
 * during the callback; version may be NULL. */
int sl_store_run_providers(sl_store *s, int64_t run_id,
                           int (*fn)(void *user, const sl_provider_record *p),
                           void *user);

/* The id of the newest run; 0 if there is none, -1 on error. */
int64_t sl_store_last_run(sl_store *s);
/* 1 if run_id exists, 0 if not, -1 on error. */
int sl_store_has_run(sl_store *s, int64_t run_id);

/* Runs PRAGMA integrity_check and PRAGMA foreign_key_check: 0 when both are
 * clean, non-zero with the first problem in sl_store_errmsg(). */
int sl_store_check(sl_store *s);

/* ------------------------------------------------------------------------ */
/* Reading, for reports: failures and benchmark runs (reports/ owns these)   */
/* ------------------------------------------------------------------------ */

typedef struct sl_failure_view {
  int64_t run_id, case_id;
  const char *op, *case_line, *variant, *verdict, *message; /* never NULL */
  /* The minimal case: the line of the newest case shrunk from this one, or
   * case_line itself when the case was not shrunk. Never NULL. */
  const char *minimal_line;
  /* Its failure group's signature (harness/engine/failure_group.h); "" for a
   * result stored before schema 9. */
  const char *signature;
} sl_failure_view;

/* The failing results (a verdict sl_verdict_is_failure, verdicts.def) of
 * run_id (0: of every run) whose case was not itself shrunk from another,
 * ordered by run, case id, variant. A shrunk case reaches the report through
 * minimal_line of the case it came from. */
int sl_store_each_failure(sl_store *s, int64_t run_id,
                          int (*fn)(void *user, const sl_failure_view *f),
                          void *user);

/* One failure group of the store: the failing results that share a
 * signature, counted over the cases that were not themselves shrunk from
 * another (a shrunk copy is no extra failure). */
typedef struct sl_failure_group_view {
  const char *signature, *op, *variant, *verdict, *message; /* never NULL */
  int64_t cases;                      /* failing cases in the group */
  int64_t first_run, last_run;        /* the runs of its first and last case */
  const char *first_seen, *last_seen; /* those runs' started_at */
  /* The first case's minimal case (as sl_failure_view.minimal_line), and
   * that case as it was found (before shrinking). */
  const char *minimal_line, *found_line;
  /* What the store remembers of the group over every run (schema 12,
   * failure_groups; first_run and its commit when it has no row): the run
   * that met it first and that run's commit ("" unknown). */
  int64_t origin_run;
  const char *origin_commit;
  /* The defect it was last reported under (schema 13), or its signature
   * when none was recorded: groups of one defect are walked together. */
  const char *defect;
} sl_failure_group_view;

/* The failure groups of run_id (0: of every run), defect by defect: the
 * defects in the order first met, each one's groups in that order.
 * Results stored before schema 9, or without a signature, are not in any
 * group. */
int sl_store_each_failure_group(sl_store *s, int64_t run_id,
                                int (*fn)(void *user,
                                          const sl_failure_group_view *g),
                                void *user);

/* ------------------------------------------------------------------------ */
/* Failure groups across runs (schema 12)                                    */
/* ------------------------------------------------------------------------ */

/* What the store remembers of a failure group. */
typedef struct sl_known_group {
  int64_t first_run, last_run; /* the runs of its first and last case */
  int64_t count;               /* its failing cases over every run */
  char first_commit[64];       /* first_run's git commit; "" unknown */
} sl_known_group;

/* The id of a failure group's signature text: FNV-1a 64 as 16 lower-case
 * hex digits (harness/engine/failure_group.h computes the same). */
void sl_store_signature_id(const char *signature, char id[17]);

/* 1 with *g when the store remembers the group of signature id `id`, 0 when
 * it does not, -1 on error. */
int sl_store_known_group(sl_store *s, const char *id, sl_known_group *g);

/* Brings the remembered groups of every signature run_id's failing results
 * carry up to date with the store's results (first and last run, first
 * commit, count), in the caller's transaction or its own statement. Call it
 * once a run's results are committed; groups read before it are as earlier
 * runs left them. 0, or -1. */
int sl_store_refresh_groups(sl_store *s, int64_t run_id);

/* Records the defect (harness/engine/failure_group.h: sl_defect_signature)
 * the remembered group of signature id `id` was last reported under, ""
 * when it was its own (schema 13); a group the store does not remember is
 * left alone. Call it after sl_store_refresh_groups. 0, or -1. */
int sl_store_set_group_defect(sl_store *s, const char *id, const char *defect);

/* The id of the newest run that holds timings; 0 if none, -1 on error. */
int64_t sl_store_last_timed_run(sl_store *s);

#ifdef __cplusplus
}
#endif

#endif
