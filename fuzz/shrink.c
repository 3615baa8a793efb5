/* Shrinking failing cases (see shrink.h). */
#include "shrink.h"

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

typedef struct sl__shrinker {
  const sl_case *orig;
  sl_fuzz_class cls;
  int repair;
  int64_t size0;
  sl_case *out;
  int max;
  int n;
} sl__shrinker;

/* Keeps candidate fw (a forward view) if it is consistent, of the original's
 * class, strictly smaller, and not already offered. */
static void sl__offer(sl__shrinker *s, sl_case *fw) {
  if (s->n >= s->max) return;
  if (s->repair) sl__repair(fw, s->orig->op);
  /* Fewer rows hold fewer voxels; coors that hold none ask for none. */
  if (fw->voxels && fw->arg[1].ndim == 2 && fw->voxels > fw->arg[1].shape[0])
    fw->voxels = fw->arg[1].shape[0];
  if (fw->voxels && sl_case_check_voxels(fw, NULL, 0)) fw->voxels = 0;
  sl_case full;
  sl_case_from_forward(fw, s->orig->op, &full);
  if (sl_fuzz_classify(&full) != s->cls) return;
  if (sl_case_is_backward(s->orig->op) && s->cls == SL_FUZZ_SHAPE) {
    /* fw is the forward view. A shape that breaks only the backward's own
     * rule (scatter_reduce_backward: a src larger than index) is refused
     * by the core but taken by LibTorch's autograd for prod/amax/amin: not
     * a certain rejection, so not a candidate. (The other backward ops'
     * shape classes are their forward's.) */
    if (sl_fuzz_classify(fw) == SL_FUZZ_VALID) return;
  }
  if (sl_case_size(&full) >= s->size0) return;
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
  sl__shrinker s = {c, sl_fuzz_classify(c), 0, sl_case_size(c), out, max, 0};
  /* Classes about values and dtypes survive shape surgery: keep the shapes
   * valid for them too. */
  s.repair = s.cls == SL_FUZZ_VALID || s.cls == SL_FUZZ_OOB ||
             s.cls == SL_FUZZ_NEG || s.cls == SL_FUZZ_ITYPE ||
             s.cls == SL_FUZZ_DTYPE || s.cls == SL_FUZZ_REDUCE;
  const sl_case_spec *spec = sl_case_spec_of(fw.op);

  /* 1. one axis fewer */
  for (int k = 0; k < fw.arg[0].ndim; ++k) {
    t = fw;
    if (sl__drop_axis(&t, k) == 0) sl__offer(&s, &t);
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
  /* 6. simpler data */
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
  return s.n;
}
