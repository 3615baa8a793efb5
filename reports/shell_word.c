/* One word of a POSIX shell command (sl_report.h): for the command lines
 * that runs store and the repro lines the reports and the CLI print. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sl_report.h"

int sl_shell_word(const char *s, char *out, size_t len) {
  if (!len) return -1;
  const char *safe = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                     "0123456789_@%+=:,./-";
  size_t n = strlen(s);
  if (n && strspn(s, safe) == n) {
    if (n >= len) goto too_long;
    memcpy(out, s, n + 1);
    return 0;
  }
  size_t k = 0;
  out[k++] = '\'';
  for (; *s; ++s) {
    if (*s == '\'') {
      if (k + 4 >= len) goto too_long;
      memcpy(out + k, "'\\''", 4);
      k += 4;
    } else {
      if (k + 1 >= len) goto too_long;
      out[k++] = *s;
    }
  }
  if (k + 2 > len) goto too_long;
  out[k++] = '\'';
  out[k] = '\0';
  return 0;
too_long:
  out[0] = '\0';
  return -1;
}

/* abs as a path relative to the working folder, when the two share a
 * folder below the root ("build/libx.so", "../other/libx.so"). 0, or -1
 * when they share none (a library under /tmp seen from /home/runner/...:
 * "../../../tmp/x" names the runner's tree as much as the absolute path),
 * the working folder is unknown, or it does not fit. */
static int sl__relative_path(const char *abs, char *out, size_t len) {
  char cwd[PATH_MAX], real[PATH_MAX];
  if (!getcwd(cwd, sizeof cwd) || abs[0] != '/') return -1;
  const char *here = realpath(cwd, real) ? real : cwd;
  /* Past the components both start with: a (in abs) and h (in here). */
  const char *a = abs, *h = here;
  int shared = 0;
  for (;;) {
    while (*a == '/') ++a;
    while (*h == '/') ++h;
    size_t na = strcspn(a, "/"), nh = strcspn(h, "/");
    /* abs's last component is the file: never a shared folder. */
    if (!na || !nh || na != nh || strncmp(a, h, na) != 0 || !a[na]) break;
    a += na, h += nh;
    ++shared;
  }
  if (!shared) return -1;
  size_t k = 0;
  /* One ".." per component of the working folder past the shared ones. */
  for (;;) {
    while (*h == '/') ++h;
    if (!*h) break;
    h += strcspn(h, "/");
    if (k + 3 >= len) return -1;
    memcpy(out + k, "../", 3);
    k += 3;
  }
  size_t n = strlen(a);
  if (!n || k + n >= len) return -1;
  memcpy(out + k, a, n + 1);
  return 0;
}

int sl_repro_provider(const char *name, const char *abs, int from_env,
                      char *out, size_t len) {
  if (!len) return -1;
  out[0] = '\0';
  if (from_env) return 0; /* the variant's prefix is enough there */
  char rel[PATH_MAX], spec[PATH_MAX + 128], word[2 * sizeof spec + 8];
  const int relative = sl__relative_path(abs, rel, sizeof rel) == 0;
  snprintf(spec, sizeof spec, "%s=%s", name, relative ? rel : abs);
  if (sl_shell_word(spec, word, sizeof word)) return -1;
  int n = snprintf(out, len, " --provider %s%s", word,
                   relative ? ""
                            : "  # an absolute path: the library shares no "
                              "folder with the working folder");
  if (n < 0 || (size_t)n >= len) {
    out[0] = '\0';
    return -1;
  }
  return 0;
}
