/*
 * segment_reduce on the CPU (docs/spec.md §1):
 *   cpu.serial  every output element reduces its segment in position order
 *               (LibTorch's CPU order: an f32 sum is bitwise LibTorch's);
 *   cpu.omp     the same tasks (a segment over a block of columns) shared
 *               among threads: each output element has one writer, so the
 *               answer is bitwise the serial one;
 *   cpu.atomic  parallel over data's positions, each combined into its
 *               segment's output element with conflict.h's atomics: the
 *               variant with write conflicts (float sums and products then
 *               depend on the order of arrival).
 * Every step rounds to the accumulation dtype (reduce.h: f32 for f16, bf16
 * and f32, f64 for f64); f16/bf16 round to their own dtype once, on store.
 */
#include <stdlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "conflict.h"
#include "half_blocks.h"
#include "segment_reduce.h"
#include "walk.h"

/* Slots. */
enum { D_ = 0, L_, O_ };

/* Where a segment's reduction starts: `initial` as data's dtype holds it
 * (LibTorch converts the Scalar to scalar_t), else the identity. */
static double sl__seg_start(const sl_call *c) {
  if (c->p.has_value) return sl__round_to(c->arg[D_].dtype, c->p.value);
  return sl__reduce_identity_f(c->p.reduce);
}

/* A segment's final value from its accumulator: mean divides by the
 * length (as the accumulation dtype holds it), an empty segment's mean is
 * initial when given, else NaN. */
static inline double sl__seg_final(sl_dtype dt, sl_reduce r, double acc,
                                   int64_t len, int has_initial) {
  if (r != SL_REDUCE_MEAN) return acc;
  if (len == 0) return has_initial ? acc : NAN;
  return sl__round_to(sl__acc_dtype(dt),
                      acc / sl__round_to(sl__acc_dtype(dt), (double)len));
}

typedef struct sl__seg_job {
  const sl_call *c;
  sl__seg_geom g;
  const int64_t *offs;
  int64_t orow;   /* offsets from one row to the next (0: one shared) */
  int64_t blocks; /* column blocks per segment */
  double start;
} sl__seg_job;

/* acc[k] := the reduction of rows [b, e) of drow's column k (k < w) from
 * start, every step rounded as the accumulation dtype rounds it. An f32
 * sum, mean or prod runs in float: one operation in double rounded to f32
 * is f32's own, and the two conversions a step were on the chain through
 * the accumulator. amax and amin return an operand, which needs no
 * rounding. */
SL__ALWAYS_INLINE void sl__seg_accumulate(sl_dtype dt, sl_reduce r,
                                          const char *drow, int64_t dstep,
                                          const int64_t *doff, int64_t w,
                                          int64_t b, int64_t e, double start,
                                          double *acc) {
  const int64_t es = (int64_t)sl__dtype_size(dt);
  const int picks = r == SL_REDUCE_AMAX || r == SL_REDUCE_AMIN;
  const int in_float = sl__acc_dtype(dt) == SL_F32 && !picks;
  if (w == 1) {
    /* One column: the accumulator in a register, so that one segment's
     * chain overlaps the next one's (through f[0] every step waited on the
     * last one's store: bf16 prod of segments of 8 along 1-D data ran at
     * 0.52x LibTorch). */
    const char *col = drow + doff[0] * es;
    float f = (float)start;
    double a = start;
    for (int64_t i = b; i < e; ++i) {
      const double v = sl__load_f(dt, col + i * dstep);
      if (in_float)
        f = r == SL_REDUCE_PROD ? f * (float)v : f + (float)v;
      else
        a = picks ? sl__reduce_f(r, a, v)
                  : sl__round_to(sl__acc_dtype(dt), sl__reduce_f(r, a, v));
    }
    acc[0] = in_float ? f : a;
    return;
  }
  if (in_float) {
    float f[SL__SEG_BLOCK];
    for (int64_t k = 0; k < w; ++k) f[k] = (float)start;
    for (int64_t i = b; i < e; ++i) {
      const char *row = drow + i * dstep;
      for (int64_t k = 0; k < w; ++k) {
        const float v = (float)sl__load_f(dt, row + doff[k] * es);
        f[k] = r == SL_REDUCE_PROD ? f[k] * v : f[k] + v;
      }
    }
    for (int64_t k = 0; k < w; ++k) acc[k] = f[k];
    return;
  }
  for (int64_t k = 0; k < w; ++k) acc[k] = start;
  for (int64_t i = b; i < e; ++i) {
    const char *row = drow + i * dstep;
    for (int64_t k = 0; k < w; ++k) {
      const double v =
          sl__reduce_f(r, acc[k], sl__load_f(dt, row + doff[k] * es));
      acc[k] = picks ? v : sl__round_to(sl__acc_dtype(dt), v);
    }
  }
}

/*
 * One task of f16 or bf16 over w >= SL__SEG_HALF_MIN_COLUMNS columns in
 * float, the conversions a block of columns at a time (half_blocks.h)
 * instead of one element at a time through double (f16 amax over 8
 * columns: 3.9-5.4x LibTorch that way, 9.1-9.4x so). The same values: the
 * accumulation dtype is f32, start and the data are exact in float, and
 * sl__seg_final rounds a mean to f32. r is a constant in each instance.
 */
SL__ALWAYS_INLINE void sl__seg_half_task(sl_dtype dt, sl_reduce r,
                                         const sl__seg_job *j, const char *drow,
                                         int64_t dstep, const int64_t *doff,
                                         char *obase, const int64_t *ooff,
                                         int64_t w, int64_t b, int64_t e) {
  float f[SL__SEG_BLOCK], v[SL__SEG_BLOCK];
  for (int64_t k = 0; k < w; ++k) f[k] = (float)j->start;
  for (int64_t i = b; i < e; ++i) {
    sl__half_load_at(dt, drow + i * dstep, doff, v, w);
    for (int64_t k = 0; k < w; ++k) f[k] = sl__combine_f32(r, f[k], v[k]);
  }
  for (int64_t k = 0; k < w; ++k)
    f[k] = (float)sl__seg_final(dt, r, f[k], e - b, j->c->p.has_value);
  sl__half_store_at(dt, f, obase, ooff, w);
}

/* Tasks [t0, t1): task t is segment (q, s) over column block blk (t =
 * (q * S + s) * blocks + blk), taken in order so that the column offsets
 * are computed when the block changes and the row offsets when q does
 * (one task at a time spent its 100 ns on those divisions, for segments of
 * 16 along the last axis). dt and r are constants in each instance, so
 * the loads, the rounding and the combine fold. */
SL__ALWAYS_INLINE void sl__seg_tasks_as(sl_dtype dt, sl_reduce r,
                                        const sl__seg_job *j, int64_t t0,
                                        int64_t t1) {
  const sl_call *c = j->c;
  const sl__seg_geom *g = &j->g;
  const sl_tensor *data = &c->arg[D_], *out = &c->arg[O_];
  const int64_t es = (int64_t)sl__dtype_size(dt), S = g->S;
  const int64_t dstep = data->strides[g->axis] * es;
  const int64_t ostep = out->strides[g->axis] * es;
  int64_t blk = t0 % j->blocks, q = t0 / j->blocks / S, s = t0 / j->blocks % S;
  int64_t have_blk = -1, have_q = -1, w = 0;
  int64_t doff[SL__SEG_BLOCK], ooff[SL__SEG_BLOCK];
  double acc[SL__SEG_BLOCK];
  const char *drow = NULL;
  char *orow = NULL;
  for (int64_t t = t0; t < t1; ++t) {
    if (blk != have_blk) {
      const int64_t r0 = blk * SL__SEG_BLOCK;
      w = g->R - r0 < SL__SEG_BLOCK ? g->R - r0 : SL__SEG_BLOCK;
      sl__seg_cols(g, data, r0, w, doff);
      sl__seg_cols(g, out, r0, w, ooff);
      have_blk = blk;
    }
    if (q != have_q) {
      drow = sl__ptr(data, sl__seg_row_off(g, data, q));
      orow = sl__ptr(out, sl__seg_row_off(g, out, q));
      have_q = q;
    }
    const int64_t b = j->offs[q * j->orow + s];
    const int64_t e = j->offs[q * j->orow + s + 1];
    char *obase = orow + s * ostep;
    if ((dt == SL_F16 || dt == SL_BF16) && w >= SL__SEG_HALF_MIN_COLUMNS) {
      sl__seg_half_task(dt, r, j, drow, dstep, doff, obase, ooff, w, b, e);
    } else {
      sl__seg_accumulate(dt, r, drow, dstep, doff, w, b, e, j->start, acc);
      for (int64_t k = 0; k < w; ++k)
        sl__store_f(dt, obase + ooff[k] * es,
                    sl__seg_final(dt, r, acc[k], e - b, c->p.has_value));
    }
    if (++blk == j->blocks) {
      blk = 0;
      if (++s == S) s = 0, ++q;
    }
  }
}

/* sl__seg_tasks_as for the call's reduce, a constant. */
#define SL__SEG_TASK_R(DT, j, t0, t1)                                          \
  do {                                                                         \
    switch ((j)->c->p.reduce) {                                                \
    case SL_REDUCE_SUM:                                                        \
      sl__seg_tasks_as(DT, SL_REDUCE_SUM, j, t0, t1);                          \
      break;                                                                   \
    case SL_REDUCE_MEAN:                                                       \
      sl__seg_tasks_as(DT, SL_REDUCE_MEAN, j, t0, t1);                         \
      break;                                                                   \
    case SL_REDUCE_PROD:                                                       \
      sl__seg_tasks_as(DT, SL_REDUCE_PROD, j, t0, t1);                         \
      break;                                                                   \
    case SL_REDUCE_AMAX:                                                       \
      sl__seg_tasks_as(DT, SL_REDUCE_AMAX, j, t0, t1);                         \
      break;                                                                   \
    default:                                                                   \
      sl__seg_tasks_as(DT, SL_REDUCE_AMIN, j, t0, t1);                         \
      break;                                                                   \
    }                                                                          \
  } while (0)

static void sl__seg_tasks(const sl__seg_job *j, int64_t t0, int64_t t1) {
  switch (j->c->arg[D_].dtype) {
  case SL_F32:
    SL__SEG_TASK_R(SL_F32, j, t0, t1);
    break;
  case SL_F64:
    SL__SEG_TASK_R(SL_F64, j, t0, t1);
    break;
  case SL_F16:
    SL__SEG_TASK_R(SL_F16, j, t0, t1);
    break;
  default:
    SL__SEG_TASK_R(SL_BF16, j, t0, t1);
    break;
  }
}
#undef SL__SEG_TASK_R

static sl_status sl__seg_run(sl_ctx *ctx, sl_call *c, int threads) {
  sl__seg_job j = {.c = c};
  sl__seg_geom_of(&c->arg[D_], &c->arg[L_], (int)c->p.dim, c->segment.offsets,
                  &j.g);
  if (sl__numel(&c->arg[O_]) == 0) return SL_STATUS_OK;
  int64_t *offs;
  /* cpu.serial and cpu.omp check the lengths as they make the offsets
   * (SL_CHECKS_INDEX_VALUES): infer's pass over them was a third of the
   * time of 735899 segments of one element */
  sl_status st = sl__seg_offsets_rows(ctx, c, L_, &j.g, 0, &offs, &j.orow);
  if (st) return st;
  j.offs = offs;
  j.blocks = (j.g.R + SL__SEG_BLOCK - 1) / SL__SEG_BLOCK;
  j.start = sl__seg_start(c);
  const int64_t tasks = j.g.Q * j.g.S * j.blocks;
  /* Work: every data element once, every output element once. */
  const int team = sl__team(threads, j.g.Q * (j.g.N + j.g.S) * j.g.R);
  /* Segments differ in length: runs of tasks are handed out as threads
   * free up. */
  const int64_t runs = (tasks + SL__SEG_RUN - 1) / SL__SEG_RUN;
#pragma omp parallel for num_threads(team) schedule(guided) if (team > 1)
  for (int64_t u = 0; u < runs; ++u)
    sl__seg_tasks(&j, u * SL__SEG_RUN,
                  (u + 1) * SL__SEG_RUN < tasks ? (u + 1) * SL__SEG_RUN
                                                : tasks);
  sl__seg_offsets_free(c, L_, offs);
  return SL_STATUS_OK;
}

sl_status sl_segment_reduce_cpu_serial(sl_ctx *ctx, sl_call *c) {
  return sl__seg_run(ctx, c, 1);
}

sl_status sl_segment_reduce_cpu_omp(sl_ctx *ctx, sl_call *c) {
  return sl__seg_run(ctx, c, sl__threads(ctx));
}

/* ------------------------------------------------------------------------ */
/* cpu.atomic                                                                */
/* ------------------------------------------------------------------------ */

/* The segment of row q that holds position i: the last s with
 * offs[s] <= i (empty segments before it share its start). */
static int64_t sl__seg_find(const int64_t *o, int64_t S, int64_t i) {
  int64_t lo = 0, hi = S - 1;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo + 1) / 2;
    if (o[mid] <= i)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

/*
 * The accumulators: out itself for f32 and f64 (combined in place with
 * sl__atomic_elem), an f32 array [Q, S, R] for f16 and bf16. All start at
 * the segment's start value; then every data position (q, i, r) is
 * combined into (q, s(i), r) by whichever thread owns position (q, i); a
 * final pass divides the means and rounds the half types.
 */
typedef struct sl__seg_atomic {
  sl__seg_job j;
  float *wide;
  int64_t es;
} sl__seg_atomic;

/* Segment qs = q * S + s's element 0 of out (column offsets add to it). */
static char *sl__seg_out_row(const sl__seg_job *j, int64_t qs) {
  const sl_tensor *out = &j->c->arg[O_];
  return sl__ptr(out, sl__seg_row_off(&j->g, out, qs / j->g.S) +
                          qs % j->g.S * out->strides[j->g.axis]);
}

/* The first pass (the start value everywhere) or the last (means, the
 * half types' rounding) over the segments [b, e). */
static void sl__seg_atomic_pass(const sl__seg_atomic *a, int last, int64_t b,
                                int64_t e) {
  const sl__seg_job *j = &a->j;
  const sl_call *c = j->c;
  const sl_dtype dt = c->arg[D_].dtype;
  const int64_t R = j->g.R, S = j->g.S;
  int64_t off[SL__SEG_BLOCK];
  for (int64_t r0 = 0; r0 < R; r0 += SL__SEG_BLOCK) {
    const int64_t w = R - r0 < SL__SEG_BLOCK ? R - r0 : SL__SEG_BLOCK;
    sl__seg_cols(&j->g, &c->arg[O_], r0, w, off);
    for (int64_t qs = b; qs < e; ++qs) {
      char *o = sl__seg_out_row(j, qs);
      float *wide = a->wide ? a->wide + qs * R + r0 : NULL;
      if (!last) {
        for (int64_t k = 0; k < w; ++k) {
          if (wide)
            wide[k] = (float)j->start;
          else
            sl__store_f(dt, o + off[k] * a->es, j->start);
        }
        continue;
      }
      const int64_t *ob = j->offs + qs / S * (S + 1) + qs % S;
      const int64_t len = ob[1] - ob[0];
      for (int64_t k = 0; k < w; ++k) {
        char *p = o + off[k] * a->es;
        const double v = wide ? wide[k] : sl__load_f(dt, p);
        sl__store_f(dt, p,
                    sl__seg_final(dt, c->p.reduce, v, len, c->p.has_value));
      }
    }
  }
}

/* The data rows [b, e) of the flattened (q, i), combined atomically. The
 * row's segment is found once per q (binary search) and then followed. */
static void sl__seg_atomic_rows(const sl__seg_atomic *a, int64_t b, int64_t e) {
  const sl__seg_job *j = &a->j;
  const sl__seg_geom *g = &j->g;
  const sl_call *c = j->c;
  const sl_tensor *data = &c->arg[D_], *out = &c->arg[O_];
  const sl_dtype dt = data->dtype;
  const sl_reduce r = c->p.reduce;
  const int64_t es = a->es, S = g->S, R = g->R, N = g->N;
  if (b >= e) return; /* N = 0 among others: no row */
  const int64_t dstep = data->strides[g->axis] * es;
  const int64_t ostep = out->strides[g->axis] * es;
  int64_t doff[SL__SEG_BLOCK], ooff[SL__SEG_BLOCK];
  const int one_block = R <= SL__SEG_BLOCK;
  if (one_block) {
    sl__seg_cols(g, data, 0, R, doff);
    sl__seg_cols(g, out, 0, R, ooff);
  }
  int64_t q = b / N, i = b % N, s = 0, have_q = -1;
  const int64_t *o = NULL;
  const char *drow = NULL;
  char *orow = NULL;
  for (int64_t qi = b; qi < e; ++qi) {
    if (q != have_q) {
      o = j->offs + q * (S + 1);
      s = sl__seg_find(o, S, i);
      drow = sl__ptr(data, sl__seg_row_off(g, data, q));
      orow = sl__ptr(out, sl__seg_row_off(g, out, q));
      have_q = q;
    }
    while (i >= o[s + 1]) ++s; /* i < o[S] = N: s stays below S */
    const char *row = drow + i * dstep;
    for (int64_t r0 = 0; r0 < R; r0 += SL__SEG_BLOCK) {
      const int64_t w = R - r0 < SL__SEG_BLOCK ? R - r0 : SL__SEG_BLOCK;
      if (!one_block) {
        sl__seg_cols(g, data, r0, w, doff);
        sl__seg_cols(g, out, r0, w, ooff);
      }
      if (a->wide) {
        float *acc = a->wide + (q * S + s) * R + r0;
        for (int64_t k = 0; k < w; ++k)
          sl__atomic_f32(acc + k, r, (float)sl__load_f(dt, row + doff[k] * es));
        continue;
      }
      char *obase = orow + s * ostep;
      for (int64_t k = 0; k < w; ++k)
        sl__atomic_elem(dt, r, obase + ooff[k] * es, row + doff[k] * es);
    }
    if (++i == N) i = 0, ++q;
  }
}

sl_status sl_segment_reduce_cpu_atomic(sl_ctx *ctx, sl_call *c) {
  sl__seg_atomic a = {.j = {.c = c}, .wide = NULL};
  sl__seg_job *j = &a.j;
  const sl__seg_geom *g = &j->g;
  sl__seg_geom_of(&c->arg[D_], &c->arg[L_], (int)c->p.dim, c->segment.offsets,
                  &a.j.g);
  if (sl__numel(&c->arg[O_]) == 0) return SL_STATUS_OK;
  const sl_dtype dt = c->arg[D_].dtype;
  a.es = (int64_t)sl__dtype_size(dt);
  const int64_t E = g->Q * g->S * g->R;
  int64_t *offs;
  sl_status st = sl__seg_offsets_alloc(ctx, c, L_, g, 1, &offs);
  if (st) return st;
  j->offs = offs;
  j->orow = g->S + 1;
  j->blocks = (g->R + SL__SEG_BLOCK - 1) / SL__SEG_BLOCK;
  j->start = sl__seg_start(c);
  if (sl__acc_dtype(dt) != dt) {
    a.wide = sl__malloc((size_t)E * sizeof(float));
    if (!a.wide) {
      sl__seg_offsets_free(c, L_, offs);
      return sl_ctx_fail(ctx, SL_STATUS_OUT_OF_MEMORY,
                         "segment_reduce: no memory for %lld f32 "
                         "accumulators",
                         (long long)E);
    }
  }
  const int64_t rows = g->Q * g->N; /* (q, i) pairs, R columns each */
  const int64_t segs = g->Q * g->S;
  const int team = sl__conflict_team(sl__threads(ctx), rows * g->R);
  const int finish = a.wide || c->p.reduce == SL_REDUCE_MEAN;
#pragma omp parallel num_threads(team) if (team > 1)
  {
    int me = 0, nth = 1;
#ifdef _OPENMP
    me = omp_get_thread_num();
    nth = omp_get_num_threads();
#endif
    int64_t b, e;
    sl__chunk(segs, nth, me, &b, &e);
    sl__seg_atomic_pass(&a, 0, b, e);
    /* Every start is stored before any combine. */
#pragma omp barrier
    sl__chunk(rows, nth, me, &b, &e);
    sl__seg_atomic_rows(&a, b, e);
#pragma omp barrier
    if (finish) {
      sl__chunk(segs, nth, me, &b, &e);
      sl__seg_atomic_pass(&a, 1, b, e);
    }
  }
  sl__free(a.wide);
  sl__seg_offsets_free(c, L_, offs);
  return SL_STATUS_OK;
}
