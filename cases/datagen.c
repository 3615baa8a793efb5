/* Tensor generation from a case (see datagen.h). */
#include "datagen.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guarded_mem.h"
#include "rng.h"
#include "segments.h"

void sl_bundle_init(sl_bundle *b, sl_op op) {
  memset(b, 0, sizeof *b);
  sl_call_init(&b->call, op);
}

void sl_bundle_free(sl_bundle *b) {
  for (int i = 0; i < SL_MAX_ARGS; ++i) {
    sl_guarded_free(b->mem[i]);
    b->mem[i] = NULL;
    b->bytes[i] = 0;
  }
}

/* An overlapped layout's step along dim 0, in rows of dim 1 (case.h: o<k>);
 * 0 when s is not overlapped or has nothing to overlap (rank < 2, an
 * empty extent): then it is laid out contiguous. */
static int64_t sl__overlap_rows(const sl_case_shape *s) {
  if (s->layout != SL_LAYOUT_OVERLAPPED || s->ndim < 2 || s->step < 1) return 0;
  for (int d = 0; d < s->ndim; ++d)
    if (s->shape[d] == 0) return 0;
  return (s->shape[1] + s->step - 1) / s->step;
}

/* The shape of the buffer behind a layout: a stepped last dim is k times
 * wider, a broadcast dim 0 holds one row, an overlapped one holds the
 * rows of dim 1 that its dim-0 neighbours share once. */
static void sl__buf_shape(const sl_case_shape *s, int64_t *buf_shape) {
  int nd = s->ndim;
  for (int d = 0; d < nd; ++d) buf_shape[d] = s->shape[d];
  if (s->layout == SL_LAYOUT_STEPPED && nd > 0)
    buf_shape[nd - 1] = s->shape[nd - 1] * s->step;
  if (s->layout == SL_LAYOUT_BROADCAST && nd > 0) buf_shape[0] = 1;
  const int64_t rows = sl__overlap_rows(s);
  if (rows) {
    buf_shape[0] = 1;
    buf_shape[1] = (s->shape[0] - 1) * rows + s->shape[1];
  }
}

int sl_case_shape_bytes(sl_dtype dt, const sl_case_shape *s, uint64_t *bytes,
                        const char *name, char *err, size_t errlen) {
  size_t es = sl_dtype_size(dt);
  int64_t buf_shape[SL_MAX_DIMS];
  sl__buf_shape(s, buf_shape);
  uint64_t n = 1;
  int empty = 0;
  for (int d = 0; d < s->ndim; ++d) {
    if (buf_shape[d] == 0) {
      empty = 1;
      continue;
    }
    if (n > (uint64_t)SL_GEN_MAX_BYTES / es / (uint64_t)buf_shape[d]) {
      char sh[160];
      snprintf(err, errlen, "%s: shape %s needs more than the %zu GiB that a "
                            "generated tensor may take",
               name, sl_shape_str(s->ndim, s->shape, sh, sizeof sh),
               SL_GEN_MAX_BYTES >> 30);
      return -1;
    }
    n *= (uint64_t)buf_shape[d];
  }
  *bytes = empty ? 0 : n * es;
  return 0;
}

int sl_bundle_alloc(sl_bundle *b, int slot, sl_dtype dt, const sl_case_shape *s,
                    const char *name, char *err, size_t errlen) {
  sl_tensor *t = &b->call.arg[slot];
  uint64_t need;
  if (sl_case_shape_bytes(dt, s, &need, name, err, errlen)) return -1;
  int64_t buf_shape[SL_MAX_DIMS];
  sl__buf_shape(s, buf_shape);
  int nd = s->ndim;
  memset(t, 0, sizeof *t);
  t->dtype = dt;
  t->ndim = nd;
  for (int d = 0; d < nd; ++d) t->shape[d] = s->shape[d];
  if (s->layout == SL_LAYOUT_TRANSPOSED) {
    int64_t st = 1;
    for (int d = 0; d < nd; ++d) {
      t->strides[d] = st;
      st *= s->shape[d] > 0 ? s->shape[d] : 1;
    }
  } else {
    sl_contiguous_strides(nd, buf_shape, t->strides);
    if (s->layout == SL_LAYOUT_BROADCAST && nd > 0) t->strides[0] = 0;
    /* dims 1.. row-major in the buffer, dim 0 a few rows of dim 1 on */
    if (sl__overlap_rows(s))
      t->strides[0] = sl__overlap_rows(s) * t->strides[1];
  }
  /* Never NULL, so that an empty tensor still has an address to hand on;
   * against a guard page, so that a read past its end faults there. */
  size_t bytes = (size_t)need;
  void *mem = sl_guarded_calloc(bytes);
  if (!mem) {
    snprintf(err, errlen, "%s: out of memory allocating %zu bytes", name,
             bytes);
    return -1;
  }
  sl_guarded_free(b->mem[slot]);
  b->mem[slot] = mem;
  b->bytes[slot] = bytes;
  t->data = mem;
  t->device = SL_DEVICE_CPU;
  return 0;
}

int sl_case_forward(const sl_case *c, sl_case *fw) {
  *fw = *c;
  const sl_case_spec *spec = sl_case_spec_of(c->op);
  if (!spec || spec->forward == c->op) return 0;
  fw->op = spec->forward;
  memset(fw->arg, 0, sizeof fw->arg);
  for (int i = 0; i < spec->n_shapes; ++i)
    fw->arg[i] = c->arg[spec->shape_slots[i]];
  return 1;
}

void sl_case_from_forward(const sl_case *fw, sl_op op, sl_case *c) {
  *c = *fw;
  c->op = op;
  const sl_case_spec *spec = sl_case_spec_of(op);
  if (!spec || spec->forward == op) return;
  memset(c->arg, 0, sizeof c->arg);
  for (int i = 0; i < spec->n_shapes; ++i)
    c->arg[spec->shape_slots[i]] = fw->arg[i];
}

void sl_case_call_params(const sl_case *c, sl_call *call) {
  sl_case_params(c, &call->p);
  call->segment.offsets = c->offsets;
}

void sl_case_params(const sl_case *c, sl_params *p) {
  memset(p, 0, sizeof *p);
  p->dim = c->dim;
  p->reduce = c->reduce;
  p->include_self = c->include_self;
  p->ndims = c->ndims;
  for (int i = 0; i < c->ndims; ++i) p->dims[i] = c->dims[i];
  p->index = c->at;
  p->has_value = c->has_val;
  p->value = c->val;
  p->ivalue = c->val_is_int ? c->ival
              : (c->val > -9.2e18 && c->val < 9.2e18) ? (int64_t)c->val
                                                      : 0;
}

/* Writes logical element i (row-major) of t. */
static void *sl__elem(const sl_tensor *t, int64_t i) {
  int64_t off = 0;
  for (int d = t->ndim - 1; d >= 0; --d) {
    off += (i % t->shape[d]) * t->strides[d];
    i /= t->shape[d];
  }
  return (char *)t->data + off * (int64_t)sl_dtype_size(t->dtype);
}

/* Whether t's strides are the row-major ones of its shape. */
static int sl__row_major(const sl_tensor *t) {
  int64_t want = 1;
  for (int d = t->ndim - 1; d >= 0; --d) {
    if (t->shape[d] != 1 && t->strides[d] != want) return 0;
    want *= t->shape[d];
  }
  return 1;
}

static int64_t sl__numel_t(const sl_tensor *t) {
  int64_t n = 1;
  for (int d = 0; d < t->ndim; ++d) n *= t->shape[d];
  return n;
}

/* Broadcast tensors (stride 0 on dim 0) are generated through row 0 only:
 * the other rows alias it. */
static int64_t sl__gen_count(const sl_tensor *t) {
  int64_t n = sl__numel_t(t);
  if (t->ndim > 0 && t->strides[0] == 0 && t->shape[0] > 0)
    n /= t->shape[0];
  return n;
}

/* Significant bits of a float dtype (a complex one's parts). */
static int sl__precision(sl_dtype dt) {
  return dt == SL_F16                    ? 11
         : dt == SL_BF16                 ? 8
         : dt == SL_F64 || dt == SL_C128 ? 53
                                         : 24;
}

static double sl__special(sl_dtype dt, sl_data_pattern dp, sl_rng *r) {
  switch (dp) {
  case SL_DP_NAN: return NAN;
  case SL_DP_INF: return sl_rng_below(r, 2) ? INFINITY : -INFINITY;
  case SL_DP_NEGZERO: return sl_rng_below(r, 2) ? -0.0 : 0.0;
  case SL_DP_TIE: {
    /* +-2^(p-3) for a dtype of p significant bits, where the spacing of
     * its values is 1/4: added to an odd multiple of 1/8 (half of the
     * other values) it gives a sum exactly halfway between two values of
     * the dtype, so its rounding (ties to even) is looked at. */
    const int p = sl__precision(dt);
    return sl_rng_below(r, 2) ? ldexp(1, p - 3) : -ldexp(1, p - 3);
  }
  case SL_DP_SUB: {
    /* +-k times the dtype's smallest subnormal, k in [1, 2^(p-1)): a
     * subnormal, which a kernel that flushes them to zero (FTZ/DAZ, fast
     * math) or a conversion that mishandles them gets wrong. */
    const int p = sl__precision(dt);
    /* the smallest normal's exponent: -14, -126 or -1022 */
    const int emin = dt == SL_F16                   ? -14
                     : dt == SL_F64 || dt == SL_C128 ? -1022
                                                    : -126;
    const uint64_t k = 1 + sl_rng_below(r, ((uint64_t)1 << (p - 1)) - 1);
    const double v = ldexp((double)k, emin - (p - 1));
    return sl_rng_below(r, 2) ? v : -v;
  }
  case SL_DP_EXT:
    /* near each dtype's largest finite value: f16's and bf16's exactly
     * (3.4e38 would round to inf in bf16, whose largest is 255 * 2^120) */
    if (dt == SL_F16) return sl_rng_below(r, 2) ? 65504.0 : -65504.0;
    if (dt == SL_BF16)
      return sl_rng_below(r, 2) ? ldexp(255, 120) : -ldexp(255, 120);
    if (dt == SL_F32 || dt == SL_C64)
      return sl_rng_below(r, 2) ? 3.4e38 : -3.4e38;
    return sl_rng_below(r, 2) ? 1.7e308 : -1.7e308;
  default: return 0.0;
  }
}

static int64_t sl__int_extreme(sl_dtype dt, sl_rng *r) {
  int hi = (int)sl_rng_below(r, 2);
  switch (dt) {
  case SL_U8: return hi ? 255 : 0;
  case SL_I8: return hi ? 127 : -128;
  case SL_I16: return hi ? 32767 : -32768;
  case SL_I32: return hi ? INT32_MAX : INT32_MIN;
  case SL_I64: return hi ? INT64_MAX : INT64_MIN;
  default: return hi;
  }
}

void sl_gen_fill_data(sl_tensor *t, sl_data_pattern dp, uint64_t seed,
                      uint64_t stream) {
  sl_rng r;
  sl_rng_seed(&r, seed, stream);
  int64_t n = sl__gen_count(t);
  sl_dtype dt = t->dtype;
  int is_float = sl_dtype_is_float(dt) || sl_dtype_is_complex(dt);
  const size_t es = sl_dtype_size(dt);
  /* Row-major tensors step by the element size: no unravelling per
   * element, which took most of the time of a --huge case's 2^31. */
  const int flat = sl__row_major(t);
  for (int64_t i = 0; i < n; ++i) {
    void *p = flat ? (char *)t->data + (size_t)i * es : sl__elem(t, i);
    if (dp == SL_DP_ZERO) {
      memset(p, 0, es);
      continue;
    }
    /* About one element in five takes the pattern's special value. */
    int special = dp != SL_DP_RAND && sl_rng_below(&r, 5) == 0;
    if (dt == SL_BOOL) {
      sl_elem_set_i(dt, p, (int64_t)sl_rng_below(&r, 2));
    } else if (is_float) {
      /* Multiples of 1/8 in [-4, 4]: exact in every float dtype, so sums of
       * a few of them are exact too and mismatches mean real bugs. */
      double v = ((double)sl_rng_below(&r, 65) - 32.0) / 8.0;
      if (special) v = sl__special(dt, dp, &r);
      sl_elem_set_f(dt, p, v);
      if (sl_dtype_is_complex(dt)) {
        size_t half = es / 2;
        double im = ((double)sl_rng_below(&r, 65) - 32.0) / 8.0;
        if (dt == SL_C64) {
          float f = (float)im;
          memcpy((char *)p + half, &f, sizeof f);
        } else {
          memcpy((char *)p + half, &im, sizeof im);
        }
      }
    } else {
      int64_t v = dt == SL_U8 ? (int64_t)sl_rng_below(&r, 17)
                              : (int64_t)sl_rng_below(&r, 17) - 8;
      if (special && dp == SL_DP_EXT) v = sl__int_extreme(dt, &r);
      sl_elem_set_i(dt, p, v);
    }
  }
}

/* Index values along lines of `axis` of `shape` (or one flat line when
 * axis < 0), each in [0, bound), following the case's index pattern. */
static void sl__fill_index_values(int64_t *v, int ndim, const int64_t *shape,
                                  int axis, int64_t bound, const sl_case *c,
                                  sl_rng *r) {
  int64_t n = 1;
  for (int d = 0; d < ndim; ++d) n *= shape[d];
  if (n == 0) return;
  int64_t len = (axis >= 0 && axis < ndim) ? shape[axis] : n;
  int64_t inner = 1;
  for (int d = axis + 1; axis >= 0 && d < ndim; ++d) inner *= shape[d];
  if (axis < 0 || axis >= ndim) inner = 1;
  int64_t b = bound > 0 ? bound : 1;
  int64_t hot0 = (int64_t)sl_rng_below(r, (uint64_t)b);
  int64_t hot1 = (int64_t)sl_rng_below(r, (uint64_t)b);
  for (int64_t i = 0; i < n; ++i) {
    switch (c->ip) {
    case SL_IP_ONE: v[i] = hot0; break;
    case SL_IP_DUP:
      v[i] = (int64_t)sl_rng_below(r, 100) < c->ip_param
                 ? (sl_rng_below(r, 2) ? hot0 : hot1)
                 : (int64_t)sl_rng_below(r, (uint64_t)b);
      break;
    case SL_IP_ZIPF: {
      /* Log-uniform over [1, b]: P(k) ~ 1/k, a Zipf law with s = 1. */
      double k = floor(exp(sl_rng_unit(r) * log((double)b + 1.0)));
      v[i] = (int64_t)k - 1 < b ? (int64_t)k - 1 : b - 1;
      if (v[i] < 0) v[i] = 0;
      break;
    }
    case SL_IP_HIGH: /* the top sixteenth: [b - ceil(b/16), b) */
      v[i] = b - 1 - (int64_t)sl_rng_below(r, (uint64_t)((b + 15) / 16));
      break;
    default: v[i] = (int64_t)sl_rng_below(r, (uint64_t)b); break;
    }
  }
  if (c->ip == SL_IP_UNIQUE || c->ip == SL_IP_SORTED) {
    /* Per line: a partial Fisher-Yates draw of distinct targets (unique) or
     * evenly spread increasing targets (sorted). Lines longer than the bound
     * must repeat: they wrap around. */
    int64_t lines = n / len;
    int64_t m = len < b ? len : b;
    int use_perm = c->ip == SL_IP_UNIQUE && b <= (INT64_C(1) << 24);
    int64_t *perm = use_perm ? malloc(sizeof(int64_t) * (size_t)b) : NULL;
    int64_t *swaps = use_perm ? malloc(sizeof(int64_t) * (size_t)m) : NULL;
    if (perm)
      for (int64_t k = 0; k < b; ++k) perm[k] = k;
    for (int64_t l = 0; l < lines; ++l) {
      int64_t base = (l / inner) * len * inner + (l % inner);
      if (c->ip == SL_IP_SORTED) {
        for (int64_t j = 0; j < len; ++j)
          v[base + j * inner] = len > 1 ? (j * b) / len : 0;
      } else if (perm && swaps) {
        /* Partial Fisher-Yates: m distinct targets, then the swaps are
         * undone so the next line starts from the identity again in O(m).
         * A line longer than the bound repeats its m targets. */
        for (int64_t k = 0; k < m; ++k) {
          int64_t pick = k + (int64_t)sl_rng_below(r, (uint64_t)(b - k));
          swaps[k] = pick;
          int64_t tmp = perm[k];
          perm[k] = perm[pick];
          perm[pick] = tmp;
        }
        for (int64_t j = 0; j < len; ++j) v[base + j * inner] = perm[j % m];
        for (int64_t k = m - 1; k >= 0; --k) {
          int64_t tmp = perm[k];
          perm[k] = perm[swaps[k]];
          perm[swaps[k]] = tmp;
        }
      } /* else: random draws from a huge range are distinct enough */
    }
    free(perm);
    free(swaps);
  }
  if (c->ip == SL_IP_OOB || c->ip == SL_IP_NEG) {
    int64_t at = (int64_t)sl_rng_below(r, (uint64_t)n);
    v[at] = sl_ip_bad_value(c->ip, c->ip_param, bound, c->it);
  }
}

/* Fills index tensor t with the values, converting to its dtype (which may be
 * a non-integer dtype in an invalid case). */
static void sl__store_index(sl_tensor *t, const int64_t *v) {
  const int64_t n = sl__gen_count(t);
  const int is_int = sl_dtype_is_int(t->dtype) || t->dtype == SL_BOOL;
  const size_t es = sl_dtype_size(t->dtype);
  /* Row-major: no unravelling per element (as sl_gen_fill_data), which
   * was a seventh of a large invalid case's time. */
  const int flat = sl__row_major(t);
  for (int64_t i = 0; i < n; ++i) {
    void *p = flat ? (char *)t->data + (size_t)i * es : sl__elem(t, i);
    if (is_int)
      sl_elem_set_i(t->dtype, p, v[i]);
    else
      sl_elem_set_f(t->dtype, p, (double)v[i]);
  }
}

static int64_t sl__dim_extent(const sl_case_shape *x, int64_t dim) {
  int64_t nd = x->ndim ? x->ndim : 1;
  if (dim < -nd || dim >= nd) return 1;
  if (dim < 0) dim += nd;
  return x->ndim ? x->shape[dim] : 1;
}

static int sl__gen_index(const sl_case *c, sl_bundle *b, int slot,
                         const sl_case_shape *x, char *err, size_t errlen) {
  const sl_case_shape *is = &c->arg[slot];
  if (sl_bundle_alloc(b, slot, c->it, is, "index", err, errlen)) return -1;
  sl_tensor *t = &b->call.arg[slot];
  int64_t n = sl__numel_t(t);
  int64_t gen_n = sl__gen_count(t);
  int64_t *v = calloc((size_t)(n > 0 ? n : 1), sizeof *v);
  if (!v) {
    snprintf(err, errlen, "index: out of memory for %lld values",
             (long long)n);
    return -1;
  }
  sl_rng r;
  sl_rng_seed(&r, c->seed, 1000 + (uint64_t)slot);
  /* Generate over the shape actually backed by memory (a broadcast index
   * shares row 0). */
  int64_t gshape[SL_MAX_DIMS];
  for (int d = 0; d < is->ndim; ++d) gshape[d] = is->shape[d];
  if (is->layout == SL_LAYOUT_BROADCAST && is->ndim > 0 && gen_n < n)
    gshape[0] = 1;
  const sl_case_arg1 arg1 = sl_case_spec_of(c->op)->arg1;
  if (arg1 == SL_ARG1_INDEX_TUPLE) {
    /* index [..., M]: column k addresses x's axis dims[k]. */
    int64_t m = is->ndim ? is->shape[is->ndim - 1] : 0;
    int64_t rows = m ? gen_n / m : 0;
    int64_t *col = calloc((size_t)(rows > 0 ? rows : 1), sizeof *col);
    for (int64_t k = 0; k < m && col; ++k) {
      int64_t axis = c->ndims > k ? c->dims[k] : k;
      int64_t bound = sl__dim_extent(x, axis);
      sl_case cc = *c;
      if (k > 0 && (c->ip == SL_IP_OOB || c->ip == SL_IP_NEG))
        cc.ip = SL_IP_RAND; /* one bad value is enough */
      sl__fill_index_values(col, 1, &rows, -1, bound, &cc, &r);
      for (int64_t i = 0; i < rows; ++i) v[i * m + k] = col[i];
    }
    free(col);
  } else {
    /* a vector index (index_reduce) lists positions along its one axis */
    int axis = arg1 == SL_ARG1_INDEX_VECTOR ? 0 : (int)c->dim;
    if (axis < 0) axis += is->ndim;
    int64_t bound = sl__dim_extent(x, c->dim);
    sl__fill_index_values(v, is->ndim, gshape, is->ndim ? axis : -1, bound, c,
                          &r);
  }
  sl__store_index(t, v);
  free(v);
  return 0;
}

/* A segment case's lengths (segments.h): rows of m values cutting an axis
 * of data (slot 0) of extent n, the axis that lengths' rank names. */
static int sl__gen_lengths(const sl_case *c, sl_bundle *b, int slot,
                           const sl_case_shape *data, char *err,
                           size_t errlen) {
  const sl_case_shape *ls = &c->arg[slot];
  if (sl_bundle_alloc(b, slot, c->it, ls, "lengths", err, errlen)) return -1;
  sl_tensor *t = &b->call.arg[slot];
  const int64_t m = ls->ndim ? ls->shape[ls->ndim - 1] : 1;
  const int64_t gen_n = sl__gen_count(t), rows = m ? gen_n / m : 0;
  const int a = ls->ndim - 1;
  const int64_t n = a >= 0 && a < data->ndim ? data->shape[a] : 0;
  int64_t *v = calloc((size_t)(gen_n > 0 ? gen_n : 1), sizeof *v);
  if (!v) {
    snprintf(err, errlen, "lengths: out of memory for %lld values",
             (long long)gen_n);
    return -1;
  }
  sl_segment_values(c, rows, m, n, v);
  sl__store_index(t, v);
  free(v);
  return 0;
}

static uint64_t sl__gcd(uint64_t a, uint64_t b) {
  while (b) {
    uint64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/* g^d, or `cap` once it reaches cap. */
static uint64_t sl__pow_capped(uint64_t g, int64_t d, uint64_t cap) {
  uint64_t p = 1;
  for (int64_t k = 0; k < d && p < cap; ++k) p = p > cap / g ? cap : p * g;
  return p < cap ? p : cap;
}

/*
 * voxels=V (the parser checked 1 <= V <= N, D >= 1): coors gets exactly V
 * distinct rows, all valid, each held by at least one point. Voxel k's
 * coordinates are the code (a*k + b) mod 2V, a prime to 2V so that no two
 * voxels share one, written in base G over the D columns (G^D >= 2V).
 * Row i takes voxel ids[i]: 0..V-1 once each and N - V more drawn
 * uniformly, shuffled, so voxels hold 1 + Poisson((N - V) / V) points.
 */
static int sl__gen_voxel_coors(const sl_case *c, sl_tensor *t, sl_rng *r,
                               char *err, size_t errlen) {
  const int64_t n = t->shape[0], dcols = t->shape[1], v = c->voxels;
  const uint64_t codes = 2 * (uint64_t)v;
  uint64_t g = (uint64_t)ceil(pow((double)codes, 1.0 / (double)dcols));
  if (g < 2) g = 2;
  while (sl__pow_capped(g, dcols, codes) < codes) ++g;
  while (g > 2 && sl__pow_capped(g - 1, dcols, codes) >= codes) --g;
  uint64_t a;
  do {
    a = 1 + sl_rng_below(r, codes - 1);
  } while (sl__gcd(a, codes) != 1);
  const uint64_t b = sl_rng_below(r, codes);
  int64_t *ids = malloc(sizeof *ids * (size_t)n);
  if (!ids) {
    snprintf(err, errlen, "coors: out of memory for %lld voxel ids",
             (long long)n);
    return -1;
  }
  for (int64_t i = 0; i < n; ++i)
    ids[i] = i < v ? i : (int64_t)sl_rng_below(r, (uint64_t)v);
  for (int64_t i = n - 1; i > 0; --i) {
    int64_t j = (int64_t)sl_rng_below(r, (uint64_t)i + 1), k = ids[i];
    ids[i] = ids[j];
    ids[j] = k;
  }
  for (int64_t i = 0; i < n; ++i) {
    uint64_t code = (a * (uint64_t)ids[i] + b) % codes;
    for (int64_t col = dcols - 1; col >= 0; --col, code /= g)
      sl_elem_set_i(t->dtype, sl__elem(t, i * dcols + col),
                    (int64_t)(code % g));
  }
  free(ids);
  return 0;
}

/* coors [N, D] int32: a small grid so that points share voxels; some rows
 * invalid (a negative entry). ip=one puts every point in one voxel, unique
 * spreads them, neg makes half the rows invalid; voxels=V makes exactly V
 * (sl__gen_voxel_coors). */
static int sl__gen_coors(const sl_case *c, sl_tensor *t, char *err,
                         size_t errlen) {
  sl_rng r;
  sl_rng_seed(&r, c->seed, 2000);
  if (c->voxels) return sl__gen_voxel_coors(c, t, &r, err, errlen);
  int64_t n = t->ndim == 2 ? t->shape[0] : sl__gen_count(t);
  int64_t dcols = t->ndim == 2 ? t->shape[1] : 1;
  double cells = n > 1 ? pow((double)n, 1.0 / (double)(dcols ? dcols : 1)) : 1;
  int64_t grid = c->ip == SL_IP_ONE      ? 1
                 : c->ip == SL_IP_UNIQUE ? 1000
                                         : (int64_t)(cells * 0.8) + 1;
  int invalid_pct = c->ip == SL_IP_NEG ? 50 : 10;
  int64_t total = sl__gen_count(t);
  for (int64_t i = 0; i < total; ++i)
    sl_elem_set_i(t->dtype, sl__elem(t, i),
                  (int64_t)sl_rng_below(&r, (uint64_t)grid));
  for (int64_t row = 0; t->ndim == 2 && row < t->shape[0]; ++row)
    if ((int)sl_rng_below(&r, 100) < invalid_pct && dcols > 0) {
      int64_t col = (int64_t)sl_rng_below(&r, (uint64_t)dcols);
      sl_elem_set_i(t->dtype, sl__elem(t, row * dcols + col), -1);
    }
  return 0;
}

/* The dtype of a generated input, by its slot name: the mask is bool,
 * coors int32, the index the case's it=, every other input the case's dt=. */
static sl_dtype sl__input_dtype(const sl_case *c, const char *name) {
  if (strcmp(name, "index") == 0 || strcmp(name, "lengths") == 0)
    return c->it;
  if (strcmp(name, "mask") == 0) return SL_BOOL;
  if (strcmp(name, "coors") == 0) return SL_I32;
  return c->dt;
}

int sl_case_input_bytes(const sl_case *c, uint64_t *bytes, char *err,
                        size_t errlen) {
  const sl_case_spec *spec = sl_case_spec_of(c->op);
  const sl_op_info *info = sl_op_get(c->op);
  *bytes = 0;
  for (int i = 0; i < spec->n_shapes; ++i) {
    int slot = spec->shape_slots[i];
    const char *name = info->arg_names[slot];
    uint64_t n;
    if (!c->arg[slot].present) continue;
    if (sl_case_shape_bytes(sl__input_dtype(c, name), &c->arg[slot], &n, name,
                            err, errlen))
      return -1;
    *bytes += n; /* at most SL_MAX_ARGS times 8 GiB: no overflow */
    /* The index is drawn into an int64 scratch array of as many elements
     * first (sl__gen_index), so its peak is that much more. */
    if (strcmp(name, "index") == 0 || strcmp(name, "lengths") == 0)
      *bytes += n / sl_dtype_size(c->it) * sizeof(int64_t);
  }
  return 0;
}

int sl_gen_inputs(const sl_case *c, sl_bundle *b, char *err, size_t errlen) {
  sl_bundle_init(b, c->op);
  sl_case_call_params(c, &b->call);
  const sl_case_spec *spec = sl_case_spec_of(c->op);
  const sl_op_info *info = sl_op_get(c->op);
  for (int i = 0; i < spec->n_shapes; ++i) {
    int slot = spec->shape_slots[i];
    const sl_case_shape *s = &c->arg[slot];
    const char *name = info->arg_names[slot];
    if (!s->present) continue;
    int rc;
    sl_dtype dt = sl__input_dtype(c, name);
    if (strcmp(name, "index") == 0) {
      rc = sl__gen_index(c, b, slot, &c->arg[0], err, errlen);
    } else if (strcmp(name, "lengths") == 0) {
      rc = sl__gen_lengths(c, b, slot, &c->arg[0], err, errlen);
    } else if (strcmp(name, "mask") == 0) {
      rc = sl_bundle_alloc(b, slot, dt, s, name, err, errlen);
      if (!rc) sl_gen_fill_data(&b->call.arg[slot], SL_DP_RAND, c->seed, 3000);
    } else if (strcmp(name, "coors") == 0) {
      rc = sl_bundle_alloc(b, slot, dt, s, name, err, errlen);
      if (!rc) rc = sl__gen_coors(c, &b->call.arg[slot], err, errlen);
    } else {
      rc = sl_bundle_alloc(b, slot, dt, s, name, err, errlen);
      if (!rc)
        sl_gen_fill_data(&b->call.arg[slot], c->dp, c->seed, (uint64_t)slot);
    }
    if (rc) {
      sl_bundle_free(b);
      return -1;
    }
  }
  return 0;
}

int sl_bundle_adopt(sl_bundle *b, int slot, sl_tensor t, char *err,
                    size_t errlen) {
  int64_t n = 1;
  for (int d = 0; d < t.ndim; ++d) n *= t.shape[d];
  const size_t bytes = (size_t)n * sl_dtype_size(t.dtype);
  void *mem = sl_guarded_calloc(bytes);
  if (mem && bytes) memcpy(mem, t.data, bytes);
  free(t.data);
  if (!mem) {
    snprintf(err, errlen, "%s: out of memory allocating %zu bytes",
             sl_op_get(b->call.op)->arg_names[slot], bytes);
    return -1;
  }
  sl_guarded_free(b->mem[slot]);
  b->mem[slot] = t.data = mem;
  b->bytes[slot] = bytes;
  b->call.arg[slot] = t;
  return 0;
}

int sl_bundle_zeros(sl_bundle *b, int slot, sl_dtype dt, int ndim,
                    const int64_t *shape, char *err, size_t errlen) {
  sl_case_shape s;
  memset(&s, 0, sizeof s);
  s.present = 1;
  s.ndim = ndim;
  for (int d = 0; d < ndim; ++d) s.shape[d] = shape[d];
  return sl_bundle_alloc(b, slot, dt, &s,
                         sl_op_get(b->call.op)->arg_names[slot], err, errlen);
}
