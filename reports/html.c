/* The HTML page frame, escaping and number formats (see html.h). */
#include "html.h"

#include <math.h>
#include <string.h>

void sl__html_text(FILE *out, const char *s) {
  for (; *s; ++s) {
    switch (*s) {
    case '&':
      fputs("&amp;", out);
      break;
    case '<':
      fputs("&lt;", out);
      break;
    case '>':
      fputs("&gt;", out);
      break;
    case '"':
      fputs("&quot;", out);
      break;
    case '\'':
      fputs("&#39;", out);
      break;
    default:
      fputc(*s, out);
    }
  }
}

/* One style sheet for every page: readable tables, failures in red,
 * verdict colours that also differ in weight (not only in hue). */
static const char sl__css[] =
    "body{font-family:system-ui,sans-serif;margin:1.5em;color:#222;"
    "max-width:110em}\n"
    "h1{font-size:1.5em}h2{font-size:1.25em;margin-top:1.8em;"
    "border-bottom:1px solid #ccc}h3{font-size:1.05em}\n"
    "table{border-collapse:collapse;margin:.5em 0;font-size:.9em}\n"
    "th,td{border:1px solid #ccc;padding:.2em .5em;text-align:left;"
    "vertical-align:top}\n"
    "th{background:#f0f0f0}td.n{text-align:right;"
    "font-variant-numeric:tabular-nums}\n"
    "tr.bad td{background:#fde8e8}tr.defect td{background:#f0f0f0;"
    "font-weight:bold}\n"
    "td.bad,p.bad,span.bad{color:#b00000;font-weight:bold}\n"
    "td.good,p.good,span.good{color:#006000}\n"
    "td.warn{color:#8a5a00;font-weight:bold}\n"
    "tr.win td{font-weight:bold;background:#eaf6ea}span.win{color:#006000}\n"
    "td.noisy{background:#fff3cd}\n"
    "details{margin:.5em 0}summary{cursor:pointer;font-weight:bold}\n"
    "code{font-family:ui-monospace,monospace;font-size:.95em;"
    "white-space:pre-wrap;word-break:break-all}\n"
    ".charts{display:flex;flex-wrap:wrap;gap:1em}\n"
    "figure{margin:.5em 0}figcaption{font-size:.85em;color:#444}\n"
    "p.note{color:#555;font-size:.9em}\n"
    "pre{font-size:.85em;background:#f7f7f7;padding:.5em;overflow-x:auto}\n";

void sl__html_begin(FILE *out, const char *title) {
  fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta "
        "charset=\"utf-8\">\n<title>",
        out);
  sl__html_text(out, title);
  fprintf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>", sl__css);
  sl__html_text(out, title);
  fputs("</h1>\n", out);
}

void sl__html_end(FILE *out) { fputs("</body>\n</html>\n", out); }

void sl__fmt_seconds(char *buf, size_t len, double s) {
  if (!(s >= 0)) {
    snprintf(buf, len, "-");
    return;
  }
  static const struct {
    double scale;
    const char *unit;
  } units[] = {{1, "s"}, {1e-3, "ms"}, {1e-6, "us"}, {1e-9, "ns"}};
  const size_t last = sizeof units / sizeof units[0] - 1;
  /* The largest unit in which the value, rounded to three digits, is at
   * least 1: 9.9999e-6 s is "10.0 us", not "10.00 us" or "0.01 ms". */
  size_t u = 0;
  while (u < last && s < units[u].scale * 0.9995) ++u;
  double v = s / units[u].scale;
  snprintf(buf, len,
           v >= 99.95   ? "%.0f %s"
           : v >= 9.995 ? "%.1f %s"
                        : "%.2f %s",
           v, units[u].unit);
}
