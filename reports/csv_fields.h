/*
 * Field writers shared by every CSV export of reports/ (the format is
 * described in sl_report.h). Internal to reports/.
 */
#ifndef SL_CSV_FIELDS_H
#define SL_CSV_FIELDS_H

#include <stddef.h>
#include <stdio.h>

/* A text field: quoted by libcsv's csv_fwrite when it holds a comma, a
 * quote, a line break or blanks at either end; as is otherwise. */
void sl__csv_text(FILE *out, const char *v);
/* A number in the shortest form that reads back as the same double; NaN is
 * the empty field (a NULL). */
void sl__csv_real(FILE *out, double v);
/* Writes text into buf (truncated to len) as sl__csv_real would. */
void sl__csv_real_str(char *buf, size_t len, double v);

#endif
