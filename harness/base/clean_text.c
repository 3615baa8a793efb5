/* Text from kernels and providers, safe for every writer (clean_text.h). */
#include "clean_text.h"

#include <stdlib.h>
#include <string.h>

static int sl__cont(unsigned char b) { return (b & 0xC0) == 0x80; }

/* The length a lead byte announces (0: not a lead byte), and the range its
 * second byte must lie in (shortest forms, no surrogates, <= U+10FFFF). */
static int sl__lead(unsigned char b, unsigned char *lo, unsigned char *hi) {
  *lo = 0x80, *hi = 0xBF;
  if (b < 0x80) return 1;
  if (b >= 0xC2 && b <= 0xDF) return 2;
  if (b >= 0xE0 && b <= 0xEF) {
    if (b == 0xE0) *lo = 0xA0;
    if (b == 0xED) *hi = 0x9F;
    return 3;
  }
  if (b >= 0xF0 && b <= 0xF4) {
    if (b == 0xF0) *lo = 0x90;
    if (b == 0xF4) *hi = 0x8F;
    return 4;
  }
  return 0;
}

int sl_utf8_char(const char *s, unsigned *cp) {
  const unsigned char *p = (const unsigned char *)s;
  unsigned char lo, hi;
  const int n = sl__lead(p[0], &lo, &hi);
  *cp = 0xFFFD;
  if (n == 1) {
    *cp = p[0];
    return p[0] ? 1 : 0;
  }
  if (n == 0 || p[1] < lo || p[1] > hi) return 0;
  for (int k = 2; k < n; ++k)
    if (!sl__cont(p[k])) return 0;
  unsigned v = p[0] & (0x7Fu >> n);
  for (int k = 1; k < n; ++k) v = v << 6 | (p[k] & 0x3Fu);
  *cp = v;
  return n;
}

int sl_utf8_put_wide(FILE *out, const char *s, const char *replacement) {
  if ((unsigned char)*s < 0x80) return 0;
  unsigned cp;
  const int n = sl_utf8_char(s, &cp);
  if (n)
    fwrite(s, 1, (size_t)n, out);
  else
    fputs(replacement, out);
  return n ? n : 1;
}

/* The length of s without a character cut at its end. */
static size_t sl__uncut_len(const char *s) {
  size_t len = strlen(s), i = len;
  /* Back over at most three continuation bytes to the last lead byte. */
  while (i > 0 && len - i < 3 && sl__cont((unsigned char)s[i - 1])) --i;
  if (i == 0) return len;
  unsigned char lo, hi;
  const int n = sl__lead((unsigned char)s[i - 1], &lo, &hi);
  return n > 1 && len - (i - 1) < (size_t)n ? i - 1 : len;
}

void sl_utf8_cut(char *s) { s[sl__uncut_len(s)] = '\0'; }

void sl_text_one_line(char *s) {
  for (; *s; ++s)
    if (*s == '\t' || *s == '\n' || *s == '\r') *s = ' ';
}

/* One piece of the output: a character, an escape, or a marker broken. */
typedef struct sl__unit {
  char b[24];
  size_t n;
} sl__unit;

static void sl__unit_set(sl__unit *u, const char *bytes, size_t n) {
  memcpy(u->b, bytes, n);
  u->n = n;
}

/* GitHub reads a workflow command from a line that starts, after blanks,
 * with "::" (and the older "##["); GitLab a section from "section_start:"
 * or "section_end:" anywhere in a line. */
static const char *const sl__line_markers[] = {"::", "##["};
static const char *const sl__any_markers[] = {"section_start", "section_end"};

static int sl__starts(const char *p, const char *word) {
  return strncmp(p, word, strlen(word)) == 0;
}

/* A marker at p broken by a backslash; 0 when there is none. */
static int sl__marker(const char *p, int line_start, sl__unit *u,
                      size_t *used) {
  for (size_t k = 0; line_start && k < 2; ++k)
    if (sl__starts(p, sl__line_markers[k])) {
      u->b[0] = '\\', u->b[1] = p[0];
      u->n = 2, *used = 1;
      return 1;
    }
  for (size_t k = 0; k < 2; ++k) {
    const size_t w = strlen(sl__any_markers[k]);
    if (sl__starts(p, sl__any_markers[k]) && p[w] == ':') {
      memcpy(u->b, p, w);
      u->b[w] = '\\', u->b[w + 1] = ':';
      u->n = w + 2, *used = w + 1;
      return 1;
    }
  }
  return 0;
}

/* The unit at *p; advances *p and keeps *line_start (at the start of a
 * line, blanks so far). */
static void sl__next_unit(const char **p, int *line_start, sl__unit *u) {
  const unsigned char c = (unsigned char)**p;
  size_t used = 1;
  unsigned cp;
  if (sl__marker(*p, *line_start, u, &used)) {
    *line_start = 0;
  } else if (c == '\n' || c == '\t' || c == ' ') {
    sl__unit_set(u, *p, 1);
    *line_start = c == '\n' || *line_start;
  } else if (c < 0x20 || c == 0x7F) {
    u->n = c == '\r' ? (size_t)snprintf(u->b, sizeof u->b, "\\r")
                     : (size_t)snprintf(u->b, sizeof u->b, "\\x%02x", c);
    *line_start = 0;
  } else {
    const int n = sl_utf8_char(*p, &cp);
    if (n == 0)
      sl__unit_set(u, SL_UTF8_REPLACEMENT, 3);
    else if (cp >= 0x80 && cp <= 0x9F) /* C1 controls: NEL breaks lines */
      u->n = (size_t)snprintf(u->b, sizeof u->b, "\\u%04x", cp);
    else
      sl__unit_set(u, *p, (size_t)n);
    used = n ? (size_t)n : 1;
    *line_start = 0;
  }
  *p += used;
}

void sl_text_put(FILE *out, const char *s) {
  if (!s) return;
  const char *end = s + sl__uncut_len(s);
  int line_start = 1;
  sl__unit u;
  while (s < end) {
    sl__next_unit(&s, &line_start, &u);
    fwrite(u.b, 1, u.n, out);
  }
}

char *sl_text_clean(char *dst, size_t cap, const char *src) {
  if (!cap) return dst;
  /* A copy when dst is src: the output may grow. */
  char *copy = src == dst ? strdup(src) : NULL;
  if (src == dst && !copy) { /* no memory: nothing rather than a mix */
    dst[0] = '\0';
    return dst;
  }
  const char *s = copy ? copy : src ? src : "";
  const char *end = s + sl__uncut_len(s);
  size_t n = 0;
  int line_start = 1;
  sl__unit u;
  while (s < end) {
    sl__next_unit(&s, &line_start, &u);
    if (n + u.n >= cap) break; /* whole units only */
    memcpy(dst + n, u.b, u.n);
    n += u.n;
  }
  dst[n] = '\0';
  free(copy);
  return dst;
}
