/*
 * The results store, continued from test_store.c: the providers of a run
 * (round trip, the v6 -> v7 upgrade, merge), the v8 -> v9 tallies upgrade,
 * failure groups, and several processes writing one new file at once.
 * Expected values are the ones the test itself wrote, counted by hand.
 */
#include <math.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "raw_sql.h"
#include "sl_store.h"
#include "sl_test.h"
#include "store_fixture.h"

/* The providers of one run, as sl_store_run_providers hands them over. */
typedef struct providers_seen {
  int n;
  char name[4][16], path[4][64], version[4][32], sha256[4][65];
  int version_null[4], n_variants[4], builtin[4];
  char origin[4][16]; /* "(null)" for NULL */
  unsigned abi[4];
  int stop_after; /* 0: never */
} providers_seen;

static int collect_provider(void *u, const sl_provider_record *p) {
  providers_seen *ps = u;
  if (ps->n >= 4) return 1;
  int i = ps->n++;
  snprintf(ps->name[i], sizeof ps->name[i], "%s", p->name);
  snprintf(ps->path[i], sizeof ps->path[i], "%s", p->path);
  ps->version_null[i] = p->version == NULL;
  snprintf(ps->version[i], sizeof ps->version[i], "%s",
           p->version ? p->version : "");
  snprintf(ps->sha256[i], sizeof ps->sha256[i], "%s", p->sha256);
  ps->abi[i] = p->abi;
  ps->n_variants[i] = p->n_variants;
  ps->builtin[i] = p->builtin;
  snprintf(ps->origin[i], sizeof ps->origin[i], "%s",
           p->origin ? p->origin : "(null)");
  return ps->stop_after && ps->n == ps->stop_after ? 5 : 0;
}

/* The providers of run_id, or n = -1 when the walk failed. */
static providers_seen providers_of(sl_store *s, int64_t run_id) {
  providers_seen ps;
  memset(&ps, 0, sizeof ps);
  if (sl_store_run_providers(s, run_id, collect_provider, &ps) != 0) {
    fprintf(stderr, "run_providers %lld: %s\n", (long long)run_id,
            sl_store_errmsg(s));
    ps.n = -1;
  }
  return ps;
}

/* ------------------------------------------------------------------------ */
/* Providers (schema 7)                                                      */
/* ------------------------------------------------------------------------ */

/* Three made-up library hashes; the store only checks their form. */
#define SHA_BUILTIN                                                            \
  "0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9"
#define SHA_MYLIB                                                              \
  "ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100"
#define SHA_OTHER                                                              \
  "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

static const sl_provider_record prov_builtin = {
    "scatterlab",
    "/opt/sl/lib/libscatterlab_kernels.so",
    "0.1.0",
    SHA_BUILTIN,
    1u,
    57,
    1,
    "builtin"};
static const sl_provider_record prov_mylib = {
    "mylib", "/home/u/mylib/build/libmylib.so", "1.2", SHA_MYLIB, 1u, 3, 0,
    "option"};
/* No version text; an ABI number above INT_MAX; builtin given as 7, any
 * non-zero value, stored as 1; no origin (NULL, as runs before schema 11
 * read). */
static const sl_provider_record prov_other = {
    "other", "/tmp/x/libother.so", NULL, SHA_OTHER, 4000000000u, 0, 7, NULL};

/* A run of kind "run" with n providers; 0 or the store's failure. */
static int provider_run(sl_store *s, const sl_provider_record *p, int n,
                        int64_t *id) {
  sl_run_info ri = test_info("run");
  ri.providers = p;
  ri.n_providers = n;
  return sl_store_run_begin(s, &ri, id);
}

/* Stops the walk from its own callback: refused, the outer walk goes on. */
static int providers_reenter(void *u, const sl_provider_record *p) {
  (void)p;
  reenter *re = u;
  providers_seen inner;
  memset(&inner, 0, sizeof inner);
  re->inner_rc = sl_store_run_providers(re->s, 3, collect_provider, &inner);
  snprintf(re->msg, sizeof re->msg, "%s", sl_store_errmsg(re->s));
  return 0;
}

/* Round trips of 0, 1 and 3 records (one without a version), the reader's
 * conventions, malformed records, and a run's providers as one unit with
 * the run. */
static void test_providers(void) {
  char p[300], err[512];
  path_in(p, sizeof p, "providers.db");
  sl_store *s = NULL;
  CHECK_MSG(sl_store_open(p, SL_STORE_READWRITE, &s, err, sizeof err) == 0,
            "%s", err);
  if (!s) return;
  int64_t r0 = 0, r1 = 0, r3 = 0;
  CHECK_MSG(provider_run(s, NULL, 0, &r0) == 0, "%s", sl_store_errmsg(s));
  CHECK_MSG(provider_run(s, &prov_builtin, 1, &r1) == 0, "%s",
            sl_store_errmsg(s));
  const sl_provider_record three[3] = {prov_builtin, prov_mylib, prov_other};
  CHECK_MSG(provider_run(s, three, 3, &r3) == 0, "%s", sl_store_errmsg(s));
  CHECK(r0 == 1 && r1 == 2 && r3 == 3);

  providers_seen ps = providers_of(s, r0);
  CHECK(ps.n == 0);
  ps = providers_of(s, r1);
  CHECK(ps.n == 1);
  CHECK(strcmp(ps.name[0], "scatterlab") == 0);
  CHECK(strcmp(ps.path[0], "/opt/sl/lib/libscatterlab_kernels.so") == 0);
  CHECK(!ps.version_null[0] && strcmp(ps.version[0], "0.1.0") == 0);
  CHECK(strcmp(ps.sha256[0], SHA_BUILTIN) == 0);
  CHECK(ps.abi[0] == 1 && ps.n_variants[0] == 57 && ps.builtin[0] == 1);
  ps = providers_of(s, r3);
  CHECK(ps.n == 3);
  /* In load order, each with its own fields. */
  CHECK(strcmp(ps.name[0], "scatterlab") == 0 &&
        strcmp(ps.name[1], "mylib") == 0 && strcmp(ps.name[2], "other") == 0);
  CHECK(strcmp(ps.path[1], "/home/u/mylib/build/libmylib.so") == 0);
  CHECK(strcmp(ps.version[1], "1.2") == 0 && !ps.version_null[1]);
  CHECK(strcmp(ps.sha256[1], SHA_MYLIB) == 0);
  CHECK(ps.abi[1] == 1 && ps.n_variants[1] == 3 && ps.builtin[1] == 0);
  CHECK(strcmp(ps.path[2], "/tmp/x/libother.so") == 0);
  CHECK(ps.version_null[2]); /* NULL in, NULL out: not "" */
  CHECK(strcmp(ps.sha256[2], SHA_OTHER) == 0);
  CHECK(ps.abi[2] == 4000000000u && ps.n_variants[2] == 0 &&
        ps.builtin[2] == 1);
  /* How each was found (schema 11): NULL in, NULL out. */
  CHECK(strcmp(ps.origin[0], "builtin") == 0 &&
        strcmp(ps.origin[1], "option") == 0 &&
        strcmp(ps.origin[2], "(null)") == 0);
  CHECK(raw_int(p, "SELECT count(*) FROM run_providers") == 4);
  CHECK(raw_int(p, "SELECT count(*) FROM run_providers WHERE version IS "
                   "NULL") == 1);
  CHECK(raw_int(p, "SELECT position FROM run_providers WHERE run_id = 3 AND"
                   " name = 'other'") == 2);
  CHECK(raw_int(p, "SELECT abi FROM run_providers WHERE name = 'other'") ==
        4000000000LL);

  /* The reader: a run without rows or without a row at all visits
   * nothing; a callback stops it with its own value; run ids must be
   * positive; it may not restart itself from its callback. */
  CHECK(providers_of(s, 99).n == 0);
  memset(&ps, 0, sizeof ps);
  ps.stop_after = 1;
  CHECK(sl_store_run_providers(s, r3, collect_provider, &ps) == 5 && ps.n == 1);
  CHECK(providers_of(s, r3).n == 3); /* reset: starts from the top again */
  CHECK(sl_store_run_providers(s, 0, collect_provider, &ps) == -1);
  CHECK_CONTAINS(sl_store_errmsg(s), "run_providers: run id 0 is not positive");
  CHECK(sl_store_run_providers(s, -2, collect_provider, &ps) == -1);
  CHECK_CONTAINS(sl_store_errmsg(s), "run id -2 is not positive");
  CHECK(sl_store_run_providers(s, r3, NULL, NULL) == -1);
  CHECK_CONTAINS(sl_store_errmsg(s), "run_providers: callback is NULL");
  CHECK(sl_store_run_providers(NULL, r3, collect_provider, &ps) == -1);
  reenter re = {s, 0, ""};
  CHECK(sl_store_run_providers(s, r3, providers_reenter, &re) == 0);
  CHECK(re.inner_rc == -1);
  CHECK_CONTAINS(re.msg, "called again from its own callback");

  /* Malformed records are refused before anything is written, naming the
   * record. */
  long long runs0 = raw_int(p, "SELECT count(*) FROM runs");
  int64_t id = -7;
  sl_provider_record bad[2] = {prov_builtin, prov_mylib};
  bad[1].sha256 =
      "FFEEDDCCBBAA99887766554433221100FFEEDDCCBBAA99887766554433221100";
  CHECK(provider_run(s, bad, 2, &id) != 0);
  CHECK_CONTAINS(sl_store_errmsg(s),
                 "run_begin: provider 1 (mylib): sha256 'FFEEDDCC");
  CHECK_CONTAINS(sl_store_errmsg(s), "is not 64 lower-case hex digits");
  bad[1].sha256 = "0a1b2c3d4e5f";
  CHECK(provider_run(s, bad, 2, &id) != 0);
  CHECK_CONTAINS(sl_store_errmsg(s), "sha256 '0a1b2c3d4e5f' is not 64");
  bad[1].sha256 = NULL;
  CHECK(provider_run(s, bad, 2, &id) != 0);
  CHECK_CONTAINS(sl_store_errmsg(s), "provider 1: sha256 is NULL");
  bad[1] = prov_mylib;
  bad[1].path = "build/libmylib.so";
  CHECK(provider_run(s, bad, 2, &id) != 0);
  CHECK_CONTAINS(sl_store_errmsg(s), "provider 1 (mylib): path "
                                     "'build/libmylib.so' is not absolute");
  bad[1] = prov_mylib;
  bad[1].name = NULL;
  CHECK(provider_run(s, bad, 2, &id) != 0);
  CHECK_CONTAINS(sl_store_errmsg(s), "provider 1: name is NULL");
  bad[1].name = "";
  CHECK(provider_run(s, bad, 2, &id) != 0);
  CHECK_CONTAINS(sl_store_errmsg(s), "provider 1: name is empty");
  bad[1] = prov_mylib;
  bad[1].n_variants = -1;
  CHECK(provider_run(s, bad, 2, &id) != 0);
  CHECK_CONTAINS(sl_store_errmsg(s), "provider 1 (mylib): n_variants is -1");
  CHECK(provider_run(s, NULL, 2, &id) != 0);
  CHECK_CONTAINS(sl_store_errmsg(s),
                 "info->providers is NULL with n_providers 2");
  CHECK(provider_run(s, three, -1, &id) != 0);
  CHECK_CONTAINS(sl_store_errmsg(s), "info->n_providers is -1");
  CHECK(id == -7); /* not set on failure */
  CHECK(raw_int(p, "SELECT count(*) FROM runs") == runs0);

  /* A name twice in one run: the schema refuses the second row, and the
   * run goes with it (its row was already written). The message names the
   * record. */
  bad[1] = prov_mylib;
  bad[1].name = "scatterlab";
  CHECK(provider_run(s, bad, 2, &id) != 0);
  CHECK_CONTAINS(sl_store_errmsg(s), "run_begin: provider 1 (scatterlab, "
                                     "/home/u/mylib/build/libmylib.so): "
                                     "UNIQUE constraint failed");
  CHECK(id == -7);
  CHECK(raw_int(p, "SELECT count(*) FROM runs") == runs0);
  CHECK(raw_int(p, "SELECT count(*) FROM run_providers") == 4);
  /* Inside the caller's transaction only the failed run is undone: the
   * run before it stays and commits, and so does the one after. */
  CHECK(sl_store_begin(s) == 0);
  int64_t ok1 = 0, ok2 = 0;
  CHECK(provider_run(s, &prov_mylib, 1, &ok1) == 0);
  CHECK(provider_run(s, bad, 2, &id) != 0);
  CHECK(provider_run(s, three, 2, &ok2) == 0);
  CHECK_MSG(sl_store_commit(s) == 0, "%s", sl_store_errmsg(s));
  CHECK(raw_int(p, "SELECT count(*) FROM runs") == runs0 + 2);
  CHECK(providers_of(s, ok1).n == 1 && providers_of(s, ok2).n == 2);
  CHECK(raw_int(p, "SELECT count(*) FROM run_providers") == 7);
  CHECK_MSG(sl_store_check(s) == 0, "%s", sl_store_errmsg(s));
  sl_store_close(s);

  /* The rows belong to their run: deleting the run deletes them. */
  CHECK(raw_exec(p, "PRAGMA foreign_keys = ON; DELETE FROM runs WHERE id = "
                    "3") == SQLITE_OK);
  CHECK(raw_int(p, "SELECT count(*) FROM run_providers") == 4);
  /* Read-only handles read them too. */
  CHECK(sl_store_open(p, SL_STORE_READONLY, &s, err, sizeof err) == 0);
  if (!s) return;
  ps = providers_of(s, r1);
  CHECK(ps.n == 1 && strcmp(ps.name[0], "scatterlab") == 0);
  CHECK(provider_run(s, &prov_mylib, 1, &id) != 0);
  CHECK_CONTAINS(sl_store_errmsg(s), "read-only");
  sl_store_close(s);
}

/* Makes p a version 6 store, as a scatterlab of schema 6 left it: two runs
 * (one with a reference), version 6, no run_providers. Version 7 only adds
 * that table and version 8 the tallies and two columns of runs, so today's
 * schema without them is version 6's. */
static void make_v6_store(const char *p) {
  char err[512];
  sl_store *s = NULL;
  CHECK_MSG(sl_store_open(p, SL_STORE_READWRITE, &s, err, sizeof err) == 0,
            "%s", err);
  if (!s) return;
  sl_run_info ri = test_info("run");
  int64_t id;
  CHECK(sl_store_run_begin(s, &ri, &id) == 0);
  ri.reference = "LibTorch 1.13.0 (Debian libtorch-dev 1.13.1+dfsg-4)";
  CHECK(sl_store_run_begin(s, &ri, &id) == 0);
  CHECK(sl_store_add_case(s, id, "gather", "gather x=4 index=4", 3, 0, &id) ==
        0);
  sl_store_close(s);
  CHECK(raw_exec(p, " ALTER TABLE timings DROP COLUMN instructions;"
                    " ALTER TABLE timings DROP COLUMN cycles;"
                    " ALTER TABLE timings DROP COLUMN cache_misses;"
                    " DROP INDEX results_signature;"
                    " ALTER TABLE results DROP COLUMN signature;"
                    " DROP TABLE run_providers; DROP TABLE tallies;"
                    " DROP TABLE failure_groups;"
                    " ALTER TABLE runs DROP COLUMN keep;"
                    " ALTER TABLE runs DROP COLUMN ncases;"
                    " PRAGMA user_version = 6") == SQLITE_OK);
  CHECK(raw_int(p, "PRAGMA user_version") == 6);
  CHECK(raw_int(p, "SELECT count(*) FROM sqlite_master WHERE name = "
                   "'run_providers'") == 0);
}

/* Version 7 to 8: the tallies and case counts of old runs come from their
 * results (the dtype from the case line's dt=, f32 without one), and a new
 * fuzz-style run that keeps only failures still counts every verdict. */
static void test_upgrade_v8_tallies(void) {
  char p[300], err[512];
  path_in(p, sizeof p, "v7.db");
  sl_store *s = NULL;
  CHECK_MSG(sl_store_open(p, SL_STORE_READWRITE, &s, err, sizeof err) == 0,
            "%s", err);
  if (!s) return;
  sl_run_info ri = test_info("run");
  int64_t run, c1, c2;
  CHECK(sl_store_run_begin(s, &ri, &run) == 0);
  CHECK(sl_store_add_case(s, run, "gather", "gather dt=f16 x=4 index=4", 1, 0,
                          &c1) == 0);
  CHECK(sl_store_add_case(s, run, "gather", "gather x=4 index=4", 2, 0, &c2) ==
        0);
  sl_result_row a = {"cpu.serial", "passed", "", 0, 0, 0, 0, -1};
  sl_result_row b = {"cpu.omp", "failed", "x", 0, 0, 0, 0, -1};
  CHECK(sl_store_add_result(s, c1, &a) == 0 &&
        sl_store_add_result(s, c1, &b) == 0 &&
        sl_store_add_result(s, c2, &a) == 0);
  sl_store_close(s);
  /* What the store counted as it went. */
  CHECK(raw_int(p, "SELECT ncases FROM runs") == 2);
  CHECK(raw_int(p, "SELECT count FROM tallies WHERE dtype = 'f16' AND"
                   " variant = 'cpu.omp' AND verdict = 'failed'") == 1);
  /* Back to version 7, then upgraded: the same counts from the results. */
  CHECK(raw_exec(p, " DROP TABLE failure_groups;"
                    " ALTER TABLE run_providers DROP COLUMN origin;"
                    " ALTER TABLE timings DROP COLUMN instructions;"
                    " ALTER TABLE timings DROP COLUMN cycles;"
                    " ALTER TABLE timings DROP COLUMN cache_misses;"
                    " DROP INDEX results_signature;"
                    " ALTER TABLE results DROP COLUMN signature;"
                    " DROP TABLE tallies; ALTER TABLE runs DROP COLUMN keep;"
                    " ALTER TABLE runs DROP COLUMN ncases;"
                    " PRAGMA user_version = 7") == SQLITE_OK);
  CHECK_MSG(sl_store_open(p, SL_STORE_READWRITE, &s, err, sizeof err) == 0,
            "%s", err);
  sl_store_close(s);
  CHECK(raw_int(p, "PRAGMA user_version") == 13);
  CHECK(raw_int(p, "SELECT ncases FROM runs") == 2);
  CHECK(raw_int(p, "SELECT count(*) FROM tallies") == 3);
  CHECK(raw_int(p, "SELECT count FROM tallies WHERE dtype = 'f16' AND"
                   " variant = 'cpu.omp' AND verdict = 'failed'") == 1);
  CHECK(raw_int(p, "SELECT count FROM tallies WHERE dtype = 'f32' AND"
                   " variant = 'cpu.serial' AND verdict = 'passed'") == 1);
  CHECK(raw_int(p, "SELECT keep FROM runs") == 0); /* 'all', not a number */
  /* Counted without a case row: a kept-failures run's passing case. */
  CHECK_MSG(sl_store_open(p, SL_STORE_READWRITE, &s, err, sizeof err) == 0,
            "%s", err);
  if (!s) return;
  ri.keep = "failures";
  CHECK(sl_store_run_begin(s, &ri, &run) == 0);
  CHECK(sl_store_count_case(s, run) == 0);
  CHECK(sl_store_tally(s, run, "gather", "f32", "cpu.serial", "passed") == 0);
  CHECK(sl_store_tally(s, run, "gather", "f32", "cpu.serial", "passed") == 0);
  CHECK(sl_store_tally(s, run, "gather", "f32", NULL, "passed") != 0);
  sl_store_close(s);
  CHECK(raw_int(p, "SELECT count FROM tallies WHERE run_id = 2") == 2);
  CHECK(raw_int(p, "SELECT ncases FROM runs WHERE id = 2") == 1);
  CHECK(raw_int(p, "SELECT count(*) FROM runs WHERE keep = 'failures'") == 1);
}

/* Schema 9: the failure groups by signature; a shrunk copy is counted
 * neither as a case, nor in the tallies, nor in its group. */
typedef struct groups_seen {
  int n;
  int64_t cases[4];
  char minimal[4][64];
} groups_seen;

static int group_seen(void *user, const sl_failure_group_view *g) {
  groups_seen *x = user;
  if (x->n < 4) {
    x->cases[x->n] = g->cases;
    snprintf(x->minimal[x->n], sizeof x->minimal[0], "%s", g->minimal_line);
  }
  ++x->n;
  return 0;
}

static void test_failure_groups(void) {
  char p[300], err[512];
  path_in(p, sizeof p, "groups.db");
  sl_store *s = NULL;
  CHECK_MSG(sl_store_open(p, SL_STORE_READWRITE, &s, err, sizeof err) == 0,
            "%s", err);
  if (!s) return;
  sl_run_info ri = test_info("fuzz");
  int64_t run, c1, m1, c2, c3;
  sl_result_row bad = {"cpu.omp", "failed", "at 3", 0, 0, 0, 0, -1};
  CHECK(sl_store_run_begin(s, &ri, &run) == 0);
  CHECK(sl_store_add_case(s, run, "gather", "gather x=9 index=9", 1, 0, &c1) ==
        0);
  CHECK(sl_store_add_result(s, c1, &bad) == 0);
  CHECK(sl_store_add_case(s, run, "gather", "gather x=2 index=2", 1, c1, &m1) ==
        0);
  CHECK(sl_store_add_result(s, m1, &bad) == 0);
  CHECK(sl_store_add_case(s, run, "gather", "gather x=8 index=8", 2, 0, &c2) ==
        0);
  CHECK(sl_store_add_result(s, c2, &bad) == 0);
  CHECK(sl_store_add_case(s, run, "gather", "gather x=7 index=7", 3, 0, &c3) ==
        0);
  CHECK(sl_store_add_result(s, c3, &bad) == 0);
  CHECK(sl_store_set_signature(s, c1, "cpu.omp", "sig A") == 0 &&
        sl_store_set_signature(s, m1, "cpu.omp", "sig A") == 0 &&
        sl_store_set_signature(s, c2, "cpu.omp", "sig A") == 0 &&
        sl_store_set_signature(s, c3, "cpu.omp", "sig B") == 0);
  groups_seen g = {0};
  CHECK(sl_store_each_failure_group(s, 0, group_seen, &g) == 0);
  CHECK_MSG(g.n == 2, "%d groups", g.n);
  CHECK(g.cases[0] == 2 && g.cases[1] == 1);
  CHECK(strcmp(g.minimal[0], "gather x=2 index=2") == 0);
  CHECK(strcmp(g.minimal[1], "gather x=7 index=7") == 0);
  sl_store_close(s);
  CHECK(raw_int(p, "SELECT ncases FROM runs") == 3);
  CHECK(raw_int(p, "SELECT count FROM tallies WHERE verdict = 'failed'") == 3);
}

/* Schema 12: the groups the store remembers across runs (store_groups.c):
 * first and last run, the first run's commit, the cases (shrunk copies not
 * counted); refreshed from the results after a run, derived by the
 * migration for the runs stored before, and again by a merge. */
typedef struct origins_seen {
  int n;
  int64_t run[4];
  char commit[4][16];
} origins_seen;

static int origin_seen(void *user, const sl_failure_group_view *g) {
  origins_seen *x = user;
  if (x->n < 4) {
    x->run[x->n] = g->origin_run;
    snprintf(x->commit[x->n], sizeof x->commit[0], "%s", g->origin_commit);
  }
  ++x->n;
  return 0;
}

/* One run of commit `commit` whose cases fail with the signatures sigs
 * (the first also shrunk once). */
static int64_t failing_run(sl_store *s, const char *commit,
                           const char *const *sigs, int n) {
  sl_run_info ri = test_info("fuzz");
  ri.git_commit = commit;
  int64_t run = 0, c, m;
  sl_result_row bad = {"cpu.omp", "failed", "at 3", 0, 0, 0, 0, -1};
  CHECK(sl_store_run_begin(s, &ri, &run) == 0);
  for (int i = 0; i < n; ++i) {
    CHECK(sl_store_add_case(s, run, "gather", "gather x=9 index=9", 1, 0, &c) ==
          0);
    CHECK(sl_store_add_result(s, c, &bad) == 0);
    CHECK(sl_store_set_signature(s, c, "cpu.omp", sigs[i]) == 0);
    if (i) continue;
    CHECK(sl_store_add_case(s, run, "gather", "gather x=1 index=1", 1, c, &m) ==
          0);
    CHECK(sl_store_add_result(s, m, &bad) == 0);
    CHECK(sl_store_set_signature(s, m, "cpu.omp", sigs[i]) == 0);
  }
  return run;
}

static void test_known_groups(void) {
  char p[300], q[300], m[300], err[512], a[17], b[17];
  /* FNV-1a 64 from the offset basis failure_group.c has always used
   * (1469598103934665603, which the corpus's entry names are hashed with),
   * computed by hand: "" is the basis, "a" one step. */
  sl_store_signature_id("", a);
  CHECK_MSG(strcmp(a, "14650fb0739d0383") == 0, "%s", a);
  sl_store_signature_id("a", a);
  CHECK_MSG(strcmp(a, "44bd8ad473cd9906") == 0, "%s", a);
  sl_store_signature_id("sig A", a);
  sl_store_signature_id("sig B", b);
  path_in(p, sizeof p, "known.db");
  sl_store *s = NULL;
  CHECK_MSG(sl_store_open(p, SL_STORE_READWRITE, &s, err, sizeof err) == 0,
            "%s", err);
  if (!s) return;
  sl_known_group g;
  const char *one[] = {"sig A"}, *two[] = {"sig A", "sig A", "sig B"};
  int64_t r1 = failing_run(s, "abc123", one, 1);
  CHECK(sl_store_known_group(s, a, &g) == 0); /* not until refreshed */
  CHECK_MSG(sl_store_refresh_groups(s, r1) == 0, "%s", sl_store_errmsg(s));
  CHECK(sl_store_known_group(s, a, &g) == 1);
  CHECK(g.first_run == r1 && g.last_run == r1 && g.count == 1 &&
        strcmp(g.first_commit, "abc123") == 0);
  CHECK(sl_store_known_group(s, b, &g) == 0);
  int64_t r2 = failing_run(s, "def456", two, 3);
  /* Before run 2's refresh: what run 1 left. */
  CHECK(sl_store_known_group(s, a, &g) == 1 && g.count == 1);
  CHECK(sl_store_refresh_groups(s, r2) == 0);
  CHECK(sl_store_known_group(s, a, &g) == 1);
  CHECK(g.first_run == r1 && g.last_run == r2 && g.count == 3 &&
        strcmp(g.first_commit, "abc123") == 0);
  CHECK(sl_store_known_group(s, b, &g) == 1);
  CHECK(g.first_run == r2 && g.last_run == r2 && g.count == 1 &&
        strcmp(g.first_commit, "def456") == 0);
  CHECK(sl_store_refresh_groups(s, r2) == 0); /* again: the same */
  CHECK(sl_store_known_group(s, a, &g) == 1 && g.count == 3);
  CHECK(sl_store_refresh_groups(s, 0) != 0);
  /* report --failures of run 2: A started in run 1, B in run 2. */
  origins_seen o = {0};
  CHECK(sl_store_each_failure_group(s, r2, origin_seen, &o) == 0);
  CHECK(o.n == 2 && o.run[0] == r1 && strcmp(o.commit[0], "abc123") == 0 &&
        o.run[1] == r2 && strcmp(o.commit[1], "def456") == 0);
  sl_store_close(s);
  CHECK(raw_int(p, "SELECT count(*) FROM failure_groups") == 2);

  /* A store from before schema 12: the migration derives the same rows. */
  CHECK(raw_exec(p, "DROP TABLE failure_groups; PRAGMA user_version = 11") ==
        SQLITE_OK);
  CHECK_MSG(sl_store_open(p, SL_STORE_READWRITE, &s, err, sizeof err) == 0,
            "%s", err);
  sl_store_close(s);
  CHECK(raw_int(p, "PRAGMA user_version") == 13);
  CHECK(raw_int(p, "SELECT count(*) FROM failure_groups WHERE"
                   " signature = 'sig A' AND first_run = 1 AND last_run = 2"
                   " AND count = 3 AND first_commit = 'abc123'") == 1);
  CHECK(raw_int(p,
                "SELECT count(*) FROM failure_groups WHERE"
                " signature = 'sig B' AND first_run = 2 AND count = 1") == 1);

  /* Shards merged: the groups of the copied runs derived again; merging
   * twice adds nothing. */
  path_in(q, sizeof q, "known_q.db");
  path_in(m, sizeof m, "known_m.db");
  CHECK(sl_store_open(q, SL_STORE_READWRITE, &s, err, sizeof err) == 0);
  if (!s) return;
  CHECK(sl_store_refresh_groups(s, failing_run(s, "fed789", one, 1)) == 0);
  sl_store_close(s);
  CHECK(sl_store_open(m, SL_STORE_READWRITE, &s, err, sizeof err) == 0);
  if (!s) return;
  CHECK_MSG(sl_store_merge(s, p, NULL) == 0 &&
                sl_store_merge(s, q, NULL) == 0 &&
                sl_store_merge(s, q, NULL) == 0,
            "%s", sl_store_errmsg(s));
  CHECK(sl_store_known_group(s, a, &g) == 1);
  CHECK(g.first_run == 1 && g.last_run == 3 && g.count == 4 &&
        strcmp(g.first_commit, "abc123") == 0);
  CHECK(sl_store_known_group(s, b, &g) == 1 && g.first_run == 2);
  sl_store_close(s);
}

/* Schema 13: the defect each group was reported under. The walk gives the
 * groups defect by defect (the defects in the order first met), a group
 * without one under its own signature; a refresh keeps it, a merge copies
 * it. */
typedef struct defects_seen {
  int n;
  char sig[4][16], defect[4][16];
} defects_seen;

static int defect_seen(void *user, const sl_failure_group_view *g) {
  defects_seen *x = user;
  if (x->n < 4) {
    snprintf(x->sig[x->n], sizeof x->sig[0], "%s", g->signature);
    snprintf(x->defect[x->n], sizeof x->defect[0], "%s", g->defect);
  }
  ++x->n;
  return 0;
}

static void test_group_defects(void) {
  char p[300], m[300], err[512], a[17], c[17];
  path_in(p, sizeof p, "defects.db");
  path_in(m, sizeof m, "defects_m.db");
  sl_store *s = NULL;
  CHECK_MSG(sl_store_open(p, SL_STORE_READWRITE, &s, err, sizeof err) == 0,
            "%s", err);
  if (!s) return;
  const char *three[] = {"sig A", "sig B", "sig C"};
  const int64_t run = failing_run(s, "abc123", three, 3);
  sl_store_signature_id("sig A", a);
  sl_store_signature_id("sig C", c);
  CHECK(sl_store_refresh_groups(s, run) == 0);
  CHECK(sl_store_set_group_defect(s, a, "D1") == 0 &&
        sl_store_set_group_defect(s, c, "D1") == 0);
  CHECK(sl_store_set_group_defect(s, NULL, "D1") != 0);
  CHECK(sl_store_refresh_groups(s, run) == 0); /* keeps the defects */
  defects_seen d = {0};
  CHECK(sl_store_each_failure_group(s, 0, defect_seen, &d) == 0);
  CHECK_MSG(
      d.n == 3 && strcmp(d.sig[0], "sig A") == 0 &&
          strcmp(d.sig[1], "sig C") == 0 && strcmp(d.defect[1], "D1") == 0 &&
          strcmp(d.sig[2], "sig B") == 0 && strcmp(d.defect[2], "sig B") == 0,
      "%d: %s/%s %s/%s %s/%s", d.n, d.sig[0], d.defect[0], d.sig[1],
      d.defect[1], d.sig[2], d.defect[2]);
  sl_store_close(s);
  CHECK(sl_store_open(m, SL_STORE_READWRITE, &s, err, sizeof err) == 0);
  if (!s) return;
  CHECK_MSG(sl_store_merge(s, p, NULL) == 0, "%s", sl_store_errmsg(s));
  memset(&d, 0, sizeof d);
  CHECK(sl_store_each_failure_group(s, 0, defect_seen, &d) == 0);
  CHECK(d.n == 3 && strcmp(d.defect[1], "D1") == 0 &&
        strcmp(d.sig[1], "sig C") == 0);
  sl_store_close(s);
}

static void test_upgrade_from_v6(void) {
  char p[300], err[512];
  path_in(p, sizeof p, "v6.db");
  make_v6_store(p);
  sl_store *s = NULL;
  /* Read-only first: refused, and the file left at version 6. */
  CHECK(sl_store_open(p, SL_STORE_READONLY, &s, err, sizeof err) != 0);
  CHECK_CONTAINS(err, "schema version 6 is older than this scatterlab "
                      "(knows 13)");
  CHECK(raw_int(p, "PRAGMA user_version") == 6);
  CHECK_MSG(sl_store_open(p, SL_STORE_READWRITE, &s, err, sizeof err) == 0,
            "%s", err);
  if (!s) return;
  CHECK(raw_int(p, "PRAGMA user_version") == 13);
  /* The table, empty; the old runs as they were, without providers. */
  CHECK(raw_int(p, "SELECT count(*) FROM run_providers") == 0);
  CHECK(raw_int(p, "SELECT strict FROM pragma_table_list WHERE name = "
                   "'run_providers'") == 1);
  CHECK(raw_int(p, "SELECT count(*) FROM runs") == 2);
  CHECK(raw_int(p, "SELECT count(*) FROM cases WHERE run_id = 2") == 1);
  sl_run_brief b;
  CHECK(sl_store_get_run(s, 2, &b) == 0);
  CHECK_MSG(strcmp(b.reference,
                   "LibTorch 1.13.0 (Debian libtorch-dev 1.13.1+dfsg-4)") == 0,
            "%s", b.reference);
  CHECK(providers_of(s, 1).n == 0 && providers_of(s, 2).n == 0);
  /* New runs record theirs. */
  const sl_provider_record two[2] = {prov_builtin, prov_other};
  int64_t id = 0;
  CHECK_MSG(provider_run(s, two, 2, &id) == 0, "%s", sl_store_errmsg(s));
  CHECK(id == 3);
  providers_seen ps = providers_of(s, id);
  CHECK(ps.n == 2 && strcmp(ps.name[1], "other") == 0 && ps.version_null[1]);
  CHECK_MSG(sl_store_check(s) == 0, "%s", sl_store_errmsg(s));
  sl_store_close(s);
}

/* Merge renumbers runs by an offset: the providers of source run k land on
 * destination run k + (the destination's largest run id), in their order,
 * and a second merge adds nothing. A version 6 source is upgraded first
 * and brings its runs without providers. */
static void test_merge_providers(void) {
  char src[300], dst[300], old[300], err[512];
  path_in(src, sizeof src, "merge_src.db");
  path_in(dst, sizeof dst, "merge_dst.db");
  path_in(old, sizeof old, "merge_v6.db");
  sl_store *s = NULL;
  const sl_provider_record three[3] = {prov_builtin, prov_mylib, prov_other};
  const sl_provider_record other_first[2] = {prov_other, prov_builtin};
  int64_t id;
  /* Source: run 1 none, run 2 three, run 3 one (mylib alone). */
  CHECK(sl_store_open(src, SL_STORE_READWRITE, &s, err, sizeof err) == 0);
  if (!s) return;
  CHECK(provider_run(s, NULL, 0, &id) == 0);
  CHECK(provider_run(s, three, 3, &id) == 0);
  CHECK(provider_run(s, &prov_mylib, 1, &id) == 0);
  sl_store_close(s);
  /* Destination: runs 1 and 2 of its own, with providers; the source's
   * runs become 3, 4 and 5. */
  CHECK(sl_store_open(dst, SL_STORE_READWRITE, &s, err, sizeof err) == 0);
  if (!s) return;
  CHECK(provider_run(s, other_first, 2, &id) == 0);
  CHECK(provider_run(s, &prov_builtin, 1, &id) == 0 && id == 2);
  sl_merge_stats m;
  CHECK_MSG(sl_store_merge(s, src, &m) == 0, "%s", sl_store_errmsg(s));
  CHECK(m.runs_copied == 3);
  CHECK(raw_int(dst, "SELECT count(*) FROM run_providers") == 3 + 4);
  providers_seen ps = providers_of(s, 1);
  CHECK(ps.n == 2 && strcmp(ps.name[0], "other") == 0 &&
        strcmp(ps.name[1], "scatterlab") == 0);
  ps = providers_of(s, 2);
  CHECK(ps.n == 1 && strcmp(ps.name[0], "scatterlab") == 0);
  CHECK(providers_of(s, 3).n == 0);
  ps = providers_of(s, 4);
  CHECK(ps.n == 3);
  CHECK(strcmp(ps.name[0], "scatterlab") == 0 && ps.builtin[0] == 1 &&
        strcmp(ps.sha256[0], SHA_BUILTIN) == 0 && ps.n_variants[0] == 57);
  CHECK(strcmp(ps.name[1], "mylib") == 0 && strcmp(ps.version[1], "1.2") == 0 &&
        strcmp(ps.path[1], "/home/u/mylib/build/libmylib.so") == 0);
  CHECK(strcmp(ps.name[2], "other") == 0 && ps.version_null[2] &&
        ps.abi[2] == 4000000000u);
  ps = providers_of(s, 5);
  CHECK(ps.n == 1 && strcmp(ps.name[0], "mylib") == 0 &&
        strcmp(ps.sha256[0], SHA_MYLIB) == 0 && ps.builtin[0] == 0);
  /* Each copied row hangs off the run with the source run's uid. */
  char want_uid[40], got_uid[40];
  raw_text(src, "SELECT uid FROM runs WHERE id = 2", want_uid, sizeof want_uid);
  raw_text(dst,
           "SELECT group_concat(DISTINCT r.uid) FROM run_providers p"
           " JOIN runs r ON r.id = p.run_id WHERE p.sha256 = '" SHA_OTHER
           "' AND r.id > 2",
           got_uid, sizeof got_uid);
  CHECK_MSG(strlen(want_uid) == 32 && strcmp(want_uid, got_uid) == 0,
            "%s vs %s", want_uid, got_uid);
  /* Again: nothing new. */
  CHECK(sl_store_merge(s, src, &m) == 0 && m.runs_copied == 0);
  CHECK(raw_int(dst, "SELECT count(*) FROM run_providers") == 7);
  /* A version 6 source: its two runs come over (6 and 7), without rows. */
  make_v6_store(old);
  CHECK_MSG(sl_store_merge(s, old, &m) == 0, "%s", sl_store_errmsg(s));
  CHECK(m.runs_copied == 2);
  CHECK(providers_of(s, 6).n == 0 && providers_of(s, 7).n == 0);
  CHECK(raw_int(dst, "SELECT count(*) FROM run_providers") == 7);
  CHECK_MSG(sl_store_check(s) == 0, "%s", sl_store_errmsg(s));
  sl_store_close(s);
}

/* Several processes open one new file at once and write to it: the schema
 * is created once and no write is lost (WAL, busy timeout, IMMEDIATE). */
static void test_concurrent_writers(void) {
  enum { NPROC = 4, NCASES = 150 };
  char p[300];
  path_in(p, sizeof p, "shared/concurrent.db");
  pid_t pids[NPROC];
  for (int k = 0; k < NPROC; ++k) {
    pids[k] = fork();
    if (pids[k] == 0) {
      char err[512];
      sl_store *s;
      if (sl_store_open(p, SL_STORE_READWRITE, &s, err, sizeof err)) {
        fprintf(stderr, "child %d: %s\n", k, err);
        _exit(1);
      }
      sl_run_info ri = test_info("fuzz");
      /* With providers: the run and its rows as one unit under contention
       * (the savepoint of run_begin outside a transaction). */
      const sl_provider_record two[2] = {prov_builtin, prov_mylib};
      ri.providers = two;
      ri.n_providers = 2;
      int64_t run, c;
      int bad = sl_store_run_begin(s, &ri, &run);
      for (int i = 0; !bad && i < NCASES; ++i) {
        if (i % 50 == 0) bad |= sl_store_begin(s);
        bad |= sl_store_add_case(s, run, "gather", "gather x=4 index=4",
                                 (uint64_t)i, 0, &c);
        sl_result_row row = {"cpu.serial", "passed", "", 0, 0, 0, 0, -1};
        bad |= sl_store_add_result(s, c, &row);
        if (i % 50 == 49) bad |= sl_store_commit(s);
      }
      bad = bad || sl_store_add_coverage(s, run, "shared", NCASES, 0) ||
            sl_store_run_finish(s, run, "finished");
      if (bad) fprintf(stderr, "child %d: %s\n", k, sl_store_errmsg(s));
      sl_store_close(s);
      _exit(bad ? 1 : 0);
    }
  }
  for (int k = 0; k < NPROC; ++k) {
    int status = -1;
    CHECK(pids[k] > 0 && waitpid(pids[k], &status, 0) == pids[k]);
    CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child %d", k);
  }
  CHECK(raw_int(p, "SELECT count(*) FROM runs WHERE status = 'finished'") ==
        NPROC);
  CHECK(raw_int(p, "SELECT count(*) FROM cases") == NPROC * NCASES);
  CHECK(raw_int(p, "SELECT count(*) FROM results") == NPROC * NCASES);
  CHECK(raw_int(p, "SELECT count(*) FROM run_providers") == NPROC * 2);
  CHECK(raw_int(p, "PRAGMA user_version") == 13);
}

int main(void) {
  if (fixture_begin()) return 1;
  test_providers();
  test_upgrade_v8_tallies();
  test_upgrade_from_v6();
  test_failure_groups();
  test_known_groups();
  test_group_defects();
  test_merge_providers();
  test_concurrent_writers();
  fixture_end();
  return sl_test_finish("test_store_upgrades");
}
