/*
 * segment_reduce_backward on the CPU: cpu.serial, and cpu.omp over the
 * same tasks (a segment over a block of columns). A segment's positions
 * belong to it alone, so every element of grad_data has one writer and the
 * segments cover every position (each row of lengths sums to the extent).
 *
 * Per segment (docs/spec.md §1), g its gradient, in the accumulation dtype
 * (f32 for f16, bf16, f32; f64 for f64), rounded to data's dtype once:
 *   sum   g at each position;
 *   mean  g / length;
 *   prod  scatter_reduce's rule (LibTorch's, and core/src/reduce_backward.c's):
 *         g * P / x where x is not 0, P the segment's product with the start
 *         (initial, else 1) in position order; a single zero gets g times
 *         the product of the rest and the start; with two zeros or more P
 *         is 0 and so is every gradient. (NaN and inf follow the division:
 *         a NaN among the values makes every gradient NaN.)
 *   amax, amin  g / c at the c positions equal to the result (a NaN equals
 *         nothing, so a NaN result gives no gradient; nor does a result
 *         that initial decided, unless a value ties it), 0 elsewhere.
 */
#include <stdlib.h>

#include "half_blocks.h"
#include "reduce.h"
#include "segment_reduce.h"
#include "walk.h"

/* Slots. */
enum { G_ = 0, D_, L_, RES_, GD_ };

typedef struct sl__segb_job {
  const sl_call *c;
  sl__seg_geom g;
  const int64_t *offs;
  int64_t orow; /* offsets from one row to the next (0: one shared) */
  int64_t blocks;
  double start; /* prod's: initial as data's dtype holds it, else 1 */
} sl__segb_job;

/* One task's operands: segment [b, e) over w columns; a column's element
 * of g, res, data (position i) and grad_data (position i) at the offsets
 * below, in bytes from the pointers, positions dstep and gdstep apart. */
typedef struct sl__segb_task {
  const char *g, *res, *data;
  char *gd;
  int64_t dstep, gdstep, b, e, w;
  const int64_t *goff, *roff, *doff, *gdoff;
} sl__segb_task;

/*
 * sum, mean, amax and amin of f16 and bf16 for one task in float, the
 * conversions a block of columns at a time (one element at a time through
 * double they were most of the time: bf16 amax of one segment of length 1
 * over 735K columns ran at 0.4-0.6x LibTorch). The same values: g, the
 * length and a count of ties are exact in float, and float's division
 * rounds as the double one rounded to f32 (RD) did.
 */
static void sl__segb_half(sl_dtype dt, sl_reduce r, const sl__segb_task *t) {
  float g[SL__SEG_BLOCK], v[SL__SEG_BLOCK], x[SL__SEG_BLOCK],
      res[SL__SEG_BLOCK];
  const int64_t w = t->w;
  sl__half_load_at(dt, t->g, t->goff, g, w);
  const int extreme = r == SL_REDUCE_AMAX || r == SL_REDUCE_AMIN;
  if (extreme) {
    float ties[SL__SEG_BLOCK];
    for (int64_t k = 0; k < w; ++k) ties[k] = 0;
    sl__half_load_at(dt, t->res, t->roff, res, w);
    for (int64_t i = t->b; i < t->e; ++i) {
      sl__half_load_at(dt, t->data + i * t->dstep, t->doff, x, w);
      for (int64_t k = 0; k < w; ++k) ties[k] += x[k] == res[k];
    }
    for (int64_t k = 0; k < w; ++k) v[k] = ties[k] != 0 ? g[k] / ties[k] : 0;
  } else {
    /* sum's g / 1 is g, bit for bit */
    const float len = r == SL_REDUCE_MEAN ? (float)(t->e - t->b) : 1.0f;
    for (int64_t k = 0; k < w; ++k) v[k] = g[k] / len;
  }
  for (int64_t i = t->b; i < t->e; ++i) {
    if (extreme) {
      sl__half_load_at(dt, t->data + i * t->dstep, t->doff, x, w);
      for (int64_t k = 0; k < w; ++k) x[k] = x[k] == res[k] ? v[k] : 0.0f;
    }
    sl__half_store_at(dt, extreme ? x : v, t->gd + i * t->gdstep, t->gdoff, w);
  }
}

/*
 * One task through double in the accumulation dtype, every step rounded
 * as it rounds (f32 and f64; f16 and bf16 prod, and blocks narrower than
 * sl__segb_half takes). The rows outside, the block's columns inside: a
 * column at a time walked down rows a stride apart, on wide data a page
 * apart, one TLB miss a load. Each column's result depends on its own
 * values in position order only, which this order keeps. dt is a constant
 * in each instance.
 */
SL__ALWAYS_INLINE void sl__segb_rows(sl_dtype dt, sl_reduce r, double start,
                                     const sl__segb_task *t) {
  const sl_dtype at = sl__acc_dtype(dt);
  const int64_t es = (int64_t)sl__dtype_size(dt), w = t->w;
  /* per column: g; then the product or the result; the product of the
   * values that are not 0, or what each position gets; zeros or ties */
  double g[SL__SEG_BLOCK], a[SL__SEG_BLOCK], v[SL__SEG_BLOCK];
  int64_t n[SL__SEG_BLOCK];
#define DAT(i, k) sl__load_f(dt, t->data + (i)*t->dstep + t->doff[k] * es)
#define GD(i, k) (t->gd + (i)*t->gdstep + t->gdoff[k] * es)
#define RD(x) sl__round_to(at, (x))
  for (int64_t k = 0; k < w; ++k) {
    g[k] = sl__load_f(dt, t->g + t->goff[k] * es);
    n[k] = 0;
    a[k] =
        r == SL_REDUCE_PROD ? start : sl__load_f(dt, t->res + t->roff[k] * es);
    v[k] = start;
  }
  if (r == SL_REDUCE_SUM || r == SL_REDUCE_MEAN) {
    const double len = RD((double)(t->e - t->b));
    for (int64_t k = 0; k < w; ++k)
      v[k] = r == SL_REDUCE_MEAN ? RD(g[k] / len) : g[k];
    for (int64_t i = t->b; i < t->e; ++i)
      for (int64_t k = 0; k < w; ++k) sl__store_f(dt, GD(i, k), v[k]);
    return;
  }
  if (r == SL_REDUCE_PROD) {
    /* a: the product; v: the product of the values that are not 0 (for a
     * single zero's gradient); n: the zeros */
    for (int64_t i = t->b; i < t->e; ++i)
      for (int64_t k = 0; k < w; ++k) {
        const double x = DAT(i, k);
        a[k] = RD(a[k] * x);
        if (x == 0.0)
          ++n[k];
        else
          v[k] = RD(v[k] * x);
      }
    for (int64_t k = 0; k < w; ++k)
      a[k] = RD(g[k] * a[k]), v[k] = RD(g[k] * v[k]);
    for (int64_t i = t->b; i < t->e; ++i)
      for (int64_t k = 0; k < w; ++k) {
        const double x = DAT(i, k);
        sl__store_f(dt, GD(i, k),
                    x == 0.0 && n[k] == 1 ? v[k]
                                          : RD(a[k] / (x == 0.0 ? 1.0 : x)));
      }
    return;
  }
  /* amax, amin: a the result, n its ties, v what each tie gets */
  for (int64_t i = t->b; i < t->e; ++i)
    for (int64_t k = 0; k < w; ++k) n[k] += DAT(i, k) == a[k];
  /* one tie (the usual case) takes g itself, bit for bit g / 1, without
   * a division's latency (rows of one position: most of their time) */
  for (int64_t k = 0; k < w; ++k)
    v[k] = n[k] == 1 ? g[k] : n[k] ? RD(g[k] / RD((double)n[k])) : 0.0;
  for (int64_t i = t->b; i < t->e; ++i)
    for (int64_t k = 0; k < w; ++k)
      sl__store_f(dt, GD(i, k), DAT(i, k) == a[k] ? v[k] : 0.0);
#undef DAT
#undef GD
#undef RD
}

/* Tasks [t0, t1) in order (as the forward's: t = (q * S + s) * blocks +
 * blk, column offsets computed when the block changes, row offsets when q
 * does). dt is a constant in each instance. */
SL__ALWAYS_INLINE void sl__segb_tasks_as(sl_dtype dt, const sl__segb_job *j,
                                         int64_t t0, int64_t t1) {
  const sl_call *c = j->c;
  const sl__seg_geom *g = &j->g;
  const sl_tensor *a = c->arg;
  const sl_reduce r = c->p.reduce;
  const int64_t es = (int64_t)sl__dtype_size(dt), S = g->S;
  const int axis = g->axis;
  const int64_t dstep = a[D_].strides[axis] * es;
  const int64_t gdstep = a[GD_].strides[axis] * es;
  const int64_t gstep = a[G_].strides[axis] * es;
  const int64_t rstep = a[RES_].strides[axis] * es;
  int64_t blk = t0 % j->blocks, q = t0 / j->blocks / S, s = t0 / j->blocks % S;
  int64_t have_blk = -1, have_q = -1, w = 0;
  int64_t goff[SL__SEG_BLOCK], doff[SL__SEG_BLOCK], roff[SL__SEG_BLOCK],
      gdoff[SL__SEG_BLOCK];
  const char *grow = NULL, *rrow = NULL, *db = NULL;
  char *gdb = NULL;
  for (int64_t t = t0; t < t1; ++t) {
    if (blk != have_blk) {
      const int64_t r0 = blk * SL__SEG_BLOCK;
      w = g->R - r0 < SL__SEG_BLOCK ? g->R - r0 : SL__SEG_BLOCK;
      sl__seg_cols(g, &a[G_], r0, w, goff);
      sl__seg_cols(g, &a[D_], r0, w, doff);
      sl__seg_cols(g, &a[RES_], r0, w, roff);
      sl__seg_cols(g, &a[GD_], r0, w, gdoff);
      have_blk = blk;
    }
    if (q != have_q) {
      grow = sl__ptr(&a[G_], sl__seg_row_off(g, &a[G_], q));
      rrow = sl__ptr(&a[RES_], sl__seg_row_off(g, &a[RES_], q));
      db = sl__ptr(&a[D_], sl__seg_row_off(g, &a[D_], q));
      gdb = sl__ptr(&a[GD_], sl__seg_row_off(g, &a[GD_], q));
      have_q = q;
    }
    const int64_t b = j->offs[q * j->orow + s];
    const int64_t e = j->offs[q * j->orow + s + 1];
    const char *gb = grow + s * gstep, *rb = rrow + s * rstep;
    if (e > b) {
      const sl__segb_task task = {gb, rb, db,   gdb,  dstep, gdstep, b,
                                  e,  w,  goff, roff, doff,  gdoff};
      if ((dt == SL_F16 || dt == SL_BF16) && r != SL_REDUCE_PROD &&
          w >= SL__SEG_HALF_MIN_COLUMNS)
        sl__segb_half(dt, r, &task);
      else
        sl__segb_rows(dt, r, j->start, &task);
    }
    if (++blk == j->blocks) {
      blk = 0;
      if (++s == S) s = 0, ++q;
    }
  }
}

static void sl__segb_tasks(const sl__segb_job *j, int64_t t0, int64_t t1) {
  switch (j->c->arg[D_].dtype) {
  case SL_F32:
    sl__segb_tasks_as(SL_F32, j, t0, t1);
    break;
  case SL_F64:
    sl__segb_tasks_as(SL_F64, j, t0, t1);
    break;
  case SL_F16:
    sl__segb_tasks_as(SL_F16, j, t0, t1);
    break;
  default:
    sl__segb_tasks_as(SL_BF16, j, t0, t1);
    break;
  }
}

static sl_status sl__segb_run(sl_ctx *ctx, sl_call *c, int threads) {
  sl__segb_job j = {.c = c};
  sl__seg_geom_of(&c->arg[D_], &c->arg[L_], (int)c->p.dim, c->segment.offsets,
                  &j.g);
  if (sl__numel(&c->arg[GD_]) == 0) return SL_STATUS_OK;
  int64_t *offs;
  sl_status st = sl__seg_offsets_rows(ctx, c, L_, &j.g, 1, &offs, &j.orow);
  if (st) return st;
  j.offs = offs;
  j.blocks = (j.g.R + SL__SEG_BLOCK - 1) / SL__SEG_BLOCK;
  j.start = c->p.has_value ? sl__round_to(c->arg[D_].dtype, c->p.value) : 1.0;
  const int64_t tasks = j.g.Q * j.g.S * j.blocks;
  const int team = sl__team(threads, j.g.Q * (j.g.N + j.g.S) * j.g.R);
#pragma omp parallel num_threads(team) if (team > 1)
  {
    const int64_t runs = (tasks + SL__SEG_RUN - 1) / SL__SEG_RUN;
#pragma omp for schedule(dynamic, 1)
    for (int64_t u = 0; u < runs; ++u)
      sl__segb_tasks(&j, u * SL__SEG_RUN,
                     (u + 1) * SL__SEG_RUN < tasks ? (u + 1) * SL__SEG_RUN
                                                   : tasks);
  }
  sl__seg_offsets_free(c, L_, offs);
  return SL_STATUS_OK;
}

sl_status sl_segment_reduce_backward_cpu_serial(sl_ctx *ctx, sl_call *c) {
  return sl__segb_run(ctx, c, 1);
}

sl_status sl_segment_reduce_backward_cpu_omp(sl_ctx *ctx, sl_call *c) {
  return sl__segb_run(ctx, c, sl__threads(ctx));
}
