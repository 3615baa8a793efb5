/*
 * The failures of the HTML report, by failure group
 * (harness/engine/failure_group.h) under a row naming its defect (schema
 * 13): one row per group with its count of failing
 * cases, its message, the command that repeats it on the smallest case the
 * shrinker reached, and the runs it was first and last seen in. The same groups
 * and the same count as `scatterlab report --failures`, the fuzz summary, JSON
 * and JUnit (shrunk copies are no extra failure). A campaign with a systematic
 * bug may still make many groups; the table stops at max_failures rows and says
 * how many it left out. Failures stored before schema 9 carry no signature:
 * they follow, one row each, under their own heading.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "html.h"
#include "html_sections.h"
#include "report_common.h"
#include "sl_report.h"

typedef struct sl__fail_html {
  FILE *out;
  int max;
  int64_t n;     /* groups (or ungrouped failures) met */
  int64_t cases; /* failing cases over the groups: the counting pass only */
  sl_store *s;
  sl__defect_walk walk;
} sl__fail_html;

/* The repro cell: the command on the minimal case, and the case it was
 * shrunk from when they differ. */
static void sl__repro_cell(const sl__fail_html *h, int64_t run_id,
                           const char *minimal, const char *found,
                           const char *variant) {
  fputs("<td><code>", h->out);
  sl_report_repro(h->out, h->s, run_id, minimal, variant, sl__html_text);
  fputs("</code>", h->out);
  if (strcmp(minimal, found) != 0) {
    fputs("<br><span class=\"note\">shrunk from <code>", h->out);
    sl__html_text(h->out, found);
    fputs("</code></span>", h->out);
  }
  fputs("</td>", h->out);
}

/* verdict, variant, op and message cells */
static void sl__what_cells(FILE *out, const char *verdict, const char *variant,
                           const char *op, const char *message) {
  fputs("<td class=\"bad\">", out);
  sl__html_text(out, verdict);
  fputs("</td><td>", out);
  sl__html_text(out, variant);
  fputs("</td><td>", out);
  sl__html_text(out, op);
  fputs("</td><td><code>", out);
  sl__html_text(out, message);
  fputs("</code></td>", out);
}

static int sl__group_count(void *user, const sl_failure_group_view *g) {
  sl__fail_html *h = user;
  sl__defect_starts(&h->walk, g->defect);
  ++h->n;
  h->cases += g->cases;
  return 0;
}

static int sl__group_row(void *user, const sl_failure_group_view *g) {
  sl__fail_html *h = user;
  FILE *out = h->out;
  /* The table starts with the first group: no failures, no table. */
  if (h->n == 0)
    fputs("<table class=\"failures\">\n<tr><th>cases</th><th>verdict</th>"
          "<th>variant</th><th>op</th><th>message</th>"
          "<th>minimal repro</th><th>seen in runs</th></tr>\n",
          out);
  if (h->n++ >= h->max) return 0; /* count the rest, show none */
  if (sl__defect_starts(&h->walk, g->defect)) {
    fprintf(out,
            "<tr class=\"defect\"><td colspan=\"7\">defect %" PRId64 ": <code>",
            h->walk.defects);
    sl__html_text(out, g->defect);
    fputs("</code></td></tr>\n", out);
  }
  fputs("<tr title=\"", out);
  sl__html_text(out, g->signature);
  fprintf(out, "\"><td class=\"n\">%" PRId64 "</td>", g->cases);
  sl__what_cells(out, g->verdict, g->variant, g->op, g->message);
  sl__repro_cell(h, g->first_run, g->minimal_line, g->found_line, g->variant);
  if (g->first_run == g->last_run)
    fprintf(out, "<td class=\"n\">%" PRId64 "</td></tr>\n", g->first_run);
  else
    fprintf(out, "<td class=\"n\">%" PRId64 " to %" PRId64 "</td></tr>\n",
            g->first_run, g->last_run);
  return ferror(out) ? 1 : 0;
}

/* A failure stored without a signature (before schema 9), one row each. */
static int sl__ungrouped_row(void *user, const sl_failure_view *f) {
  sl__fail_html *h = user;
  FILE *out = h->out;
  if (f->signature[0]) return 0; /* in a group above */
  if (h->n == 0)
    fputs("<h3>Failures stored without a group (before schema 9)</h3>\n"
          "<table class=\"failures\">\n<tr><th>run</th><th>verdict</th>"
          "<th>variant</th><th>op</th><th>message</th>"
          "<th>minimal repro</th></tr>\n",
          out);
  if (h->n++ >= h->max) return 0;
  fprintf(out, "<tr><td class=\"n\">%" PRId64 "</td>", f->run_id);
  sl__what_cells(out, f->verdict, f->variant, f->op, f->message);
  sl__repro_cell(h, f->run_id, f->minimal_line, f->case_line, f->variant);
  fputs("</tr>\n", out);
  return ferror(out) ? 1 : 0;
}

/* Closes a table of h->n rows and says how many were left out. */
static void sl__table_end(const sl__fail_html *h, const char *what) {
  if (h->n == 0) return;
  fputs("</table>\n", h->out);
  if (h->n > h->max)
    fprintf(h->out,
            "<p class=\"note\">%" PRId64 " %s; the first %d are shown. "
            "<code>scatterlab report --failures</code> lists every "
            "one.</p>\n",
            h->n, what, h->max);
}

int sl__html_failures(sl_store *s, const sl_html_opts *o, FILE *out, char *err,
                      size_t errlen) {
  fputs("<h2 id=\"failures\">Failures</h2>\n", out);
  /* The groups are counted before the table so that the count leads. */
  sl__fail_html count = {.s = s};
  sl__fail_html groups = {.out = out, .max = o->max_failures, .s = s};
  sl__fail_html loose = {.out = out, .max = o->max_failures, .s = s};
  int rc =
      sl_store_each_failure_group(s, o->run_id, sl__group_count, &count) < 0;
  if (!rc && count.n)
    fprintf(out,
            "<p><span class=\"bad\">%" PRId64 " defect%s in %" PRId64
            " failure group%s, %" PRId64
            " failing case%s</span> (shrunk copies not counted; "
            "<code>scatterlab report --failures</code> lists the same "
            "groups).</p>\n",
            count.walk.defects, count.walk.defects == 1 ? "" : "s", count.n,
            count.n == 1 ? "" : "s", count.cases, count.cases == 1 ? "" : "s");
  rc = rc ||
       sl_store_each_failure_group(s, o->run_id, sl__group_row, &groups) < 0;
  if (!rc) sl__table_end(&groups, "failure groups");
  rc = rc || sl_store_each_failure(s, o->run_id, sl__ungrouped_row, &loose) < 0;
  if (rc) {
    snprintf(err, errlen, "%s", sl_store_errmsg(s));
    return -1;
  }
  sl__table_end(&loose, "failures without a group");
  if (groups.n == 0 && loose.n == 0)
    fputs("<p class=\"note\">No failures.</p>\n", out);
  return 0;
}
