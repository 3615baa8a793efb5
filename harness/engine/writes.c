/* Writes of the assignment ops, for the any-valid-answer oracle. */
#include "writes.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const void *sl__at(const sl_tensor *t, const int64_t *idx) {
  int64_t off = 0;
  for (int d = 0; d < t->ndim; ++d) off += idx[d] * t->strides[d];
  return (const char *)t->data + off * (int64_t)sl_dtype_size(t->dtype);
}

static int64_t sl__index_at(const sl_tensor *t, const int64_t *idx) {
  return sl_elem_get_i(t->dtype, sl__at(t, idx));
}

static void sl__unravel(int64_t i, int nd, const int64_t *shape, int64_t *idx) {
  for (int d = nd - 1; d >= 0; --d) {
    idx[d] = shape[d] ? i % shape[d] : 0;
    i = shape[d] ? i / shape[d] : 0;
  }
}

static int64_t sl__ravel(int nd, const int64_t *shape, const int64_t *idx) {
  int64_t r = 0;
  for (int d = 0; d < nd; ++d) r = r * shape[d] + idx[d];
  return r;
}

static int64_t sl__count(int nd, const int64_t *shape) {
  int64_t n = 1;
  for (int d = 0; d < nd; ++d) n *= shape[d];
  return n;
}

static int sl__cmp_write(const void *a, const void *b) {
  const sl_write *x = a, *y = b;
  return (x->target > y->target) - (x->target < y->target);
}

/* Room for cap writes. */
static int sl__writes_alloc(sl_writes *out, int64_t cap) {
  memset(out, 0, sizeof *out);
  out->w = malloc(sizeof(sl_write) * (size_t)(cap > 0 ? cap : 1));
  return out->w ? 0 : -1;
}

static int sl__writes_done(sl_writes *out, int64_t n) {
  out->n = n;
  qsort(out->w, (size_t)n, sizeof(sl_write), sl__cmp_write);
  return 0;
}

static int64_t sl__axis(const sl_call *c) {
  const int nd = c->arg[0].ndim ? c->arg[0].ndim : 1;
  return c->p.dim < 0 ? c->p.dim + nd : c->p.dim;
}

/* scatter and scatter_reduce: src[p] (or the value) -> x[p with p_dim :=
 * index[p]] over index's positions. */
int sl_writes_scatter(const sl_call *c, sl_writes *out) {
  const sl_tensor *x = &c->arg[0], *index = &c->arg[1], *src = &c->arg[2];
  const int64_t cap = sl__count(index->ndim, index->shape), dim = sl__axis(c);
  if (sl__writes_alloc(out, cap)) return -1;
  out->self = c->p.include_self ? SL_SELF_X : SL_SELF_NONE;
  if (c->p.has_value) {
    if (sl_dtype_is_int(x->dtype))
      sl_elem_set_i(x->dtype, out->scalar, c->p.ivalue);
    else
      sl_elem_set_f(x->dtype, out->scalar, c->p.value);
  }
  int64_t idx[SL_MAX_DIMS], t[SL_MAX_DIMS];
  for (int64_t i = 0; i < cap; ++i) {
    sl__unravel(i, index->ndim, index->shape, idx);
    for (int d = 0; d < x->ndim; ++d) t[d] = idx[d];
    if (x->ndim) t[dim] = sl__index_at(index, idx);
    out->w[i].src =
        c->p.has_value ? (const void *)out->scalar : sl__at(src, idx);
    out->w[i].target = sl__ravel(x->ndim, x->shape, t);
  }
  return sl__writes_done(out, cap);
}

/* scatter_nd: src[q] -> x at the tuple index[q, :] names on dims. */
int sl_writes_nd(const sl_call *c, sl_writes *out) {
  const sl_tensor *x = &c->arg[0], *index = &c->arg[1], *src = &c->arg[2];
  const int64_t cap =
      index->ndim ? sl__count(index->ndim - 1, index->shape) : 0;
  if (sl__writes_alloc(out, cap)) return -1;
  out->self = SL_SELF_X;
  int64_t idx[SL_MAX_DIMS + 1], t[SL_MAX_DIMS];
  const int rows_nd = index->ndim - 1;
  for (int64_t i = 0; i < cap; ++i) {
    const int64_t m = index->shape[rows_nd];
    sl__unravel(i, rows_nd, index->shape, idx);
    for (int d = 0; d < x->ndim; ++d) t[d] = d < rows_nd ? idx[d] : 0;
    for (int64_t k = 0; k < m; ++k) {
      idx[rows_nd] = k;
      int64_t axis = c->p.ndims > k ? c->p.dims[k] : k;
      if (axis < 0) axis += x->ndim;
      t[axis] = sl__index_at(index, idx);
    }
    out->w[i].src = sl__at(src, idx);
    out->w[i].target = sl__ravel(x->ndim, x->shape, t);
  }
  return sl__writes_done(out, cap);
}

/* index_reduce: updates[.., j, ..] -> x[.., index[j], ..] (a 0-D index:
 * updates is the one slice). */
int sl_writes_index(const sl_call *c, sl_writes *out) {
  const sl_tensor *x = &c->arg[0], *index = &c->arg[1], *src = &c->arg[2];
  const int64_t cap = sl__count(src->ndim, src->shape), dim = sl__axis(c);
  if (sl__writes_alloc(out, cap)) return -1;
  out->self = c->p.include_self ? SL_SELF_X : SL_SELF_NONE;
  int64_t idx[SL_MAX_DIMS], t[SL_MAX_DIMS];
  for (int64_t i = 0; i < cap; ++i) {
    sl__unravel(i, src->ndim, src->shape, idx);
    for (int d = 0; d < x->ndim; ++d) t[d] = idx[d];
    int64_t j = src->ndim == x->ndim && x->ndim ? idx[dim] : 0;
    int64_t jj[1] = {j};
    int64_t target = sl_elem_get_i(index->dtype, index->ndim ? sl__at(index, jj)
                                                             : index->data);
    if (src->ndim < x->ndim) /* 0-D index: updates is the slice */
      for (int d = x->ndim - 1; d > dim; --d) t[d] = idx[d - 1];
    if (x->ndim) t[dim] = target;
    out->w[i].src = sl__at(src, idx);
    out->w[i].target = sl__ravel(x->ndim, x->shape, t);
  }
  return sl__writes_done(out, cap);
}

/*
 * segment_reduce: data[q, i, r] goes to out[q, s, r] where s is the
 * segment of position i along the axis in row q of lengths (or offsets).
 * The call passed sl_infer, so the lengths are valid; the initial value,
 * when given, is every position's own term.
 */
int sl_writes_segment(const sl_call *c, sl_writes *out) {
  const sl_tensor *data = &c->arg[0], *len = &c->arg[1];
  const int K = data->ndim, a = len->ndim - 1;
  if (K < 1 || a < 0 || a >= K) return -1;
  const int64_t n = sl__count(K, data->shape), rows = sl__count(a, data->shape);
  if (len->shape[a] - (c->segment.offsets ? 1 : 0) < (n > 0 ? 1 : 0)) return -1;
  const int64_t along = data->shape[a];
  const int64_t inner = sl__count(K - a - 1, data->shape + a + 1);
  const int64_t S = len->shape[a] - (c->segment.offsets ? 1 : 0);
  if (sl__writes_alloc(out, n)) return -1;
  if (c->p.has_value) {
    sl_elem_set_f(data->dtype, out->scalar, c->p.value);
    out->self = SL_SELF_SCALAR;
  }
  int64_t oshape[SL_MAX_DIMS], idx[SL_MAX_DIMS], li[SL_MAX_DIMS];
  for (int d = 0; d < K; ++d) oshape[d] = d == a ? S : data->shape[d];
  int64_t m = 0;
  for (int64_t q = 0; q < rows; ++q) {
    sl__unravel(q, a, data->shape, idx);
    for (int d = 0; d < a; ++d) li[d] = idx[d];
    /* positions along the axis in order, the segment moving forward */
    int64_t s = -1, end = 0;
    for (int64_t i = 0; i < along; ++i) {
      while (i >= end && s + 1 < S) {
        ++s;
        li[a] = c->segment.offsets ? s + 1 : s;
        end = c->segment.offsets ? sl__index_at(len, li)
                                 : end + sl__index_at(len, li);
      }
      for (int64_t r = 0; r < inner; ++r) {
        sl__unravel(r, K - a - 1, data->shape + a + 1, idx + a + 1);
        idx[a] = i;
        out->w[m].src = sl__at(data, idx);
        idx[a] = s;
        out->w[m++].target = sl__ravel(K, oshape, idx);
      }
    }
  }
  return sl__writes_done(out, m);
}

/* dynamic_scatter: feats [N,C] into voxel_feats [out_rows, C], point p's
 * channel ch to voxel map[p]'s, by the point2voxel_map the call produced
 * (slot 4; judged exactly against the reference's on its own, so a wrong
 * map fails the case whatever these writes say). A point mapped to -1
 * (coordinates with a negative entry) is dropped. */
int sl_writes_dynamic(const sl_call *c, sl_writes *out) {
  const sl_tensor *feats = &c->arg[0], *map = &c->arg[4];
  if (feats->ndim != 2 || map->ndim != 1 || !map->data ||
      map->shape[0] != feats->shape[0] || c->out_rows < 0)
    return -1;
  const int64_t N = feats->shape[0], C = feats->shape[1], M = c->out_rows;
  if (sl__writes_alloc(out, N * C)) return -1;
  int64_t m = 0, idx[2];
  for (int64_t p = 0; p < N; ++p) {
    const int64_t v = sl__index_at(map, &p);
    if (v < 0 || v >= M) continue;
    idx[0] = p;
    for (idx[1] = 0; idx[1] < C; ++idx[1]) {
      out->w[m].src = sl__at(feats, idx);
      out->w[m++].target = v * C + idx[1];
    }
  }
  return sl__writes_done(out, m);
}

void sl_writes_free(sl_writes *w) {
  free(w->w);
  w->w = NULL;
  w->n = 0;
}

int sl_writes_collide(const sl_writes *w) {
  for (int64_t i = 1; i < w->n; ++i)
    if (w->w[i].target == w->w[i - 1].target) return 1;
  return 0;
}

int sl_writes_has(const sl_writes *w, int64_t target, const void *value,
                  size_t es) {
  int64_t lo = 0, hi = w->n;
  while (lo < hi) { /* first write with this target */
    int64_t mid = lo + (hi - lo) / 2;
    if (w->w[mid].target < target)
      lo = mid + 1;
    else
      hi = mid;
  }
  for (int64_t i = lo; i < w->n && w->w[i].target == target; ++i)
    if (memcmp(w->w[i].src, value, es) == 0) return 1;
  return 0;
}

/* Index of the first write at target (or where it would be). */
static int64_t sl__first_write(const sl_writes *w, int64_t target) {
  int64_t lo = 0, hi = w->n;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (w->w[mid].target < target)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Largest finite value and smallest normal of the type reductions of dt
 * accumulate in (f16/bf16 accumulate in f32, docs/spec.md §3). */
static void sl__accumulator_range(sl_dtype dt, double *max, double *min) {
  int wide = dt == SL_F64 || dt == SL_C128;
  *max = wide ? DBL_MAX : FLT_MAX;
  *min = wide ? DBL_MIN : FLT_MIN;
}

/* A target's own term: x's element there, or segment_reduce's initial. */
static const void *sl__self_term(const sl_writes *w, const sl_call *c,
                                 int64_t target) {
  if (w->self == SL_SELF_SCALAR) return w->scalar;
  const sl_tensor *x = &c->arg[0];
  int64_t idx[SL_MAX_DIMS];
  sl__unravel(target, x->ndim, x->shape, idx);
  return sl__at(x, idx);
}

int sl_writes_order_dependent(const sl_writes *w, const sl_call *c,
                              int64_t target) {
  const sl_tensor *x = &c->arg[0];
  if (!sl_dtype_is_float(x->dtype)) return 0;
  int prod = c->p.reduce == SL_REDUCE_PROD;
  /* (scatter_nd is judged by tolerance only with reduce=sum) */
  if (!prod && c->p.reduce != SL_REDUCE_SUM && c->p.reduce != SL_REDUCE_MEAN)
    return 0;
  int64_t lo = sl__first_write(w, target);
  double max, min;
  sl__accumulator_range(x->dtype, &max, &min);
  /* Sum: every partial sum is bounded by the sum of magnitudes; when that
   * stays finite no order overflows. Prod: partial products lie between the
   * products of the factors below and above 1 in magnitude. */
  long double abs_sum = 0, log_up = 0, log_down = 0;
  const void *self =
      w->self != SL_SELF_NONE ? sl__self_term(w, c, target) : NULL;
  for (int64_t i = lo - (self ? 1 : 0); i < w->n; ++i) {
    const void *v;
    if (i < lo)
      v = self;
    else if (w->w[i].target != target)
      break;
    else
      v = w->w[i].src;
    double a = fabs(sl_elem_get_f(x->dtype, v));
    if (isnan(a)) return 0; /* NaN wins in every order */
    if (prod) {
      if (a == 0 || isinf(a)) continue;
      long double l = log2l(a);
      if (l > 0)
        log_up += l;
      else
        log_down += l;
    } else {
      if (isinf(a)) return 0; /* inf (or inf - inf = NaN) in every order */
      abs_sum += a;
    }
  }
  if (prod) return log_up > log2l(max) || log_down < log2l(min);
  return abs_sum > max;
}

/* The largest power of two that divides v (finite, not 0): its lowest set
 * bit. */
static double sl__grain_of(double v) {
  int e;
  const double m = frexp(fabs(v), &e);    /* v = m 2^e, m in [0.5, 1) */
  uint64_t bits = (uint64_t)ldexp(m, 53); /* exact: 53 bits */
  int tz = 0;
  while (!(bits & 1u)) {
    bits >>= 1;
    ++tz;
  }
  return ldexp(1, e - 53 + tz);
}

/* One term into the sums of sl_writes_contributions. */
static void sl__add_term(sl_contrib *k, long double *abs_sum, double v) {
  *abs_sum += fabsl((long double)v);
  if (!isfinite(v))
    k->grain = 0;
  else if (v != 0 && k->grain > 0) {
    const double g = sl__grain_of(v);
    if (g < k->grain) k->grain = g;
  }
}

void sl_writes_contributions(const sl_writes *w, const sl_call *c,
                             int64_t target, sl_contrib *out) {
  const sl_tensor *x = &c->arg[0];
  int64_t lo = sl__first_write(w, target), hi = lo;
  long double abs_sum = 0;
  out->grain = INFINITY;
  while (hi < w->n && w->w[hi].target == target) {
    sl__add_term(out, &abs_sum, sl_elem_get_f(x->dtype, w->w[hi].src));
    ++hi;
  }
  out->n = out->writes = hi - lo;
  if (w->self != SL_SELF_NONE) {
    sl__add_term(out, &abs_sum,
                 sl_elem_get_f(x->dtype, sl__self_term(w, c, target)));
    ++out->n;
  }
  /* segment_reduce's mean divides by the segment's length alone */
  out->count = w->self == SL_SELF_SCALAR ? out->writes : out->n;
  out->abs_sum = (double)abs_sum;
}
