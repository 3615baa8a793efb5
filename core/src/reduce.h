/*
 * The reduction machinery shared by scatter_reduce, index_reduce, their
 * backward ops and every variant of them (serial, omp, and the atomic, lock
 * and sorted variants to come): identities, the combine step, mean
 * finalization, the LibTorch-style element counts, and the line kernels.
 *
 * Numerics (checked against LibTorch 1.13):
 * - Floating dtypes combine in double and round to the accumulation dtype
 *   after every step: f32 and f64 accumulate in themselves, f16 and bf16
 *   in f32 (sl__acc_dtype below), rounded to the half type once, when
 *   stored. One + - * / in double rounded to f32 is exactly f32's own
 *   operation (double has more than 2p+2 bits), so every step matches
 *   LibTorch's f32 loop.
 * - Integer sum and prod run in uint64 and wrap when stored (the low bits of
 *   a sum or product depend only on the low bits of the operands).
 * - The combine step and the identities (NaN and -0.0 included) are
 *   reduce_ops.h's, which the CUDA kernels share.
 * - Integer mean is floor division; float mean divides by the count.
 * - Counts (mean, and the tie counts of the amax/amin backward) are kept in
 *   the accumulation dtype as LibTorch does (ones_like(x).scatter_add(...)),
 *   so an f32 count is exact up to 2^24. sl__count_add rounds.
 */
#ifndef SL_REDUCE_H
#define SL_REDUCE_H

#include <math.h>
#include <string.h>

#include "reduce_ops.h"
#include "sl_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The reduces of scatter_reduce (LibTorch's five) and of index_reduce. */
#define SL__REDUCE_BIT(r) (1u << SL_REDUCE_##r)
#define SL__REDUCES_SCATTER                                                    \
  (SL__REDUCE_BIT(SUM) | SL__REDUCE_BIT(PROD) | SL__REDUCE_BIT(MEAN) |         \
   SL__REDUCE_BIT(AMAX) | SL__REDUCE_BIT(AMIN))
#define SL__REDUCES_INDEX (SL__REDUCES_SCATTER | SL__REDUCE_BIT(ASSIGN))
/* scatter_nd: plain writes or sums; the dynamic ops: mmcv's three. */
#define SL__REDUCES_ND (SL__REDUCE_BIT(NONE) | SL__REDUCE_BIT(SUM))
#define SL__REDUCES_DYNAMIC                                                    \
  (SL__REDUCE_BIT(SUM) | SL__REDUCE_BIT(MEAN) | SL__REDUCE_BIT(MAX))
/* segment_reduce: PyTorch's five (its max and min are amax and amin). */
#define SL__REDUCES_SEGMENT SL__REDUCES_SCATTER

/* Integer dtypes of the reduction group travel as int64. */
static inline int sl__reduce_is_int(sl_dtype dt) {
  return dt == SL_I32 || dt == SL_I64;
}

/* ------------------------------------------------------------------------ */
/* Values                                                                    */
/* ------------------------------------------------------------------------ */

/* a ⊕ b, the identities and the integer mean's floor division are
 * reduce_ops.h's (shared with the CUDA kernels): floating dtypes combine
 * in double, integer dtypes in int64. */
static inline double sl__reduce_f(sl_reduce r, double a, double b) {
  return sl__combine_f64(r, a, b);
}

static inline int64_t sl__reduce_i(sl_reduce r, int64_t a, int64_t b) {
  return sl__combine_i64(r, a, b);
}

/* The identity a targeted position takes when include_self is false. */
static inline double sl__reduce_identity_f(sl_reduce r) {
  return sl__identity_f64(r);
}

static inline int64_t sl__reduce_identity_i(sl_dtype dt, sl_reduce r) {
  return dt == SL_I32 ? sl__identity_i32(r) : sl__identity_i64(r);
}

static inline int64_t sl__floor_div(int64_t a, int64_t b) {
  return sl__floor_div_i64(a, b);
}

/* v as the floating dtype dt stores it (f64: v itself). */
static inline double sl__round_to(sl_dtype dt, double v) {
  switch (dt) {
  case SL_F32:
    return (double)(float)v;
  case SL_F16:
    return sl_f16_to_f32(sl_f32_to_f16((float)v));
  case SL_BF16:
    return sl_bf16_to_f32(sl_f32_to_bf16((float)v));
  default:
    return v;
  }
}

/* when ? a : b by the bits, so that the compiler cannot branch on a
 * condition the data decides (a mispredict per element where it falls at
 * random). */
static inline double sl__pick_f64(int when, double a, double b) {
  uint64_t ua, ub, mask = (uint64_t)0 - (uint64_t)(when != 0);
  memcpy(&ua, &a, sizeof ua);
  memcpy(&ub, &b, sizeof ub);
  ua = (ua & mask) | (ub & ~mask);
  memcpy(&a, &ua, sizeof a);
  return a;
}

/* 1 where a == b, else 0, without a branch: a tie with a reduction's
 * result falls at random in the backward passes. */
static inline double sl__hit(double a, double b) {
  return sl__pick_f64(a == b, 1.0, 0.0);
}

/* v, or 1 where v is a zero of either sign, without a branch. */
static inline double sl__zero_to_one(double v) {
  return sl__pick_f64(v == 0.0, 1.0, v);
}

/* The dtype a reduction of dt accumulates in: f32 for f16/bf16
 * (LibTorch's opmath type). */
static inline sl_dtype sl__acc_dtype(sl_dtype dt) {
  return dt == SL_F16 || dt == SL_BF16 ? SL_F32 : dt;
}

/* count + inc as a count tensor of dtype dt holds it: floating dtypes round
 * (a bf16 count of 256 plus 1 stays 256), integers are exact. */
static inline double sl__count_add(sl_dtype dt, double count, double inc) {
  return sl__reduce_is_int(dt) ? count + inc
                               : sl__round_to(sl__acc_dtype(dt), count + inc);
}

/* ------------------------------------------------------------------------ */
/* Elements in memory (dtype dt)                                             */
/* ------------------------------------------------------------------------ */

static inline void sl__reduce_set_identity(sl_dtype dt, sl_reduce r,
                                           void *acc) {
  if (sl__reduce_is_int(dt))
    sl__store_i(dt, acc, sl__reduce_identity_i(dt, r));
  else
    sl__store_f(dt, acc, sl__reduce_identity_f(r));
}

/* *acc = *acc ⊕ *v. ASSIGN copies the element whatever its dtype. */
static inline void sl__reduce_step(sl_dtype dt, sl_reduce r, void *acc,
                                   const void *v) {
  if (r == SL_REDUCE_ASSIGN)
    memcpy(acc, v, sl__dtype_size(dt));
  else if (sl__reduce_is_int(dt))
    sl__store_i(dt, acc,
                sl__reduce_i(r, sl__load_i(dt, acc), sl__load_i(dt, v)));
  else
    sl__store_f(dt, acc,
                sl__reduce_f(r, sl__load_f(dt, acc), sl__load_f(dt, v)));
}

/* Mean of a sum over `count` (>= 1) contributions. */
static inline void sl__reduce_mean_finish(sl_dtype dt, void *acc,
                                          double count) {
  if (sl__reduce_is_int(dt))
    sl__store_i(dt, acc, sl__floor_div(sl__load_i(dt, acc), (int64_t)count));
  else
    sl__store_f(dt, acc, sl__load_f(dt, acc) / count);
}

/* ------------------------------------------------------------------------ */
/* Lines                                                                     */
/* ------------------------------------------------------------------------ */

/* Index value of contribution i of a line whose index starts at ioff. */
static inline int64_t sl__target(const sl_tensor *index, int64_t ioff,
                                 int64_t istep, int64_t i) {
  return sl__load_index(index, ioff + i * istep);
}

/*
 * Both forward ops are a set of independent lines: a line is the n elements
 * of out along the reduced dim (scatter_reduce's dim, index_reduce's axis)
 * and the m contributions aimed at it; contribution i goes to position
 * index[i] of the line and reads src[i]. scatter_reduce has one index line
 * per line; index_reduce shares one index among all lines. Lines never
 * share an output element, so a thread that owns whole lines needs no
 * synchronisation, and within a line contributions go in index order.
 */
typedef struct sl__rlines {
  sl_dtype dt;
  sl_reduce reduce; /* SUM PROD MEAN AMAX AMIN, or ASSIGN (copy) */
  int include_self;
  int64_t n;              /* extent of an out line */
  int64_t m;              /* contributions per line */
  const sl_tensor *index; /* i32/i64 */
  int64_t istep;          /* element step of index along the line */
  char *out;              /* out's data; out already holds x */
  int64_t ostep;          /* element step of out along the line */
  const char *src;        /* src's (updates') data */
  int64_t sstep;          /* element step of src along the line */
  int distinct;           /* no target twice in a line: f16/bf16 lines then
                             store each step at once, without accumulators */
} sl__rlines;

/* The most lines one sl__reduce_lines call takes (callers batch lines so
 * that neighbouring lines are walked together, for locality). */
#define SL__LINE_BATCH 32

/* Doubles of scratch that sl__reduce_lines needs per thread for lines of
 * extent n: the mean's counts, and f16/bf16's f32 accumulators. */
static inline int64_t sl__reduce_lines_scratch(sl_dtype dt, sl_reduce r,
                                               int64_t n) {
  int64_t k = 0;
  if (r == SL_REDUCE_MEAN) k += n;
  if (sl__acc_dtype(dt) != dt && r != SL_REDUCE_ASSIGN) k += n;
  return k;
}

/*
 * Reduces k (<= SL__LINE_BATCH) lines: line l starts at element offset
 * out_off[l] of out, src_off[l] of src and idx_off[l] of index. `scratch`
 * holds sl__reduce_lines_scratch(dt, reduce, n) doubles (NULL when 0).
 */
void sl__reduce_lines(const sl__rlines *p, int k, const int64_t *out_off,
                      const int64_t *src_off, const int64_t *idx_off,
                      double *scratch);

/* Reduces the lines [begin, end) of a call (at most SL__LINE_BATCH),
 * with `scratch` as in sl__reduce_lines. */
typedef void (*sl__line_batch_fn)(const void *user, int64_t begin, int64_t end,
                                  double *scratch);

/*
 * The general path of the forward ops: copies x (c->arg[0]) to out
 * (c->arg[3]), then runs fn over `lines` lines of out's extent n along the
 * reduced dim, SL__LINE_BATCH at a time, on up to `threads` threads, each
 * with its own scratch. `op` names the op in the out-of-memory message.
 */
sl_status sl__reduce_line_batches(sl_ctx *ctx, const char *op, sl_call *c,
                                  int64_t lines, int64_t n, int threads,
                                  sl__line_batch_fn fn, const void *user);

/*
 * One line of a backward op: the n positions of grad_out, x, result and
 * grad_x along the dim, and the m contributions (index, src, grad_src). The
 * formulas are LibTorch 1.13's scatter_reduce_backward / index_reduce
 * backward (FunctionsManual.cpp), evaluated literally with a rounding to
 * the dtype after every tensor operation, so NaN, inf and zeros behave as
 * there (e.g. grad * inf / inf gives NaN for an untargeted inf under prod):
 *   sum:    grad_x = g; grad_src = g[index]
 *   assign: grad_x = g, 0 at targeted positions; grad_src = g[index]
 *           (every duplicate gets the gradient, as index_copy's backward)
 *   mean:   N = include_self + count; grad_x = g / N; grad_src = g[t] / N[t]
 *   prod:   masked x (0 -> 1); grad_x = g * prod(masked x, src) / masked x;
 *           grad_src = g[t] * prod(x, src with its single zero -> 1) when src
 *           is the only zero aimed at t, else g[t] * result[t] / src (0 -> 1)
 *   amax/amin: N = (x == result) + Σ (src == result[t]) (x counted even when
 *           include_self is false, as 1.13 does); grad_x = (x == result) *
 *           g / N; grad_src = (src == result[t]) * g[t] / N[t]
 * and, when include_self is false, grad_x is 0 at every targeted position.
 */
/* The places of a backward line: its first element of grad_out, x,
 * result, grad_x, src and grad_src, and its offset into the index. */
enum {
  SL__RB_G,
  SL__RB_X,
  SL__RB_RES,
  SL__RB_GX,
  SL__RB_SRC,
  SL__RB_GS,
  SL__RB_IDX,
  SL__RB_PLACES
};

/*
 * Where an op's lines lie: the line at walk coordinates idx (walk_dim's at
 * 0) starts at base[f] + sum of idx[d] * step[d][f] bytes in tensor f
 * (elements for SL__RB_IDX, from the index's own start). It holds m
 * contributions when idx[d] < cover[d] for every axis d but the walk's
 * dim (the index reaches that far), none otherwise (src and grad_src then
 * unused). The walk steps these offsets from line to line: locating every
 * line afresh, a multiply per axis per tensor, was most of the time of
 * lines of one position (an index_reduce_backward of 3M of them ran at
 * 0.28x LibTorch).
 */
typedef struct sl__rbgeo {
  char *base[SL__RB_GS + 1];
  int64_t step[SL_MAX_DIMS][SL__RB_PLACES];
  int64_t cover[SL_MAX_DIMS];
  int64_t m;
} sl__rbgeo;

/* Sets the tensor places of geo from t, the seven slots both backward
 * ops share (0 grad_out, 1 x, 2 index, 3 src, 4 result, 5 grad_x,
 * 6 grad_src; each of rank walk_ndim, or 0 for none of the axes): their
 * data and their byte steps along the walk's axes. */
void sl__rbgeo_tensors(sl__rbgeo *geo, const sl_tensor *t, int walk_ndim);

typedef struct sl__rbline {
  sl_dtype dt; /* f16 bf16 f32 f64 */
  sl_reduce reduce;
  int include_self;
  int64_t n;                           /* positions per line */
  int64_t gstep, xstep, rstep, gxstep; /* element steps along a line */
  const sl_tensor *index;
  int64_t istep;
  int64_t sstep, gsstep;
  /* the lines: the walk over `walk_ndim` axes of extents walk_shape, each
   * line along walk_dim (sl__line_start's order), lying where geo says */
  int walk_ndim, walk_dim;
  const int64_t *walk_shape;
  const sl__rbgeo *geo;
  /* f32 lines widened from f16/bf16 (reduce_backward.c): prod's gradient
   * then takes its own f32 product, as the half instance does, rather
   * than the given result (rounded to the half type) */
  int widened;
} sl__rbline;

/* The floating dtypes of the backward ops, one kernel instance each. */
#define SL__RB_DTYPES(X) X(F32) X(F64) X(F16) X(BF16)

/* Where one line lies: its first element in each tensor, its index offset
 * and its number of contributions m (src and gs unused when m == 0). */
typedef struct sl__rbptr {
  const char *g, *x, *res;
  char *gx;
  const char *src;
  char *gs;
  int64_t ioff, m;
} sl__rbptr;

/* Element j of a backward line (reduce_backward*.c): base + j * step
 * elements of es bytes, es in scope. */
#define SL__AT(base, j, step) ((base) + (j) * (step)*es)

/*
 * The backward of `lines` independent lines on up to `threads` threads,
 * each taking a contiguous range of lines. Neighbouring lines (with the same
 * m) go through the formulas side by side, position by position, with
 * their scratch interleaved: along a dim that is not the last axis a line
 * steps a whole row per position, and one line at a time touched a cache
 * line per position and used one element of it. Fails (naming `op`) only
 * when the scratch cannot be allocated.
 */
sl_status sl__reduce_backward_run(sl_ctx *ctx, const char *op,
                                  const sl__rbline *b, int64_t lines,
                                  int threads);

/* A line of few contributions beside its positions (reduce_backward_sparse.c):
 * whether line geometry b with m contributions takes the per-target path,
 * and that path, its scratch at least 5 m doubles (the dense path's for
 * such a line holds more). Results bit for bit the dense path's. */
int sl__rb_sparse_fits(const sl__rbline *b, int64_t m);
/* Positions per contribution from which a line (or index_reduce_backward's
 * slices) counts per target rather than per position. */
enum { SL__RB_SPARSE_RATIO = 8 };
/* u[0..m) sorted and its duplicates dropped in place: returns nu, the
 * distinct targets now in u[0..nu). */
int64_t sl__rb_distinct(int64_t *u, int64_t m);
/* The place of target t among the nu distinct targets u (t among them). */
int64_t sl__rb_slot(const int64_t *u, int64_t nu, int64_t t);
void sl__rb_sparse_line(const sl__rbline *b, const sl__rbptr *p,
                        double *scratch);

/* A line of prod whose dense scratch (four doubles a position) would
 * outgrow SL__TH_BACKWARD_SCRATCH (reduce_backward_grouped.c): whether
 * line geometry b with m contributions takes the path grouped by target,
 * and that path, which returns 0 having done nothing when it finds no
 * memory for its sort (n + m + 1 int32). Results bit for bit the dense
 * path's. */
int sl__rb_grouped_fits(const sl__rbline *b, int64_t m);
int sl__rb_grouped_line(const sl__rbline *b, const sl__rbptr *p, int threads);

/* A line of f16, bf16 or f32 amax/amin whose dense counts would outgrow
 * SL__TH_BACKWARD_SCRATCH (reduce_backward_packed.c): whether line geometry
 * b with m contributions takes the path that packs each position's result,
 * g and count in one record, and that path, which returns 0 having done
 * nothing when it finds no memory for the records (8 bytes a position for
 * f16/bf16, 12 for f32); its passes over positions and its shares run on
 * `threads` threads.
 * Results bit for bit the dense path's. */
int sl__rb_packed_fits(const sl__rbline *b, int64_t m);
int sl__rb_packed_line(const sl__rbline *b, const sl__rbptr *p, int threads);

/* A line of mean whose dense counts (a double a position) would outgrow
 * SL__TH_BACKWARD_SCRATCH, g and grad_x contiguous
 * (reduce_backward_mean.c): whether line geometry b with m contributions
 * takes the path of int32 counts split by range of positions, and that
 * path, which returns 0 having done nothing when it finds no memory for
 * the counts (4 bytes a position); its passes run on `threads` threads.
 * Results bit for bit the dense path's. */
int sl__rb_mean_fits(const sl__rbline *b, int64_t m);
int sl__rb_mean_line(const sl__rbline *b, const sl__rbptr *p, int threads);

/* ------------------------------------------------------------------------ */
/* Shapes and checks shared by the four ops                                  */
/* ------------------------------------------------------------------------ */

/*
 * A rank-k view of t for an axis-wise op: t itself when its rank is k,
 * otherwise (rank k-1: a 0-D x, or index_reduce's updates slice for a 0-D
 * index) t with an extent-1, stride-0 dim inserted at axis.
 */
void sl__axis_view(const sl_tensor *t, int k, int axis, sl_tensor *view);

/* t has the dtype and shape of x (messages: "grad_out: expected ..."). */
sl_status sl__check_like_x(sl_ctx *ctx, const char *what, const sl_tensor *t,
                           const sl_tensor *x);

/* index_reduce's contract (ops/index_reduce/index_reduce.c): validates x,
 * index, updates, the dim and the reduce against `allowed`; writes the
 * normalized dim; the index values only with mode SL__INFER_ALL. Shared with
 * index_reduce_backward. */
sl_status sl__index_reduce_check(sl_ctx *ctx, const sl_tensor *x,
                                 const sl_tensor *index,
                                 const sl_tensor *updates, sl_reduce reduce,
                                 unsigned allowed, sl__infer_mode mode,
                                 int64_t *dim);

#ifdef __cplusplus
}
#endif
#endif /* SL_REDUCE_H */
