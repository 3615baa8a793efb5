/* Text files line by line, whole (see text_lines.h). */
#include "text_lines.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int sl_text_open(sl_text_reader *r, const char *path, char *err,
                 size_t errlen) {
  memset(r, 0, sizeof *r);
  r->path = path;
  r->f = fopen(path, "r");
  if (r->f) return 0;
  snprintf(err, errlen, "%s: cannot open (%s)", path, strerror(errno));
  return -1;
}

/* Appends byte c to r's buffer; -1 when out of memory. */
static int sl__text_put(sl_text_reader *r, size_t len, int c) {
  if (len + 1 >= r->cap) {
    size_t cap = r->cap ? 2 * r->cap : 256;
    char *b = realloc(r->buf, cap);
    if (!b) return -1;
    r->buf = b;
    r->cap = cap;
  }
  r->buf[len] = (char)c;
  return 0;
}

int sl_text_next(sl_text_reader *r, char **line, char *err, size_t errlen) {
  /* Byte by byte, so that a file without newlines (/dev/zero, a binary)
   * is refused after SL_TEXT_LINE_MAX bytes instead of read whole. */
  size_t len = 0;
  int c = getc(r->f);
  if (c == EOF) {
    if (ferror(r->f)) goto read_error;
    return 0;
  }
  if (r->line_no >= SL_TEXT_LINES_MAX) {
    snprintf(err, errlen, "%s: expected at most %ld lines, got more", r->path,
             SL_TEXT_LINES_MAX);
    return -1;
  }
  ++r->line_no;
  for (; c != EOF && c != '\n'; c = getc(r->f)) {
    if (++r->bytes > SL_TEXT_BYTES_MAX) {
      snprintf(err, errlen,
               "%s line %ld: expected at most %ld bytes in the file, got more",
               r->path, r->line_no, SL_TEXT_BYTES_MAX);
      return -1;
    }
    if (c == '\0') { /* refused at once: /dev/zero is all NULs */
      snprintf(err, errlen,
               "%s line %ld: expected text, got a NUL byte at column %zu",
               r->path, r->line_no, len + 1);
      return -1;
    }
    if (len == SL_TEXT_LINE_MAX + 1) {
      snprintf(err, errlen, "%s line %ld: expected at most %d bytes, got more",
               r->path, r->line_no, SL_TEXT_LINE_MAX);
      return -1;
    }
    if (sl__text_put(r, len++, c)) {
      snprintf(err, errlen, "%s line %ld: out of memory", r->path, r->line_no);
      return -1;
    }
  }
  if (c == EOF && ferror(r->f)) goto read_error;
  if (c == '\n') ++r->bytes;
  if (len && r->buf[len - 1] == '\r') --len;
  if (len > SL_TEXT_LINE_MAX) {
    snprintf(err, errlen, "%s line %ld: expected at most %d bytes, got more",
             r->path, r->line_no, SL_TEXT_LINE_MAX);
    return -1;
  }
  if (sl__text_put(r, len, '\0')) {
    snprintf(err, errlen, "%s line %ld: out of memory", r->path, r->line_no);
    return -1;
  }
  *line = r->buf;
  return 1;
read_error:
  snprintf(err, errlen, "%s line %ld: cannot read (%s)", r->path,
           r->line_no + 1, strerror(errno ? errno : EIO));
  return -1;
}

void sl_text_close(sl_text_reader *r) {
  if (r->f) fclose(r->f);
  free(r->buf);
  memset(r, 0, sizeof *r);
}
