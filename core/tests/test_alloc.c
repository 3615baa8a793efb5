/*
 * The kernels' scratch allocator (alloc.c): a large freed block is kept and
 * handed to the next large allocation instead of going back to the system
 * (whose fresh pages cost a fault each), within the cap; kept blocks are
 * not counted live; an armed fault still fails an allocation a kept block
 * could serve.
 */
#include <stdint.h>
#include <string.h>

#include "alloc.h"
#include "sl_internal.h"
#include "sl_test.h"

enum { MIB = 1 << 20 };

static void test_reuse(void) {
  char *p = sl__malloc(4 * MIB);
  CHECK(p != NULL);
  if (!p) return;
  memset(p, 1, 4 * MIB);
  sl__free(p);
  char *q = sl__malloc(3 * MIB);
  CHECK_MSG(q == p,
            "a 3 MiB block after freeing a 4 MiB one: %p, expected "
            "the kept %p",
            (void *)q, (void *)p);
  sl_alloc_counts c = sl__alloc_faults(-1);
  CHECK_MSG(c.live == 1, "live %lld with one block held, expected 1",
            (long long)c.live);
  sl__free(q);
  c = sl__alloc_faults(-1);
  CHECK_MSG(c.live == 0,
            "live %lld after freeing it, expected 0 (a kept "
            "block is no call's)",
            (long long)c.live);
}

/* Four freed blocks of 100 MiB: the cap (256 MiB) keeps two; the next two
 * allocations of that size are two of the freed blocks, and nothing is
 * kept after them. */
static void test_cap(void) {
  enum { N = 4 };
  void *p[N], *q[2];
  for (int i = 0; i < N; ++i) p[i] = sl__malloc((size_t)100 * MIB);
  const int64_t before = sl__alloc_kept_bytes();
  for (int i = 0; i < N; ++i) sl__free(p[i]);
  const int64_t kept = sl__alloc_kept_bytes() - before;
  CHECK_MSG(kept >= 200 * (int64_t)MIB && kept <= 256 * (int64_t)MIB,
            "four 100 MiB blocks freed: %lld bytes more kept, expected two "
            "blocks' (the cap is 256 MiB)",
            (long long)kept);
  for (int i = 0; i < 2; ++i) q[i] = sl__malloc((size_t)100 * MIB);
  CHECK_MSG(sl__alloc_kept_bytes() == before,
            "%lld bytes kept after taking both back, expected %lld",
            (long long)sl__alloc_kept_bytes(), (long long)before);
  int reused = 0;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < N; ++j) reused += q[i] && q[i] == p[j];
  CHECK_MSG(reused == 2,
            "%d of 2 allocations were freed blocks kept, "
            "expected 2",
            reused);
  for (int i = 0; i < 2; ++i) sl__free(q[i]);
}

/* The contenders of one benchmark are timed in turns, each call taking and
 * freeing its own scratch: six calls of two blocks each (1 to 12 MiB, 78
 * MiB in all, under the cap) are all kept, so that none meets fresh pages
 * on its next turn (with 4 slots cpu.serial's scatter_reduce bf16 mean ran
 * at 60 ms beside cpu.lock, 22 ms alone); and a request takes the kept
 * block that fits it most closely. */
static void test_turns(void) {
  enum { CALLS = 6, BLOCKS = 2 };
  sl__alloc_release();
  /* blocks of 100 and 2 MiB kept (the large one first), then a call of 1
   * MiB and 100 MiB: the small request takes the 2 MiB block, not the
   * large one the large request needs */
  void *big = sl__malloc((size_t)100 * MIB), *two = sl__malloc(2 * MIB);
  sl__free(big);
  sl__free(two);
  void *small = sl__malloc(MIB), *again = sl__malloc((size_t)100 * MIB);
  CHECK_MSG(again == big,
            "a 100 MiB block after a 1 MiB one: %p, expected the kept %p",
            again, big);
  sl__free(small);
  sl__free(again);
  sl__alloc_release();
  const int64_t before = sl__alloc_kept_bytes();
  int64_t want = 0;
  for (int c = 0; c < CALLS; ++c) {
    void *p[BLOCKS];
    for (int b = 0; b < BLOCKS; ++b) {
      const size_t bytes = (size_t)(c * BLOCKS + b + 1) * MIB;
      p[b] = sl__malloc(bytes);
      CHECK(p[b] != NULL);
      want += (int64_t)bytes;
    }
    for (int b = 0; b < BLOCKS; ++b) sl__free(p[b]);
  }
  const int64_t kept = sl__alloc_kept_bytes() - before;
  CHECK_MSG(kept >= want,
            "%d calls' %d blocks each freed in turn: %lld bytes more kept, "
            "expected all %lld",
            CALLS, BLOCKS, (long long)kept, (long long)want);
  sl__alloc_release();
}

/* An armed fault fails the allocation even with a block kept for it. */
static void test_fault_first(void) {
  void *p = sl__malloc(2 * MIB);
  sl__free(p);
  sl__alloc_faults(0);
  void *q = sl__malloc(2 * MIB);
  sl__alloc_faults(-1);
  CHECK_MSG(q == NULL, "an armed fault returned %p", q);
  sl__free(q);
}

/* The release hook (sl_provider.release_scratch) frees every kept block and
 * says how many bytes: nothing kept after it, nothing more on a second
 * call, and a block freed later is kept again. */
static void test_release(void) {
  void *p = sl__malloc(3 * MIB), *q = sl__malloc(5 * MIB);
  sl__free(p);
  sl__free(q);
  const int64_t kept = sl__alloc_kept_bytes();
  const size_t released = sl__alloc_release();
  CHECK_MSG((int64_t)released == kept && kept >= 8 * (int64_t)MIB,
            "release handed back %zu bytes, expected the %lld kept "
            "(at least two blocks of 3 and 5 MiB)",
            released, (long long)kept);
  CHECK_MSG(sl__alloc_kept_bytes() == 0,
            "%lld bytes kept after the release, expected 0",
            (long long)sl__alloc_kept_bytes());
  CHECK_MSG(sl__alloc_release() == 0,
            "a second release handed back %zu bytes, expected 0",
            sl__alloc_release());
  sl__free(sl__malloc(2 * MIB));
  CHECK_MSG(sl__alloc_kept_bytes() >= 2 * (int64_t)MIB,
            "a block freed after the release: %lld bytes kept, expected "
            "at least 2 MiB",
            (long long)sl__alloc_kept_bytes());
  sl__alloc_release();
}

int main(void) {
  if (sl__alloc_kept_bytes() < 0) {
    printf("test_alloc: skipped (this build frees every block: no glibc, or "
           "AddressSanitizer)\n");
    return 77;
  }
  test_reuse();
  test_cap();
  test_turns();
  test_fault_first();
  test_release();
  return sl_test_finish("test_alloc");
}
