/*
 * The verdict table (results/verdicts.def) against the store: the CHECK of
 * results.verdict in schema.sql names exactly the table's verdicts, every
 * one of them can be stored, and the store's failing walks (the runs'
 * failed counts, sl_store_each_failure) select exactly the verdicts whose
 * `fails` column is 1. reports/tests/test_verdicts_report.c and
 * harness/tests/test_verdict_layers.c hold the other layers to it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "raw_sql.h"
#include "sl_store.h"
#include "sl_test.h"
#include "sl_test_store.h"
#include "sl_verdict.h"

static char tmpdir[256];

/* ------------------------------------------------------------------------ */
/* The table itself                                                          */
/* ------------------------------------------------------------------------ */

static void test_table(void) {
  for (int v = 0; v < SL_VERDICT_COUNT; ++v) {
    const char *name = sl_verdict_name((sl_verdict)v);
    CHECK_MSG(sl_verdict_from_name(name) == v,
              "verdict %d: name \"%s\" reads back as %d", v, name,
              sl_verdict_from_name(name));
    CHECK_MSG(sl_verdict_description((sl_verdict)v)[0] != '\0',
              "verdict %s: empty description", name);
    CHECK_MSG(strspn(name, "abcdefghijklmnopqrstuvwxyz_") == strlen(name) &&
                  name[0],
              "verdict \"%s\": expected [a-z_]+ (it is quoted into SQL "
              "unescaped)",
              name);
    CHECK(sl_verdict_name_is_failure(name) ==
          sl_verdict_is_failure((sl_verdict)v));
  }
  CHECK(sl_verdict_from_name("bogus") == -1);
  CHECK(sl_verdict_from_name("") == -1);
  CHECK(sl_verdict_from_name(NULL) == -1);
  CHECK(sl_verdict_name_is_failure("bogus") == 0);
  CHECK(strcmp(sl_verdict_name(SL_VERDICT_COUNT), "?") == 0);
  CHECK(sl_verdict_is_failure(SL_VERDICT_COUNT) == 0);
  CHECK(sl_verdict_is_failure((sl_verdict)-1) == 0);
  /* The failing set is documented (README's exit statuses, docs/json.md,
   * docs/providers.md): a change of the table's `fails` column must come
   * with them, so it is pinned here. */
  static const char *const failing[] = {"failed", "reject_mismatch", "crashed",
                                        "timeout"};
  int nfail = 0;
  for (int v = 0; v < SL_VERDICT_COUNT; ++v) {
    int pinned = 0;
    for (size_t k = 0; k < sizeof failing / sizeof *failing; ++k)
      pinned |= strcmp(failing[k], sl_verdict_name((sl_verdict)v)) == 0;
    CHECK_MSG(sl_verdict_is_failure((sl_verdict)v) == pinned,
              "verdict %s: the table says fails=%d, the documentation %d",
              sl_verdict_name((sl_verdict)v),
              sl_verdict_is_failure((sl_verdict)v), pinned);
    nfail += sl_verdict_is_failure((sl_verdict)v);
  }
  CHECK(nfail == 4);
}

static void test_sql_list(void) {
  char all[512], bad[512];
  CHECK(sl_verdict_sql_list(0, all, sizeof all) == (int)strlen(all));
  CHECK(sl_verdict_sql_list(1, bad, sizeof bad) == (int)strlen(bad));
  CHECK_MSG(strcmp(bad, "('failed', 'reject_mismatch', 'crashed', "
                        "'timeout')") == 0,
            "got %s", bad);
  for (int v = 0; v < SL_VERDICT_COUNT; ++v) {
    char quoted[80];
    snprintf(quoted, sizeof quoted, "'%s'", sl_verdict_name((sl_verdict)v));
    CHECK_MSG(strstr(all, quoted) != NULL, "%s lacks %s", all, quoted);
    CHECK_MSG((strstr(bad, quoted) != NULL) ==
                  sl_verdict_is_failure((sl_verdict)v),
              "%s and %s (fails=%d)", bad, quoted,
              sl_verdict_is_failure((sl_verdict)v));
  }
  /* Too small: -1 and an empty string, never a list cut short. */
  char tiny[12] = "x";
  CHECK(sl_verdict_sql_list(1, tiny, sizeof tiny) == -1);
  CHECK(tiny[0] == '\0');
  char names[512];
  CHECK(sl_verdict_names_joined(" ", names, sizeof names) > 0);
  CHECK_MSG(strncmp(names, "passed failed ", 14) == 0, "got %s", names);
}

/* ------------------------------------------------------------------------ */
/* schema.sql's CHECK                                                        */
/* ------------------------------------------------------------------------ */

/* The quoted names of the CHECK (verdict IN (...)) in a CREATE TABLE text,
 * into names[]; their count, or -1 when there is no such CHECK. */
static int check_names(const char *sql, char names[][64], int max) {
  static const char head[] = "CHECK (verdict IN (";
  const char *p = strstr(sql, head);
  if (!p) return -1;
  p += sizeof head - 1;
  const char *end = strstr(p, "))");
  if (!end) return -1;
  int n = 0;
  while (p < end) {
    const char *q = memchr(p, '\'', (size_t)(end - p));
    if (!q) break;
    const char *r = memchr(q + 1, '\'', (size_t)(end - q - 1));
    if (!r) return -1;
    if (n < max) snprintf(names[n], 64, "%.*s", (int)(r - q - 1), q + 1);
    ++n;
    p = r + 1;
  }
  return n;
}

static void test_schema_check(void) {
  char db[300], sql[4096], err[512];
  snprintf(db, sizeof db, "%s/schema.db", tmpdir);
  sl_store *s = NULL;
  CHECK_MSG(sl_store_open(db, SL_STORE_READWRITE, &s, err, sizeof err) == 0,
            "%s", err);
  if (!s) return;
  /* The table as a new store has it: schema.sql plus every migration. */
  raw_text(db, "SELECT sql FROM sqlite_master WHERE name = 'results'", sql,
           sizeof sql);
  char names[64][64];
  int n = check_names(sql, names, 64);
  CHECK_MSG(n > 0, "no CHECK (verdict IN (...)) in results: %s", sql);
  for (int k = 0; k < n && k < 64; ++k)
    CHECK_MSG(sl_verdict_from_name(names[k]) >= 0,
              "schema.sql's CHECK names verdict '%s', results/verdicts.def "
              "does not",
              names[k]);
  for (int v = 0; v < SL_VERDICT_COUNT; ++v) {
    int found = 0;
    for (int k = 0; k < n && k < 64; ++k)
      found |= strcmp(names[k], sl_verdict_name((sl_verdict)v)) == 0;
    CHECK_MSG(found,
              "results/verdicts.def has verdict '%s', schema.sql's CHECK of "
              "results.verdict does not (add it there, and a migration that "
              "rebuilds results for the stores already written)",
              sl_verdict_name((sl_verdict)v));
  }
  CHECK_MSG(n == SL_VERDICT_COUNT, "CHECK names %d verdicts, the table %d", n,
            (int)SL_VERDICT_COUNT);

  /* Every verdict of the table is accepted by the store, one not in it is
   * refused. */
  sl_run_info ri;
  memset(&ri, 0, sizeof ri);
  ri.kind = "run";
  ri.command_line = "test_verdicts";
  int64_t run = 0, c = 0;
  CHECK(sl_store_run_begin(s, &ri, &run) == 0);
  CHECK(sl_store_add_case(s, run, "gather", "gather x=4 index=4", 1, 0, &c) ==
        0);
  for (int v = 0; v < SL_VERDICT_COUNT; ++v) {
    char variant[64];
    snprintf(variant, sizeof variant, "v.%s", sl_verdict_name((sl_verdict)v));
    sl_result_row r = {
        variant, sl_verdict_name((sl_verdict)v), NULL, 0, 0, 0, 0, -1};
    CHECK_MSG(sl_store_add_result(s, c, &r) == 0, "verdict %s: %s",
              sl_verdict_name((sl_verdict)v), sl_store_errmsg(s));
  }
  sl_result_row bogus = {"v.bogus", "bogus", NULL, 0, 0, 0, 0, -1};
  CHECK(sl_store_add_result(s, c, &bogus) != 0);
  sl_store_close(s);
}

/* ------------------------------------------------------------------------ */
/* The store's failing walks                                                 */
/* ------------------------------------------------------------------------ */

typedef struct seen {
  int n[SL_VERDICT_COUNT + 1]; /* the last: a name not in the table */
  int64_t nfailed, nresults;
} seen;

static int on_failure(void *user, const sl_failure_view *f) {
  seen *sn = user;
  int v = sl_verdict_from_name(f->verdict);
  ++sn->n[v < 0 ? SL_VERDICT_COUNT : v];
  char want[64];
  snprintf(want, sizeof want, "v.%s", f->verdict);
  CHECK_MSG(strcmp(f->variant, want) == 0, "%s has verdict %s", f->variant,
            f->verdict);
  return 0;
}

static int on_run(void *user, const sl_run_view *r) {
  seen *sn = user;
  sn->nfailed += r->nfailed;
  sn->nresults += r->nresults;
  return 0;
}

static void test_store_failures(void) {
  char db[300], err[512];
  snprintf(db, sizeof db, "%s/failures.db", tmpdir);
  /* One case per verdict, one result each: the store holds every verdict
   * of the table once. */
  int64_t run = 0;
  sl_store *s = sl_test_store_every_verdict(db, "test_verdicts", &run);
  if (!s) return;

  seen sn;
  memset(&sn, 0, sizeof sn);
  CHECK_MSG(sl_store_each_failure(s, 0, on_failure, &sn) >= 0, "%s",
            sl_store_errmsg(s));
  int nfail = 0;
  for (int v = 0; v < SL_VERDICT_COUNT; ++v) {
    const int fails = sl_verdict_is_failure((sl_verdict)v);
    nfail += fails;
    CHECK_MSG(sn.n[v] == fails,
              "sl_store_each_failure gave verdict %s %d times, expected %d "
              "(fails=%d in verdicts.def)",
              sl_verdict_name((sl_verdict)v), sn.n[v], fails, fails);
  }
  CHECK(sn.n[SL_VERDICT_COUNT] == 0);
  CHECK_MSG(sl_store_each_run(s, on_run, &sn) >= 0, "%s", sl_store_errmsg(s));
  CHECK_MSG(sn.nresults == SL_VERDICT_COUNT, "runs: %lld results, expected %d",
            (long long)sn.nresults, (int)SL_VERDICT_COUNT);
  CHECK_MSG(sn.nfailed == nfail,
            "runs: %lld failed, expected %d (the table's failing verdicts)",
            (long long)sn.nfailed, nfail);
  sl_store_close(s);

  /* The same store read-only: the statements are prepared there too. */
  CHECK_MSG(sl_store_open(db, SL_STORE_READONLY, &s, err, sizeof err) == 0,
            "%s", err);
  if (!s) return;
  memset(&sn, 0, sizeof sn);
  CHECK_MSG(sl_store_each_failure(s, run, on_failure, &sn) >= 0, "%s",
            sl_store_errmsg(s));
  CHECK_MSG(sl_store_each_run(s, on_run, &sn) >= 0, "%s", sl_store_errmsg(s));
  int got = 0;
  for (int v = 0; v < SL_VERDICT_COUNT; ++v) got += sn.n[v];
  CHECK_MSG(got == nfail && sn.nfailed == nfail,
            "read-only: %d failures walked, %lld counted, expected %d", got,
            (long long)sn.nfailed, nfail);
  sl_store_close(s);
}

int main(void) {
  const char *base = getenv("TMPDIR");
  snprintf(tmpdir, sizeof tmpdir, "%s/sl_verdicts_XXXXXX",
           base && *base ? base : "/tmp");
  if (!mkdtemp(tmpdir)) {
    perror("mkdtemp");
    return 1;
  }
  test_table();
  test_sql_list();
  test_schema_check();
  test_store_failures();
  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmpdir);
  return sl_test_finish("test_verdicts");
}
