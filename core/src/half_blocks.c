/* f16 and bf16 blocks to float and back (half_blocks.h). */
#include "half_blocks.h"

#include "walk.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <immintrin.h>
#define SL__HAVE_F16C_LOOPS 1
#define SL__F16C __attribute__((target("avx,f16c")))

/* F16C and the AVX state the OS saves (GCC 12's __builtin_cpu_supports
 * does not know "f16c"). */
static int sl__f16c_probe(void) {
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
  const unsigned avx = 1u << 28, osxsave = 1u << 27, f16c = 1u << 29;
  if ((c & (avx | osxsave | f16c)) != (avx | osxsave | f16c)) return 0;
  unsigned lo, hi;
  __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (lo & 6u) == 6u; /* XMM and YMM state */
}

/* Probed once; threads that race here store the same answer. */
static int sl__f16c_ok(void) {
  static int known = -1;
  int ok = __atomic_load_n(&known, __ATOMIC_RELAXED);
  if (ok < 0) {
    ok = sl__f16c_probe();
    __atomic_store_n(&known, ok, __ATOMIC_RELAXED);
  }
  return ok;
}

SL__F16C static int64_t sl__f16_load8(const uint16_t *src, float *dst,
                                      int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(
        dst + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(src + i))));
  return i;
}

SL__F16C static int64_t sl__f16_store8(const float *src, uint16_t *dst,
                                       int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm_storeu_si128(
        (__m128i *)(dst + i),
        _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT));
  return i;
}
#endif

/* The bf16 loops, with AVX2 and AVX-512 clones: SSE2 has 4 lanes and no
 * unsigned 32-to-16-bit pack, which the narrowing spends most of its
 * instructions emulating. */
SL__SIMD_CLONES static void sl__bf16_load_loop(const uint16_t *h, float *dst,
                                               int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = sl__bf16_to_f32(h[i]);
}

SL__SIMD_CLONES static void sl__bf16_store_loop(const float *src, uint16_t *h,
                                                int64_t n) {
  for (int64_t i = 0; i < n; ++i) h[i] = sl__f32_to_bf16(src[i]);
}

void sl__half_load_block(sl_dtype dt, const void *src, float *dst, int64_t n) {
  const uint16_t *h = src;
  int64_t i = 0;
  if (dt == SL_BF16) {
    sl__bf16_load_loop(h, dst, n);
    return;
  }
#ifdef SL__HAVE_F16C_LOOPS
  if (sl__f16c_ok()) i = sl__f16_load8(h, dst, n);
#endif
  for (; i < n; ++i) dst[i] = sl__f16_to_f32(h[i]);
}

void sl__half_store_block(sl_dtype dt, const float *src, void *dst, int64_t n) {
  uint16_t *h = dst;
  int64_t i = 0;
  if (dt == SL_BF16) {
    sl__bf16_store_loop(src, h, n);
    return;
  }
#ifdef SL__HAVE_F16C_LOOPS
  if (sl__f16c_ok()) i = sl__f16_store8(src, h, n);
#endif
  for (; i < n; ++i) h[i] = sl__f32_to_f16(src[i]);
}

void sl__half_load_steps(sl_dtype dt, const void *src, int64_t step, float *dst,
                         int64_t n) {
  if (step == 1) {
    sl__half_load_block(dt, src, dst, n);
    return;
  }
  /* gathered first, then widened as a block: one conversion call per
   * element was most of a strided row's time */
  const uint16_t *h = src;
  uint16_t bits[SL__HALF_BLOCK];
  for (int64_t i = 0; i < n; ++i) bits[i] = h[i * step];
  sl__half_load_block(dt, bits, dst, n);
}

void sl__half_store_steps(sl_dtype dt, const float *src, void *dst,
                          int64_t step, int64_t n) {
  if (step == 1) {
    sl__half_store_block(dt, src, dst, n);
    return;
  }
  uint16_t *h = dst, bits[SL__HALF_BLOCK];
  sl__half_store_block(dt, src, bits, n);
  for (int64_t i = 0; i < n; ++i) h[i * step] = bits[i];
}

void sl__half_load_at(sl_dtype dt, const void *base, const int64_t *off,
                      float *dst, int64_t n) {
  const uint16_t *h = base;
  uint16_t bits[SL__HALF_BLOCK];
  if (n <= 0) return; /* else gcc sees bits read unwritten */
  for (int64_t i = 0; i < n; ++i) bits[i] = h[off[i]];
  sl__half_load_block(dt, bits, dst, n);
}

void sl__half_store_at(sl_dtype dt, const float *src, void *base,
                       const int64_t *off, int64_t n) {
  uint16_t *h = base, bits[SL__HALF_BLOCK];
  sl__half_store_block(dt, src, bits, n);
  for (int64_t i = 0; i < n; ++i) h[off[i]] = bits[i];
}

/* One chunk of a whole-tensor conversion (sl__for_chunks). */
typedef struct sl__half_all {
  sl_dtype dt;
  char *half;
  float *wide;
  int to_half;
} sl__half_all;

static void sl__half_all_range(void *user, int64_t begin, int64_t end) {
  const sl__half_all *v = user;
  if (v->to_half)
    sl__half_store_block(v->dt, v->wide + begin, v->half + begin * 2,
                         end - begin);
  else
    sl__half_load_block(v->dt, v->half + begin * 2, v->wide + begin,
                        end - begin);
}

void sl__half_widen_all(sl_dtype dt, const void *half, float *wide, int64_t n,
                        int threads) {
  sl__half_all v = {dt, (char *)half, wide, 0};
  sl__for_chunks(threads, n, sl__half_all_range, &v);
}

void sl__half_narrow_all(sl_dtype dt, const float *wide, void *half, int64_t n,
                         int threads) {
  sl__half_all v = {dt, half, (float *)wide, 1};
  sl__for_chunks(threads, n, sl__half_all_range, &v);
}
