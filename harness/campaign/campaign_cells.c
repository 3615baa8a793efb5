/* Coverage cells of a fuzz campaign: a growable array with a hash index. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "campaign.h"

static uint64_t sl__hash(const char *s) { /* FNV-1a */
  uint64_t h = 1469598103934665603ull;
  for (; *s; ++s) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

/* The slot of `name`: where it is, or the empty slot where it would go. */
static int sl__find(const sl_fuzz_cells *t, const char *name) {
  int mask = t->nslots - 1;
  for (int i = (int)(sl__hash(name) & (uint64_t)mask);; i = (i + 1) & mask)
    if (t->slots[i] < 0 || strcmp(t->v[t->slots[i]].name, name) == 0) return i;
}

static int sl__rehash(sl_fuzz_cells *t, int nslots) {
  int *slots = malloc(sizeof *slots * (size_t)nslots);
  if (!slots) return -1;
  for (int i = 0; i < nslots; ++i) slots[i] = -1;
  free(t->slots);
  t->slots = slots;
  t->nslots = nslots;
  for (int k = 0; k < t->n; ++k) t->slots[sl__find(t, t->v[k].name)] = k;
  return 0;
}

sl_fuzz_cell_count *sl_fuzz_cells_get(sl_fuzz_cells *t, const char *name) {
  if (2 * (t->n + 1) > t->nslots &&
      sl__rehash(t, t->nslots ? 2 * t->nslots : 1024))
    return NULL;
  int at = sl__find(t, name);
  if (t->slots[at] >= 0) return &t->v[t->slots[at]];
  if (t->n == t->cap) {
    int cap = t->cap ? 2 * t->cap : 256;
    sl_fuzz_cell_count *v = realloc(t->v, sizeof *v * (size_t)cap);
    if (!v) return NULL;
    t->v = v;
    t->cap = cap;
  }
  sl_fuzz_cell_count *c = &t->v[t->n];
  memset(c, 0, sizeof *c);
  snprintf(c->name, sizeof c->name, "%s", name);
  t->slots[at] = t->n++;
  return c;
}

void sl_fuzz_cells_clear(sl_fuzz_cells *t) {
  t->n = 0;
  for (int i = 0; i < t->nslots; ++i) t->slots[i] = -1;
}

void sl_fuzz_cells_free(sl_fuzz_cells *t) {
  free(t->v);
  free(t->slots);
  memset(t, 0, sizeof *t);
}
