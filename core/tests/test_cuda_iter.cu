/*
 * The strided iteration and the fast division of the cuda.* kernels
 * (cuda/cuda_common.cuh), checked on the host: they are __host__
 * __device__, so this runs on a machine without a GPU (CI). Every kernel
 * addresses memory through them, so a wrong merge of dims or a wrong
 * quotient would send every variant astray.
 *
 * - sl__div against '/' for divisors and dividends in the fast range (up to
 *   2^31 - 1) and beyond it;
 * - sl__it_make + sl__it_at against a naive row-major unravel and dot
 *   product, on random shapes (extents 0..5, runs of 1), 1 to 4 tensors of
 *   random strides (0, contiguous, transposed, gapped), with and without a
 *   kept dim.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cuda/cuda_common.cuh"
#include "sl_test.h"

/* Deterministic generator (splitmix64). */
static uint64_t sl__rng = 0x2545f4914f6cdd1dull;
static uint64_t next_u64(void) {
  uint64_t z = (sl__rng += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
static int64_t uniform(int64_t lo, int64_t hi) { /* [lo, hi] */
  return lo + (int64_t)(next_u64() % (uint64_t)(hi - lo + 1));
}

static void test_div(void) {
  const int64_t special[] = {
      1,          2,         3,     7,       641,
      65535,      65536,     65537, 1 << 20, (1 << 20) + 1,
      2147483646, 2147483647};
  int bad = 0;
  for (size_t k = 0; k < sizeof special / sizeof special[0]; ++k) {
    const int64_t d = special[k];
    sl__divmod v = sl__divmod_make(d, INT32_MAX);
    CHECK(v.fast);
    const int64_t ns[] = {0,     1,     d - 1,         d,
                          d + 1, 2 * d, INT32_MAX - 1, INT32_MAX};
    for (size_t j = 0; j < sizeof ns / sizeof ns[0]; ++j)
      if (ns[j] >= 0 && ns[j] <= INT32_MAX && sl__div(v, ns[j]) != ns[j] / d)
        ++bad;
    for (int t = 0; t < 20000; ++t) {
      const int64_t n = uniform(0, INT32_MAX);
      if (sl__div(v, n) != n / d) ++bad;
    }
  }
  for (int t = 0; t < 2000; ++t) {
    const int64_t d = uniform(1, INT32_MAX);
    sl__divmod v = sl__divmod_make(d, INT32_MAX);
    for (int u = 0; u < 100; ++u) {
      const int64_t n = uniform(0, INT32_MAX);
      if (sl__div(v, n) != n / d) ++bad;
    }
  }
  /* Beyond 31 bits: the plain division. */
  sl__divmod big = sl__divmod_make(3, (int64_t)1 << 40);
  CHECK(!big.fast);
  CHECK(sl__div(big, ((int64_t)1 << 40) + 1) == (((int64_t)1 << 40) + 1) / 3);
  CHECK_MSG(bad == 0, "%d wrong quotients", bad);
}

static void test_iteration(void) {
  int bad = 0, cases = 0;
  for (int t = 0; t < 3000; ++t) {
    const int ndim = (int)uniform(0, 6);
    int64_t shape[SL_MAX_DIMS];
    for (int d = 0; d < ndim; ++d) {
      const int64_t r = uniform(0, 9);
      shape[d] = r < 3 ? 1 : (r == 3 && t % 7 == 0 ? 0 : uniform(2, 5));
    }
    const int nt = (int)uniform(1, SL__IT_MAX);
    int64_t st[SL__IT_MAX][SL_MAX_DIMS];
    for (int k = 0; k < nt; ++k) {
      const int64_t kind = uniform(0, 3);
      int64_t s = 1;
      for (int d = ndim - 1; d >= 0; --d) {
        if (kind == 0) { /* contiguous */
          st[k][d] = s;
          s *= shape[d] ? shape[d] : 1;
        } else if (kind == 1) { /* gapped */
          st[k][d] = s * 2;
          s *= 2 * (shape[d] ? shape[d] : 1) + 1;
        } else { /* random, with broadcast zeros */
          st[k][d] = uniform(0, 4) == 0 ? 0 : uniform(1, 50);
        }
      }
      if (kind == 3 && ndim >= 2) { /* transposed */
        int64_t tmp = st[k][0];
        st[k][0] = st[k][ndim - 1];
        st[k][ndim - 1] = tmp;
      }
    }
    const int keep = ndim && uniform(0, 1) ? (int)uniform(0, ndim - 1) : -1;
    const int64_t *sp[SL__IT_MAX] = {st[0], st[1], st[2], st[3]};
    sl__it it = sl__it_make(ndim, shape, nt, sp, keep);
    int64_t numel = 1;
    for (int d = 0; d < ndim; ++d) numel *= shape[d];
    if (it.numel != numel) ++bad;
    ++cases;
    for (int64_t i = 0; i < numel; ++i) {
      int64_t idx[SL_MAX_DIMS], r = i;
      for (int d = ndim - 1; d >= 0; --d) {
        idx[d] = r % shape[d];
        r /= shape[d];
      }
      int64_t off[SL__IT_MAX], kc = -1;
      sl__it_at<SL__IT_MAX>(it, i, off, &kc);
      for (int k = 0; k < nt; ++k) {
        int64_t want = 0;
        for (int d = 0; d < ndim; ++d) want += idx[d] * st[k][d];
        if (off[k] != want) ++bad;
      }
      if (keep >= 0 && kc != idx[keep]) ++bad;
    }
  }
  CHECK_MSG(bad == 0, "%d wrong offsets or coordinates in %d walks", bad,
            cases);
  /* Contiguous tensors collapse to one dim. */
  int64_t shape[3] = {4, 5, 6}, s0[3] = {30, 6, 1}, s1[3] = {30, 6, 1};
  const int64_t *sp[2] = {s0, s1};
  sl__it it = sl__it_make(3, shape, 2, sp, -1);
  CHECK(it.ndim == 1 && it.shape[0] == 120);
  /* A kept dim is never merged. */
  it = sl__it_make(3, shape, 2, sp, 1);
  CHECK(it.ndim == 3 && it.keep == 1);
}

int main(void) {
  test_div();
  test_iteration();
  return sl_test_finish("test_cuda_iter");
}
