/*
 * gather's row loop with AVX-512 gathers (see gather.h): the element
 * offsets j*xs + index*xd of eight positions in 64-bit lanes, one gather
 * instruction for their loads. A random gather is bound by its cache
 * misses: eight loads issued by one instruction keep more of them in
 * flight than eight scalar loads (65536x64 f32 rows of a 16 MiB x on 2
 * threads, a hand-written pair of loops: 3.6 -> 2.4-3.1 ms), while on an x
 * that a cache holds the scalar loop is as fast or faster (a 256 KiB x:
 * 0.019 vs 0.023 ms), so gather_cpu.c takes this loop for large x only.
 */
#include "ops/gather/gather.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define SL__AVX512 __attribute__((target("avx512f,avx512dq,avx512vl")))

/* Eight index values at p as 64-bit lanes. */
SL__AVX512 static inline __m512i sl__index8_i64(const void *p) {
  return _mm512_loadu_si512(p);
}
SL__AVX512 static inline __m512i sl__index8_i32(const void *p) {
  return _mm512_cvtepi32_epi64(_mm256_loadu_si256((const __m256i *)p));
}

#define SL__STORE_4(p, v) _mm256_storeu_si256((__m256i *)(p), v)
#define SL__STORE_8(p, v) _mm512_storeu_si512((void *)(p), v)
#define SL__GATHER_4(at, x) _mm512_i64gather_epi32(at, x, 4)
#define SL__GATHER_8(at, x) _mm512_i64gather_epi64(at, x, 8)

/* sl__gather8_<es>_<index dtype>: element bits moved as integers. */
#define SL__GATHER8(es, it, isize)                                             \
  SL__AVX512 static int64_t sl__gather8_##es##_##it(                           \
      void *out, const void *index, const void *x, int64_t xs, int64_t xd,     \
      int64_t n) {                                                             \
    const __m512i lanes = _mm512_mullo_epi64(                                  \
        _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0), _mm512_set1_epi64(xs));      \
    const __m512i vxd = _mm512_set1_epi64(xd);                                 \
    const char *ip = index;                                                    \
    char *op = out;                                                            \
    int64_t j = 0;                                                             \
    for (; j + 8 <= n; j += 8) {                                               \
      const __m512i at = _mm512_add_epi64(                                     \
          _mm512_add_epi64(lanes, _mm512_set1_epi64(j * xs)),                  \
          _mm512_mullo_epi64(sl__index8_##it(ip + j * (isize)), vxd));         \
      SL__STORE_##es(op + j * (es), SL__GATHER_##es(at, x));                   \
    }                                                                          \
    return j;                                                                  \
  }
SL__GATHER8(4, i32, 4)
SL__GATHER8(4, i64, 8)
SL__GATHER8(8, i32, 4)
SL__GATHER8(8, i64, 8)

int64_t sl__gather_avx512(size_t es, int index64, void *out, const void *index,
                          const void *x, int64_t xs, int64_t xd, int64_t n) {
  if (n < 8 || (es != 4 && es != 8) || !__builtin_cpu_supports("avx512f") ||
      !__builtin_cpu_supports("avx512dq") ||
      !__builtin_cpu_supports("avx512vl"))
    return 0;
  if (es == 4)
    return index64 ? sl__gather8_4_i64(out, index, x, xs, xd, n)
                   : sl__gather8_4_i32(out, index, x, xs, xd, n);
  return index64 ? sl__gather8_8_i64(out, index, x, xs, xd, n)
                 : sl__gather8_8_i32(out, index, x, xs, xd, n);
}

#else
int64_t sl__gather_avx512(size_t es, int index64, void *out, const void *index,
                          const void *x, int64_t xs, int64_t xd, int64_t n) {
  (void)es, (void)index64, (void)out, (void)index, (void)x, (void)xs, (void)xd,
      (void)n;
  return 0;
}
#endif
