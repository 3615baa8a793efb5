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

typedef struct sl__copy_job {
  sl_tensor *out;
  const sl_tensor *x;
} sl__copy_job;

/* Copies row-major positions [begin, end) of x's shape (an sl__for_chunks
 * body). */
static void sl__copy_range(void *user, int64_t begin, int64_t end) {
  const sl__copy_job *job = user;
  sl_tensor *out = job->out;
  const sl_tensor *x = job->x;
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

/* Large copies run one chunk per thread: one core alone does not reach the
 * memory bandwidth. */
void sl__copy_strided(sl_tensor *out, const sl_tensor *x, int threads) {
  sl__copy_job job = {out, x};
  sl__for_chunks(threads, sl__numel(x), sl__copy_range, &job);
}
