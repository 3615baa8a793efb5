/*
 * What the harness knows of each op (sl_harness_op, op_facts.h): one row per
 * op, in a table built from the core's list of ops (SL_OP_MAP), so that an
 * op added there without its row here does not compile (a switch with a
 * default once gave a forgotten op the exact oracle without a word). The
 * only place in harness/ that tells ops apart by name.
 *
 * Oracles (docs/spec.md §5):
 * bitwise   the op moves bytes (copies): the reference's bits;
 * any_valid duplicate targets may keep any writer's value;
 * exact     the value is determined (integers, amax/amin, one writer);
 * tolerance the summation order may change the rounding of float sums,
 *           products and means (a bound derived from the contributions).
 */
#include "op_facts.h"

#include <string.h>

#include "adjoint.h"
#include "writes.h"

/* A reduction whose float result depends on the order of its inputs. */
static int sl__arith(sl_reduce r) {
  return r == SL_REDUCE_SUM || r == SL_REDUCE_PROD || r == SL_REDUCE_MEAN;
}

static sl_oracle sl__order_sensitive(const sl_case *c) {
  return sl_dtype_is_float(c->dt) && sl__arith(c->reduce) ? SL_ORACLE_TOLERANCE
                                                          : SL_ORACLE_EXACT;
}

static sl_oracle sl__oracle_gather(const sl_case *c, int slot) {
  (void)c, (void)slot;
  return SL_ORACLE_BITWISE;
}

static sl_oracle sl__oracle_gather_nd(const sl_case *c, int slot) {
  (void)c, (void)slot;
  return SL_ORACLE_BITWISE;
}

static sl_oracle sl__oracle_select_scatter(const sl_case *c, int slot) {
  (void)c, (void)slot;
  return SL_ORACLE_BITWISE;
}

static sl_oracle sl__oracle_masked_scatter(const sl_case *c, int slot) {
  (void)c, (void)slot;
  return SL_ORACLE_BITWISE;
}

static sl_oracle sl__oracle_scatter(const sl_case *c, int slot) {
  (void)c, (void)slot;
  return SL_ORACLE_ANY_VALID;
}

static sl_oracle sl__oracle_scatter_nd(const sl_case *c, int slot) {
  (void)slot;
  if (c->reduce == SL_REDUCE_NONE) return SL_ORACLE_ANY_VALID;
  return sl_dtype_is_float(c->dt) ? SL_ORACLE_TOLERANCE : SL_ORACLE_EXACT;
}

static sl_oracle sl__oracle_scatter_reduce(const sl_case *c, int slot) {
  (void)slot;
  return sl__order_sensitive(c);
}

static sl_oracle sl__oracle_index_reduce(const sl_case *c, int slot) {
  (void)slot;
  if (c->reduce == SL_REDUCE_ASSIGN) return SL_ORACLE_ANY_VALID;
  return sl__order_sensitive(c);
}

/* The backward ops' gradients of float inputs are sums and products. */
static sl_oracle sl__oracle_scatter_reduce_backward(const sl_case *c,
                                                    int slot) {
  (void)slot;
  return sl_dtype_is_float(c->dt) ? SL_ORACLE_TOLERANCE : SL_ORACLE_EXACT;
}

static sl_oracle sl__oracle_index_reduce_backward(const sl_case *c, int slot) {
  return sl__oracle_scatter_reduce_backward(c, slot);
}

/* voxel_feats (slot 2) of sum/mean may differ in summation order. */
static sl_oracle sl__oracle_dynamic_scatter(const sl_case *c, int slot) {
  return slot == 2 && c->reduce != SL_REDUCE_MAX ? SL_ORACLE_TOLERANCE
                                                 : SL_ORACLE_EXACT;
}

static sl_oracle sl__oracle_dynamic_scatter_backward(const sl_case *c,
                                                     int slot) {
  (void)slot;
  return c->reduce == SL_REDUCE_MEAN ? SL_ORACLE_TOLERANCE : SL_ORACLE_EXACT;
}

/* segment_reduce: amax/amin pick a value; sums, means and products round
 * in the order of their terms. */
static sl_oracle sl__oracle_segment_reduce(const sl_case *c, int slot) {
  (void)slot;
  return sl__order_sensitive(c);
}

/* Its backward: sum copies the gradient, mean and amax/amin divide it once
 * (by the length, by the ties' count); prod multiplies the other terms. */
static sl_oracle sl__oracle_segment_reduce_backward(const sl_case *c,
                                                    int slot) {
  (void)slot;
  return c->reduce == SL_REDUCE_PROD ? SL_ORACLE_TOLERANCE : SL_ORACLE_EXACT;
}

/* ------------------------------------------------------------------------ */
/* Inputs read: the backward of a linear reduce (sum, mean, assign) needs    */
/* only the gradient and the index (the map and counts), not x, src or the   */
/* forward result.                                                           */
/* ------------------------------------------------------------------------ */

static int sl__linear(sl_reduce r) {
  return r == SL_REDUCE_SUM || r == SL_REDUCE_MEAN || r == SL_REDUCE_ASSIGN;
}

/* grad_out x index src|updates result */
static int sl__reads_reduce_backward(const sl_call *c, int slot) {
  return !sl__linear(c->p.reduce) || slot == 0 || slot == 2;
}

/* grad feats voxel_feats map counts: grad, map (+ counts for mean) */
static int sl__reads_dynamic_backward(const sl_call *c, int slot) {
  const sl_reduce r = c->p.reduce;
  return r == SL_REDUCE_MAX || slot == 0 || slot == 3 ||
         (slot == 4 && r == SL_REDUCE_MEAN);
}

/* grad_out data lengths result: sum and mean need the gradient and the
 * lengths only. */
static int sl__reads_segment_backward(const sl_call *c, int slot) {
  const sl_reduce r = c->p.reduce;
  return (r != SL_REDUCE_SUM && r != SL_REDUCE_MEAN) || slot == 0 || slot == 2;
}

/* ------------------------------------------------------------------------ */
/* Order-free results (rerun.h): the axes whose reversal cannot change the   */
/* result.                                                                   */
/* ------------------------------------------------------------------------ */

/* amax/amin, or integers: no rounding, so no order. */
static int sl__orderless(const sl_call *c) {
  const sl_reduce r = c->p.reduce;
  return r == SL_REDUCE_AMAX || r == SL_REDUCE_AMIN ||
         (!sl_dtype_is_float(c->arg[0].dtype) &&
          !sl_dtype_is_complex(c->arg[0].dtype));
}

static int sl__reversal_scatter_reduce(const sl_call *c, sl_reversal *v) {
  const sl_tensor *index = &c->arg[1];
  if (!sl__orderless(c) || index->ndim == 0) return 0;
  const int64_t d = c->p.dim < 0 ? c->p.dim + index->ndim : c->p.dim;
  v->imask = v->umask = 1u << d;
  v->uslot = 2, v->cut = 1;
  return 1;
}

static int sl__reversal_index_reduce(const sl_call *c, sl_reversal *v) {
  const sl_tensor *index = &c->arg[1], *u = &c->arg[2];
  if (c->p.reduce == SL_REDUCE_ASSIGN || !sl__orderless(c) || index->ndim == 0)
    return 0;
  const int64_t a = c->p.dim < 0 ? c->p.dim + u->ndim : c->p.dim;
  v->imask = 1u, v->umask = 1u << a;
  v->uslot = 2;
  return 1;
}

/* A position's coordinates on the axes that dims does not name are its
 * target's there: only the named axes (of index's leading ones, which src
 * shares) may be reversed. */
static int sl__reversal_scatter_nd(const sl_call *c, sl_reversal *v) {
  const sl_tensor *index = &c->arg[1];
  const int integer = !sl_dtype_is_float(c->arg[0].dtype) &&
                      !sl_dtype_is_complex(c->arg[0].dtype);
  if (c->p.reduce != SL_REDUCE_SUM || !integer || index->ndim < 2) return 0;
  const int K = index->ndim - 1;
  const int64_t M = index->shape[K];
  unsigned mask = 0;
  for (int64_t k = 0; k < M && k < K; ++k) {
    int64_t a = c->p.ndims ? c->p.dims[k] : k;
    if (a < 0) a += K;
    if (a >= 0 && a < K) mask |= 1u << a;
  }
  v->imask = v->umask = mask;
  v->uslot = 2;
  return mask != 0;
}

/* The true positions of masked_scatter's mask broadcast to x's shape: the
 * source elements the op reads. -1 when the mask is not a 1-byte tensor
 * aligned to x's trailing axes (then all of source counts). */
static int64_t sl__mask_true_count(const sl_tensor *x, const sl_tensor *mask) {
  const int nd = x->ndim, lead = x->ndim - mask->ndim;
  if (lead < 0 || sl_dtype_size(mask->dtype) != 1 || !mask->data) return -1;
  int64_t st[SL_MAX_DIMS], idx[SL_MAX_DIMS] = {0}, n = 1, off = 0, count = 0;
  for (int d = 0; d < nd; ++d) {
    const int m = d - lead;
    st[d] = m >= 0 && mask->shape[m] != 1 ? mask->strides[m] : 0;
    n *= x->shape[d];
  }
  const unsigned char *bits = mask->data;
  for (int64_t i = 0; i < n; ++i) {
    count += bits[off] != 0;
    for (int d = nd - 1; d >= 0; --d) { /* odometer: next position */
      off += st[d];
      if (++idx[d] < x->shape[d]) break;
      off -= idx[d] * st[d];
      idx[d] = 0;
    }
  }
  return count;
}

static int64_t sl__read_elems_masked(const sl_call *c, int slot) {
  return slot == 2 ? sl__mask_true_count(&c->arg[0], &c->arg[1]) : -1;
}

/* ------------------------------------------------------------------------ */
/* The table                                                                 */
/* ------------------------------------------------------------------------ */

static const sl_harness_op sl__harness_gather = {0};
static const sl_harness_op sl__harness_gather_nd = {0};
static const sl_harness_op sl__harness_scatter = {.writes_into_x = 1,
                                                  .writes = sl_writes_scatter};
static const sl_harness_op sl__harness_scatter_reduce = {
    .reversal = sl__reversal_scatter_reduce,
    .writes_into_x = 1,
    .writes = sl_writes_scatter,
    .adjoint = sl_adjoint_scatter};
static const sl_harness_op sl__harness_scatter_reduce_backward = {
    .reads_input = sl__reads_reduce_backward,
    .backward_inputs = sl_backward_inputs_autograd,
    .adjoint = sl_adjoint_backward};
static const sl_harness_op sl__harness_scatter_nd = {
    .reversal = sl__reversal_scatter_nd,
    .writes_into_x = 1,
    .out_layout = SL_OUT_X_ORDER,
    .writes = sl_writes_nd,
    .adjoint = sl_adjoint_scatter};
static const sl_harness_op sl__harness_index_reduce = {
    .reversal = sl__reversal_index_reduce,
    .writes_into_x = 1,
    .writes = sl_writes_index,
    .adjoint = sl_adjoint_scatter};
static const sl_harness_op sl__harness_index_reduce_backward = {
    .reads_input = sl__reads_reduce_backward,
    .backward_inputs = sl_backward_inputs_autograd,
    .adjoint = sl_adjoint_backward};
static const sl_harness_op sl__harness_select_scatter = {
    .writes_into_x = 1, .out_layout = SL_OUT_DENSE_X};
static const sl_harness_op sl__harness_masked_scatter = {
    .writes_into_x = 1, .read_elems = sl__read_elems_masked};
/* voxel_feats, voxel_coors and voxel_points_count have out_rows rows */
static const sl_harness_op sl__harness_dynamic_scatter = {
    .out_rows_slots = 1u << 2 | 1u << 3 | 1u << 5, .writes = sl_writes_dynamic};
static const sl_harness_op sl__harness_dynamic_scatter_backward = {
    .reads_input = sl__reads_dynamic_backward,
    .backward_inputs = sl_backward_inputs_voxels,
    .adjoint = sl_adjoint_dynamic_backward};
static const sl_harness_op sl__harness_segment_reduce = {.writes =
                                                             sl_writes_segment};
static const sl_harness_op sl__harness_segment_reduce_backward = {
    .reads_input = sl__reads_segment_backward,
    .backward_inputs = sl_backward_inputs_autograd,
    .adjoint = sl_adjoint_segment_backward};

static const sl_harness_op *const sl__harness_ops[SL_OP_COUNT] = {
#define SL__HARNESS_ROW(e, name) [SL_OP_##e] = &sl__harness_##name,
    SL_OP_MAP(SL__HARNESS_ROW)
#undef SL__HARNESS_ROW
};

const sl_harness_op *sl_harness_op_of(sl_op op) {
  return (unsigned)op < SL_OP_COUNT ? sl__harness_ops[op] : NULL;
}

int sl_writes_build(const sl_call *call, sl_writes *out) {
  memset(out, 0, sizeof *out);
  const sl_harness_op *h = call ? sl_harness_op_of(call->op) : NULL;
  return h && h->writes ? h->writes(call, out) : -1;
}

static sl_oracle (*const sl__oracles[SL_OP_COUNT])(const sl_case *, int) = {
#define SL__ORACLE_ROW(e, name) [SL_OP_##e] = sl__oracle_##name,
    SL_OP_MAP(SL__ORACLE_ROW)
#undef SL__ORACLE_ROW
};

sl_oracle sl_oracle_for(const sl_case *c, int slot) {
  /* An op value outside the list is a case the parser would have
   * refused. */
  return (unsigned)c->op < SL_OP_COUNT ? sl__oracles[c->op](c, slot)
                                       : SL_ORACLE_EXACT;
}
