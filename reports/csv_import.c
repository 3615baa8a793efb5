/*
 * Reading case lines from a CSV file for `scatterlab import`: libcsv's
 * parser in strict mode, so a stray quote is an error with its position
 * rather than a silently merged field.
 */
#include <csv.h>
#include <stdlib.h>
#include <string.h>

#include "sl_report.h"
#include "strmap.h"
#include "text_lines.h"

typedef struct sl__reader {
  int (*fn)(void *user, const char *line, long record);
  void *user;
  long record;     /* 1-based number of the record being read */
  int field;       /* 0-based column of the field being read */
  int column;      /* the case_line column; -1 until the first record is read */
  int header;      /* the first record is a header */
  char *first;     /* the first record's first field, until we know */
  int stop;        /* fn's stop value, or -1 when out of memory */
  sl__strmap seen; /* the values handed out, each once */
  const char *bad; /* why a field was refused, or NULL */
  long bad_record;
  int bad_field;  /* 1-based */
  long delivered; /* case lines handed to fn */
} sl__reader;

/* The longest field taken: a case line's limit (text_lines.h). */
#define SL__CSV_FIELD_MAX 65536

/* Hands one value to fn, skipping blanks, # comments and values seen
 * before (an export repeats a case line once per variant). */
static void sl__deliver(sl__reader *r, const char *v, long record) {
  while (*v == ' ' || *v == '\t') ++v;
  if (!*v || *v == '#' || r->stop || sl__strmap_get(&r->seen, v) >= 0) return;
  if (sl__strmap_put(&r->seen, v, 0)) {
    r->stop = -1;
    return;
  }
  /* A batch file's bound (text_lines.h): `run` holds every case of an
   * import before it runs one. */
  if (++r->delivered > SL_TEXT_LINES_MAX) {
    r->bad = "more than 1,000,000 case lines (a batch's limit; split the "
             "file)";
    r->bad_record = record;
    r->bad_field = r->column + 1;
    r->stop = -2;
    return;
  }
  r->stop = r->fn(r->user, v, record);
}

static void sl__on_field(void *s, size_t len, void *data) {
  sl__reader *r = data;
  int col = r->field++;
  if (r->stop) return;
  /* A NUL would end the value early (dim=0\0 seed=5 ran with seed 0), and
   * a field past the limit is not a case line: refused, named. */
  if (s && (memchr(s, '\0', len) || len > SL__CSV_FIELD_MAX)) {
    r->bad = len > SL__CSV_FIELD_MAX
                 ? "a field of more than 65,536 bytes (the limit of a case "
                   "line)"
                 : "a NUL byte (expected text)";
    r->bad_record = r->record;
    r->bad_field = col + 1;
    r->stop = -2;
    return;
  }
  const char *v = s ? s : "";
  if (r->record == 1) {
    /* Until the first record ends we cannot know whether it is a header:
     * keep its first field, and look for a column named case_line. */
    if (strcmp(v, "case_line") == 0 && r->column < 0) {
      r->column = col;
      r->header = 1;
    }
    if (col == 0 && !(r->first = strdup(v))) r->stop = -1;
    return;
  }
  if (col == (r->column < 0 ? 0 : r->column)) sl__deliver(r, v, r->record);
  (void)len;
}

static void sl__on_record(int c, void *data) {
  (void)c;
  sl__reader *r = data;
  if (r->record == 1 && !r->header) {
    r->column = 0;
    if (r->first) sl__deliver(r, r->first, 1);
  }
  free(r->first);
  r->first = NULL;
  ++r->record;
  r->field = 0;
}

int sl_report_csv_read_cases(FILE *in, const char *name,
                             int (*fn)(void *user, const char *line,
                                       long record),
                             void *user, char *err, size_t errlen) {
  if (!err) errlen = 0;
  if (errlen) err[0] = '\0';
  if (!in || !fn) {
    snprintf(err, errlen, "sl_report_csv_read_cases: %s is NULL",
             !in ? "in" : "fn");
    return -1;
  }
  struct csv_parser p;
  if (csv_init(&p, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL) != 0) {
    snprintf(err, errlen, "%s: cannot start the CSV parser", name);
    return -1;
  }
  sl__reader r = {fn, user, 1, 0, -1, 0, NULL, 0, {0}, NULL, 0, 0, 0};
  char buf[65536];
  size_t n;
  int rc = 0;
  /* A UTF-8 byte order mark (spreadsheets write one) is not part of the
   * first field: case_line after it is still the header. */
  int first = 1;
  long total = 0;
  while (!rc && !r.stop && (n = fread(buf, 1, sizeof buf, in)) > 0) {
    if ((total += (long)n) > SL_TEXT_BYTES_MAX) { /* a batch file's bound */
      snprintf(err, errlen,
               "%s: record %ld: expected at most %ld bytes in the file, got "
               "more",
               name, r.record, SL_TEXT_BYTES_MAX);
      rc = -2;
      break;
    }
    const size_t skip =
        first && n >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
    first = 0;
    if (csv_parse(&p, buf + skip, n - skip, sl__on_field, sl__on_record, &r) !=
        n - skip)
      rc = -1;
  }
  if (!rc && !r.stop && ferror(in)) {
    snprintf(err, errlen, "%s: read error", name);
    rc = -2;
  }
  if (!rc && !r.stop && csv_fini(&p, sl__on_field, sl__on_record, &r) != 0)
    rc = -1;
  if (rc == -1)
    snprintf(err, errlen, "%s: record %ld: %s", name, r.record,
             csv_strerror(csv_error(&p)));
  csv_free(&p);
  free(r.first);
  sl__strmap_free(&r.seen);
  if (r.stop == -1) {
    snprintf(err, errlen, "%s: out of memory", name);
    return -1;
  }
  if (r.bad) {
    snprintf(err, errlen, "%s: record %ld, field %d: %s", name, r.bad_record,
             r.bad_field, r.bad);
    return -1;
  }
  if (rc) return -1;
  return r.stop;
}
