/* The walk of the gather-like ops (see gather_walk.h). */
#include "gather_walk.h"

#include "avx512_rows.h"
#include "walk.h"
#include "walk_order.h"

/* out[j] = x[j*xs + sum_k index[j*is + k*ik] * xd[k]] for j < n, k < m
 * (strides in elements; index is NULL when m == 0); wide: a contiguous row
 * of one index column starts with the AVX-512 loop. */
typedef void (*sl__gather_row)(char *out, int64_t os, const char *index,
                               int64_t is, int64_t ik, const char *x,
                               int64_t xs, const int64_t *xd, int m, int64_t n,
                               int wide);

/* One index column (all of gather) gets loops of its own: without the loop
 * over columns the compiler keeps the contiguous one tight. */
#define SL__GATHER_ROW(size, T, I)                                             \
  static void sl__gather_row_##size##_##I(                                     \
      char *o, int64_t os, const char *ip, int64_t is, int64_t ik,             \
      const char *xp, int64_t xs, const int64_t *xd, int m, int64_t n,         \
      int wide) {                                                              \
    T *out = (T *)o;                                                           \
    const I *index = (const I *)ip;                                            \
    const T *x = (const T *)xp;                                                \
    if (m == 1 && os == 1 && is == 1) { /* the common case */                  \
      const int64_t d = xd[0];                                                 \
      int64_t j =                                                              \
          wide ? sl__gather_avx512(size, sizeof(I) == 8, o, ip, xp, xs, d, n)  \
               : 0;                                                            \
      if (xs == 0) /* along the row's own axis: lookups in one row of x */     \
        for (; j < n; ++j) out[j] = x[(int64_t)index[j] * d];                  \
      else                                                                     \
        for (; j < n; ++j) out[j] = x[j * xs + (int64_t)index[j] * d];         \
      return;                                                                  \
    }                                                                          \
    if (m == 1) {                                                              \
      const int64_t d = xd[0];                                                 \
      for (int64_t j = 0; j < n; ++j)                                          \
        out[j * os] = x[j * xs + (int64_t)index[j * is] * d];                  \
      return;                                                                  \
    }                                                                          \
    if (m == 2) { /* gather_nd of a matrix's elements */                       \
      const int64_t d0 = xd[0], d1 = xd[1];                                    \
      for (int64_t j = 0; j < n; ++j) {                                        \
        const I *at = index + j * is;                                          \
        out[j * os] = x[j * xs + (int64_t)at[0] * d0 + (int64_t)at[ik] * d1];  \
      }                                                                        \
      return;                                                                  \
    }                                                                          \
    for (int64_t j = 0; j < n; ++j) {                                          \
      int64_t at = j * xs;                                                     \
      for (int k = 0; k < m; ++k)                                              \
        at += (int64_t)index[j * is + k * ik] * xd[k];                         \
      out[j * os] = x[at];                                                     \
    }                                                                          \
  }
SL__INDEXED_ROWS(SL__GATHER_ROW)
static const sl__gather_row sl__gather_rows[][2] =
    SL__INDEXED_TABLE(sl__gather_row);

/* A block of short rows of one index column: rows of n positions, row r's
 * out, index and x at r * (or, ir, xr) elements from the first's. A row
 * of a few positions costs the walk's step and a row call each, more than
 * its elements do; here a row costs a pointer step. */
typedef struct sl__gather_block {
  int64_t rows, n, os, is, xs, or_, ir, xr, d;
} sl__gather_block;
typedef void (*sl__gather_block_fn)(char *out, const char *index, const char *x,
                                    const sl__gather_block *b);

#define SL__GATHER_BLOCK(size, T, I)                                           \
  static void sl__gather_block_##size##_##I(                                   \
      char *o, const char *ip, const char *xp, const sl__gather_block *b) {    \
    T *out = (T *)o;                                                           \
    const I *index = (const I *)ip;                                            \
    const T *x = (const T *)xp;                                                \
    const int64_t n = b->n, os = b->os, is = b->is, xs = b->xs, d = b->d;      \
    for (int64_t r = 0; r < b->rows; ++r) {                                    \
      for (int64_t j = 0; j < n; ++j)                                          \
        out[j * os] = x[j * xs + (int64_t)index[j * is] * d];                  \
      out += b->or_;                                                           \
      index += b->ir;                                                          \
      x += b->xr;                                                              \
    }                                                                          \
  }
SL__INDEXED_ROWS(SL__GATHER_BLOCK)
static const sl__gather_block_fn sl__gather_blocks[][2] =
    SL__INDEXED_TABLE(sl__gather_block);

/*
 * Lookups that stay in one row of x land on its lines in random order,
 * which no hardware prefetcher follows, so each row's misses come one
 * latency at a time: fetching the next row while this one is gathered
 * streams it instead. Worth it for an x past the L3 (within it the
 * fetches cost more than the latency they hide), with a row at least a
 * page long (shorter rows stream by themselves as the walk moves on) and
 * within a core's L2, when the lookups reach at least every other line of
 * it (with a quarter of the lines, or rows of 2 KiB, it lost hand-written;
 * figures: commit 996c123 and docs/notes/benchmarks-2026.md, session ai).
 * The scatter-like ops' rows along their own axis gain as much
 * hand-written (out's row prefetched for writing), but not in the library
 * (paired bench runs within noise), where out = x has just passed through
 * the caches row by row; not kept there.
 */
#define SL__AHEAD_MIN_X_BYTES ((int64_t)SL__TH_AHEAD_X)
#define SL__AHEAD_MIN_ROW_BYTES ((int64_t)SL__TH_AHEAD_ROW)
#define SL__AHEAD_MAX_ROW_BYTES ((int64_t)256 << 10)
static int64_t sl__gather_ahead(int64_t x_bytes, int64_t row, int64_t lookups) {
  const int ok = x_bytes > SL__AHEAD_MIN_X_BYTES &&
                 row >= SL__AHEAD_MIN_ROW_BYTES &&
                 row <= SL__AHEAD_MAX_ROW_BYTES && lookups * 128 >= row;
  return ok ? row : 0;
}

static inline void sl__prefetch_bytes(const char *p, int64_t bytes) {
  for (int64_t k = 0; k < bytes; k += 64) __builtin_prefetch(p + k, 0, 3);
}

/* One call's loop set-up: the row loop, and the strides of out, index and
 * x over the positions (x moves with the position on the axes the index
 * does not name; xd: its strides on the named ones). */
typedef struct sl__gather_walk {
  const sl__gather_spec *spec;
  sl__gather_row row;
  sl__gather_block_fn block; /* short rows of one column, or NULL */
  int wide;      /* a row reaches past SL__GATHER_WIDE_MIN_BYTES of x */
  int64_t ahead; /* bytes of the next row's row of x to prefetch, or 0 */
  int64_t xst[SL_MAX_DIMS], xd[SL_MAX_DIMS];
  const int64_t *st[3];
  /* the chunks' walk: the positions' axes, one maybe moved last
   * (sl__gather_order), with the three strides */
  int64_t shape[SL_MAX_DIMS], moved_st[3][SL_MAX_DIMS];
  const int64_t *walk_st[3];
  int moved; /* whether an axis was moved */
} sl__gather_walk;

static void sl__gather_walk_init(sl__gather_walk *g,
                                 const sl__gather_spec *spec) {
  const sl_tensor *x = spec->x;
  size_t es = sl_dtype_size(x->dtype), is = sl_dtype_size(spec->index->dtype);
  g->spec = spec;
  g->row = sl__gather_rows[sl__elem_class(es)][is == 8];
  g->block =
      spec->m == 1 ? sl__gather_blocks[sl__elem_class(es)][is == 8] : NULL;
  /* The part of x a row of positions reaches: one row of x when the index
   * decides the positions' last axis (every lookup then stays in that
   * row), else all of x. The AVX-512 lead pays only past the caches. */
  const int last = spec->ndim - 1;
  const int in_row = spec->m == 1 && last >= 0 && spec->dims[0] == last;
  const int64_t reach = in_row ? x->shape[last] : sl__numel(x);
  g->wide = reach * (int64_t)es > SL__GATHER_WIDE_MIN_BYTES;
  /* The next row's row of x is one contiguous stretch of `reach`. */
  g->ahead =
      in_row && x->ndim == spec->ndim && x->strides[last] == 1
          ? sl__gather_ahead(sl__numel(x) * (int64_t)es, reach * (int64_t)es,
                             spec->index->shape[last])
          : 0;
  for (int d = 0; d < spec->ndim; ++d) g->xst[d] = x->strides[d];
  for (int k = 0; k < spec->m; ++k) {
    const int64_t axis = spec->dims[k];
    /* A 0-D gather names axis 0 of a scalar x: stride 0. */
    g->xd[k] = axis < x->ndim ? x->strides[axis] : 0;
    if (axis < spec->ndim) g->xst[axis] = 0;
  }
  g->st[0] = spec->out->strides;
  g->st[1] = spec->index->strides;
  g->st[2] = g->xst;
}

/* The bytes of x a row-major sweep reaches past which the rows go along
 * dim (a core's L2), and the longest such row: with a line of out, of the
 * index and of x open a position, 480 lines: an L1. */
#define SL__ALONG_DIM_SWEEP ((int64_t)SL__TH_ALONG_DIM)
#define SL__ALONG_DIM_ROW 160
/* The planes of x a row-major row of 64 positions may go through and
 * still be walked in order: an index sorted along dim, or of a few
 * values, keeps a few planes' lines open, and they stream. */
#define SL__ALONG_DIM_PLANES 8

/* Whether a step of `stride` elements of `bytes` stays within a line. */
static int sl__within_line(int64_t stride, size_t bytes) {
  const int64_t b = stride * (int64_t)bytes;
  return b > -64 && b < 64;
}

/* How many distinct values (at most 64) the index holds in a row of 64
 * positions along its last axis, the most over 8 rows spread over it:
 * how many planes of x a row-major walk's row goes through. */
static int sl__index_planes(const sl_tensor *index) {
  const int last = index->ndim - 1;
  const int64_t len = index->shape[last], rows = sl__numel(index) / len;
  const int64_t n = len < 64 ? len : 64, step = rows > 8 ? rows / 8 : 1;
  int most = 0;
  for (int64_t r = 0; r < rows; r += step) {
    int64_t seen[64];
    int distinct = 0;
    const int64_t at = sl__offset_linear(index, r * len);
    for (int64_t k = 0; k < n; ++k) {
      const int64_t v = sl__load_index(index, at + k * index->strides[last]);
      int j = 0;
      while (j < distinct && seen[j] != v) ++j;
      if (j == distinct) seen[distinct++] = v;
    }
    if (distinct > most) most = distinct;
  }
  return most;
}

/*
 * A gather along an axis before the last: a row-major walk comes back to
 * a line of x (one of its planes along dim) only after every position
 * after dim, over up to x.shape[dim] times their lines. Past a core's L2
 * every lookup is then a miss, where rows along dim, LibTorch's inner
 * loop, hold a few lines open that the next row, one step along the last
 * axis, uses again. (gather f16 x=160x159x159 through [150,123,144] along
 * dim 0: a 5.7 MB sweep, 0.62-0.68x LibTorch in 72-column panels.)
 */
static int sl__gather_along_dim(const sl__gather_spec *s) {
  const int last = s->ndim - 1;
  const int dim = s->m == 1 ? (int)s->dims[0] : -1;
  if (dim < 0 || dim >= last || s->x->ndim != s->ndim) return 0;
  const size_t es = sl_dtype_size(s->x->dtype);
  const int64_t n = s->index->shape[dim];
  /* one row or none, or an empty x: nothing to reorder (and no divisor) */
  if (n <= 1 || s->x->shape[dim] == 0 || s->index->shape[last] == 0) return 0;
  int64_t sweep = s->x->shape[dim] * (int64_t)es;
  for (int d = dim + 1; d <= last; ++d) sweep *= s->index->shape[d];
  const int64_t stored = sl__numel_stored(s->x) * (int64_t)es;
  /* The lookups a line of x gets over the walk, at random planes: with
   * fewer than 2 nothing is reused in either order. */
  const int64_t uses = n * (64 / (int64_t)es) / s->x->shape[dim];
  /* The next row is one element on in every operand: on the same lines. */
  const int near = sl__within_line(s->out->strides[last], es) &&
                   sl__within_line(s->index->strides[last],
                                   sl_dtype_size(s->index->dtype)) &&
                   sl__within_line(s->x->strides[last], es);
  return near && (sweep < stored ? sweep : stored) > SL__ALONG_DIM_SWEEP &&
         n <= SL__ALONG_DIM_ROW && uses >= 2 &&
         sl__index_planes(s->index) > SL__ALONG_DIM_PLANES;
}

/*
 * The chunks walk the positions in row-major order, each row along the
 * last axis, unless rows along another axis cost under half as many lines
 * (sl__row_axis_cost): that axis then becomes the rows' one, the others
 * staying in row-major order. Through a column-major index a step along
 * the last axis moves the index a line or more, and the next row's lines
 * are far away; along its first axis the index is read in order and out's
 * lines stay open for the next row. (The gather f16 x=52^4 through a
 * column-major index [40,52,32,27] along dim 1 ran at 0.60-0.77x
 * LibTorch, whose inner loop is along dim, the i16 one of x=181^3 through
 * [137,148,173]:t along dim 0 at 0.45-0.68x.)
 */
static void sl__gather_order(sl__gather_walk *g) {
  const sl__gather_spec *s = g->spec;
  const int K = s->ndim, last = K - 1;
  const int64_t *shape = s->index->shape;
  const int64_t es = (int64_t)sl_dtype_size(s->x->dtype),
                ies = (int64_t)sl_dtype_size(s->index->dtype);
  sl__row_order o = {.ndim = K, .shape = shape, .index = 1, .lookup = 2};
  o.index_lines = sl__row_index_lines(s->m, s->ik * ies);
  o.movable = ~0u;
  for (int k = 0; k < s->m; ++k)
    if (s->dims[k] < 32) o.named |= 1u << s->dims[k];
  sl__row_order_steps(&o, g->st, es, ies);
  int best = sl__row_axis(&o);
  if (best == last && sl__gather_along_dim(s)) best = (int)s->dims[0];
  g->moved = best != last;
  if (g->moved) g->ahead = 0; /* its rows of x are the last axis' */
  for (int k = 0; k < 3; ++k) {
    sl__move_axis_last(K, best, g->st[k], g->moved_st[k]);
    g->walk_st[k] = g->moved_st[k];
  }
  sl__move_axis_last(K, best, shape, g->shape);
}

/* Rows of at most this many positions go a block at a time: up to 64 the
 * walk's step and a row call per row cost more than the block loop's
 * general strides (rows of 20-48 positions, docs/notes). */
#define SL__SHORT_ROW 64

/* The positions of the block of whole rows walk w is at (sl__walk_rows),
 * at most `left`, by g->block when there are two rows or more: how many
 * it ran (0: none). */
static int64_t sl__gather_walk_block(const sl__gather_walk *g, sl__walk *w,
                                     const int64_t *base, int64_t left) {
  const sl__gather_spec *s = g->spec;
  sl__gather_block b;
  b.rows = sl__walk_rows(w, left, &b.n);
  if (b.rows < 2) return 0;
  b.os = sl__walk_step(w, 0), b.is = sl__walk_step(w, 1);
  b.xs = sl__walk_step(w, 2), b.d = g->xd[0];
  b.or_ = sl__walk_row_step(w, 0), b.ir = sl__walk_row_step(w, 1);
  b.xr = sl__walk_row_step(w, 2);
  g->block(sl__ptr(s->out, base[0] + sl__walk_at(w, 0)),
           sl__ptr(s->index, base[1] + sl__walk_at(w, 1)),
           sl__ptr(s->x, base[2] + sl__walk_at(w, 2)), &b);
  sl__walk_next_rows(w, b.rows);
  return b.rows * b.n;
}

/* Runs `left` positions of walk w, whose offsets start at base[]. */
static void sl__gather_walk_rows(const sl__gather_walk *g, sl__walk *w,
                                 const int64_t *base, int64_t left) {
  const sl__gather_spec *s = g->spec;
  while (left > 0) {
    if (w->len <= SL__SHORT_ROW && g->block && !g->ahead) {
      const int64_t done = sl__gather_walk_block(g, w, base, left);
      left -= done;
      if (done) continue;
    }
    const int64_t n = sl__walk_span(w, left);
    char *out = sl__ptr(s->out, base[0] + sl__walk_at(w, 0));
    const char *index = sl__ptr(s->index, base[1] + sl__walk_at(w, 1));
    const char *x = sl__ptr(s->x, base[2] + sl__walk_at(w, 2));
    const int64_t os = sl__walk_step(w, 0), is = sl__walk_step(w, 1),
                  xs = sl__walk_step(w, 2);
    sl__walk_next(w);
    left -= n;
    if (g->ahead && left > 0)
      sl__prefetch_bytes(sl__ptr(s->x, base[2] + sl__walk_at(w, 2)), g->ahead);
    g->row(out, os, index, is, s->ik, x, xs, g->xd, s->m, n, g->wide);
  }
}

/* The positions [begin, end) in row-major order (an sl__for_chunks
 * body). */
static void sl__gather_range(void *user, int64_t begin, int64_t end) {
  const sl__gather_walk *g = user;
  static const int64_t zero[3] = {0, 0, 0};
  sl__walk w;
  sl__walk_init(&w, g->spec->ndim, g->shape, 3, g->walk_st, begin);
  sl__gather_walk_rows(g, &w, zero, end - begin);
}

/* The columns [a0, a1) of the positions' last axis (an sl__for_panels
 * body). */
static void sl__gather_panel(void *user, int64_t a0, int64_t a1) {
  const sl__gather_walk *g = user;
  const int K = g->spec->ndim;
  int64_t base[3];
  sl__walk w;
  int64_t all = sl__walk_slab(&w, K, g->spec->index->shape, 3, g->st, K - 1, a0,
                              a1, base);
  sl__gather_walk_rows(g, &w, base, all);
}

/* Panels when the positions' last axis is one x moves along and x's
 * columns reach more than a cache holds: every row of a large x is then a
 * DRAM miss away. A hand-written gather of 4096x4096 f32 rows on 2
 * threads: 46 ms in row order, 27-30 ms in 2-8 MiB panels. What x's
 * memory holds decides, not its shape: a broadcast x of 93 MB by shape
 * and 412 KB in memory went by panels of 27 columns, at 0.37x LibTorch. */
void sl__gather_walk_run(const sl__gather_spec *spec, int threads) {
  const sl_tensor *x = spec->x;
  sl__gather_walk g;
  sl__gather_walk_init(&g, spec);
  sl__gather_order(&g);
  const int last = spec->ndim - 1;
  int moves = last >= 1 && !g.moved;
  for (int k = 0; moves && k < spec->m; ++k) moves = spec->dims[k] != last;
  const size_t es = sl_dtype_size(x->dtype);
  const int64_t panel = moves
                            ? sl__panel_width(sl__numel_stored(x) * (int64_t)es,
                                              x->shape[last], es)
                            : 0;
  const int64_t positions = sl__numel(spec->out);
  if (panel && spec->index->shape[last] > panel)
    sl__for_panels(threads, positions, spec->index->shape[last], panel, es,
                   sl__gather_panel, &g);
  else
    sl__for_chunks(threads, positions, sl__gather_range, &g);
}
