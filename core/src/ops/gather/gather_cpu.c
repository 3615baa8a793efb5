/* gather on the CPU: serial and OpenMP over output elements (no conflicts).
 * The output is walked a row at a time (walk.h); each row is one typed loop
 * chosen once per call by element size and index dtype; the contiguous
 * rows of a large x start with AVX-512 gathers. */
#include "avx512_rows.h"
#include "walk.h"

/* out[j] = x[j*xs + index[j]*xd] for j < n (strides in elements); wide:
 * a contiguous row starts with the AVX-512 loop (avx512_rows.h). */
typedef void (*sl__gather_row)(char *out, int64_t os, const char *index,
                               int64_t is, const char *x, int64_t xs,
                               int64_t xd, int64_t n, int wide);

#define SL__GATHER_ROW(size, T, I)                                             \
  static void sl__gather_row_##size##_##I(                                     \
      char *o, int64_t os, const char *ip, int64_t is, const char *xp,         \
      int64_t xs, int64_t xd, int64_t n, int wide) {                           \
    T *out = (T *)o;                                                           \
    const I *index = (const I *)ip;                                            \
    const T *x = (const T *)xp;                                                \
    if (os == 1 && is == 1) { /* the common case, as its own loop */           \
      int64_t j =                                                              \
          wide ? sl__gather_avx512(size, sizeof(I) == 8, o, ip, xp, xs, xd, n) \
               : 0;                                                            \
      for (; j < n; ++j) out[j] = x[j * xs + (int64_t)index[j] * xd];          \
      return;                                                                  \
    }                                                                          \
    for (int64_t j = 0; j < n; ++j)                                            \
      out[j * os] = x[j * xs + (int64_t)index[j * is] * xd];                   \
  }
SL__INDEXED_ROWS(SL__GATHER_ROW)
static const sl__gather_row sl__gather_rows[][2] =
    SL__INDEXED_TABLE(sl__gather_row);

/* One gather call's loop set-up: the row loop, and the strides of out,
 * index and x over index's shape (x moves with index on every axis but
 * dim, where the value decides: xd). */
typedef struct sl__gather_walk {
  const sl_call *c;
  sl__gather_row row;
  int wide; /* x is past SL__GATHER_WIDE_MIN_BYTES */
  int64_t xst[SL_MAX_DIMS], xd;
  const int64_t *st[3];
} sl__gather_walk;

static void sl__gather_walk_init(sl__gather_walk *g, const sl_call *c) {
  const sl_tensor *x = &c->arg[0], *index = &c->arg[1], *out = &c->arg[2];
  size_t es = sl_dtype_size(x->dtype), is = sl_dtype_size(index->dtype);
  int dim = (int)c->p.dim;
  g->c = c;
  g->row = sl__gather_rows[sl__elem_class(es)][is == 8];
  g->wide = sl__numel(x) * (int64_t)es > SL__GATHER_WIDE_MIN_BYTES;
  for (int d = 0; d < index->ndim; ++d)
    g->xst[d] = d == dim ? 0 : x->strides[d];
  g->xd = x->ndim ? x->strides[dim] : 0;
  g->st[0] = out->strides;
  g->st[1] = index->strides;
  g->st[2] = g->xst;
}

/* Runs `left` positions of walk w, whose offsets start at base[]. */
static void sl__gather_walk_rows(const sl__gather_walk *g, sl__walk *w,
                                 const int64_t *base, int64_t left) {
  const sl_tensor *x = &g->c->arg[0], *index = &g->c->arg[1],
                  *out = &g->c->arg[2];
  for (int64_t n; left > 0; left -= n, sl__walk_next(w)) {
    n = sl__walk_span(w, left);
    g->row(sl__ptr(out, base[0] + sl__walk_at(w, 0)), sl__walk_step(w, 0),
           sl__ptr(index, base[1] + sl__walk_at(w, 1)), sl__walk_step(w, 1),
           sl__ptr(x, base[2] + sl__walk_at(w, 2)), sl__walk_step(w, 2), g->xd,
           n, g->wide);
  }
}

/* Gathers output elements [begin, end) in row-major order of index (an
 * sl__for_chunks body). */
static void sl__gather_range(void *user, int64_t begin, int64_t end) {
  const sl__gather_walk *g = user;
  const sl_tensor *index = &g->c->arg[1];
  static const int64_t zero[3] = {0, 0, 0};
  sl__walk w;
  sl__walk_init(&w, index->ndim, index->shape, 3, g->st, begin);
  sl__gather_walk_rows(g, &w, zero, end - begin);
}

/* Gathers the columns [a0, a1) of index's last axis (an sl__for_panels
 * body). */
static void sl__gather_panel(void *user, int64_t a0, int64_t a1) {
  const sl__gather_walk *g = user;
  const sl_tensor *index = &g->c->arg[1];
  int64_t base[3];
  sl__walk w;
  int64_t all = sl__walk_slab(&w, index->ndim, index->shape, 3, g->st,
                              index->ndim - 1, a0, a1, base);
  sl__gather_walk_rows(g, &w, base, all);
}

/* Panels when dim is not the last axis and x's columns reach more than a
 * cache holds: every row of a large x is then a DRAM miss away. A
 * hand-written gather of 4096x4096 f32 rows on 2 threads: 46 ms in row
 * order, 27-30 ms in 2-8 MiB panels. */
static void sl__gather_cpu(sl_call *c, int threads) {
  const sl_tensor *x = &c->arg[0], *index = &c->arg[1];
  sl__gather_walk g;
  sl__gather_walk_init(&g, c);
  const int last = index->ndim - 1;
  const size_t es = sl_dtype_size(x->dtype);
  const int64_t panel =
      last >= 1 && c->p.dim != last
          ? sl__panel_width(sl__numel(x) * (int64_t)es, x->shape[last], es)
          : 0;
  if (panel && index->shape[last] > panel)
    sl__for_panels(threads, sl__numel(index), index->shape[last], panel, es,
                   sl__gather_panel, &g);
  else
    sl__for_chunks(threads, sl__numel(index), sl__gather_range, &g);
}

sl_status sl_gather_cpu_serial(sl_ctx *ctx, sl_call *c) {
  (void)ctx;
  sl__gather_cpu(c, 1);
  return SL_STATUS_OK;
}

sl_status sl_gather_cpu_omp(sl_ctx *ctx, sl_call *c) {
  sl__gather_cpu(c, sl__threads(ctx));
  return SL_STATUS_OK;
}
