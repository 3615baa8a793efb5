/*
 * A string -> int map for grouping report rows (benchmarks by key, summary
 * cells by op/variant/dtype): open addressing with FNV-1a hashes. Keys are
 * copied. Internal to reports/.
 */
#ifndef SL_STRMAP_H
#define SL_STRMAP_H

#include <stddef.h>

typedef struct sl__strmap {
  char **keys;
  int *vals;
  size_t cap, n;
} sl__strmap;

/* The value of key, or -1 when absent. */
int sl__strmap_get(const sl__strmap *m, const char *key);
/* Sets key to val (val >= 0). 0, or -1 when out of memory. */
int sl__strmap_put(sl__strmap *m, const char *key, int val);
void sl__strmap_free(sl__strmap *m);

#endif
