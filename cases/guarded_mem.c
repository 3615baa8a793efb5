/* Buffers against a guard page (guarded_mem.h). */
#include "guarded_mem.h"

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Where a buffer's mapping starts and how long it is: kept just before
 * the buffer's first byte, with a check word, since a kernel that writes
 * far before an output's guard bytes can reach it: such a head is left
 * alone (its mapping leaked), never unmapped as something else. */
typedef struct sl__guarded_head {
  char *base;
  size_t len;
  uintptr_t check;
} sl__guarded_head;

#define SL__GUARDED_MAGIC ((uintptr_t)0x5ca77e2b5ca77e2bull)

static uintptr_t sl__check_of(const sl__guarded_head *h) {
  return (uintptr_t)h->base ^ (uintptr_t)h->len ^ SL__GUARDED_MAGIC;
}

enum {
  SL__GUARDED_ALIGN = 16,
  SL__GUARDED_KEEP = 16,              /* mappings a thread keeps */
  SL__GUARDED_KEEP_BYTES = 256 << 10, /* the largest it keeps */
};

static size_t sl__page(void) {
  static size_t page;
  if (!page) page = (size_t)sysconf(_SC_PAGESIZE);
  return page;
}

/* The mappings this thread freed last (each a data part and its guard),
 * reused by a buffer that fits in at most 4 times less: a fuzz case's
 * inputs and outputs come and go by the thousand a second. */
static _Thread_local sl__guarded_head sl__kept[SL__GUARDED_KEEP];
static _Thread_local int sl__n_kept;

/* The smallest kept mapping of len bytes or more (at most 4 len): taken
 * from the kept ones, or a zero head. */
static sl__guarded_head sl__take_kept(size_t len) {
  int best = -1;
  for (int k = 0; k < sl__n_kept; ++k)
    if (sl__kept[k].len >= len && sl__kept[k].len / 4 <= len &&
        (best < 0 || sl__kept[k].len < sl__kept[best].len))
      best = k;
  sl__guarded_head h = {NULL, 0, 0};
  if (best >= 0) {
    h = sl__kept[best];
    sl__kept[best] = sl__kept[--sl__n_kept];
  }
  return h;
}

/* A mapping of at least len bytes whose last page is the guard, its `used`
 * bytes before the guard zeroed; a zero head when out of memory. */
static sl__guarded_head sl__mapping(size_t len, size_t used) {
  const size_t page = sl__page();
  sl__guarded_head h = sl__take_kept(len);
  if (h.base) {
    memset(h.base + h.len - page - used, 0, used);
    return h;
  }
  char *base = mmap(NULL, len, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED) return h;
  if (mprotect(base + len - page, page, PROT_NONE) != 0) {
    munmap(base, len);
    return h;
  }
  h.base = base, h.len = len, h.check = sl__check_of(&h);
  return h;
}

void *sl_guarded_calloc(size_t bytes) {
  const size_t page = sl__page();
  const size_t body =
      (bytes + SL__GUARDED_ALIGN - 1) & ~(size_t)(SL__GUARDED_ALIGN - 1);
  const size_t head = sizeof(sl__guarded_head);
  if (body < bytes || body > SIZE_MAX / 2 - 2 * page) return NULL;
  const size_t data_pages = (body + head + page - 1) / page;
  const sl__guarded_head h = sl__mapping((data_pages + 1) * page, body);
  if (!h.base) return NULL;
  char *p = h.base + h.len - page - body;
  memset(p + bytes, SL_GUARDED_SLACK_BYTE, body - bytes);
  memcpy(p - head, &h, sizeof h);
  return p;
}

void sl_guarded_free(void *p) {
  if (!p) return;
  sl__guarded_head h;
  memcpy(&h, (char *)p - sizeof h, sizeof h);
  if (h.check != sl__check_of(&h)) return;
  if (h.len <= SL__GUARDED_KEEP_BYTES + sl__page() &&
      sl__n_kept < SL__GUARDED_KEEP)
    sl__kept[sl__n_kept++] = h;
  else
    munmap(h.base, h.len);
}
