/* The relation of a failing variant's outputs to the right ones
 * (defect_relation.h). */
#include "defect_relation.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op_facts.h"
#include "oracles.h"
#include "slref.h"
#include "variant_call.h"

/* Whether every output of vc equals LibTorch's answer to the call m (the
 * same inputs, other parameters or strides), judged by the oracles of mc,
 * m's case. */
static int sl__outputs_answer_call(const sl_case *mc, const sl_call *vc,
                                   const sl_call *m) {
  const sl_op_info *info = sl_op_get(vc->op);
  sl_tensor outs[SL_MAX_ARGS];
  memset(outs, 0, sizeof outs);
  char err[256];
  int same = slref_run(m, outs, err, sizeof err) == SLREF_OK;
  for (int s = 0; same && s < info->n_out; ++s) {
    const int slot = info->n_in + s;
    sl_diff d;
    same = sl_compare(&vc->arg[slot], &outs[s], sl_oracle_for(mc, slot), m, &d);
  }
  for (int s = 0; s < SL_MAX_ARGS; ++s) free(outs[s].data);
  return same;
}

/* Whether every output of vc equals LibTorch's answer to vc with another
 * reduce or include_self. */
static int sl__outputs_answer(const sl_case *c, const sl_call *vc,
                              sl_reduce reduce, int include_self) {
  sl_case mc = *c;
  sl_call m = *vc;
  mc.reduce = m.p.reduce = reduce;
  mc.include_self = m.p.include_self = include_self;
  return sl__outputs_answer_call(&mc, vc, &m);
}

/* The farthest element of t from its first, in elements. */
static int64_t sl__last_offset(const sl_tensor *t) {
  int64_t off = 0;
  for (int d = 0; d < t->ndim; ++d) off += (t->shape[d] - 1) * t->strides[d];
  return off;
}

/* Whether vc's outputs are LibTorch's answer to vc with input `slot` read
 * with a stride ignored: as if contiguous, or with a unit stride along one
 * dim (a walk that steps by one element where the input steps by more).
 * Only readings that stay inside the elements the input spans are tried;
 * a rank-1 input's unit stride is its contiguous reading, tried once. */
static int sl__strides_ignored(const sl_case *c, const sl_call *vc, int slot) {
  const sl_tensor *t = &vc->arg[slot];
  int64_t numel = 1;
  for (int d = 0; d < t->ndim; ++d) numel *= t->shape[d];
  if (!t->data || numel < 2 || t->device != SL_DEVICE_CPU ||
      sl_tensor_is_contiguous(t))
    return 0;
  const int64_t span = sl__last_offset(t);
  for (int d = -1; d < t->ndim; ++d) {
    sl_call m = *vc;
    sl_tensor *u = &m.arg[slot];
    if (d < 0)
      sl_contiguous_strides(u->ndim, u->shape, u->strides);
    else if (t->ndim > 1 && t->shape[d] > 1 && t->strides[d] > 1)
      u->strides[d] = 1;
    else
      continue;
    if (sl__last_offset(u) <= span && sl__outputs_answer_call(c, vc, &m))
      return 1;
  }
  return 0;
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

/* The value a reduce of r starts from in dtype dt, its identity: what an
 * output holds where its contributions were lost or never combined. 0 with
 * *none when r has none, or the call gives a value of its own. */
static double sl__start_value(const sl_call *vc, sl_dtype dt, int *none) {
  const int fl = sl_dtype_is_float(dt);
  const int bits = 8 * (int)sl_dtype_size(dt);
  const double top = dt == SL_U8 ? 255.0 : ldexp(1.0, bits - 1) - 1;
  const double bottom = dt == SL_U8 ? 0.0 : -ldexp(1.0, bits - 1);
  /* A value parameter (segment_reduce's `initial`, scatter's scalar) may
   * be the start or no start at all: no relation is claimed from it. */
  *none = vc->p.has_value;
  if (*none) return 0;
  switch (vc->p.reduce) {
  case SL_REDUCE_AMIN:
    return fl ? INFINITY : top;
  case SL_REDUCE_AMAX:
    return fl ? -INFINITY : bottom;
  case SL_REDUCE_PROD:
    return 1;
  case SL_REDUCE_SUM:
  case SL_REDUCE_MEAN:
    return 0;
  default:
    *none = 1;
    return 0;
  }
}

/* Whether a wrong element (got's g at gp, want's e at ep, of dtype dt)
 * is what a relation says it is: the value v. */
typedef int (*sl__fits_fn)(sl_dtype dt, const void *gp, const void *ep,
                           double g, double v);

static int sl__is_value(sl_dtype dt, const void *gp, const void *ep, double g,
                        double v) {
  (void)dt, (void)gp, (void)ep;
  return g == v;
}

/* A float's neighbour: the same sign, the bits one apart (a rounding that
 * went the other way). */
static int sl__one_ulp(sl_dtype dt, const void *gp, const void *ep, double g,
                       double v) {
  (void)v;
  const size_t es = sl_dtype_size(dt);
  if (!sl_dtype_is_float(dt) || isnan(g) || es > 8) return 0;
  uint64_t a = 0, b = 0;
  memcpy(&a, gp, es), memcpy(&b, ep, es);
  const uint64_t sign = 1ull << (8 * es - 1);
  return !((a ^ b) & sign) && (a - b == 1 || b - a == 1);
}

/* A NaN lost: a number where LibTorch has NaN (a NaN rule of a shared
 * reduce, whatever the op and the shape around it). */
static int sl__nan_lost(sl_dtype dt, const void *gp, const void *ep, double g,
                        double v) {
  (void)gp, (void)v;
  return isnan(sl_elem_get_f(dt, ep)) && !isnan(g);
}

/* How many elements of got differ from want, each fitting (with v, or
 * aux's element where aux is given); -1 when one does not fit. got: any
 * strides; want and aux: LibTorch's, contiguous, the same shape and
 * dtype. */
static int64_t sl__wrong_fit(const sl_tensor *got, const sl_tensor *want,
                             const sl_tensor *aux, sl__fits_fn fits, double v) {
  if (!got->data || !want->data) return -1;
  const size_t es = sl_dtype_size(got->dtype);
  int64_t n = 1, idx[SL_MAX_DIMS] = {0}, wrong = 0;
  for (int d = 0; d < got->ndim; ++d) n *= got->shape[d];
  for (int64_t i = 0; i < n; ++i) {
    int64_t off = 0;
    for (int d = 0; d < got->ndim; ++d) off += idx[d] * got->strides[d];
    const char *gp = (const char *)got->data + off * (int64_t)es;
    const char *ep = (const char *)want->data + i * (int64_t)es;
    const double g = sl_elem_get_f(got->dtype, gp);
    const double e = sl_elem_get_f(want->dtype, ep);
    if (g != e && !(isnan(g) && isnan(e))) {
      const double a = aux ? sl_elem_get_f(aux->dtype, (const char *)aux->data +
                                                           i * (int64_t)es)
                           : v;
      if (got->dtype == SL_BOOL || !fits(got->dtype, gp, ep, g, a)) return -1;
      ++wrong;
    }
    for (int d = got->ndim - 1; d >= 0 && ++idx[d] == got->shape[d]; --d)
      idx[d] = 0;
  }
  return wrong;
}

/* The value an output of dtype dt holds where vc's writes were skipped:
 * the poison it started as (variant_call.h); *none when it tells nothing. */
static double sl__unwritten_value(const sl_call *vc, sl_dtype dt, int *none) {
  (void)vc;
  return sl_poison_value(dt, none);
}

/* Zero: what a reduce that started from a wrong identity (an integer prod
 * from 0) or a buffer cleared and never filled leaves. */
static double sl__zero_value(const sl_call *vc, sl_dtype dt, int *none) {
  (void)vc, (void)dt;
  *none = 0;
  return 0;
}

/* No value: the fits test alone tells (sl__one_ulp). */
static double sl__no_value(const sl_call *vc, sl_dtype dt, int *none) {
  (void)vc, (void)dt;
  *none = 0;
  return 0;
}

/* Whether the wrong elements of every output of vc fit, with the value
 * value(vc, dtype), or with LibTorch's answer to vc under the reduce
 * `aux_reduce` (SL_REDUCE_NONE: none) element by element: LibTorch's
 * answer to vc itself tells which are wrong. */
static int sl__outputs_hold(const sl_call *vc,
                            double (*value)(const sl_call *, sl_dtype, int *),
                            sl__fits_fn fits, sl_reduce aux_reduce) {
  const sl_op_info *info = sl_op_get(vc->op);
  int none;
  sl_tensor want[SL_MAX_ARGS], aux[SL_MAX_ARGS];
  memset(want, 0, sizeof want), memset(aux, 0, sizeof aux);
  char err[256];
  sl_call m = *vc;
  m.p.reduce = aux_reduce;
  /* Outputs all right (dynamic_scatter's coordinates beside its wrong
   * features) neither break nor make the relation. */
  int64_t wrong = -1;
  if (slref_run(vc, want, err, sizeof err) == SLREF_OK &&
      (aux_reduce == SL_REDUCE_NONE ||
       slref_run(&m, aux, err, sizeof err) == SLREF_OK)) {
    wrong = 0;
    for (int s = 0; wrong >= 0 && s < info->n_out; ++s) {
      const sl_tensor *got = &vc->arg[info->n_in + s];
      const sl_tensor *a = aux_reduce == SL_REDUCE_NONE ? NULL : &aux[s];
      const double v = value(vc, got->dtype, &none);
      const int64_t k =
          got->dtype == want[s].dtype && (!a || a->dtype == got->dtype)
              ? sl__wrong_fit(got, &want[s], a, fits, v)
              : -1;
      wrong = k < 0 || (k > 0 && none) ? -1 : wrong + k;
    }
  }
  for (int s = 0; s < SL_MAX_ARGS; ++s) free(want[s].data), free(aux[s].data);
  return wrong > 0;
}

/* A mean over a wrong count: the wrong element g times a whole number n
 * is the sum S of its contributions (LibTorch's sum, the aux value),
 * where the right mean e takes another number (S / e). Within the
 * dtype's rounding of g (a few units of its last place). */
static int sl__count_off(sl_dtype dt, const void *gp, const void *ep, double g,
                         double sum) {
  (void)gp;
  const double e = sl_elem_get_f(dt, ep);
  if (g == 0 || e == 0 || !isfinite(g) || !isfinite(sum) || !isfinite(e))
    return 0;
  const int bits = dt == SL_F16    ? 11
                   : dt == SL_BF16 ? 8
                   : dt == SL_F32  ? 24
                                   : 53;
  const double n = sum / g, right = sum / e, tol = ldexp(4.0, -bits);
  const double whole = nearbyint(n);
  return whole >= 1 && fabs(n - whole) <= tol * whole &&
         whole != nearbyint(right);
}

/* Whether vc's outputs are its answer with include_self flipped: a start
 * value ignored, or (include_self=0) the output's value taken in. A mean
 * that takes it in but still divides by its contributions alone answers
 * as the sum with include_self=1 where each output has one contribution,
 * as a minimal case's do: the same defect. */
static int sl__self_taken_in(const sl_case *c, const sl_call *vc) {
  if (sl__outputs_answer(c, vc, vc->p.reduce, !vc->p.include_self)) return 1;
  return vc->p.reduce == SL_REDUCE_MEAN && !vc->p.include_self &&
         sl__other_reduce(c, vc, SL_REDUCE_SUM) &&
         sl__outputs_answer(c, vc, SL_REDUCE_SUM, 1);
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
  /* Outputs that are LibTorch's own answer failed another check (an
   * adjoint identity, a rerun): their values say nothing of the defect. */
  if (!info || sl__outputs_answer(c, vc, vc->p.reduce, vc->p.include_self))
    return;
  /* The dual reduce first, then include_self flipped (a start value
   * ignored), a NaN lost (every wrong element a number where LibTorch has
   * NaN: a NaN rule; before the writes lost, which a one-element output
   * whose NaN was dropped also shows, and before the start value, which a
   * reduce of NaNs alone that drops them also leaves), the writes lost,
   * writes skipped (the wrong elements still hold the poison),
   * contributions never combined (the start value), zero (a wrong
   * identity, a cleared buffer; after the start value, which is zero for a
   * sum), a mean over a wrong count (every wrong element the sum of its
   * contributions over another whole number), a rounding the other way
   * (every wrong element one ulp off: a shared
   * conversion), and the other reduces last: each is the answer of one named
   * other call or state, in the order of how often such a bug is met. */
  const sl_reduce dual = sl__dual(vc->p.reduce);
  if (info->reduces && sl__other_reduce(c, vc, dual) &&
      sl__outputs_answer(c, vc, dual, vc->p.include_self)) {
    snprintf(out, len, "= reduce=%s", sl_reduce_name(dual));
    return;
  }
  if (info->takes_include_self && sl__self_taken_in(c, vc)) {
    snprintf(out, len, "= include_self=%d", !vc->p.include_self);
    return;
  }
  if (sl_dtype_is_float(c->dt) &&
      sl__outputs_hold(vc, sl__no_value, sl__nan_lost, SL_REDUCE_NONE)) {
    snprintf(out, len, "= a NaN lost where wrong");
    return;
  }
  if (sl__outputs_are_x(vc)) {
    snprintf(out, len, "= x");
    return;
  }
  if (sl__outputs_hold(vc, sl__unwritten_value, sl__is_value, SL_REDUCE_NONE)) {
    snprintf(out, len, SL_RELATION_NEVER_WRITTEN);
    return;
  }
  for (int slot = 0; slot < info->n_in; ++slot)
    if (sl__strides_ignored(c, vc, slot)) {
      snprintf(out, len, "= %s%s", info->arg_names[slot],
               SL_RELATION_STRIDES_IGNORED);
      return;
    }
  if (info->reduces &&
      sl__outputs_hold(vc, sl__start_value, sl__is_value, SL_REDUCE_NONE)) {
    snprintf(out, len, "= the start value where wrong");
    return;
  }
  if (sl__outputs_hold(vc, sl__zero_value, sl__is_value, SL_REDUCE_NONE)) {
    snprintf(out, len, "= zero where wrong");
    return;
  }
  if (vc->p.reduce == SL_REDUCE_MEAN && sl_dtype_is_float(c->dt) &&
      sl__other_reduce(c, vc, SL_REDUCE_SUM) &&
      sl__outputs_hold(vc, sl__no_value, sl__count_off, SL_REDUCE_SUM)) {
    snprintf(out, len, "= the sum over a wrong count");
    return;
  }
  if (sl__outputs_hold(vc, sl__no_value, sl__one_ulp, SL_REDUCE_NONE)) {
    snprintf(out, len, "= one ulp off where wrong");
    return;
  }
  for (int r = 0; info->reduces && r < SL_REDUCE_COUNT; ++r)
    if (r != (int)dual && sl__other_reduce(c, vc, (sl_reduce)r) &&
        sl__outputs_answer(c, vc, (sl_reduce)r, vc->p.include_self)) {
      snprintf(out, len, "= reduce=%s", sl_reduce_name((sl_reduce)r));
      return;
    }
}
