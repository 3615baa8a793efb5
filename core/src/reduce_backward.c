/* The backward lines of scatter_reduce and index_reduce (see reduce.h). */
#include <omp.h>
#include <stdlib.h>

#include "half_blocks.h"
#include "reduce.h"
#include "walk.h"

/* Scratch doubles per position of a line: the mean's and amax/amin's
 * counts, prod's four accumulators. */
static int64_t sl__rb_scratch_per_position(sl_reduce r) {
  switch (r) {
  case SL_REDUCE_MEAN:
  case SL_REDUCE_AMAX:
  case SL_REDUCE_AMIN:
    return 1;
  case SL_REDUCE_PROD:
    return 4;
  default:
    return 0;
  }
}

/* Lines walked side by side: SL__LINE_BATCH, fewer when their scratch
 * would outgrow SL__RB_SCRATCH doubles (half of a 1 MiB L2), as long lines
 * of prod need; one at a time where each line is contiguous (g, result and
 * grad_x), which side by side gain nothing and lose the loops the compiler
 * vectorizes for one line (f32 amin along the last axis of 2367x2366 ran
 * at 0.38x LibTorch side by side, 0.89x one at a time). */
#define SL__RB_SCRATCH ((int64_t)SL__TH_BACKWARD_SCRATCH)
/* Positions from which a contiguous line goes alone (and an f16/bf16 one
 * through float): shorter lines pay more per line than per position
 * (2.4M lines of one position ran at 0.18-0.30x LibTorch alone, 0.43x
 * side by side). */
enum { SL__RB_ALONE_MIN = 16 };
static int sl__rb_batch(const sl__rbline *b, int64_t scratch_per_line) {
  if (b->gstep == 1 && b->rstep == 1 && b->gxstep == 1 &&
      b->n >= SL__RB_ALONE_MIN)
    return 1;
  if (scratch_per_line <= 0) return SL__LINE_BATCH;
  int64_t k = SL__RB_SCRATCH / scratch_per_line;
  return k < 1 ? 1 : k < SL__LINE_BATCH ? (int)k : SL__LINE_BATCH;
}

/*
 * k lines (the same m) through the formulas of reduce.h, each loop over
 * positions taking the k lines side by side. scratch holds
 * sl__rb_scratch_per_position * n * k doubles; position j of line l is
 * element j * k + l of each array. Every element sees the same operations
 * in the same order as on its own. dt is b->dt, a constant in the f32
 * and f64 instances (sl__load_f and friends fold to plain loads there).
 */
SL__ALWAYS_INLINE void sl__rb_lines_as(sl_dtype dt, const sl__rbline *b, int k,
                                       const sl__rbptr *p, double *scratch,
                                       int adjacent) {
  const int64_t es = (int64_t)sl__dtype_size(dt);
  const int64_t n = b->n, m = p[0].m, nk = n * k;
  /* assign overwrites x whatever include_self says (index_copy). */
  const int self = b->include_self && b->reduce != SL_REDUCE_ASSIGN;
  /* Line l's first element of tensor f: line 0's, l elements on, when the
   * lines lie side by side (and their index lines too): no load of p[l]
   * per element, and loops over l that step one element. */
#define LINE(l, f) (adjacent ? p[0].f + (int64_t)(l)*es : p[l].f)
#define G(l, j) sl__load_f(dt, SL__AT(LINE(l, g), j, b->gstep))
#define X(l, j) sl__load_f(dt, SL__AT(LINE(l, x), j, b->xstep))
#define RES(l, j) sl__load_f(dt, SL__AT(LINE(l, res), j, b->rstep))
#define SRC(l, i) sl__load_f(dt, SL__AT(LINE(l, src), i, b->sstep))
#define GX(l, j) SL__AT(LINE(l, gx), j, b->gxstep)
#define GS(l, i) SL__AT(LINE(l, gs), i, b->gsstep)
#define T(l, i)                                                                \
  sl__target(b->index, adjacent ? p[0].ioff + (l) : p[l].ioff, b->istep, i)
#define RD(v) sl__round_to(sl__acc_dtype(dt), v)
#define EACH_POSITION(j)                                                       \
  for (int64_t j = 0; j < n; ++j)                                              \
    for (int l = 0; l < k; ++l)
#define EACH_CONTRIBUTION(i)                                                   \
  for (int64_t i = 0; i < m; ++i)                                              \
    for (int l = 0; l < k; ++l)
#define AT(j) ((j)*k + l) /* position j of line l in a scratch array */
  switch (b->reduce) {
  case SL_REDUCE_SUM:
  case SL_REDUCE_ASSIGN:
    EACH_POSITION(j) memcpy(GX(l, j), SL__AT(p[l].g, j, b->gstep), (size_t)es);
    EACH_CONTRIBUTION(i)
    memcpy(GS(l, i), SL__AT(p[l].g, T(l, i), b->gstep), (size_t)es);
    break;
  case SL_REDUCE_MEAN: {
    double *N = scratch;
    EACH_POSITION(j) N[AT(j)] = self ? 1.0 : 0.0;
    EACH_CONTRIBUTION(i) {
      int64_t t = T(l, i);
      N[AT(t)] = sl__count_add(dt, N[AT(t)], 1.0);
    }
    EACH_POSITION(j) {
      if (N[AT(j)] == 0.0) N[AT(j)] = 1.0; /* N.masked_fill_(N == 0, 1) */
      sl__store_f(dt, GX(l, j), G(l, j) / N[AT(j)]);
    }
    EACH_CONTRIBUTION(i) {
      int64_t t = T(l, i);
      sl__store_f(dt, GS(l, i), G(l, t) / N[AT(t)]);
    }
    break;
  }
  case SL_REDUCE_PROD: {
    /* A: masked x reduced with src; B: x reduced with src whose single
     * zeros are masked; Z: zeros of src per position; R: the forward
     * result in the accumulation dtype. For f16/bf16 R replaces the given
     * `result`, which is rounded to the half type: the gradient is computed
     * from the f32 product, as the f32 forward has it (sl__acc_dtype). */
    double *A = scratch, *B = scratch + nk, *Z = scratch + 2 * nk;
    double *R = scratch + 3 * nk;
    EACH_POSITION(j) {
      double xv = X(l, j);
      A[AT(j)] = xv == 0.0 ? 1.0 : xv;
      B[AT(j)] = R[AT(j)] = xv;
      Z[AT(j)] = 0.0;
    }
    if (!self) EACH_CONTRIBUTION(i) {
        int64_t t = T(l, i);
        A[AT(t)] = B[AT(t)] = R[AT(t)] = 1.0;
      }
    EACH_CONTRIBUTION(i) {
      int64_t t = T(l, i);
      double s = SRC(l, i);
      A[AT(t)] = RD(A[AT(t)] * s);
      R[AT(t)] = RD(R[AT(t)] * s);
      if (s == 0.0) Z[AT(t)] += 1.0;
    }
    const int wide = sl__acc_dtype(dt) != dt;
    EACH_CONTRIBUTION(i) {
      int64_t t = T(l, i);
      double s = SRC(l, i);
      B[AT(t)] = RD(B[AT(t)] * (s == 0.0 && Z[AT(t)] == 1.0 ? 1.0 : s));
    }
    EACH_POSITION(j) {
      double xv = X(l, j);
      sl__store_f(dt, GX(l, j),
                  RD(G(l, j) * A[AT(j)]) / (xv == 0.0 ? 1.0 : xv));
    }
    EACH_CONTRIBUTION(i) {
      int64_t t = T(l, i);
      double s = SRC(l, i);
      if (s == 0.0 && Z[AT(t)] == 1.0)
        sl__store_f(dt, GS(l, i), G(l, t) * B[AT(t)]);
      else
        sl__store_f(dt, GS(l, i),
                    RD(G(l, t) * (wide ? R[AT(t)] : RES(l, t))) /
                        (s == 0.0 ? 1.0 : s));
    }
    break;
  }
  case SL_REDUCE_AMAX:
  case SL_REDUCE_AMIN: {
    double *N = scratch;
    EACH_POSITION(j) N[AT(j)] = X(l, j) == RES(l, j) ? 1.0 : 0.0;
    EACH_CONTRIBUTION(i) {
      int64_t t = T(l, i);
      N[AT(t)] =
          sl__count_add(dt, N[AT(t)], SRC(l, i) == RES(l, t) ? 1.0 : 0.0);
    }
    /* (x == result) * (g / N): a zero N gives inf or NaN, and 0 * inf is
     * NaN, as in LibTorch. */
    EACH_POSITION(j)
    sl__store_f(dt, GX(l, j),
                (X(l, j) == RES(l, j) ? 1.0 : 0.0) * RD(G(l, j) / N[AT(j)]));
    EACH_CONTRIBUTION(i) {
      int64_t t = T(l, i);
      sl__store_f(dt, GS(l, i),
                  (SRC(l, i) == RES(l, t) ? 1.0 : 0.0) *
                      RD(G(l, t) / N[AT(t)]));
    }
    break;
  }
  default:
    break; /* infer admits no other reduce */
  }
  if (!self) EACH_CONTRIBUTION(i) sl__store_f(dt, GX(l, T(l, i)), 0.0);
#undef G
#undef X
#undef RES
#undef SRC
#undef GX
#undef GS
#undef T
#undef LINE
#undef RD
#undef EACH_POSITION
#undef EACH_CONTRIBUTION
#undef AT
}

/* Whether line q lies right after line p in every tensor (its element j
 * right after p's element j; es bytes an element); src and gs only count
 * for lines with contributions (those of m == 0 point anywhere). */
static int sl__rb_next_to(const sl__rbptr *p, const sl__rbptr *q, int64_t es) {
  return q->g == p->g + es && q->x == p->x + es && q->res == p->res + es &&
         q->gx == p->gx + es &&
         (q->m == 0 || (q->src == p->src + es && q->gs == p->gs + es));
}

/* Whether the k lines p lie side by side, their index lines too (for
 * lines with contributions). */
static int sl__rb_adjacent(int k, const sl__rbptr *p, int64_t es) {
  for (int l = 1; l < k; ++l)
    if (!sl__rb_next_to(&p[l - 1], &p[l], es) ||
        (p[l].m > 0 && p[l].ioff != p[l - 1].ioff + 1))
      return 0;
  return 1;
}

/* The instances, one per floating dtype: each folds its loads, stores and
 * rounding (one f16 instance taking dt from b paid a switch per element:
 * the f16 backward leads of issue 52 ran at 0.2-0.6x LibTorch), one line
 * alone (k = 1) drops the loop over lines inside each position, and lines
 * side by side address their elements from line 0's. */
#define SL__RB_LINES_FN(D)                                                     \
  static void sl__rb_lines_##D(const sl__rbline *b, int k, const sl__rbptr *p, \
                               double *scratch) {                              \
    if (k == 1)                                                                \
      sl__rb_lines_as(SL_##D, b, 1, p, scratch, 0);                            \
    else if (sl__rb_adjacent(k, p, (int64_t)sl__dtype_size(SL_##D)))           \
      sl__rb_lines_as(SL_##D, b, k, p, scratch, 1);                            \
    else                                                                       \
      sl__rb_lines_as(SL_##D, b, k, p, scratch, 0);                            \
  }
SL__RB_DTYPES(SL__RB_LINES_FN)
#undef SL__RB_LINES_FN

static void sl__reduce_backward_lines(const sl__rbline *b, int k,
                                      const sl__rbptr *p, double *scratch) {
#define SL__RB_LINES_IS(D)                                                     \
  if (b->dt == SL_##D) {                                                       \
    sl__rb_lines_##D(b, k, p, scratch);                                        \
    return;                                                                    \
  }
  SL__RB_DTYPES(SL__RB_LINES_IS)
#undef SL__RB_LINES_IS
}

/* Floats for f16/bf16 lines widened (sl__rb_half_line), grown as they
 * need. */
typedef struct sl__rb_floats {
  float *f;
  int64_t cap;
} sl__rb_floats;

/* Whether b's lines go through float when they lie side by side: f16/bf16
 * mean, amax and amin. */
static int sl__rb_half_reduce(const sl__rbline *b) {
  const sl_reduce r = b->reduce;
  return (b->dt == SL_F16 || b->dt == SL_BF16) &&
         (r == SL_REDUCE_MEAN || r == SL_REDUCE_AMAX || r == SL_REDUCE_AMIN);
}

/* Whether the k lines p (one m) go through float: lines of a half reduce
 * side by side in every tensor, so that each position of the k lines
 * widens as one block (lines along the last axis, or neighbours along an
 * outer one). Lines without contributions too: in an x larger than the
 * index they were most of f16 amax's lines along dim 0 of 210^3, one at
 * a time. */
static int sl__rb_half_fits(const sl__rbline *b, int k, const sl__rbptr *p) {
  if (!sl__rb_half_reduce(b)) return 0;
  for (int l = 1; l < k; ++l)
    if (!sl__rb_next_to(&p[l - 1], &p[l], 2)) return 0;
  return 1;
}

/* Positions [0, n) of k side-by-side half lines from base (element step
 * `step` along a line) to float, position j of line l at wide[j * k + l]:
 * one block where the positions follow each other in memory, else a
 * block of k per position. */
static void sl__rb_widen(sl_dtype dt, const char *base, int64_t step, int64_t n,
                         int k, float *wide) {
  if (step == k || n == 1) {
    sl__half_load_block(dt, base, wide, n * k);
    return;
  }
  for (int64_t j = 0; j < n; ++j)
    sl__half_load_block(dt, base + j * step * 2, wide + j * k, k);
}

static void sl__rb_narrow(sl_dtype dt, const float *wide, char *base,
                          int64_t step, int64_t n, int k) {
  if (step == k || n == 1) {
    sl__half_store_block(dt, wide, base, n * k);
    return;
  }
  for (int64_t j = 0; j < n; ++j)
    sl__half_store_block(dt, wide + j * k, base + j * step * 2, k);
}

/* k f16/bf16 lines of mean, amax or amin (sl__rb_half_fits) through the
 * f32 formulas: positions and contributions widened a block at a time,
 * the gradients narrowed back. Both types accumulate and round in f32 and
 * a half store rounds the f32 value, so the bits are the half instance's
 * (a NaN's payload aside); that instance's software conversions, several
 * per element, were most of the time of f16 mean along the last axis
 * (0.60x LibTorch) and of f16 amax along dim 0 of 210^3 (0.39x). 0,
 * having done nothing, when memory is short. */
static int sl__rb_half_lines(const sl__rbline *b, int k, const sl__rbptr *p,
                             double *scratch, sl__rb_floats *w) {
  const int64_t n = b->n, m = p[0].m, need = (4 * n + 2 * m) * k;
  if (need > w->cap) {
    float *f = sl__malloc((size_t)need * sizeof *f);
    if (!f) return 0;
    sl__free(w->f);
    w->f = f, w->cap = need;
  }
  float *g = w->f, *x = g + n * k, *res = x + n * k, *gx = res + n * k;
  float *src = gx + n * k, *gs = src + m * k;
  sl__rb_widen(b->dt, p[0].g, b->gstep, n, k, g);
  sl__rb_widen(b->dt, p[0].x, b->xstep, n, k, x);
  sl__rb_widen(b->dt, p[0].res, b->rstep, n, k, res);
  sl__rb_widen(b->dt, p[0].src, b->sstep, m, k, src);
  sl__rbline wide = *b;
  wide.dt = SL_F32;
  wide.gstep = wide.xstep = wide.rstep = wide.gxstep = k;
  wide.sstep = wide.gsstep = k;
  sl__rbptr q[SL__LINE_BATCH];
  for (int l = 0; l < k; ++l)
    q[l] = (sl__rbptr){(const char *)(g + l),
                       (const char *)(x + l),
                       (const char *)(res + l),
                       (char *)(gx + l),
                       (const char *)(src + l),
                       (char *)(gs + l),
                       p[l].ioff,
                       m};
  sl__rb_lines_F32(&wide, k, q, scratch);
  sl__rb_narrow(b->dt, gx, p[0].gx, b->gxstep, n, k);
  sl__rb_narrow(b->dt, gs, p[0].gs, b->gsstep, m, k);
  return 1;
}

/* A batch of k lines (one m), through float where it fits. */
static void sl__rb_flush(const sl__rbline *b, int k, const sl__rbptr *p,
                         double *scratch, sl__rb_floats *w) {
  if (sl__rb_half_fits(b, k, p) && sl__rb_half_lines(b, k, p, scratch, w))
    return;
  sl__reduce_backward_lines(b, k, p, scratch);
}

/* Lines [begin, end) in batches of up to `batch` neighbours with one m;
 * `spare` threads for each line where lines are fewer than threads. */
static void sl__rb_range(const sl__rbline *b, int64_t begin, int64_t end,
                         int batch, int spare, sl__rb_locate_fn locate,
                         const void *user, double *scratch) {
  sl__rbptr p[SL__LINE_BATCH];
  sl__rb_floats wide = {NULL, 0};
  const int half = sl__rb_half_reduce(b);
  int k = 0;
  int64_t idx[SL_MAX_DIMS] = {0};
  sl__line_start(begin, b->walk_ndim, b->walk_shape, b->walk_dim, idx);
  for (int64_t l = begin; l < end;
       ++l, sl__line_next(b->walk_ndim, b->walk_shape, b->walk_dim, idx)) {
    sl__rbptr q;
    locate(user, idx, &q);
    if (sl__rb_sparse_fits(b, q.m)) {
      sl__rb_sparse_line(b, &q, scratch);
      continue;
    }
    if (sl__rb_grouped_fits(b, q.m) && sl__rb_grouped_line(b, &q)) continue;
    if (sl__rb_packed_fits(b, q.m) && sl__rb_packed_line(b, &q, spare))
      continue;
    /* a half batch also ends where the lines stop lying side by side (at
     * the end of a row of them), so that the batches go through float */
    if (k == batch ||
        (k > 0 &&
         (q.m != p[0].m || (half && !sl__rb_next_to(&p[k - 1], &q, 2))))) {
      sl__rb_flush(b, k, p, scratch, &wide);
      k = 0;
    }
    p[k++] = q;
  }
  if (k > 0) sl__rb_flush(b, k, p, scratch, &wide);
  sl__free(wide.f);
}

sl_status sl__reduce_backward_run(sl_ctx *ctx, const char *op,
                                  const sl__rbline *b, int64_t lines,
                                  int threads, sl__rb_locate_fn locate,
                                  const void *user) {
  if (lines <= 0) return SL_STATUS_OK;
  const int team = lines < threads ? (int)lines : threads;
  const int64_t per_line = sl__rb_scratch_per_position(b->reduce) * b->n;
  const int batch = sl__rb_batch(b, per_line);
  const int64_t per_thread = per_line * batch;
  double *scratch = NULL;
  if (per_thread > 0) {
    scratch = sl__malloc((size_t)team * (size_t)per_thread * sizeof(double));
    if (!scratch)
      return sl_ctx_fail(ctx, SL_STATUS_OUT_OF_MEMORY,
                         "%s: no memory for %lld doubles of scratch", op,
                         (long long)(team * per_thread));
  }
#pragma omp parallel num_threads(team) if (team > 1)
  {
    const int t = omp_get_thread_num();
    int64_t begin, end;
    sl__chunk(lines, team, t, &begin, &end);
    sl__rb_range(b, begin, end, batch, threads / team, locate, user,
                 scratch ? scratch + t * per_thread : NULL);
  }
  sl__free(scratch);
  return SL_STATUS_OK;
}
