/* gather_nd on the CPU: serial and OpenMP over output positions (no
 * conflicts: every output element has exactly one writer). The positions
 * are walked a row at a time (walk.h) with one typed loop per element size
 * and index dtype. */
#include "ops/gather_nd/nd_index.h"
#include "walk.h"

/* out[j] = x[j*xs + sum_k index[j, k] * xd[k]] for j < n, k < m (strides in
 * elements; index[j, k] is at j*is + k*ik). */
typedef void (*sl__gather_nd_row)(char *out, int64_t os, const char *index,
                                  int64_t is, int64_t ik, const char *x,
                                  int64_t xs, const int64_t *xd, int m,
                                  int64_t n);

#define SL__GATHER_ND_ROW(size, T, I)                                          \
  static void sl__gather_nd_row_##size##_##I(                                  \
      char *o, int64_t os, const char *ip, int64_t is, int64_t ik,             \
      const char *xp, int64_t xs, const int64_t *xd, int m, int64_t n) {       \
    T *out = (T *)o;                                                           \
    const I *index = (const I *)ip;                                            \
    const T *x = (const T *)xp;                                                \
    for (int64_t j = 0; j < n; ++j) {                                          \
      int64_t at = j * xs; /* index is NULL when m == 0 */                     \
      for (int k = 0; k < m; ++k)                                              \
        at += (int64_t)index[j * is + k * ik] * xd[k];                         \
      out[j * os] = x[at];                                                     \
    }                                                                          \
  }
SL__INDEXED_ROWS(SL__GATHER_ND_ROW)
static const sl__gather_nd_row sl__gather_nd_rows[][2] =
    SL__INDEXED_TABLE(sl__gather_nd_row);

/* Gathers the output positions [begin, end) in row-major order (an
 * sl__for_chunks body; user is the call). */
static void sl__gather_nd_range(void *user, int64_t begin, int64_t end) {
  const sl_call *c = user;
  const sl_tensor *x = &c->arg[0], *index = &c->arg[1], *out = &c->arg[2];
  size_t es = sl_dtype_size(x->dtype), is = sl_dtype_size(index->dtype);
  sl__gather_nd_row row = sl__gather_nd_rows[sl__elem_class(es)][is == 8];
  int K = index->ndim - 1, m = c->p.ndims;
  /* x moves with the position on the axes dims does not name. */
  int64_t xst[SL_MAX_DIMS], xd[SL_MAX_DIMS];
  for (int d = 0; d < K; ++d) xst[d] = x->strides[d];
  for (int k = 0; k < m; ++k) {
    xd[k] = x->strides[c->p.dims[k]];
    xst[c->p.dims[k]] = 0;
  }
  const int64_t *st[3] = {out->strides, index->strides, xst};
  sl__walk w;
  sl__walk_init(&w, K, index->shape, 3, st, begin);
  for (int64_t left = end - begin, n; left > 0; left -= n, sl__walk_next(&w)) {
    n = sl__walk_span(&w, left);
    row(sl__ptr(out, sl__walk_at(&w, 0)), sl__walk_step(&w, 0),
        sl__ptr(index, sl__walk_at(&w, 1)), sl__walk_step(&w, 1),
        index->strides[K], sl__ptr(x, sl__walk_at(&w, 2)), sl__walk_step(&w, 2),
        xd, m, n);
  }
}

sl_status sl_gather_nd_cpu_serial(sl_ctx *ctx, sl_call *c) {
  (void)ctx;
  sl__for_chunks(1, sl__numel(&c->arg[2]), sl__gather_nd_range, c);
  return SL_STATUS_OK;
}

sl_status sl_gather_nd_cpu_omp(sl_ctx *ctx, sl_call *c) {
  sl__for_chunks(sl__threads(ctx), sl__numel(&c->arg[2]), sl__gather_nd_range,
                 c);
  return SL_STATUS_OK;
}
