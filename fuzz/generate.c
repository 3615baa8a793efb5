/* Valid cases: shapes, patterns and parameters drawn for one op
 * (casegen_internal.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "casegen_internal.h"
#include "datagen.h"
#include "overlap.h"
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
  o->overlap = sl_fuzz_overlap_default();
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
int64_t sl__bounded_extent(sl__gen *g, int64_t e) {
  if (e == 0) return 0;
  if (g->sc == SL__SC_LARGE) return sl__range(g, (e + 1) / 2, e);
  return sl__range(g, 1, e);
}

/* An index extent on an axis whose values point into x's extent e: any
 * length (1..e+2), but none when the axis is empty. */
int64_t sl__free_extent(sl__gen *g, int64_t e) {
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

void sl__gen_shapes(sl__gen *g, sl_case *fw) {
  const sl__fuzz_op *f = sl__fuzz_op_of(fw->op);
  if (f && f->gen) f->gen(g, fw);
}
