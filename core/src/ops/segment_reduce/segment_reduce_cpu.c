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

#include "conflict.h"
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
  int64_t blocks; /* column blocks per segment */
  double start;
} sl__seg_job;

/* Task t: segment (q, s) over column block b. dt is a constant in each
 * instance, so the loads and rounding fold for f32 and f64. */
static inline __attribute__((always_inline)) void
sl__seg_task_as(sl_dtype dt, const sl__seg_job *j, int64_t t) {
  const sl_call *c = j->c;
  const sl__seg_geom *g = &j->g;
  const sl_tensor *data = &c->arg[D_], *out = &c->arg[O_];
  const sl_reduce r = c->p.reduce;
  const sl_dtype at = sl__acc_dtype(dt);
  const int64_t es = (int64_t)sl_dtype_size(dt);
  const int64_t blk = t % j->blocks, qs = t / j->blocks;
  const int64_t q = qs / g->S, s = qs % g->S;
  const int64_t r0 = blk * SL__SEG_BLOCK;
  const int64_t w = g->R - r0 < SL__SEG_BLOCK ? g->R - r0 : SL__SEG_BLOCK;
  int64_t doff[SL__SEG_BLOCK], ooff[SL__SEG_BLOCK];
  double acc[SL__SEG_BLOCK];
  sl__seg_cols(g, data, r0, w, doff);
  sl__seg_cols(g, out, r0, w, ooff);
  const int64_t b = j->offs[q * (g->S + 1) + s];
  const int64_t e = j->offs[q * (g->S + 1) + s + 1];
  const int64_t dstep = data->strides[g->axis];
  const char *dbase = sl__ptr(data, sl__seg_row_off(g, data, q));
  char *obase =
      sl__ptr(out, sl__seg_row_off(g, out, q) + s * out->strides[g->axis]);
  for (int64_t k = 0; k < w; ++k) acc[k] = j->start;
  for (int64_t i = b; i < e; ++i) {
    const char *row = dbase + i * dstep * es;
    for (int64_t k = 0; k < w; ++k)
      acc[k] = sl__round_to(
          at, sl__reduce_f(r, acc[k], sl__load_f(dt, row + doff[k] * es)));
  }
  for (int64_t k = 0; k < w; ++k)
    sl__store_f(dt, obase + ooff[k] * es,
                sl__seg_final(dt, r, acc[k], e - b, c->p.has_value));
}

static void sl__seg_task(const sl__seg_job *j, int64_t t) {
  switch (j->c->arg[D_].dtype) {
  case SL_F32:
    sl__seg_task_as(SL_F32, j, t);
    break;
  case SL_F64:
    sl__seg_task_as(SL_F64, j, t);
    break;
  case SL_F16:
    sl__seg_task_as(SL_F16, j, t);
    break;
  default:
    sl__seg_task_as(SL_BF16, j, t);
    break;
  }
}

static sl_status sl__seg_run(sl_ctx *ctx, sl_call *c, int threads) {
  sl__seg_job j = {.c = c};
  sl__seg_geom_of(&c->arg[D_], &c->arg[L_], (int)c->p.dim, c->p.offsets, &j.g);
  if (sl__numel(&c->arg[O_]) == 0) return SL_STATUS_OK;
  int64_t *offs;
  sl_status st = sl__seg_offsets_alloc(ctx, c, L_, &j.g, &offs);
  if (st) return st;
  j.offs = offs;
  j.blocks = (j.g.R + SL__SEG_BLOCK - 1) / SL__SEG_BLOCK;
  j.start = sl__seg_start(c);
  const int64_t tasks = j.g.Q * j.g.S * j.blocks;
  /* Work: every data element once, every output element once. */
  const int team = sl__team(threads, j.g.Q * (j.g.N + j.g.S) * j.g.R);
  /* Segments differ in length: tasks are handed out as threads free up. */
#pragma omp parallel for num_threads(team) schedule(dynamic, 4) if (team > 1)
  for (int64_t t = 0; t < tasks; ++t) sl__seg_task(&j, t);
  free(offs);
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
} sl__seg_atomic;

static char *sl__seg_out_at(const sl__seg_job *j, int64_t q, int64_t s,
                            int64_t ooff) {
  const sl_tensor *out = &j->c->arg[O_];
  return sl__ptr(out, sl__seg_row_off(&j->g, out, q) +
                          s * out->strides[j->g.axis] + ooff);
}

sl_status sl_segment_reduce_cpu_atomic(sl_ctx *ctx, sl_call *c) {
  sl__seg_atomic a = {.j = {.c = c}, .wide = NULL};
  sl__seg_job *j = &a.j;
  const sl__seg_geom *g = &j->g;
  sl__seg_geom_of(&c->arg[D_], &c->arg[L_], (int)c->p.dim, c->p.offsets,
                  &a.j.g);
  if (sl__numel(&c->arg[O_]) == 0) return SL_STATUS_OK;
  const sl_tensor *data = &c->arg[D_];
  const sl_dtype dt = data->dtype;
  const sl_reduce r = c->p.reduce;
  const int64_t es = (int64_t)sl_dtype_size(dt);
  const int64_t E = g->Q * g->S * g->R;
  int64_t *offs;
  sl_status st = sl__seg_offsets_alloc(ctx, c, L_, g, &offs);
  if (st) return st;
  j->offs = offs;
  j->blocks = (g->R + SL__SEG_BLOCK - 1) / SL__SEG_BLOCK;
  j->start = sl__seg_start(c);
  if (sl__acc_dtype(dt) != dt) {
    a.wide = malloc((size_t)E * sizeof(float));
    if (!a.wide) {
      free(offs);
      return sl_ctx_fail(ctx, SL_STATUS_OUT_OF_MEMORY,
                         "segment_reduce: no memory for %lld f32 "
                         "accumulators",
                         (long long)E);
    }
  }
  const int threads = sl__threads(ctx);
  const int64_t rows = g->Q * g->N; /* (q, i) pairs, R columns each */
  const int team = sl__conflict_team(threads, rows * g->R);
  const int64_t S = g->S, R = g->R;
#pragma omp parallel num_threads(team) if (team > 1)
  {
    int64_t off[SL__SEG_BLOCK];
    /* Every accumulator starts at the segment's start value. */
#pragma omp for schedule(static)
    for (int64_t qs = 0; qs < g->Q * S; ++qs)
      for (int64_t r0 = 0; r0 < R; r0 += SL__SEG_BLOCK) {
        const int64_t w = R - r0 < SL__SEG_BLOCK ? R - r0 : SL__SEG_BLOCK;
        if (a.wide) {
          for (int64_t k = 0; k < w; ++k)
            a.wide[qs * R + r0 + k] = (float)j->start;
          continue;
        }
        sl__seg_cols(g, &c->arg[O_], r0, w, off);
        for (int64_t k = 0; k < w; ++k)
          sl__store_f(dt, sl__seg_out_at(j, qs / S, qs % S, off[k]), j->start);
      }
      /* The implicit barrier: every start is stored before any combine. */
#pragma omp for schedule(static)
    for (int64_t qi = 0; qi < rows; ++qi) {
      const int64_t q = qi / g->N, i = qi % g->N;
      const int64_t s = sl__seg_find(offs + q * (S + 1), S, i);
      const char *row = sl__ptr(data, sl__seg_row_off(g, data, q) +
                                          i * data->strides[g->axis]);
      for (int64_t r0 = 0; r0 < R; r0 += SL__SEG_BLOCK) {
        const int64_t w = R - r0 < SL__SEG_BLOCK ? R - r0 : SL__SEG_BLOCK;
        sl__seg_cols(g, data, r0, w, off);
        if (a.wide) {
          float *acc = a.wide + (q * S + s) * R + r0;
          for (int64_t k = 0; k < w; ++k)
            sl__atomic_f32(acc + k, r,
                           (float)sl__load_f(dt, row + off[k] * es));
          continue;
        }
        int64_t ooff[SL__SEG_BLOCK];
        sl__seg_cols(g, &c->arg[O_], r0, w, ooff);
        for (int64_t k = 0; k < w; ++k)
          sl__atomic_elem(dt, r, sl__seg_out_at(j, q, s, ooff[k]),
                          row + off[k] * es);
      }
    }
    /* The final pass: means and the half types' single rounding. */
    if (a.wide || r == SL_REDUCE_MEAN) {
#pragma omp for schedule(static)
      for (int64_t qs = 0; qs < g->Q * S; ++qs) {
        const int64_t q = qs / S, s = qs % S;
        const int64_t len = offs[q * (S + 1) + s + 1] - offs[q * (S + 1) + s];
        for (int64_t r0 = 0; r0 < R; r0 += SL__SEG_BLOCK) {
          const int64_t w = R - r0 < SL__SEG_BLOCK ? R - r0 : SL__SEG_BLOCK;
          sl__seg_cols(g, &c->arg[O_], r0, w, off);
          for (int64_t k = 0; k < w; ++k) {
            char *o = sl__seg_out_at(j, q, s, off[k]);
            const double v =
                a.wide ? a.wide[qs * R + r0 + k] : sl__load_f(dt, o);
            sl__store_f(dt, o, sl__seg_final(dt, r, v, len, c->p.has_value));
          }
        }
      }
    }
  }
  free(a.wide);
  free(offs);
  return SL_STATUS_OK;
}
