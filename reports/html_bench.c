/*
 * The bench summary, the crossover grid and the ranking (bench --generate's;
 * bench_ranking.c) in the HTML report: the very tables `scatterlab bench`
 * prints at its end (bench_summary.c), computed
 * from the newest timing of each benchmark and shown as preformatted text,
 * so that the page and the terminal never disagree.
 */
#include <stdlib.h>
#include <string.h>

#include "bench_summary.h"
#include "html.h"
#include "html_sections.h"

static int sl__same_case(const sl__bench *a, const sl__bench *b) {
  return strcmp(a->case_line, b->case_line) == 0 && a->threads == b->threads &&
         a->cold == b->cold;
}

/* The printed tables as one escaped <pre>; nothing when print wrote none. */
static int sl__pre(FILE *out, const char *id, const char *title,
                   const sl_bench_table *t,
                   void (*print)(const sl_bench_table *, FILE *)) {
  char *text = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&text, &len);
  if (!m) return -1;
  print(t, m);
  if (fclose(m) != 0) {
    free(text);
    return -1;
  }
  if (len) {
    fprintf(out, "<h3 id=\"%s\">%s</h3>\n<pre class=\"%s\">", id, title, id);
    /* The tables open with a blank line and a "== title ==" header; the
     * <h3> says it. */
    const char *body = text;
    while (*body == '\n') ++body;
    if (strncmp(body, "==", 2) == 0 && strchr(body, '\n'))
      body = strchr(body, '\n') + 1;
    sl__html_text(out, body);
    fputs("</pre>\n", out);
  }
  free(text);
  return 0;
}

int sl__html_bench_summary(const sl__bench_set *set, const int *idx, int n,
                           FILE *out) {
  sl_bench_table t = {0};
  for (int i = 0; i < n;) {
    const sl__bench *first = &set->v[idx[i]];
    int j = i;
    while (j < n && sl__same_case(first, &set->v[idx[j]])) ++j;
    sl_case c;
    char err[8];
    /* Warm timings only (a cold one is another question); a case timed
     * at several thread counts is a row each. A line that no longer
     * parses is left out. */
    if (first->cold == 0 &&
        sl_case_parse(first->case_line, &c, err, sizeof err) == 0) {
      sl_bench_row *r = sl_bench_table_add(&t, &c, first->case_line);
      if (!r) {
        sl_bench_table_free(&t);
        return -1;
      }
      for (int k = i; k < j; ++k) {
        const sl__bench *b = &set->v[idx[k]];
        sl_bench_row_set(r, b->variant, b->median_s, b->gbs, b->pct_peak);
      }
    }
    i = j;
  }
  int rc = 0;
  if (t.n) {
    fputs("<p class=\"note\">As <code>scatterlab bench</code> prints them at "
          "its end, from the newest warm timing of each case (#: the case's "
          "number in this list).</p>\n",
          out);
    rc = sl__pre(out, "bench-summary", "Bench summary", &t,
                 sl_bench_summary_print);
    if (!rc)
      rc = sl__pre(out, "crossover", "Crossover: atomic vs lock vs sorted", &t,
                   sl_bench_crossover_print);
    if (!rc)
      rc = sl__pre(out, "ranking",
                   "Ranking: each case by its best CPU variant's speed-up over "
                   "torch.cpu, worst first",
                   &t, sl_bench_ranking_print);
  }
  sl_bench_table_free(&t);
  return rc;
}
