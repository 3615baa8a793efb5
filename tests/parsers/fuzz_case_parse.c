/*
 * libFuzzer target: the case-line parser. Any text either fails with a
 * message or parses to a case whose printed line parses back to the same
 * line (print is the identity on its own output).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char line[4096];
  if (size >= sizeof line) size = sizeof line - 1;
  memcpy(line, data, size);
  line[size] = '\0';
  sl_case c, again;
  char err[512], printed[SL_CASE_LINE_MAX], reprinted[SL_CASE_LINE_MAX];
  err[0] = '\0';
  if (sl_case_parse(line, &c, err, sizeof err)) {
    if (!err[0]) { /* a rejection must say why */
      fprintf(stderr, "rejected without a message: \"%s\"\n", line);
      abort();
    }
    return 0;
  }
  int n = sl_case_print(&c, printed, sizeof printed);
  if (n < 0 || n >= (int)sizeof printed) { /* the repro would be cut */
    fprintf(stderr, "accepted a case whose line needs %d characters\n", n);
    abort();
  }
  if (sl_case_parse(printed, &again, err, sizeof err)) {
    fprintf(stderr, "printed line does not parse: \"%s\": %s\n", printed, err);
    abort();
  }
  sl_case_print(&again, reprinted, sizeof reprinted);
  if (strcmp(printed, reprinted) != 0) {
    fprintf(stderr, "print/parse is not the identity:\n  %s\n  %s\n", printed,
            reprinted);
    abort();
  }
  return 0;
}
