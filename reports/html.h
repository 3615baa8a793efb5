/*
 * The pieces every HTML page of reports/ is made of: escaping, the page
 * frame with its inline style sheet, and number formats. Pages carry no
 * script and load nothing: everything they show is in the file. Internal to
 * reports/.
 */
#ifndef SL_HTML_H
#define SL_HTML_H

#include <stddef.h>
#include <stdio.h>

/* Writes s with & < > " ' escaped: safe as element text and as a quoted
 * attribute value. Every string that comes from the store goes through it. */
void sl__html_text(FILE *out, const char *s);

/* <!DOCTYPE html> ... <body><h1>title</h1>: the frame and the style sheet.
 * title is escaped. */
void sl__html_begin(FILE *out, const char *title);
void sl__html_end(FILE *out);

/* A time in seconds with three significant digits and a unit: "1.23 ms",
 * "456 us" ("-" for NaN or negative values). */
void sl__fmt_seconds(char *buf, size_t len, double s);

/* A timing whose IQR exceeds this share of its median is flagged as noisy
 * in the timing tables: its median may be off by more than the speed-ups
 * it is compared with. */
#define SL__HIGH_IQR 0.25

#endif
