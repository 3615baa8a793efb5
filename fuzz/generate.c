/* Valid cases: shapes, patterns and parameters drawn for one op
 * (casegen_internal.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "casegen_internal.h"
#include "datagen.h"
#include "stress.h"

/* ------------------------------------------------------------------------ */
/* Generation                                                                */
/* ------------------------------------------------------------------------ */

void sl_fuzz_opts_init(sl_fuzz_opts *o) {
  if (!o) return;
  o->ops = 0;
  o->dtypes = 0;
  o->index_dtypes = 0;
  o->reduces = 0;
  o->max_elems = 4096;
  o->invalid_pct = 10;
  o->max_rank = 0;
  o->size_mix = sl_fuzz_size_mix_default();
  o->stress = sl_fuzz_stress_default();
  o->huge_bytes = 0;
}

int64_t sl_fuzz_size_mix_default(void) {
  return sl_thresholds_small() ? 8 : 4096;
}

/* Uniform in [lo, hi]; lo when hi <= lo. */
int64_t sl__range(sl__gen *g, int64_t lo, int64_t hi) {
  if (hi <= lo) return lo;
  return lo + (int64_t)sl_rng_below(&g->r, (uint64_t)(hi - lo) + 1);
}

int sl__pct(sl__gen *g, int p) { return (int)sl_rng_below(&g->r, 100) < p; }

static int64_t sl__min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t sl__max64(int64_t a, int64_t b) { return a > b ? a : b; }

/* Extents of "normal" shapes: small, so that most cases run in microseconds;
 * higher ranks get smaller extents. */
static int64_t sl__emax(int rank) {
  static const int64_t e[SL_MAX_DIMS + 1] = {1, 12, 8, 5, 4, 3, 2, 2, 2};
  return e[rank];
}

/* Whether b^n <= t, without overflowing. */
static int sl__pow_le(int64_t b, int n, int64_t t) {
  int64_t p = 1;
  for (int i = 0; i < n; ++i) {
    if (p > t / b) return 0;
    p *= b;
  }
  return 1;
}

/* The largest b >= 1 with b^n <= t (t >= 1), by bisection and in integers,
 * so that every machine draws the same shapes. */
static int64_t sl__iroot(int64_t t, int n) {
  int64_t lo = 1, hi = t;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo + 1) / 2;
    if (sl__pow_le(mid, n, t))
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

/* x's extents for rank R under the case's shape class. */
void sl__gen_x(sl__gen *g, int R, int64_t *e) {
  if (R == 0) return;
  if (g->sc == SL__SC_LARGE) {
    int64_t lo =
        g->max >= 2 * SL__LARGE_NUMEL ? 2 * SL__LARGE_NUMEL : SL__LARGE_NUMEL;
    int64_t t = sl__range(g, g->min > 0 ? g->min : lo, g->max);
    for (int d = 0; d < R; ++d) e[d] = 1;
    if (R == 1 || sl__pct(g, 30)) {
      /* One long axis. */
      e[sl_rng_below(&g->r, (uint64_t)R)] = t;
    } else {
      int64_t b = sl__iroot(t, R), rest = 1;
      for (int d = 0; d < R; ++d) e[d] = b;
      for (int d = 0; d + 1 < R; ++d) rest *= b;
      e[sl_rng_below(&g->r, (uint64_t)R)] = t / rest;
    }
    sl__fit(e, R, NULL, g->max);
    return;
  }
  for (int d = 0; d < R; ++d) e[d] = sl__range(g, 2, sl__emax(R));
  if (g->sc == SL__SC_UNIT) {
    int64_t n = sl__range(g, 1, R);
    for (int64_t j = 0; j < n; ++j) e[sl_rng_below(&g->r, (uint64_t)R)] = 1;
  }
  if (g->sc == SL__SC_EMPTY && !g->empty_index)
    e[sl_rng_below(&g->r, (uint64_t)R)] = 0;
  sl__fit(e, R, NULL, g->max);
}

/* An index extent on an axis bounded by x's extent e (not the indexed
 * axis): 1..e, near e for large cases; 0 when x's axis is empty. */
static int64_t sl__bounded(sl__gen *g, int64_t e) {
  if (e == 0) return 0;
  if (g->sc == SL__SC_LARGE) return sl__range(g, (e + 1) / 2, e);
  return sl__range(g, 1, e);
}

/* An index extent on an axis whose values point into x's extent e: any
 * length (1..e+2), but none when the axis is empty. */
static int64_t sl__free(sl__gen *g, int64_t e) {
  if (e == 0) return 0;
  if (g->sc == SL__SC_LARGE) return sl__range(g, (e + 1) / 2, e + 2);
  return sl__range(g, 1, e + 2);
}

int sl__pick_rank(sl__gen *g, int rmin, int rmax) {
  if (rmax > g->max_rank) rmax = g->max_rank;
  if (rmin > rmax) rmin = rmax;
  if (g->sc == SL__SC_LARGE)
    return (int)sl__range(g, rmin > 1 ? rmin : 1, rmax < 4 ? rmax : 4);
  int u = (int)sl_rng_below(&g->r, 100);
  if (u < 10) return rmin;
  if (u < 65) {
    int r = (int)sl__range(g, 1, 3);
    return r < rmin ? rmin : r > rmax ? rmax : r;
  }
  return (int)sl__range(g, rmin, rmax);
}

/* dim in [0, n), written negative about a third of the time. */
int64_t sl__pick_dim(sl__gen *g, int n, int64_t *norm) {
  *norm = (int64_t)sl_rng_below(&g->r, (uint64_t)n);
  return sl__pct(g, 30) ? *norm - n : *norm;
}

/* gather, scatter, scatter_reduce: x, index (and src). */
static void sl__gen_dimwise(sl__gen *g, sl_case *c, int with_src) {
  /* X and I zeroed: at -O1 (I) and -O3 (X) gcc cannot see that rank-0
   * shapes leave them unread, and -Werror stopped the build there. */
  int64_t X[SL_MAX_DIMS] = {0}, I[SL_MAX_DIMS] = {0}, S[SL_MAX_DIMS];
  const int R = sl__pick_rank(g, 0, SL_MAX_DIMS);
  sl__gen_x(g, R, X);
  const int Rn = R ? R : 1;
  int64_t d;
  c->dim = sl__pick_dim(g, Rn, &d);
  int iR = R;
  if (R == 0) {
    /* A scalar x takes a scalar index, or a 1-D one (rank 0 counts as 1);
     * every value must be 0. */
    if (g->sc == SL__SC_EMPTY || sl__pct(g, 20)) {
      iR = 1;
      I[0] = g->sc == SL__SC_EMPTY ? 0 : sl__range(g, 1, 2);
    }
  } else {
    for (int k = 0; k < R; ++k)
      I[k] = k == d ? sl__free(g, X[k]) : sl__bounded(g, X[k]);
    if (g->sc == SL__SC_EMPTY && g->empty_index)
      I[sl_rng_below(&g->r, (uint64_t)R)] = 0;
    sl__fit(I, R, NULL, g->max);
  }
  sl__shape_set(&c->arg[0], R, X);
  sl__shape_set(&c->arg[1], iR, I);
  if (!with_src) return;
  /* src may be larger than index, except for the backward: LibTorch has no
   * gradient for the part of src that index does not cover. */
  const int larger = !sl_case_is_backward(g->op);
  for (int k = 0; k < iR; ++k) {
    int64_t hi = sl__max64(I[k], k < R ? X[k] : I[k]);
    S[k] = !larger || sl__pct(g, 50) ? I[k] : sl__range(g, I[k], hi + 1);
  }
  sl__fit(S, iR, I, g->max);
  sl__shape_set(&c->arg[2], iR, S);
}

/* gather_nd, scatter_nd: x [K], index [B..., M], src [B...]. */
static void sl__gen_nd(sl__gen *g, sl_case *c, int scatter) {
  int64_t X[SL_MAX_DIMS], B[SL_MAX_DIMS + 1];
  const int K = sl__pick_rank(g, 1, SL_MAX_DIMS - 1);
  sl__gen_x(g, K, X);
  const int M = (int)sl__range(g, 1, K);
  int indexed[SL_MAX_DIMS] = {0};
  if (sl__pct(g, 50)) {
    c->ndims = 0; /* the leading M axes */
    for (int k = 0; k < M; ++k) indexed[k] = 1;
  } else {
    int perm[SL_MAX_DIMS];
    for (int d = 0; d < K; ++d) perm[d] = d;
    for (int k = 0; k < M; ++k) {
      int j = k + (int)sl_rng_below(&g->r, (uint64_t)(K - k));
      int t = perm[k];
      perm[k] = perm[j];
      perm[j] = t;
      indexed[perm[k]] = 1;
      c->dims[k] = sl__pct(g, 25) ? perm[k] - K : perm[k];
    }
    c->ndims = M;
  }
  for (int d = 0; d < K; ++d)
    B[d] = indexed[d] ? sl__free(g, X[d]) : sl__bounded(g, X[d]);
  if (g->sc == SL__SC_EMPTY && g->empty_index)
    B[sl_rng_below(&g->r, (uint64_t)K)] = 0;
  sl__fit(B, K, NULL, g->max / M);
  B[K] = M;
  sl__shape_set(&c->arg[0], K, X);
  sl__shape_set(&c->arg[1], K + 1, B);
  if (scatter) sl__shape_set(&c->arg[2], K, B);
}

/* index_reduce of a 0-D x (one element along the axis, as rank 0 counts as
 * 1): index [L] with updates [L], or a 0-D index with a 0-D update. */
static void sl__gen_index_reduce_0d(sl__gen *g, sl_case *c) {
  int64_t a;
  c->dim = sl__pick_dim(g, 1, &a);
  sl__shape_set(&c->arg[0], 0, NULL);
  if (g->sc != SL__SC_EMPTY && sl__pct(g, 20)) {
    sl__shape_set(&c->arg[1], 0, NULL);
    sl__shape_set(&c->arg[2], 0, NULL);
    return;
  }
  int64_t L = g->sc == SL__SC_EMPTY ? 0 : sl__free(g, 1);
  if (L > g->max) L = g->max;
  sl__shape_set(&c->arg[1], 1, &L);
  sl__shape_set(&c->arg[2], 1, &L);
}

/* index_reduce: x [K], index [L] or scalar, updates. */
void sl__gen_index_reduce(sl__gen *g, sl_case *c) {
  int64_t X[SL_MAX_DIMS], U[SL_MAX_DIMS], L;
  if (g->sc != SL__SC_LARGE && sl__pct(g, 5)) {
    sl__gen_index_reduce_0d(g, c);
    return;
  }
  const int K = sl__pick_rank(g, 1, SL_MAX_DIMS);
  sl__gen_x(g, K, X);
  int64_t a;
  c->dim = sl__pick_dim(g, K, &a);
  int64_t slice = 1; /* elements of one slice across the axis (<= max) */
  for (int d = 0; d < K; ++d)
    if (d != a) slice *= X[d];
  int empty_index = g->sc == SL__SC_EMPTY && g->empty_index;
  if (X[a] >= 1 && !empty_index && sl__pct(g, 20)) {
    /* A 0-D index: updates is the (K-1)-D slice. */
    int u = 0;
    for (int d = 0; d < K; ++d)
      if (d != a) U[u++] = X[d];
    sl__shape_set(&c->arg[0], K, X);
    sl__shape_set(&c->arg[1], 0, NULL);
    sl__shape_set(&c->arg[2], K - 1, U);
    return;
  }
  L = empty_index ? 0 : sl__free(g, X[a]);
  if (slice > 0 && L > g->max / slice) L = g->max / slice;
  if (L > g->max) L = g->max;
  for (int d = 0; d < K; ++d) U[d] = d == a ? L : X[d];
  sl__shape_set(&c->arg[0], K, X);
  sl__shape_set(&c->arg[1], 1, &L);
  sl__shape_set(&c->arg[2], K, U);
}

/* select_scatter: x [K], value = x without dim, at. */
void sl__gen_select(sl__gen *g, sl_case *c) {
  int64_t X[SL_MAX_DIMS], V[SL_MAX_DIMS];
  const int K = sl__pick_rank(g, 1, SL_MAX_DIMS);
  sl__gen_x(g, K, X);
  int64_t d;
  c->dim = sl__pick_dim(g, K, &d);
  if (X[d] == 0) {
    /* at needs a slice to select: the empty axis moves elsewhere. */
    X[d] = sl__range(g, 1, 3);
    if (K >= 2)
      X[(d + 1 + (int64_t)sl_rng_below(&g->r, (uint64_t)K - 1)) % K] = 0;
  }
  c->at = sl__range(g, -X[d], X[d] - 1);
  int v = 0;
  for (int k = 0; k < K; ++k)
    if (k != d) V[v++] = X[k];
  sl__shape_set(&c->arg[0], K, X);
  sl__shape_set(&c->arg[1], K - 1, V);
}

/* masked_scatter: x, a mask that broadcasts to x, a long enough source. */
void sl__gen_masked(sl__gen *g, sl_case *c) {
  int64_t X[SL_MAX_DIMS] = {0}, Mk[SL_MAX_DIMS], S[SL_MAX_DIMS];
  const int R = sl__pick_rank(g, 0, SL_MAX_DIMS);
  sl__gen_x(g, R, X);
  const int64_t n = sl__prod(R, X);
  const int Rm = (R == 0 || sl__pct(g, 70)) ? R : (int)sl__range(g, 0, R);
  for (int j = 0; j < Rm; ++j) {
    int64_t e = X[R - Rm + j];
    Mk[j] = sl__pct(g, 25) ? 1 : e;
  }
  sl__shape_set(&c->arg[0], R, X);
  sl__shape_set(&c->arg[1], Rm, Mk);
  int u = (int)sl_rng_below(&g->r, 10);
  if (u >= 6 && u < 8 && R >= 1) {
    sl__shape_set(&c->arg[2], R, X); /* x's own shape */
    return;
  }
  if (u >= 8) {
    int64_t b = sl__range(g, 1, 4), a = (n + b - 1) / b;
    if (a * b <= g->max) {
      S[0] = a;
      S[1] = b;
      sl__shape_set(&c->arg[2], 2, S);
      return;
    }
  }
  S[0] = sl__min64(n + sl__range(g, 0, 3), g->max);
  if (S[0] < n) S[0] = n;
  sl__shape_set(&c->arg[2], 1, S);
}

/* dynamic_scatter: feats [N,C], coors [N,D]. */
void sl__gen_dynamic(sl__gen *g, sl_case *c) {
  int64_t N, C, D = sl__range(g, 1, 4);
  if (g->sc == SL__SC_LARGE) {
    int64_t t = sl__range(g, g->min > 0 ? g->min : SL__LARGE_NUMEL, g->max);
    C = sl__range(g, 1, 16);
    N = t / C;
  } else {
    N = sl__range(g, 2, 64);
    C = sl__range(g, 2, 8);
    if (g->sc == SL__SC_UNIT) {
      int w = (int)sl_rng_below(&g->r, 3);
      if (w == 0) N = 1;
      if (w == 1) C = 1;
      if (w == 2) D = 1;
    }
    if (g->sc == SL__SC_EMPTY) {
      if (sl__pct(g, 60))
        N = 0;
      else
        C = 0;
    }
  }
  int64_t wide = sl__max64(C, D);
  if (N > g->max / wide) N = g->max / wide;
  int64_t f[2] = {N, C}, k[2] = {N, D};
  sl__shape_set(&c->arg[0], 2, f);
  sl__shape_set(&c->arg[1], 2, k);
}

void sl__pick_layout(sl__gen *g, sl_case_shape *s) {
  int u = (int)sl_rng_below(&g->r, 100);
  s->layout = SL_LAYOUT_CONTIGUOUS;
  s->step = 0;
  if (s->ndim == 0 || u < 70) return;
  if (u < 80) {
    if (s->ndim >= 2) s->layout = SL_LAYOUT_TRANSPOSED;
  } else if (u < 90) {
    s->layout = SL_LAYOUT_STEPPED;
    s->step = (int)sl__range(g, 2, 4);
  } else {
    s->layout = SL_LAYOUT_BROADCAST;
  }
}

void sl__pick_ip(sl__gen *g, sl_case *c, sl_op fwop) {
  int u = (int)sl_rng_below(&g->r, 100);
  c->ip = SL_IP_RAND;
  c->ip_param = 0;
  const sl_case_arg1 arg1 = sl_case_spec_of(fwop)->arg1;
  if (arg1 == SL_ARG1_COORS) {
    /* datagen's coors patterns: one voxel, spread voxels, half the rows
     * dropped (negative entries are valid here: the point is skipped). */
    c->ip = u < 40   ? SL_IP_RAND
            : u < 60 ? SL_IP_ONE
            : u < 80 ? SL_IP_UNIQUE
                     : SL_IP_NEG;
    return;
  }
  if (arg1 == SL_ARG1_LENGTHS) {
    /* segments' cuts (cases/segments.h): random, one segment for all,
     * even lengths */
    c->ip = u < 50 ? SL_IP_RAND : u < 75 ? SL_IP_ONE : SL_IP_UNIQUE;
    return;
  }
  if (!sl_case_has_index(fwop) || u < 30) return;
  if (u < 42)
    c->ip = SL_IP_UNIQUE;
  else if (u < 54)
    c->ip = SL_IP_SORTED;
  else if (u < 66)
    c->ip = SL_IP_ZIPF;
  else if (u < 76)
    c->ip = SL_IP_ONE;
  else {
    static const int ratios[] = {10, 25, 50, 75, 90, 100};
    c->ip = SL_IP_DUP;
    c->ip_param = ratios[sl_rng_below(&g->r, 6)];
  }
}

/* dynamic_scatter with ip=rand: a third of the cases ask for an exact
 * number of voxels (voxels=V, 1 <= V <= N) instead of the small grid. */
void sl__pick_voxels(sl__gen *g, sl_case *fw) {
  const sl_case_shape *coors = &fw->arg[1];
  if (fw->ip != SL_IP_RAND || coors->ndim != 2 || coors->shape[0] < 1 ||
      !sl__pct(g, 33))
    return;
  fw->voxels = sl__range(g, 1, coors->shape[0]);
  if (sl_case_check_voxels(fw, NULL, 0)) fw->voxels = 0;
}

void sl__pick_dp(sl__gen *g, sl_case *c) {
  c->dp = SL_DP_RAND;
  if (c->dt == SL_BOOL) {
    if (sl__pct(g, 15)) c->dp = SL_DP_ZERO;
  } else if (sl_dtype_is_int(c->dt)) {
    if (sl__pct(g, 40)) c->dp = sl__pct(g, 50) ? SL_DP_EXT : SL_DP_ZERO;
  } else if (sl__pct(g, 50)) {
    static const sl_data_pattern fl[] = {SL_DP_NAN, SL_DP_INF, SL_DP_NEGZERO,
                                         SL_DP_EXT, SL_DP_ZERO};
    c->dp = fl[sl_rng_below(&g->r, 5)];
  }
}

void sl__pick_tie(uint64_t seed, uint64_t i, sl_case *c) {
  if (c->dp != SL_DP_RAND || !sl_dtype_is_float(c->dt)) return;
  sl_rng r;
  sl_rng_seed(&r, seed ^ 0x746965ull /* "tie" */, i);
  if (sl_rng_below(&r, 5) == 0)
    c->dp = SL_DP_TIE;
  else if (sl_rng_below(&r, 8) == 0)
    c->dp = SL_DP_SUB;
}

/* An end of the scalars that c's dtype takes (sl_scalar_range_of: the
 * lowest or highest integer, -max or max), or with `past` one past it (the
 * integer or the double beyond). -1 when there is none: bool takes any
 * value, and nothing lies past i64's, f64's or c128's ends but inf, which
 * they take. */
int sl__edge_val(sl__gen *g, sl_case *c, int past) {
  const sl_scalar_range *r = sl_scalar_range_of(c->dt);
  const int low = sl__pct(g, 50);
  if (!r || r->kind == SL_SCALAR_ANY) return -1;
  if (r->kind == SL_SCALAR_INT) {
    const int64_t end = low ? r->lo : r->hi;
    if (past && end == (low ? INT64_MIN : INT64_MAX)) return -1;
    c->val_is_int = 1;
    c->ival = !past ? end : low ? end - 1 : end + 1;
    c->val = (double)c->ival;
    return 0;
  }
  const double end = low ? -r->max : r->max;
  const double v = past ? nextafter(end, low ? -INFINITY : INFINITY) : end;
  if (isinf(v)) return -1;
  c->val_is_int = 0;
  c->val = v;
  return 0;
}

/* scatter's scalar: exact in every dtype, or one time in five an end of
 * what the dtype holds, so that campaigns meet the edges of the core's
 * rule (sl__break_scalar goes one past them). */
static void sl__pick_val(sl__gen *g, sl_case *c) {
  c->has_val = 1;
  if (sl__pct(g, 20) && sl__edge_val(g, c, 0) == 0) return;
  if (c->dt == SL_BOOL || c->dt == SL_U8) {
    c->val_is_int = 1;
    c->ival = sl__range(g, 0, c->dt == SL_BOOL ? 1 : 16);
  } else if (sl_dtype_is_int(c->dt) || sl__pct(g, 50)) {
    c->val_is_int = 1;
    c->ival = sl__range(g, -8, 8);
  } else {
    /* An odd number of quarters: never an integer, exact in f16. */
    c->val_is_int = 0;
    c->val = (double)(2 * sl__range(g, -16, 15) + 1) / 4.0;
    return;
  }
  c->val = (double)c->ival;
}

/* The ops' shape generators (sl__fuzz_op.gen). */
void sl__gen_gather(sl__gen *g, sl_case *fw) { sl__gen_dimwise(g, fw, 0); }

/* scatter: a scalar value instead of src in a fifth of the cases. */
void sl__gen_scatter(sl__gen *g, sl_case *fw) {
  if (sl__pct(g, 20)) {
    sl__pick_val(g, fw);
    sl__gen_dimwise(g, fw, 0);
  } else {
    sl__gen_dimwise(g, fw, 1);
  }
}

void sl__gen_scatter_reduce(sl__gen *g, sl_case *fw) {
  sl__gen_dimwise(g, fw, 1);
}

void sl__gen_gather_nd(sl__gen *g, sl_case *fw) { sl__gen_nd(g, fw, 0); }

void sl__gen_scatter_nd(sl__gen *g, sl_case *fw) { sl__gen_nd(g, fw, 1); }

void sl__gen_shapes(sl__gen *g, sl_case *fw) {
  const sl__fuzz_op *f = sl__fuzz_op_of(fw->op);
  if (f && f->gen) f->gen(g, fw);
}
