/*
 * The coverage of the HTML report. A fuzz campaign hits its cells
 * (fuzz/casegen.h: op|dt|reduce|self|it|layout|shape|ip|dp|validity) by the
 * hundred thousand, far too many rows for a page a person reads. The page
 * shows each op's cells by axis instead: which values of each axis the
 * cases hit, how often, and whether any failed there; then every cell that
 * failed, by name (up to max_failures rows). The CSV export (`--table
 * coverage`) keeps every cell.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"
#include "html_sections.h"
#include "report_common.h"
#include "strmap.h"

/* The fields of a cell name after the op, in order. */
static const char *const sl__axes[] = {
    "dtype", "reduce",        "include_self", "index dtype", "layout",
    "shape", "index pattern", "data pattern", "validity"};
#define SL__NAXES ((int)(sizeof sl__axes / sizeof sl__axes[0]))

typedef struct sl__cov_cell {
  char *cell;
  int64_t cases, failures;
} sl__cov_cell;

/* One value of one axis of one op: the cases of its cells. */
typedef struct sl__cov_value {
  char *value;
  int64_t cases, failures;
} sl__cov_value;

typedef struct sl__cov_axis {
  sl__cov_value *v;
  int n, cap;
} sl__cov_axis;

typedef struct sl__cov_op {
  char *op;
  int64_t cells, cases, failures;
  sl__cov_axis axis[SL__NAXES];
} sl__cov_op;

typedef struct sl__coverage {
  sl__strmap map; /* cell name -> index in v */
  sl__cov_cell *v;
  int n, cap, oom;
  sl__strmap opmap; /* op -> index in ops */
  sl__cov_op *ops;
  int nops, opcap;
} sl__coverage;

/* Parallel fuzz jobs and several runs add to the same cell: sum them. */
static int sl__coverage_row(void *user, const sl_coverage_view *c) {
  sl__coverage *cv = user;
  int at = sl__strmap_get(&cv->map, c->cell);
  if (at < 0) {
    if (sl__grow((void **)&cv->v, cv->n, &cv->cap, sizeof *cv->v))
      return cv->oom = 1;
    char *name = strdup(c->cell);
    if (!name || sl__strmap_put(&cv->map, c->cell, cv->n)) {
      free(name);
      return cv->oom = 1;
    }
    at = cv->n++;
    cv->v[at] = (sl__cov_cell){name, 0, 0};
  }
  cv->v[at].cases += c->cases;
  cv->v[at].failures += c->failures;
  return 0;
}

static sl__cov_op *sl__op_of(sl__coverage *cv, const char *op) {
  int at = sl__strmap_get(&cv->opmap, op);
  if (at >= 0) return &cv->ops[at];
  if (sl__grow((void **)&cv->ops, cv->nops, &cv->opcap, sizeof *cv->ops))
    return NULL;
  sl__cov_op *o = &cv->ops[cv->nops];
  memset(o, 0, sizeof *o);
  o->op = strdup(op);
  if (!o->op || sl__strmap_put(&cv->opmap, op, cv->nops)) {
    free(o->op);
    return NULL;
  }
  ++cv->nops;
  return o;
}

/* An axis has a handful of values: a linear search is the fast one. */
static int sl__axis_add(sl__cov_axis *a, const char *value, size_t len,
                        const sl__cov_cell *c) {
  int k = 0;
  while (k < a->n && !(strncmp(a->v[k].value, value, len) == 0 &&
                       a->v[k].value[len] == '\0'))
    ++k;
  if (k == a->n) {
    if (sl__grow((void **)&a->v, a->n, &a->cap, sizeof *a->v)) return -1;
    char *s = malloc(len + 1);
    if (!s) return -1;
    memcpy(s, value, len);
    s[len] = '\0';
    a->v[a->n++] = (sl__cov_value){s, 0, 0};
  }
  a->v[k].cases += c->cases;
  a->v[k].failures += c->failures;
  return 0;
}

/* Files cell c under its op and each of its axis values. A name with fewer
 * fields (a store written by another tool) fills the axes it has; the last
 * axis keeps any extra fields. */
static int sl__file_cell(sl__coverage *cv, const sl__cov_cell *c) {
  const char *bar = strchr(c->cell, '|');
  size_t oplen = bar ? (size_t)(bar - c->cell) : strlen(c->cell);
  char op[128];
  snprintf(op, sizeof op, "%.*s", (int)oplen, c->cell);
  sl__cov_op *o = sl__op_of(cv, op);
  if (!o) return -1;
  ++o->cells;
  o->cases += c->cases;
  o->failures += c->failures;
  for (int a = 0; bar && a < SL__NAXES; ++a) {
    const char *v = bar + 1;
    bar = a + 1 < SL__NAXES ? strchr(v, '|') : NULL;
    size_t len = bar ? (size_t)(bar - v) : strlen(v);
    if (sl__axis_add(&o->axis[a], v, len, c)) return -1;
  }
  return 0;
}

static int sl__cmp_value(const void *pa, const void *pb) {
  return strcmp(((const sl__cov_value *)pa)->value,
                ((const sl__cov_value *)pb)->value);
}

static int sl__cmp_op(const void *pa, const void *pb) {
  return strcmp(((const sl__cov_op *)pa)->op, ((const sl__cov_op *)pb)->op);
}

/* Most failures first, then by name. */
static int sl__cmp_failing(const void *pa, const void *pb) {
  const sl__cov_cell *a = pa, *b = pb;
  if (a->failures != b->failures) return a->failures > b->failures ? -1 : 1;
  return strcmp(a->cell, b->cell);
}

static void sl__axis_td(FILE *out, sl__cov_axis *a) {
  if (a->n) /* an axis a short name lacks has no array to sort */
    qsort(a->v, (size_t)a->n, sizeof *a->v, sl__cmp_value);
  fputs("<td>", out);
  for (int k = 0; k < a->n; ++k) {
    const sl__cov_value *v = &a->v[k];
    fputs(k ? "<br>" : "", out);
    if (v->failures) fputs("<span class=\"bad\">", out);
    sl__html_text(out, v->value);
    fprintf(out, "&nbsp;%" PRId64, v->cases);
    if (v->failures) fprintf(out, " (%" PRId64 " failed)</span>", v->failures);
  }
  fputs("</td>", out);
}

static void sl__ops_table(FILE *out, sl__coverage *cv) {
  qsort(cv->ops, (size_t)cv->nops, sizeof *cv->ops, sl__cmp_op);
  fputs("<table class=\"coverage\">\n<tr><th>op</th><th>cells</th>"
        "<th>cases</th><th>failures</th>",
        out);
  for (int a = 0; a < SL__NAXES; ++a) fprintf(out, "<th>%s</th>", sl__axes[a]);
  fputs("</tr>\n", out);
  for (int i = 0; i < cv->nops; ++i) {
    sl__cov_op *o = &cv->ops[i];
    fputs(o->failures ? "<tr class=\"bad\"><td>" : "<tr><td>", out);
    sl__html_text(out, o->op);
    fprintf(out,
            "</td><td class=\"n\">%" PRId64 "</td><td class=\"n\">%" PRId64
            "</td><td class=\"n%s\">%" PRId64 "</td>",
            o->cells, o->cases, o->failures ? " bad" : "", o->failures);
    for (int a = 0; a < SL__NAXES; ++a) sl__axis_td(out, &o->axis[a]);
    fputs("</tr>\n", out);
  }
  fputs("</table>\n", out);
}

/* The cells with failures, most first, at most max rows. Reorders cv->v. */
static void sl__failing_table(FILE *out, sl__coverage *cv, int max) {
  qsort(cv->v, (size_t)cv->n, sizeof *cv->v, sl__cmp_failing);
  int failing = 0;
  while (failing < cv->n && cv->v[failing].failures) ++failing;
  if (!failing) return;
  fprintf(out, "<h3>Cells with failures (%d)</h3>\n", failing);
  fputs("<table class=\"coverage-failing\">\n<tr><th>cell</th><th>cases</th>"
        "<th>failures</th></tr>\n",
        out);
  for (int i = 0; i < failing && i < max; ++i) {
    fputs("<tr class=\"bad\"><td>", out);
    sl__html_text(out, cv->v[i].cell);
    fprintf(out,
            "</td><td class=\"n\">%" PRId64 "</td><td class=\"n\">%" PRId64
            "</td></tr>\n",
            cv->v[i].cases, cv->v[i].failures);
  }
  fputs("</table>\n", out);
  if (failing > max)
    fprintf(out,
            "<p class=\"note\">%d more failing cells: <code>scatterlab "
            "report --format csv --table coverage</code> has every cell.</p>\n",
            failing - max);
}

static void sl__coverage_free(sl__coverage *cv) {
  for (int i = 0; i < cv->n; ++i) free(cv->v[i].cell);
  free(cv->v);
  sl__strmap_free(&cv->map);
  for (int i = 0; i < cv->nops; ++i) {
    for (int a = 0; a < SL__NAXES; ++a) {
      for (int k = 0; k < cv->ops[i].axis[a].n; ++k)
        free(cv->ops[i].axis[a].v[k].value);
      free(cv->ops[i].axis[a].v);
    }
    free(cv->ops[i].op);
  }
  free(cv->ops);
  sl__strmap_free(&cv->opmap);
}

int sl__html_coverage(sl_store *s, const sl_html_opts *o, FILE *out, char *err,
                      size_t errlen) {
  sl__coverage cv;
  memset(&cv, 0, sizeof cv);
  int rc = sl_store_each_coverage(s, o->run_id, sl__coverage_row, &cv);
  for (int i = 0; rc >= 0 && !cv.oom && i < cv.n; ++i)
    cv.oom = sl__file_cell(&cv, &cv.v[i]) != 0;
  if (rc < 0 || cv.oom) {
    snprintf(err, errlen, "%s",
             cv.oom ? "coverage: out of memory" : sl_store_errmsg(s));
    sl__coverage_free(&cv);
    return -1;
  }
  fputs("<h3 id=\"coverage\">Coverage</h3>\n", out);
  if (cv.n == 0) {
    fputs("<p class=\"note\">No fuzz coverage recorded.</p>\n", out);
  } else {
    int64_t cases = 0, failing = 0;
    for (int i = 0; i < cv.n; ++i) {
      cases += cv.v[i].cases;
      failing += cv.v[i].failures != 0;
    }
    fprintf(out,
            "<p>%d cells hit by %" PRId64
            " fuzz cases, <span class=\"%s\">%" PRId64
            " with failures</span>. Each op's cells by axis: the "
            "values its cases hit, with their cases. Every cell: "
            "<code>scatterlab report --format csv --table coverage</code>."
            "</p>\n",
            cv.n, cases, failing ? "bad" : "good", failing);
    sl__ops_table(out, &cv);
    sl__failing_table(out, &cv, o->max_failures);
  }
  sl__coverage_free(&cv);
  return 0;
}
