/* One word of a POSIX shell command (sl_report.h): for the command lines
 * that runs store and the repro lines the reports and the CLI print. */
#include <string.h>

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
