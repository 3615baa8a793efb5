/*
 * The row axis model (walk_order.h) on short last axes, at the start cost
 * of reduce_rows.c's loops (SL__ROWS_ROW_START, the one scatter_reduce
 * and scatter_nd walk with; scatter's own loop passes a smaller one): rows of a
 * few elements cost their loop's set-up each, so a long axis whose steps stream
 * takes the rows instead; from rows of 8 on the last axis stays. The walk is a
 * scatter-like one through an f16 out and an i64 index [1, 1, M, L] along its
 * last axis, the shape the start cost was fitted on
 * (docs/notes/benchmarks-2026.md, "Short rows"). Also lookups near
 * enough to share lines from one row to the next (check_near).
 */
#include <stdint.h>

#include "reduce_rows.h"
#include "sl_test.h"
#include "walk_order.h"

/* A scatter-like walk's row order over 4-D positions of `shape` with an
 * i64 index along the last axis, elements es bytes wide, out's steps
 * along that axis left to the caller. */
static sl__row_order order_of(const int64_t *shape, const int64_t *const st[3],
                              int64_t es) {
  sl__row_order o = {.ndim = 4, .shape = shape, .index = 1, .lookup = 0};
  o.row_start = SL__ROWS_ROW_START;
  o.index_lines = sl__row_index_lines(1, 8);
  o.named = 1u << 3;
  o.movable = ~0u;
  sl__row_order_steps(&o, st, es, 8);
  return o;
}

/* The axis a scatter-like walk of f16 (i64 index, src [2, 1, M, L + 1])
 * takes through its index [1, 1, M, L], out [1, 1, 3M/2, 1], dim 3. */
static int scatter_axis(int64_t L) {
  const int64_t M = 2296962 / L;
  const int64_t shape[4] = {1, 1, M, L};
  const int64_t ost[4] = {3 * M / 2, 3 * M / 2, 1, 0};
  const int64_t ist[4] = {M * L, M * L, L, 1};
  const int64_t sst[4] = {M * (L + 1), M * (L + 1), L + 1, 1};
  const int64_t *const st[3] = {ost, ist, sst};
  sl__row_order o = order_of(shape, st, 2);
  o.step[0][3] = 64; /* the index decides out's line */
  return sl__row_axis(&o);
}

/* The axis of an f32 scatter-like walk through index [R, K, K, C]
 * broadcast along all but its last axis (index_reduce's view) into out
 * [R, K, K, N] along the last, src [R, K, K, C] contiguous or
 * column-major; out's lookups a row spread over N * 4 bytes, near
 * (walk_order.h) when told so. */
static int near_axis(int64_t R, int64_t K, int64_t C, int64_t N,
                     int column_major, int near) {
  const int64_t shape[4] = {R, K, K, C};
  const int64_t ost[4] = {K * K * N, K * N, N, 0}, ist[4] = {0, 0, 0, 1};
  const int64_t sst[2][4] = {{K * K * C, K * C, C, 1},
                             {1, R, R * K, R * K * K}};
  const int64_t *const st[3] = {ost, ist, sst[column_major]};
  sl__row_order o = order_of(shape, st, 4);
  o.step[0][3] = near ? N * 4 / C : 64;
  if (near) o.near = 1u << 3, o.near_lines[3] = (N * 4 + 63) / 64;
  return sl__row_axis(&o);
}

/* Rows along axis 0 through a column-major src read it in order; out's
 * lookups (4 lines a row of 58 f32) stay in L1 from one row to the next
 * while the rows are short: 61 (the index_reduce prod of [61,58,58,50]
 * column-major into 58 along the last axis of seed 20261228), not 2000. */
static void check_near(void) {
  int axis;
  CHECK_MSG((axis = near_axis(61, 58, 50, 58, 1, 1)) == 0,
            "61 rows, near: axis %d", axis);
  CHECK_MSG((axis = near_axis(61, 58, 50, 58, 1, 0)) == 3,
            "61 rows, not near: axis %d", axis);
  CHECK_MSG((axis = near_axis(2000, 58, 50, 58, 1, 1)) == 3,
            "2000 rows, near: axis %d", axis);
  /* contiguous src: the last axis streams */
  CHECK_MSG((axis = near_axis(61, 58, 50, 58, 0, 1)) == 3,
            "contiguous: axis %d", axis);
}

/* The axis a gather's walk takes over positions of `shape` (ndim axes)
 * through an i64 index along `dim`: out, index and x's element strides, x's
 * zero on dim as sl__gather_order passes it. */
static int gather_axis(int ndim, const int64_t *shape, const int64_t *ost,
                       const int64_t *ist, const int64_t *xst, int64_t es,
                       int dim) {
  sl__row_order o = {.ndim = ndim, .shape = shape, .index = 1, .lookup = 2};
  o.index_lines = sl__row_index_lines(1, 8);
  o.named = 1u << dim;
  o.movable = ~0u;
  const int64_t *const st[3] = {ost, ist, xst};
  sl__row_order_steps(&o, st, es, 8);
  return sl__row_axis(&o);
}

/* Rows along an axis on which x's lookups step a page each wait on the
 * TLB (SL__PAGE_STEP_COST): the i8 gather of x=81x84x81x81 through an
 * index [81,68,63,53] broadcast along axis 0, dim 2, stays in row-major
 * order (3x faster there), while the f16 one of x=52^4 through a
 * column-major index [40,52,32,27] along dim 1 still moves axis 0 (its
 * rows along the last axis open an index line an element), and out
 * stepping pages alone (gather i8 x=352^3 through [203,186,179]
 * broadcast along dim 0: one value of x a row) costs nothing more. */
static void check_pages(void) {
  const int64_t bshape[4] = {81, 68, 63, 53};
  const int64_t bout[4] = {227052, 3339, 53, 1}, bidx[4] = {0, 3339, 53, 1};
  const int64_t bx[4] = {551124, 6561, 0, 1};
  int axis = gather_axis(4, bshape, bout, bidx, bx, 1, 2);
  CHECK_MSG(axis == 3, "broadcast index, x a page a step: axis %d", axis);
  const int64_t tshape[4] = {40, 52, 32, 27};
  const int64_t tout[4] = {44928, 864, 27, 1}, tidx[4] = {1, 40, 2080, 66560};
  const int64_t tx[4] = {140608, 0, 52, 1};
  axis = gather_axis(4, tshape, tout, tidx, tx, 2, 1);
  CHECK_MSG(axis == 0, "column-major index: axis %d", axis);
  const int64_t oshape[3] = {203, 186, 179};
  const int64_t oout[3] = {33294, 179, 1}, oidx[3] = {0, 179, 1};
  const int64_t ox[3] = {0, 352, 1};
  axis = gather_axis(3, oshape, oout, oidx, ox, 1, 0);
  CHECK_MSG(axis == 0, "out a page a step: axis %d", axis);
}

int main(void) {
  check_near();
  check_pages();
  for (int64_t L = 2; L <= 4; ++L)
    CHECK_MSG(scatter_axis(L) == 2, "rows of %lld: axis %d, expected 2",
              (long long)L, scatter_axis(L));
  for (int64_t L = 8; L <= 64; L *= 2)
    CHECK_MSG(scatter_axis(L) == 3, "rows of %lld: axis %d, expected 3",
              (long long)L, scatter_axis(L));
  return sl_test_finish("test_walk_order");
}
