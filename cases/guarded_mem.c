/* Buffers against a guard page (guarded_mem.h). */
#include "guarded_mem.h"

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Where a buffer's mapping starts and how long it is: kept just before
 * the buffer's first byte. */
typedef struct sl__guarded_head {
  char *base;
  size_t len;
} sl__guarded_head;

enum { SL__GUARDED_ALIGN = 16, SL__GUARDED_KEEP = 16 };

static size_t sl__page(void) {
  static size_t page;
  if (!page) page = (size_t)sysconf(_SC_PAGESIZE);
  return page;
}

/* The mappings of one data page (and its guard) this thread freed last. */
static _Thread_local char *sl__kept[SL__GUARDED_KEEP];
static _Thread_local int sl__n_kept;

/* A mapping of len bytes whose last page is the guard: a kept one when
 * one fits, zeroed up to `used` bytes before its guard; NULL when out of
 * memory. */
static char *sl__mapping(size_t len, size_t used) {
  const size_t page = sl__page();
  if (len == 2 * page && sl__n_kept > 0) {
    char *base = sl__kept[--sl__n_kept];
    memset(base + page - used, 0, used);
    return base;
  }
  char *base = mmap(NULL, len, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED) return NULL;
  if (mprotect(base + len - page, page, PROT_NONE) != 0) {
    munmap(base, len);
    return NULL;
  }
  return base;
}

void *sl_guarded_calloc(size_t bytes) {
  const size_t page = sl__page();
  const size_t body =
      (bytes + SL__GUARDED_ALIGN - 1) & ~(size_t)(SL__GUARDED_ALIGN - 1);
  const size_t head = sizeof(sl__guarded_head);
  if (body < bytes || body > SIZE_MAX / 2 - 2 * page) return NULL;
  const size_t data_pages = (body + head + page - 1) / page;
  const size_t len = (data_pages + 1) * page;
  char *base = sl__mapping(len, body);
  if (!base) return NULL;
  char *p = base + data_pages * page - body;
  memset(p + bytes, SL_GUARDED_SLACK_BYTE, body - bytes);
  const sl__guarded_head h = {base, len};
  memcpy(p - head, &h, sizeof h);
  return p;
}

void sl_guarded_free(void *p) {
  if (!p) return;
  sl__guarded_head h;
  memcpy(&h, (char *)p - sizeof h, sizeof h);
  if (h.len == 2 * sl__page() && sl__n_kept < SL__GUARDED_KEEP)
    sl__kept[sl__n_kept++] = h.base;
  else
    munmap(h.base, h.len);
}
