/* sl_infer / sl_run_variant: validation once, then the variant's kernel.
 * (The table and the look-up by name are in variants.c.) */
#include <stdio.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include <stdint.h>

#include "sl_internal.h"

static sl_status (*const sl__infer_fns[SL_OP_COUNT])(sl_ctx *, sl_call *,
                                                     sl__infer_mode) = {
#define SL__INFER_ROW(e, name) sl__##name##_infer,
    SL_OP_MAP(SL__INFER_ROW)
#undef SL__INFER_ROW
};

sl_device sl_variant_device(const sl_variant *v) {
  return (v->flags & SL_NEEDS_CUDA) ? SL_DEVICE_CUDA : SL_DEVICE_CPU;
}

int sl_variant_available(const sl_variant *v, const char **why) {
  const char *reason = NULL;
  if (!v)
    reason = "unknown variant";
  else if (!v->fn)
    reason = (v->flags & SL_NEEDS_CUDA) ? "built without CUDA" : "not built";
  else if ((v->flags & SL_NEEDS_CUDA) && sl_cuda_device_count() == 0)
    reason = "no device";
  if (why) *why = reason ? reason : "available";
  return reason == NULL;
}

int sl__threads(const sl_ctx *ctx) {
  if (ctx && ctx->threads > 0) return ctx->threads;
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

sl_status sl__infer_call(sl_ctx *ctx, sl_call *call, sl__infer_mode mode) {
  if (!call)
    return sl_ctx_fail(ctx, SL_STATUS_NULL_POINTER,
                       "call: expected an sl_call, got NULL");
  const sl_op_info *info = sl_op_get(call->op);
  if (!info)
    return sl_ctx_fail(ctx, SL_STATUS_UNKNOWN_OP,
                       "op: expected a code in [0,%d), got %d", SL_OP_COUNT,
                       (int)call->op);
  for (int s = 0; s < info->n_in; ++s) {
    if (call->op == SL_OP_SCATTER && s == 2 && call->p.has_value) continue;
    sl_status st = sl__check_input(ctx, call, s);
    if (st) return st;
  }
  return sl__infer_fns[call->op](ctx, call, mode);
}

sl_status sl_infer(sl_ctx *ctx, sl_call *call) {
  return sl__infer_call(ctx, call, SL__INFER_ALL);
}

sl_status sl_infer_shapes(sl_ctx *ctx, sl_call *call) {
  return sl__infer_call(ctx, call, SL__INFER_SHAPES);
}

/* Byte range [lo, hi) that a strided tensor can touch; empty when lo == hi. */
static void sl__extent(const sl_tensor *t, uintptr_t *lo, uintptr_t *hi) {
  int64_t last = 0;
  for (int d = 0; d < t->ndim; ++d) {
    if (t->shape[d] == 0) {
      *lo = *hi = 0;
      return;
    }
    last += (t->shape[d] - 1) * t->strides[d];
  }
  *lo = (uintptr_t)t->data;
  *hi = *lo + (uintptr_t)(last + 1) * sl_dtype_size(t->dtype);
}

static sl_status sl__check_outputs(sl_ctx *ctx, const sl_call *call,
                                   const sl_call *want) {
  const sl_op_info *info = sl_op_get(call->op);
  char a[160], b[160];
  for (int s = info->n_in; s < info->n_in + info->n_out; ++s) {
    const sl_tensor *o = &call->arg[s], *w = &want->arg[s];
    const char *name = info->arg_names[s];
    sl_status st = sl_tensor_check(ctx, name, o);
    if (st) return st;
    if (o->dtype != w->dtype)
      return sl_ctx_fail(ctx, SL_STATUS_UNSUPPORTED_DTYPE,
                         "%s: expected dtype %s, got %s", name,
                         sl_dtype_name(w->dtype), sl_dtype_name(o->dtype));
    int same = o->ndim == w->ndim;
    for (int d = 0; same && d < o->ndim; ++d) same = o->shape[d] == w->shape[d];
    if (!same)
      return sl_ctx_fail(ctx, SL_STATUS_SHAPE_MISMATCH,
                         "%s: expected shape %s, got %s", name,
                         sl_shape_str(w->ndim, w->shape, a, sizeof a),
                         sl_shape_str(o->ndim, o->shape, b, sizeof b));
    uintptr_t olo, ohi;
    sl__extent(o, &olo, &ohi);
    for (int t = 0; t < info->n_in + info->n_out && olo < ohi; ++t) {
      if (t == s || !call->arg[t].data) continue;
      uintptr_t lo, hi;
      sl__extent(&call->arg[t], &lo, &hi);
      if (lo < hi && olo < hi && lo < ohi)
        return sl_ctx_fail(ctx, SL_STATUS_INVALID_ARGUMENT,
                           "%s: expected memory disjoint from %s, got an "
                           "overlap",
                           name, info->arg_names[t]);
    }
  }
  return SL_STATUS_OK;
}

sl_status sl_run_variant(sl_ctx *ctx, const sl_variant *v, sl_call *call) {
  if (!call)
    return sl_ctx_fail(ctx, SL_STATUS_NULL_POINTER,
                       "call: expected an sl_call, got NULL");
  if (!v || !v->name)
    return sl_ctx_fail(ctx, SL_STATUS_NULL_POINTER,
                       "variant: expected a row of a variant table, got NULL");
  if (v->op != call->op)
    return sl_ctx_fail(ctx, SL_STATUS_UNKNOWN_VARIANT,
                       "variant %s: expected a variant of %s, got one of %s",
                       v->name, sl_op_name(call->op), sl_op_name(v->op));
  const char *variant = v->name;
  const char *why;
  if (!sl_variant_available(v, &why))
    return sl_ctx_fail(ctx, v->fn ? SL_STATUS_NO_DEVICE : SL_STATUS_NOT_BUILT,
                       "variant %s of %s: unavailable (%s)", variant,
                       sl_op_name(call->op), why);
  sl_call want = *call;
  /* A variant that checks the index values itself is spared the pass. */
  sl_status st = sl__infer_call(
      ctx, &want,
      (v->flags & SL_CHECKS_INDEX_VALUES) ? SL__INFER_SHAPES : SL__INFER_ALL);
  if (st) return st;
  const sl_op_info *info = sl_op_get(call->op);
  sl_device dev = sl_variant_device(v);
  for (int s = 0; s < info->n_in + info->n_out; ++s) {
    if (call->arg[s].device != dev && call->arg[s].data)
      return sl_ctx_fail(
          ctx, SL_STATUS_WRONG_DEVICE,
          "%s: expected a tensor on %s for variant %s, got %s",
          info->arg_names[s], dev == SL_DEVICE_CUDA ? "cuda" : "cpu", variant,
          call->arg[s].device == SL_DEVICE_CUDA ? "cuda" : "cpu");
    /* CUDA kernels move elements as whole words (16 bytes for c128, so
     * that duplicate writes cannot tear): the device misaligned-address
     * fault is a sticky error, so the address is checked here. */
    const size_t align = sl_dtype_size(call->arg[s].dtype);
    if (dev == SL_DEVICE_CUDA && call->arg[s].data && align > 1 &&
        (uintptr_t)call->arg[s].data % align)
      return sl_ctx_fail(
          ctx, SL_STATUS_INVALID_ARGUMENT,
          "%s: expected data aligned to %zu bytes (its %s elements) for "
          "variant %s, got address %p (%zu past a multiple)",
          info->arg_names[s], align, sl_dtype_name(call->arg[s].dtype), variant,
          call->arg[s].data, (size_t)((uintptr_t)call->arg[s].data % align));
  }
  st = sl__check_outputs(ctx, call, &want);
  if (st) return st;
  /* Kernels see the normalized parameters (dim >= 0, dims filled in). */
  call->p = want.p;
  call->out_rows = want.out_rows;
  const sl_status kernel_status = v->fn(ctx, call);
  /* A kernel may fill msg to the brim without its NUL (a provider's memcpy):
   * whoever reads the message must not run past it. */
  if (ctx) ctx->msg[sizeof ctx->msg - 1] = '\0';
  return kernel_status;
}
