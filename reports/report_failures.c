/*
 * `scatterlab report --failures`: the failure groups of the store (schema 9:
 * results.signature, harness/engine/failure_group.h) under the defect each
 * was reported under (schema 13), each with its count of cases, when it was
 * first and last seen, and the minimal repro.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "report_common.h"
#include "sl_report.h"
#include "sl_store.h"

typedef struct sl__prefix {
  const char *variant;
  size_t len;
  FILE *out;
  void (*text)(FILE *, const char *);
} sl__prefix;

static int sl__provider_option(void *user, const sl_provider_record *p) {
  sl__prefix *x = user;
  if (p->builtin || strlen(p->name) != x->len ||
      strncmp(p->name, x->variant, x->len) != 0)
    return 0;
  /* As the CLI's repro names it (sl_repro_provider): by its prefix alone
   * when the run found it through SCATTERLAB_PROVIDERS, else by a path
   * relative to this working folder, quoted for the shell. */
  char option[2 * 4096 + 256];
  const int from_env = p->origin && strcmp(p->origin, "env") == 0;
  if (sl_repro_provider(p->name, p->path, from_env, option, sizeof option))
    return 1;
  x->text(x->out, option);
  return 1;
}

void sl_report_repro(FILE *out, sl_store *s, int64_t run_id, const char *line,
                     const char *variant, void (*text)(FILE *, const char *)) {
  /* The repro command of `scatterlab run` (harness/engine/runner.c sl_repro).
   */
  fputs("scatterlab run '", out);
  text(out, line);
  fputs("' --variants ", out);
  text(out, variant);
  const char *colon = strchr(variant, ':');
  if (colon) {
    sl__prefix x = {variant, (size_t)(colon - variant), out, text};
    sl_store_run_providers(s, run_id, sl__provider_option, &x);
  }
}

typedef struct sl__groups {
  FILE *out;
  sl_store *s;
  void (*text)(FILE *, const char *);
  int64_t n, cases, fresh;
  int64_t run_id; /* the run reported, 0 for every run */
  sl__defect_walk walk;
} sl__groups;

/* A "defect N:" line before the first group of each defect (the store
 * walks them defect by defect). */
static void sl__defect_line(sl__groups *x, const char *defect) {
  if (!sl__defect_starts(&x->walk, defect)) return;
  fprintf(x->out, "\ndefect %" PRId64 ": ", x->walk.defects);
  x->text(x->out, defect);
  fputc('\n', x->out);
}

static int sl__group(void *user, const sl_failure_group_view *g) {
  sl__groups *x = user;
  sl__defect_line(x, g->defect);
  ++x->n;
  x->cases += g->cases;
  fprintf(x->out,
          "\ngroup %" PRId64 ": %" PRId64 " case%s; first seen run %" PRId64
          " (%s), last seen run %" PRId64 " (%s)\n  ",
          x->n, g->cases, g->cases == 1 ? "" : "s", g->first_run, g->first_seen,
          g->last_run, g->last_seen);
  x->text(x->out, g->signature);
  /* New or known, as the run's own report said (schema 12): for one run,
   * against the runs before it; over every run, where it started. */
  char c[96] = "";
  if (g->origin_commit && g->origin_commit[0])
    snprintf(c, sizeof c, ", at commit %.40s", g->origin_commit);
  if (x->run_id > 0 && g->origin_run >= x->run_id) {
    ++x->fresh;
    fprintf(x->out, "\n  status: new in run %" PRId64, x->run_id);
  } else if (x->run_id > 0) {
    fprintf(x->out, "\n  status: known (first seen in run %" PRId64 "%s)",
            g->origin_run, c);
  } else {
    fprintf(x->out, "\n  status: first seen in run %" PRId64 "%s",
            g->origin_run, c);
  }
  fputs("\n  message: ", x->out);
  x->text(x->out, g->message);
  fputs("\n  minimal repro: ", x->out);
  sl_report_repro(x->out, x->s, g->first_run, g->minimal_line, g->variant,
                  x->text);
  fputc('\n', x->out);
  return ferror(x->out) ? 1 : 0;
}

int sl_report_failure_groups(sl_store *s, int64_t run_id, FILE *out,
                             void (*text)(FILE *, const char *), char *err,
                             size_t errlen) {
  sl__groups x = {.out = out, .s = s, .text = text, .run_id = run_id};
  if (sl_store_each_failure_group(s, run_id, sl__group, &x) < 0) {
    snprintf(err, errlen, "%s", sl_store_errmsg(s));
    return -1;
  }
  fprintf(out,
          "%s%" PRId64 " defect%s in %" PRId64 " failure group%s, %" PRId64
          " failing case%s (shrunk copies not counted)",
          x.n ? "\n" : "", x.walk.defects, x.walk.defects == 1 ? "" : "s", x.n,
          x.n == 1 ? "" : "s", x.cases, x.cases == 1 ? "" : "s");
  if (run_id > 0)
    fprintf(out, "; %" PRId64 " new in run %" PRId64, x.fresh, run_id);
  fputc('\n', out);
  return ferror(out) ? -1 : 0;
}
