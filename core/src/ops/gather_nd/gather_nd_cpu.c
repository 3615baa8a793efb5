/* gather_nd on the CPU: serial and OpenMP over output positions (no
 * conflicts: every output element has exactly one writer). The positions
 * are walked a row at a time (walk.h) with one typed loop per element size
 * and index dtype (and x's size: as in gather, the rows of a large x start
 * with AVX-512 gathers). */
#include "avx512_rows.h"
#include "ops/gather_nd/nd_index.h"
#include "walk.h"

/* out[j] = x[j*xs + sum_k index[j, k] * xd[k]] for j < n, k < m (strides in
 * elements; index[j, k] is at j*is + k*ik); wide: a row of one index
 * column, contiguous out and index, starts with gather's AVX-512 loop
 * (avx512_rows.h). */
typedef void (*sl__gather_nd_row)(char *out, int64_t os, const char *index,
                                  int64_t is, int64_t ik, const char *x,
                                  int64_t xs, const int64_t *xd, int m,
                                  int64_t n, int wide);

#define SL__GATHER_ND_ROW(size, T, I)                                          \
  static void sl__gather_nd_row_##size##_##I(                                  \
      char *o, int64_t os, const char *ip, int64_t is, int64_t ik,             \
      const char *xp, int64_t xs, const int64_t *xd, int m, int64_t n,         \
      int wide) {                                                              \
    T *out = (T *)o;                                                           \
    const I *index = (const I *)ip;                                            \
    const T *x = (const T *)xp;                                                \
    int64_t j =                                                                \
        wide && m == 1 && os == 1 && is == 1                                   \
            ? sl__gather_avx512(size, sizeof(I) == 8, o, ip, xp, xs, xd[0], n) \
            : 0;                                                               \
    for (; j < n; ++j) {                                                       \
      int64_t at = j * xs; /* index is NULL when m == 0 */                     \
      for (int k = 0; k < m; ++k)                                              \
        at += (int64_t)index[j * is + k * ik] * xd[k];                         \
      out[j * os] = x[at];                                                     \
    }                                                                          \
  }
SL__INDEXED_ROWS(SL__GATHER_ND_ROW)
static const sl__gather_nd_row sl__gather_nd_rows[][2] =
    SL__INDEXED_TABLE(sl__gather_nd_row);

/* One gather_nd call's loop set-up: the row loop, and the strides of out,
 * index and x over the positions (x moves with the position on the axes
 * dims does not name; xd: its strides on the named ones). */
typedef struct sl__gather_nd_walk {
  const sl_call *c;
  sl__gather_nd_row row;
  int wide; /* x is past SL__GATHER_WIDE_MIN_BYTES */
  int64_t xst[SL_MAX_DIMS], xd[SL_MAX_DIMS];
  const int64_t *st[3];
} sl__gather_nd_walk;

static void sl__gather_nd_walk_init(sl__gather_nd_walk *g, const sl_call *c) {
  const sl_tensor *x = &c->arg[0], *index = &c->arg[1], *out = &c->arg[2];
  size_t es = sl_dtype_size(x->dtype), is = sl_dtype_size(index->dtype);
  g->c = c;
  g->row = sl__gather_nd_rows[sl__elem_class(es)][is == 8];
  g->wide = sl__numel(x) * (int64_t)es > SL__GATHER_WIDE_MIN_BYTES;
  for (int d = 0; d < index->ndim - 1; ++d) g->xst[d] = x->strides[d];
  for (int k = 0; k < c->p.ndims; ++k) {
    g->xd[k] = x->strides[c->p.dims[k]];
    g->xst[c->p.dims[k]] = 0;
  }
  g->st[0] = out->strides;
  g->st[1] = index->strides;
  g->st[2] = g->xst;
}

/* Runs `left` positions of walk w, whose offsets start at base[]. */
static void sl__gather_nd_walk_rows(const sl__gather_nd_walk *g, sl__walk *w,
                                    const int64_t *base, int64_t left) {
  const sl_tensor *x = &g->c->arg[0], *index = &g->c->arg[1],
                  *out = &g->c->arg[2];
  const int64_t ik = index->strides[index->ndim - 1];
  for (int64_t n; left > 0; left -= n, sl__walk_next(w)) {
    n = sl__walk_span(w, left);
    g->row(sl__ptr(out, base[0] + sl__walk_at(w, 0)), sl__walk_step(w, 0),
           sl__ptr(index, base[1] + sl__walk_at(w, 1)), sl__walk_step(w, 1), ik,
           sl__ptr(x, base[2] + sl__walk_at(w, 2)), sl__walk_step(w, 2), g->xd,
           g->c->p.ndims, n, g->wide);
  }
}

/* Gathers the output positions [begin, end) in row-major order (an
 * sl__for_chunks body). */
static void sl__gather_nd_range(void *user, int64_t begin, int64_t end) {
  const sl__gather_nd_walk *g = user;
  const sl_tensor *index = &g->c->arg[1];
  static const int64_t zero[3] = {0, 0, 0};
  sl__walk w;
  sl__walk_init(&w, index->ndim - 1, index->shape, 3, g->st, begin);
  sl__gather_nd_walk_rows(g, &w, zero, end - begin);
}

/* Gathers the columns [a0, a1) of the positions' last axis (an
 * sl__for_panels body). */
static void sl__gather_nd_panel(void *user, int64_t a0, int64_t a1) {
  const sl__gather_nd_walk *g = user;
  const sl_tensor *index = &g->c->arg[1];
  const int K = index->ndim - 1;
  int64_t base[3];
  sl__walk w;
  int64_t all =
      sl__walk_slab(&w, K, index->shape, 3, g->st, K - 1, a0, a1, base);
  sl__gather_nd_walk_rows(g, &w, base, all);
}

/* Panels (walk.h) when the positions' last axis is one x moves along and
 * x's columns reach more than a cache holds, as in gather. */
static void sl__gather_nd_cpu(sl_call *c, int threads) {
  const sl_tensor *x = &c->arg[0], *index = &c->arg[1], *out = &c->arg[2];
  sl__gather_nd_walk g;
  sl__gather_nd_walk_init(&g, c);
  const int last = index->ndim - 2; /* the positions' last axis */
  int moves = last >= 1;
  for (int k = 0; moves && k < c->p.ndims; ++k) moves = c->p.dims[k] != last;
  const size_t es = sl_dtype_size(x->dtype);
  const int64_t panel =
      moves ? sl__panel_width(sl__numel(x) * (int64_t)es, x->shape[last], es)
            : 0;
  if (panel && index->shape[last] > panel)
    sl__for_panels(threads, sl__numel(out), index->shape[last], panel, es,
                   sl__gather_nd_panel, &g);
  else
    sl__for_chunks(threads, sl__numel(out), sl__gather_nd_range, &g);
}

sl_status sl_gather_nd_cpu_serial(sl_ctx *ctx, sl_call *c) {
  (void)ctx;
  sl__gather_nd_cpu(c, 1);
  return SL_STATUS_OK;
}

sl_status sl_gather_nd_cpu_omp(sl_ctx *ctx, sl_call *c) {
  sl__gather_nd_cpu(c, sl__threads(ctx));
  return SL_STATUS_OK;
}
