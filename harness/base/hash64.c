/* The bytes' hash (hash64.h). */
#include "hash64.h"

#include <string.h>

uint64_t sl_hash64(const void *data, size_t n) {
  const unsigned char *p = data;
  uint64_t h[4] = {0x9e3779b97f4a7c15ull, 0xc2b2ae3d27d4eb4full,
                   0x165667b19e3779f9ull, 0x27d4eb2f165667c5ull};
  const uint64_t k = 0xff51afd7ed558ccdull;
  size_t i = 0;
  for (; i + 32 <= n; i += 32)
    for (int l = 0; l < 4; ++l) {
      uint64_t w;
      memcpy(&w, p + i + 8 * l, 8);
      h[l] = (h[l] ^ w) * k;
      h[l] ^= h[l] >> 29;
    }
  uint64_t r = (uint64_t)n;
  for (; i < n; ++i) r = (r ^ p[i]) * k;
  for (int l = 0; l < 4; ++l) r = (r ^ h[l]) * k, r ^= r >> 31;
  return r;
}
