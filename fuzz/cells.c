/* Coverage cells of a case (casegen.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "casegen_internal.h"
#include "datagen.h"
#include "huge.h"
#include "stress.h"

/* ------------------------------------------------------------------------ */
/* Cells                                                                     */
/* ------------------------------------------------------------------------ */

int64_t sl_fuzz_threshold_elems(const sl_threshold *t, sl_dtype dt) {
  const int64_t v = t->value, es = (int64_t)sl_dtype_size(dt);
  if (t->unit == SL_TH_PER_THREAD) return 2 * v; /* a team of two */
  if (t->unit == SL_TH_BYTES) return (v + es - 1) / es;
  return v;
}

/* The largest threshold of op's paths (in elements of dt) that n elements
 * reach, or NULL: another op's threshold is no reason for this op's case
 * to stay large (a masked_scatter repro was said to be past
 * scatter_reduce's target_min_slice). */
static const sl_threshold *sl__threshold_reached(int64_t n, sl_dtype dt,
                                                 sl_op op) {
  const sl_threshold *best = NULL;
  int64_t best_n = -1;
  for (int k = 0; k < sl_threshold_count(); ++k) {
    const sl_threshold *t = sl_threshold_at(k);
    if (!sl__th_decides(t, op)) continue;
    const int64_t need = sl_fuzz_threshold_elems(t, dt);
    if (need <= n && need > best_n) {
      best = t;
      best_n = need;
    }
  }
  return best;
}

const sl_threshold *sl_fuzz_case_past(const sl_case *c, int64_t *largest) {
  const sl_case_spec *spec = c ? sl_case_spec_of(c->op) : NULL;
  int64_t most = 0;
  for (int i = 0; spec && i < spec->n_shapes; ++i) {
    const sl_case_shape *s = &c->arg[spec->shape_slots[i]];
    const int64_t n = s->present ? sl__shape_numel(s) : 0;
    if (n > most) most = n;
  }
  if (largest) *largest = most;
  /* As the cells: a case below "large" is not said to be past anything
   * (the smallest thresholds belong to one op each). */
  return spec && most >= SL__LARGE_NUMEL
             ? sl__threshold_reached(most, c->dt, c->op)
             : NULL;
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
    int64_t n = sl__shape_numel(s);
    if (n == 0) empty = 1;
    if (n >= SL__LARGE_NUMEL) large = 1;
    if (n > most) most = n;
    if (layout == 'c' && s->layout != SL_LAYOUT_CONTIGUOUS)
      layout = s->layout == SL_LAYOUT_TRANSPOSED   ? 't'
               : s->layout == SL_LAYOUT_STEPPED    ? 's'
               : s->layout == SL_LAYOUT_OVERLAPPED ? 'o'
                                                   : 'b';
  }
  const sl_case_shape *x = &fw.arg[0];
  int unit = 0;
  for (int d = 0; d < x->ndim; ++d) unit |= x->shape[d] == 1;
  const int huge = sl_fuzz_huge_shape(c);
  if (huge)
    snprintf(shape, sizeof shape, "huge:2^%d", huge);
  else if (sl_fuzz_stress_shape(c))
    snprintf(shape, sizeof shape, "stress:contention");
  else if (empty)
    snprintf(shape, sizeof shape, "empty");
  else if (large && (past = sl__threshold_reached(most, c->dt, c->op)))
    snprintf(shape, sizeof shape, "past:%s", past->name);
  else if (large)
    snprintf(shape, sizeof shape, "large");
  else if (x->ndim == 0)
    snprintf(shape, sizeof shape, "rank0");
  else if (unit)
    snprintf(shape, sizeof shape, "unit");
  else
    snprintf(shape, sizeof shape, "rank%d", x->ndim);
  const sl_case_arg1 arg1 = sl_case_spec_of(fw.op)->arg1;
  if (arg1 == SL_ARG1_COORS && c->voxels)
    snprintf(ip, sizeof ip, "voxels");
  else if (sl_case_has_index(fw.op) &&
           (c->ip == SL_IP_OOB || c->ip == SL_IP_NEG))
    snprintf(ip, sizeof ip, "%s:%s", sl_index_pattern_name(c->ip),
             sl_ip_bad_label(c->ip, c->ip_param));
  else if (sl_case_has_index(fw.op) || arg1 == SL_ARG1_COORS)
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
