/*
 * The kernels' scratch allocations, counted, with faults on request
 * (sl_provider.alloc_faults): a fuzz campaign fails the k-th allocation of
 * a call to test the error path behind it, and checks that the call freed
 * what it took. Process-wide counters: the harness arms them between
 * kernel calls only.
 */
#include <stdlib.h>

#include "alloc.h"
#include "sl_internal.h"

static int64_t sl__made;            /* allocations since the last arm */
static int64_t sl__live;            /* allocated and not yet freed */
static int64_t sl__fail_after = -1; /* fail every one past this many */

/* 1 when this allocation is one that must fail. */
static int sl__fails(void) {
  const int64_t k = __atomic_fetch_add(&sl__made, 1, __ATOMIC_RELAXED);
  const int64_t after = __atomic_load_n(&sl__fail_after, __ATOMIC_RELAXED);
  return after >= 0 && k >= after;
}

static void *sl__counted(void *p) {
  if (p) __atomic_fetch_add(&sl__live, 1, __ATOMIC_RELAXED);
  return p;
}

void *sl__malloc(size_t bytes) {
  return sl__fails() ? NULL : sl__counted(malloc(bytes));
}

void *sl__calloc(size_t n, size_t size) {
  return sl__fails() ? NULL : sl__counted(calloc(n, size));
}

void sl__free(void *p) {
  if (!p) return;
  __atomic_fetch_sub(&sl__live, 1, __ATOMIC_RELAXED);
  free(p);
}

sl_alloc_counts sl__alloc_faults(int64_t fail_after) {
  sl_alloc_counts c;
  c.made = __atomic_exchange_n(&sl__made, 0, __ATOMIC_RELAXED);
  c.live = __atomic_load_n(&sl__live, __ATOMIC_RELAXED);
  __atomic_store_n(&sl__fail_after, fail_after < 0 ? -1 : fail_after,
                   __ATOMIC_RELAXED);
  return c;
}
