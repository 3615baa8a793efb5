/* Field writers of the CSV exports (see csv_fields.h). */
#include "csv_fields.h"

#include <csv.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Quoting is needed for the CSV specials, and for blanks at either end,
 * which parsers (libcsv among them) trim from unquoted fields. */
static int sl__needs_quotes(const char *v, size_t n) {
  if (n == 0) return 0;
  if (v[0] == ' ' || v[0] == '\t' || v[n - 1] == ' ' || v[n - 1] == '\t')
    return 1;
  return strpbrk(v, ",\"\r\n") != NULL;
}

void sl__csv_text(FILE *out, const char *v) {
  size_t n = strlen(v);
  if (sl__needs_quotes(v, n))
    csv_fwrite(out, v, n);
  else
    fwrite(v, 1, n, out);
}

/* The shortest of %.15g..%.17g that reads back as the same double, so the
 * file is exact without printing 0.10000000000000001 for 0.1. */
void sl__csv_real_str(char *buf, size_t len, double v) {
  if (len) buf[0] = '\0';
  if (isnan(v)) return;
  /* Zero is common (exact diffs) and needs no search. Literal formats:
   * glibc takes a slower path for a '*' precision, and a million-row
   * export formats four numbers a row. */
  if (v == 0) {
    snprintf(buf, len, signbit(v) ? "-0" : "0");
    return;
  }
  static const char *const fmt[] = {"%.15g", "%.16g", "%.17g"};
  for (size_t i = 0; i < sizeof fmt / sizeof fmt[0]; ++i) {
    snprintf(buf, len, fmt[i], v);
    if (strtod(buf, NULL) == v) break;
  }
}

void sl__csv_real(FILE *out, double v) {
  char buf[40];
  sl__csv_real_str(buf, sizeof buf, v);
  fputs(buf, out);
}
