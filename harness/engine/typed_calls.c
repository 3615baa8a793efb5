/* The typed entry points, called from a call (see typed_calls.h). */
#include "typed_calls.h"

#include <stdio.h>
#include <string.h>

#include "oracles.h"
#include "rerun.h"
#include "variant_call.h"

/* Each op's call as its typed entry point's arguments, in the op's slot
 * order (sl.h's catalogue). */
typedef sl_status (*sl__typed_fn)(sl_ctx *ctx, const char *v, sl_call *c);

static sl_status sl__typed_gather(sl_ctx *ctx, const char *v, sl_call *c) {
  return sl_gather(ctx, v, &c->arg[0], c->p.dim, &c->arg[1], &c->arg[2]);
}

static sl_status sl__typed_gather_nd(sl_ctx *ctx, const char *v, sl_call *c) {
  return sl_gather_nd(ctx, v, &c->arg[0], &c->arg[1], c->p.ndims, c->p.dims,
                      &c->arg[2]);
}

static sl_status sl__typed_scatter(sl_ctx *ctx, const char *v, sl_call *c) {
  if (c->p.has_value)
    return sl_scatter_value(ctx, v, &c->arg[0], c->p.dim, &c->arg[1],
                            c->p.value, &c->arg[3]);
  return sl_scatter(ctx, v, &c->arg[0], c->p.dim, &c->arg[1], &c->arg[2],
                    &c->arg[3]);
}

static sl_status sl__typed_scatter_reduce(sl_ctx *ctx, const char *v,
                                          sl_call *c) {
  return sl_scatter_reduce(ctx, v, &c->arg[0], c->p.dim, &c->arg[1], &c->arg[2],
                           c->p.reduce, c->p.include_self, &c->arg[3]);
}

static sl_status sl__typed_scatter_reduce_backward(sl_ctx *ctx, const char *v,
                                                   sl_call *c) {
  return sl_scatter_reduce_backward(
      ctx, v, &c->arg[0], &c->arg[1], c->p.dim, &c->arg[2], &c->arg[3],
      &c->arg[4], c->p.reduce, c->p.include_self, &c->arg[5], &c->arg[6]);
}

static sl_status sl__typed_scatter_nd(sl_ctx *ctx, const char *v, sl_call *c) {
  return sl_scatter_nd(ctx, v, &c->arg[0], &c->arg[1], &c->arg[2], c->p.ndims,
                       c->p.dims, c->p.reduce, &c->arg[3]);
}

static sl_status sl__typed_index_reduce(sl_ctx *ctx, const char *v,
                                        sl_call *c) {
  return sl_index_reduce(ctx, v, &c->arg[0], c->p.dim, &c->arg[1], &c->arg[2],
                         c->p.reduce, c->p.include_self, &c->arg[3]);
}

static sl_status sl__typed_index_reduce_backward(sl_ctx *ctx, const char *v,
                                                 sl_call *c) {
  return sl_index_reduce_backward(
      ctx, v, &c->arg[0], &c->arg[1], c->p.dim, &c->arg[2], &c->arg[3],
      &c->arg[4], c->p.reduce, c->p.include_self, &c->arg[5], &c->arg[6]);
}

static sl_status sl__typed_select_scatter(sl_ctx *ctx, const char *v,
                                          sl_call *c) {
  return sl_select_scatter(ctx, v, &c->arg[0], &c->arg[1], c->p.dim, c->p.index,
                           &c->arg[2]);
}

static sl_status sl__typed_masked_scatter(sl_ctx *ctx, const char *v,
                                          sl_call *c) {
  return sl_masked_scatter(ctx, v, &c->arg[0], &c->arg[1], &c->arg[2],
                           &c->arg[3]);
}

static sl_status sl__typed_dynamic_scatter(sl_ctx *ctx, const char *v,
                                           sl_call *c) {
  int64_t voxels = -1;
  sl_status st = sl_dynamic_scatter(ctx, v, &c->arg[0], &c->arg[1], c->p.reduce,
                                    &c->arg[2], &c->arg[3], &c->arg[4],
                                    &c->arg[5], &voxels);
  if (st == SL_STATUS_OK) c->out_rows = voxels;
  return st;
}

static sl_status sl__typed_dynamic_scatter_backward(sl_ctx *ctx, const char *v,
                                                    sl_call *c) {
  return sl_dynamic_scatter_backward(ctx, v, &c->arg[0], &c->arg[1], &c->arg[2],
                                     &c->arg[3], &c->arg[4], c->p.reduce,
                                     &c->arg[5]);
}

static sl_status sl__typed_segment_reduce(sl_ctx *ctx, const char *v,
                                          sl_call *c) {
  return sl_segment_reduce(ctx, v, &c->arg[0], c->p.dim, &c->arg[1],
                           c->segment.offsets, c->p.reduce, c->p.has_value,
                           c->p.value, &c->arg[2]);
}

static sl_status sl__typed_segment_reduce_backward(sl_ctx *ctx, const char *v,
                                                   sl_call *c) {
  return sl_segment_reduce_backward(
      ctx, v, &c->arg[0], &c->arg[1], c->p.dim, &c->arg[2], c->segment.offsets,
      &c->arg[3], c->p.reduce, c->p.has_value, c->p.value, &c->arg[4]);
}

/* One function per op of the core's list: an op without one does not
 * build. */
static const sl__typed_fn sl__typed[SL_OP_COUNT] = {
#define SL__TYPED_ROW(e, name) [SL_OP_##e] = sl__typed_##name,
    SL_OP_MAP(SL__TYPED_ROW)
#undef SL__TYPED_ROW
};

sl_status sl_typed_run(sl_ctx *ctx, const char *variant, sl_call *call) {
  if (!call)
    return sl_ctx_fail(ctx, SL_STATUS_NULL_POINTER,
                       "call: expected a call, got NULL");
  if ((unsigned)call->op >= SL_OP_COUNT)
    return sl_ctx_fail(ctx, SL_STATUS_UNKNOWN_OP,
                       "call->op: expected an op code in [0,%d), got %d",
                       SL_OP_COUNT, (int)call->op);
  return sl__typed[call->op](ctx, variant, call);
}

int sl_typed_expressible(const sl_call *call) {
  if (!call->p.has_value) return 1;
  const sl_dtype dt = call->arg[0].dtype;
  if (sl_dtype_is_float(dt) || sl_dtype_is_complex(dt)) return 1;
  /* what sl_scatter_value makes of the double */
  const double v = call->p.value;
  const int64_t iv = (v > -9.2e18 && v < 9.2e18) ? (int64_t)v : 0;
  return iv == call->p.ivalue;
}

int sl_typed_agrees(const sl_call *inferred, unsigned copies,
                    const sl_call *first, int *applied, char *msg, size_t len) {
  msg[0] = '\0';
  *applied = 0;
  if (!sl_typed_expressible(inferred)) return 1;
  sl_variant_call vc;
  char note[256];
  if (sl_variant_call_prepare(&vc, inferred, copies, note, sizeof note)) {
    snprintf(msg, len, "no memory for the typed entry point's outputs");
    return -1;
  }
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  ctx.threads = 1;
  const sl_op_info *info = sl_op_get(inferred->op);
  int rc = 1;
  sl_status st = sl_typed_run(&ctx, "cpu.serial", &vc.call);
  *applied = 1;
  if (st != SL_STATUS_OK) {
    snprintf(msg, len,
             "%s (the typed entry point) refused what cpu.serial took through "
             "sl_run_variant: %s: %.200s",
             info->name, sl_status_name(st), sl_ctx_message(&ctx));
    rc = st == SL_STATUS_OUT_OF_MEMORY ? -1 : 0;
  } else if (!sl_variant_call_guards_ok(&vc, note, sizeof note)) {
    snprintf(msg, len, "%s (the typed entry point): %s", info->name, note);
    rc = 0;
  } else {
    sl_outputs_as_produced(&vc.call);
    sl_diff d;
    const int s =
        sl_first_output_differing(&vc.call, first, NULL, SL_ORACLE_BITWISE, &d);
    if (s >= 0) {
      snprintf(msg, len,
               "%s through the typed entry point %s differs from cpu.serial "
               "through sl_run_variant (%lld elements; %s)",
               info->arg_names[s], info->name, (long long)d.mismatches, d.msg);
      rc = 0;
    }
  }
  sl_variant_call_free(&vc);
  return rc;
}
