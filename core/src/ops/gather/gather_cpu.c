/* gather on the CPU: serial and OpenMP over output elements (no conflicts).
 * The output is walked a row at a time (walk.h); each row is one typed loop
 * chosen once per call by element size and index dtype. */
#include "walk.h"

/* out[j] = x[j*xs + index[j]*xd] for j < n (strides in elements). */
typedef void (*sl__gather_row)(char *out, int64_t os, const char *index,
                               int64_t is, const char *x, int64_t xs,
                               int64_t xd, int64_t n);

#define SL__GATHER_ROW(size, T, I)                                             \
  static void sl__gather_row_##size##_##I(char *o, int64_t os, const char *ip, \
                                          int64_t is, const char *xp,          \
                                          int64_t xs, int64_t xd, int64_t n) { \
    T *out = (T *)o;                                                           \
    const I *index = (const I *)ip;                                            \
    const T *x = (const T *)xp;                                                \
    if (os == 1 && is == 1) { /* the common case, as its own loop */           \
      for (int64_t j = 0; j < n; ++j)                                          \
        out[j] = x[j * xs + (int64_t)index[j] * xd];                           \
      return;                                                                  \
    }                                                                          \
    for (int64_t j = 0; j < n; ++j)                                            \
      out[j * os] = x[j * xs + (int64_t)index[j * is] * xd];                   \
  }
SL__INDEXED_ROWS(SL__GATHER_ROW)
static const sl__gather_row sl__gather_rows[][2] =
    SL__INDEXED_TABLE(sl__gather_row);

/* Gathers output elements [begin, end) in row-major order of index (an
 * sl__for_chunks body; user is the call). */
static void sl__gather_range(void *user, int64_t begin, int64_t end) {
  const sl_call *c = user;
  const sl_tensor *x = &c->arg[0], *index = &c->arg[1], *out = &c->arg[2];
  size_t es = sl_dtype_size(x->dtype), is = sl_dtype_size(index->dtype);
  sl__gather_row row = sl__gather_rows[sl__elem_class(es)][is == 8];
  int dim = (int)c->p.dim;
  /* x moves with index on every axis but dim, where the value decides. */
  int64_t xst[SL_MAX_DIMS];
  for (int d = 0; d < index->ndim; ++d) xst[d] = d == dim ? 0 : x->strides[d];
  int64_t xd = x->ndim ? x->strides[dim] : 0;
  const int64_t *st[3] = {out->strides, index->strides, xst};
  sl__walk w;
  sl__walk_init(&w, index->ndim, index->shape, 3, st, begin);
  for (int64_t left = end - begin, n; left > 0; left -= n, sl__walk_next(&w)) {
    n = sl__walk_span(&w, left);
    row(sl__ptr(out, sl__walk_at(&w, 0)), sl__walk_step(&w, 0),
        sl__ptr(index, sl__walk_at(&w, 1)), sl__walk_step(&w, 1),
        sl__ptr(x, sl__walk_at(&w, 2)), sl__walk_step(&w, 2), xd, n);
  }
}

sl_status sl_gather_cpu_serial(sl_ctx *ctx, sl_call *c) {
  (void)ctx;
  sl__for_chunks(1, sl__numel(&c->arg[1]), sl__gather_range, c);
  return SL_STATUS_OK;
}

sl_status sl_gather_cpu_omp(sl_ctx *ctx, sl_call *c) {
  sl__for_chunks(sl__threads(ctx), sl__numel(&c->arg[1]), sl__gather_range, c);
  return SL_STATUS_OK;
}
