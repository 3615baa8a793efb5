/* Row walks (walk.h): offsets equal the per-element formula for random
 * shapes, strides (broadcast, transposed, padded) and start positions, axes
 * merge only where every tensor allows it, and scatter slabs cover an axis
 * exactly, cut on 64-byte lines of out. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "copy_tiled.h"
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

/* out := x for x transposed (column-major, the fuzzer's :t) and with two
 * axes swapped, every element size, extents around the tile side: equal
 * to the per-element formula; the tiled copy takes them all. */
static void test_copy_tiled(void) {
  /* then sides just past a block (8) and a tile (32), and a plane of 7
   * tile rows large enough for a team of two threads */
  static const int64_t extents[][3] = {{79, 76, 3}, {33, 65, 2},  {1, 130, 70},
                                       {64, 64, 1}, {5, 200, 31}, {38, 9, 38},
                                       {8, 17, 33}, {1, 200, 201}};
  static const sl_dtype dts[] = {SL_I8, SL_I16, SL_F32, SL_F64, SL_C128};
  int tiled = 0;
  for (size_t e = 0; e < sizeof extents / sizeof *extents; ++e)
    for (size_t k = 0; k < sizeof dts / sizeof *dts; ++k)
      for (int swap = 0; swap < 2; ++swap) {
        const int64_t *sh = extents[e], n = sh[0] * sh[1] * sh[2];
        const size_t es = sl_dtype_size(dts[k]);
        unsigned char *xm = malloc((size_t)n * es), *om = calloc((size_t)n, es);
        for (int64_t i = 0; i < n * (int64_t)es; ++i)
          xm[i] = (unsigned char)sl__rand(251);
        sl_tensor x = sl_tensor_make(dts[k], 3, sh, xm), o = x;
        o.data = om;
        /* column-major, or row-major with the last two axes swapped */
        const int64_t cm[3] = {1, sh[0], sh[0] * sh[1]},
                      sw[3] = {sh[1] * sh[2], 1, sh[1]};
        for (int d = 0; d < 3; ++d) x.strides[d] = swap ? sw[d] : cm[d];
        for (int way = 0; way < 2; ++way) { /* tiled alone, then any path */
          memset(om, 0, (size_t)n * es);
          if (way == 0 && !sl__copy_tiled(&o, &x, 1 + swap)) continue;
          if (way == 0) ++tiled;
          if (way == 1) sl__copy_strided(&o, &x, 2);
          int bad = 0;
          for (int64_t i = 0; i < n; ++i) {
            const int64_t from = sl__off(3, sh, x.strides, i);
            bad += memcmp(om + i * es, xm + from * es, es) != 0;
          }
          CHECK(bad == 0);
        }
        free(xm);
        free(om);
      }
  CHECK(tiled == 70); /* 70 of the 80 layouts step a line along out's rows */
}

/* The elements a tensor's memory holds: a broadcast axis counts once, an
 * empty one empties it (the gather walk's panels are sized by this). */
static void test_numel_stored(void) {
  int64_t shape[3] = {226, 228, 226};
  sl_tensor t = sl_tensor_make(SL_I64, 3, shape, NULL);
  CHECK_MSG(sl__numel_stored(&t) == 226 * 228 * 226,
            "dense: %lld elements stored, expected %lld",
            (long long)sl__numel_stored(&t), (long long)226 * 228 * 226);
  t.strides[0] = 0;
  CHECK_MSG(sl__numel_stored(&t) == 228 * 226,
            "axis 0 broadcast: %lld elements stored, expected %d",
            (long long)sl__numel_stored(&t), 228 * 226);
  t.shape[2] = 0;
  t.strides[2] = 0;
  CHECK_MSG(sl__numel_stored(&t) == 0,
            "an empty axis of stride 0: %lld elements stored, expected 0",
            (long long)sl__numel_stored(&t));
}

int main(void) {
  test_numel_stored();
  test_copy_tiled();
  test_random_walks();
  test_merging();
  test_slabs();
  return sl_test_finish("test_walk");
}
