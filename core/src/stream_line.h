/*
 * One 64-byte line written past the caches: the step of every streamed
 * copy (copy.c's, select_scatter's with its slice put in), inlined into
 * their loops.
 */
#ifndef SL_STREAM_LINE_H
#define SL_STREAM_LINE_H

#include <string.h>

#include "sl_internal.h"

/* the sanitizers do not see into the intrinsics' stores: memcpy under
 * them */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) &&        \
    !SL__MEMORY_SANITIZED
#include <emmintrin.h>
#define SL__STREAM_SSE 1
#endif

/* d[0, 64) := s[0, 64), d a line's start, by 16-byte non-temporal stores:
 * the line is written whole and never read for ownership. */
static inline void sl__stream_line(char *d, const char *s) {
#ifdef SL__STREAM_SSE
  const __m128i a = _mm_loadu_si128((const __m128i *)s),
                b = _mm_loadu_si128((const __m128i *)(s + 16)),
                c = _mm_loadu_si128((const __m128i *)(s + 32)),
                e = _mm_loadu_si128((const __m128i *)(s + 48));
  _mm_stream_si128((__m128i *)d, a);
  _mm_stream_si128((__m128i *)(d + 16), b);
  _mm_stream_si128((__m128i *)(d + 32), c);
  _mm_stream_si128((__m128i *)(d + 48), e);
#else
  memcpy(d, s, 64);
#endif
}

/* Non-temporal stores are weakly ordered: the thread that made them
 * fences before it meets the others (the team's barrier) or the caller. */
static inline void sl__stream_fence(void) {
#ifdef SL__STREAM_SSE
  _mm_sfence();
#endif
}

#ifdef SL__STREAM_SSE
/* Bytes [at, at + es) of the 16 in v := the element at e (es of 1, 2, 4
 * or 8, at a multiple of es): the element broadcast, blended in by a
 * mask. */
static inline __m128i sl__chunk_put(__m128i v, int at, const char *e,
                                    int64_t es) {
  const __m128i iota =
      _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  const __m128i mask =
      _mm_and_si128(_mm_cmpgt_epi8(iota, _mm_set1_epi8((char)(at - 1))),
                    _mm_cmplt_epi8(iota, _mm_set1_epi8((char)(at + es))));
  __m128i value;
  if (es == 1) {
    value = _mm_set1_epi8(*e);
  } else if (es == 2) {
    short h;
    memcpy(&h, e, 2);
    value = _mm_set1_epi16(h);
  } else if (es == 4) {
    int w;
    memcpy(&w, e, 4);
    value = _mm_set1_epi32(w);
  } else {
    long long q;
    memcpy(&q, e, 8);
    value = _mm_set1_epi64x(q);
  }
  return _mm_or_si128(_mm_andnot_si128(mask, v), _mm_and_si128(mask, value));
}
#endif

#endif /* SL_STREAM_LINE_H */
