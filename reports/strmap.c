/* The string -> int map of reports/ (see strmap.h). */
#include "strmap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t sl__hash(const char *s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; ++s) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

/* The slot of key, or of the empty slot where it would go. */
static size_t sl__slot(const sl__strmap *m, const char *key) {
  size_t i = (size_t)sl__hash(key) & (m->cap - 1);
  while (m->keys[i] && strcmp(m->keys[i], key) != 0) i = (i + 1) & (m->cap - 1);
  return i;
}

int sl__strmap_get(const sl__strmap *m, const char *key) {
  if (!m->cap) return -1;
  size_t i = sl__slot(m, key);
  return m->keys[i] ? m->vals[i] : -1;
}

/* Doubles the table (the load factor stays below one half). */
static int sl__grow(sl__strmap *m) {
  size_t cap = m->cap ? 2 * m->cap : 64;
  sl__strmap g = {calloc(cap, sizeof(char *)), calloc(cap, sizeof(int)), cap,
                  m->n};
  if (!g.keys || !g.vals) {
    free(g.keys);
    free(g.vals);
    return -1;
  }
  for (size_t i = 0; i < m->cap; ++i) {
    if (!m->keys[i]) continue;
    size_t j = sl__slot(&g, m->keys[i]);
    g.keys[j] = m->keys[i];
    g.vals[j] = m->vals[i];
  }
  free(m->keys);
  free(m->vals);
  *m = g;
  return 0;
}

int sl__strmap_put(sl__strmap *m, const char *key, int val) {
  if (2 * (m->n + 1) > m->cap && sl__grow(m)) return -1;
  size_t i = sl__slot(m, key);
  if (!m->keys[i]) {
    if (!(m->keys[i] = strdup(key))) return -1;
    ++m->n;
  }
  m->vals[i] = val;
  return 0;
}

void sl__strmap_free(sl__strmap *m) {
  for (size_t i = 0; i < m->cap; ++i) free(m->keys[i]);
  free(m->keys);
  free(m->vals);
  memset(m, 0, sizeof *m);
}
