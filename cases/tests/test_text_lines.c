/*
 * The whole-file bounds of the line reader (text_lines.h). Apart from
 * test_case's batch-line checks because it writes 64 MiB, too slow under
 * memcheck. Before the bounds, a stream such as `yes` piped into `run
 * --batch` was read until memory ran out.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sl_test.h"
#include "text_lines.h"

/* Reads path to its end; returns the last sl_text_next result. */
static int read_all(const char *path, long *lines, char *err, size_t errlen) {
  sl_text_reader r;
  if (sl_text_open(&r, path, err, errlen)) return -2;
  char *line;
  int got;
  while ((got = sl_text_next(&r, &line, err, errlen)) > 0) {
  }
  *lines = r.line_no;
  sl_text_close(&r);
  return got;
}

int main(void) {
  char dir[] = "/tmp/sl_text_lines_XXXXXX", path[64], err[256];
  CHECK(mkdtemp(dir) != NULL);
  snprintf(path, sizeof path, "%s/b.txt", dir);
  long lines = 0;

  /* Exactly SL_TEXT_LINES_MAX lines are read; one more is refused. */
  FILE *f = fopen(path, "wb");
  CHECK(f != NULL);
  for (long i = 0; f && i < SL_TEXT_LINES_MAX; ++i) fputs("#\n", f);
  if (f) fclose(f);
  CHECK_MSG(read_all(path, &lines, err, sizeof err) == 0 &&
                lines == SL_TEXT_LINES_MAX,
            "%ld lines: %s", lines, err);
  f = fopen(path, "ab");
  if (f) fputs("#\n", f), fclose(f);
  CHECK(read_all(path, &lines, err, sizeof err) == -1);
  CHECK_CONTAINS(err, "b.txt: expected at most 1000000 lines, got more");

  /* Lines under the line limit that add up past the byte limit: lines of
   * 60,001 bytes (newline included), so line 1,119 crosses 64 MiB. */
  static char big[60001];
  memset(big, 'c', sizeof big);
  big[sizeof big - 1] = '\n';
  f = fopen(path, "wb");
  CHECK(f != NULL);
  for (long i = 0; f && i < SL_TEXT_BYTES_MAX / 60001 + 5; ++i)
    fwrite(big, 1, sizeof big, f);
  if (f) fclose(f);
  CHECK(read_all(path, &lines, err, sizeof err) == -1);
  CHECK_CONTAINS(err, "b.txt line 1119: expected at most 67108864 bytes in "
                      "the file, got more");
  /* One line fewer stays under the bound. */
  CHECK(truncate(path, (off_t)(SL_TEXT_BYTES_MAX / 60001) * 60001) == 0);
  CHECK_MSG(read_all(path, &lines, err, sizeof err) == 0 && lines == 1118,
            "%ld lines: %s", lines, err);

  remove(path);
  rmdir(dir);
  return sl_test_finish("test_text_lines");
}
