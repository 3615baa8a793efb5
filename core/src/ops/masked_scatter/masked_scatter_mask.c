/* Counting masked_scatter's true positions, a row of x at a time. */
#include "ops/masked_scatter/masked_scatter.h"
#include "walk.h"

/*
 * Nonzero bytes of a contiguous run, 8 at a time: the top bit of
 * ((b & 0x7f) + 0x7f) | b is set exactly when the byte b is nonzero. Up to
 * 255 words add their 0/1 bytes lane-wise before one widening sum (a plain
 * byte loop into an int64 count ran at 4 GB/s).
 */
static int64_t sl__count_nonzero_bytes(const unsigned char *p, int64_t n) {
  const uint64_t low7 = 0x7f7f7f7f7f7f7f7full, ones = 0x0101010101010101ull;
  const uint64_t pairs = 0x00ff00ff00ff00ffull, quads = 0x0001000100010001ull;
  int64_t count = 0, j = 0;
  while (n - j >= 8) {
    int64_t words = (n - j) / 8;
    if (words > 255) words = 255;
    uint64_t lanes = 0; /* eight byte counts, each <= 255 */
    for (int64_t w = 0; w < words; ++w, j += 8) {
      uint64_t b;
      memcpy(&b, p + j, 8);
      lanes += ((((b & low7) + low7) | b) >> 7) & ones;
    }
    /* to four 16-bit sums, then their total in the top 16 bits */
    uint64_t wide = (lanes & pairs) + ((lanes >> 8) & pairs);
    count += (int64_t)((wide * quads) >> 48);
  }
  for (; j < n; ++j) count += p[j] != 0;
  return count;
}

/* True positions of a row of n mask bytes `step` apart. */
static int64_t sl__count_row(const unsigned char *row, int64_t step,
                             int64_t n) {
  if (step == 1) return sl__count_nonzero_bytes(row, n);
  if (step == 0) return row[0] != 0 ? n : 0; /* broadcast along the row */
  int64_t count = 0;
  for (int64_t j = 0; j < n; ++j) count += row[j * step] != 0;
  return count;
}

/* True positions among the row-major positions [begin, end) of `shape`,
 * the mask's bytes at `strides`. A mask broadcast along the axis above the
 * rows hands the same row over and over (u8 33x33x35x33 under a 1x33x1x33
 * mask: 35 times each), so a row is counted once while it repeats. */
static int64_t sl__count_rows(const unsigned char *m, int ndim,
                              const int64_t *shape, const int64_t *strides,
                              int64_t begin, int64_t end) {
  const int64_t *st[1] = {strides};
  sl__walk w;
  sl__walk_init(&w, ndim, shape, 1, st, begin);
  int64_t count = 0, last_count = 0, last_n = -1;
  const unsigned char *last = NULL;
  for (int64_t left = end - begin, n; left > 0; left -= n, sl__walk_next(&w)) {
    n = sl__walk_span(&w, left);
    const unsigned char *row = m + sl__walk_at(&w, 0);
    if (row != last || n != last_n) {
      last_count = sl__count_row(row, sl__walk_step(&w, 0), n);
      last = row, last_n = n;
    }
    count += last_count;
  }
  return count;
}

int64_t sl__mask_count(const sl_tensor *x, const sl_tensor *mask,
                       const int64_t *ms, int64_t begin, int64_t end) {
  const int64_t own = sl__numel(mask), all = sl__numel(x);
  /* All of x: each of the mask's own elements stands for all / own
   * positions (the broadcast repeats the whole mask), so the mask is
   * counted once rather than once per position of x. */
  if (begin == 0 && end == all && own > 0)
    return sl__count_rows(mask->data, mask->ndim, mask->shape, mask->strides, 0,
                          own) *
           (all / own);
  return sl__count_rows(mask->data, x->ndim, x->shape, ms, begin, end);
}
