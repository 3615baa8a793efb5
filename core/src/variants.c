/* This library's variant table (variants.def), the look-up by name and
 * sl_run. Only what calls the kernels by name links this file: the
 * harness reaches them through the provider table (provider_builtin.c). */
#include "sl_internal.h"

static const sl_variant sl__variants[] = {
#define SL_VARIANT(op, vname, fn, flags) {op, vname, fn, flags},
#ifdef SL_WITH_CUDA
#define SL_VARIANT_CUDA(op, vname, fn, flags)                                  \
  {op, vname, fn, (flags) | SL_NEEDS_CUDA},
#else
#define SL_VARIANT_CUDA(op, vname, fn, flags)                                  \
  {op, vname, NULL, (flags) | SL_NEEDS_CUDA},
#endif
#include "variants.def"
#undef SL_VARIANT_CUDA
#undef SL_VARIANT
};

#define SL__N_TABLE (sizeof sl__variants / sizeof sl__variants[0])

size_t sl_variant_count(void) { return SL__N_TABLE; }

const sl_variant *sl_variant_at(size_t i) {
  return i < SL__N_TABLE ? &sl__variants[i] : NULL;
}

const sl_variant *sl_variant_find(sl_op op, const char *name) {
  if (!name) return NULL;
  for (size_t i = 0; i < sl_variant_count(); ++i) {
    const sl_variant *v = sl_variant_at(i);
    if (v->op == op && strcmp(v->name, name) == 0) return v;
  }
  return NULL;
}

sl_status sl_run(sl_ctx *ctx, const char *variant, sl_call *call) {
  if (!call)
    return sl_ctx_fail(ctx, SL_STATUS_NULL_POINTER,
                       "call: expected an sl_call, got NULL");
  if (!variant)
    return sl_ctx_fail(ctx, SL_STATUS_NULL_POINTER,
                       "variant: expected a name such as \"cpu.serial\", got "
                       "NULL");
  const sl_variant *v = sl_variant_find(call->op, variant);
  if (!v)
    return sl_ctx_fail(ctx, SL_STATUS_UNKNOWN_VARIANT,
                       "variant: expected a variant of %s (see `scatterlab "
                       "list`), got \"%s\"",
                       sl_op_name(call->op), variant);
  return sl_run_variant(ctx, v, call);
}
