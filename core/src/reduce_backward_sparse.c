/*
 * The backward line of scatter_reduce and index_reduce when its
 * contributions are few beside its positions (reduce.h): scratch per
 * target instead of per position. The dense lines (reduce_backward.c) keep
 * mean's, prod's and amax/amin's scratch for every position of a line; on
 * a line of a million positions and one update that was 32 MB of doubles
 * written and read for one target, and index_reduce_backward prod ran at
 * 0.08x LibTorch's speed. Here the targets are sorted once, each keeps its
 * scratch in a slot, and every other position takes the closed form of the
 * dense formulas at their initial values: every element sees the same
 * operations in the same order, so the results are the dense path's, bit
 * for bit.
 */
#include <stdlib.h>
#include <string.h>

#include "reduce.h"

/* Lines whose positions are contiguous only: along a dim that is not the
 * last axis the dense path walks neighbouring lines side by side, one
 * cache line for all of them, which one line at a time would give up. */
int sl__rb_sparse_fits(const sl__rbline *b, int64_t m) {
  const int scratchy =
      b->reduce == SL_REDUCE_MEAN || b->reduce == SL_REDUCE_PROD ||
      b->reduce == SL_REDUCE_AMAX || b->reduce == SL_REDUCE_AMIN;
  const int contiguous =
      b->gstep == 1 && b->xstep == 1 && b->rstep == 1 && b->gxstep == 1;
  return scratchy && contiguous && m > 0 && m * SL__RB_SPARSE_RATIO <= b->n;
}

static int sl__cmp_i64(const void *a, const void *b) {
  const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

int64_t sl__rb_distinct(int64_t *u, int64_t m) {
  int64_t nu = 0;
  qsort(u, (size_t)m, sizeof *u, sl__cmp_i64);
  for (int64_t i = 0; i < m; ++i)
    if (nu == 0 || u[nu - 1] != u[i]) u[nu++] = u[i];
  return nu;
}

int64_t sl__rb_slot(const int64_t *u, int64_t nu, int64_t t) {
  const int64_t *hit = bsearch(&t, u, (size_t)nu, sizeof *u, sl__cmp_i64);
  return hit - u;
}

SL__ALWAYS_INLINE void sl__rb_sparse_as(sl_dtype dt, const sl__rbline *b,
                                        const sl__rbptr *p, double *scratch) {
  const int64_t es = (int64_t)sl__dtype_size(dt);
  const int64_t n = b->n, m = p->m;
  const int self = b->include_self;
#define G(j) sl__load_f(dt, SL__AT(p->g, j, b->gstep))
#define X(j) sl__load_f(dt, SL__AT(p->x, j, b->xstep))
#define RES(j) sl__load_f(dt, SL__AT(p->res, j, b->rstep))
#define SRC(i) sl__load_f(dt, SL__AT(p->src, i, b->sstep))
#define GX(j) SL__AT(p->gx, j, b->gxstep)
#define GS(i) SL__AT(p->gs, i, b->gsstep)
#define T(i) sl__target(b->index, p->ioff, b->istep, i)
#define RD(v) sl__round_to(sl__acc_dtype(dt), v)
  /* The distinct targets, sorted: u[0..nu); slot s holds target u[s]. */
  int64_t *u = (int64_t *)scratch;
  for (int64_t i = 0; i < m; ++i) u[i] = T(i);
  const int64_t nu = sl__rb_distinct(u, m);
  double *A = scratch + m, *B = A + nu, *Z = B + nu, *R = Z + nu, *N = A;
#define S(i) sl__rb_slot(u, nu, T(i))
  switch (b->reduce) {
  case SL_REDUCE_MEAN: {
    for (int64_t s = 0; s < nu; ++s) N[s] = self ? 1.0 : 0.0;
    for (int64_t i = 0; i < m; ++i) {
      const int64_t s = S(i);
      N[s] = sl__count_add(dt, N[s], 1.0);
    }
    for (int64_t j = 0, s = 0; j < n; ++j) {
      if (s < nu && u[s] == j) {
        if (N[s] == 0.0) N[s] = 1.0; /* N.masked_fill_(N == 0, 1) */
        sl__store_f(dt, GX(j), G(j) / N[s++]);
      } else { /* self's 1, or 0 made 1: a division by a constant */
        sl__store_f(dt, GX(j), G(j) / 1.0);
      }
    }
    for (int64_t i = 0; i < m; ++i) sl__store_f(dt, GS(i), G(T(i)) / N[S(i)]);
    break;
  }
  case SL_REDUCE_PROD: {
    for (int64_t s = 0; s < nu; ++s) {
      const double xv = X(u[s]);
      A[s] = self ? (xv == 0.0 ? 1.0 : xv) : 1.0;
      B[s] = R[s] = self ? xv : 1.0;
      Z[s] = 0.0;
    }
    for (int64_t i = 0; i < m; ++i) {
      const int64_t s = S(i);
      const double v = SRC(i);
      A[s] = RD(A[s] * v);
      R[s] = RD(R[s] * v);
      if (v == 0.0) Z[s] += 1.0;
    }
    const int wide = sl__acc_dtype(dt) != dt;
    for (int64_t i = 0; i < m; ++i) {
      const int64_t s = S(i);
      const double v = SRC(i);
      B[s] = RD(B[s] * (v == 0.0 && Z[s] == 1.0 ? 1.0 : v));
    }
    for (int64_t j = 0, s = 0; j < n; ++j) {
      const double xv = X(j);
      const double a = s < nu && u[s] == j ? A[s++] : (xv == 0.0 ? 1.0 : xv);
      sl__store_f(dt, GX(j), RD(G(j) * a) / (xv == 0.0 ? 1.0 : xv));
    }
    for (int64_t i = 0; i < m; ++i) {
      const int64_t t = T(i), s = S(i);
      const double v = SRC(i);
      if (v == 0.0 && Z[s] == 1.0)
        sl__store_f(dt, GS(i), G(t) * B[s]);
      else
        sl__store_f(dt, GS(i),
                    RD(G(t) * (wide ? R[s] : RES(t))) / (v == 0.0 ? 1.0 : v));
    }
    break;
  }
  default: { /* amax, amin */
    for (int64_t s = 0; s < nu; ++s) N[s] = X(u[s]) == RES(u[s]) ? 1.0 : 0.0;
    for (int64_t i = 0; i < m; ++i) {
      const int64_t s = S(i);
      N[s] = sl__count_add(dt, N[s], SRC(i) == RES(T(i)) ? 1.0 : 0.0);
    }
    /* (x == result) * (g / N): a zero N gives inf or NaN, and 0 * inf is
     * NaN, as in LibTorch. */
    for (int64_t j = 0, s = 0; j < n; ++j) {
      const int hit = X(j) == RES(j);
      if (s < nu && u[s] == j)
        sl__store_f(dt, GX(j), (hit ? 1.0 : 0.0) * RD(G(j) / N[s++]));
      else /* the count is hit itself: divisions by constants */
        sl__store_f(dt, GX(j), hit ? RD(G(j) / 1.0) : 0.0 * RD(G(j) / 0.0));
    }
    for (int64_t i = 0; i < m; ++i)
      sl__store_f(dt, GS(i),
                  (SRC(i) == RES(T(i)) ? 1.0 : 0.0) * RD(G(T(i)) / N[S(i)]));
    break;
  }
  }
  if (!self)
    for (int64_t i = 0; i < m; ++i) sl__store_f(dt, GX(T(i)), 0.0);
#undef G
#undef X
#undef RES
#undef SRC
#undef GX
#undef GS
#undef T
#undef RD
#undef S
}

#define SL__RB_SPARSE_FN(D)                                                    \
  static void sl__rb_sparse_##D(const sl__rbline *b, const sl__rbptr *p,       \
                                double *scratch) {                             \
    sl__rb_sparse_as(SL_##D, b, p, scratch);                                   \
  }
SL__RB_DTYPES(SL__RB_SPARSE_FN)
#undef SL__RB_SPARSE_FN

/* One instance per dtype (f16 had taken dt at run time: a switch per
 * element). */
void sl__rb_sparse_line(const sl__rbline *b, const sl__rbptr *p,
                        double *scratch) {
#define SL__RB_SPARSE_IS(D)                                                    \
  if (b->dt == SL_##D) {                                                       \
    sl__rb_sparse_##D(b, p, scratch);                                          \
    return;                                                                    \
  }
  SL__RB_DTYPES(SL__RB_SPARSE_IS)
#undef SL__RB_SPARSE_IS
}
