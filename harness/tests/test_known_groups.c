/*
 * Known and new failure groups (known_groups.h): a --known file's lines
 * (ids, signatures, comments; a malformed line named by its number), the
 * statuses and --fail-on's verdict on them, and the store's id of a
 * signature, which must be failure_group.c's (the store derives its rows'
 * ids itself: results/store_groups.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "failure_group.h"
#include "failure_report.h"
#include "known_groups.h"
#include "sl_store.h"
#include "sl_test.h"

static char dir[] = "/tmp/sl_known_XXXXXX";

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  CHECK(f != NULL);
  if (!f) return;
  fputs(text, f);
  fclose(f);
}

int main(void) {
  if (!mkdtemp(dir)) return 1;
  /* The two ids agree. */
  sl_case c;
  char err[1500];
  CHECK(sl_case_parse("gather dt=f32 it=i64 x=4x3 index=2x3 dim=0 seed=1", &c,
                      err, sizeof err) == 0);
  sl_failure_sig sig;
  sl_failure_signature(&c, "b:cpu.x", "failed",
                       "out: exact mismatch at [1,2]: got 3, expected 4", &sig);
  char id[17];
  sl_store_signature_id(sig.text, id);
  CHECK_MSG(strcmp(id, sig.id) == 0, "%s vs %s", id, sig.id);

  /* A file of comments, an id (upper case too), a signature with blanks
   * around it; '#' inside a signature is text. */
  char path[256], text[2048];
  snprintf(path, sizeof path, "%s/known.txt", dir);
  snprintf(text, sizeof text,
           "# accepted on purpose\n"
           "\n"
           "   # indented comment\n"
           "0123456789ABCDEF\n"
           "  %s \t\n"
           "scatter_reduce b:cpu.y crashed | sum out | worker killed by "
           "signal # (Segmentation fault)\n",
           sig.text);
  write_file(path, text);
  sl_known_list k;
  CHECK_MSG(sl_known_load(path, &k, err, sizeof err) == 0, "%s", err);
  CHECK(k.n == 3);
  if (k.n == 3) {
    CHECK(strcmp(k.v[0].text, "0123456789abcdef") == 0 && k.v[0].line == 4);
    CHECK(strcmp(k.v[1].text, sig.text) == 0 && k.v[1].line == 5);
    CHECK(k.v[2].line == 6);
  }

  /* Statuses without a store: accepted (by text or id) or new; --fail-on
   * new leaves the new ones failing, accepted ones never fail. */
  sl_failure_groups g = {0};
  CHECK(sl_failure_groups_add(&g, sig.id, sig.text, "b:cpu.x", "failed",
                              "gather x=1 index=1", "gather x=9 index=9", "m",
                              NULL) == 0);
  CHECK(sl_failure_groups_add(&g, "fedcba9876543210",
                              "gather b:cpu.z failed "
                              "| - out | a NaN lost",
                              "b:cpu.z", "failed", "gather x=1 index=1",
                              "gather x=2 index=2", "m", NULL) == 0);
  CHECK(sl_failure_groups_add(&g, "0123456789abcdef",
                              "scatter b:cpu.w failed "
                              "| - out | a value wrong",
                              "b:cpu.w", "failed", "scatter x=1", "scatter x=1",
                              "m", NULL) == 0);
  CHECK(sl_failure_groups_failing(&g) == 3); /* before triage: all fail */
  sl_triage_opts o = {1, path, k};
  CHECK(sl_failure_groups_triage(&g, NULL, 0, &o, err, sizeof err) == 0);
  CHECK(g.v[0].status == SL_GROUP_ACCEPTED && !g.v[0].fails);
  CHECK(g.v[1].status == SL_GROUP_NEW && g.v[1].fails);
  CHECK(g.v[2].status == SL_GROUP_ACCEPTED && !g.v[2].fails);
  CHECK(sl_failure_groups_failing(&g) == 1 && sl_failure_groups_new(&g) == 1);
  char status[1400], want[600];
  sl_failure_group_status(&g.v[0], status, sizeof status);
  snprintf(want, sizeof want, "known (accepted in %s:5)", path);
  CHECK_MSG(strcmp(status, want) == 0, "%s", status);
  sl_failure_group_status(&g.v[1], status, sizeof status);
  CHECK(strcmp(status, "new") == 0);
  g.v[1].status = SL_GROUP_KNOWN;
  g.v[1].first_run = 3;
  snprintf(g.v[1].first_commit, sizeof g.v[1].first_commit, "8e91f58");
  sl_failure_group_status(&g.v[1], status, sizeof status);
  CHECK_MSG(strcmp(status, "known (first seen in run 3, at commit 8e91f58)") ==
                0,
            "%s", status);
  sl_failure_groups_free(&g);
  sl_known_free(&k);

  /* A malformed line: the file and the line named, nothing kept. */
  const char *bad[] = {
      "# ok\n0123456789abcdef\nnot a signature\n",
      "gather b:cpu.x passed | - out | a value wrong\n", /* not failing */
      "frobnicate b:cpu.x failed | - out | a value wrong\n",
      "gather b:cpu.x failed - out a value wrong\n",
      "0123456789abcdeg\n",
  };
  const long bad_line[] = {3, 1, 1, 1, 1};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i) {
    write_file(path, bad[i]);
    CHECK_MSG(sl_known_load(path, &k, err, sizeof err) != 0, "%s", bad[i]);
    char where[300];
    snprintf(where, sizeof where, "%s:%ld: expected a failure group's", path,
             bad_line[i]);
    CHECK_MSG(strstr(err, where) != NULL, "%s", err);
    CHECK(k.n == 0 && k.v == NULL);
  }
  snprintf(path, sizeof path, "%s/none.txt", dir);
  CHECK(sl_known_load(path, &k, err, sizeof err) != 0);
  CHECK_MSG(strstr(err, path) != NULL, "%s", err);

  sl_test_remove_dir(dir);
  return sl_test_finish("test_known_groups");
}
