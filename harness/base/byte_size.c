/* Byte sizes (see byte_size.h). */
#include "byte_size.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char sl__units[] = "KMGT"; /* powers 1..4 of 1024 */

int sl_bytes_parse(const char *s, uint64_t *bytes) {
  uint64_t n = 0;
  const char *p = s;
  if (!isdigit((unsigned char)*p)) return -1;
  for (; isdigit((unsigned char)*p); ++p) {
    uint64_t digit = (uint64_t)(*p - '0');
    if (n > (UINT64_MAX - digit) / 10) return -1;
    n = n * 10 + digit;
  }
  if (*p) {
    const char *u = strchr(sl__units, toupper((unsigned char)*p));
    if (!u || !*u) return -1;
    ++p;
    if (strcmp(p, "") && strcmp(p, "iB") && strcmp(p, "B")) return -1;
    for (int k = 0; k <= u - sl__units; ++k) {
      if (n > UINT64_MAX / 1024) return -1;
      n *= 1024;
    }
  }
  *bytes = n;
  return 0;
}

const char *sl_bytes_str(uint64_t bytes, char *buf, size_t len) {
  if (bytes < 1024) {
    snprintf(buf, len, "%llu B", (unsigned long long)bytes);
    return buf;
  }
  double v = (double)bytes / 1024;
  int k = 0;
  while (v >= 1024 && sl__units[k + 1]) v /= 1024, ++k;
  snprintf(buf, len, "%.1f %ciB", v, sl__units[k]);
  return buf;
}

uint64_t sl_case_bytes_cap(uint64_t given) {
  static uint64_t fallback;
  if (given) return given;
  if (!fallback) {
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    fallback = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page / 4
                                     : (uint64_t)4 << 30;
  }
  return fallback;
}

uint64_t sl_tensor_span_bytes(const sl_tensor *t) {
  uint64_t span = 1;
  for (int d = 0; d < t->ndim; ++d) {
    if (t->shape[d] == 0) return 0;
    span += (uint64_t)(t->shape[d] - 1) * (uint64_t)t->strides[d];
  }
  return span * sl_dtype_size(t->dtype);
}
