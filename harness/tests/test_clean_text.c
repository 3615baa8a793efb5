/*
 * clean_text.c: UTF-8 decoding by the rules of RFC 3629 (the table of
 * well-formed sequences in Unicode 15 §3.9, D92: shortest forms only, no
 * surrogates, nothing past U+10FFFF), the cut that a byte count leaves,
 * and the text rule: invalid bytes as U+FFFD, control characters escaped,
 * GitHub's "::" / "##[" at a line start and GitLab's section markers
 * broken, whole units only when the buffer is short.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clean_text.h"
#include "sl_test.h"

static void test_utf8_char(void) {
  struct {
    const char *s;
    int len;
    unsigned cp;
  } rows[] = {
      {"A", 1, 'A'},
      {"\xC3\xA9", 2, 0xE9},             /* é */
      {"\xE2\x82\xAC", 3, 0x20AC},       /* € */
      {"\xF0\x9F\x98\x80", 4, 0x1F600},  /* an emoji */
      {"\xF4\x8F\xBF\xBF", 4, 0x10FFFF}, /* the last code point */
      {"\x80", 0, 0xFFFD},               /* a stray continuation byte */
      {"\xC0\xAF", 0, 0xFFFD},           /* overlong '/' */
      {"\xE0\x80\xAF", 0, 0xFFFD},       /* overlong, three bytes */
      {"\xED\xA0\x80", 0, 0xFFFD},       /* a surrogate, U+D800 */
      {"\xF4\x90\x80\x80", 0, 0xFFFD},   /* U+110000 */
      {"\xE2\x82", 0, 0xFFFD},           /* cut by the end */
      {"\xE2\x82"
       "A",
       0, 0xFFFD}, /* cut by an ASCII byte */
      {"\xFF", 0, 0xFFFD},
  };
  for (size_t i = 0; i < sizeof rows / sizeof *rows; ++i) {
    unsigned cp = 0;
    int len = sl_utf8_char(rows[i].s, &cp);
    CHECK_MSG(len == rows[i].len && cp == rows[i].cp,
              "row %zu: got length %d U+%04X, want %d U+%04X", i, len, cp,
              rows[i].len, rows[i].cp);
  }
}

static void test_utf8_cut(void) {
  /* "é€" cut after each of its five bytes: the cut character goes. */
  const char whole[] = "\xC3\xA9\xE2\x82\xAC";
  const size_t keep[] = {0, 0, 2, 2, 2, 5};
  for (size_t n = 0; n <= 5; ++n) {
    char s[8];
    memcpy(s, whole, n);
    s[n] = '\0';
    sl_utf8_cut(s);
    CHECK_MSG(strlen(s) == keep[n], "cut at %zu: kept %zu bytes, want %zu", n,
              strlen(s), keep[n]);
  }
  char ascii[] = "abc";
  sl_utf8_cut(ascii);
  CHECK(strcmp(ascii, "abc") == 0);
}

static void check_clean(const char *in, const char *want) {
  char got[256];
  sl_text_clean(got, sizeof got, in);
  CHECK_MSG(strcmp(got, want) == 0, "\"%s\": got \"%s\", want \"%s\"", in, got,
            want);
  /* sl_text_put writes the same bytes. */
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  sl_text_put(f, in);
  fclose(f);
  CHECK_MSG(strcmp(buf, want) == 0, "put \"%s\": got \"%s\", want \"%s\"", in,
            buf, want);
  free(buf);
}

static void test_clean_rules(void) {
  check_clean("plain text: a::b", "plain text: a::b");
  check_clean("x\n::stop-commands::t\n::error::fake",
              "x\n\\::stop-commands::t\n\\::error::fake");
  check_clean("::set-output name=a::b", "\\::set-output name=a::b");
  check_clean("  \t::warning::w", "  \t\\::warning::w");
  check_clean("a\n##[error]e", "a\n\\##[error]e");
  check_clean("x section_start:1:s\r\x1b[0K y section_end:1:s",
              "x section_start\\:1:s\\r\\x1b[0K y section_end\\:1:s");
  check_clean("cr\r::x", "cr\\r::x"); /* CR escaped: no new line */
  check_clean("bad \xFF\xFE bytes",
              "bad " SL_UTF8_REPLACEMENT SL_UTF8_REPLACEMENT " bytes");
  check_clean("nel \xC2\x85::x", "nel \\u0085::x");
  check_clean("caf\xC3\xA9 \xE2\x82", "caf\xC3\xA9 "); /* a cut dropped */
  check_clean("", "");
}

static void test_clean_short_buffer(void) {
  char got[6];
  /* "ab" then "é" (2 bytes) fits in 6 with its NUL, "€" (3) does not. */
  sl_text_clean(got, sizeof got, "ab\xC3\xA9\xE2\x82\xAC");
  CHECK_MSG(strcmp(got, "ab\xC3\xA9") == 0, "got \"%s\"", got);
  /* An escape is never split either. */
  sl_text_clean(got, sizeof got, "abc\x1b");
  CHECK_MSG(strcmp(got, "abc") == 0, "got \"%s\"", got);
  /* In place. */
  char s[32] = "\n::x \xFF";
  sl_text_clean(s, sizeof s, s);
  CHECK_MSG(strcmp(s, "\n\\::x " SL_UTF8_REPLACEMENT) == 0, "got \"%s\"", s);
}

static void test_put_wide(void) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  CHECK(sl_utf8_put_wide(f, "a", "?") == 0);
  CHECK(sl_utf8_put_wide(f, "\xC3\xA9x", "?") == 2);
  CHECK(sl_utf8_put_wide(f, "\xFFx", "?") == 1);
  fclose(f);
  CHECK_MSG(strcmp(buf, "\xC3\xA9?") == 0, "got \"%s\"", buf);
  free(buf);
}

int main(void) {
  test_utf8_char();
  test_utf8_cut();
  test_clean_rules();
  test_clean_short_buffer();
  test_put_wide();
  return sl_test_finish("test_clean_text");
}
