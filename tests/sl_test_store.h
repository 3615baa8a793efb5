/*
 * A store for tests of the verdict list (results/verdicts.def): one run, one
 * case per verdict of the table, its one result by variant "v.<verdict>".
 * Shared by the store's and the reports' tests, which judge the same store.
 * Include after sl_test.h and sl_store.h.
 */
#ifndef SL_TEST_STORE_H
#define SL_TEST_STORE_H

#include <stdio.h>
#include <string.h>

#include "sl_verdict.h"

/* Opens db (created) and fills it; NULL on failure (checked). command is
 * the run's command line; *run (when not NULL) gets the run's id. */
static inline sl_store *sl_test_store_every_verdict(const char *db,
                                                    const char *command,
                                                    int64_t *run_id) {
  char err[512];
  sl_store *s = NULL;
  CHECK_MSG(sl_store_open(db, SL_STORE_READWRITE, &s, err, sizeof err) == 0,
            "%s", err);
  if (!s) return NULL;
  sl_run_info ri;
  memset(&ri, 0, sizeof ri);
  ri.kind = "fuzz";
  ri.command_line = command;
  int64_t run = 0;
  CHECK(sl_store_run_begin(s, &ri, &run) == 0);
  for (int v = 0; v < SL_VERDICT_COUNT; ++v) {
    char line[64], variant[64];
    int64_t c = 0;
    snprintf(line, sizeof line, "gather x=%d index=1 dim=0", v + 1);
    snprintf(variant, sizeof variant, "v.%s", sl_verdict_name((sl_verdict)v));
    CHECK(sl_store_add_case(s, run, "gather", line, (uint64_t)v, 0, &c) == 0);
    sl_result_row r = {
        variant, sl_verdict_name((sl_verdict)v), "why", 0, 0, 0, 0, -1};
    CHECK_MSG(sl_store_add_result(s, c, &r) == 0, "%s", sl_store_errmsg(s));
  }
  CHECK(sl_store_run_finish(s, run, "finished") == 0);
  if (run_id) *run_id = run;
  return s;
}

#endif
