/*
 * The harness against the verdict table (results/verdicts.def): for every
 * verdict, a "failures" run keeps a case judged with it exactly when it
 * fails (sl_store_verdicts), and the JSON of a case result carries a repro
 * exactly for the failing ones; the run's failure count and the store's
 * failing walk agree with the same column.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_out.h"
#include "runner.h"
#include "sl_store.h"
#include "sl_test.h"
#include "store_verdicts.h"

static char tmpdir[256];

static int count_failure(void *user, const sl_failure_view *f) {
  (void)f;
  ++*(int *)user;
  return 0;
}

static void test_keep_failures(void) {
  char db[300], err[512];
  snprintf(db, sizeof db, "%s/keep.db", tmpdir);
  sl_store *s = NULL;
  CHECK_MSG(sl_store_open(db, SL_STORE_READWRITE, &s, err, sizeof err) == 0,
            "%s", err);
  if (!s) return;
  sl_run_info ri;
  memset(&ri, 0, sizeof ri);
  ri.kind = "fuzz";
  ri.command_line = "test_verdict_layers";
  ri.keep = "failures";
  int64_t run = 0;
  CHECK_MSG(sl_store_run_begin(s, &ri, &run) == 0, "%s", sl_store_errmsg(s));
  int nfail = 0;
  for (int v = 0; v < SL_VERDICT_COUNT; ++v) {
    const char *name = sl_verdict_name((sl_verdict)v);
    const int fails = sl_verdict_is_failure((sl_verdict)v);
    nfail += fails;
    sl_variant_result r;
    memset(&r, 0, sizeof r);
    snprintf(r.variant, sizeof r.variant, "v.%s", name);
    r.verdict = (sl_verdict)v;
    r.seconds = -1;
    char line[64];
    snprintf(line, sizeof line, "gather x=%d index=1 dim=0", v + 1);
    int64_t case_id = -1;
    CHECK_MSG(sl_store_verdicts(s, run, SL_OP_GATHER, SL_F32, line, (uint64_t)v,
                                0, 0, &r, 1, &case_id) == 0,
              "%s", sl_store_errmsg(s));
    CHECK_MSG((case_id > 0) == fails,
              "a failures run %s the case of verdict %s (fails=%d)",
              case_id > 0 ? "kept" : "dropped", name, fails);

    /* The JSON of the case: a repro for a failing verdict only. */
    sl_case_result cr;
    memset(&cr, 0, sizeof cr);
    snprintf(cr.line, sizeof cr.line, "%s", line);
    cr.n = 1;
    cr.v[0] = r;
    cr.failures = fails;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    sl_json_case_result(f, &cr);
    fclose(f);
    char want[96];
    snprintf(want, sizeof want, "\"verdict\": \"%s\"", name);
    CHECK_MSG(buf && strstr(buf, want), "%s", buf ? buf : "");
    CHECK_MSG(buf && (strstr(buf, "\"repro\"") != NULL) == fails,
              "JSON of verdict %s: repro %s, fails=%d", name,
              buf && strstr(buf, "\"repro\"") ? "written" : "left out", fails);
    free(buf);
  }
  CHECK(sl_store_run_finish(s, run, "finished") == 0);
  int walked = 0;
  CHECK_MSG(sl_store_each_failure(s, run, count_failure, &walked) >= 0, "%s",
            sl_store_errmsg(s));
  CHECK_MSG(walked == nfail, "store: %d failures walked, the table has %d",
            walked, nfail);
  sl_store_close(s);
}

int main(void) {
  const char *base = getenv("TMPDIR");
  snprintf(tmpdir, sizeof tmpdir, "%s/sl_vlayers_XXXXXX",
           base && *base ? base : "/tmp");
  if (!mkdtemp(tmpdir)) {
    perror("mkdtemp");
    return 1;
  }
  test_keep_failures();
  sl_test_remove_dir(tmpdir);
  return sl_test_finish("test_verdict_layers");
}
