/* The relation of a failing variant's outputs to the right ones
 * (defect_relation.h). */
#include "defect_relation.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_facts.h"
#include "oracles.h"
#include "slref.h"

/* Whether every output of vc equals LibTorch's answer to the call m (the
 * same inputs, other parameters), judged by m's own oracles. */
static int sl__outputs_answer(const sl_case *c, const sl_call *vc,
                              sl_reduce reduce, int include_self) {
  const sl_op_info *info = sl_op_get(vc->op);
  sl_case mc = *c;
  sl_call m = *vc;
  mc.reduce = m.p.reduce = reduce;
  mc.include_self = m.p.include_self = include_self;
  sl_tensor outs[SL_MAX_ARGS];
  memset(outs, 0, sizeof outs);
  char err[256];
  int same = slref_run(&m, outs, err, sizeof err) == SLREF_OK;
  for (int s = 0; same && s < info->n_out; ++s) {
    const int slot = info->n_in + s;
    sl_diff d;
    same =
        sl_compare(&vc->arg[slot], &outs[s], sl_oracle_for(&mc, slot), &m, &d);
  }
  for (int s = 0; s < SL_MAX_ARGS; ++s) free(outs[s].data);
  return same;
}

/* Another reduce the op takes in the case's dtype. */
static int sl__other_reduce(const sl_case *c, const sl_call *vc, sl_reduce r) {
  const sl_op_info *info = sl_op_get(vc->op);
  return r != vc->p.reduce && r != SL_REDUCE_NONE &&
         (info->reduces & (1u << r)) &&
         (sl_op_dtypes(vc->op, r) & (1u << c->dt));
}

/* The output that holds x's values, unchanged: the op's writes lost. */
static int sl__outputs_are_x(const sl_call *vc) {
  const sl_harness_op *h = sl_harness_op_of(vc->op);
  const sl_op_info *info = sl_op_get(vc->op);
  if (!h || !h->writes_into_x) return 0;
  sl_diff d;
  return sl_compare(&vc->arg[info->n_in], &vc->arg[0], SL_ORACLE_BITWISE, NULL,
                    &d);
}

/* The reduce an operator swap most likely gives: amin's and amax's
 * comparisons turned around. Tried first: on the simple values a minimal
 * case holds (0 and 1), other reduces can give the same answer by chance
 * (sum(0, 1) = amax(0, 1)), and the first relation that holds names it. */
static sl_reduce sl__dual(sl_reduce r) {
  return r == SL_REDUCE_AMIN   ? SL_REDUCE_AMAX
         : r == SL_REDUCE_AMAX ? SL_REDUCE_AMIN
                               : SL_REDUCE_NONE;
}

void sl_defect_relation(const sl_case *c, const sl_call *vc, char *out,
                        size_t len) {
  const sl_op_info *info = sl_op_get(vc->op);
  out[0] = '\0';
  if (!info) return;
  /* The dual reduce first, then include_self flipped (a start value
   * ignored), the writes lost, and the other reduces last: each is the
   * answer of one named other call, in the order of how often such a bug
   * is met. */
  const sl_reduce dual = sl__dual(vc->p.reduce);
  if (info->reduces && sl__other_reduce(c, vc, dual) &&
      sl__outputs_answer(c, vc, dual, vc->p.include_self)) {
    snprintf(out, len, "= reduce=%s", sl_reduce_name(dual));
    return;
  }
  if (info->takes_include_self &&
      sl__outputs_answer(c, vc, vc->p.reduce, !vc->p.include_self)) {
    snprintf(out, len, "= include_self=%d", !vc->p.include_self);
    return;
  }
  if (sl__outputs_are_x(vc)) {
    snprintf(out, len, "= x");
    return;
  }
  for (int r = 0; info->reduces && r < SL_REDUCE_COUNT; ++r)
    if (r != (int)dual && sl__other_reduce(c, vc, (sl_reduce)r) &&
        sl__outputs_answer(c, vc, (sl_reduce)r, vc->p.include_self)) {
      snprintf(out, len, "= reduce=%s", sl_reduce_name((sl_reduce)r));
      return;
    }
}
