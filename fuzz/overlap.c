/* The overlapped-views schedule (see overlap.h). */
#include "overlap.h"

#include "casegen.h"
#include "casegen_internal.h"
#include "rng.h"

int64_t sl_fuzz_overlap_default(void) { return 16; }

int sl_fuzz_overlap_eligible(const sl_case *fw, int slot) {
  const sl_case_spec *spec = sl_case_spec_of(fw->op);
  const sl_case_shape *s = &fw->arg[slot];
  if (!spec || !s->present || s->ndim < 2 || s->shape[0] < 2 ||
      s->shape[1] < 2 || sl__shape_numel(s) == 0)
    return 0;
  if (slot != 1) return 1;
  return spec->arg1 == SL_ARG1_INDEX || spec->arg1 == SL_ARG1_SLICE ||
         (spec->arg1 == SL_ARG1_INDEX_TUPLE && s->ndim >= 3);
}

int sl_fuzz_overlap(const sl_fuzz_opts *o, uint64_t seed, uint64_t i,
                    sl_case *fw) {
  if (o->overlap <= 0 || o->size_mix <= 0) return 0;
  sl_rng r;
  sl_rng_seed(&r, seed ^ 0x6f7665726c6170ull /* "overlap" */, i);
  if (sl_rng_below(&r, (uint64_t)o->overlap) != 0) return 0;
  const sl_case_spec *spec = sl_case_spec_of(fw->op);
  int slots[4], n = 0;
  for (int s = 0; s < spec->n_shapes; ++s)
    if (sl_fuzz_overlap_eligible(fw, spec->shape_slots[s]))
      slots[n++] = spec->shape_slots[s];
  if (n == 0) return 0;
  /* one at least: the first drawn, then each other with probability 1/2 */
  const int first = (int)sl_rng_below(&r, (uint64_t)n);
  for (int j = 0; j < n; ++j) {
    if (j != first && sl_rng_below(&r, 2)) continue;
    fw->arg[slots[j]].layout = SL_LAYOUT_OVERLAPPED;
    fw->arg[slots[j]].step = 2 + (int)sl_rng_below(&r, 3);
  }
  return 1;
}

int sl_fuzz_overlapped(const sl_case *c) {
  const sl_case_spec *spec = c ? sl_case_spec_of(c->op) : NULL;
  for (int s = 0; spec && s < spec->n_shapes; ++s) {
    const sl_case_shape *sh = &c->arg[spec->shape_slots[s]];
    if (sh->present && sh->layout == SL_LAYOUT_OVERLAPPED && sh->ndim >= 2 &&
        sh->shape[1] >= 2 && sl__shape_numel(sh) > 0 && sh->shape[0] >= 2)
      return 1;
  }
  return 0;
}
