/* Row walks (walk.h): offsets equal the per-element formula for random
 * shapes, strides (broadcast, transposed, padded) and start positions, axes
 * merge only where every tensor allows it, and scatter slabs cover an axis
 * exactly, cut on 64-byte lines of out. */
#include <stdint.h>
#include <stdlib.h>

#include "sl_test.h"
#include "walk.h"

static uint64_t sl__rng = 88172645463325252ull;
static int64_t sl__rand(int64_t n) {
  sl__rng ^= sl__rng << 13;
  sl__rng ^= sl__rng >> 7;
  sl__rng ^= sl__rng << 17;
  return (int64_t)(sl__rng % (uint64_t)n);
}

/* Offset of row-major position i with the given strides. */
static int64_t sl__off(int ndim, const int64_t *shape, const int64_t *st,
                       int64_t i) {
  int64_t off = 0;
  for (int d = ndim - 1; d >= 0; --d) {
    off += i % shape[d] * st[d];
    i /= shape[d];
  }
  return off;
}

static void test_random_walks(void) {
  int bad = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    int ndim = (int)sl__rand(5) + 1, nt = (int)sl__rand(3) + 1;
    int64_t shape[SL_MAX_DIMS], st[3][SL_MAX_DIMS], n = 1;
    for (int d = 0; d < ndim; ++d) n *= shape[d] = sl__rand(4) + 1;
    for (int t = 0; t < nt; ++t) {
      int64_t s = 1;
      for (int d = ndim - 1; d >= 0; --d) {
        int kind = (int)sl__rand(4); /* contiguous, padded, broadcast, odd */
        st[t][d] = kind == 2 ? 0 : kind == 3 ? sl__rand(50) + 1 : s;
        s *= shape[d] + (kind == 1);
      }
    }
    const int64_t *sp[3] = {st[0], st[1], st[2]};
    int64_t b = sl__rand(n), e = b + sl__rand(n - b + 1);
    sl__walk w;
    sl__walk_init(&w, ndim, shape, nt, sp, b);
    int64_t i = b;
    for (int64_t left = e - b, k; left > 0; left -= k, sl__walk_next(&w)) {
      k = sl__walk_span(&w, left);
      for (int64_t j = 0; j < k; ++j, ++i)
        for (int t = 0; t < nt; ++t)
          bad += sl__walk_at(&w, t) + j * sl__walk_step(&w, t) !=
                 sl__off(ndim, shape, st[t], i);
    }
    bad += i != e;
  }
  CHECK_MSG(bad == 0, "%d walk offsets differ from the formula", bad);
}

static void test_merging(void) {
  int64_t shape[3] = {4, 5, 6}, c[3] = {30, 6, 1}, tr[3] = {1, 4, 20};
  const int64_t *both[2] = {c, c}, *mixed[2] = {c, tr};
  sl__walk w;
  sl__walk_init(&w, 3, shape, 2, both, 0);
  CHECK(w.ndim == 1 && w.len == 120); /* contiguous: one row */
  sl__walk_init(&w, 3, shape, 2, mixed, 0);
  CHECK(w.ndim == 3 && w.len == 6); /* a transposed tensor merges nothing */
  int64_t ones[3] = {1, 1, 1};
  sl__walk_init(&w, 3, ones, 2, both, 0);
  CHECK(w.ndim == 1 && w.len == 1);
  sl__walk_init(&w, 0, NULL, 2, both, 0); /* a scalar is one position */
  CHECK(w.ndim == 1 && w.len == 1 && sl__walk_at(&w, 0) == 0);
}

static void test_slabs(void) {
  int64_t shape[2] = {1000, 100};
  float *data = malloc(1000 * 100 * sizeof(float) + 64);
  for (int skew = 0; skew < 16; ++skew) {
    sl_tensor out = sl_tensor_make(SL_F32, 2, shape, data + skew);
    for (int threads = 1; threads <= 7; ++threads) {
      sl__slabs s;
      /* dim 0 fixed: the slabs cut axis 1, out's unit-stride axis. */
      sl__slabs_plan(&s, 2, shape, &out, 1u << 0, threads);
      CHECK(s.team >= 1 && s.team <= threads);
      CHECK(s.team == 1 || s.axis == 1);
      CHECK(s.cut[0] == 0 && s.cut[s.team] == (s.axis < 0 ? 0 : 100));
      for (int t = 1; t < s.team; ++t) {
        CHECK(s.cut[t] > s.cut[t - 1]);
        uintptr_t at = (uintptr_t)(data + skew + s.cut[t]);
        CHECK_MSG(at % 64 == 0,
                  "cut %lld of %d threads, skew %d, not on a line",
                  (long long)s.cut[t], threads, skew);
      }
    }
  }
  sl_tensor out = sl_tensor_make(SL_F32, 2, shape, data);
  sl__slabs s;
  sl__slabs_plan(&s, 2, shape, &out, 3u, 4); /* both axes fixed: no split */
  CHECK(s.team == 1 && s.axis == -1);
  free(data);
}

int main(void) {
  test_random_walks();
  test_merging();
  test_slabs();
  return sl_test_finish("test_walk");
}
