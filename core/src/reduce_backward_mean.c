/*
 * The backward line of mean when its counts outgrow the caches (reduce.h):
 * an int32 count per position, each thread counting the contributions to
 * its own range of positions, then grad_x and grad_src from them. The dense
 * lines (reduce_backward.c) keep a double count per position, added at
 * random in index order on one thread: on a line of 6M f16 positions and
 * 3.4M contributions that was 48 MB of doubles a miss each, plus every
 * input widened to float, and scatter_reduce_backward ran at 0.62x
 * LibTorch, its second thread idle.
 *
 * The same values: a count below 2^24 is exact in f32, which the dense
 * count rounds to (sl__count_add), so an integer count is that count; the
 * quotient g / N rounded once to the accumulation dtype is f32 division
 * for f32, f16 and bf16 (double division then rounding to f32 gives the
 * same bits) and double division for f64.
 */
#include <omp.h>
#include <stdint.h>
#include <string.h>

#include "conflict.h"
#include "half_blocks.h"
#include "reduce.h"
#include "walk.h"

int sl__rb_mean_fits(const sl__rbline *b, int64_t m) {
  const int exact = sl__acc_dtype(b->dt) == SL_F64 || m < ((int64_t)1 << 24);
  return b->reduce == SL_REDUCE_MEAN && m > 0 && m < INT32_MAX && exact &&
         b->gstep == 1 && b->gxstep == 1 &&
         b->n > (int64_t)SL__TH_BACKWARD_SCRATCH;
}

/* count[j] for j in [t0, t1): the contributions to j (index dtype it). */
SL__ALWAYS_INLINE void sl__rb_mean_count_as(sl_dtype it, const sl__rbline *b,
                                            const sl__rbptr *p, int32_t *count,
                                            int64_t t0, int64_t t1) {
  memset(count + t0, 0, (size_t)(t1 - t0) * sizeof *count);
  for (int64_t i = 0; i < p->m; ++i) {
    const int64_t v = sl__index_typed(it, b->index, p->ioff + i * b->istep);
    if (v >= t0 && v < t1) ++count[v];
  }
}

/* The divisor of position j: its count, x's element included, 0 -> 1
 * (N.masked_fill_(N == 0, 1)). */
static inline int32_t sl__rb_mean_divisor(const int32_t *count, int64_t j,
                                          int self) {
  const int32_t n = count[j] + self;
  return n == 0 ? 1 : n;
}

/* grad_x over positions [t0, t1) (both contiguous): g / N, and 0 at a
 * target where x is left out (its element is not in the result). */
#define SL__RB_MEAN_GX(j, g)                                                   \
  (!self && count[j] ? 0 : (g) / sl__rb_mean_divisor(count, j, self))
static void sl__rb_mean_grad_x(const sl__rbline *b, const sl__rbptr *p,
                               const int32_t *count, int64_t t0, int64_t t1) {
  const int self = b->include_self;
  if (b->dt == SL_F64) {
    const double *g = (const double *)(const void *)p->g;
    double *gx = (double *)(void *)p->gx;
    for (int64_t j = t0; j < t1; ++j) gx[j] = SL__RB_MEAN_GX(j, g[j]);
  } else if (b->dt == SL_F32) {
    const float *g = (const float *)(const void *)p->g;
    float *gx = (float *)(void *)p->gx;
    for (int64_t j = t0; j < t1; ++j) gx[j] = SL__RB_MEAN_GX(j, g[j]);
  } else { /* f16, bf16: a block widened, divided, narrowed */
    const uint16_t *g = (const uint16_t *)(const void *)p->g;
    uint16_t *gx = (uint16_t *)(void *)p->gx;
    float w[SL__HALF_BLOCK];
    for (int64_t a = t0; a < t1; a += SL__HALF_BLOCK) {
      const int64_t len = sl__half_block_len(t1, a);
      sl__half_load_block(b->dt, g + a, w, len);
      for (int64_t k = 0; k < len; ++k) w[k] = SL__RB_MEAN_GX(a + k, w[k]);
      sl__half_store_block(b->dt, w, gx + a, len);
    }
  }
}
#undef SL__RB_MEAN_GX

/* grad_src of contributions [i0, i1): g(t) / N(t) of its target t, N at
 * least 1 there. */
SL__ALWAYS_INLINE void sl__rb_mean_grad_src_as(sl_dtype it, const sl__rbline *b,
                                               const sl__rbptr *p,
                                               const int32_t *count, int64_t i0,
                                               int64_t i1) {
  const int self = b->include_self;
  const int64_t s = b->gsstep;
#define T(i) sl__index_typed(it, b->index, p->ioff + (i)*b->istep)
  if (b->dt == SL_F64) {
    const double *g = (const double *)(const void *)p->g;
    double *gs = (double *)(void *)p->gs;
    for (int64_t i = i0; i < i1; ++i) {
      const int64_t t = T(i);
      gs[i * s] = g[t] / (double)(count[t] + self);
    }
  } else if (b->dt == SL_F32) {
    const float *g = (const float *)(const void *)p->g;
    float *gs = (float *)(void *)p->gs;
    for (int64_t i = i0; i < i1; ++i) {
      const int64_t t = T(i);
      gs[i * s] = g[t] / (float)(count[t] + self);
    }
  } else { /* f16, bf16: a block gathered, widened, divided, narrowed */
    const uint16_t *g = (const uint16_t *)(const void *)p->g;
    uint16_t *gs = (uint16_t *)(void *)p->gs, h[SL__HALF_BLOCK];
    float w[SL__HALF_BLOCK], n[SL__HALF_BLOCK];
    for (int64_t a = i0; a < i1; a += SL__HALF_BLOCK) {
      const int64_t len = sl__half_block_len(i1, a);
      for (int64_t k = 0; k < len; ++k) {
        const int64_t t = T(a + k);
        h[k] = g[t], n[k] = (float)(count[t] + self);
      }
      sl__half_load_block(b->dt, h, w, len);
      for (int64_t k = 0; k < len; ++k) w[k] /= n[k];
      sl__half_store_block(b->dt, w, h, len);
      for (int64_t k = 0; k < len; ++k) gs[(a + k) * s] = h[k];
    }
  }
#undef T
}

/* The three passes of thread t of a team of `team`: counts and grad_x of
 * its range of positions (nothing shared), then, once every count is
 * written, grad_src of its range of contributions. */
SL__ALWAYS_INLINE void sl__rb_mean_passes(sl_dtype it, const sl__rbline *b,
                                          const sl__rbptr *p, int32_t *count,
                                          int team, int t) {
  int64_t t0, t1, i0, i1;
  sl__chunk(b->n, team, t, &t0, &t1);
  sl__rb_mean_count_as(it, b, p, count, t0, t1);
  sl__rb_mean_grad_x(b, p, count, t0, t1);
#pragma omp barrier
  sl__chunk(p->m, team, t, &i0, &i1);
  sl__rb_mean_grad_src_as(it, b, p, count, i0, i1);
}

static void sl__rb_mean_passes_i32(const sl__rbline *b, const sl__rbptr *p,
                                   int32_t *count, int team, int t) {
  sl__rb_mean_passes(SL_I32, b, p, count, team, t);
}

static void sl__rb_mean_passes_i64(const sl__rbline *b, const sl__rbptr *p,
                                   int32_t *count, int team, int t) {
  sl__rb_mean_passes(SL_I64, b, p, count, team, t);
}

int sl__rb_mean_line(const sl__rbline *b, const sl__rbptr *p, int threads) {
  int32_t *count = sl__malloc((size_t)b->n * sizeof *count);
  if (!count) return 0;
  const int i32 = b->index->dtype == SL_I32;
#pragma omp parallel num_threads(threads) if (threads > 1)
  {
    const int team = omp_get_num_threads(), t = omp_get_thread_num();
    if (i32)
      sl__rb_mean_passes_i32(b, p, count, team, t);
    else
      sl__rb_mean_passes_i64(b, p, count, team, t);
  }
  sl__free(count);
  return 1;
}
