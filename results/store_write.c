/* The results store's writes: runs and their providers and probes, cases,
 * results, timings, coverage (store_internal.h). */
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
    sl__store_bind_text_or_null(st, 5, p->version);
    sqlite3_bind_int64(st, 6, (int64_t)p->abi);
    sqlite3_bind_int(st, 7, p->n_variants);
    sqlite3_bind_int(st, 8, p->builtin != 0);
    sl__store_bind_text(st, 9, p->sha256);
    sl__store_bind_text_or_null(st, 10, p->origin);
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
  sl__store_bind_text_or_null(st, 9, info->device);
  if (info->cores > 0) sqlite3_bind_int(st, 10, info->cores);
  if (info->threads > 0) sqlite3_bind_int(st, 11, info->threads);
  sl__store_bind_real_or_null(st, 12, info->copy_gbs > 0, info->copy_gbs);
  char owner[SL__OWNER_BYTES];
  sl__run_owner_self(owner, sizeof owner);
  sl__store_bind_text(st, 13, owner);
  sl__store_bind_real_or_null(st, 14, info->core_rtt_ns > 0, info->core_rtt_ns);
  sl__store_bind_text_or_null(st, 15, info->reference);
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
  if (sl__store_run(s, SL__STMT_RUN_SAVEPOINT, op)) return -1;
  int64_t id = 0;
  if (sl__insert_run(s, info, &id, op) == 0 &&
      sl__add_providers(s, id, info, op) == 0) {
    if (sl__store_run(s, SL__STMT_RUN_RELEASE, op)) return -1;
    *run_id = id;
    return 0;
  }
  /* Keep the message of the failure, not of the cleanup. */
  char keep[sizeof s->err];
  memcpy(keep, s->err, sizeof keep);
  sl__store_run(s, SL__STMT_RUN_ROLLBACK_TO, op);
  sl__store_run(s, SL__STMT_RUN_RELEASE, op);
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
  sl__store_bind_real_or_null(st, 2, value > 0, value);
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
  sl__store_bind_real_or_null(st, 4, r->has_diffs, r->diff1);
  sl__store_bind_real_or_null(st, 5, r->has_diffs, r->diff2);
  sl__store_bind_real_or_null(st, 6, r->has_diffs, r->diff3);
  sl__store_bind_text(st, 7, r->message);
  sl__store_bind_real_or_null(st, 8, r->seconds >= 0, r->seconds);
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
  sl__store_bind_real_or_null(st, 10, t->pct_peak >= 0, t->pct_peak);
  sqlite3_bind_int(st, 11, t->cold);
  const sl_timing_counts none = {-1, -1, -1}, *c = counts ? counts : &none;
  sl__store_bind_real_or_null(st, 12, c->instructions >= 0, c->instructions);
  sl__store_bind_real_or_null(st, 13, c->cycles >= 0, c->cycles);
  sl__store_bind_real_or_null(st, 14, c->cache_misses >= 0, c->cache_misses);
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
  if (sl__store_run(s, SL__STMT_SAVEPOINT, op)) return -1;
  if (sl__add_timing_rows(s, case_id, t, counts, timing_id) == 0)
    return sl__store_run(s, SL__STMT_RELEASE, op);
  /* Keep the message of the failure, not of the cleanup. */
  char keep[sizeof s->err];
  memcpy(keep, s->err, sizeof keep);
  sl__store_run(s, SL__STMT_ROLLBACK_TO, op);
  sl__store_run(s, SL__STMT_RELEASE, op);
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
