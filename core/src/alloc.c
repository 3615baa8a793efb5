/*
 * The kernels' scratch allocations, counted, with faults on request
 * (sl_provider.alloc_faults): a fuzz campaign fails the k-th allocation of
 * a call to test the error path behind it, and checks that the call freed
 * what it took. Process-wide counters: the harness arms them between
 * kernel calls only.
 */
#include <stdlib.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "alloc.h"
#include "sl_internal.h"

/*
 * Large blocks kept for the next call. glibc hands a freed block at the top
 * of its heap back to the system, so a call whose scratch is tens of MiB
 * met it again as fresh pages, a fault per 4 KiB (index_reduce_backward of
 * 3.3M f32 positions on two threads: 6487 faults a call, 7 of its 18 ms;
 * LibTorch reuses its memory). Up to SL__KEEP_SLOTS blocks of at least
 * SL__KEEP_MIN bytes are kept, SL__KEEP_TOTAL bytes in all. Only with glibc
 * (malloc_usable_size says how large a kept block is) and not under
 * AddressSanitizer, which must see every free to catch a use after it.
 */
#if defined(__GLIBC__) && !SL__MEMORY_SANITIZED
#define SL__KEEPS_BLOCKS 1
#else
#define SL__KEEPS_BLOCKS 0
#endif

#if SL__KEEPS_BLOCKS
/* Slots enough for the scratch of every contender a benchmark times in
 * turns (with 4, cpu.serial's scatter_reduce bf16 mean of 4M positions met
 * fresh pages on every turn beside cpu.lock: 60 ms against 22 alone). */
enum { SL__KEEP_SLOTS = 16 };
#define SL__KEEP_MIN ((size_t)1 << 20)
#define SL__KEEP_TOTAL ((size_t)256 << 20)
static void *sl__kept[SL__KEEP_SLOTS];
/* The size of the block a slot held when it was kept: a hint for choosing
 * a slot, checked on the block once taken. */
static size_t sl__kept_size[SL__KEEP_SLOTS];
static size_t sl__kept_bytes;

/* The slot whose block fits `bytes` most closely by the hints, or -1: the
 * first that fits would hand a 1 MiB request a 100 MiB block, and the next
 * call needing that block would meet fresh pages. */
static int sl__best_slot(size_t bytes) {
  int best = -1;
  size_t best_size = 0;
  for (int i = 0; i < SL__KEEP_SLOTS; ++i) {
    const size_t size = __atomic_load_n(&sl__kept_size[i], __ATOMIC_RELAXED);
    if (__atomic_load_n(&sl__kept[i], __ATOMIC_ACQUIRE) && size >= bytes &&
        (best < 0 || size < best_size))
      best = i, best_size = size;
  }
  return best;
}

/* Slot i's block if it holds at least `bytes`, else NULL: a smaller one
 * goes back to its slot (or is freed, if another thread filled it). */
static void *sl__take_slot(int i, size_t bytes) {
  void *p = __atomic_exchange_n(&sl__kept[i], NULL, __ATOMIC_ACQ_REL);
  if (!p) return NULL;
  const size_t size = malloc_usable_size(p);
  void *none = NULL;
  if (size < bytes &&
      __atomic_compare_exchange_n(&sl__kept[i], &none, p, 0, __ATOMIC_ACQ_REL,
                                  __ATOMIC_ACQUIRE))
    return NULL;
  __atomic_sub_fetch(&sl__kept_bytes, size, __ATOMIC_RELAXED);
  if (size >= bytes) return p;
  free(p);
  return NULL;
}

/* A kept block of at least `bytes`, or NULL: the closest fit first, then
 * each slot in turn. */
static void *sl__take_kept(size_t bytes) {
  if (bytes < SL__KEEP_MIN) return NULL;
  const int best = sl__best_slot(bytes);
  void *p = best >= 0 ? sl__take_slot(best, bytes) : NULL;
  for (int i = 0; !p && i < SL__KEEP_SLOTS; ++i) p = sl__take_slot(i, bytes);
  return p;
}

/* Whether p was kept (a free slot, and room under SL__KEEP_TOTAL). */
static int sl__keep(void *p) {
  const size_t size = malloc_usable_size(p);
  if (size < SL__KEEP_MIN) return 0;
  if (__atomic_add_fetch(&sl__kept_bytes, size, __ATOMIC_RELAXED) <=
      SL__KEEP_TOTAL)
    for (int i = 0; i < SL__KEEP_SLOTS; ++i) {
      void *none = NULL;
      if (__atomic_compare_exchange_n(&sl__kept[i], &none, p, 0,
                                      __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        __atomic_store_n(&sl__kept_size[i], size, __ATOMIC_RELAXED);
        return 1;
      }
    }
  __atomic_sub_fetch(&sl__kept_bytes, size, __ATOMIC_RELAXED);
  return 0;
}

size_t sl__alloc_release(void) {
  size_t released = 0;
  for (int i = 0; i < SL__KEEP_SLOTS; ++i) {
    void *p = __atomic_exchange_n(&sl__kept[i], NULL, __ATOMIC_ACQ_REL);
    if (!p) continue;
    const size_t size = malloc_usable_size(p);
    __atomic_sub_fetch(&sl__kept_bytes, size, __ATOMIC_RELAXED);
    released += size;
    free(p);
  }
  return released;
}
#else
size_t sl__alloc_release(void) { return 0; }
static void *sl__take_kept(size_t bytes) {
  (void)bytes;
  return NULL;
}
static int sl__keep(void *p) {
  (void)p;
  return 0;
}
#endif

static int64_t sl__made;            /* allocations since the last arm */
static int64_t sl__live;            /* allocated and not yet freed */
static int64_t sl__fail_after = -1; /* fail every one past this many */

int64_t sl__alloc_kept_bytes(void) {
#if SL__KEEPS_BLOCKS
  return (int64_t)__atomic_load_n(&sl__kept_bytes, __ATOMIC_RELAXED);
#else
  return -1;
#endif
}

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
  if (sl__fails()) return NULL;
  void *kept = sl__take_kept(bytes);
  return sl__counted(kept ? kept : malloc(bytes));
}

void *sl__calloc(size_t n, size_t size) {
  return sl__fails() ? NULL : sl__counted(calloc(n, size));
}

void sl__free(void *p) {
  if (!p) return;
  __atomic_fetch_sub(&sl__live, 1, __ATOMIC_RELAXED);
  if (!sl__keep(p)) free(p);
}

sl_alloc_counts sl__alloc_faults(int64_t fail_after) {
  sl_alloc_counts c;
  c.made = __atomic_exchange_n(&sl__made, 0, __ATOMIC_RELAXED);
  c.live = __atomic_load_n(&sl__live, __ATOMIC_RELAXED);
  __atomic_store_n(&sl__fail_after, fail_after < 0 ? -1 : fail_after,
                   __ATOMIC_RELAXED);
  return c;
}
