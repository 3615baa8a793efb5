/*
 * The CSV headers keep their promise: columns are only ever appended. Each
 * table's columns must begin with the list checked in as
 * tests/data/csv_headers.txt (a column moved or removed fails; one added at
 * the end passes until it is pinned there too), every table is pinned, and
 * the header line a writer prints is the table's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sl_report.h"
#include "sl_test.h"

#define HEADERS SL_REPORTS_TESTS_DIR "/../../tests/data/csv_headers.txt"

/* The header line sl_csv_header writes for t, without its newline. */
static void header_of(const sl_csv_table *t, char *buf, size_t len) {
  FILE *f = fmemopen(buf, len, "w");
  if (!f) return;
  sl_csv_header(f, t);
  fclose(f);
  buf[strcspn(buf, "\n")] = '\0';
}

int main(void) {
  FILE *f = fopen(HEADERS, "r");
  CHECK_MSG(f != NULL, "cannot open %s", HEADERS);
  if (!f) return sl_test_finish("test_csv_tables");
  char line[4096];
  int pinned[16] = {0};
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = '\0';
    if (line[0] == '#' || line[0] == '\0') continue;
    char *colon = strstr(line, ": ");
    CHECK_MSG(colon != NULL, "expected TABLE: columns, got \"%s\"", line);
    if (!colon) continue;
    *colon = '\0';
    const char *want = colon + 2;
    const sl_csv_table *t = sl_csv_table_find(line);
    CHECK_MSG(t != NULL, "table %s is pinned but no longer exported", line);
    if (!t) continue;
    for (size_t i = 0; sl_csv_table_at(i); ++i)
      if (sl_csv_table_at(i) == t && i < 16) pinned[i] = 1;
    char got[4096];
    header_of(t, got, sizeof got);
    size_t n = strlen(want);
    CHECK_MSG(strncmp(got, want, n) == 0 && (got[n] == '\0' || got[n] == ','),
              "%s: the released columns \"%s\" must begin the header, got "
              "\"%s\" (columns are only ever appended)",
              line, want, got);
  }
  fclose(f);
  for (size_t i = 0; sl_csv_table_at(i) && i < 16; ++i)
    CHECK_MSG(pinned[i], "table %s is not pinned in %s",
              sl_csv_table_at(i)->name, HEADERS);

  /* report --help lists each table's header (sl_csv_tables_help): the same
   * columns in the same order, wrapped. */
  char *help = NULL;
  size_t hlen = 0;
  FILE *h = open_memstream(&help, &hlen);
  sl_csv_tables_help(h);
  fclose(h);
  /* Joined back: a line break and its indent after a comma vanish. */
  char *joined = calloc(hlen + 1, 1);
  size_t k = 0;
  for (size_t i = 0; i < hlen; ++i) {
    if (help[i] == '\n' && i > 0 && help[i - 1] == ',') {
      while (i + 1 < hlen && help[i + 1] == ' ') ++i;
      continue;
    }
    joined[k++] = help[i];
  }
  for (size_t i = 0; sl_csv_table_at(i); ++i) {
    char want[4096];
    header_of(sl_csv_table_at(i), want, sizeof want);
    CHECK_MSG(strstr(joined, want) != NULL, "--help lacks \"%s\":\n%s", want,
              help);
  }
  free(joined);
  free(help);
  return sl_test_finish("test_csv_tables");
}
