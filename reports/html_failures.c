/*
 * The failures of the HTML report: every failing verdict with its message
 * and the command that repeats it on the smallest case the shrinker reached.
 * A campaign with a systematic bug fails thousands of times; the table
 * stops at max_failures rows and says how many it left out (the CSV export
 * has them all).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "html.h"
#include "html_sections.h"
#include "sl_report.h"

typedef struct sl__fail_html {
  FILE *out;
  int max;
  int64_t n;
  sl_store *s;
} sl__fail_html;

static int sl__failure_row(void *user, const sl_failure_view *f) {
  sl__fail_html *h = user;
  FILE *out = h->out;
  /* The table starts with the first failure: no failures, no table. */
  if (h->n == 0)
    fputs("<table class=\"failures\">\n<tr><th>run</th><th>verdict</th>"
          "<th>variant</th><th>op</th><th>message</th>"
          "<th>minimal repro</th></tr>\n",
          out);
  if (h->n++ >= h->max) return 0; /* count the rest, show none */
  fprintf(out, "<tr><td class=\"n\">%" PRId64 "</td><td class=\"bad\">",
          f->run_id);
  sl__html_text(out, f->verdict);
  fputs("</td><td>", out);
  sl__html_text(out, f->variant);
  fputs("</td><td>", out);
  sl__html_text(out, f->op);
  fputs("</td><td><code>", out);
  sl__html_text(out, f->message);
  fputs("</code></td><td><code>", out);
  sl_report_repro(out, h->s, f->run_id, f->minimal_line, f->variant,
                  sl__html_text);
  fputs("</code>", out);
  if (strcmp(f->minimal_line, f->case_line) != 0) {
    fputs("<br><span class=\"note\">shrunk from <code>", out);
    sl__html_text(out, f->case_line);
    fputs("</code></span>", out);
  }
  fputs("</td></tr>\n", out);
  return ferror(out) ? 1 : 0;
}

int sl__html_failures(sl_store *s, const sl_html_opts *o, FILE *out, char *err,
                      size_t errlen) {
  fputs("<h2 id=\"failures\">Failures</h2>\n", out);
  sl__fail_html h = {out, o->max_failures, 0, s};
  if (sl_store_each_failure(s, o->run_id, sl__failure_row, &h) < 0) {
    snprintf(err, errlen, "%s", sl_store_errmsg(s));
    return -1;
  }
  if (h.n > 0) fputs("</table>\n", out);
  if (h.n == 0)
    fputs("<p class=\"note\">No failures.</p>\n", out);
  else if (h.n > h.max)
    fprintf(out,
            "<p class=\"note\">%" PRId64 " failures; the first %d are shown. "
            "<code>scatterlab report --format csv</code> lists every "
            "one.</p>\n",
            h.n, h.max);
  return 0;
}
