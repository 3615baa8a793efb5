/*
 * The runs table of `scatterlab report`: one line per run, for a person at
 * a terminal. The command line comes last because it is the one column of
 * unbounded width.
 */
#include <inttypes.h>
#include <string.h>

#include "report_common.h"
#include "sl_report.h"

typedef struct sl__runs_out {
  FILE *out;
  int n;
} sl__runs_out;

static int sl__runs_row(void *user, const sl_run_view *r) {
  sl__runs_out *o = user;
  /* "2024-05-01T12:00:00.123Z" reads better as "2024-05-01 12:00:00". */
  char started[20];
  snprintf(started, sizeof started, "%s", r->started_at);
  if (strlen(started) > 10 && started[10] == 'T') started[10] = ' ';
  char commit[SL__SHORT_COMMIT], reference[SL__SHORT_REFERENCE];
  sl__short_commit(r->git_commit, commit);
  sl__short_reference(r->reference, reference);
  fprintf(o->out,
          "%4" PRId64 "  %-6s %-19s  %-11s %7" PRId64 " %8" PRId64 " %7" PRId64
          "  %-18s  %-16s  %s\n",
          r->id, r->kind, started, r->status, r->ncases, r->nresults,
          r->nfailed, commit, reference, r->command_line);
  ++o->n;
  return ferror(o->out) ? 1 : 0;
}

int sl_report_runs(sl_store *s, FILE *out, char *err, size_t errlen) {
  char dummy[8];
  if (!err || errlen == 0) {
    err = dummy;
    errlen = sizeof dummy;
  }
  err[0] = '\0';
  if (!s || !out) {
    snprintf(err, errlen, "sl_report_runs: %s is NULL", !s ? "store" : "out");
    return -1;
  }
  fprintf(out, "runs in %s\n", sl_store_path(s));
  fprintf(out, "%4s  %-6s %-19s  %-11s %7s %8s %7s  %-18s  %-16s  %s\n", "id",
          "kind", "started (UTC)", "status", "cases", "results", "failed",
          "commit", "reference", "command");
  sl__runs_out o = {out, 0};
  if (sl_store_each_run(s, sl__runs_row, &o) < 0) {
    snprintf(err, errlen, "%s", sl_store_errmsg(s));
    return -1;
  }
  if (o.n == 0) fputs("(no runs yet)\n", out);
  if (fflush(out) != 0 || ferror(out)) {
    snprintf(err, errlen, "runs report of %s: write error", sl_store_path(s));
    return -1;
  }
  return 0;
}
