/* Strided element copy shared by every op whose output starts as x. */
#include "walk.h"

/* dst[j*ds] = src[j*ss] for j < n (strides in elements). */
typedef void (*sl__copy_row_fn)(char *dst, int64_t ds, const char *src,
                                int64_t ss, int64_t n);

#define SL__COPY_ROW(size, T)                                                  \
  static void sl__copy_row_##size(char *d, int64_t ds, const char *s,          \
                                  int64_t ss, int64_t n) {                     \
    if (ds == 1 && ss == 1) {                                                  \
      memcpy(d, s, (size_t)n *(size));                                         \
      return;                                                                  \
    }                                                                          \
    T *dst = (T *)d;                                                           \
    const T *src = (const T *)s;                                               \
    for (int64_t j = 0; j < n; ++j) dst[j * ds] = src[j * ss];                 \
  }
SL__ELEM_TYPES(SL__COPY_ROW)
#define SL__COPY_ENTRY(size, T) sl__copy_row_##size,
static const sl__copy_row_fn sl__copy_rows[] = {SL__ELEM_TYPES(SL__COPY_ENTRY)};

/* Copies row-major positions [begin, end) of x's shape. */
static void sl__copy_range(sl_tensor *out, const sl_tensor *x, int64_t begin,
                           int64_t end) {
  sl__copy_row_fn row = sl__copy_rows[sl__elem_class(sl_dtype_size(x->dtype))];
  const int64_t *st[2] = {out->strides, x->strides};
  sl__walk w;
  sl__walk_init(&w, x->ndim, x->shape, 2, st, begin);
  for (int64_t left = end - begin, n; left > 0; left -= n, sl__walk_next(&w)) {
    n = sl__walk_span(&w, left);
    row(sl__ptr(out, sl__walk_at(&w, 0)), sl__walk_step(&w, 0),
        sl__ptr(x, sl__walk_at(&w, 1)), sl__walk_step(&w, 1), n);
  }
}

void sl__copy_strided(sl_tensor *out, const sl_tensor *x, int threads) {
  int64_t n = sl__numel(x);
  if (n == 0) return;
  /* Large copies run one chunk per thread: one core alone does not reach
   * the memory bandwidth. */
  int team = sl__team(threads, n / 4);
#pragma omp parallel for num_threads(team) schedule(static) if (team > 1)
  for (int t = 0; t < team; ++t) {
    int64_t b, e;
    sl__chunk(n, team, t, &b, &e);
    if (b < e) sl__copy_range(out, x, b, e);
  }
}
