/*
 * Text files read line by line, each line whole: a batch file, a bench
 * suite, a corpus entry, a saved case.txt. A line may be as long as
 * SL_TEXT_LINE_MAX bytes (newline excluded); a longer one, a NUL byte,
 * more than SL_TEXT_LINES_MAX lines or more than SL_TEXT_BYTES_MAX bytes in
 * all is an error naming the file and the line, never a line cut in two (a
 * comment padded past a fixed buffer once ran its tail as a second case) or a
 * line cut short at the NUL (a case after `dim=0\0` ran with the seed's
 * default).
 */
#ifndef SL_TEXT_LINES_H
#define SL_TEXT_LINES_H

#include <stddef.h>
#include <stdio.h>

#define SL_TEXT_LINE_MAX 65536
/* Whole-file bounds: `run --batch` parses every line before running any
 * (a typo on line 900 stops the batch before it starts), so a file's lines
 * and cases are held in memory at once; about 1.2 KB a case, so the bounds
 * keep a batch near a gigabyte, and a stream (/dev/urandom, `yes`) ends in an
 * error instead of growing for ever. */
#define SL_TEXT_LINES_MAX 1000000L
#define SL_TEXT_BYTES_MAX (64L << 20)

typedef struct sl_text_reader {
  FILE *f;
  const char *path; /* for messages */
  char *buf;        /* getline's buffer, owned */
  size_t cap;
  long line_no; /* of the line last returned, from 1 */
  long bytes;   /* read so far, newlines included */
} sl_text_reader;

/* Opens path for reading. Returns 0, or -1 with "PATH: cannot open (why)"
 * in err. */
int sl_text_open(sl_text_reader *r, const char *path, char *err, size_t errlen);

/* The next line, without its "\n" or "\r\n", in *line (valid until the next
 * call). Returns 1, 0 at the end of the file, -1 with the reason in err
 * ("PATH line 7: expected at most 65536 bytes, got more"; "... expected
 * text, got a NUL byte at column 12"; "PATH line 9: expected at most
 * 67108864 bytes in the file, got more"; a read error). */
int sl_text_next(sl_text_reader *r, char **line, char *err, size_t errlen);

void sl_text_close(sl_text_reader *r);

#endif
