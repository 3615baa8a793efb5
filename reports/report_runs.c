/*
 * The runs table of `scatterlab report`: one line per run, for a person at
 * a terminal. The command line comes last because it is the one column of
 * unbounded width; the providers before it are as wide as the widest run's
 * (a first walk measures them), so that the commands still line up.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report_common.h"
#include "sl_report.h"

typedef struct sl__runs_out {
  FILE *out;
  sl_store *s;
  int64_t run_id; /* 0: every run */
  int n;
  int providers_width;
  char *err;
  size_t errlen;
} sl__runs_out;

/* The first walk: the width of the providers column. */
static int sl__runs_measure(void *user, const sl_run_view *r) {
  sl__runs_out *o = user;
  if (o->run_id && r->id != o->run_id) return 0;
  char *cell = sl__providers_cell(o->s, r->id, 0, o->err, o->errlen);
  if (!cell) return 1;
  int n = (int)strlen(cell);
  if (n > o->providers_width) o->providers_width = n;
  free(cell);
  return 0;
}

static int sl__runs_row(void *user, const sl_run_view *r) {
  sl__runs_out *o = user;
  if (o->run_id && r->id != o->run_id) return 0;
  /* "2024-05-01T12:00:00.123Z" reads better as "2024-05-01 12:00:00". */
  char started[20];
  snprintf(started, sizeof started, "%s", r->started_at);
  if (strlen(started) > 10 && started[10] == 'T') started[10] = ' ';
  char commit[SL__SHORT_COMMIT], reference[SL__SHORT_REFERENCE];
  sl__short_commit(r->git_commit, commit);
  sl__short_reference(r->reference, reference);
  char *providers = sl__providers_cell(o->s, r->id, 0, o->err, o->errlen);
  if (!providers) return 1;
  fprintf(o->out,
          "%4" PRId64 "  %-6s %-19s  %-11s %7" PRId64 " %8" PRId64 " %7" PRId64
          "  %-18s  %-16s  %-*s  %s\n",
          r->id, r->kind, started, r->status, r->ncases, r->nresults,
          r->nfailed, commit, reference, o->providers_width, providers,
          r->command_line);
  free(providers);
  ++o->n;
  if (ferror(o->out)) {
    snprintf(o->err, o->errlen, "runs report of %s: write error",
             sl_store_path(o->s));
    return 1;
  }
  return 0;
}

int sl_report_runs(sl_store *s, int64_t run_id, FILE *out, char *err,
                   size_t errlen) {
  char dummy[8];
  if (!err || errlen == 0) {
    err = dummy;
    errlen = sizeof dummy;
  }
  /* A run that is not there is an error (it used to print every run). */
  if (sl__report_check(s, out, run_id, "sl_report_runs", err, errlen))
    return -1;
  sl__runs_out o = {out, s, run_id, 0, (int)strlen("providers"), err, errlen};
  int rc = sl_store_each_run(s, sl__runs_measure, &o);
  if (rc == 0) {
    fprintf(out, "runs in %s\n", sl_store_path(s));
    fprintf(out, "%4s  %-6s %-19s  %-11s %7s %8s %7s  %-18s  %-16s  %-*s  %s\n",
            "id", "kind", "started (UTC)", "status", "cases", "results",
            "failed", "commit", "reference", o.providers_width, "providers",
            "command");
    rc = sl_store_each_run(s, sl__runs_row, &o);
  }
  /* A callback that stopped has put its own message in err. */
  if (rc < 0) snprintf(err, errlen, "%s", sl_store_errmsg(s));
  if (rc != 0) return -1;
  if (o.n == 0) fputs("(no runs yet)\n", out);
  if (fflush(out) != 0 || ferror(out)) {
    snprintf(err, errlen, "runs report of %s: write error", sl_store_path(s));
    return -1;
  }
  return 0;
}
