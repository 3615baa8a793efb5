/*
 * masked_scatter's row loop with AVX-512's expand, which is the op itself:
 * the next popcount(m) contiguous source elements go, in order, to the lanes
 * whose mask bit is set, the other lanes keep x. 16 (4-byte) or 8 (8-byte)
 * positions per step instead of one, with the source read by a load masked
 * to the elements taken (it never reaches past the last one). Only when the
 * CPU has AVX-512 F/BW/VL (checked at run time: the build stays portable).
 */
#include "ops/masked_scatter/masked_scatter.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define SL__AVX512 __attribute__((target("avx512f,avx512bw,avx512vl")))

SL__AVX512 static int64_t sl__expand_4(char *out, const char *x,
                                       const unsigned char *mask,
                                       const char *source, int64_t *k,
                                       int64_t n) {
  const int32_t *src = (const int32_t *)source;
  int64_t j = 0, at = *k;
  for (; j + 16 <= n; j += 16) {
    __m128i bytes = _mm_loadu_si128((const __m128i *)(mask + j));
    __mmask16 take = _mm_test_epi8_mask(bytes, bytes); /* nonzero bytes */
    int count = __builtin_popcount((unsigned)take);
    __m512i s =
        _mm512_maskz_loadu_epi32((__mmask16)((1u << count) - 1u), src + at);
    __m512i v = _mm512_loadu_si512((const void *)(x + j * 4));
    _mm512_storeu_si512((void *)(out + j * 4),
                        _mm512_mask_expand_epi32(v, take, s));
    at += count;
  }
  *k = at;
  return j;
}

SL__AVX512 static int64_t sl__expand_8(char *out, const char *x,
                                       const unsigned char *mask,
                                       const char *source, int64_t *k,
                                       int64_t n) {
  const int64_t *src = (const int64_t *)source;
  int64_t j = 0, at = *k;
  for (; j + 8 <= n; j += 8) {
    __m128i bytes = _mm_loadl_epi64((const __m128i *)(mask + j));
    __mmask8 take = (__mmask8)_mm_test_epi8_mask(bytes, bytes);
    int count = __builtin_popcount((unsigned)take);
    __m512i s =
        _mm512_maskz_loadu_epi64((__mmask8)((1u << count) - 1u), src + at);
    __m512i v = _mm512_loadu_si512((const void *)(x + j * 8));
    _mm512_storeu_si512((void *)(out + j * 8),
                        _mm512_mask_expand_epi64(v, take, s));
    at += count;
  }
  *k = at;
  return j;
}

int64_t sl__masked_expand(size_t es, char *out, const char *x,
                          const unsigned char *mask, const char *source,
                          int64_t *k, int64_t n) {
  if (!__builtin_cpu_supports("avx512f") ||
      !__builtin_cpu_supports("avx512bw") ||
      !__builtin_cpu_supports("avx512vl"))
    return 0;
  if (es == 4) return sl__expand_4(out, x, mask, source, k, n);
  if (es == 8) return sl__expand_8(out, x, mask, source, k, n);
  return 0;
}

#else
int64_t sl__masked_expand(size_t es, char *out, const char *x,
                          const unsigned char *mask, const char *source,
                          int64_t *k, int64_t n) {
  (void)es, (void)out, (void)x, (void)mask, (void)source, (void)k, (void)n;
  return 0;
}
#endif
