/* The reduction machinery shared by the reducing ops (see reduce.h). */
#include "reduce.h"

#include <stdio.h>

double sl__round_to(sl_dtype dt, double v) {
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

/* Index value of contribution i of a line whose index starts at ioff. */
static inline int64_t sl__target(const sl_tensor *index, int64_t ioff,
                                 int64_t istep, int64_t i) {
  return sl__load_index(index, ioff + i * istep);
}

/*
 * One line of an f16/bf16 reduction, accumulated in f32 (SPEC §3): the
 * targeted positions start from x (or the identity) in `acc`, every step
 * rounds to f32, the mean divides by an f32 count, and each targeted
 * position is rounded to the half type once at the end.
 */
static void sl__reduce_line_wide(const sl__rlines *p, int64_t out_off,
                                 int64_t src_off, int64_t idx_off, double *acc,
                                 double *counts) {
  const sl_dtype dt = p->dt;
  const sl_reduce r = p->reduce;
  const int64_t es = (int64_t)sl_dtype_size(dt), m = p->m;
#define SL__OUT(t) (p->out + (out_off + (t)*p->ostep) * es)
  for (int64_t i = 0; i < m; ++i) {
    int64_t t = sl__target(p->index, idx_off, p->istep, i);
    acc[t] = p->include_self ? sl__load_f(dt, SL__OUT(t))
                             : sl__reduce_identity_f(r);
    if (counts) counts[t] = p->include_self ? 1.0 : 0.0;
  }
  for (int64_t i = 0; i < m; ++i) {
    int64_t t = sl__target(p->index, idx_off, p->istep, i);
    double v = sl__load_f(dt, p->src + (src_off + i * p->sstep) * es);
    acc[t] = sl__round_to(SL_F32, sl__reduce_f(r, acc[t], v));
    if (counts) counts[t] = sl__count_add(dt, counts[t], 1.0);
  }
  for (int64_t i = 0; i < m; ++i) {
    int64_t t = sl__target(p->index, idx_off, p->istep, i);
    double v = counts && counts[t] > 1.0 ? acc[t] / counts[t] : acc[t];
    sl__store_f(dt, SL__OUT(t), sl__round_to(SL_F32, v));
  }
#undef SL__OUT
}

void sl__reduce_lines(const sl__rlines *p, int k, const int64_t *out_off,
                      const int64_t *src_off, const int64_t *idx_off,
                      double *scratch) {
  const sl_dtype dt = p->dt;
  double *counts = scratch;
  if (sl__acc_dtype(dt) != dt && p->reduce != SL_REDUCE_ASSIGN) {
    double *mean_counts = p->reduce == SL_REDUCE_MEAN ? scratch + p->n : NULL;
    for (int l = 0; l < k; ++l)
      sl__reduce_line_wide(p, out_off[l], src_off[l], idx_off[l], scratch,
                           mean_counts);
    return;
  }
  const sl_reduce r = p->reduce;
  const int64_t es = (int64_t)sl_dtype_size(dt);
  const int64_t m = p->m;
  /* include_self = false: every targeted position starts from the identity
   * (assignment overwrites anyway). */
  if (!p->include_self && r != SL_REDUCE_ASSIGN)
    for (int64_t i = 0; i < m; ++i)
      for (int l = 0; l < k; ++l) {
        int64_t t = sl__target(p->index, idx_off[l], p->istep, i);
        sl__reduce_set_identity(dt, r,
                                p->out + (out_off[l] + t * p->ostep) * es);
      }
  /* Contributions in index order, the k lines side by side. */
  for (int64_t i = 0; i < m; ++i)
    for (int l = 0; l < k; ++l) {
      int64_t t = sl__target(p->index, idx_off[l], p->istep, i);
      sl__reduce_step(dt, r, p->out + (out_off[l] + t * p->ostep) * es,
                      p->src + (src_off[l] + i * p->sstep) * es);
    }
  if (r != SL_REDUCE_MEAN) return;
  /* Mean: count per targeted position (only those are touched, so the
   * scratch needs no clearing), divide once, then mark it done by a count
   * of 1 so that a duplicate target is not divided again. A position with
   * one contribution (or none besides x) divides by 1: nothing to do. */
  for (int l = 0; l < k; ++l) {
    for (int64_t i = 0; i < m; ++i)
      counts[sl__target(p->index, idx_off[l], p->istep, i)] =
          p->include_self ? 1.0 : 0.0;
    for (int64_t i = 0; i < m; ++i) {
      int64_t t = sl__target(p->index, idx_off[l], p->istep, i);
      counts[t] = sl__count_add(dt, counts[t], 1.0);
    }
    for (int64_t i = 0; i < m; ++i) {
      int64_t t = sl__target(p->index, idx_off[l], p->istep, i);
      if (counts[t] == 1.0) continue;
      sl__reduce_mean_finish(dt, p->out + (out_off[l] + t * p->ostep) * es,
                             counts[t]);
      counts[t] = 1.0;
    }
  }
}

int64_t sl__reduce_backward_scratch(sl_reduce r, int64_t n) {
  switch (r) {
  case SL_REDUCE_MEAN:
  case SL_REDUCE_AMAX:
  case SL_REDUCE_AMIN:
    return n;
  case SL_REDUCE_PROD:
    return 4 * n;
  default:
    return 0;
  }
}

/* Element j of a line: base + j * step elements of es bytes. */
#define SL__AT(base, j, step) ((base) + (j) * (step)*es)

void sl__reduce_backward_line(const sl__rbline *b, double *scratch) {
  const sl_dtype dt = b->dt;
  const int64_t es = (int64_t)sl_dtype_size(dt);
  const int64_t n = b->n, m = b->m;
  /* assign overwrites x whatever include_self says (index_copy). */
  const int self = b->include_self && b->reduce != SL_REDUCE_ASSIGN;
#define G(j) sl__load_f(dt, SL__AT(b->g, j, b->gstep))
#define X(j) sl__load_f(dt, SL__AT(b->x, j, b->xstep))
#define RES(j) sl__load_f(dt, SL__AT(b->res, j, b->rstep))
#define SRC(i) sl__load_f(dt, SL__AT(b->src, i, b->sstep))
#define GX(j) SL__AT(b->gx, j, b->gxstep)
#define GS(i) SL__AT(b->gs, i, b->gsstep)
#define T(i) sl__target(b->index, b->ioff, b->istep, i)
#define RD(v) sl__round_to(sl__acc_dtype(dt), v)
  switch (b->reduce) {
  case SL_REDUCE_SUM:
  case SL_REDUCE_ASSIGN:
    for (int64_t j = 0; j < n; ++j)
      memcpy(GX(j), SL__AT(b->g, j, b->gstep), (size_t)es);
    for (int64_t i = 0; i < m; ++i)
      memcpy(GS(i), SL__AT(b->g, T(i), b->gstep), (size_t)es);
    break;
  case SL_REDUCE_MEAN: {
    double *N = scratch;
    for (int64_t j = 0; j < n; ++j) N[j] = self ? 1.0 : 0.0;
    for (int64_t i = 0; i < m; ++i) {
      int64_t t = T(i);
      N[t] = sl__count_add(dt, N[t], 1.0);
    }
    for (int64_t j = 0; j < n; ++j) {
      if (N[j] == 0.0) N[j] = 1.0; /* N.masked_fill_(N == 0, 1) */
      sl__store_f(dt, GX(j), G(j) / N[j]);
    }
    for (int64_t i = 0; i < m; ++i) {
      int64_t t = T(i);
      sl__store_f(dt, GS(i), G(t) / N[t]);
    }
    break;
  }
  case SL_REDUCE_PROD: {
    /* A: masked x reduced with src; B: x reduced with src whose single
     * zeros are masked; Z: zeros of src per position; R: the forward
     * result in the accumulation dtype. For f16/bf16 R replaces the given
     * `result`, which is rounded to the half type: the gradient is computed
     * from the f32 product, as the f32 forward has it (SPEC §3). */
    double *A = scratch, *B = scratch + n, *Z = scratch + 2 * n;
    double *R = scratch + 3 * n;
    for (int64_t j = 0; j < n; ++j) {
      double xv = X(j);
      A[j] = xv == 0.0 ? 1.0 : xv;
      B[j] = R[j] = xv;
      Z[j] = 0.0;
    }
    if (!self)
      for (int64_t i = 0; i < m; ++i) A[T(i)] = B[T(i)] = R[T(i)] = 1.0;
    for (int64_t i = 0; i < m; ++i) {
      int64_t t = T(i);
      double s = SRC(i);
      A[t] = RD(A[t] * s);
      R[t] = RD(R[t] * s);
      if (s == 0.0) Z[t] += 1.0;
    }
    const int wide = sl__acc_dtype(dt) != dt;
    for (int64_t i = 0; i < m; ++i) {
      int64_t t = T(i);
      double s = SRC(i);
      B[t] = RD(B[t] * (s == 0.0 && Z[t] == 1.0 ? 1.0 : s));
    }
    for (int64_t j = 0; j < n; ++j) {
      double xv = X(j);
      sl__store_f(dt, GX(j), RD(G(j) * A[j]) / (xv == 0.0 ? 1.0 : xv));
    }
    for (int64_t i = 0; i < m; ++i) {
      int64_t t = T(i);
      double s = SRC(i);
      if (s == 0.0 && Z[t] == 1.0)
        sl__store_f(dt, GS(i), G(t) * B[t]);
      else
        sl__store_f(dt, GS(i),
                    RD(G(t) * (wide ? R[t] : RES(t))) / (s == 0.0 ? 1.0 : s));
    }
    break;
  }
  case SL_REDUCE_AMAX:
  case SL_REDUCE_AMIN: {
    double *N = scratch;
    for (int64_t j = 0; j < n; ++j) N[j] = X(j) == RES(j) ? 1.0 : 0.0;
    for (int64_t i = 0; i < m; ++i) {
      int64_t t = T(i);
      N[t] = sl__count_add(dt, N[t], SRC(i) == RES(t) ? 1.0 : 0.0);
    }
    /* (x == result) * (g / N): a zero N gives inf or NaN, and 0 * inf is
     * NaN, as in LibTorch. */
    for (int64_t j = 0; j < n; ++j)
      sl__store_f(dt, GX(j), (X(j) == RES(j) ? 1.0 : 0.0) * RD(G(j) / N[j]));
    for (int64_t i = 0; i < m; ++i) {
      int64_t t = T(i);
      sl__store_f(dt, GS(i), (SRC(i) == RES(t) ? 1.0 : 0.0) * RD(G(t) / N[t]));
    }
    break;
  }
  default:
    break; /* infer admits no other reduce */
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
}

void sl__axis_view(const sl_tensor *t, int k, int axis, sl_tensor *view) {
  *view = *t;
  if (t->ndim == k) return;
  /* rank k-1: open an extent-1 dim at axis. */
  for (int d = k - 1; d > axis; --d) {
    view->shape[d] = t->shape[d - 1];
    view->strides[d] = t->strides[d - 1];
  }
  view->shape[axis] = 1;
  view->strides[axis] = 0;
  view->ndim = k;
}

sl_status sl__check_like_x(sl_ctx *ctx, const char *what, const sl_tensor *t,
                           const sl_tensor *x) {
  char a[160], b[160];
  if (t->dtype != x->dtype)
    return sl_ctx_fail(ctx, SL_STATUS_UNSUPPORTED_DTYPE,
                       "%s: expected dtype %s (the dtype of x), got %s", what,
                       sl_dtype_name(x->dtype), sl_dtype_name(t->dtype));
  int same = t->ndim == x->ndim;
  for (int d = 0; same && d < t->ndim; ++d) same = t->shape[d] == x->shape[d];
  if (!same)
    return sl_ctx_fail(ctx, SL_STATUS_SHAPE_MISMATCH,
                       "%s: expected shape %s (the shape of x), got %s", what,
                       sl_shape_str(x->ndim, x->shape, a, sizeof a),
                       sl_shape_str(t->ndim, t->shape, b, sizeof b));
  return SL_STATUS_OK;
}

sl_status sl__check_grad_dtype(sl_ctx *ctx, const sl_tensor *x) {
  if (sl_dtype_is_float(x->dtype)) return SL_STATUS_OK;
  return sl_ctx_fail(ctx, SL_STATUS_UNSUPPORTED_DTYPE,
                     "x: expected one of f16, bf16, f32, f64 (gradients need "
                     "a floating dtype), got %s",
                     sl_dtype_name(x->dtype));
}
