/*
 * The row axis model (walk_order.h) on short last axes, at the start cost
 * of reduce_rows.c's loops (SL__ROWS_ROW_START, the one scatter_reduce
 * and scatter_nd walk with; scatter's own loop passes a smaller one): rows of a
 * few elements cost their loop's set-up each, so a long axis whose steps stream
 * takes the rows instead; from rows of 8 on the last axis stays. The walk is a
 * scatter-like one through an f16 out and an i64 index [1, 1, M, L] along its
 * last axis, the shape the start cost was fitted on
 * (docs/notes/benchmarks-2026.md, "Short rows").
 */
#include <stdint.h>

#include "reduce_rows.h"
#include "sl_test.h"
#include "walk_order.h"

/* The axis a scatter-like walk of f16 (i64 index, src [2, 1, M, L + 1])
 * takes through its index [1, 1, M, L], out [1, 1, 3M/2, 1], dim 3. */
static int scatter_axis(int64_t L) {
  const int64_t M = 2296962 / L;
  const int64_t shape[4] = {1, 1, M, L};
  const int64_t ost[4] = {3 * M / 2, 3 * M / 2, 1, 0};
  const int64_t ist[4] = {M * L, M * L, L, 1};
  const int64_t sst[4] = {M * (L + 1), M * (L + 1), L + 1, 1};
  const int64_t *const st[3] = {ost, ist, sst};
  sl__row_order o = {.ndim = 4, .shape = shape, .index = 1, .lookup = 0};
  o.row_start = SL__ROWS_ROW_START;
  o.index_lines = sl__row_index_lines(1, 8);
  o.named = 1u << 3;
  o.movable = ~0u;
  sl__row_order_steps(&o, st, 2, 8);
  o.step[0][3] = 64; /* the index decides out's line */
  return sl__row_axis(&o);
}

int main(void) {
  for (int64_t L = 2; L <= 4; ++L)
    CHECK_MSG(scatter_axis(L) == 2, "rows of %lld: axis %d, expected 2",
              (long long)L, scatter_axis(L));
  for (int64_t L = 8; L <= 64; L *= 2)
    CHECK_MSG(scatter_axis(L) == 3, "rows of %lld: axis %d, expected 3",
              (long long)L, scatter_axis(L));
  return sl_test_finish("test_walk_order");
}
