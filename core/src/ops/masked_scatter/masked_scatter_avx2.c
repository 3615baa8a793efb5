/*
 * masked_scatter's row loop with AVX2, for CPUs without AVX-512's expand
 * (masked_scatter_avx512.c): 8 (4-byte) or 4 (8-byte) positions per step.
 * The step's mask bits pick, from a table, the permutation that sends the
 * next popcount source elements to the taken lanes in order (lane i gets
 * the source element of rank "set bits below i"), and a blend keeps x in
 * the other lanes. The scalar row loop took a load of the mask, the source
 * and x, a pick and a store per position. Source is read a whole vector at
 * a time, so the loop stops where that would pass its end (ns); the caller
 * finishes the row.
 */
#include "ops/masked_scatter/masked_scatter.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define SL__AVX2 __attribute__((target("avx2")))

/* sl__ranks8[b][i]: the rank of lane i's bit among b's set bits (the
 * source element the lane takes when its bit is set), built by the compiler
 * (a table filled at the first call would be a race between threads). */
#define SL__RANK(b, i)                                                         \
  ((unsigned char)__builtin_popcount((b) & ((1u << (i)) - 1)))
#define SL__RANKS(b)                                                           \
  {                                                                            \
    SL__RANK(b, 0), SL__RANK(b, 1), SL__RANK(b, 2), SL__RANK(b, 3),            \
        SL__RANK(b, 4), SL__RANK(b, 5), SL__RANK(b, 6), SL__RANK(b, 7)         \
  }
#define SL__RANKS4(b)                                                          \
  SL__RANKS(b), SL__RANKS(b + 1), SL__RANKS(b + 2), SL__RANKS(b + 3)
#define SL__RANKS16(b)                                                         \
  SL__RANKS4(b), SL__RANKS4(b + 4), SL__RANKS4(b + 8), SL__RANKS4(b + 12)
#define SL__RANKS64(b)                                                         \
  SL__RANKS16(b), SL__RANKS16(b + 16), SL__RANKS16(b + 32), SL__RANKS16(b + 48)
static const unsigned char sl__ranks8[256][8] = {
    SL__RANKS64(0u), SL__RANKS64(64u), SL__RANKS64(128u), SL__RANKS64(192u)};

/* The bits of 8 (4) mask bytes: bit i set for a nonzero byte i. */
SL__AVX2 static inline unsigned sl__bits_of(__m128i b, unsigned all) {
  return ~(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(b, _mm_setzero_si128())) &
         all;
}
SL__AVX2 static inline unsigned sl__bits8(const unsigned char *m) {
  return sl__bits_of(_mm_loadl_epi64((const __m128i *)m), 0xffu);
}
SL__AVX2 static inline unsigned sl__bits4(const unsigned char *m) {
  int32_t w;
  memcpy(&w, m, 4); /* the row may end after these 4 */
  return sl__bits_of(_mm_cvtsi32_si128(w), 0xfu);
}

/* 32-bit lanes whose bit of `bits` is set: all ones. */
SL__AVX2 static inline __m256i sl__lanes_of(unsigned bits, __m256i pow2) {
  const __m256i b = _mm256_set1_epi32((int)bits);
  return _mm256_cmpeq_epi32(_mm256_and_si256(b, pow2), pow2);
}

/* The ranks of take's 8 lanes as 32-bit lanes. */
SL__AVX2 static inline __m256i sl__ranks_of(unsigned take) {
  return _mm256_cvtepu8_epi32(
      _mm_loadl_epi64((const __m128i *)sl__ranks8[take]));
}

/* One step: the 32 source bytes at src permuted by perm (dwords), x's 32
 * bytes where `lanes` is clear, into out. */
SL__AVX2 static inline void sl__expand2_step(char *out, const char *x,
                                             const void *src, __m256i perm,
                                             __m256i lanes) {
  const __m256i s = _mm256_permutevar8x32_epi32(
      _mm256_loadu_si256((const __m256i *)src), perm);
  const __m256i v = _mm256_loadu_si256((const __m256i *)x);
  _mm256_storeu_si256((__m256i *)out, _mm256_blendv_epi8(v, s, lanes));
}

SL__AVX2 static int64_t sl__expand2_4(char *out, const char *x,
                                      const unsigned char *mask,
                                      const char *source, int64_t *k,
                                      int64_t ns, int64_t n) {
  const __m256i pow2 = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
  const int32_t *src = (const int32_t *)source;
  int64_t j = 0, at = *k;
  for (; j + 8 <= n && at + 8 <= ns; j += 8) {
    const unsigned take = sl__bits8(mask + j);
    sl__expand2_step(out + j * 4, x + j * 4, src + at, sl__ranks_of(take),
                     sl__lanes_of(take, pow2));
    at += __builtin_popcount(take);
  }
  *k = at;
  return j;
}

/* 8-byte lanes as pairs of 32-bit ones: lane i's pair takes dwords 2r and
 * 2r + 1 of the source vector, r its rank. */
SL__AVX2 static int64_t sl__expand2_8(char *out, const char *x,
                                      const unsigned char *mask,
                                      const char *source, int64_t *k,
                                      int64_t ns, int64_t n) {
  const __m256i pow2 = _mm256_setr_epi32(1, 1, 2, 2, 4, 4, 8, 8);
  const __m256i odd = _mm256_setr_epi32(0, 1, 0, 1, 0, 1, 0, 1);
  const __m256i spread = _mm256_setr_epi32(0, 0, 1, 1, 2, 2, 3, 3);
  const int64_t *src = (const int64_t *)source;
  int64_t j = 0, at = *k;
  for (; j + 4 <= n && at + 4 <= ns; j += 4) {
    const unsigned take = sl__bits4(mask + j);
    const __m256i pairs =
        _mm256_permutevar8x32_epi32(sl__ranks_of(take), spread);
    const __m256i perm = _mm256_add_epi32(_mm256_add_epi32(pairs, pairs), odd);
    sl__expand2_step(out + j * 8, x + j * 8, src + at, perm,
                     sl__lanes_of(take, pow2));
    at += __builtin_popcount(take);
  }
  *k = at;
  return j;
}

int64_t sl__masked_expand_avx2(size_t es, char *out, const char *x,
                               const unsigned char *mask, const char *source,
                               int64_t *k, int64_t ns, int64_t n) {
  if (!__builtin_cpu_supports("avx2")) return 0;
  if (es == 4) return sl__expand2_4(out, x, mask, source, k, ns, n);
  if (es == 8) return sl__expand2_8(out, x, mask, source, k, ns, n);
  return 0;
}

#else
int64_t sl__masked_expand_avx2(size_t es, char *out, const char *x,
                               const unsigned char *mask, const char *source,
                               int64_t *k, int64_t ns, int64_t n) {
  (void)es, (void)out, (void)x, (void)mask, (void)source, (void)k, (void)ns,
      (void)n;
  return 0;
}
#endif
