/* Strided element copy shared by every op whose output starts as x. */
#include <string.h>

#include "copy_tiled.h"
#include "stream_line.h"
#include "walk.h"

/* the sanitizers do not see into the asm: memcpy under them */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) &&        \
    !SL__MEMORY_SANITIZED
#include <cpuid.h>
#else
#define SL__NO_MOVSB 1
#endif

/* Contiguous runs from here on go by `rep movsb` where the CPU says it is
 * fast (ERMS): glibc's memcpy streams large copies past the caches with
 * non-temporal stores, right for a copy nobody reads soon, wrong for out =
 * x, which the op then rewrites in place and the caller reads. 16 MiB on 2
 * threads, 8 MiB each (Zen5, a hand-written loop): memcpy 0.28 ms median
 * warm, 0.72-0.76 ms through 8 rotating buffers; rep movsb 0.18 ms and
 * 0.59-0.64 ms; alike at 1 MiB and below. */
#define SL__MOVSB_MIN_BYTES ((size_t)SL__TH_MOVSB)

#ifndef SL__NO_MOVSB
static int sl__erms(void) {
  static int known = -1; /* cpuid is slow (a VM exit): asked once */
  int v = __atomic_load_n(&known, __ATOMIC_RELAXED);
  if (v < 0) {
    unsigned a, b, c, d;
    v = __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & (1u << 9)) != 0;
    __atomic_store_n(&known, v, __ATOMIC_RELAXED);
  }
  return v;
}
#endif

static void sl__copy_bytes(char *d, const char *s, size_t n) {
#ifndef SL__NO_MOVSB
  if (n >= SL__MOVSB_MIN_BYTES && sl__erms()) {
    __asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
    return;
  }
#endif
  memcpy(d, s, n);
}

/* d[0, n) := s[0, n) past the caches: non-temporal stores from d's first
 * 64-byte line on (sl__stream_line), so that each line is written whole
 * and never read for ownership. The caller fences (sl__stream_fence)
 * before anyone else reads d. */
static void sl__stream_bytes(char *d, const char *s, size_t n) {
#ifndef SL__NO_MOVSB
  size_t head = (size_t)(-(uintptr_t)d & 63);
  if (head > n) head = n;
  memcpy(d, s, head);
  size_t i = head;
  for (; i + 64 <= n; i += 64) sl__stream_line(d + i, s + i);
  memcpy(d + i, s + i, n - i);
#else
  sl__copy_bytes(d, s, n);
#endif
}

/* dst[j*ds] = src[j*ss] for j < n (strides in elements). */
typedef void (*sl__copy_row_fn)(char *dst, int64_t ds, const char *src,
                                int64_t ss, int64_t n);

#define SL__COPY_ROW(size, T)                                                  \
  static void sl__copy_row_##size(char *d, int64_t ds, const char *s,          \
                                  int64_t ss, int64_t n) {                     \
    if (ds == 1 && ss == 1) {                                                  \
      sl__copy_bytes(d, s, (size_t)n *(size));                                 \
      return;                                                                  \
    }                                                                          \
    T *dst = (T *)d;                                                           \
    const T *src = (const T *)s;                                               \
    if (ds == 1 && ss == 0) { /* a broadcast source: a fill, vectorized */     \
      const T v = src[0];                                                      \
      for (int64_t j = 0; j < n; ++j) dst[j] = v;                              \
      return;                                                                  \
    }                                                                          \
    for (int64_t j = 0; j < n; ++j) dst[j * ds] = src[j * ss];                 \
  }
SL__ELEM_TYPES(SL__COPY_ROW)
#define SL__COPY_ENTRY(size, T) sl__copy_row_##size,
static const sl__copy_row_fn sl__copy_rows[] = {SL__ELEM_TYPES(SL__COPY_ENTRY)};

void sl__copy_row(size_t es, char *dst, int64_t ds, const char *src, int64_t ss,
                  int64_t n) {
  sl__copy_rows[sl__elem_class(es)](dst, ds, src, ss, n);
}

typedef struct sl__copy_job {
  sl_tensor *out;
  const sl_tensor *x;
  int stream; /* long contiguous rows go by sl__stream_bytes */
} sl__copy_job;

/* Copies row-major positions [begin, end) of x's shape (an sl__for_chunks
 * body). */
static void sl__copy_range(void *user, int64_t begin, int64_t end) {
  const sl__copy_job *job = user;
  sl_tensor *out = job->out;
  const sl_tensor *x = job->x;
  sl__copy_row_fn row = sl__copy_rows[sl__elem_class(sl_dtype_size(x->dtype))];
  const int64_t *st[2] = {out->strides, x->strides};
  const size_t es = sl_dtype_size(x->dtype);
  sl__walk w;
  sl__walk_init(&w, x->ndim, x->shape, 2, st, begin);
  /* a plane of rows at a time: short rows (x[..., :205] of a wider
   * buffer) paid the walk's step per row more than their copy (bool
   * 206x205x205: 0.46x LibTorch) */
  for (int64_t left = end - begin, n, rows; left > 0;
       left -= rows * n, sl__walk_next_rows(&w, rows)) {
    rows = sl__walk_rows(&w, left, &n);
    char *o = sl__ptr(out, sl__walk_at(&w, 0));
    const char *i = sl__ptr(x, sl__walk_at(&w, 1));
    const int64_t os = sl__walk_step(&w, 0), is = sl__walk_step(&w, 1);
    const int64_t orow = sl__walk_row_step(&w, 0) * (int64_t)es,
                  irow = sl__walk_row_step(&w, 1) * (int64_t)es;
    const int stream =
        job->stream && os == 1 && is == 1 && n * (int64_t)es >= SL__TH_MOVSB;
    for (int64_t r = 0; r < rows; ++r)
      if (stream)
        sl__stream_bytes(o + r * orow, i + r * irow, (size_t)(n * (int64_t)es));
      else
        row(o + r * orow, os, i + r * irow, is, n);
  }
  if (job->stream) sl__stream_fence();
}

/* Large copies run one chunk per thread: one core alone does not reach the
 * memory bandwidth. */
static void sl__copy_run(sl_tensor *out, const sl_tensor *x, int threads,
                         int stream) {
  if (out->data == x->data && out->ndim == x->ndim &&
      !memcmp(out->strides, x->strides, sizeof(int64_t) * (size_t)x->ndim))
    return; /* onto itself (a kernel working in place) */
  /* In out's memory order: an out laid out as a transposed x (LibTorch's
   * select_scatter keeps x's layout) is then one run, not a walk down
   * columns of both. */
  sl_tensor pair[2] = {*out, *x};
  sl__memory_order(2, pair);
  out = &pair[0], x = &pair[1];
  if (sl__numel(x) >= SL__TH_COPY_TILE && sl__copy_tiled(out, x, threads))
    return;
  sl__copy_job job = {out, x, stream};
  sl__for_chunks(threads, sl__numel(x), sl__copy_range, &job);
}

void sl__copy_strided(sl_tensor *out, const sl_tensor *x, int threads) {
  sl__copy_run(out, x, threads, 0);
}

void sl__copy_streamed(sl_tensor *out, const sl_tensor *x, int threads) {
  sl__copy_run(out, x, threads, 1);
}
