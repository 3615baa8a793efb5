/* AVX-512 row loops of gather and scatter (see avx512_rows.h): the element
 * offsets of eight positions in 64-bit lanes, one gather or scatter
 * instruction for their accesses, element bits moved as integers. */
#include "avx512_rows.h"

#ifdef SL__HAVE_AVX512_LOOPS
#include <immintrin.h>

int sl__avx512_ok(void) {
  return __builtin_cpu_supports("avx512f") &&
         __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512dq") &&
         __builtin_cpu_supports("avx512vl");
}

/* Eight index values at p as 64-bit lanes. */
SL__AVX512 static inline __m512i sl__index8_i64(const void *p) {
  return _mm512_loadu_si512(p);
}
SL__AVX512 static inline __m512i sl__index8_i32(const void *p) {
  return _mm512_cvtepi32_epi64(_mm256_loadu_si256((const __m256i *)p));
}

/* The offsets (j + lane)*s + index*d of positions j..j+7. */
SL__AVX512 static inline __m512i sl__offsets8(__m512i lanes_s, int64_t js,
                                              __m512i index, __m512i d) {
  return _mm512_add_epi64(_mm512_add_epi64(lanes_s, _mm512_set1_epi64(js)),
                          _mm512_mullo_epi64(index, d));
}
SL__AVX512 static inline __m512i sl__lanes_times(int64_t s) {
  return _mm512_mullo_epi64(_mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0),
                            _mm512_set1_epi64(s));
}

/* Eight elements of 4 or 8 bytes: load, store, gather, scatter. */
#define SL__LOAD_4(p) _mm256_loadu_si256((const __m256i *)(p))
#define SL__LOAD_8(p) _mm512_loadu_si512((const void *)(p))
#define SL__STORE_4(p, v) _mm256_storeu_si256((__m256i *)(p), v)
#define SL__STORE_8(p, v) _mm512_storeu_si512((void *)(p), v)
#define SL__GATHER_4(at, x) _mm512_i64gather_epi32(at, x, 4)
#define SL__GATHER_8(at, x) _mm512_i64gather_epi64(at, x, 8)
#define SL__SCATTER_4(o, at, v) _mm512_i64scatter_epi32(o, at, v, 4)
#define SL__SCATTER_8(o, at, v) _mm512_i64scatter_epi64(o, at, v, 8)

/* sl__gather8_<es>_<index dtype> and sl__scatter8_<es>_<index dtype>. */
#define SL__ROWS8(es, it, isize)                                               \
  SL__AVX512 static int64_t sl__gather8_##es##_##it(                           \
      void *out, const void *index, const void *x, int64_t xs, int64_t xd,     \
      int64_t n) {                                                             \
    const __m512i lanes = sl__lanes_times(xs), vxd = _mm512_set1_epi64(xd);    \
    const char *ip = index;                                                    \
    char *op = out;                                                            \
    int64_t j = 0;                                                             \
    for (; j + 8 <= n; j += 8) {                                               \
      const __m512i at =                                                       \
          sl__offsets8(lanes, j * xs, sl__index8_##it(ip + j * (isize)), vxd); \
      SL__STORE_##es(op + j * (es), SL__GATHER_##es(at, x));                   \
    }                                                                          \
    return j;                                                                  \
  }                                                                            \
  SL__AVX512 static int64_t sl__scatter8_##es##_##it(                          \
      void *out, const void *index, const void *src, int64_t d0, int64_t n) {  \
    const __m512i lanes = sl__lanes_times(1), vd0 = _mm512_set1_epi64(d0);     \
    const char *ip = index, *sp = src;                                         \
    int64_t j = 0;                                                             \
    for (; j + 8 <= n; j += 8) {                                               \
      const __m512i at =                                                       \
          sl__offsets8(lanes, j, sl__index8_##it(ip + j * (isize)), vd0);      \
      SL__SCATTER_##es(out, at, SL__LOAD_##es(sp + j * (es)));                 \
    }                                                                          \
    return j;                                                                  \
  }
SL__ROWS8(4, i32, 4)
SL__ROWS8(4, i64, 8)
SL__ROWS8(8, i32, 4)
SL__ROWS8(8, i64, 8)

int64_t sl__gather_avx512(size_t es, int index64, void *out, const void *index,
                          const void *x, int64_t xs, int64_t xd, int64_t n) {
  if (n < 8 || (es != 4 && es != 8) || !sl__avx512_ok()) return 0;
  if (es == 4)
    return index64 ? sl__gather8_4_i64(out, index, x, xs, xd, n)
                   : sl__gather8_4_i32(out, index, x, xs, xd, n);
  return index64 ? sl__gather8_8_i64(out, index, x, xs, xd, n)
                 : sl__gather8_8_i32(out, index, x, xs, xd, n);
}

int64_t sl__scatter_avx512(size_t es, int index64, void *out, const void *index,
                           const void *src, int64_t d0, int64_t n) {
  if (n < 8 || (es != 4 && es != 8) || !sl__avx512_ok()) return 0;
  if (es == 4)
    return index64 ? sl__scatter8_4_i64(out, index, src, d0, n)
                   : sl__scatter8_4_i32(out, index, src, d0, n);
  return index64 ? sl__scatter8_8_i64(out, index, src, d0, n)
                 : sl__scatter8_8_i32(out, index, src, d0, n);
}

#else /* no AVX-512 loops: every row goes to the scalar loop */
int sl__avx512_ok(void) { return 0; }

int64_t sl__gather_avx512(size_t es, int index64, void *out, const void *index,
                          const void *x, int64_t xs, int64_t xd, int64_t n) {
  (void)es, (void)index64, (void)out, (void)index, (void)x, (void)xs, (void)xd,
      (void)n;
  return 0;
}

int64_t sl__scatter_avx512(size_t es, int index64, void *out, const void *index,
                           const void *src, int64_t d0, int64_t n) {
  (void)es, (void)index64, (void)out, (void)index, (void)src, (void)d0, (void)n;
  return 0;
}
#endif
