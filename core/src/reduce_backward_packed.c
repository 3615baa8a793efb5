/*
 * The backward line of amax/amin when its counts outgrow
 * SL__TH_BACKWARD_SCRATCH (reduce.h), for f16, bf16 and f32: what a
 * contribution reads of its target packed in one record. The dense line
 * (reduce_backward.c) reads result[t] and the count N[t] when counting,
 * result[t], g[t] and N[t] for the share, and writes grad_x[t] without
 * include_self: six arrays met at random, a cache miss each once the line
 * outgrows the caches (index_reduce_backward f16 amax of 3 million updates
 * into 5 million positions ran at 0.2-0.4x LibTorch). Here a record per
 * position (8 bytes for f16/bf16, 12 for f32) holds result, g, the
 * count and whether the position is targeted, built in order, so that a
 * contribution meets one line of memory per pass; the passes but the
 * counting split among threads when the line is alone. Every element sees
 * the same operations in the same order (the values are exact in float,
 * the count rounds as sl__count_add), so the results are the dense path's,
 * bit for bit.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "reduce.h"

/* A position's record: result and g as the line holds them (es bytes
 * each), then its count as a float whose sign bit says whether the
 * position is targeted (a count is never negative): 8 bytes for f16/bf16,
 * 12 for f32. */
#define SL__REC_BYTES(es) (2 * (es) + 4)

SL__ALWAYS_INLINE float sl__rec_count(const char *rec, int64_t es) {
  float c;
  memcpy(&c, rec + 2 * es, sizeof c);
  return c;
}

SL__ALWAYS_INLINE void sl__rec_set_count(char *rec, int64_t es, float c) {
  memcpy(rec + 2 * es, &c, sizeof c);
}

/* Contributions ahead whose record is fetched early: the loops are short
 * and each waits on its record. */
enum { SL__RB_AHEAD = 16 };

int sl__rb_packed_fits(const sl__rbline *b, int64_t m) {
  return (b->reduce == SL_REDUCE_AMAX || b->reduce == SL_REDUCE_AMIN) &&
         sl__acc_dtype(b->dt) == SL_F32 && m > 0 &&
         b->n > (int64_t)SL__TH_BACKWARD_SCRATCH;
}

SL__ALWAYS_INLINE void sl__rb_packed_as(sl_dtype dt, const sl__rbline *b,
                                        const sl__rbptr *p, char *records,
                                        int threads) {
  const int64_t es = (int64_t)sl__dtype_size(dt), n = b->n, m = p->m;
  const int64_t rs = SL__REC_BYTES(es);
#define LOAD(base, j, step) sl__load_f(dt, SL__AT(base, j, step))
#define T(i) sl__target(b->index, p->ioff, b->istep, i)
#define REC(j) (records + (j)*rs)
#pragma omp parallel for num_threads(threads) if (threads > 1) schedule(static)
  for (int64_t j = 0; j < n; ++j) {
    char *rec = REC(j);
    memcpy(rec, SL__AT(p->res, j, b->rstep), (size_t)es);
    memcpy(rec + es, SL__AT(p->g, j, b->gstep), (size_t)es);
    sl__rec_set_count(
        rec, es, LOAD(p->x, j, b->xstep) == sl__load_f(dt, rec) ? 1.0f : 0.0f);
  }
  for (int64_t i = 0; i < m; ++i) {
    if (i + SL__RB_AHEAD < m) __builtin_prefetch(REC(T(i + SL__RB_AHEAD)), 1);
    char *rec = REC(T(i));
    const float c = fabsf(sl__rec_count(rec, es));
    const double hit = LOAD(p->src, i, b->sstep) == sl__load_f(dt, rec);
    sl__rec_set_count(rec, es, -(float)sl__count_add(dt, c, hit));
  }
  /* (x == result) * (g / N), 0 at a targeted position without
   * include_self; a zero N gives inf or NaN, and 0 * inf is NaN, as in
   * LibTorch. */
#pragma omp parallel for num_threads(threads) if (threads > 1) schedule(static)
  for (int64_t j = 0; j < n; ++j) {
    const char *rec = REC(j);
    const float c = sl__rec_count(rec, es);
    const double hit = LOAD(p->x, j, b->xstep) == sl__load_f(dt, rec);
    const double share =
        sl__round_to(SL_F32, sl__load_f(dt, rec + es) / fabsf(c));
    sl__store_f(dt, SL__AT(p->gx, j, b->gxstep),
                !b->include_self && signbit(c) ? 0.0 : hit * share);
  }
#pragma omp parallel for num_threads(threads) if (threads > 1) schedule(static)
  for (int64_t i = 0; i < m; ++i) {
    if (i + SL__RB_AHEAD < m) __builtin_prefetch(REC(T(i + SL__RB_AHEAD)), 0);
    const char *rec = REC(T(i));
    const double hit = LOAD(p->src, i, b->sstep) == sl__load_f(dt, rec);
    const double g = sl__load_f(dt, rec + es);
    sl__store_f(dt, SL__AT(p->gs, i, b->gsstep),
                hit * sl__round_to(SL_F32, g / fabsf(sl__rec_count(rec, es))));
  }
#undef LOAD
#undef T
#undef REC
}

#define SL__RB_PACKED_DTYPES(X) X(F32) X(F16) X(BF16)
#define SL__RB_PACKED_FN(D)                                                    \
  static void sl__rb_packed_##D(const sl__rbline *b, const sl__rbptr *p,       \
                                char *records, int threads) {                  \
    sl__rb_packed_as(SL_##D, b, p, records, threads);                          \
  }
SL__RB_PACKED_DTYPES(SL__RB_PACKED_FN)
#undef SL__RB_PACKED_FN

int sl__rb_packed_line(const sl__rbline *b, const sl__rbptr *p, int threads) {
  const int64_t es = (int64_t)sl_dtype_size(b->dt);
  char *records = sl__malloc((size_t)(b->n * SL__REC_BYTES(es)));
  if (!records) return 0;
#define SL__RB_PACKED_IS(D)                                                    \
  if (b->dt == SL_##D) sl__rb_packed_##D(b, p, records, threads);
  SL__RB_PACKED_DTYPES(SL__RB_PACKED_IS)
#undef SL__RB_PACKED_IS
  sl__free(records);
  return 1;
}
