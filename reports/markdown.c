/* Markdown table cells (see sl_report.h). */
#include <stdio.h>

#include "sl_report.h"

void sl_md_text(FILE *out, const char *s, int in_code) {
  for (; s && *s; ++s) {
    switch (*s) {
    case '|': /* ends the cell, inside a code span too (GitHub's tables) */
      fputs("\\|", out);
      break;
    case '\n': /* ends the row */
    case '\r':
      fputc(' ', out);
      break;
    case '`': /* ends a code span; outside one, starts one */
      fputc('\'', out);
      break;
    case '<': /* HTML outside a code span is rendered: a reason or a
               * variant name from a store must read as text ('>' alone
               * opens nothing, and "90 -> 400" stays readable) */
      fputs(in_code ? "<" : "&lt;", out);
      break;
    case '&':
      fputs(in_code ? "&" : "&amp;", out);
      break;
    default:
      fputc(*s, out);
    }
  }
}
