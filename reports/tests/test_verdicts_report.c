/*
 * The reports against the verdict table (results/verdicts.def): over a
 * store holding one result of each verdict, the HTML summary lists the
 * table's verdicts in its order, marks exactly the failing ones bad and
 * counts them as failing; `report --verdict` takes exactly the table's
 * names and selects each verdict's row.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sl_report.h"
#include "sl_store.h"
#include "sl_test.h"
#include "sl_test_store.h"
#include "sl_verdict.h"

static char tmpdir[256];

static int nfailing(void) {
  int n = 0;
  for (int v = 0; v < SL_VERDICT_COUNT; ++v)
    n += sl_verdict_is_failure((sl_verdict)v);
  return n;
}

static void test_html_summary(sl_store *s) {
  char err[512], *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  CHECK_MSG(sl_report_html(s, NULL, f, err, sizeof err) == 0, "%s", err);
  fclose(f);
  if (!buf) return;
  char want[128];
  snprintf(want, sizeof want, "<span class=\"bad\">%d failing</span>",
           nfailing());
  CHECK_CONTAINS(buf, want);

  /* The totals table: a header per verdict in table order, then one count
   * each (1), class "n bad" exactly for the failing ones. */
  const char *p = strstr(buf, "<table class=\"verdict-totals\">");
  CHECK_MSG(p != NULL, "no verdict-totals table");
  if (!p) {
    free(buf);
    return;
  }
  for (int v = 0; v < SL_VERDICT_COUNT; ++v) {
    const char *name = sl_verdict_name((sl_verdict)v);
    const char *th = strstr(p, "<th");
    const char *gt = th ? strchr(th, '>') : NULL;
    const char *end = gt ? strstr(gt, "</th>") : NULL;
    CHECK_MSG(end && (size_t)(end - gt - 1) == strlen(name) &&
                  strncmp(gt + 1, name, strlen(name)) == 0,
              "header %d: expected %s, got %.40s", v, name, gt ? gt + 1 : "");
    if (!end) break;
    p = end;
  }
  for (int v = 0; v < SL_VERDICT_COUNT; ++v) {
    const char *name = sl_verdict_name((sl_verdict)v);
    const int fails = sl_verdict_is_failure((sl_verdict)v);
    const char *td = strstr(p, "<td class=\"");
    CHECK_MSG(td != NULL, "no count for %s", name);
    if (!td) break;
    td += strlen("<td class=\"");
    const char *q = strchr(td, '"');
    const int bad = q && strncmp(td, "n bad\"", 6) == 0;
    CHECK_MSG(bad == fails, "the %s count is%s marked bad; fails=%d", name,
              bad ? "" : " not", fails);
    CHECK_MSG(q && strncmp(q, "\">1</td>", 8) == 0, "the %s count: %.20s", name,
              q ? q : "");
    p = q ? q : td;
  }
  free(buf);
}

static int count_lines(const char *buf) {
  int n = 0;
  for (; buf && *buf; ++buf) n += *buf == '\n';
  return n;
}

static void test_csv_verdicts(sl_store *s) {
  char err[1024];
  for (int v = 0; v < SL_VERDICT_COUNT; ++v) {
    const char *name = sl_verdict_name((sl_verdict)v);
    CHECK_MSG(sl_report_verdicts_check(name, err, sizeof err) == 0, "%s: %s",
              name, err);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK_MSG(sl_report_csv_results_where(s, 0, name, f, err, sizeof err) == 0,
              "%s", err);
    fclose(f);
    char variant[64];
    snprintf(variant, sizeof variant, ",v.%s,%s,", name, name);
    CHECK_MSG(count_lines(buf) == 2, "--verdict %s: %d lines", name,
              count_lines(buf));
    CHECK_MSG(buf && strstr(buf, variant), "--verdict %s: %s", name,
              buf ? buf : "");
    free(buf);
  }
  CHECK(sl_report_verdicts_check("bogus", err, sizeof err) != 0);
  /* The message names every verdict the table has. */
  for (int v = 0; v < SL_VERDICT_COUNT; ++v)
    CHECK_CONTAINS(err, sl_verdict_name((sl_verdict)v));
  CHECK(sl_report_verdicts_check("passed,bogus", err, sizeof err) != 0);
  CHECK(sl_report_verdicts_check("passed,", err, sizeof err) != 0);
}

int main(void) {
  const char *base = getenv("TMPDIR");
  snprintf(tmpdir, sizeof tmpdir, "%s/sl_vreport_XXXXXX",
           base && *base ? base : "/tmp");
  if (!mkdtemp(tmpdir)) {
    perror("mkdtemp");
    return 1;
  }
  char db[300];
  snprintf(db, sizeof db, "%s/v.db", tmpdir);
  sl_store *s = sl_test_store_every_verdict(db, "test_verdicts_report", NULL);
  if (s) {
    test_html_summary(s);
    test_csv_verdicts(s);
    sl_store_close(s);
  }
  sl_test_remove_dir(tmpdir);
  return sl_test_finish("test_verdicts_report");
}
