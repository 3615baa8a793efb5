/* Typed entry points: each builds an sl_call and runs it. */
#include "sl_internal.h"

static sl_status sl__run_out(sl_ctx *ctx, const char *variant, sl_call *c,
                             sl_tensor *out, int out_slot) {
  if (!out)
    return sl_ctx_fail(ctx, SL_STATUS_NULL_POINTER,
                       "out: expected a tensor, got NULL");
  c->arg[out_slot] = *out;
  return sl_run(ctx, variant, c);
}

sl_status sl_gather(sl_ctx *ctx, const char *variant, const sl_tensor *x,
                    int64_t dim, const sl_tensor *index, sl_tensor *out) {
  sl_call c;
  sl_call_init(&c, SL_OP_GATHER);
  if (!x || !index)
    return sl_ctx_fail(ctx, SL_STATUS_NULL_POINTER,
                       "%s: expected a tensor, got NULL", x ? "index" : "x");
  c.arg[0] = *x;
  c.arg[1] = *index;
  c.p.dim = dim;
  return sl__run_out(ctx, variant, &c, out, 2);
}

static sl_status sl__scatter_common(sl_ctx *ctx, const char *variant,
                                    sl_call *c, const sl_tensor *x,
                                    int64_t dim, const sl_tensor *index,
                                    const sl_tensor *src, sl_tensor *out) {
  if (!x || !index || (!src && !c->p.has_value))
    return sl_ctx_fail(ctx, SL_STATUS_NULL_POINTER,
                       "%s: expected a tensor, got NULL",
                       !x ? "x" : !index ? "index" : "src");
  c->arg[0] = *x;
  c->arg[1] = *index;
  if (src) c->arg[2] = *src;
  c->p.dim = dim;
  return sl__run_out(ctx, variant, c, out, 3);
}

sl_status sl_scatter(sl_ctx *ctx, const char *variant, const sl_tensor *x,
                     int64_t dim, const sl_tensor *index, const sl_tensor *src,
                     sl_tensor *out) {
  sl_call c;
  sl_call_init(&c, SL_OP_SCATTER);
  return sl__scatter_common(ctx, variant, &c, x, dim, index, src, out);
}

sl_status sl_scatter_value(sl_ctx *ctx, const char *variant,
                           const sl_tensor *x, int64_t dim,
                           const sl_tensor *index, double value,
                           sl_tensor *out) {
  sl_call c;
  sl_call_init(&c, SL_OP_SCATTER);
  c.p.has_value = 1;
  c.p.value = value;
  /* NaN and values beyond int64 have no integer meaning: store 0. */
  c.p.ivalue = (value > -9.2e18 && value < 9.2e18) ? (int64_t)value : 0;
  return sl__scatter_common(ctx, variant, &c, x, dim, index, NULL, out);
}

sl_status sl_scatter_reduce(sl_ctx *ctx, const char *variant,
                            const sl_tensor *x, int64_t dim,
                            const sl_tensor *index, const sl_tensor *src,
                            sl_reduce reduce, int include_self,
                            sl_tensor *out) {
  sl_call c;
  sl_call_init(&c, SL_OP_SCATTER_REDUCE);
  c.p.reduce = reduce;
  c.p.include_self = include_self;
  return sl__scatter_common(ctx, variant, &c, x, dim, index, src, out);
}
