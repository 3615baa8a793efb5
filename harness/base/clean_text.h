/*
 * Text that a kernel or a provider wrote, made safe for every writer
 * (issue 48, points 7 and 8). A provider's kernel message and version
 * string are arbitrary bytes: cut by a fixed-size buffer in the middle of a
 * UTF-8 character, holding invalid bytes, or lines that a CI runner reads
 * as commands (GitHub's "::stop-commands::" at a line start, GitLab's
 * "section_start:" markers). The writers (text, JSON, JUnit XML, GitHub
 * annotations) all walk such text with sl_utf8_char, and the text writers
 * print it with sl_text_put or sl_text_clean, so that one rule holds
 * everywhere.
 */
#ifndef SL_CLEAN_TEXT_H
#define SL_CLEAN_TEXT_H

#include <stddef.h>
#include <stdio.h>

/* U+FFFD, what an invalid byte becomes, in UTF-8. */
#define SL_UTF8_REPLACEMENT "\xEF\xBF\xBD"

/* The character at s (NUL-terminated): its length in bytes (1 to 4) with
 * its code point in *cp, or 0 when s does not start with a whole,
 * shortest-form UTF-8 character (a stray continuation byte, an overlong
 * form, a surrogate, a code point past U+10FFFF, or a character cut by the
 * end of the string); *cp is then U+FFFD and the caller skips one byte. */
int sl_utf8_char(const char *s, unsigned *cp);

/* For the escaping writers (JSON, XML, annotations), which handle ASCII
 * their own way: when s starts with anything else, writes it (a whole
 * character as it is, an invalid byte as `replacement`) and returns the
 * bytes it took; 0 for an ASCII character or the end. */
int sl_utf8_put_wide(FILE *out, const char *s, const char *replacement);

/* Shortens s so that it does not end inside a character: a trailing
 * beginning of a character, what a cut by byte count leaves, is dropped.
 * For a buffer that snprintf may have filled to the brim. */
void sl_utf8_cut(char *s);

/* Tabs, newlines and CRs of s become spaces: a field of a tab-separated
 * line (the lines fuzz's jobs send, a failure signature). */
void sl_text_one_line(char *s);

/* Writes s for a line-oriented reader (a terminal, a CI log), each line of
 * it read as data: invalid bytes become U+FFFD; control characters other
 * than newline and tab (CR, ESC, DEL, C1) become \r, \x1b, \u0085 and the
 * like; a line that starts (after blanks) with GitHub's "::" or "##[" gets
 * a backslash in front; GitLab's "section_start:" and "section_end:" get
 * one before their colon. NULL writes nothing. */
void sl_text_put(FILE *out, const char *s);

/* The same into dst (cap bytes, NUL-terminated), cut at a character or
 * escape boundary when it does not fit; a character cut at the end of src
 * (by an earlier byte count) is dropped. Returns dst; dst and src may be
 * the same buffer. */
char *sl_text_clean(char *dst, size_t cap, const char *src);

#endif /* SL_CLEAN_TEXT_H */
