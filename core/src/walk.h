/*
 * Row-major walks over a shape, one row (the last axis) at a time, tracking
 * the element offsets of up to SL__WALK_MAX strided tensors. The data-
 * movement kernels run their inner loops over one row with constant
 * strides: no division and no dtype switch per element, and contiguous rows
 * become plain loops the compiler vectorizes. Adjacent axes that every
 * tensor lays out as one (stride[d] == stride[d+1] * shape[d+1]) are merged
 * first, so a contiguous walk is a single long row.
 */
#ifndef SL_WALK_H
#define SL_WALK_H

#include "sl_internal.h"

#define SL__WALK_MAX 4

typedef struct sl__walk {
  int ndim; /* axes after merging, >= 1 (a scalar walks as [1]) */
  int nt;   /* tensors tracked */
  int64_t shape[SL_MAX_DIMS];
  int64_t st[SL__WALK_MAX][SL_MAX_DIMS]; /* strides, in elements */
  int64_t idx[SL_MAX_DIMS];              /* current row; idx[ndim-1] unused */
  int64_t off[SL__WALK_MAX]; /* offset of the current row's column 0 */
  int64_t len;               /* row length: shape[ndim-1] */
  int64_t j;                 /* first column still to visit in this row */
} sl__walk;

/*
 * Starts a walk of `shape` (rank ndim, 0 for a scalar) at row-major
 * position `start`. strides[t] are tensor t's strides over the walked shape
 * (an axis a tensor does not move along has stride 0).
 */
void sl__walk_init(sl__walk *w, int ndim, const int64_t *shape, int nt,
                   const int64_t *const *strides, int64_t start);

/*
 * A walk of the slab of `shape` whose coordinate on `axis` lies in
 * [a0, a1) (the whole shape when axis < 0). base[t] gets tensor t's offset
 * of the slab's first element (add it to sl__walk_at); returns the number
 * of positions in the slab.
 */
int64_t sl__walk_slab(sl__walk *w, int ndim, const int64_t *shape, int nt,
                      const int64_t *const *strides, int axis, int64_t a0,
                      int64_t a1, int64_t *base);

/*
 * How a scatter-like op splits its positions (a `shape` of rank ndim) among
 * threads: positions that differ on an axis not in `fixed` (a bit mask: for
 * scatter, dim; for scatter_nd, the indexed axes) never write the same
 * output element, so each thread takes a slab along such an axis (the
 * outermost one with at least `threads` positions, else the longest) and
 * walks it in row-major
 * order: every output element still sees its writes in row-major order.
 * When the axis is out's unit-stride axis, the cuts fall on 64-byte lines of
 * out, so that no cache line is written by two threads. team == 1 (and
 * axis == -1) when there is nothing to split.
 */
#define SL__MAX_TEAM 256
typedef struct sl__slabs {
  int axis, team;
  int64_t cut[SL__MAX_TEAM + 1]; /* slab t is [cut[t], cut[t+1]) on axis */
} sl__slabs;
void sl__slabs_plan(sl__slabs *s, int ndim, const int64_t *shape,
                    const sl_tensor *out, unsigned fixed, int threads);

/*
 * Panels of a walk along the last axis, for kernels that reach any row of a
 * large tensor (the scatter-like ops' out, gather's x) from every position:
 * walking `cols` columns row by row, each column can touch its
 * bytes / cols bytes of that tensor anywhere, and once the reachable part
 * outgrows the cache every access is a DRAM miss. A panel of columns keeps
 * the reachable part under SL__PANEL_BYTES while the index sweeps all rows.
 * Returns the panel width in columns (a multiple of a 64-byte line, at
 * least SL__PANEL_MIN_BYTES wide: narrower rows stream badly), or 0 when
 * the whole walk already fits. A hand-written scatter-add into 4096x4096
 * f32 on 2 threads: 63 ms as two column halves, 42 ms in 4 MiB panels.
 */
#define SL__PANEL_BYTES ((int64_t)4 << 20)
#define SL__PANEL_MIN_BYTES 256
static inline int64_t sl__panel_width(int64_t bytes, int64_t cols, size_t es) {
  if (cols <= 0 || bytes <= SL__PANEL_BYTES || es == 0 || es > 64) return 0;
  const int64_t line = 64 / (int64_t)es, per_col = bytes / cols;
  int64_t w = per_col > 0 ? SL__PANEL_BYTES / per_col : cols;
  if (w * (int64_t)es < SL__PANEL_MIN_BYTES)
    w = SL__PANEL_MIN_BYTES / (int64_t)es;
  w = w / line * line;
  return w > 0 && w < cols ? w : 0;
}

/* Number of columns to visit in the current row, at most `left`. */
static inline int64_t sl__walk_span(const sl__walk *w, int64_t left) {
  int64_t n = w->len - w->j;
  return n < left ? n : left;
}

/* Column stride of tensor t: its stride along the walked rows. */
static inline int64_t sl__walk_step(const sl__walk *w, int t) {
  return w->st[t][w->ndim - 1];
}

/* Moves to column 0 of the next row. */
static inline void sl__walk_next(sl__walk *w) {
  w->j = 0;
  for (int d = w->ndim - 2; d >= 0; --d) {
    for (int t = 0; t < w->nt; ++t) w->off[t] += w->st[t][d];
    if (++w->idx[d] < w->shape[d]) return;
    for (int t = 0; t < w->nt; ++t) w->off[t] -= w->idx[d] * w->st[t][d];
    w->idx[d] = 0;
  }
}

/*
 * Rows the walk can hand over as one block from here, with `left`
 * positions still to visit: whole rows of the innermost plane when the walk
 * stands at a row start, else the rest of this row (one row of *n
 * columns). *n gets the columns per row. Row-block kernels take a plane at
 * a time, so short rows do not cost a call each.
 */
static inline int64_t sl__walk_rows(const sl__walk *w, int64_t left,
                                    int64_t *n) {
  if (w->j > 0 || left < w->len || w->ndim < 2) {
    *n = sl__walk_span(w, left);
    return 1;
  }
  int64_t rows = w->shape[w->ndim - 2] - w->idx[w->ndim - 2];
  *n = w->len;
  return left / w->len < rows ? left / w->len : rows;
}

/* Row stride of tensor t: its stride between consecutive rows of a block
 * (0 for a walk of one row). */
static inline int64_t sl__walk_row_step(const sl__walk *w, int t) {
  return w->ndim < 2 ? 0 : w->st[t][w->ndim - 2];
}

/* Moves past a block of `rows` rows (sl__walk_rows) to the next row start. */
static inline void sl__walk_next_rows(sl__walk *w, int64_t rows) {
  if (rows == 1 || w->ndim < 2) {
    sl__walk_next(w);
    return;
  }
  int d = w->ndim - 2;
  w->idx[d] += rows - 1;
  for (int t = 0; t < w->nt; ++t) w->off[t] += (rows - 1) * w->st[t][d];
  sl__walk_next(w);
}

/* Element offset of tensor t at the current column. */
static inline int64_t sl__walk_at(const sl__walk *w, int t) {
  return w->off[t] + w->j * sl__walk_step(w, t);
}

/*
 * Elements as plain bits, one type per element size, for the kernels that
 * only move data: SL__ELEM_TYPES(X) instantiates X(size, type) for each,
 * and sl__elem_class maps a dtype's size to its position in that list.
 */
typedef struct sl__e16 {
  uint64_t lo, hi;
} sl__e16;
#define SL__ELEM_TYPES(X)                                                      \
  X(1, uint8_t) X(2, uint16_t) X(4, uint32_t) X(8, uint64_t) X(16, sl__e16)
/*
 * The same for loops typed by element and index (i32, i64):
 * SL__INDEXED_ROWS(ROW) instantiates ROW(size, type, I) for every element
 * type and I = int32_t, int64_t, where ROW defines a function named
 * <name>_<size>_<I>; SL__INDEXED_TABLE(name) is the initializer of a
 * table [element class][index is i64] of those functions.
 */
#define SL__ELEM_TYPES_ARG(X, a)                                               \
  X(1, uint8_t, a)                                                             \
  X(2, uint16_t, a) X(4, uint32_t, a) X(8, uint64_t, a) X(16, sl__e16, a)
#define SL__BOTH_INDEX_ROWS(size, T, ROW)                                      \
  ROW(size, T, int32_t) ROW(size, T, int64_t)
#define SL__BOTH_INDEX_ENTRY(size, T, name)                                    \
  {name##_##size##_int32_t, name##_##size##_int64_t},
#define SL__INDEXED_ROWS(ROW) SL__ELEM_TYPES_ARG(SL__BOTH_INDEX_ROWS, ROW)
#define SL__INDEXED_TABLE(name)                                                \
  { SL__ELEM_TYPES_ARG(SL__BOTH_INDEX_ENTRY, name) }
static inline int sl__elem_class(size_t size) {
  return size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : size == 8 ? 3 : 4;
}

/* Chunk t of `parts` near-equal chunks of [0, n). */
static inline void sl__chunk(int64_t n, int parts, int t, int64_t *begin,
                             int64_t *end) {
  *begin = n / parts * t + (t < n % parts ? t : n % parts);
  *end = *begin + n / parts + (t < n % parts ? 1 : 0);
}

/* The columns [b, e) in near-equal panels of at most `panel` columns
 * (sl__panel_width): how many, and panel k of `count` as [*p0, *p1). */
static inline int64_t sl__panel_count(int64_t b, int64_t e, int64_t panel) {
  return (e - b + panel - 1) / panel;
}
static inline void sl__panel_at(int64_t b, int64_t e, int64_t count, int64_t k,
                                int64_t *p0, int64_t *p1) {
  sl__chunk(e - b, (int)count, (int)k, p0, p1);
  *p0 += b;
  *p1 += b;
}

/*
 * Threads worth starting for n elements of streaming work: below ~16k
 * elements per thread (SL__TH_TEAM, thresholds.def), starting a team costs
 * more than it saves.
 */
static inline int sl__team(int threads, int64_t n) {
  int64_t most = n / SL__TH_TEAM;
  if (most < 1) return 1;
  return most < threads ? (int)most : threads;
}

/*
 * Runs fn over near-equal chunks [begin, end) of [0, n), one per thread of
 * a team sized by sl__team (threads = 1: one call on this thread). For
 * kernels whose every output element has one writer.
 */
void sl__for_chunks(int threads, int64_t n,
                    void (*fn)(void *user, int64_t begin, int64_t end),
                    void *user);
/* The same over n units of work that hold `elements` elements in all (a
 * unit: a row of tiles), the team sized by the elements, at most one
 * thread a unit. */
void sl__for_units(int threads, int64_t elements, int64_t n,
                   void (*fn)(void *user, int64_t begin, int64_t end),
                   void *user);

/*
 * The panel walk of a gather-like kernel (every output element has one
 * writer) over n positions whose last axis has `cols` columns: the columns
 * are cut among a team sized by sl__team, on multiples of a 64-byte line
 * of `es`-byte elements, and each thread's share into near-equal panels of
 * at most `panel` columns (sl__panel_width), each handed to fn as the
 * column range [a0, a1) in turn.
 */
void sl__for_panels(int threads, int64_t n, int64_t cols, int64_t panel,
                    size_t es, void (*fn)(void *user, int64_t a0, int64_t a1),
                    void *user);

/*
 * The split of a slices kernel (index_reduce's by whole slices and its
 * backward's): `outer` blocks of `inner` columns, `work` elements in all.
 * fn gets blocks [o0, o1) x columns [j0, j1): by blocks when there are at
 * least `threads` of them, else by columns (few blocks of long slices);
 * either way every column of every block has one thread, which meets the
 * index in order. Small work, or too few blocks and columns, runs as one
 * call on this thread.
 */
typedef void (*sl__blocks_fn)(const void *user, int64_t o0, int64_t o1,
                              int64_t j0, int64_t j1);
void sl__for_blocks(int threads, int64_t outer, int64_t inner, int64_t work,
                    sl__blocks_fn fn, const void *user);

#endif /* SL_WALK_H */
