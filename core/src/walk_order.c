/* The row axis of an indexed walk (see walk_order.h). */
#include "walk_order.h"

#define SL__LINE 64
/* The lines a row may hold open for the next one to reuse: half of a
 * small L2. */
#define SL__REUSE_LINES 2048

/* The lines a row's lookups along a near axis may hold for the next row:
 * L1's share. Reuse from L2 lost to rows along a last axis that streams
 * (docs/notes/benchmarks-2026.md, session al). */
#define SL__NEAR_LINES 512

/* A row whose index or looked-up operand steps a page or more an element
 * opens a page an element; past the L1 TLB's entries each such load
 * waits on the second-level TLB, whichever lines the next row reuses (a
 * store does not wait: gather's out may step pages freely). The line
 * count alone sent a gather through an index broadcast along axis 0 by
 * rows along that axis, x a page apart a position, at a third of
 * row-major order's speed (figures: docs/notes/benchmarks-2026.md,
 * session an). */
#define SL__PAGE 4096
#define SL__TLB_PAGES 64
#define SL__PAGE_STEP_COST 8

/* A reused line of gather_nd's coordinates (m of them a position, each a
 * line away) costs this many times one of out: each load misses L1 and
 * the lookup waits on both, where a store goes into the store buffer.
 * gather_nd f64 through a column-major index [822,1172,2] read it along
 * the last axis at 0.49-0.51x LibTorch, along the first at 0.82-1.04x.
 * Left at 1 for gather's one coordinate and for x: weighting them too
 * moved no other case of 23 measured. */
#define SL__REUSED_INDEX_READ 4

void sl__row_order_steps(sl__row_order *o, const int64_t *const st[3],
                         int64_t elem_bytes, int64_t index_bytes) {
  for (int k = 0; k < 3; ++k)
    for (int d = 0; d < o->ndim; ++d) {
      const int64_t b = st[k][d] * (k == o->index ? index_bytes : elem_bytes);
      o->step[k][d] = b < 0 ? -b : b;
    }
}

int64_t sl__row_index_lines(int m, int64_t column_bytes) {
  return m > 1 && column_bytes >= SL__LINE ? m : 1;
}

static int sl__named(const sl__row_order *o, int d) {
  return d >= 0 && (o->named >> d & 1u);
}

/* Whether the lookups of a row of n along some axis, beside its `open`
 * lines of the other operands, stay in L1 for the next row, a step along
 * near axis q. */
static int sl__near(const sl__row_order *o, int q, int64_t n, int64_t open) {
  return (o->near >> q & 1u) && open + n * o->near_lines[q] <= SL__NEAR_LINES;
}

/* The TLB's share of a row along r (SL__PAGE_STEP_COST). */
static int64_t sl__page_steps(const sl__row_order *o, int r) {
  int64_t paging = 0;
  paging += o->step[o->index][r] >= SL__PAGE;
  paging += o->step[o->lookup][r] >= SL__PAGE;
  return paging * o->shape[r] > SL__TLB_PAGES ? paging * SL__PAGE_STEP_COST : 0;
}

/*
 * An operand stepping less than a line along r streams through its lines;
 * one stepping farther opens a line an element, which the next row (one
 * step along q) reuses when q steps it less than a line and the row's open
 * lines fit the caches; else every element is a line fetched. The
 * looked-up operand's lines are not reused across a step along a named
 * axis: the next row's lookups land where the index says, in other lines,
 * unless the axis is near and they stay in L1 (sl__near).
 */
int64_t sl__row_axis_cost(const sl__row_order *o, int r, int q) {
  const int64_t n = o->shape[r];
  int64_t cost = 0, open = 0;
  for (int k = 0; k < 3; ++k) open += o->step[k][r] >= SL__LINE ? n : 0;
  for (int k = 0; k < 3; ++k) {
    const int64_t br = o->step[k][r];
    const int reused = q >= 0 && (k != o->lookup || !sl__named(o, q) ||
                                  sl__near(o, q, n, open));
    const int64_t bq = reused ? o->step[k][q] : SL__LINE;
    const int many = k == o->index && o->index_lines > 1;
    int64_t c = br;
    if (br >= SL__LINE)
      c = bq < SL__LINE && open <= SL__REUSE_LINES
              ? bq * (many ? SL__REUSED_INDEX_READ : 1)
              : SL__LINE;
    cost += k == o->index ? c * o->index_lines : c;
  }
  return cost + sl__page_steps(o, r) + o->row_start / (n > 0 ? n : 1);
}

int sl__row_axis(const sl__row_order *o) {
  const int last = o->ndim - 1;
  if (last < 1) return last;
  int best = last;
  int64_t best_cost = sl__row_axis_cost(o, last, last - 1) / 2;
  for (int d = 0; d < last; ++d) {
    if (!(o->movable >> d & 1u) || o->shape[d] < 2) continue;
    const int64_t cost = sl__row_axis_cost(o, d, last);
    if (cost < best_cost) best = d, best_cost = cost;
  }
  return best;
}

void sl__move_axis_last(int ndim, int r, const int64_t *v, int64_t *moved) {
  for (int d = 0, j = 0; d < ndim; ++d)
    if (d != r) moved[j++] = v[d];
  if (ndim > 0) moved[ndim - 1] = v[r];
}
