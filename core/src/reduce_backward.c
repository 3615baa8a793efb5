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
/* Lines of one position (sl__rb_points_as) go SL__RB_POINTS_BATCH at a
 * time: 32 a batch, the batch's walk and widening took as long as the
 * formulas. */
enum { SL__RB_POINTS_BATCH = 256 };
enum { SL__RB_STRIDED_MIN = 16 };
static int sl__rb_batch(const sl__rbline *b, int64_t scratch_per_line) {
  if (b->n == 1) return SL__RB_POINTS_BATCH;
  if (b->gstep == 1 && b->rstep == 1 && b->gxstep == 1 &&
      b->n >= SL__RB_ALONE_MIN)
    return 1;
  if (scratch_per_line <= 0) return SL__LINE_BATCH;
  int64_t k = SL__RB_SCRATCH / scratch_per_line;
  /* Strided lines read a cache line of each tensor per position, the
   * next lines' elements beside it: fewer than SL__RB_STRIDED_MIN side by
   * side come back to each line that many more times. Their scratch may
   * then grow to SL__RB_STRIDED_MIN times the L2 budget (f16 prod down
   * dim 0 of 7423x7423, 2 lines a batch in that budget, ran at 0.48x
   * LibTorch, most of it widening 2 elements a call). */
  if (k < SL__RB_STRIDED_MIN) {
    const int64_t wider =
        SL__RB_STRIDED_MIN * SL__RB_SCRATCH / scratch_per_line;
    k = wider < SL__RB_STRIDED_MIN ? wider : SL__RB_STRIDED_MIN;
  }
  return k < 1 ? 1 : k < SL__LINE_BATCH ? (int)k : SL__LINE_BATCH;
}

/*
 * k lines of one position each (n == 1, as along an extent-1 dim), all m
 * contributions at position 0 (the only index value such a line admits,
 * so the index is not read): the formulas of sl__rb_lines_as below,
 * element by element with the same operations in the same order, each
 * line's accumulators in locals instead of scratch, so that a loop over
 * the lines is one loop over elements (3M lines of bf16 prod took 15 ns
 * each through the scratch arrays). The lines lie side by side (even 0:
 * one element apart in every tensor, as a vector load takes them) or
 * evenly spaced (even 1: p[1] from p[0] in each tensor).
 */
SL__ALWAYS_INLINE void sl__rb_points_as(sl_dtype dt, const sl__rbline *b, int k,
                                        const sl__rbptr *p, int64_t m,
                                        int even) {
  const int64_t es = (int64_t)sl__dtype_size(dt);
  const int self = b->include_self && b->reduce != SL_REDUCE_ASSIGN;
  const int zeroed = !self && m > 0; /* grad_x is 0 at a target */
  const int wide = sl__acc_dtype(dt) != dt || b->widened;
  /* the lines' first elements and steps in locals: a store through char *
   * (memcpy) may alias p[0], which gcc then reloads per element */
  const char *const base_g = p[0].g, *const base_x = p[0].x,
                    *const base_res = p[0].res, *const base_src = p[0].src;
  char *const base_gx = p[0].gx, *const base_gs = p[0].gs;
#define STEP(f) (even && k > 1 ? p[1].f - p[0].f : es)
  const int64_t step_g = STEP(g), step_x = STEP(x), step_res = STEP(res),
                step_gx = STEP(gx);
  const int64_t step_src = m > 0 ? STEP(src) : 0,
                step_gs = m > 0 ? STEP(gs) : 0;
#undef STEP
#define AT_LINE(f, l) (base_##f + (int64_t)(l)*step_##f)
#define G(l) sl__load_f(dt, AT_LINE(g, l))
#define X(l) sl__load_f(dt, AT_LINE(x, l))
#define RES(l) sl__load_f(dt, AT_LINE(res, l))
#define SRC(l, i) sl__load_f(dt, SL__AT(AT_LINE(src, l), i, b->sstep))
#define GX(l) AT_LINE(gx, l)
#define GS(l, i) SL__AT(AT_LINE(gs, l), i, b->gsstep)
#define RD(v) sl__round_to(sl__acc_dtype(dt), v)
#define EACH_LINE(l) for (int l = 0; l < k; ++l)
  /* The switch outside the loops over lines: inside, gcc vectorizes
   * none of them. */
  switch (b->reduce) {
  case SL_REDUCE_SUM:
  case SL_REDUCE_ASSIGN:
    EACH_LINE(l) {
      memcpy(GX(l), AT_LINE(g, l), (size_t)es);
      for (int64_t i = 0; i < m; ++i)
        memcpy(GS(l, i), AT_LINE(g, l), (size_t)es);
    }
    break;
  case SL_REDUCE_MEAN:
    EACH_LINE(l) {
      double N = self ? 1.0 : 0.0;
      for (int64_t i = 0; i < m; ++i) N = sl__count_add(dt, N, 1.0);
      N = sl__zero_to_one(N); /* N.masked_fill_(N == 0, 1) */
      const double g = G(l);
      sl__store_f(dt, GX(l), g / N);
      for (int64_t i = 0; i < m; ++i) sl__store_f(dt, GS(l, i), g / N);
    }
    break;
  case SL_REDUCE_PROD:
    EACH_LINE(l) {
      const double xv = X(l), g = G(l);
      double A = sl__zero_to_one(xv), B = xv, R = xv, Z = 0.0;
      if (zeroed) A = B = R = 1.0;
      for (int64_t i = 0; i < m; ++i) {
        const double sv = SRC(l, i);
        A = RD(A * sv);
        R = RD(R * sv);
        Z += sl__pick_f64(sv == 0.0, 1.0, 0.0);
      }
      for (int64_t i = 0; i < m; ++i) {
        const double sv = SRC(l, i);
        B = RD(B * sl__pick_f64((sv == 0.0) & (Z == 1.0), 1.0, sv));
      }
      sl__store_f(dt, GX(l), RD(g * A) / sl__zero_to_one(xv));
      const double r = sl__pick_f64(wide, R, RES(l)); /* a load either way */
      for (int64_t i = 0; i < m; ++i) {
        const double sv = SRC(l, i);
        sl__store_f(dt, GS(l, i),
                    sl__pick_f64((sv == 0.0) & (Z == 1.0), g * B,
                                 RD(g * r) / sl__zero_to_one(sv)));
      }
    }
    break;
  case SL_REDUCE_AMAX:
  case SL_REDUCE_AMIN:
    EACH_LINE(l) {
      const double r = RES(l), xv = X(l), g = G(l);
      const double tie = sl__pick_f64(xv == r, 1.0, 0.0);
      double N = tie;
      for (int64_t i = 0; i < m; ++i)
        N = sl__count_add(dt, N, sl__pick_f64(SRC(l, i) == r, 1.0, 0.0));
      sl__store_f(dt, GX(l), tie * RD(g / N));
      for (int64_t i = 0; i < m; ++i)
        sl__store_f(dt, GS(l, i),
                    sl__pick_f64(SRC(l, i) == r, 1.0, 0.0) * RD(g / N));
    }
    break;
  default:
    break; /* infer admits no other reduce */
  }
  if (zeroed) EACH_LINE(l) sl__store_f(dt, GX(l), 0.0);
#undef AT_LINE
#undef G
#undef X
#undef RES
#undef SRC
#undef GX
#undef GS
#undef RD
#undef EACH_LINE
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
                                       int adjacent, int64_t iline) {
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
  sl__target(b->index, adjacent ? p[0].ioff + (l)*iline : p[l].ioff, b->istep, \
             i)
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
      A[AT(j)] = sl__zero_to_one(xv);
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
      Z[AT(t)] += sl__pick_f64(s == 0.0, 1.0, 0.0);
    }
    const int wide = sl__acc_dtype(dt) != dt || b->widened;
    /* The zero tests below are selects, not branches: where zeros fall at
     * random a branch per contribution mispredicts (1-D bf16 prod with a
     * quarter of src zero ran twice as long as with periodic zeros); gcc
     * turns (double)(s == 0.0) back into one. */
    EACH_CONTRIBUTION(i) {
      int64_t t = T(l, i);
      double s = SRC(l, i);
      int lone_zero = (s == 0.0) & (Z[AT(t)] == 1.0);
      B[AT(t)] = RD(B[AT(t)] * sl__pick_f64(lone_zero, 1.0, s));
    }
    EACH_POSITION(j) {
      double xv = X(l, j);
      sl__store_f(dt, GX(l, j), RD(G(l, j) * A[AT(j)]) / sl__zero_to_one(xv));
    }
    EACH_CONTRIBUTION(i) {
      int64_t t = T(l, i);
      double s = SRC(l, i), gt = G(l, t);
      int lone_zero = (s == 0.0) & (Z[AT(t)] == 1.0);
      double by_rest = gt * B[AT(t)];
      double by_result =
          RD(gt * (wide ? R[AT(t)] : RES(l, t))) / sl__zero_to_one(s);
      sl__store_f(dt, GS(l, i), sl__pick_f64(lone_zero, by_rest, by_result));
    }
    break;
  }
  case SL_REDUCE_AMAX:
  case SL_REDUCE_AMIN: {
    double *N = scratch;
    /* the ties as selects: branches on them mispredict where results
     * tie at random (f16 amax along the last axis of 50x50x50x53) */
#define TIE(a, b) sl__pick_f64((a) == (b), 1.0, 0.0)
    EACH_POSITION(j) N[AT(j)] = TIE(X(l, j), RES(l, j));
    EACH_CONTRIBUTION(i) {
      int64_t t = T(l, i);
      N[AT(t)] = sl__count_add(dt, N[AT(t)], TIE(SRC(l, i), RES(l, t)));
    }
    /* (x == result) * (g / N): a zero N gives inf or NaN, and 0 * inf is
     * NaN, as in LibTorch. */
    EACH_POSITION(j)
    sl__store_f(dt, GX(l, j), TIE(X(l, j), RES(l, j)) * RD(G(l, j) / N[AT(j)]));
    EACH_CONTRIBUTION(i) {
      int64_t t = T(l, i);
      sl__store_f(dt, GS(l, i),
                  TIE(SRC(l, i), RES(l, t)) * RD(G(l, t) / N[AT(t)]));
    }
#undef TIE
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

/* Whether the k lines p lie side by side, their index lines iline
 * elements apart where they have contributions (1: side by side too; 0:
 * one index line shared, as index_reduce's). */
static int sl__rb_adjacent(int k, const sl__rbptr *p, int64_t es,
                           int64_t iline) {
  for (int l = 1; l < k; ++l)
    if (!sl__rb_next_to(&p[l - 1], &p[l], es) ||
        (p[l].m > 0 && p[l].ioff != p[l - 1].ioff + iline))
      return 0;
  return 1;
}

/* Whether line r lies from q as q lies from p, in every tensor (src,
 * grad_src and the index for lines with contributions): lines evenly
 * spaced. */
static int sl__rb_in_step(const sl__rbptr *p, const sl__rbptr *q,
                          const sl__rbptr *r) {
  return r->g - q->g == q->g - p->g && r->x - q->x == q->x - p->x &&
         r->res - q->res == q->res - p->res && r->gx - q->gx == q->gx - p->gx &&
         (r->m == 0 || (r->src - q->src == q->src - p->src &&
                        r->gs - q->gs == q->gs - p->gs &&
                        r->ioff - q->ioff == q->ioff - p->ioff));
}

/* Whether the k lines p are evenly spaced (sl__rb_in_step). */
static int sl__rb_even(int k, const sl__rbptr *p) {
  for (int l = 2; l < k; ++l)
    if (!sl__rb_in_step(&p[l - 2], &p[l - 1], &p[l])) return 0;
  return 1;
}

/* The instances, one per floating dtype: each folds its loads, stores and
 * rounding (one f16 instance taking dt from b paid a switch per element:
 * the f16 backward leads of issue 52 ran at 0.2-0.6x LibTorch), one line
 * alone (k = 1) drops the loop over lines inside each position, and lines
 * side by side address their elements from line 0's. */
/* The instances of lines of one position, one contribution apart (an
 * index of one along the dim: the loop over lines then vectorizes). */
#define SL__RB_POINTS_FN(D)                                                    \
  static void sl__rb_points_##D(const sl__rbline *b, int k,                    \
                                const sl__rbptr *p, int even) {                \
    if (p[0].m == 1 && !even)                                                  \
      sl__rb_points_as(SL_##D, b, k, p, 1, 0);                                 \
    else if (p[0].m == 1)                                                      \
      sl__rb_points_as(SL_##D, b, k, p, 1, 1);                                 \
    else                                                                       \
      sl__rb_points_as(SL_##D, b, k, p, p[0].m, 1);                            \
  }
SL__RB_DTYPES(SL__RB_POINTS_FN)
#undef SL__RB_POINTS_FN

#define SL__RB_LINES_FN(D)                                                     \
  static void sl__rb_lines_##D(const sl__rbline *b, int k, const sl__rbptr *p, \
                               double *scratch) {                              \
    const int64_t es = (int64_t)sl__dtype_size(SL_##D);                        \
    const int64_t iline = k > 1 ? p[1].ioff - p[0].ioff : 0;                   \
    if (k == 1)                                                                \
      sl__rb_lines_as(SL_##D, b, 1, p, scratch, 0, 0);                         \
    else if (b->n == 1 && sl__rb_adjacent(k, p, es, iline))                    \
      sl__rb_points_##D(b, k, p, 0);                                           \
    else if (b->n == 1 && sl__rb_even(k, p))                                   \
      sl__rb_points_##D(b, k, p, 1);                                           \
    else if (sl__rb_adjacent(k, p, es, iline))                                 \
      sl__rb_lines_as(SL_##D, b, k, p, scratch, 1, iline);                     \
    else                                                                       \
      sl__rb_lines_as(SL_##D, b, k, p, scratch, 0, 0);                         \
  }
SL__RB_DTYPES(SL__RB_LINES_FN)
#undef SL__RB_LINES_FN

/* k evenly spaced lines of one position, of which only p[0] and p[1]
 * (k > 1) are read. */
static void sl__rb_points(const sl__rbline *b, int k, const sl__rbptr *p) {
#define SL__RB_POINTS_IS(D)                                                    \
  if (b->dt == SL_##D) {                                                       \
    sl__rb_points_##D(b, k, p, 1);                                             \
    return;                                                                    \
  }
  SL__RB_DTYPES(SL__RB_POINTS_IS)
#undef SL__RB_POINTS_IS
}

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
 * mean, prod, amax and amin. */
static int sl__rb_half_reduce(const sl__rbline *b) {
  const sl_reduce r = b->reduce;
  return (b->dt == SL_F16 || b->dt == SL_BF16) &&
         (r == SL_REDUCE_MEAN || r == SL_REDUCE_PROD || r == SL_REDUCE_AMAX ||
          r == SL_REDUCE_AMIN);
}

/* Whether the k lines p (one m) go through float: lines of a half reduce
 * evenly spaced in every tensor, so that each position of the k lines
 * widens as one block (lines along the last axis, neighbours along an
 * outer one, or every third element of a strided one). Lines without
 * contributions too: in an x larger than the index they were most of f16
 * amax's lines along dim 0 of 210^3, one at a time. */
static int sl__rb_half_fits(const sl__rbline *b, int k, const sl__rbptr *p) {
  return sl__rb_half_reduce(b) && sl__rb_even(k, p);
}

/* Positions [0, n) of k evenly spaced half lines from base (element step
 * `step` along a line, `line` from one line to the next) to float,
 * position j of line l at wide[j * k + l]: one block where the positions
 * follow each other in memory, else a block of k per position, gathered
 * first where the lines are not side by side. */
static void sl__rb_widen(sl_dtype dt, const char *base, int64_t step,
                         int64_t line, int64_t n, int k, float *wide) {
  if (line == 1 && (step == k || n == 1)) {
    sl__half_load_block(dt, base, wide, n * k);
    return;
  }
  uint16_t gathered[SL__RB_POINTS_BATCH];
  const uint16_t *h = (const uint16_t *)(const void *)base;
  for (int64_t j = 0; j < n; ++j) {
    if (line == 1) {
      sl__half_load_block(dt, h + j * step, wide + j * k, k);
      continue;
    }
    for (int l = 0; l < k; ++l) gathered[l] = h[j * step + l * line];
    sl__half_load_block(dt, gathered, wide + j * k, k);
  }
}

static void sl__rb_narrow(sl_dtype dt, const float *wide, char *base,
                          int64_t step, int64_t line, int64_t n, int k) {
  if (line == 1 && (step == k || n == 1)) {
    sl__half_store_block(dt, wide, base, n * k);
    return;
  }
  uint16_t narrowed[SL__RB_POINTS_BATCH];
  uint16_t *h = (uint16_t *)(void *)base;
  for (int64_t j = 0; j < n; ++j) {
    if (line == 1) {
      sl__half_store_block(dt, wide + j * k, h + j * step, k);
      continue;
    }
    sl__half_store_block(dt, wide + j * k, narrowed, k);
    for (int l = 0; l < k; ++l) h[j * step + l * line] = narrowed[l];
  }
}

/* Elements from line 0 to line 1 of the batch p in tensor f (1 for one
 * line alone). */
#define SL__RB_LINE_STEP(k, p, f) ((k) > 1 ? ((p)[1].f - (p)[0].f) / 2 : 1)

/* k f16/bf16 lines of mean, prod, amax or amin (sl__rb_half_fits)
 * through the f32 formulas: positions and contributions widened a block
 * at a time, the gradients narrowed back. Both types accumulate and round
 * in f32 and a half store rounds the f32 value, so the bits are the half
 * instance's (a NaN's payload aside; prod's gradient takes the f32
 * product, sl__rbline.widened); that instance's software conversions,
 * several per element, were most of the time of f16 mean along the last
 * axis (0.60x LibTorch), of f16 amax along dim 0 of 210^3 (0.39x) and of
 * f16 prod along dim 1 of 249x249x251 (0.53x). 0, having done nothing,
 * when memory is short. */
static int sl__rb_half_lines(const sl__rbline *b, int k, const sl__rbptr *p,
                             double *scratch, sl__rb_floats *w) {
  const int64_t n = b->n, m = p[0].m, need = (4 * n + 2 * m) * k;
  if (k < 1) return 1; /* nothing to do (and q[] below is then unused) */
  if (need > w->cap) {
    float *f = sl__malloc((size_t)need * sizeof *f);
    if (!f) return 0;
    sl__free(w->f);
    w->f = f, w->cap = need;
  }
  float *g = w->f, *x = g + n * k, *res = x + n * k, *gx = res + n * k;
  float *src = gx + n * k, *gs = src + m * k;
  sl__rb_widen(b->dt, p[0].g, b->gstep, SL__RB_LINE_STEP(k, p, g), n, k, g);
  sl__rb_widen(b->dt, p[0].x, b->xstep, SL__RB_LINE_STEP(k, p, x), n, k, x);
  sl__rb_widen(b->dt, p[0].res, b->rstep, SL__RB_LINE_STEP(k, p, res), n, k,
               res);
  if (m > 0)
    sl__rb_widen(b->dt, p[0].src, b->sstep, SL__RB_LINE_STEP(k, p, src), m, k,
                 src);
  sl__rbline wide = *b;
  wide.dt = SL_F32;
  wide.widened = 1;
  wide.gstep = wide.xstep = wide.rstep = wide.gxstep = k;
  wide.sstep = wide.gsstep = k;
  sl__rbptr q[SL__RB_POINTS_BATCH];
  /* lines of one position read only the first two (sl__rb_points_as) */
  const int lines = n == 1 && k > 1 ? 2 : k;
  for (int l = 0; l < lines; ++l)
    q[l] = (sl__rbptr){(const char *)(g + l),
                       (const char *)(x + l),
                       (const char *)(res + l),
                       (char *)(gx + l),
                       (const char *)(src + l),
                       (char *)(gs + l),
                       p[l].ioff,
                       m};
  /* side by side in the floats by construction, their index lines
   * evenly spaced (sl__rb_half_fits) */
  /* k = 1 a constant where the lines go alone (contiguous lines, most
   * of the calls): loops over one line that fold and vectorize */
  if (n == 1 && k > 1)
    sl__rb_points_F32(&wide, k, q, 0);
  else if (k == 1)
    sl__rb_lines_as(SL_F32, &wide, 1, q, scratch, 0, 0);
  else
    sl__rb_lines_as(SL_F32, &wide, k, q, scratch, 1, p[1].ioff - p[0].ioff);
  sl__rb_narrow(b->dt, gx, p[0].gx, b->gxstep, SL__RB_LINE_STEP(k, p, gx), n,
                k);
  if (m > 0)
    sl__rb_narrow(b->dt, gs, p[0].gs, b->gsstep, SL__RB_LINE_STEP(k, p, gs), m,
                  k);
  return 1;
}

/* A batch of k lines (one m), through float where it fits; even: the
 * lines are known to be evenly spaced. */
static void sl__rb_flush(const sl__rbline *b, int k, const sl__rbptr *p,
                         double *scratch, sl__rb_floats *w, int even) {
  if ((even ? sl__rb_half_reduce(b) : sl__rb_half_fits(b, k, p)) &&
      sl__rb_half_lines(b, k, p, scratch, w))
    return;
  sl__reduce_backward_lines(b, k, p, scratch);
}

/* A run of k lines of one position from the first two p (evenly
 * spaced: the rest follow by arithmetic, so their sl__rbptr, 64 bytes a
 * line, are not written: that took a third of the time of 3M lines of
 * bf16 prod). Through float as sl__rb_flush has it; 0, having done
 * nothing, when memory for that is short. */
static int sl__rb_points_run(const sl__rbline *b, int k, const sl__rbptr *p,
                             double *scratch, sl__rb_floats *w) {
  if (sl__rb_half_reduce(b)) return sl__rb_half_lines(b, k, p, scratch, w);
  sl__rb_points(b, k, p);
  return 1;
}

void sl__rbgeo_tensors(sl__rbgeo *geo, const sl_tensor *t, int walk_ndim) {
  static const int slot_of[SL__RB_GS + 1] = {
      [SL__RB_G] = 0,  [SL__RB_X] = 1,   [SL__RB_RES] = 4,
      [SL__RB_GX] = 5, [SL__RB_SRC] = 3, [SL__RB_GS] = 6};
  for (int f = 0; f <= SL__RB_GS; ++f) {
    const sl_tensor *at = &t[slot_of[f]];
    const int64_t es = (int64_t)sl_dtype_size(at->dtype);
    geo->base[f] = (char *)at->data;
    for (int d = 0; d < walk_ndim; ++d)
      geo->step[d][f] = d < at->ndim ? at->strides[d] * es : 0;
  }
}

/* The walk over lines: its coordinates and the offsets of the current
 * line in every place (sl__rbgeo). */
typedef struct sl__rb_cursor {
  int64_t idx[SL_MAX_DIMS];
  int64_t off[SL__RB_PLACES];
} sl__rb_cursor;

static void sl__rb_cursor_start(const sl__rbline *b, int64_t line,
                                sl__rb_cursor *c) {
  sl__line_start(line, b->walk_ndim, b->walk_shape, b->walk_dim, c->idx);
  for (int f = 0; f < SL__RB_PLACES; ++f) {
    c->off[f] = 0;
    for (int d = 0; d < b->walk_ndim; ++d)
      c->off[f] += c->idx[d] * b->geo->step[d][f];
  }
}

/* The next line in sl__line_start's order: an add per place where the
 * walk moves one axis, a subtraction more where an axis wraps. */
static void sl__rb_cursor_next(const sl__rbline *b, sl__rb_cursor *c) {
  for (int d = b->walk_ndim - 1; d >= 0; --d) {
    if (d == b->walk_dim) continue;
    const int64_t *step = b->geo->step[d];
    for (int f = 0; f < SL__RB_PLACES; ++f) c->off[f] += step[f];
    if (++c->idx[d] < b->walk_shape[d]) return;
    for (int f = 0; f < SL__RB_PLACES; ++f)
      c->off[f] -= step[f] * b->walk_shape[d];
    c->idx[d] = 0;
  }
}

/* The cursor's line. */
static void sl__rb_cursor_line(const sl__rbline *b, const sl__rb_cursor *c,
                               sl__rbptr *q) {
  const sl__rbgeo *geo = b->geo;
  int covered = 1;
  for (int d = 0; d < b->walk_ndim; ++d)
    covered &= d == b->walk_dim || c->idx[d] < geo->cover[d];
  q->g = geo->base[SL__RB_G] + c->off[SL__RB_G];
  q->x = geo->base[SL__RB_X] + c->off[SL__RB_X];
  q->res = geo->base[SL__RB_RES] + c->off[SL__RB_RES];
  q->gx = geo->base[SL__RB_GX] + c->off[SL__RB_GX];
  /* src and grad_src only where there are contributions: an empty src's
   * data may be NULL, which takes no offset */
  const int reached = covered && geo->m > 0;
  q->m = reached ? geo->m : 0;
  q->ioff = reached ? c->off[SL__RB_IDX] : 0;
  q->src = reached ? geo->base[SL__RB_SRC] + c->off[SL__RB_SRC] : NULL;
  q->gs = reached ? geo->base[SL__RB_GS] + c->off[SL__RB_GS] : NULL;
}

/* The paths a line of m contributions may take other than the batches. */
enum {
  SL__RB_BATCHED,
  SL__RB_SPARSE,
  SL__RB_GROUPED,
  SL__RB_PACKED,
  SL__RB_MEAN
};
static int sl__rb_path(const sl__rbline *b, int64_t m) {
  return sl__rb_sparse_fits(b, m)    ? SL__RB_SPARSE
         : sl__rb_grouped_fits(b, m) ? SL__RB_GROUPED
         : sl__rb_packed_fits(b, m)  ? SL__RB_PACKED
         : sl__rb_mean_fits(b, m)    ? SL__RB_MEAN
                                     : SL__RB_BATCHED;
}

/* Whether line q went by a path of its own (path: sl__rb_path's for its
 * m); the grouped, packed and mean ones decline when memory is short. */
static int sl__rb_alone(const sl__rbline *b, int path, const sl__rbptr *q,
                        int spare, double *scratch) {
  switch (path) {
  case SL__RB_SPARSE:
    sl__rb_sparse_line(b, q, scratch);
    return 1;
  case SL__RB_GROUPED:
    return sl__rb_grouped_line(b, q, spare);
  case SL__RB_PACKED:
    return sl__rb_packed_line(b, q, spare);
  case SL__RB_MEAN:
    return sl__rb_mean_line(b, q, spare);
  default:
    return 0;
  }
}

/* The innermost axis the walk steps (not its dim, nor an axis of extent
 * 1, along which no run is longer than one line: f32 amax of
 * 1x1090175x1x1 along dim 3 went a line at a time through the cursor,
 * 0.42x LibTorch), or -1 when it steps none (a single line). */
static int sl__rb_inner_axis(const sl__rbline *b) {
  int d = b->walk_ndim - 1;
  while (d >= 0 && (d == b->walk_dim || b->walk_shape[d] == 1)) --d;
  return d;
}

/* Whether the `count` lines from the cursor's on lie along axis `inner`
 * without a wrap, all covered by the index or none (then they are evenly
 * spaced, with one m). */
static int sl__rb_run_of(const sl__rbline *b, const sl__rb_cursor *c, int inner,
                         int64_t count) {
  const int64_t at = c->idx[inner], cover = b->geo->cover[inner];
  return at + count <= b->walk_shape[inner] &&
         (at + count <= cover || at >= cover);
}

/* Lines [0, count) of a run from line q (sl__rb_run_of) into p: line j
 * steps j times the inner axis' step from q in every place. */
static void sl__rb_run_lines(const sl__rbline *b, int inner, const sl__rbptr *q,
                             int count, sl__rbptr *p) {
  const int64_t *st = b->geo->step[inner];
  for (int j = 0; j < count; ++j) {
    p[j] = *q;
    p[j].g += j * st[SL__RB_G];
    p[j].x += j * st[SL__RB_X];
    p[j].res += j * st[SL__RB_RES];
    p[j].gx += j * st[SL__RB_GX];
    if (q->m > 0) {
      p[j].src += j * st[SL__RB_SRC];
      p[j].gs += j * st[SL__RB_GS];
      p[j].ioff += j * st[SL__RB_IDX];
    }
  }
}

/* Moves the cursor `count` lines on along axis `inner`, the last step
 * through sl__rb_cursor_next (which carries into the outer axes). */
static void sl__rb_cursor_skip(const sl__rbline *b, sl__rb_cursor *c, int inner,
                               int64_t count) {
  for (int f = 0; f < SL__RB_PLACES; ++f)
    c->off[f] += (count - 1) * b->geo->step[inner][f];
  c->idx[inner] += count - 1;
  sl__rb_cursor_next(b, c);
}

/* Positions of lines without contributions taken at once (below): a few
 * pages of floats where they widen. */
enum { SL__RB_BARE_RUN = 4096 };

/* How many lines from the cursor's (line q, without contributions) lie
 * end to end in g, x, result and grad_x, all without contributions, at
 * most `most` of them and SL__RB_BARE_RUN positions: 1 when the next line
 * does not follow, 0 when a line's positions are not contiguous or more
 * than SL__RB_BARE_RUN (a long line pays little per line as it is). */
static int64_t sl__rb_bare_lines(const sl__rbline *b, const sl__rb_cursor *c,
                                 int inner, int64_t most) {
  const int64_t es = (int64_t)sl__dtype_size(b->dt), n = b->n;
  if (b->gstep != 1 || b->xstep != 1 || b->rstep != 1 || b->gxstep != 1 ||
      n > SL__RB_BARE_RUN)
    return 0;
  int64_t count = 1;
  if (inner >= 0) {
    const int64_t *st = b->geo->step[inner];
    if (st[SL__RB_G] == n * es && st[SL__RB_X] == n * es &&
        st[SL__RB_RES] == n * es && st[SL__RB_GX] == n * es)
      count = b->walk_shape[inner] - c->idx[inner];
  }
  if (count > most) count = most;
  if (count > SL__RB_BARE_RUN / n) count = SL__RB_BARE_RUN / n;
  while (count > 1 && !sl__rb_run_of(b, c, inner, count)) count /= 2;
  return count; /* inner < 0: 1 */
}

/* The count * n positions of lines without contributions from line q
 * (sl__rb_bare_lines) as that many lines of one position: without
 * contributions a position's gradient is its own (sl__rb_points_as with
 * m = 0), so they go in one vectorized loop instead of a line at a time
 * (f16 amax along the last axis of 50x50x50x53, 72% of its lines without
 * contributions, ran at 0.62x LibTorch a line at a time). 0, having done
 * nothing, when memory is short. */
static int sl__rb_bare_run(const sl__rbline *b, const sl__rbptr *q,
                           int64_t positions, double *scratch,
                           sl__rb_floats *w) {
  const int64_t es = (int64_t)sl__dtype_size(b->dt);
  sl__rbline one = *b;
  one.n = 1;
  /* side by side: sl__rb_half_lines widens them as one block, whatever
   * their number */
  sl__rbptr p[2] = {*q, *q};
  p[1].g += es, p[1].x += es, p[1].res += es, p[1].gx += es;
  return sl__rb_points_run(&one, (int)positions, p, scratch, w);
}

/* Lines [begin, end) in batches of up to `batch` neighbours with one m;
 * `spare` threads for each line where lines are fewer than threads. The
 * lines have at most two m (the index's and 0), so each m's path is
 * asked once. */
static void sl__rb_range(const sl__rbline *b, int64_t begin, int64_t end,
                         int batch, int spare, double *scratch) {
  sl__rbptr p[SL__RB_POINTS_BATCH];
  sl__rb_floats wide = {NULL, 0};
  const int half = sl__rb_half_reduce(b);
  const int covered_path = sl__rb_path(b, b->geo->m),
            bare_path = sl__rb_path(b, 0);
  const int inner = sl__rb_inner_axis(b);
  int k = 0;
  sl__rb_cursor cur;
  sl__rb_cursor_start(b, begin, &cur);
  for (int64_t l = begin; l < end; ++l, sl__rb_cursor_next(b, &cur)) {
    sl__rbptr q;
    sl__rb_cursor_line(b, &cur, &q);
    const int path = q.m == b->geo->m ? covered_path : bare_path;
    const int64_t bare =
        k == 0 && q.m == 0 ? sl__rb_bare_lines(b, &cur, inner, end - l) : 0;
    if (bare > 0 && sl__rb_bare_run(b, &q, bare * b->n, scratch, &wide)) {
      if (bare > 1) sl__rb_cursor_skip(b, &cur, inner, bare - 1);
      l += bare - 1;
      continue;
    }
    /* a whole batch along the inner axis: its lines by arithmetic, without
     * the cursor's walk and the checks below for each (lines of one
     * position paid more for those than for their formulas) */
    if (k == 0 && path == SL__RB_BATCHED && batch > 1 && inner >= 0 &&
        end - l >= batch && sl__rb_run_of(b, &cur, inner, batch)) {
      const int points = b->n == 1;
      sl__rb_run_lines(b, inner, &q, points ? 2 : batch, p);
      if (!points || !sl__rb_points_run(b, batch, p, scratch, &wide)) {
        sl__rb_run_lines(b, inner, &q, batch, p);
        sl__rb_flush(b, batch, p, scratch, &wide, 1);
      }
      sl__rb_cursor_skip(b, &cur, inner, batch - 1);
      l += batch - 1;
      continue;
    }
    if (path != SL__RB_BATCHED && sl__rb_alone(b, path, &q, spare, scratch))
      continue;
    /* a half batch also ends where the lines stop being evenly spaced (at
     * the end of a row of them), so that the batches go through float */
    if (k == batch ||
        (k > 0 &&
         (q.m != p[0].m ||
          (half && k > 1 && !sl__rb_in_step(&p[k - 2], &p[k - 1], &q))))) {
      sl__rb_flush(b, k, p, scratch, &wide, 0);
      k = 0;
    }
    p[k++] = q;
  }
  if (k > 0) sl__rb_flush(b, k, p, scratch, &wide, 0);
  sl__free(wide.f);
}

sl_status sl__reduce_backward_run(sl_ctx *ctx, const char *op,
                                  const sl__rbline *b, int64_t lines,
                                  int threads) {
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
  /* A team of one runs outside any region: a team a line opens inside even an
   * inactive region is a nested one, which libgomp starts on new threads
   * every time (pthread_create, and threads still exiting after the call
   * returns) instead of its pool. */
  if (team == 1) {
    sl__rb_range(b, 0, lines, batch, threads, scratch);
  } else {
#pragma omp parallel num_threads(team)
    {
      const int t = omp_get_thread_num();
      int64_t begin, end;
      sl__chunk(lines, team, t, &begin, &end);
      sl__rb_range(b, begin, end, batch, threads / team,
                   scratch ? scratch + t * per_thread : NULL);
    }
  }
  sl__free(scratch);
  return SL_STATUS_OK;
}
