/*
 * libFuzzer target: the CSV importer (`scatterlab import`). Any bytes either
 * give case lines or an error with a message naming the file; every line
 * handed over is a NUL-terminated string that the case parser then judges.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case.h"
#include "sl_report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int sl__each(void *user, const char *line, long record) {
  (void)record;
  sl_case c;
  char err[512];
  sl_case_parse(line, &c, err, sizeof err);
  ++*(long *)user;
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  FILE *in = fmemopen((void *)data, size, "rb");
  if (!in) return 0; /* fmemopen refuses a zero size on some libcs */
  char err[512];
  err[0] = '\0';
  long lines = 0;
  if (sl_report_csv_read_cases(in, "fuzz.csv", sl__each, &lines, err,
                               sizeof err) < 0 &&
      !strstr(err, "fuzz.csv")) {
    fprintf(stderr, "an import error that does not name the file: %s\n", err);
    abort();
  }
  fclose(in);
  return 0;
}
