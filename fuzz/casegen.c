/* The case generator and the static case classifier (see casegen.h). */
#include "casegen.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datagen.h"
#include "rng.h"
#include "stress.h"

/* An input with at least this many elements makes a case "large". */
#define SL__LARGE_NUMEL 1024
#define SL__MIN_MAX_ELEMS 64

#define SL__BIT(x) (1u << (x))

/* ------------------------------------------------------------------------ */
/* What each op takes (docs/spec.md §3)                                     */
/* ------------------------------------------------------------------------ */

static const unsigned sl__all_dtypes = SL__BIT(SL_DTYPE_COUNT) - 1;
static const unsigned sl__reduction_dtypes =
    SL__BIT(SL_I32) | SL__BIT(SL_I64) | SL__BIT(SL_F16) | SL__BIT(SL_BF16) |
    SL__BIT(SL_F32) | SL__BIT(SL_F64);
/* Autograd needs floating point: the backward ops take float dtypes only. */
static const unsigned sl__float_dtypes =
    SL__BIT(SL_F16) | SL__BIT(SL_BF16) | SL__BIT(SL_F32) | SL__BIT(SL_F64);
static const unsigned sl__dynamic_dtypes = SL__BIT(SL_F32) | SL__BIT(SL_F64);

static const unsigned sl__sr_reduces =
    SL__BIT(SL_REDUCE_SUM) | SL__BIT(SL_REDUCE_PROD) | SL__BIT(SL_REDUCE_MEAN) |
    SL__BIT(SL_REDUCE_AMAX) | SL__BIT(SL_REDUCE_AMIN);
static const unsigned sl__dyn_reduces =
    SL__BIT(SL_REDUCE_SUM) | SL__BIT(SL_REDUCE_MEAN) | SL__BIT(SL_REDUCE_MAX);

/* Data dtypes of any valid case of op. */
static unsigned sl__op_dtypes(sl_op op) {
  switch (op) {
  case SL_OP_SCATTER_REDUCE:
    return sl__reduction_dtypes;
  case SL_OP_SCATTER_REDUCE_BACKWARD:
  case SL_OP_INDEX_REDUCE_BACKWARD:
    return sl__float_dtypes;
  case SL_OP_DYNAMIC_SCATTER:
  case SL_OP_DYNAMIC_SCATTER_BACKWARD:
    return sl__dynamic_dtypes;
  default:
    return sl__all_dtypes;
  }
}

/* Reduces that op takes with data dtype dt. */
static unsigned sl__op_reduces(sl_op op, sl_dtype dt) {
  int red = (sl__reduction_dtypes & SL__BIT(dt)) != 0;
  switch (op) {
  case SL_OP_SCATTER_REDUCE:
  case SL_OP_SCATTER_REDUCE_BACKWARD:
    return red ? sl__sr_reduces : 0;
  case SL_OP_SCATTER_ND:
    return SL__BIT(SL_REDUCE_NONE) | (red ? SL__BIT(SL_REDUCE_SUM) : 0);
  case SL_OP_INDEX_REDUCE:
  case SL_OP_INDEX_REDUCE_BACKWARD:
    return SL__BIT(SL_REDUCE_ASSIGN) | (red ? sl__sr_reduces : 0);
  case SL_OP_DYNAMIC_SCATTER:
  case SL_OP_DYNAMIC_SCATTER_BACKWARD:
    return sl__dyn_reduces;
  default:
    return SL__BIT(SL_REDUCE_NONE);
  }
}

/* The dtypes of op within dmask (0: all) that leave it a reduce in rmask
 * (0: all; ignored by an op without a reduce). */
static unsigned sl__usable_dtypes(sl_op op, unsigned dmask, unsigned rmask) {
  unsigned d = sl__op_dtypes(op) & (dmask ? dmask : sl__all_dtypes), out = 0;
  if (!rmask || !sl_op_get(op)->reduces) return d;
  for (int dt = 0; dt < SL_DTYPE_COUNT; ++dt)
    if ((d & SL__BIT(dt)) && (sl__op_reduces(op, (sl_dtype)dt) & rmask))
      out |= SL__BIT(dt);
  return out;
}

/* Every reduce that op knows, with some dtype. */
static unsigned sl__op_reduce_union(sl_op op) {
  unsigned u = 0;
  for (int dt = 0; dt < SL_DTYPE_COUNT; ++dt)
    if (sl__op_dtypes(op) & SL__BIT(dt)) u |= sl__op_reduces(op, (sl_dtype)dt);
  return u;
}

int sl_fuzz_dtype_ok(sl_op op, sl_dtype dt, sl_reduce r) {
  if ((unsigned)op >= SL_OP_COUNT || (unsigned)dt >= SL_DTYPE_COUNT ||
      (unsigned)r >= SL_REDUCE_COUNT)
    return 0;
  return (sl__op_dtypes(op) & SL__BIT(dt)) &&
         (sl__op_reduces(op, dt) & SL__BIT(r));
}

/* Ops whose (forward) case line has an index tensor. */
static int sl__has_index(sl_op fwop) {
  return fwop == SL_OP_GATHER || fwop == SL_OP_GATHER_ND ||
         fwop == SL_OP_SCATTER || fwop == SL_OP_SCATTER_REDUCE ||
         fwop == SL_OP_SCATTER_ND || fwop == SL_OP_INDEX_REDUCE;
}

/* ------------------------------------------------------------------------ */
/* Shape helpers                                                             */
/* ------------------------------------------------------------------------ */

/* Product of extents, saturating at INT64_MAX. */
static int64_t sl__prod(int nd, const int64_t *e) {
  int64_t n = 1;
  for (int d = 0; d < nd; ++d) {
    if (e[d] == 0) return 0;
  }
  for (int d = 0; d < nd; ++d) {
    if (n > INT64_MAX / e[d]) return INT64_MAX;
    n *= e[d];
  }
  return n;
}

static int64_t sl__numel(const sl_case_shape *s) {
  return sl__prod(s->ndim, s->shape);
}

static void sl__shape_set(sl_case_shape *s, int nd, const int64_t *e) {
  memset(s, 0, sizeof *s);
  s->present = 1;
  s->ndim = nd;
  for (int d = 0; d < nd; ++d) s->shape[d] = e[d];
}

/*
 * Halves the extent with the most room above its floor (lo[d], or 1) until
 * the product is at most max. Returns 0 when it fits, -1 when the floors
 * themselves are too large.
 */
static int sl__fit(int64_t *e, int nd, const int64_t *lo, int64_t max) {
  while (sl__prod(nd, e) > max) {
    int best = -1;
    for (int d = 0; d < nd; ++d) {
      int64_t floor = lo ? (lo[d] > 1 ? lo[d] : 1) : 1;
      if (e[d] > floor && (best < 0 || e[d] - floor > e[best])) best = d;
    }
    if (best < 0) return -1;
    int64_t floor = lo ? (lo[best] > 1 ? lo[best] : 1) : 1;
    e[best] = e[best] / 2 > floor ? e[best] / 2 : floor;
  }
  return 0;
}

/* Removes axis k of s (a no-op when s has no such axis). */
static void sl__drop(sl_case_shape *s, int k) {
  if (!s->present || k < 0 || k >= s->ndim) return;
  for (int d = k; d + 1 < s->ndim; ++d) s->shape[d] = s->shape[d + 1];
  s->shape[--s->ndim] = 0;
}

/* ------------------------------------------------------------------------ */
/* Forward view                                                              */
/* ------------------------------------------------------------------------ */

void sl_fuzz_from_forward(const sl_case *fw, sl_op op, sl_case *c) {
  *c = *fw;
  c->op = op;
  memset(c->arg, 0, sizeof c->arg);
  switch (op) {
  case SL_OP_SCATTER_REDUCE_BACKWARD:
  case SL_OP_INDEX_REDUCE_BACKWARD:
    for (int i = 0; i < 3; ++i) c->arg[i + 1] = fw->arg[i];
    break;
  case SL_OP_DYNAMIC_SCATTER_BACKWARD:
    c->arg[1] = fw->arg[0]; /* feats */
    c->arg[0] = fw->arg[1]; /* coors, kept in slot 0 by the parser */
    break;
  default:
    for (int i = 0; i < SL_MAX_ARGS; ++i) c->arg[i] = fw->arg[i];
    break;
  }
}

/* ------------------------------------------------------------------------ */
/* Classification                                                            */
/* ------------------------------------------------------------------------ */

static const char *const sl__class_names[SL_FUZZ_CLASS_COUNT] = {
    "valid", "oob",   "neg",    "dim",  "rank",  "shape",
    "itype", "dtype", "reduce", "mask", "short", "scalar"};

const char *sl_fuzz_class_name(sl_fuzz_class k) {
  return (unsigned)k < SL_FUZZ_CLASS_COUNT ? sl__class_names[k] : "?";
}

/* Extent of t in dim k as LibTorch sees it: a scalar has extent 1. */
static int64_t sl__ext(const sl_case_shape *t, int k) {
  return t->ndim ? t->shape[k] : 1;
}

/* Whether dim lies in [-n, n); *out gets it normalized. */
static int sl__norm_dim(int64_t dim, int n, int64_t *out) {
  if (dim < -n || dim >= n) return 0;
  *out = dim < 0 ? dim + n : dim;
  return 1;
}

/* The index-value classes: a pattern out of range, or an empty axis that a
 * non-empty index points into. */
static sl_fuzz_class sl__value_class(const sl_case *c, int empty_target) {
  if (empty_target) return SL_FUZZ_OOB;
  if (c->ip == SL_IP_OOB) return SL_FUZZ_OOB;
  if (c->ip == SL_IP_NEG) return SL_FUZZ_NEG;
  return SL_FUZZ_VALID;
}

static sl_fuzz_class sl__classify_dimwise(const sl_case *c, sl_op op) {
  const sl_case_shape *x = &c->arg[0], *index = &c->arg[1], *src = &c->arg[2];
  int has_src =
      !(c->op == SL_OP_SCATTER && c->has_val) && c->op != SL_OP_GATHER;
  if (!x->present || !index->present || (has_src && !src->present))
    return SL_FUZZ_SHAPE;
  int xr = x->ndim ? x->ndim : 1;
  if ((index->ndim ? index->ndim : 1) != xr) return SL_FUZZ_RANK;
  if (has_src && (src->ndim ? src->ndim : 1) != xr) return SL_FUZZ_RANK;
  int64_t d;
  if (!sl__norm_dim(c->dim, xr, &d)) return SL_FUZZ_DIM;
  /* Index extents matter only when there is an index element (LibTorch
   * skips its checks for an empty index; so does the core). */
  const int64_t ni = sl__numel(index);
  for (int k = 0; k < xr && ni > 0; ++k) {
    if (has_src && sl__ext(index, k) > sl__ext(src, k)) return SL_FUZZ_SHAPE;
    if (k != d && sl__ext(index, k) > sl__ext(x, k)) return SL_FUZZ_SHAPE;
  }
  if (op == SL_OP_SCATTER_REDUCE_BACKWARD) {
    if (src->ndim != index->ndim) return SL_FUZZ_SHAPE;
    for (int k = 0; k < src->ndim; ++k)
      if (src->shape[k] != index->shape[k]) return SL_FUZZ_SHAPE;
  }
  if (ni == 0) return SL_FUZZ_VALID;
  if (c->op == SL_OP_SCATTER && c->has_val) {
    sl_params p; /* the scalar as the harness hands it over */
    sl_case_params(c, &p);
    if (!sl_scalar_fits(c->dt, p.value, p.ivalue)) return SL_FUZZ_SCALAR;
  }
  return sl__value_class(c, sl__ext(x, (int)d) == 0);
}

static sl_fuzz_class sl__classify_nd(const sl_case *c) {
  const sl_case_shape *x = &c->arg[0], *index = &c->arg[1], *src = &c->arg[2];
  int scatter = c->op == SL_OP_SCATTER_ND;
  if (!x->present || !index->present || (scatter && !src->present))
    return SL_FUZZ_SHAPE;
  const int K = x->ndim;
  if (index->ndim != K + 1) return SL_FUZZ_RANK;
  const int64_t M = index->shape[K];
  if (M < 1 || M > K) return SL_FUZZ_SHAPE;
  if (c->ndims != 0 && c->ndims != M) return SL_FUZZ_DIM;
  int indexed[SL_MAX_DIMS] = {0};
  for (int k = 0; k < M; ++k) {
    int64_t d = k;
    if (c->ndims && !sl__norm_dim(c->dims[k], K, &d)) return SL_FUZZ_DIM;
    if (indexed[d]) return SL_FUZZ_DIM;
    indexed[d] = 1;
  }
  if (scatter) {
    if (src->ndim != K) return SL_FUZZ_RANK;
    for (int d = 0; d < K; ++d)
      if (src->shape[d] != index->shape[d]) return SL_FUZZ_SHAPE;
  }
  if (sl__numel(index) == 0) return SL_FUZZ_VALID;
  int empty_target = 0;
  for (int d = 0; d < K; ++d) {
    if (!indexed[d] && index->shape[d] > x->shape[d]) return SL_FUZZ_SHAPE;
    if (indexed[d] && x->shape[d] == 0) empty_target = 1;
  }
  return sl__value_class(c, empty_target);
}

static sl_fuzz_class sl__classify_index_reduce(const sl_case *c) {
  const sl_case_shape *x = &c->arg[0], *index = &c->arg[1], *up = &c->arg[2];
  if (!x->present || !index->present || !up->present) return SL_FUZZ_SHAPE;
  const int K = x->ndim;
  int64_t a;
  if (!sl__norm_dim(c->dim, K ? K : 1, &a)) return SL_FUZZ_DIM;
  if (index->ndim > 1) return SL_FUZZ_RANK;
  if (K == 0) {
    /* One element along the axis (rank 0 counts as 1): a 0-D update for a
     * 0-D or one-element index, else one update per index element. */
    const int64_t m = index->ndim ? index->shape[0] : 1;
    if (index->ndim == 0 || (up->ndim == 0 && m == 1)) {
      if (up->ndim != 0) return SL_FUZZ_RANK;
    } else {
      if (up->ndim != 1) return SL_FUZZ_RANK;
      if (up->shape[0] != m) return SL_FUZZ_SHAPE;
    }
    return m == 0 ? SL_FUZZ_VALID : sl__value_class(c, 0);
  }
  if (index->ndim == 1) {
    if (up->ndim != K) return SL_FUZZ_RANK;
    for (int d = 0; d < K; ++d)
      if (up->shape[d] != (d == a ? index->shape[0] : x->shape[d]))
        return SL_FUZZ_SHAPE;
  } else {
    if (up->ndim != K - 1) return SL_FUZZ_RANK;
    for (int d = 0, u = 0; d < K; ++d)
      if (d != a && up->shape[u++] != x->shape[d]) return SL_FUZZ_SHAPE;
  }
  if (sl__numel(index) == 0) return SL_FUZZ_VALID;
  return sl__value_class(c, x->shape[a] == 0);
}

static sl_fuzz_class sl__classify_select(const sl_case *c) {
  const sl_case_shape *x = &c->arg[0], *value = &c->arg[1];
  if (!x->present || !value->present) return SL_FUZZ_SHAPE;
  const int K = x->ndim;
  if (K == 0) return SL_FUZZ_RANK;
  int64_t d;
  if (!sl__norm_dim(c->dim, K, &d)) return SL_FUZZ_DIM;
  if (value->ndim != K - 1) return SL_FUZZ_RANK;
  for (int k = 0, v = 0; k < K; ++k)
    if (k != d && value->shape[v++] != x->shape[k]) return SL_FUZZ_SHAPE;
  if (c->at < -x->shape[d] || c->at >= x->shape[d]) return SL_FUZZ_OOB;
  return SL_FUZZ_VALID;
}

/*
 * How many true elements the mask that datagen makes for case fw has after
 * broadcasting to x: each element of a broadcast mask stands for
 * numel(x) / numel(mask) positions. -1 when it cannot be built.
 */
static int64_t sl__mask_true_count(const sl_case *fw) {
  const sl_case_shape *x = &fw->arg[0], *mask = &fw->arg[1];
  const int64_t nm = sl__numel(mask), nx = sl__numel(x);
  if (nm == 0 || nx == 0) return 0;
  sl_bundle b;
  char err[128];
  sl_bundle_init(&b, fw->op);
  if (sl_bundle_alloc(&b, 1, SL_BOOL, mask, "mask", err, sizeof err)) return -1;
  sl_tensor *t = &b.call.arg[1];
  sl_gen_fill_data(t, SL_DP_RAND, fw->seed, 3000);
  int64_t trues = 0, idx[SL_MAX_DIMS] = {0};
  for (int64_t i = 0; i < nm; ++i) {
    int64_t off = 0;
    for (int d = 0; d < t->ndim; ++d) off += idx[d] * t->strides[d];
    trues += ((const uint8_t *)t->data)[off] != 0;
    for (int d = t->ndim - 1; d >= 0; --d) {
      if (++idx[d] < t->shape[d]) break;
      idx[d] = 0;
    }
  }
  sl_bundle_free(&b);
  return trues * (nx / nm);
}

static sl_fuzz_class sl__classify_masked(const sl_case *c) {
  const sl_case_shape *x = &c->arg[0], *mask = &c->arg[1], *src = &c->arg[2];
  if (!x->present || !mask->present || !src->present) return SL_FUZZ_SHAPE;
  if (mask->ndim > x->ndim) return SL_FUZZ_MASK;
  for (int j = 0; j < mask->ndim; ++j) {
    int64_t m = mask->shape[j], e = x->shape[x->ndim - mask->ndim + j];
    if (m != e && m != 1) return SL_FUZZ_MASK;
  }
  /* The source must cover the mask's true count, which depends on the
   * data; a source of numel(x) elements always does. */
  if (sl__numel(src) >= sl__numel(x)) return SL_FUZZ_VALID;
  return sl__numel(src) < sl__mask_true_count(c) ? SL_FUZZ_SHORT
                                                 : SL_FUZZ_VALID;
}

static sl_fuzz_class sl__classify_dynamic(const sl_case *c) {
  const sl_case_shape *feats = &c->arg[0], *coors = &c->arg[1];
  if (!feats->present || !coors->present) return SL_FUZZ_SHAPE;
  if (feats->ndim != 2 || coors->ndim != 2) return SL_FUZZ_RANK;
  if (coors->shape[0] != feats->shape[0]) return SL_FUZZ_SHAPE;
  if (coors->shape[1] < 1 || coors->shape[1] > 4) return SL_FUZZ_SHAPE;
  return SL_FUZZ_VALID;
}

sl_fuzz_class sl_fuzz_classify(const sl_case *c) {
  const sl_case_spec *spec = c ? sl_case_spec_of(c->op) : NULL;
  if (!spec) return SL_FUZZ_SHAPE;
  if ((spec->keys & SL_KEY_REDUCE) &&
      ((unsigned)c->reduce >= SL_REDUCE_COUNT ||
       !(sl__op_reduce_union(c->op) & SL__BIT(c->reduce))))
    return SL_FUZZ_REDUCE;
  if (!sl_fuzz_dtype_ok(c->op, c->dt, c->reduce)) return SL_FUZZ_DTYPE;
  if ((spec->keys & SL_KEY_IT) && c->it != SL_I32 && c->it != SL_I64)
    return SL_FUZZ_ITYPE;
  sl_case fw;
  sl_case_forward(c, &fw);
  switch (fw.op) {
  case SL_OP_GATHER:
  case SL_OP_SCATTER:
  case SL_OP_SCATTER_REDUCE:
    return sl__classify_dimwise(&fw, c->op);
  case SL_OP_GATHER_ND:
  case SL_OP_SCATTER_ND:
    return sl__classify_nd(&fw);
  case SL_OP_INDEX_REDUCE:
    return sl__classify_index_reduce(&fw);
  case SL_OP_SELECT_SCATTER:
    return sl__classify_select(&fw);
  case SL_OP_MASKED_SCATTER:
    return sl__classify_masked(&fw);
  case SL_OP_DYNAMIC_SCATTER:
    return sl__classify_dynamic(&fw);
  default:
    return SL_FUZZ_SHAPE;
  }
}

/* ------------------------------------------------------------------------ */
/* Cells                                                                     */
/* ------------------------------------------------------------------------ */

int64_t sl_fuzz_threshold_elems(const sl_threshold *t, sl_dtype dt) {
  const int64_t v = t->value, es = (int64_t)sl_dtype_size(dt);
  if (t->unit == SL_TH_PER_THREAD) return 2 * v; /* a team of two */
  if (t->unit == SL_TH_BYTES) return (v + es - 1) / es;
  return v;
}

/* The largest threshold (in elements of dt) that n elements reach, or
 * NULL. */
static const sl_threshold *sl__threshold_reached(int64_t n, sl_dtype dt) {
  const sl_threshold *best = NULL;
  int64_t best_n = -1;
  for (int k = 0; k < sl_threshold_count(); ++k) {
    const sl_threshold *t = sl_threshold_at(k);
    const int64_t need = sl_fuzz_threshold_elems(t, dt);
    if (need <= n && need > best_n) {
      best = t;
      best_n = need;
    }
  }
  return best;
}

void sl_fuzz_cell(const sl_case *c, char *buf, size_t len) {
  if (!buf || !len) return;
  buf[0] = '\0';
  const sl_case_spec *spec = c ? sl_case_spec_of(c->op) : NULL;
  if (!spec) return;
  sl_case fw;
  sl_case_forward(c, &fw);
  char self[8] = "-", layout = 'c', shape[40], ip[16] = "-";
  if (spec->keys & SL_KEY_SELF)
    snprintf(self, sizeof self, "self%d", c->include_self ? 1 : 0);
  int empty = 0, large = 0;
  int64_t most = 0; /* elements of the largest input */
  const sl_threshold *past = NULL;
  for (int i = 0; i < spec->n_shapes; ++i) {
    const sl_case_shape *s = &c->arg[spec->shape_slots[i]];
    if (!s->present) continue;
    int64_t n = sl__numel(s);
    if (n == 0) empty = 1;
    if (n >= SL__LARGE_NUMEL) large = 1;
    if (n > most) most = n;
    if (layout == 'c' && s->layout != SL_LAYOUT_CONTIGUOUS)
      layout = s->layout == SL_LAYOUT_TRANSPOSED ? 't'
               : s->layout == SL_LAYOUT_STEPPED  ? 's'
                                                 : 'b';
  }
  const sl_case_shape *x = &fw.arg[0];
  int unit = 0;
  for (int d = 0; d < x->ndim; ++d) unit |= x->shape[d] == 1;
  if (sl_fuzz_stress_shape(c))
    snprintf(shape, sizeof shape, "stress:contention");
  else if (empty)
    snprintf(shape, sizeof shape, "empty");
  else if (large && (past = sl__threshold_reached(most, c->dt)))
    snprintf(shape, sizeof shape, "past:%s", past->name);
  else if (large)
    snprintf(shape, sizeof shape, "large");
  else if (x->ndim == 0)
    snprintf(shape, sizeof shape, "rank0");
  else if (unit)
    snprintf(shape, sizeof shape, "unit");
  else
    snprintf(shape, sizeof shape, "rank%d", x->ndim);
  if (fw.op == SL_OP_DYNAMIC_SCATTER && c->voxels)
    snprintf(ip, sizeof ip, "voxels");
  else if (sl__has_index(fw.op) && (c->ip == SL_IP_OOB || c->ip == SL_IP_NEG))
    snprintf(ip, sizeof ip, "%s:%s", sl_index_pattern_name(c->ip),
             sl_ip_bad_label(c->ip, c->ip_param));
  else if (sl__has_index(fw.op) || fw.op == SL_OP_DYNAMIC_SCATTER)
    snprintf(ip, sizeof ip, "%s", sl_index_pattern_name(c->ip));
  sl_fuzz_class k = sl_fuzz_classify(c);
  char validity[32];
  if (k == SL_FUZZ_VALID)
    snprintf(validity, sizeof validity, "valid");
  else
    snprintf(validity, sizeof validity, "invalid-%s", sl_fuzz_class_name(k));
  snprintf(buf, len, "%s|%s|%s|%s|%s|%c|%s|%s|%s|%s", sl_op_name(c->op),
           sl_dtype_name(c->dt),
           (spec->keys & SL_KEY_REDUCE) ? sl_reduce_name(c->reduce) : "-", self,
           (spec->keys & SL_KEY_IT) ? sl_dtype_name(c->it) : "-", layout, shape,
           ip, sl_data_pattern_name(c->dp), validity);
}

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
}

int64_t sl_fuzz_size_mix_default(void) {
  return sl_thresholds_small() ? 8 : 4096;
}

typedef enum {
  SL__SC_NORMAL,
  SL__SC_UNIT,
  SL__SC_EMPTY,
  SL__SC_LARGE
} sl__shape_class;

typedef struct sl__gen {
  sl_rng r;
  sl_op op;        /* the op of the case (a backward op, maybe) */
  int64_t max;     /* largest tensor, in elements */
  int64_t min;     /* SL__SC_LARGE: the least of the main tensor, 0 for the
                      class's own floor (the size mix sets it) */
  int sc;          /* sl__shape_class */
  int empty_index; /* SL__SC_EMPTY: the index, not x, gets the zero extent */
  int max_rank;    /* sl_fuzz_opts.max_rank, 1..SL_MAX_DIMS */
} sl__gen;

/* Uniform in [lo, hi]; lo when hi <= lo. */
static int64_t sl__range(sl__gen *g, int64_t lo, int64_t hi) {
  if (hi <= lo) return lo;
  return lo + (int64_t)sl_rng_below(&g->r, (uint64_t)(hi - lo) + 1);
}

static int sl__pct(sl__gen *g, int p) {
  return (int)sl_rng_below(&g->r, 100) < p;
}

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
static void sl__gen_x(sl__gen *g, int R, int64_t *e) {
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

static int sl__pick_rank(sl__gen *g, int rmin, int rmax) {
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
static int64_t sl__pick_dim(sl__gen *g, int n, int64_t *norm) {
  *norm = (int64_t)sl_rng_below(&g->r, (uint64_t)n);
  return sl__pct(g, 30) ? *norm - n : *norm;
}

/* gather, scatter, scatter_reduce: x, index (and src). */
static void sl__gen_dimwise(sl__gen *g, sl_case *c, int with_src) {
  /* I zeroed: at -O1 gcc cannot see that a scalar x without a 1-D index
   * passes iR = 0 (I unread), and -Werror stopped the build there. */
  int64_t X[SL_MAX_DIMS], I[SL_MAX_DIMS] = {0}, S[SL_MAX_DIMS];
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
  const int larger = g->op != SL_OP_SCATTER_REDUCE_BACKWARD;
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
static void sl__gen_index_reduce(sl__gen *g, sl_case *c) {
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
static void sl__gen_select(sl__gen *g, sl_case *c) {
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
static void sl__gen_masked(sl__gen *g, sl_case *c) {
  int64_t X[SL_MAX_DIMS], Mk[SL_MAX_DIMS], S[SL_MAX_DIMS];
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
static void sl__gen_dynamic(sl__gen *g, sl_case *c) {
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

static void sl__pick_layout(sl__gen *g, sl_case_shape *s) {
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

static void sl__pick_ip(sl__gen *g, sl_case *c, sl_op fwop) {
  int u = (int)sl_rng_below(&g->r, 100);
  c->ip = SL_IP_RAND;
  c->ip_param = 0;
  if (fwop == SL_OP_DYNAMIC_SCATTER) {
    /* datagen's coors patterns: one voxel, spread voxels, half the rows
     * dropped (negative entries are valid here: the point is skipped). */
    c->ip = u < 40   ? SL_IP_RAND
            : u < 60 ? SL_IP_ONE
            : u < 80 ? SL_IP_UNIQUE
                     : SL_IP_NEG;
    return;
  }
  if (!sl__has_index(fwop) || u < 30) return;
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
static void sl__pick_voxels(sl__gen *g, sl_case *fw) {
  const sl_case_shape *coors = &fw->arg[1];
  if (fw->ip != SL_IP_RAND || coors->ndim != 2 || coors->shape[0] < 1 ||
      !sl__pct(g, 33))
    return;
  fw->voxels = sl__range(g, 1, coors->shape[0]);
  if (sl_case_check_voxels(fw, NULL, 0)) fw->voxels = 0;
}

static void sl__pick_dp(sl__gen *g, sl_case *c, sl_op fwop) {
  c->dp = SL_DP_RAND;
  /* dynamic_scatter's feats: no NaN or inf (docs/spec.md §2) */
  if (fwop == SL_OP_DYNAMIC_SCATTER) return;
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

/* An end of the scalars that c's dtype takes (sl_scalar_range_of: the
 * lowest or highest integer, -max or max), or with `past` one past it (the
 * integer or the double beyond). -1 when there is none: bool takes any
 * value, and nothing lies past i64's, f64's or c128's ends but inf, which
 * they take. */
static int sl__edge_val(sl__gen *g, sl_case *c, int past) {
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

static sl_op sl__forward_op(sl_op op) {
  switch (op) {
  case SL_OP_SCATTER_REDUCE_BACKWARD:
    return SL_OP_SCATTER_REDUCE;
  case SL_OP_INDEX_REDUCE_BACKWARD:
    return SL_OP_INDEX_REDUCE;
  case SL_OP_DYNAMIC_SCATTER_BACKWARD:
    return SL_OP_DYNAMIC_SCATTER;
  default:
    return op;
  }
}

/* Fills the forward view fw (op fwop) of a valid case with dtype, reduce
 * and the other parameters already in place. */
static void sl__gen_shapes(sl__gen *g, sl_case *fw) {
  switch (fw->op) {
  case SL_OP_GATHER:
    sl__gen_dimwise(g, fw, 0);
    break;
  case SL_OP_SCATTER:
    if (sl__pct(g, 20)) {
      sl__pick_val(g, fw);
      sl__gen_dimwise(g, fw, 0);
    } else {
      sl__gen_dimwise(g, fw, 1);
    }
    break;
  case SL_OP_SCATTER_REDUCE:
    sl__gen_dimwise(g, fw, 1);
    break;
  case SL_OP_GATHER_ND:
    sl__gen_nd(g, fw, 0);
    break;
  case SL_OP_SCATTER_ND:
    sl__gen_nd(g, fw, 1);
    break;
  case SL_OP_INDEX_REDUCE:
    sl__gen_index_reduce(g, fw);
    break;
  case SL_OP_SELECT_SCATTER:
    sl__gen_select(g, fw);
    break;
  case SL_OP_MASKED_SCATTER:
    sl__gen_masked(g, fw);
    break;
  case SL_OP_DYNAMIC_SCATTER:
    sl__gen_dynamic(g, fw);
    break;
  default:
    break;
  }
}

/* ------------------------------------------------------------------------ */
/* Breaking a valid case (docs/spec.md §4), one class at a time             */
/* ------------------------------------------------------------------------ */

/*
 * Each breaker takes a valid, non-empty forward view and breaks it in one
 * way that the core and LibTorch 1.13 (with the reference shim's own
 * checks) both reject; it returns 0, or -1 when the class does not apply to
 * this case (the caller then tries the next class). `op` is the real op
 * (backward ops break through their forward inputs).
 */

static int sl__break_value(sl__gen *g, sl_case *fw, int neg) {
  if (fw->op == SL_OP_SELECT_SCATTER) {
    int64_t d, e;
    if (!sl__norm_dim(fw->dim, fw->arg[0].ndim, &d)) return -1;
    e = fw->arg[0].shape[d];
    fw->at = sl__pct(g, 50) ? e : -e - 1;
    return 0;
  }
  if (!sl__has_index(fw->op) || sl__numel(&fw->arg[1]) == 0) return -1;
  fw->ip = neg ? SL_IP_NEG : SL_IP_OOB;
  fw->ip_param = (int)sl_rng_below(
      &g->r, (uint64_t)(neg ? SL_IP_NEG_KINDS : SL_IP_OOB_KINDS));
  return 0;
}

static int sl__break_dim(sl__gen *g, sl_case *fw) {
  int n;
  switch (fw->op) {
  case SL_OP_GATHER:
  case SL_OP_SCATTER:
  case SL_OP_SCATTER_REDUCE:
  case SL_OP_INDEX_REDUCE:
  case SL_OP_SELECT_SCATTER:
    n = fw->arg[0].ndim ? fw->arg[0].ndim : 1;
    fw->dim =
        sl__pct(g, 50) ? n + sl__range(g, 0, 1) : -n - 1 - sl__range(g, 0, 1);
    return 0;
  case SL_OP_GATHER_ND:
  case SL_OP_SCATTER_ND: {
    const int K = fw->arg[0].ndim;
    const int M = (int)fw->arg[1].shape[K];
    if (fw->ndims == 0) {
      for (int k = 0; k < M; ++k) fw->dims[k] = k;
      fw->ndims = M;
    }
    if (M >= 2 && sl__pct(g, 50)) {
      /* A repeated axis, at any two positions, written either way (d or
       * d - K): the same axis named twice. */
      const int a = (int)sl_rng_below(&g->r, (uint64_t)M);
      const int b = (a + 1 + (int)sl_rng_below(&g->r, (uint64_t)M - 1)) % M;
      int64_t d = 0;
      if (!sl__norm_dim(fw->dims[a], K, &d)) return -1;
      fw->dims[b] = sl__pct(g, 50) ? d : d - K;
      return 0;
    }
    fw->dims[sl_rng_below(&g->r, (uint64_t)M)] = sl__pct(g, 50) ? K : -K - 1;
    return 0;
  }
  default:
    return -1;
  }
}

static int sl__break_rank(sl__gen *g, sl_case *fw, sl_op op) {
  sl_case_shape *x = &fw->arg[0], *a1 = &fw->arg[1];
  switch (fw->op) {
  case SL_OP_GATHER:
  case SL_OP_SCATTER:
  case SL_OP_SCATTER_REDUCE: {
    /* index gets one axis more (an extent 1) or, from rank 2 up, one less;
     * rank 0 and rank 1 count as the same rank. */
    int xr = x->ndim ? x->ndim : 1;
    if (xr >= 2 && (xr == SL_MAX_DIMS || sl__pct(g, 50))) {
      a1->ndim = xr;
      sl__drop(a1, xr - 1);
      return 0;
    }
    if (xr + 1 > SL_MAX_DIMS) return -1;
    if (a1->ndim == 0) {
      a1->ndim = 1;
      a1->shape[0] = 1;
    }
    a1->shape[a1->ndim++] = 1;
    return a1->ndim == xr + 1 ? 0 : -1;
  }
  case SL_OP_GATHER_ND:
  case SL_OP_SCATTER_ND: {
    const int K = x->ndim;
    if (K + 2 <= SL_MAX_DIMS) {
      /* [B..., 1, M] */
      a1->shape[K + 1] = a1->shape[K];
      a1->shape[K] = 1;
      a1->ndim = K + 2;
    } else {
      sl__drop(a1, 0);
    }
    return 0;
  }
  case SL_OP_INDEX_REDUCE: {
    /* A 2-D index [L,1]: never a vector. */
    int64_t L = a1->ndim ? a1->shape[0] : 1;
    a1->ndim = 2;
    a1->shape[0] = L;
    a1->shape[1] = 1;
    return 0;
  }
  case SL_OP_SELECT_SCATTER:
    /* value with x's full rank (the selected axis kept, extent 1) */
    *a1 = *x;
    {
      int64_t d = 0;
      if (!sl__norm_dim(fw->dim, x->ndim, &d)) return -1;
      a1->shape[d] = 1;
    }
    a1->layout = SL_LAYOUT_CONTIGUOUS;
    a1->step = 0;
    return 0;
  case SL_OP_MASKED_SCATTER:
    return -1; /* the mask's rank is the "mask" class */
  case SL_OP_DYNAMIC_SCATTER:
    /* feats [N,C,1]; for the forward alone also coors [N] */
    if (op == SL_OP_DYNAMIC_SCATTER && sl__pct(g, 50)) {
      a1->ndim = 1;
      a1->layout = SL_LAYOUT_CONTIGUOUS;
      return 0;
    }
    x->shape[2] = 1;
    x->ndim = 3;
    return 0;
  default:
    return -1;
  }
}

static int sl__break_shape(sl__gen *g, sl_case *fw) {
  sl_case_shape *x = &fw->arg[0], *a1 = &fw->arg[1], *a2 = &fw->arg[2];
  switch (fw->op) {
  case SL_OP_GATHER:
  case SL_OP_SCATTER:
  case SL_OP_SCATTER_REDUCE: {
    int64_t d = 0;
    const int xr = x->ndim ? x->ndim : 1;
    if (!sl__norm_dim(fw->dim, xr, &d)) return -1;
    int has_src = fw->op != SL_OP_GATHER && !fw->has_val;
    if (has_src && a2->ndim >= 1 && (x->ndim < 2 || sl__pct(g, 50))) {
      /* src smaller than index in one axis */
      int k = (int)sl_rng_below(&g->r, (uint64_t)a1->ndim);
      a2->shape[k] = a1->shape[k] - 1;
      return 0;
    }
    if (x->ndim < 2) return -1;
    /* index longer than x on an axis other than dim (and src follows) */
    int k =
        (int)((d + 1 + (int64_t)sl_rng_below(&g->r, (uint64_t)xr - 1)) % xr);
    a1->shape[k] = x->shape[k] + 1;
    if (has_src && a2->shape[k] < a1->shape[k]) a2->shape[k] = a1->shape[k];
    if (sl__numel(a1) > g->max || (has_src && sl__numel(a2) > g->max))
      return -1;
    return 0;
  }
  case SL_OP_GATHER_ND:
  case SL_OP_SCATTER_ND: {
    const int K = x->ndim;
    const int M = (int)a1->shape[K];
    int indexed[SL_MAX_DIMS] = {0};
    for (int k = 0; k < M; ++k) {
      int64_t d = k;
      if (fw->ndims) sl__norm_dim(fw->dims[k], K, &d);
      indexed[d] = 1;
    }
    if (fw->op == SL_OP_SCATTER_ND && sl__pct(g, 50)) {
      /* src not index.shape[:-1] */
      int k = (int)sl_rng_below(&g->r, (uint64_t)K);
      a2->shape[k] += 1;
      return sl__numel(a2) > g->max ? -1 : 0;
    }
    if (M < K) {
      /* a non-indexed axis of index longer than x's */
      int k = (int)sl_rng_below(&g->r, (uint64_t)K);
      while (indexed[k]) k = (k + 1) % K;
      a1->shape[k] = x->shape[k] + 1;
      if (fw->op == SL_OP_SCATTER_ND) a2->shape[k] = a1->shape[k];
    } else {
      /* M = K + 1 columns for a rank-K x */
      a1->shape[K] = K + 1;
      fw->ndims = 0;
    }
    if (sl__numel(a1) > g->max || sl__numel(a2) > g->max) return -1;
    return 0;
  }
  case SL_OP_INDEX_REDUCE: {
    int64_t a = 0;
    if (!sl__norm_dim(fw->dim, x->ndim, &a)) return -1;
    if (a1->ndim == 0) {
      /* from a 0-D index to [1] with updates of 2 along the axis */
      a1->ndim = 1;
      a1->shape[0] = 1;
      *a2 = *x;
      a2->layout = SL_LAYOUT_CONTIGUOUS;
      a2->shape[a] = 2;
    } else {
      a2->shape[a] = a1->shape[0] + 1;
    }
    return sl__numel(a2) > g->max ? -1 : 0;
  }
  case SL_OP_SELECT_SCATTER:
    if (a1->ndim < 1) return -1;
    a1->shape[sl_rng_below(&g->r, (uint64_t)a1->ndim)] += 1;
    return sl__numel(a1) > g->max ? -1 : 0;
  case SL_OP_DYNAMIC_SCATTER:
    a1->shape[0] += 1; /* coors rows != feats rows */
    return sl__numel(a1) > g->max ? -1 : 0;
  default:
    return -1;
  }
}

static int sl__break_itype(sl__gen *g, sl_case *fw) {
  if (!sl__has_index(fw->op)) return -1;
  fw->it = sl__pct(g, 50) ? SL_F32 : SL_F64;
  return 0;
}

static int sl__break_dtype(sl__gen *g, sl_case *fw, sl_op op) {
  switch (op) {
  case SL_OP_SCATTER_REDUCE:
  case SL_OP_SCATTER_REDUCE_BACKWARD:
  case SL_OP_INDEX_REDUCE:
  case SL_OP_INDEX_REDUCE_BACKWARD:
    /* LibTorch 1.13 takes u8/i8/i16 and even bool or complex for most
     * reduces; it refuses mean on bool and amax/amin on complex. */
    if (sl__pct(g, 50)) {
      fw->dt = SL_BOOL;
      fw->reduce = SL_REDUCE_MEAN;
    } else {
      fw->dt = sl__pct(g, 50) ? SL_C64 : SL_C128;
      fw->reduce = sl__pct(g, 50) ? SL_REDUCE_AMAX : SL_REDUCE_AMIN;
    }
    break;
  case SL_OP_DYNAMIC_SCATTER:
  case SL_OP_DYNAMIC_SCATTER_BACKWARD: {
    static const sl_dtype bad[] = {SL_I32, SL_I64,  SL_F16, SL_BF16,
                                   SL_U8,  SL_BOOL, SL_C64};
    fw->dt = bad[sl_rng_below(&g->r, 7)];
    break;
  }
  default:
    return -1;
  }
  fw->dp = SL_DP_RAND;
  return 0;
}

static int sl__break_reduce(sl__gen *g, sl_case *fw, sl_op op) {
  static const sl_reduce sr[] = {SL_REDUCE_NONE, SL_REDUCE_ASSIGN,
                                 SL_REDUCE_MAX};
  static const sl_reduce nd[] = {SL_REDUCE_ASSIGN, SL_REDUCE_PROD,
                                 SL_REDUCE_MEAN, SL_REDUCE_AMAX, SL_REDUCE_MAX};
  static const sl_reduce ir[] = {SL_REDUCE_NONE, SL_REDUCE_MAX};
  static const sl_reduce dy[] = {SL_REDUCE_NONE, SL_REDUCE_ASSIGN,
                                 SL_REDUCE_PROD, SL_REDUCE_AMAX,
                                 SL_REDUCE_AMIN};
  switch (op) {
  case SL_OP_SCATTER_REDUCE:
  case SL_OP_SCATTER_REDUCE_BACKWARD:
    fw->reduce = sr[sl_rng_below(&g->r, 3)];
    return 0;
  case SL_OP_SCATTER_ND:
    fw->reduce = nd[sl_rng_below(&g->r, 5)];
    return 0;
  case SL_OP_INDEX_REDUCE:
  case SL_OP_INDEX_REDUCE_BACKWARD:
    fw->reduce = ir[sl_rng_below(&g->r, 2)];
    return 0;
  case SL_OP_DYNAMIC_SCATTER:
  case SL_OP_DYNAMIC_SCATTER_BACKWARD:
    fw->reduce = dy[sl_rng_below(&g->r, 5)];
    return 0;
  default:
    return -1;
  }
}

/* masked_scatter: a mask that does not broadcast to x. */
static int sl__break_mask(sl__gen *g, sl_case *fw) {
  if (fw->op != SL_OP_MASKED_SCATTER) return -1;
  sl_case_shape *x = &fw->arg[0], *mask = &fw->arg[1];
  const int R = x->ndim;
  if (R == 0 || (R < SL_MAX_DIMS && sl__pct(g, 30))) {
    /* more axes than x (a leading 2, so not even numpy broadcasts it) */
    sl_case_shape m = *x;
    m.shape[0] = 2;
    for (int d = 0; d < R; ++d) m.shape[d + 1] = x->shape[d];
    m.ndim = R + 1;
    m.layout = SL_LAYOUT_CONTIGUOUS;
    m.step = 0;
    *mask = m;
    return sl__numel(mask) > g->max ? -1 : 0;
  }
  /* x's shape with one extent e -> e + 1 (neither e nor 1, as e >= 1) */
  int k = (int)sl_rng_below(&g->r, (uint64_t)R);
  *mask = *x;
  mask->layout = SL_LAYOUT_CONTIGUOUS;
  mask->step = 0;
  mask->shape[k] += 1;
  return sl__numel(mask) > g->max ? -1 : 0;
}

/* masked_scatter: an empty source for a mask with a true element. The mask
 * comes from the case's seed, so the seed moves on until the mask that
 * datagen makes has a true element. */
static int sl__break_short(sl__gen *g, sl_case *fw) {
  (void)g;
  if (fw->op != SL_OP_MASKED_SCATTER) return -1;
  sl_case_shape *x = &fw->arg[0], *mask = &fw->arg[1], *src = &fw->arg[2];
  if (sl__numel(x) == 0) return -1;
  *mask = *x;
  mask->layout = SL_LAYOUT_CONTIGUOUS;
  mask->step = 0;
  int64_t zero = 0;
  sl__shape_set(src, 1, &zero);
  for (int tries = 0; tries < 64; ++tries, ++fw->seed)
    if (sl__mask_true_count(fw) > 0) return 0;
  return -1;
}

/* scatter: a value one past what x's dtype holds; a case with src takes
 * the value form instead. */
static int sl__break_scalar(sl__gen *g, sl_case *fw) {
  if (fw->op != SL_OP_SCATTER || sl__numel(&fw->arg[1]) == 0) return -1;
  fw->has_val = 1;
  memset(&fw->arg[2], 0, sizeof fw->arg[2]);
  return sl__edge_val(g, fw, 1);
}

static int sl__break(sl__gen *g, sl_case *fw, sl_op op, sl_fuzz_class k) {
  switch (k) {
  case SL_FUZZ_OOB:
    return sl__break_value(g, fw, 0);
  case SL_FUZZ_NEG:
    return fw->op == SL_OP_SELECT_SCATTER ? -1 : sl__break_value(g, fw, 1);
  case SL_FUZZ_DIM:
    return sl__break_dim(g, fw);
  case SL_FUZZ_RANK:
    return sl__break_rank(g, fw, op);
  case SL_FUZZ_SHAPE:
    if (op == SL_OP_DYNAMIC_SCATTER_BACKWARD) return -1;
    return sl__break_shape(g, fw);
  case SL_FUZZ_ITYPE:
    return sl__break_itype(g, fw);
  case SL_FUZZ_DTYPE:
    return sl__break_dtype(g, fw, op);
  case SL_FUZZ_REDUCE:
    return sl__break_reduce(g, fw, op);
  case SL_FUZZ_MASK:
    return sl__break_mask(g, fw);
  case SL_FUZZ_SHORT:
    return sl__break_short(g, fw);
  case SL_FUZZ_SCALAR:
    return sl__break_scalar(g, fw);
  default:
    return -1;
  }
}

/* ------------------------------------------------------------------------ */
/* The campaign                                                              */
/* ------------------------------------------------------------------------ */

/* The invalid classes that op can be given with certainty (docs/spec.md §4
 * minus the classes a case line cannot express: null pointers, size_t
 * overflow). Data-movement ops take every dtype, so they have no dtype class;
 * scatter_nd neither, as LibTorch's index_put accumulates bool and complex too.
 */
static int sl__class_applies(sl_op op, sl_fuzz_class k) {
  const sl_op fwop = sl__forward_op(op);
  switch (k) {
  case SL_FUZZ_OOB:
    return sl__has_index(fwop) || fwop == SL_OP_SELECT_SCATTER;
  case SL_FUZZ_NEG:
  case SL_FUZZ_ITYPE:
    return sl__has_index(fwop);
  case SL_FUZZ_DIM:
    return sl__has_index(fwop) || fwop == SL_OP_SELECT_SCATTER;
  case SL_FUZZ_RANK:
    return fwop != SL_OP_MASKED_SCATTER;
  case SL_FUZZ_SHAPE:
    return fwop != SL_OP_MASKED_SCATTER && op != SL_OP_DYNAMIC_SCATTER_BACKWARD;
  case SL_FUZZ_DTYPE:
    return fwop == SL_OP_SCATTER_REDUCE || fwop == SL_OP_INDEX_REDUCE ||
           fwop == SL_OP_DYNAMIC_SCATTER;
  case SL_FUZZ_REDUCE:
    return (sl_case_spec_of(op)->keys & SL_KEY_REDUCE) != 0;
  case SL_FUZZ_MASK:
  case SL_FUZZ_SHORT:
    return fwop == SL_OP_MASKED_SCATTER;
  case SL_FUZZ_SCALAR:
    return fwop == SL_OP_SCATTER;
  default:
    return 0;
  }
}

static int sl__popcount(unsigned v) {
  int n = 0;
  for (; v; v &= v - 1) ++n;
  return n;
}

/* The k-th set bit of v (k < popcount(v)). */
static int sl__nth_bit(unsigned v, int k) {
  for (int b = 0; b < 32; ++b)
    if ((v >> b) & 1u) {
      if (k-- == 0) return b;
    }
  return 0;
}

/*
 * Size mix: one valid case in o->size_mix is sized past one of the core's
 * size thresholds (drawn uniformly among those within
 * SL_FUZZ_SIZE_MIX_MAX_ELEMS), so that every campaign takes the paths that
 * small cases never reach (a parallel team, the wide-row loops...). The
 * draw has a stream of its own: the other cases stay as they were.
 */
static void sl__size_mix(const sl_fuzz_opts *o, uint64_t seed, uint64_t i,
                         sl_dtype dt, sl__gen *g) {
  if (o->size_mix <= 0) return;
  sl_rng r;
  sl_rng_seed(&r, seed ^ 0x73697a656d6978ull /* "sizemix" */, i);
  if (sl_rng_below(&r, (uint64_t)o->size_mix) != 0) return;
  const int n = sl_threshold_count();
  const int first = (int)sl_rng_below(&r, (uint64_t)n);
  for (int j = 0; j < n; ++j) {
    int64_t need =
        sl_fuzz_threshold_elems(sl_threshold_at((first + j) % n), dt);
    if (2 * need > SL_FUZZ_SIZE_MIX_MAX_ELEMS) continue;
    if (need < SL_FUZZ_SIZE_MIX_MIN_ELEMS) need = SL_FUZZ_SIZE_MIX_MIN_ELEMS;
    /* The largest tensor in [need, 2 * need]: past the threshold, not so
     * far past it that the case costs more than it must. */
    g->sc = SL__SC_LARGE;
    g->min = need + (int64_t)sl_rng_below(&r, (uint64_t)need / 2 + 1);
    g->max = 2 * need;
    return;
  }
}

int sl_fuzz_case(uint64_t seed, uint64_t i, const sl_fuzz_opts *o, sl_case *c) {
  sl_fuzz_opts def;
  if (!o) {
    sl_fuzz_opts_init(&def);
    o = &def;
  }
  sl__gen g;
  memset(&g, 0, sizeof g);
  /* One stream per case: case i is independent of every other case. */
  sl_rng_seed(&g.r, seed, i);
  g.max = o->max_elems > 0 ? o->max_elems : 4096;
  g.max_rank =
      o->max_rank > 0 && o->max_rank < SL_MAX_DIMS ? o->max_rank : SL_MAX_DIMS;
  if (g.max < SL__MIN_MAX_ELEMS) g.max = SL__MIN_MAX_ELEMS;
  int invalid_pct = o->invalid_pct < 0     ? 0
                    : o->invalid_pct > 100 ? 100
                                           : o->invalid_pct;
  const unsigned all_ops = SL__BIT(SL_OP_COUNT) - 1;
  unsigned ops = o->ops & all_ops ? o->ops & all_ops : all_ops;
  unsigned dmask = o->dtypes & sl__all_dtypes;
  unsigned rmask = o->reduces & (SL__BIT(SL_REDUCE_COUNT) - 1);
  /* Ops that the dtype and reduce masks leave some dtype; if none, the
   * masks are ignored rather than generating nothing. */
  unsigned usable = 0;
  for (int op = 0; op < SL_OP_COUNT; ++op)
    if ((ops & SL__BIT(op)) && sl__usable_dtypes((sl_op)op, dmask, rmask))
      usable |= SL__BIT(op);
  if (!usable) {
    usable = ops;
    dmask = rmask = 0;
  }

  const sl_op op = (sl_op)sl__nth_bit(
      usable, (int)sl_rng_below(&g.r, (uint64_t)sl__popcount(usable)));
  const sl_op fwop = sl__forward_op(op);
  g.op = op;
  const int invalid = (int)sl_rng_below(&g.r, 100) < invalid_pct;

  sl_case fw;
  sl_case_init(&fw, fwop);
  fw.seed = sl_rng_next(&g.r) >> 32;

  /* dtype, reduce, include_self, index dtype */
  unsigned dts = sl__usable_dtypes(op, dmask, rmask);
  fw.dt = (sl_dtype)sl__nth_bit(
      dts, (int)sl_rng_below(&g.r, (uint64_t)sl__popcount(dts)));
  unsigned reds = sl__op_reduces(op, fw.dt);
  if (reds & rmask) reds &= rmask;
  fw.reduce = (sl_reduce)sl__nth_bit(
      reds, (int)sl_rng_below(&g.r, (uint64_t)sl__popcount(reds)));
  fw.include_self = (int)sl_rng_below(&g.r, 2);
  fw.it = sl_rng_below(&g.r, 2) ? SL_I64 : SL_I32;
  if (o->index_dtypes && !(o->index_dtypes & SL__BIT(fw.it)))
    fw.it = fw.it == SL_I64 ? SL_I32 : SL_I64;
  /* Keys that the line does not print keep their parse defaults, so that
   * a printed line parses back to the same struct. include_self means
   * nothing to assign: it stays 1 there. */
  const unsigned keys = sl_case_spec_of(op)->keys;
  if (!(keys & SL_KEY_SELF) || fw.reduce == SL_REDUCE_ASSIGN)
    fw.include_self = 1;
  if (!(keys & SL_KEY_IT)) fw.it = SL_I64;

  /* shape class: invalid cases are never empty, so that their defect is
   * certain to be looked at */
  int u = (int)sl_rng_below(&g.r, 100);
  g.sc = u < 60   ? SL__SC_NORMAL
         : u < 75 ? SL__SC_UNIT
         : u < 90 ? SL__SC_EMPTY
                  : SL__SC_LARGE;
  if (invalid && g.sc == SL__SC_EMPTY) g.sc = SL__SC_NORMAL;
  if (g.sc == SL__SC_LARGE && g.max < SL__LARGE_NUMEL) g.sc = SL__SC_NORMAL;
  if (!invalid) sl__size_mix(o, seed, i, fw.dt, &g);
  g.empty_index = sl__has_index(fwop) && sl__pct(&g, 40);

  sl__gen_shapes(&g, &fw);
  const sl_case_spec *fspec = sl_case_spec_of(fwop);
  for (int s = 0; s < fspec->n_shapes; ++s)
    if (fw.arg[fspec->shape_slots[s]].present)
      sl__pick_layout(&g, &fw.arg[fspec->shape_slots[s]]);
  sl__pick_ip(&g, &fw, fwop);
  sl__pick_dp(&g, &fw, fwop);

  int broken = 0;
  if (invalid) {
    sl_fuzz_class cand[SL_FUZZ_CLASS_COUNT];
    int n = 0;
    for (int k = 1; k < SL_FUZZ_CLASS_COUNT; ++k)
      if (sl__class_applies(op, (sl_fuzz_class)k)) cand[n++] = (sl_fuzz_class)k;
    int first = (int)sl_rng_below(&g.r, (uint64_t)n);
    for (int j = 0; j < n && !broken; ++j) {
      sl_case t = fw;
      sl_fuzz_class k = cand[(first + j) % n];
      if (sl__break(&g, &t, op, k) == 0) {
        sl_case full;
        sl_fuzz_from_forward(&t, op, &full);
        /* Keep only a break that the classifier sees as that class. */
        if (sl_fuzz_classify(&full) == k) {
          fw = t;
          broken = 1;
        }
      }
    }
  }
  /* Drawn last, so that every other case keeps the stream it had. */
  if (fwop == SL_OP_DYNAMIC_SCATTER && !broken) sl__pick_voxels(&g, &fw);
  if (!invalid) sl_fuzz_stress(o, seed, i, &fw); /* a stream of its own */
  sl_fuzz_from_forward(&fw, op, c);
  return broken;
}
