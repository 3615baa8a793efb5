/*
 * A strided copy whose destination and source run along different axes
 * (out row-major, x transposed). Walking out's order reads x a cache line
 * (or a page) apart per element, and comes back to those lines only a row
 * later, when they are gone. Here the plane of the two unit-stride axes
 * goes by square tiles: a tile's source lines stay in L1 while its
 * destination rows are written in order.
 */
#include "copy_tiled.h"

#include "walk.h"

/* Elements a tile side: a tile's rows lie on 32 pages a side, 64 in all,
 * about what the first-level TLB holds. */
enum { SL__TILE = 32 };

/* Sides of the square blocks a tile goes by, held in registers between
 * their loads and stores: 8 for elements up to 4 bytes, 4 above (8x8 of 8
 * bytes spill). One element at a time, the loads of a tile row come from
 * as many source lines as its length; by blocks, 4 or 8 neighbours come
 * from each (a 1091x1090 transposed c64 copy: 3.8 -> 1.3 ms). */
#define SL__BLOCK_SIDE(size) ((size) <= 4 ? 8 : 4)

typedef void (*sl__tile_fn)(char *dst, int64_t ob, const char *src, int64_t xa,
                            int64_t na, int64_t nb);

#if defined(__SSE2__)
#include <emmintrin.h>
/* An 8x8 block of 4-byte elements as four 4x4 ones in SSE registers (x86-64's
 * baseline): gcc -O3 spilled the generic block's 64 values to the stack
 * and moved them one at a time (2448x2448 f32 transposed, 2 threads:
 * 9.0 ms, against 1.7 ms for one memcpy of it). */
static void sl__block_sse_4(uint32_t *dst, int64_t ob, const uint32_t *src,
                            int64_t xa) {
  for (int r0 = 0; r0 < 8; r0 += 4)
    for (int c0 = 0; c0 < 8; c0 += 4) {
      const float *s = (const float *)(const void *)(src + r0 * xa + c0);
      __m128 a = _mm_loadu_ps(s), b = _mm_loadu_ps(s + xa),
             c = _mm_loadu_ps(s + 2 * xa), d = _mm_loadu_ps(s + 3 * xa);
      _MM_TRANSPOSE4_PS(a, b, c, d);
      float *o = (float *)(void *)(dst + c0 * ob + r0);
      _mm_storeu_ps(o, a);
      _mm_storeu_ps(o + ob, b);
      _mm_storeu_ps(o + 2 * ob, c);
      _mm_storeu_ps(o + 3 * ob, d);
    }
}
/* 8x8 blocks of 2- and 1-byte elements by unpacking pairs, then quads:
 * gcc built the generic ones from one-lane inserts (index_reduce of a
 * 38^4 transposed i16, one thread: the tiles 60% of the time). */
static void sl__block_sse_2(uint16_t *dst, int64_t ob, const uint16_t *src,
                            int64_t xa) {
  __m128i r[8], t[8], q[8];
  for (int i = 0; i < 8; ++i)
    r[i] = _mm_loadu_si128((const __m128i *)(const void *)(src + i * xa));
  for (int i = 0; i < 4; ++i) { /* t[i]: rows 2i, 2i+1 of columns 0-3 */
    t[i] = _mm_unpacklo_epi16(r[2 * i], r[2 * i + 1]);
    t[4 + i] = _mm_unpackhi_epi16(r[2 * i], r[2 * i + 1]);
  }
  /* q[4g + 2h + k]: rows 4h to 4h+3 of columns 4g + 2k and the next */
  for (int g = 0; g < 2; ++g)
    for (int h = 0; h < 2; ++h) {
      const __m128i a = t[4 * g + 2 * h], b = t[4 * g + 2 * h + 1];
      q[4 * g + 2 * h] = _mm_unpacklo_epi32(a, b);
      q[4 * g + 2 * h + 1] = _mm_unpackhi_epi32(a, b);
    }
  for (int c = 0; c < 8; ++c) {
    const __m128i top = q[c / 4 * 4 + c % 4 / 2],
                  low = q[c / 4 * 4 + 2 + c % 4 / 2];
    const __m128i col =
        c % 2 ? _mm_unpackhi_epi64(top, low) : _mm_unpacklo_epi64(top, low);
    _mm_storeu_si128((__m128i *)(void *)(dst + c * ob), col);
  }
}
static void sl__block_sse_1(uint8_t *dst, int64_t ob, const uint8_t *src,
                            int64_t xa) {
  __m128i r[8], t[4], q[4];
  for (int i = 0; i < 8; ++i)
    r[i] = _mm_loadl_epi64((const __m128i *)(const void *)(src + i * xa));
  for (int i = 0; i < 4; ++i) /* t[i]: rows 2i, 2i+1 */
    t[i] = _mm_unpacklo_epi8(r[2 * i], r[2 * i + 1]);
  /* q[2h + g]: rows 4h to 4h+3 of columns 4g to 4g+3 */
  for (int h = 0; h < 2; ++h) {
    q[2 * h] = _mm_unpacklo_epi16(t[2 * h], t[2 * h + 1]);
    q[2 * h + 1] = _mm_unpackhi_epi16(t[2 * h], t[2 * h + 1]);
  }
  for (int p = 0; p < 4; ++p) { /* columns 2p and 2p+1, one a half */
    const __m128i a = q[p / 2], b = q[2 + p / 2];
    const __m128i cols =
        p % 2 ? _mm_unpackhi_epi32(a, b) : _mm_unpacklo_epi32(a, b);
    _mm_storel_epi64((__m128i *)(void *)(dst + 2 * p * ob), cols);
    _mm_storel_epi64((__m128i *)(void *)(dst + (2 * p + 1) * ob),
                     _mm_unpackhi_epi64(cols, cols));
  }
}
#define SL__BLOCK_1 sl__block_sse_1
#define SL__BLOCK_2 sl__block_sse_2
#define SL__BLOCK_4 sl__block_sse_4
#else
#define SL__BLOCK_1 sl__block_any_1
#define SL__BLOCK_2 sl__block_any_2
#define SL__BLOCK_4 sl__block_any_4
#endif
/* The generic blocks of 1, 2 and 4 bytes are left unused where SSE2 takes
 * them. */
#if defined(__GNUC__)
#define SL__MAYBE_UNUSED __attribute__((unused))
#else
#define SL__MAYBE_UNUSED
#endif
#define SL__BLOCK_8 sl__block_any_8
#define SL__BLOCK_16 sl__block_any_16

/* The block after the one at i, of k elements along n >= k: k on, the
 * last one shifted back to end at n, so that no element goes alone (the
 * overlap is written twice with the same values, by one thread). */
static inline int64_t sl__block_after(int64_t i, int64_t n, int k) {
  if (i + k >= n) return n;
  return i + 2 * k <= n ? i + k : n - k;
}

/* dst[ib * ob + ia] = src[ia * xa + ib] for ia < na, ib < nb: by blocks
 * when both sides hold one, else one element at a time. The unroll
 * pragmas keep a block in registers (gcc -O2 leaves the array in memory
 * without them, slower than no blocks; clang-format would join each
 * pragma to its loop); at -O3 gcc spilled the 4-byte one all the same,
 * which SSE2 takes instead. */
/* clang-format off */
#define SL__TILE_FN(size, T)                                                   \
  SL__MAYBE_UNUSED static void sl__block_any_##size(                           \
      T *dst, int64_t ob, const T *src, int64_t xa) {                          \
    enum { K = SL__BLOCK_SIDE(size) };                                         \
    T v[K][K];                                                                 \
    _Pragma("GCC unroll 8")                                                    \
    for (int r = 0; r < K; ++r)                                                \
      _Pragma("GCC unroll 8")                                                  \
      for (int c = 0; c < K; ++c) v[r][c] = src[r * xa + c];                   \
    _Pragma("GCC unroll 8")                                                    \
    for (int c = 0; c < K; ++c)                                                \
      _Pragma("GCC unroll 8")                                                  \
      for (int r = 0; r < K; ++r) dst[c * ob + r] = v[r][c];                   \
  }                                                                            \
  static void sl__tile_##size(char *d, int64_t ob, const char *s, int64_t xa,  \
                              int64_t na, int64_t nb) {                        \
    enum { K = SL__BLOCK_SIDE(size) };                                         \
    T *dst = (T *)d;                                                           \
    const T *src = (const T *)s;                                               \
    if (na < K || nb < K) {                                                    \
      for (int64_t ia = 0; ia < na; ++ia)                                      \
        for (int64_t ib = 0; ib < nb; ++ib)                                    \
          dst[ib * ob + ia] = src[ia * xa + ib];                               \
      return;                                                                  \
    }                                                                          \
    for (int64_t ia = 0; ia < na; ia = sl__block_after(ia, na, K))             \
      for (int64_t ib = 0; ib < nb; ib = sl__block_after(ib, nb, K))           \
        SL__BLOCK_##size(dst + ib * ob + ia, ob, src + ia * xa + ib, xa);      \
  }
/* clang-format on */
SL__ELEM_TYPES(SL__TILE_FN)
#define SL__TILE_ENTRY(size, T) sl__tile_##size,
static const sl__tile_fn sl__tiles[] = {SL__ELEM_TYPES(SL__TILE_ENTRY)};

typedef struct sl__tile_job {
  sl_tensor *out;
  const sl_tensor *x;
  sl_tensor rest_out, rest_x;   /* both without axes a and b */
  int64_t na, nb, xa, ob, rows; /* rows: tile rows along b */
  sl__tile_fn tile;
} sl__tile_job;

/* Where tile t of n elements starts: as many tiles as SL__TILE takes,
 * of equal sides (the first n % tiles one longer), so that none is a
 * sliver of lone elements; no product of t and n, which could overflow. */
static int64_t sl__tile_start(int64_t t, int64_t n) {
  const int64_t tiles = (n + SL__TILE - 1) / SL__TILE;
  const int64_t side = n / tiles, longer = n % tiles;
  return t * side + (t < longer ? t : longer);
}

/* Units [begin, end): unit u is tile row u % rows of the plane at the
 * rest's row-major position u / rows. */
static void sl__tile_range(void *user, int64_t begin, int64_t end) {
  const sl__tile_job *j = user;
  const size_t es = sl_dtype_size(j->x->dtype);
  for (int64_t u = begin; u < end; ++u) {
    const int64_t o = u / j->rows, ib0 = sl__tile_start(u % j->rows, j->nb);
    const int64_t nb = sl__tile_start(u % j->rows + 1, j->nb) - ib0;
    char *d = sl__ptr(j->out, sl__offset_linear(&j->rest_out, o) + ib0 * j->ob);
    const char *s = sl__ptr(j->x, sl__offset_linear(&j->rest_x, o) + ib0);
    for (int64_t t = 0; t * SL__TILE < j->na; ++t) {
      const int64_t ia0 = sl__tile_start(t, j->na);
      const int64_t na = sl__tile_start(t + 1, j->na) - ia0;
      j->tile(d + (size_t)ia0 * es, j->ob, s + (size_t)(ia0 * j->xa) * es,
              j->xa, na, nb);
    }
  }
}

/* t without axes a and b. */
static sl_tensor sl__without(const sl_tensor *t, int a, int b) {
  sl_tensor v = *t;
  v.ndim = 0;
  for (int d = 0; d < t->ndim; ++d)
    if (d != a && d != b) {
      v.shape[v.ndim] = t->shape[d];
      v.strides[v.ndim++] = t->strides[d];
    }
  return v;
}

int sl__copy_tiled(sl_tensor *out, const sl_tensor *x, int threads) {
  /* a: out's last unit-stride axis, along which x steps a cache line or
   * more; b: an axis along which x is unit-stride */
  const size_t es = sl_dtype_size(x->dtype);
  int a = -1, b = -1;
  for (int d = out->ndim - 1; d >= 0 && a < 0; --d)
    if (out->strides[d] == 1 && out->shape[d] > 1) a = d;
  if (a < 0 || x->strides[a] < 0 || !sl__steps_a_line(x->strides[a], es))
    return 0;
  for (int d = x->ndim - 1; d >= 0 && b < 0; --d)
    if (d != a && x->strides[d] == 1 && x->shape[d] > 1) b = d;
  if (b < 0 || out->strides[b] <= 0) return 0;
  sl__tile_job j = {.out = out,
                    .x = x,
                    .rest_out = sl__without(out, a, b),
                    .rest_x = sl__without(x, a, b),
                    .na = x->shape[a],
                    .nb = x->shape[b],
                    .xa = x->strides[a],
                    .ob = out->strides[b],
                    .tile = sl__tiles[sl__elem_class(es)]};
  j.rows = (j.nb + SL__TILE - 1) / SL__TILE;
  /* the team by the elements: a plane of 2000x2001 is 63 tile rows */
  sl__for_units(threads, sl__numel(x), sl__numel(&j.rest_x) * j.rows,
                sl__tile_range, &j);
  return 1;
}
