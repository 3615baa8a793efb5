/*
 * The lengths (or offsets) of a segment case: how a row of the axis is cut
 * into segments, following the case's pattern (see segments.h).
 */
#include "segments.h"

#include <stdlib.h>

static int sl__cmp_i64(const void *a, const void *b) {
  const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* One row: S lengths summing to n. */
static void sl__cut_row(int64_t *len, int64_t S, int64_t n, sl_index_pattern ip,
                        sl_rng *r) {
  if (S <= 0) return;
  if (ip == SL_IP_ONE) { /* one segment takes the whole row */
    for (int64_t s = 0; s < S; ++s) len[s] = 0;
    len[sl_rng_below(r, (uint64_t)S)] = n;
    return;
  }
  if (ip == SL_IP_UNIQUE) { /* as even as they come */
    for (int64_t s = 0; s < S; ++s) len[s] = n / S + (s < n % S ? 1 : 0);
    return;
  }
  /* S - 1 cuts drawn uniformly in [0, n]: empty segments come with them. */
  for (int64_t s = 0; s + 1 < S; ++s)
    len[s] = (int64_t)sl_rng_below(r, (uint64_t)n + 1);
  len[S - 1] = n;
  qsort(len, (size_t)S, sizeof *len, sl__cmp_i64);
  for (int64_t s = S - 1; s > 0; --s) len[s] -= len[s - 1];
}

/* ip=oob: row 0 sums past the axis (its last offset past it); ip=neg: one
 * length of row 0 negative, the row's sum kept (with offsets: one offset
 * above the next one). */
static void sl__spoil_row(int64_t *v, int64_t m, int offsets,
                          sl_index_pattern ip, sl_rng *r) {
  const int64_t S = offsets ? m - 1 : m;
  if (ip == SL_IP_OOB && m >= 1) {
    if (offsets)
      v[m - 1] += 1;
    else
      v[sl_rng_below(r, (uint64_t)S)] += 1;
  } else if (ip == SL_IP_NEG && offsets && m >= 2) {
    const int64_t j =
        m == 2 ? 1 : 1 + (int64_t)sl_rng_below(r, (uint64_t)m - 2);
    v[j] = j + 1 < m ? v[j + 1] + 1 : -1;
  } else if (ip == SL_IP_NEG && !offsets && S == 1) {
    v[0] = -1;
  } else if (ip == SL_IP_NEG && !offsets && S >= 2) {
    const int64_t s = (int64_t)sl_rng_below(r, (uint64_t)S);
    const int64_t t = (s + 1 + (int64_t)sl_rng_below(r, (uint64_t)S - 1)) % S;
    v[t] += v[s] + 1;
    v[s] = -1;
  }
}

void sl_segment_values(const sl_case *c, int64_t rows, int64_t m, int64_t n,
                       int64_t *v) {
  sl_rng r;
  sl_rng_seed(&r, c->seed, 1001);
  const int64_t S = c->offsets ? m - 1 : m;
  for (int64_t q = 0; q < rows; ++q) {
    int64_t *row = v + q * m;
    if (m == 0) continue;
    sl__cut_row(c->offsets ? row + 1 : row, S, n, c->ip, &r);
    if (c->offsets) { /* running sums from 0 */
      row[0] = 0;
      for (int64_t s = 1; s < m; ++s) row[s] += row[s - 1];
    }
  }
  if (rows > 0) sl__spoil_row(v, m, c->offsets, c->ip, &r);
}

int sl_segment_spoiled(const sl_case *c, int64_t rows, int64_t m) {
  if (rows <= 0) return 0;
  if (c->ip == SL_IP_OOB) return m >= 1;
  if (c->ip == SL_IP_NEG) return c->offsets ? m >= 2 : m >= 1;
  return 0;
}
