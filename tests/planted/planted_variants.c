/*
 * Planted bugs of a kernel author's own provider (libsl_planted.so,
 * provider "planted"; tests/perf/planted_bugs.py and tests only): the kind
 * of defect that lives at a size boundary or in a NaN / -0.0 rule, where a
 * triage that shrinks by halving stops above the boundary and a signature
 * keyed by shape makes one bug many. Each variant is right except for its
 * one bug, so every failure it causes is that bug.
 *
 *   scatter_reduce cpu.past_64     sum: with more than 64 updates, the last
 *                                  one is skipped (a fixed-size batch whose
 *                                  tail is forgotten); boundary: 65 updates
 *   scatter_reduce cpu.past_64_twin  the same kernel again (code two
 *                                  variants share: one defect, one group)
 *   scatter_reduce cpu.max_by_gt   amax as `src > acc ? src : acc`: a NaN
 *                                  met once the accumulator holds a number
 *                                  is dropped (LibTorch propagates it)
 *   gather cpu.rank_above_3        at rank 4 and above, the last element of
 *                                  out is never written
 *   gather cpu.negzero_lost        copies through `v + 0.0`, which turns
 *                                  -0.0 into +0.0 (a bitwise copy must not)
 *   scatter cpu.last_row_lost      with more than one index row, the last
 *                                  row along axis 0 is not scattered
 *   index_reduce cpu.past_32_rows  prod: an index longer than 32 loses
 *                                  its last entry
 *   scatter_reduce, index_reduce cpu.amin_as_amax
 *                                  one helper both ops call: amin answers
 *                                  as amax (one defect in two ops)
 *   scatter_reduce, index_reduce cpu.self_kept
 *                                  another helper both call: amin with
 *                                  include_self=0 still starts from x (a
 *                                  second defect, same reduce, same ops)
 */
#include <stdlib.h>
#include <string.h>

#include "../buggy/wrong_variants.h"

static void sl__add(const sl_call *c, int64_t out_off, int64_t src_off,
                    void *user) {
  (void)user;
  const sl_tensor *src = &c->arg[2], *out = &c->arg[3];
  void *o = sl__ptr(out, out_off);
  sl__store_f(out->dtype, o,
              sl__load_f(out->dtype, o) +
                  sl__load_f(src->dtype, sl__ptr(src, src_off)));
}

static sl_status sl_planted_past_64(sl_ctx *ctx, sl_call *c) {
  if (c->p.reduce != SL_REDUCE_SUM || !c->p.include_self ||
      !sl_dtype_is_float(c->arg[0].dtype))
    return sl_scatter_reduce_cpu_serial(ctx, c);
  sl__copy_strided(&c->arg[3], &c->arg[0], 1);
  sl_wrong_each_target(c, sl__numel(&c->arg[1]) > 64, sl__add, NULL);
  return SL_STATUS_OK;
}

static void sl__max_by_gt(const sl_call *c, int64_t out_off, int64_t src_off,
                          void *user) {
  (void)user;
  const sl_tensor *src = &c->arg[2], *out = &c->arg[3];
  void *o = sl__ptr(out, out_off);
  const double acc = sl__load_f(out->dtype, o);
  const double v = sl__load_f(src->dtype, sl__ptr(src, src_off));
  sl__store_f(out->dtype, o, v > acc ? v : acc);
}

static sl_status sl_planted_max_by_gt(sl_ctx *ctx, sl_call *c) {
  if (c->p.reduce != SL_REDUCE_AMAX || !c->p.include_self ||
      !sl_dtype_is_float(c->arg[0].dtype))
    return sl_scatter_reduce_cpu_serial(ctx, c);
  sl__copy_strided(&c->arg[3], &c->arg[0], 1);
  sl_wrong_each_target(c, 0, sl__max_by_gt, NULL);
  return SL_STATUS_OK;
}

static sl_status sl_planted_rank_above_3(sl_ctx *ctx, sl_call *c) {
  sl_tensor *out = &c->arg[2];
  const int64_t n = sl__numel(out);
  if (out->ndim < 4 || n == 0) return sl_gather_cpu_serial(ctx, c);
  /* out without its last element: the elements before it as a 1-D view
   * is not a gather any more, so write them all and put the poison back */
  const size_t es = sl_dtype_size(out->dtype);
  int64_t last[SL_MAX_DIMS];
  sl__unravel(n - 1, out->ndim, out->shape, last);
  char *p = sl__ptr(out, sl__offset(out, last));
  unsigned char keep[16];
  memcpy(keep, p, es);
  sl_status st = sl_gather_cpu_serial(ctx, c);
  memcpy(p, keep, es);
  return st;
}

static sl_status sl_planted_negzero_lost(sl_ctx *ctx, sl_call *c) {
  sl_status st = sl_gather_cpu_serial(ctx, c);
  sl_tensor *out = &c->arg[2];
  if (st || !sl_dtype_is_float(out->dtype)) return st;
  int64_t idx[SL_MAX_DIMS], n = sl__numel(out);
  for (int64_t i = 0; i < n; ++i) {
    sl__unravel(i, out->ndim, out->shape, idx);
    void *p = sl__ptr(out, sl__offset(out, idx));
    sl__store_f(out->dtype, p, sl__load_f(out->dtype, p) + 0.0);
  }
  return SL_STATUS_OK;
}

static sl_status sl_planted_last_row_lost(sl_ctx *ctx, sl_call *c) {
  sl_call shorter = *c;
  sl_tensor *index = &shorter.arg[1];
  if (index->ndim > 0 && index->shape[0] > 1) --index->shape[0];
  return sl_scatter_cpu_serial(ctx, &shorter);
}

static sl_status sl_planted_past_32_rows(sl_ctx *ctx, sl_call *c) {
  sl_call shorter = *c;
  sl_tensor *index = &shorter.arg[1], *src = &shorter.arg[2];
  if (c->p.reduce == SL_REDUCE_PROD && index->ndim == 1 &&
      index->shape[0] > 32) {
    --index->shape[0];
    --src->shape[c->p.dim];
  }
  return sl_index_reduce_cpu_serial(ctx, &shorter);
}

typedef sl_status (*sl__kernel)(sl_ctx *ctx, sl_call *c);

/* The helper of cpu.amin_as_amax: the op's kernel, amin swapped for amax. */
static sl_status sl__amin_as_amax(sl_ctx *ctx, sl_call *c, sl__kernel op) {
  sl_call swapped = *c;
  if (c->p.reduce == SL_REDUCE_AMIN) swapped.p.reduce = SL_REDUCE_AMAX;
  return op(ctx, &swapped);
}

/* The helper of cpu.self_kept: amin's include_self=0 read as 1. */
static sl_status sl__self_kept(sl_ctx *ctx, sl_call *c, sl__kernel op) {
  sl_call kept = *c;
  if (c->p.reduce == SL_REDUCE_AMIN) kept.p.include_self = 1;
  return op(ctx, &kept);
}

static sl_status sl_planted_amin_sr(sl_ctx *ctx, sl_call *c) {
  return sl__amin_as_amax(ctx, c, sl_scatter_reduce_cpu_serial);
}
static sl_status sl_planted_amin_ir(sl_ctx *ctx, sl_call *c) {
  return sl__amin_as_amax(ctx, c, sl_index_reduce_cpu_serial);
}
static sl_status sl_planted_self_sr(sl_ctx *ctx, sl_call *c) {
  return sl__self_kept(ctx, c, sl_scatter_reduce_cpu_serial);
}
static sl_status sl_planted_self_ir(sl_ctx *ctx, sl_call *c) {
  return sl__self_kept(ctx, c, sl_index_reduce_cpu_serial);
}

#define SL__PLANTED(op, name, fn) SL_WRONG_ROW(op, name, fn, 0)

static sl_provider_variant sl__rows[] = {
    SL__PLANTED(SL_OP_SCATTER_REDUCE, "cpu.past_64", sl_planted_past_64),
    /* the same kernel under a second name: one defect in code that two
     * variants share, which triage reports as one group */
    SL__PLANTED(SL_OP_SCATTER_REDUCE, "cpu.past_64_twin", sl_planted_past_64),
    SL__PLANTED(SL_OP_SCATTER_REDUCE, "cpu.max_by_gt", sl_planted_max_by_gt),
    SL__PLANTED(SL_OP_GATHER, "cpu.rank_above_3", sl_planted_rank_above_3),
    SL__PLANTED(SL_OP_GATHER, "cpu.negzero_lost", sl_planted_negzero_lost),
    SL__PLANTED(SL_OP_SCATTER, "cpu.last_row_lost", sl_planted_last_row_lost),
    SL__PLANTED(SL_OP_INDEX_REDUCE, "cpu.past_32_rows",
                sl_planted_past_32_rows),
    SL__PLANTED(SL_OP_SCATTER_REDUCE, "cpu.amin_as_amax", sl_planted_amin_sr),
    SL__PLANTED(SL_OP_INDEX_REDUCE, "cpu.amin_as_amax", sl_planted_amin_ir),
    SL__PLANTED(SL_OP_SCATTER_REDUCE, "cpu.self_kept", sl_planted_self_sr),
    SL__PLANTED(SL_OP_INDEX_REDUCE, "cpu.self_kept", sl_planted_self_ir),
};

static const sl_provider sl__planted = {SL_PROVIDER_ABI_VERSION,
                                        sizeof(sl_provider),
                                        "planted",
                                        "test",
                                        sizeof sl__rows / sizeof sl__rows[0],
                                        sl__rows,
                                        NULL,
                                        NULL};

SL_PROVIDER_ENTRY {
  /* the reducing ops declare their own reduces and include_self */
  sl_wrong_declare_reduces(sl__rows, sizeof sl__rows / sizeof sl__rows[0]);
  return &sl__planted;
}
