/*
 * masked_scatter's row loop with AVX-512's expand, which is the op itself:
 * the next popcount(m) contiguous source elements go, in order, to the lanes
 * whose mask bit is set, the other lanes keep x. 16 (4-byte) or 8 (8-byte)
 * positions per step instead of one (32 for 2-byte elements and 64 for
 * bytes, with VBMI2),
 * the source read by a load masked to the elements taken (it never reaches
 * past the last one). Only when the CPU runs the AVX-512 loops
 * (sl__avx512_ok, asked at run time: the build stays portable).
 */
#include "avx512_rows.h"
#include "ops/masked_scatter/masked_scatter.h"

#ifdef SL__HAVE_AVX512_LOOPS
#include <immintrin.h>

#define SL__AVX512_VBMI2                                                       \
  __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx512vbmi2")))

/* The mask bits of 8, 16, 32 or 64 mask bytes: bit i set for a nonzero
 * byte. */
SL__AVX512 static inline uint32_t sl__bits_8(const unsigned char *m) {
  __m128i b = _mm_loadl_epi64((const __m128i *)m);
  return (uint32_t)_mm_test_epi8_mask(b, b) & 0xffu;
}
SL__AVX512 static inline uint32_t sl__bits_16(const unsigned char *m) {
  __m128i b = _mm_loadu_si128((const __m128i *)m);
  return (uint32_t)_mm_test_epi8_mask(b, b);
}
SL__AVX512 static inline uint32_t sl__bits_32(const unsigned char *m) {
  __m256i b = _mm256_loadu_si256((const __m256i *)m);
  return (uint32_t)_mm256_test_epi8_mask(b, b);
}
SL__AVX512 static inline uint64_t sl__bits_64(const unsigned char *m) {
  __m512i b = _mm512_loadu_si512((const void *)m);
  return (uint64_t)_mm512_test_epi8_mask(b, b);
}

/* The lowest `count` bits set (count <= 64). */
static inline uint64_t sl__low_bits(int count) {
  return count >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << count) - 1u;
}

/* sl__expand_<size>: `lanes` positions of `size`-byte elements per step;
 * LOADZ loads the taken source elements (masked), EXPAND spreads them. */
#define SL__EXPAND(TARGET, size, lanes, T, MASK, BITS, LOADZ, EXPAND)          \
  TARGET static int64_t sl__expand_##size(                                     \
      char *out, const char *x, const unsigned char *mask, const char *source, \
      int64_t *k, int64_t n) {                                                 \
    const T *src = (const T *)source;                                          \
    int64_t j = 0, at = *k;                                                    \
    for (; j + (lanes) <= n; j += (lanes)) {                                   \
      const uint64_t take = BITS(mask + j);                                    \
      const int count = __builtin_popcountll(take);                            \
      __m512i s = LOADZ((MASK)sl__low_bits(count), src + at);                  \
      __m512i v = _mm512_loadu_si512((const void *)(x + j * (size)));          \
      _mm512_storeu_si512((void *)(out + j * (size)),                          \
                          EXPAND(v, (MASK)take, s));                           \
      at += count;                                                             \
    }                                                                          \
    *k = at;                                                                   \
    return j;                                                                  \
  }
SL__EXPAND(SL__AVX512_VBMI2, 1, 64, int8_t, __mmask64, sl__bits_64,
           _mm512_maskz_loadu_epi8, _mm512_mask_expand_epi8)
SL__EXPAND(SL__AVX512_VBMI2, 2, 32, int16_t, __mmask32, sl__bits_32,
           _mm512_maskz_loadu_epi16, _mm512_mask_expand_epi16)
SL__EXPAND(SL__AVX512, 4, 16, int32_t, __mmask16, sl__bits_16,
           _mm512_maskz_loadu_epi32, _mm512_mask_expand_epi32)
SL__EXPAND(SL__AVX512, 8, 8, int64_t, __mmask8, sl__bits_8,
           _mm512_maskz_loadu_epi64, _mm512_mask_expand_epi64)

int64_t sl__masked_expand(size_t es, char *out, const char *x,
                          const unsigned char *mask, const char *source,
                          int64_t *k, int64_t ns, int64_t n) {
  if (!sl__avx512_ok())
    return sl__masked_expand_avx2(es, out, x, mask, source, k, ns, n);
  const int vbmi2 = __builtin_cpu_supports("avx512vbmi2");
  if (es == 1 && vbmi2) return sl__expand_1(out, x, mask, source, k, n);
  if (es == 2 && vbmi2) return sl__expand_2(out, x, mask, source, k, n);
  if (es == 4) return sl__expand_4(out, x, mask, source, k, n);
  if (es == 8) return sl__expand_8(out, x, mask, source, k, n);
  return 0;
}

#else
int64_t sl__masked_expand(size_t es, char *out, const char *x,
                          const unsigned char *mask, const char *source,
                          int64_t *k, int64_t ns, int64_t n) {
  return sl__masked_expand_avx2(es, out, x, mask, source, k, ns, n);
}
#endif
