/*
 * The backward line of amax/amin when its counts outgrow
 * SL__TH_BACKWARD_SCRATCH (reduce.h), for f16, bf16 and f32: what a
 * contribution reads of its target packed in one record. The dense line
 * (reduce_backward.c) reads result[t] and the count N[t] when counting,
 * result[t], g[t] and N[t] for the share, and writes grad_x[t] without
 * include_self: six arrays met at random, a cache miss each once the line
 * outgrows the caches (index_reduce_backward f16 amax of 3 million updates
 * into 5 million positions ran at 0.2-0.4x LibTorch). Here a record per
 * position (8 bytes: f16/bf16 lines run the f32 passes on widened blocks)
 * holds result, the count and whether the position is targeted, built in
 * order, then the position's share of g (g / N) in place of the count
 * once grad_x is written, so
 * that a contribution meets one line of memory per pass, and the records
 * of 3M f32 positions fit a 32 MiB L3 (with g in them, 12 bytes, they did
 * not: scatter_reduce_backward f32 amax 1-D ran at 0.65x); the passes but
 * the counting split among threads when the line is alone. Every element
 * sees the same operations in the same order (the values are exact in float,
 * the count rounds as sl__count_add), so the results are the dense path's,
 * bit for bit.
 */
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <string.h>

#include "half_blocks.h"
#include "reduce.h"
#include "walk.h"

/* A position's record: result as a float (es = 4 bytes), then a
 * float: its count, whose sign bit says whether the position is targeted
 * (a count is never negative), and after the grad_x pass its share. */
#define SL__REC_BYTES(es) ((es) + 4)

SL__ALWAYS_INLINE float sl__rec_count(const char *rec, int64_t es) {
  float c;
  memcpy(&c, rec + es, sizeof c);
  return c;
}

SL__ALWAYS_INLINE void sl__rec_set_count(char *rec, int64_t es, float c) {
  memcpy(rec + es, &c, sizeof c);
}

/* Contributions ahead whose record is fetched early: the loops are short
 * and each waits on its record. */
enum { SL__RB_AHEAD = 16 };

int sl__rb_packed_fits(const sl__rbline *b, int64_t m) {
  return (b->reduce == SL_REDUCE_AMAX || b->reduce == SL_REDUCE_AMIN) &&
         sl__acc_dtype(b->dt) == SL_F32 && m > 0 &&
         b->n > (int64_t)SL__TH_BACKWARD_SCRATCH;
}

/* The passes over positions [j0, j1) or contributions [i0, i1) of an f32
 * line (a half line's blocks are widened first). They run inside one
 * parallel region, not a region of their own each. */
#define SL__REC_LOAD(base, j, step) sl__load_f(SL_F32, SL__AT(base, j, step))
#define SL__REC_AT(j) (records + (j)*SL__REC_BYTES(es))

/* Each position's record: result, and count = (x == result). */
SL__ALWAYS_INLINE void sl__rb_packed_build(const sl__rbline *b,
                                           const sl__rbptr *p, char *records,
                                           int64_t j0, int64_t j1) {
  const int64_t es = sizeof(float);
  for (int64_t j = j0; j < j1; ++j) {
    char *rec = SL__REC_AT(j);
    memcpy(rec, SL__AT(p->res, j, b->rstep), (size_t)es);
    sl__rec_set_count(rec, es,
                      (float)sl__hit(SL__REC_LOAD(p->x, j, b->xstep),
                                     sl__load_f(SL_F32, rec)));
  }
}

/* Every contribution whose target lies in [j0, j1) counted there, in
 * index order (the counts round as sl__count_add), the target marked by
 * the count's sign. Each thread takes the targets of its own positions
 * and reads the whole index: no two threads touch one record, and each
 * record meets its contributions in the order of one thread. */
SL__ALWAYS_INLINE void sl__rb_packed_count(const sl__rbline *b,
                                           const sl__rbptr *p, char *records,
                                           int64_t j0, int64_t j1) {
  const int64_t es = sizeof(float), m = p->m;
  for (int64_t i = 0; i < m; ++i) {
    if (i + SL__RB_AHEAD < m) {
      const int64_t ahead =
          sl__target(b->index, p->ioff, b->istep, i + SL__RB_AHEAD);
      if (ahead >= j0 && ahead < j1) __builtin_prefetch(SL__REC_AT(ahead), 1);
    }
    const int64_t t = sl__target(b->index, p->ioff, b->istep, i);
    if (t < j0 || t >= j1) continue;
    char *rec = SL__REC_AT(t);
    const float c = fabsf(sl__rec_count(rec, es));
    const double hit =
        sl__hit(SL__REC_LOAD(p->src, i, b->sstep), sl__load_f(SL_F32, rec));
    sl__rec_set_count(rec, es, -(float)sl__count_add(SL_F32, c, hit));
  }
}

/* (x == result) * (g / N), 0 at a targeted position without include_self;
 * a zero N gives inf or NaN, and 0 * inf is NaN, as in LibTorch. The share
 * (exact in float) replaces the count. */
SL__ALWAYS_INLINE void sl__rb_packed_gx(const sl__rbline *b, const sl__rbptr *p,
                                        char *records, int64_t j0, int64_t j1) {
  const int64_t es = sizeof(float);
  for (int64_t j = j0; j < j1; ++j) {
    char *rec = SL__REC_AT(j);
    const float c = sl__rec_count(rec, es);
    const double hit =
        sl__hit(SL__REC_LOAD(p->x, j, b->xstep), sl__load_f(SL_F32, rec));
    const double share =
        sl__round_to(SL_F32, SL__REC_LOAD(p->g, j, b->gstep) / fabsf(c));
    sl__store_f(SL_F32, SL__AT(p->gx, j, b->gxstep),
                sl__pick_f64(!b->include_self && signbit(c), 0.0, hit * share));
    sl__rec_set_count(rec, es, (float)share);
  }
}

/* grad_src: (src == result[t]) * share[t]. */
SL__ALWAYS_INLINE void sl__rb_packed_gs(const sl__rbline *b, const sl__rbptr *p,
                                        char *records, int64_t i0, int64_t i1) {
  const int64_t es = sizeof(float);
  for (int64_t i = i0; i < i1; ++i) {
    if (i + SL__RB_AHEAD < i1)
      __builtin_prefetch(
          SL__REC_AT(sl__target(b->index, p->ioff, b->istep, i + SL__RB_AHEAD)),
          0);
    const char *rec = SL__REC_AT(sl__target(b->index, p->ioff, b->istep, i));
    const double hit =
        sl__hit(SL__REC_LOAD(p->src, i, b->sstep), sl__load_f(SL_F32, rec));
    sl__store_f(SL_F32, SL__AT(p->gs, i, b->gsstep),
                hit * (double)sl__rec_count(rec, es));
  }
}

/* This thread's positions [j0, j1) and contributions [i0, i1) of a line's
 * region. */
static void sl__rb_packed_share(const sl__rbline *b, const sl__rbptr *p,
                                int64_t *j0, int64_t *j1, int64_t *i0,
                                int64_t *i1) {
  const int team = omp_get_num_threads(), t = omp_get_thread_num();
  sl__chunk(b->n, team, t, j0, j1);
  sl__chunk(p->m, team, t, i0, i1);
}

/* The passes of one f32 line on `threads` threads, in one region: each
 * thread builds, counts into and reads the records of its own positions,
 * so only grad_src, which reads any record, waits for all of them. */
static void sl__rb_packed_f32(const sl__rbline *b, const sl__rbptr *p,
                              char *records, int threads) {
#pragma omp parallel num_threads(threads) if (threads > 1)
  {
    int64_t j0, j1, i0, i1;
    sl__rb_packed_share(b, p, &j0, &j1, &i0, &i1);
    sl__rb_packed_build(b, p, records, j0, j1);
    sl__rb_packed_count(b, p, records, j0, j1);
    sl__rb_packed_gx(b, p, records, j0, j1);
#pragma omp barrier
    sl__rb_packed_gs(b, p, records, i0, i1);
  }
}

/*
 * An f16 or bf16 line: the f32 passes over blocks of SL__HALF_BLOCK
 * positions or contributions widened into float buffers (unit steps),
 * their outputs narrowed back. The records hold the result as a float. A
 * conversion per element in software was most of the time (f16 amax of
 * 8.6M contributions: 0.37x LibTorch). The values are the f32 passes'
 * (every quantity is a float: result, counts rounded as f32, shares) and
 * the half instance's: a float rounds to the half type as its double does.
 */
typedef struct sl__rb_half_bufs {
  float a[SL__HALF_BLOCK], b[SL__HALF_BLOCK], out[SL__HALF_BLOCK];
} sl__rb_half_bufs;

/* b's geometry with unit steps and dtype f32, for passes over buffers. */
static sl__rbline sl__rb_unit_line(const sl__rbline *b) {
  sl__rbline u = *b;
  u.dt = SL_F32;
  u.gstep = u.xstep = u.rstep = u.gxstep = u.sstep = u.gsstep = 1;
  return u;
}

/* Positions [j0, j1): the records' build (gx 0) or grad_x (gx 1). */
static void sl__rb_half_positions(const sl__rbline *b, const sl__rbptr *p,
                                  char *records, int64_t j0, int64_t j1, int gx,
                                  sl__rb_half_bufs *w) {
  const sl__rbline u = sl__rb_unit_line(b);
  for (int64_t a = j0; a < j1; a += SL__HALF_BLOCK) {
    const int64_t len = sl__half_block_len(j1, a);
    sl__rbptr q = *p;
    q.x = (const char *)w->a, q.res = q.g = (const char *)w->b;
    q.gx = (char *)w->out;
    sl__half_load_steps(b->dt, p->x + 2 * a * b->xstep, b->xstep, w->a, len);
    char *rec = records + a * SL__REC_BYTES(4);
    if (!gx) {
      sl__half_load_steps(b->dt, p->res + 2 * a * b->rstep, b->rstep, w->b,
                          len);
      sl__rb_packed_build(&u, &q, rec, 0, len);
      continue;
    }
    sl__half_load_steps(b->dt, p->g + 2 * a * b->gstep, b->gstep, w->b, len);
    sl__rb_packed_gx(&u, &q, rec, 0, len);
    sl__half_store_steps(b->dt, w->out, p->gx + 2 * a * b->gxstep, b->gxstep,
                         len);
  }
}

/* Contributions [i0, i1): counted into positions [j0, j1) (gs 0), or
 * grad_src (gs 1). */
static void sl__rb_half_contributions(const sl__rbline *b, const sl__rbptr *p,
                                      char *records, int64_t i0, int64_t i1,
                                      int64_t j0, int64_t j1, int gs,
                                      sl__rb_half_bufs *w) {
  const sl__rbline u = sl__rb_unit_line(b);
  for (int64_t a = i0; a < i1; a += SL__HALF_BLOCK) {
    const int64_t len = sl__half_block_len(i1, a);
    sl__rbptr q = *p;
    q.ioff = p->ioff + a * b->istep, q.m = len;
    q.src = (const char *)w->a, q.gs = (char *)w->out;
    sl__half_load_steps(b->dt, p->src + 2 * a * b->sstep, b->sstep, w->a, len);
    if (!gs) {
      sl__rb_packed_count(&u, &q, records, j0, j1);
      continue;
    }
    sl__rb_packed_gs(&u, &q, records, 0, len);
    sl__half_store_steps(b->dt, w->out, p->gs + 2 * a * b->gsstep, b->gsstep,
                         len);
  }
}

static void sl__rb_packed_half(const sl__rbline *b, const sl__rbptr *p,
                               char *records, int threads) {
#pragma omp parallel num_threads(threads) if (threads > 1)
  {
    int64_t j0, j1, i0, i1;
    sl__rb_packed_share(b, p, &j0, &j1, &i0, &i1);
    sl__rb_half_bufs w;
    sl__rb_half_positions(b, p, records, j0, j1, 0, &w);
    sl__rb_half_contributions(b, p, records, 0, p->m, j0, j1, 0, &w);
    sl__rb_half_positions(b, p, records, j0, j1, 1, &w);
#pragma omp barrier
    sl__rb_half_contributions(b, p, records, i0, i1, 0, 0, 1, &w);
  }
}
#undef SL__REC_LOAD
#undef SL__REC_AT

int sl__rb_packed_line(const sl__rbline *b, const sl__rbptr *p, int threads) {
  /* the records' result is a float for every dtype taken */
  char *records = sl__malloc((size_t)(b->n * SL__REC_BYTES(4)));
  if (!records) return 0;
  if (b->dt == SL_F32)
    sl__rb_packed_f32(b, p, records, threads);
  else
    sl__rb_packed_half(b, p, records, threads);
  sl__free(records);
  return 1;
}
