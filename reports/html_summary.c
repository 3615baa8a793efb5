/*
 * The top of the HTML report: the runs and the verdicts counted by op x dtype
 * x variant, from the runs' tallies (every verdict, whether the run kept
 * its case or not). The summary shows the failing rows only; the whole
 * table and the coverage (html_coverage.c's) close the page as details.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"
#include "html_sections.h"
#include "report_common.h"
#include "sl_verdict.h"
#include "strmap.h"

/* ------------------------------------------------------------------------ */
/* Runs                                                                      */
/* ------------------------------------------------------------------------ */

typedef struct sl__runs_html {
  FILE *out;
  sl_store *s;
  int64_t run_id;
  char *err;
  size_t errlen;
  int failed; /* a callback stopped the walk; its message is in err */
} sl__runs_html;

static void sl__td(FILE *out, const char *cls, const char *text) {
  fprintf(out, cls ? "<td class=\"%s\">" : "<td>", cls);
  sl__html_text(out, text);
  fputs("</td>", out);
}

/* A probe taken at a bench run's start and end: both, flagged when they
 * are far enough apart that the machine moved between them; the start's
 * alone for a run that probed once; "-" for none. */
static void sl__probe_td(FILE *out, double start, double end,
                         int (*apart)(double, double), int digits) {
  if (start > 0 && end > 0)
    fprintf(out, "<td class=\"n%s\">%.*f &rarr; %.*f</td>",
            apart(start, end) ? " bad" : "", digits, start, digits, end);
  else if (start > 0)
    fprintf(out, "<td class=\"n\">%.*f</td>", digits, start);
  else
    fputs("<td class=\"n\">-</td>", out);
}

static int sl__runs_row(void *user, const sl_run_view *r) {
  sl__runs_html *h = user;
  if (h->run_id && r->id != h->run_id) return 0;
  FILE *out = h->out;
  fprintf(out, "<tr%s><td class=\"n\">%" PRId64 "</td>",
          r->nfailed ? " class=\"bad\"" : "", r->id);
  sl__td(out, NULL, r->kind);
  sl__td(out, NULL, r->started_at);
  sl__td(out, NULL, r->status);
  char commit[SL__SHORT_COMMIT];
  sl__short_commit(r->git_commit, commit);
  sl__td(out, NULL, commit);
  sl__td(out, NULL, r->reference);
  /* The cell names each provider briefly; its title holds the paths, ABIs
   * and whole hashes, for telling two builds apart. */
  char *cell = sl__providers_cell(h->s, r->id, 0, h->err, h->errlen);
  char *title =
      cell ? sl__providers_cell(h->s, r->id, 1, h->err, h->errlen) : NULL;
  if (!title) {
    free(cell);
    h->failed = 1;
    return 1;
  }
  if (strcmp(title, "-") != 0) {
    /* One line per provider, the breaks as character references: a table
     * row stays one line of the file. */
    fputs("<td title=\"", out);
    for (char *line = title, *nl; line; line = nl ? nl + 1 : NULL) {
      nl = strchr(line, '\n');
      if (nl) *nl = '\0';
      sl__html_text(out, line);
      if (nl) fputs("&#10;", out);
    }
    fputs("\">", out);
    sl__html_text(out, cell);
    fputs("</td>", out);
  } else {
    sl__td(out, NULL, cell);
  }
  free(cell);
  free(title);
  sl__td(out, NULL, r->host);
  sl__td(out, NULL, r->cpu_model);
  fprintf(out, "<td class=\"n\">%d</td>", r->threads);
  sl__probe_td(out, r->copy_gbs, r->copy_gbs_end, sl_copy_probes_apart, 1);
  sl__probe_td(out, r->core_rtt_ns, r->core_rtt_ns_end, sl_core_rtts_apart, 0);
  fprintf(out,
          "<td class=\"n\">%" PRId64 "</td><td class=\"n\">%" PRId64
          "</td><td class=\"n%s\">%" PRId64 "</td><td><code>",
          r->ncases, r->nresults, r->nfailed ? " bad" : "", r->nfailed);
  sl__html_text(out, r->command_line);
  fputs("</code></td></tr>\n", out);
  return ferror(out) ? 1 : 0;
}

int sl__html_runs(sl_store *s, const sl_html_opts *o, FILE *out, char *err,
                  size_t errlen) {
  fputs("<h2 id=\"runs\">Runs</h2>\n<table class=\"runs\">\n<tr><th>run</th>"
        "<th>kind</th><th>started (UTC)</th><th>status</th><th>commit</th>"
        "<th title=\"the expected answers and torch.cpu's timings came from "
        "it\">reference</th>"
        "<th title=\"the kernel libraries it loaded, in load order\">"
        "providers</th><th>host</th><th>CPU</th><th>threads</th>"
        "<th>copy GB/s</th>"
        "<th title=\"a cache line's round trip between the cores of threads 0 "
        "and 1\">core round trip ns</th>"
        "<th>cases</th><th>results</th><th>failed</th><th>command</th></tr>\n",
        out);
  sl__runs_html h = {out, s, o->run_id, err, errlen, 0};
  int rc = sl_store_each_run(s, sl__runs_row, &h);
  if (rc < 0) snprintf(err, errlen, "%s", sl_store_errmsg(s));
  if (rc < 0 || h.failed) return -1;
  fputs("</table>\n", out);
  return 0;
}

/* ------------------------------------------------------------------------ */
/* Verdicts by op x dtype x variant                                          */
/* ------------------------------------------------------------------------ */

/* The verdicts of results/verdicts.def, in its order; a verdict this
 * build does not know (a store from a newer scatterlab) counts as
 * "other", in the last slot. */
#define SL__NVERDICTS ((int)SL_VERDICT_COUNT)

/* The class of a count's cell: failing verdicts red, passes green. */
static const char *sl__count_class(int v, int64_t n) {
  if (!n || v >= SL__NVERDICTS) return "n";
  if (sl_verdict_is_failure((sl_verdict)v)) return "n bad";
  return v == SL_VERDICT_PASSED ? "n good" : "n";
}

/* A header cell per verdict, its description as the title. */
static void sl__verdict_headers(FILE *out) {
  for (int v = 0; v < SL__NVERDICTS; ++v) {
    fputs("<th title=\"", out);
    sl__html_text(out, sl_verdict_description((sl_verdict)v));
    fprintf(out, "\">%s</th>", sl_verdict_name((sl_verdict)v));
  }
}

typedef struct sl__cell {
  char op[40], dt[16], variant[40];
  int64_t n[SL__NVERDICTS + 1]; /* the last: other */
  int64_t total;
} sl__cell;

typedef struct sl__summary {
  sl__strmap map;
  sl__cell *cells;
  int ncells, cap, oom;
  int64_t run_id, ncases, nresults, nfailures;
} sl__summary;

static sl__cell *sl__cell_of(sl__summary *sm, const char *op, const char *dt,
                             const char *variant) {
  char key[256];
  snprintf(key, sizeof key, "%s\t%s\t%s", op, dt, variant);
  int at = sl__strmap_get(&sm->map, key);
  if (at >= 0) return &sm->cells[at];
  if (sl__grow((void **)&sm->cells, sm->ncells, &sm->cap, sizeof *sm->cells))
    return NULL;
  if (sl__strmap_put(&sm->map, key, sm->ncells)) return NULL;
  sl__cell *c = &sm->cells[sm->ncells++];
  memset(c, 0, sizeof *c);
  snprintf(c->op, sizeof c->op, "%s", op);
  snprintf(c->dt, sizeof c->dt, "%s", dt);
  snprintf(c->variant, sizeof c->variant, "%s", variant);
  return c;
}

/* One tally row: every verdict a run judged, kept in the store or not
 * (fuzz's default --keep failures keeps only failing cases). */
static int sl__summary_row(void *user, const sl_tally_view *t) {
  sl__summary *sm = user;
  sl__cell *c = sl__cell_of(sm, t->op, t->dtype, t->variant);
  if (!c) return sm->oom = 1;
  int v = sl_verdict_from_name(t->verdict);
  if (v < 0) v = SL__NVERDICTS;
  c->n[v] += t->count;
  c->total += t->count;
  sm->nresults += t->count;
  if (sl_verdict_is_failure((sl_verdict)v)) sm->nfailures += t->count;
  return 0;
}

/* The cases judged: runs.ncases of the run (every run for 0). */
static int sl__summary_run(void *user, const sl_run_view *r) {
  sl__summary *sm = user;
  if (!sm->run_id || r->id == sm->run_id) sm->ncases += r->ncases;
  return 0;
}

static int sl__cmp_cell(const void *pa, const void *pb) {
  const sl__cell *a = pa, *b = pb;
  int c = strcmp(a->op, b->op);
  if (!c) c = strcmp(a->dt, b->dt);
  return c ? c : strcmp(a->variant, b->variant);
}

static int64_t sl__cell_failures(const sl__cell *c);

static void sl__summary_table(FILE *out, sl__cell *cells, int n) {
  int other = 0;
  for (int i = 0; i < n; ++i) other |= cells[i].n[SL__NVERDICTS] != 0;
  fputs("<table class=\"summary\">\n<tr><th>op</th><th>dtype</th>"
        "<th>variant</th><th>cases</th>",
        out);
  sl__verdict_headers(out);
  fputs(other ? "<th>other</th></tr>\n" : "</tr>\n", out);
  for (int i = 0; i < n; ++i) {
    const sl__cell *c = &cells[i];
    fputs(sl__cell_failures(c) ? "<tr class=\"bad\">" : "<tr>", out);
    sl__td(out, NULL, c->op);
    sl__td(out, NULL, c->dt);
    sl__td(out, NULL, c->variant);
    fprintf(out, "<td class=\"n\">%" PRId64 "</td>", c->total);
    for (int v = 0; v <= SL__NVERDICTS; ++v) {
      if (v == SL__NVERDICTS && !other) break;
      fprintf(out, "<td class=\"%s\">%" PRId64 "</td>",
              sl__count_class(v, c->n[v]), c->n[v]);
    }
    fputs("</tr>\n", out);
  }
  fputs("</table>\n", out);
}

/* The tallies of the selection, one cell per op x dtype x variant, sorted.
 * 0, or -1 with err (sm freed). */
static int sl__summary_load(sl_store *s, const sl_html_opts *o, sl__summary *sm,
                            char *err, size_t errlen) {
  memset(sm, 0, sizeof *sm);
  sm->run_id = o->run_id;
  int rc = sl_store_each_tally(s, o->run_id, sl__summary_row, sm);
  if (rc >= 0 && !sm->oom) rc = sl_store_each_run(s, sl__summary_run, sm);
  if (rc < 0 || sm->oom) {
    snprintf(err, errlen, "%s",
             sm->oom ? "summary: out of memory" : sl_store_errmsg(s));
    free(sm->cells);
    sl__strmap_free(&sm->map);
    return -1;
  }
  qsort(sm->cells, (size_t)sm->ncells, sizeof *sm->cells, sl__cmp_cell);
  return 0;
}

static int64_t sl__cell_failures(const sl__cell *c) {
  int64_t bad = 0;
  for (int v = 0; v < SL__NVERDICTS; ++v)
    if (sl_verdict_is_failure((sl_verdict)v)) bad += c->n[v];
  return bad;
}

/* Every verdict of the cell unsupported: a variant this machine cannot
 * run (cuda.* without a GPU), nothing to read row by row. */
static int sl__cell_all_unsupported(const sl__cell *c) {
  return c->total > 0 && c->n[SL_VERDICT_UNSUPPORTED] == c->total;
}

/* The verdicts counted over the whole selection: one row. */
static void sl__totals_table(FILE *out, const sl__summary *sm) {
  int64_t n[SL__NVERDICTS + 1] = {0};
  for (int i = 0; i < sm->ncells; ++i)
    for (int v = 0; v <= SL__NVERDICTS; ++v) n[v] += sm->cells[i].n[v];
  fputs("<table class=\"verdict-totals\">\n<tr>", out);
  sl__verdict_headers(out);
  fputs(n[SL__NVERDICTS] ? "<th>other</th></tr>\n<tr>" : "</tr>\n<tr>", out);
  for (int v = 0; v <= SL__NVERDICTS; ++v) {
    if (v == SL__NVERDICTS && !n[v]) break;
    fprintf(out, "<td class=\"%s\">%" PRId64 "</td>", sl__count_class(v, n[v]),
            n[v]);
  }
  fputs("</tr>\n</table>\n", out);
}

/* The failing verdicts' names: "failed, reject_mismatch, crashed or
 * timeout". */
static void sl__failing_names(FILE *out) {
  int nfail = 0, at = 0;
  for (int v = 0; v < SL__NVERDICTS; ++v)
    nfail += sl_verdict_is_failure((sl_verdict)v);
  for (int v = 0; v < SL__NVERDICTS; ++v) {
    if (!sl_verdict_is_failure((sl_verdict)v)) continue;
    fputs(!at ? "" : at == nfail - 1 ? " or " : ", ", out);
    fputs(sl_verdict_name((sl_verdict)v), out);
    ++at;
  }
}

/* The top of the page answers "did anything fail?": the verdicts counted,
 * then only the op x dtype x variant rows with failures; the rows that
 * all passed and those only unsupported are counted, and the whole table
 * waits, collapsed, in the details at the end (sl__html_verdict_details). */
int sl__html_summary(sl_store *s, const sl_html_opts *o, FILE *out, char *err,
                     size_t errlen) {
  sl__summary sm;
  if (sl__summary_load(s, o, &sm, err, errlen)) return -1;
  fprintf(out,
          "<h2 id=\"summary\">Summary</h2>\n<p>%" PRId64 " cases, %" PRId64
          " verdicts, <span class=\"%s\">%" PRId64 " failing</span> (",
          sm.ncases, sm.nresults, sm.nfailures ? "bad" : "good", sm.nfailures);
  sl__failing_names(out);
  fputs(").</p>\n", out);
  if (!sm.ncells) {
    fputs("<p class=\"note\">No results recorded.</p>\n", out);
  } else {
    sl__totals_table(out, &sm);
    int nbad = 0, nunsup = 0;
    for (int i = 0; i < sm.ncells; ++i) {
      if (sl__cell_failures(&sm.cells[i]))
        sm.cells[nbad++] = sm.cells[i]; /* the failing rows, in order */
      else
        nunsup += sl__cell_all_unsupported(&sm.cells[i]);
    }
    const int nrest = sm.ncells - nbad - nunsup;
    if (nbad) {
      fputs("<h3>Verdicts of the rows with failures (op, dtype, "
            "variant)</h3>\n",
            out);
      sl__summary_table(out, sm.cells, nbad);
    }
    fprintf(out,
            "<p class=\"note\">%d op/dtype/variant row%s with failures; "
            "%d without failures; %d with every verdict "
            "<code>unsupported</code> (a variant this machine cannot run). "
            "<a href=\"#verdicts\">Every row</a> is under Details.</p>\n",
            nbad, nbad == 1 ? "" : "s", nrest, nunsup);
  }
  free(sm.cells);
  sl__strmap_free(&sm.map);
  return 0;
}

int sl__html_verdict_details(sl_store *s, const sl_html_opts *o, FILE *out,
                             char *err, size_t errlen) {
  sl__summary sm;
  if (sl__summary_load(s, o, &sm, err, errlen)) return -1;
  fputs("<h2 id=\"details\">Details</h2>\n", out);
  if (sm.ncells) {
    fprintf(out,
            "<details id=\"verdicts\"><summary>Verdicts by op, dtype and "
            "variant: all %d rows</summary>\n",
            sm.ncells);
    sl__summary_table(out, sm.cells, sm.ncells);
    fputs("</details>\n", out);
  }
  free(sm.cells);
  sl__strmap_free(&sm.map);
  return sl__html_coverage(s, o, out, err, errlen);
}
