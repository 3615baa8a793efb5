/* A command's --help from the option table (options.h): the rows it takes,
 * each wrapped under its name. */
#include "options.h"

#include <string.h>

enum { SL__HELP_INDENT = 21, SL__HELP_WIDTH = 78 };

/* Prints the words of text from column col, wrapped at SL__HELP_WIDTH with
 * continuation lines at SL__HELP_INDENT; returns the column it ends at. */
static int sl__wrap(FILE *out, const char *text, int col) {
  for (const char *w = text; *w;) {
    while (*w == ' ') ++w;
    size_t n = strcspn(w, " ");
    if (!n) break;
    if (col > SL__HELP_INDENT && col + 1 + (int)n > SL__HELP_WIDTH)
      col = fprintf(out, "\n%*s", SL__HELP_INDENT, "") - 1;
    else if (col > SL__HELP_INDENT)
      col += fprintf(out, " ");
    col += fprintf(out, "%.*s", (int)n, w);
    w += n;
  }
  return col;
}

static void sl__row(FILE *out, const sl_option *r) {
  char head[128];
  int n = snprintf(head, sizeof head, "  %s%s%s%s%s", r->alias ? r->alias : "",
                   r->alias ? ", " : "", r->name, r->arg ? " " : "",
                   r->arg ? r->arg : "");
  fputs(head, out);
  int col = n;
  if (n >= SL__HELP_INDENT - 1)
    col = fprintf(out, "\n%*s", SL__HELP_INDENT, "") - 1;
  else
    col += fprintf(out, "%*s", SL__HELP_INDENT - n, "");
  col = sl__wrap(out, r->help, col);
  if (r->default_value) {
    char def[160];
    snprintf(def, sizeof def, "(default %s)", r->default_value);
    sl__wrap(out, def, col);
  }
  fputc('\n', out);
}

void sl_options_help(const sl_command_help *h, FILE *out) {
  if (h->before) fputs(h->before, out);
  fputs("\noptions:\n", out);
  for (int id = 0; id < SL_OPT_COUNT; ++id) {
    const sl_option *r = sl_option_row((sl_option_id)id);
    if ((r->commands & (1u << h->cmd)) && !(r->flags & SL_OPTF_CONFIG))
      sl__row(out, r);
  }
  if (h->more) h->more(out);
  if (h->after) {
    fputc('\n', out);
    fputs(h->after, out);
  }
}
