/*
 * Which oracle judges each output of each op (docs/spec.md §5): one
 * function per op, in a table built from the core's list of ops
 * (SL_OP_MAP), so that an op added there without its oracle here does not
 * compile (a switch with a default once gave a forgotten op the exact
 * oracle without a word).
 *
 * bitwise   the op moves bytes (copies): the reference's bits;
 * any_valid duplicate targets may keep any writer's value;
 * exact     the value is determined (integers, amax/amin, one writer);
 * tolerance the summation order may change the rounding of float sums,
 *           products and means (a bound derived from the contributions).
 */
#include "compare.h"

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

typedef sl_oracle (*sl__oracle_fn)(const sl_case *c, int slot);

static const sl__oracle_fn sl__oracles[SL_OP_COUNT] = {
#define SL__ORACLE_ROW(e, name) [SL_OP_##e] = sl__oracle_##name,
    SL_OP_MAP(SL__ORACLE_ROW)
#undef SL__ORACLE_ROW
};

sl_oracle sl_oracle_for(const sl_case *c, int slot) {
  /* Every op has a row (the table is built from the op list); an op value
   * outside it is a case the parser would have refused. */
  if ((unsigned)c->op >= SL_OP_COUNT) return SL_ORACLE_EXACT;
  return sl__oracles[c->op](c, slot);
}
