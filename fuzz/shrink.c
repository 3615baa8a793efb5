/* Shrinking failing cases (see shrink.h). */
#include "shrink.h"

#include <stdlib.h>
#include <string.h>

#include "casegen.h"
#include "casegen_internal.h"
#include "datagen.h"

/* Elements of a shape, saturating instead of overflowing. */
static int64_t sl__numel(const sl_case_shape *s) {
  int64_t n = sl_case_numel(s);
  return n < 0 ? INT64_MAX / 64 : n;
}

int64_t sl_case_size(const sl_case *c) {
  const sl_case_spec *spec = c ? sl_case_spec_of(c->op) : NULL;
  if (!spec) return 0;
  int64_t size = 0;
  for (int i = 0; i < spec->n_shapes; ++i) {
    const sl_case_shape *s = &c->arg[spec->shape_slots[i]];
    if (!s->present) continue;
    int64_t n = sl__numel(s);
    size = size > INT64_MAX / 2 - n ? INT64_MAX / 2 : size + n;
    if (s->layout == SL_LAYOUT_STEPPED)
      size += s->step > 1 ? s->step - 1 : 1;
    else if (s->layout != SL_LAYOUT_CONTIGUOUS)
      size += 1;
  }
  size += c->ip != SL_IP_RAND;
  size += c->voxels != 0;
  size += c->dp != SL_DP_RAND;
  if (spec->keys & SL_KEY_DIMS) size += c->ndims > 0;
  if (spec->keys & SL_KEY_DIM) size += c->dim < 0;
  if (spec->keys & SL_KEY_AT) size += c->at < 0;
  /* the segment ops: offsets and an initial value are the rarer forms */
  if (spec->keys & SL_KEY_FORM) size += c->offsets + (c->has_val != 0);
  return size;
}

/* ------------------------------------------------------------------------ */
/* Shape surgery on the forward view                                         */
/* ------------------------------------------------------------------------ */

/* sl__drop, and a shape that became a scalar is contiguous. */
void sl__shrink_drop(sl_case_shape *s, int k) {
  const int before = s->ndim;
  sl__drop(s, k);
  if (s->ndim < before && s->ndim == 0) {
    s->layout = SL_LAYOUT_CONTIGUOUS;
    s->step = 0;
  }
}

/* Axes k and k + 1 as one of their product. */
void sl__shrink_merge(sl_case_shape *s, int k) {
  if (k + 1 >= s->ndim) return;
  s->shape[k] *= s->shape[k + 1];
  sl__drop(s, k + 1);
}

/* Sets s's extents, keeping its layout. */
void sl__reshape(sl_case_shape *s, int nd, const int64_t *e) {
  s->present = 1;
  s->ndim = nd;
  for (int d = 0; d < SL_MAX_DIMS; ++d) s->shape[d] = d < nd ? e[d] : 0;
  if (nd == 0) {
    s->layout = SL_LAYOUT_CONTIGUOUS;
    s->step = 0;
  }
}

static void sl__repair(sl_case *fw, sl_op op) {
  const sl__fuzz_op *f = sl__fuzz_op_of(fw->op);
  if (f && f->repair) f->repair(fw, op);
}

static int sl__drop_axis(sl_case *fw, int k) {
  if (k >= fw->arg[0].ndim) return -1;
  const sl__fuzz_op *f = sl__fuzz_op_of(fw->op);
  return f && f->drop_axis ? f->drop_axis(fw, k) : -1;
}

/* ------------------------------------------------------------------------ */
/* Candidates                                                                */
/* ------------------------------------------------------------------------ */

/* The rank of every input together: the order's second key. */
static int sl__rank_sum(const sl_case *c) {
  const sl_case_spec *spec = sl_case_spec_of(c->op);
  int r = 0;
  for (int i = 0; spec && i < spec->n_shapes; ++i)
    r += c->arg[spec->shape_slots[i]].ndim;
  return r;
}

int sl_case_precedes(const sl_case *a, const sl_case *b) {
  const int64_t sa = sl_case_size(a), sb = sl_case_size(b);
  if (sa != sb) return sa < sb;
  const int ra = sl__rank_sum(a), rb = sl__rank_sum(b);
  if (ra != rb) return ra < rb;
  /* f32 is the plain dtype a reader expects; any other says more */
  return a->dt == SL_F32 && b->dt != SL_F32;
}

typedef struct sl__shrinker {
  const sl_case *orig;
  sl_fuzz_class cls;
  int repair;
  sl_case *out;
  int max;
  int n;
} sl__shrinker;

static void sl__init(sl__shrinker *s, const sl_case *c, sl_case *out, int max) {
  sl_fuzz_class cls = sl_fuzz_classify(c);
  /* Classes about values and dtypes survive shape surgery: keep the shapes
   * valid for them too. */
  int repair = cls == SL_FUZZ_VALID || cls == SL_FUZZ_OOB ||
               cls == SL_FUZZ_NEG || cls == SL_FUZZ_ITYPE ||
               cls == SL_FUZZ_DTYPE || cls == SL_FUZZ_REDUCE;
  *s = (sl__shrinker){c, cls, repair, out, max, 0};
}

/* The full case of candidate fw (a forward view) into *full when it is
 * consistent, of the original's class and earlier in the order: 1, else 0. */
static int sl__make(const sl__shrinker *s, sl_case *fw, sl_case *full) {
  if (s->repair) sl__repair(fw, s->orig->op);
  /* Fewer rows hold fewer voxels; coors that hold none ask for none. */
  if (fw->voxels && fw->arg[1].ndim == 2 && fw->voxels > fw->arg[1].shape[0])
    fw->voxels = fw->arg[1].shape[0];
  if (fw->voxels && sl_case_check_voxels(fw, NULL, 0)) fw->voxels = 0;
  sl_case_from_forward(fw, s->orig->op, full);
  if (sl_fuzz_classify(full) != s->cls) return 0;
  if (sl_case_is_backward(s->orig->op) && s->cls == SL_FUZZ_SHAPE) {
    /* fw is the forward view. A shape that breaks only the backward's own
     * rule (scatter_reduce_backward: a src larger than index) is refused
     * by the core but taken by LibTorch's autograd for prod/amax/amin: not
     * a certain rejection, so not a candidate. (The other backward ops'
     * shape classes are their forward's.) */
    if (sl_fuzz_classify(fw) == SL_FUZZ_VALID) return 0;
  }
  return sl_case_precedes(full, s->orig);
}

/* Keeps candidate fw (a forward view) if sl__make takes it and it was not
 * offered already. */
static void sl__offer(sl__shrinker *s, sl_case *fw) {
  sl_case full;
  if (s->n >= s->max || !sl__make(s, fw, &full)) return;
  char a[SL_CASE_LINE_MAX], b[SL_CASE_LINE_MAX];
  sl_case_print(&full, a, sizeof a);
  for (int i = 0; i < s->n; ++i) {
    sl_case_print(&s->out[i], b, sizeof b);
    if (strcmp(a, b) == 0) return;
  }
  s->out[s->n++] = full;
}

int sl_shrink_candidates(const sl_case *c, sl_case *out, int max) {
  if (!c || !out || max <= 0 || !sl_case_spec_of(c->op)) return 0;
  sl_case fw, t;
  sl_case_forward(c, &fw);
  sl__shrinker s;
  sl__init(&s, c, out, max);
  const sl_case_spec *spec = sl_case_spec_of(fw.op);
  const sl__fuzz_op *f = sl__fuzz_op_of(fw.op);

  /* 1. one axis fewer, 1b. two axes as one */
  for (int k = 0; k < fw.arg[0].ndim; ++k) {
    t = fw;
    if (sl__drop_axis(&t, k) == 0) sl__offer(&s, &t);
  }
  for (int k = 0; f && f->merge_axes && k + 1 < fw.arg[0].ndim; ++k) {
    t = fw;
    if (f->merge_axes(&t, k) == 0) sl__offer(&s, &t);
  }
  /* 2. halve an extent, 3. an extent of 1 */
  for (int pass = 0; pass < 2; ++pass)
    for (int i = 0; i < spec->n_shapes; ++i) {
      const int slot = spec->shape_slots[i];
      for (int k = 0; k < fw.arg[slot].ndim; ++k) {
        const int64_t e = fw.arg[slot].shape[k];
        if (pass == 0 ? e < 2 : e < 3) continue;
        t = fw;
        t.arg[slot].shape[k] = pass == 0 ? e / 2 : 1;
        sl__offer(&s, &t);
      }
    }
  /* 4. one index column fewer */
  const sl_case_arg1 arg1 = spec->arg1;
  if (arg1 == SL_ARG1_INDEX_TUPLE) {
    const int K = fw.arg[0].ndim;
    if (fw.arg[1].ndim == K + 1 && fw.arg[1].shape[K] >= 2) {
      t = fw;
      t.arg[1].shape[K] -= 1;
      if (t.ndims > 0) --t.ndims;
      sl__offer(&s, &t);
    }
  }
  /* 5. masked_scatter: a source of exactly numel(x) elements */
  if (arg1 == SL_ARG1_MASK) {
    int64_t n = sl__numel(&fw.arg[0]);
    t = fw;
    memset(&t.arg[2], 0, sizeof t.arg[2]);
    sl__reshape(&t.arg[2], 1, &n);
    sl__offer(&s, &t);
  }
  /* 6. simpler data: f32, then the patterns and layouts */
  if (fw.dt != SL_F32) {
    t = fw;
    t.dt = SL_F32;
    sl__offer(&s, &t);
  }
  if (fw.dp != SL_DP_RAND) {
    t = fw;
    t.dp = SL_DP_RAND;
    sl__offer(&s, &t);
  }
  for (int i = 0; i < spec->n_shapes; ++i) {
    const int slot = spec->shape_slots[i];
    if (fw.arg[slot].layout == SL_LAYOUT_CONTIGUOUS) continue;
    t = fw;
    t.arg[slot].layout = SL_LAYOUT_CONTIGUOUS;
    t.arg[slot].step = 0;
    sl__offer(&s, &t);
  }
  if (fw.ip != SL_IP_RAND) {
    t = fw;
    t.ip = SL_IP_RAND;
    t.ip_param = 0;
    sl__offer(&s, &t);
  }
  if (fw.ndims > 0) {
    t = fw;
    t.ndims = 0;
    sl__offer(&s, &t);
  }
  if (fw.voxels) {
    t = fw;
    t.voxels = 0;
    sl__offer(&s, &t);
  }
  if (spec->keys & SL_KEY_FORM) {
    /* lengths instead of offsets (one entry fewer per row), no initial */
    sl_case_shape *len = &fw.arg[1];
    if (fw.offsets && len->ndim > 0 && len->shape[len->ndim - 1] > 0) {
      t = fw;
      t.offsets = 0;
      t.arg[1].shape[len->ndim - 1] -= 1;
      sl__offer(&s, &t);
    }
    if (fw.has_val) {
      t = fw;
      t.has_val = 0;
      t.val = 0;
      t.val_is_int = 0;
      sl__offer(&s, &t);
    }
  }
  int64_t d;
  if (fw.dim < 0 &&
      sl__norm_dim(fw.dim, fw.arg[0].ndim ? fw.arg[0].ndim : 1, &d)) {
    t = fw;
    t.dim = d;
    sl__offer(&s, &t);
  }
  if (arg1 == SL_ARG1_SLICE && fw.at < 0 &&
      sl__norm_dim(fw.dim, fw.arg[0].ndim, &d) &&
      fw.at >= -fw.arg[0].shape[d]) {
    t = fw;
    t.at += fw.arg[0].shape[d];
    sl__offer(&s, &t);
  }
  /* 7. each extent a power of two smaller, down to 2: a failure that
   * vanishes at half the size and comes back below it (a product that
   * overflows at large counts, judged there as order-dependent) still
   * shrinks, where halving and bisection stop at the first pass. */
  for (int i = 0; i < spec->n_shapes; ++i) {
    const int slot = spec->shape_slots[i];
    for (int k = 0; k < fw.arg[slot].ndim; ++k)
      for (int64_t v = fw.arg[slot].shape[k] / 4; v >= 2; v /= 2) {
        t = fw;
        t.arg[slot].shape[k] = v;
        sl__offer(&s, &t);
      }
  }
  return s.n;
}

/* ------------------------------------------------------------------------ */
/* The search                                                                */
/* ------------------------------------------------------------------------ */

/* Bisects extent k of the forward view's shape `slot` of *c down to the
 * smallest that still fails, taking each failing step: the boundary of a
 * bug that needs 65 updates is 65, where halving stops at 106. A step the
 * rules refuse counts as passing. 1 when *c got smaller, 0 when not, -1
 * when fails() said stop. */
static int sl__bisect(sl_case *c, int slot, int k, sl_shrink_fails fails,
                      void *user) {
  sl_case fw, t, full;
  sl_case_forward(c, &fw);
  int64_t lo = 0, hi = fw.arg[slot].shape[k];
  int progress = 0;
  while (hi - lo > 1) {
    const int64_t mid = lo + (hi - lo) / 2;
    sl__shrinker s;
    sl__init(&s, c, NULL, 0);
    t = fw;
    t.arg[slot].shape[k] = mid;
    const int r = sl__make(&s, &t, &full) ? fails(user, &full) : 0;
    if (r < 0) return -1;
    if (!r) {
      lo = mid;
      continue;
    }
    *c = full;
    sl_case_forward(c, &fw);
    hi = fw.arg[slot].shape[k]; /* a repair may have cut it further */
    progress = 1;
  }
  return progress;
}

/* sl__bisect over every extent of every input. */
static int sl__bisect_all(sl_case *c, sl_shrink_fails fails, void *user) {
  sl_case fw;
  sl_case_forward(c, &fw);
  const sl_case_spec *spec = sl_case_spec_of(fw.op);
  int progress = 0;
  for (int i = 0; i < spec->n_shapes; ++i) {
    const int slot = spec->shape_slots[i];
    for (int k = 0; k < fw.arg[slot].ndim; ++k) {
      const int r = sl__bisect(c, slot, k, fails, user);
      if (r < 0) return -1;
      progress |= r;
    }
  }
  return progress;
}

int sl_shrink(sl_case *c, sl_shrink_fails fails, void *user) {
  enum { MAX_CANDIDATES = 128 };
  sl_case *cand = malloc(sizeof *cand * MAX_CANDIDATES);
  if (!c || !fails || !cand || !sl_case_spec_of(c->op)) {
    free(cand);
    return 0;
  }
  int steps = 0;
  for (int r = 1; r > 0;) {
    /* The candidates first (the big moves, then simpler values); when
     * none fails, each extent to its boundary. */
    const int n = sl_shrink_candidates(c, cand, MAX_CANDIDATES);
    int i = 0;
    for (r = 0; i < n && !r; ++i) r = fails(user, &cand[i]);
    if (r > 0)
      *c = cand[i - 1];
    else if (r == 0)
      r = sl__bisect_all(c, fails, user);
    steps += r > 0;
  }
  free(cand);
  return steps;
}
