/* The contention-stress schedule (see stress.h). */
#include "stress.h"

#include <string.h>

#include "casegen.h"
#include "casegen_internal.h"
#include "datagen.h"
#include "rng.h"

int64_t sl_fuzz_stress_default(void) { return sl_thresholds_small() ? 8 : 512; }

int64_t sl_fuzz_stress_updates(void) {
  int64_t most = 1;
  for (int k = 0; k < sl_threshold_count(); ++k) {
    const sl_threshold *t = sl_threshold_at(k);
    if (t->unit == SL_TH_PER_THREAD && t->value > most) most = t->value;
  }
  return most * SL_FUZZ_STRESS_THREADS;
}

int sl_fuzz_stress_op(sl_op op) {
  const sl__fuzz_op *f = sl__fuzz_op_of(op);
  return f && f->stress;
}

static void sl__shape1(sl_case_shape *s, int64_t a) {
  memset(s, 0, sizeof *s);
  s->present = 1;
  s->ndim = 1;
  s->shape[0] = a;
}

static void sl__shape2(sl_case_shape *s, int64_t a, int64_t b) {
  sl__shape1(s, a);
  s->ndim = 2;
  s->shape[1] = b;
}

int sl_fuzz_stress(const sl_fuzz_opts *o, uint64_t seed, uint64_t i,
                   sl_case *fw) {
  if (!o || o->stress <= 0 || !sl_fuzz_stress_op(fw->op)) return 0;
  sl_rng r;
  sl_rng_seed(&r, seed ^ 0x737472657373ull /* "stress" */, i);
  if (sl_rng_below(&r, (uint64_t)o->stress) != 0) return 0;
  const int64_t need = sl_fuzz_stress_updates();
  /* Updates in [need, 1.25 need] (a stress case costs hundreds of small
   * cases: no more than it must); targets 1..SL_FUZZ_STRESS_MAX_DESTS. */
  const int64_t n = need + (int64_t)sl_rng_below(&r, (uint64_t)need / 4 + 1);
  const int64_t dests = 1 + (int64_t)sl_rng_below(&r, SL_FUZZ_STRESS_MAX_DESTS);
  const sl_case_arg1 arg1 = sl_case_spec_of(fw->op)->arg1;
  if (arg1 == SL_ARG1_COORS) {
    /* voxels x channels targets; n updates over the channels. */
    const int64_t ch = 1 + (int64_t)sl_rng_below(&r, (uint64_t)dests);
    const int64_t cols = 1 + (int64_t)sl_rng_below(&r, 4);
    const int64_t points = (n + ch - 1) / ch;
    sl__shape2(&fw->arg[0], points, ch);   /* feats */
    sl__shape2(&fw->arg[1], points, cols); /* coors */
    fw->ip = SL_IP_RAND;
    fw->ip_param = 0;
    fw->voxels = dests / ch;
    return 1;
  }
  /* x [dests], index [n] along dim 0 (scatter_nd: [n, 1]), src [n]. */
  sl__shape1(&fw->arg[0], dests);
  if (arg1 == SL_ARG1_INDEX_TUPLE) {
    sl__shape2(&fw->arg[1], n, 1);
    fw->ndims = 0;
    memset(fw->dims, 0, sizeof fw->dims);
  } else {
    sl__shape1(&fw->arg[1], n);
    fw->dim = sl_rng_below(&r, 2) ? 0 : -1;
  }
  if (fw->arg[2].present) sl__shape1(&fw->arg[2], n); /* scatter's val= */
  /* Every thread on every target (rand, one, dup), or each thread's slab
   * on one or two targets with the contention at the slabs' edges
   * (sorted). */
  static const sl_index_pattern ips[] = {SL_IP_RAND, SL_IP_ONE, SL_IP_DUP,
                                         SL_IP_SORTED};
  fw->ip = ips[sl_rng_below(&r, sizeof ips / sizeof ips[0])];
  fw->ip_param = fw->ip == SL_IP_DUP ? 50 : 0;
  return 1;
}

static int64_t sl__numel(const sl_case_shape *s) {
  if (!s->present) return 0;
  int64_t n = 1;
  for (int d = 0; d < s->ndim; ++d) n *= s->shape[d];
  return n;
}

int sl_fuzz_stress_shape(const sl_case *c) {
  sl_case fw;
  if (!c || !sl_fuzz_stress_op(c->op)) return 0;
  sl_case_forward(c, &fw);
  int64_t dests, updates;
  const sl_case_arg1 arg1 = sl_case_spec_of(fw.op)->arg1;
  if (arg1 == SL_ARG1_COORS) {
    const sl_case_shape *feats = &fw.arg[0];
    if (feats->ndim != 2 || !fw.voxels) return 0;
    dests = fw.voxels * feats->shape[1];
    updates = sl__numel(feats);
  } else {
    dests = sl__numel(&fw.arg[0]);
    updates = sl__numel(&fw.arg[1]);
    if (arg1 == SL_ARG1_INDEX_TUPLE && fw.arg[1].ndim > 0)
      updates /= fw.arg[1].shape[fw.arg[1].ndim - 1];
  }
  return dests >= 1 && dests <= SL_FUZZ_STRESS_MAX_DESTS &&
         updates >= sl_fuzz_stress_updates();
}
