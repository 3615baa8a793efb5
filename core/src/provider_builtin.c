/*
 * scatterlab's own kernels as a provider (sl/sl_provider.h): the entry point
 * of libscatterlab_kernels, the one way the harness reaches them. The rows
 * are variants.def's; each takes every case its op's contract defines
 * (capabilities: every dtype, both index dtypes, the op's reduces, both
 * include_self values, any rank, strided and broadcast inputs). A build
 * without CUDA serves no cuda.* rows: there is no kernel behind them.
 */
#include <pthread.h>

#include "alloc.h"
#include "sl/sl_provider.h"
#include "sl_internal.h"

#define SL__BUILTIN_CPU(op, vname, fn, flags)                                  \
  {op, vname, SL_DEVICE_CPU, fn, flags, {0}},
#ifdef SL_WITH_CUDA
#define SL__BUILTIN_CUDA(op, vname, fn, flags)                                 \
  {op, vname, SL_DEVICE_CUDA, fn, (flags) | SL_NEEDS_CUDA, {0}},
#else
#define SL__BUILTIN_CUDA(op, vname, fn, flags)
#endif

static sl_provider_variant sl__builtin_rows[] = {
#define SL_VARIANT SL__BUILTIN_CPU
#define SL_VARIANT_CUDA SL__BUILTIN_CUDA
#include "variants.def"
#undef SL_VARIANT_CUDA
#undef SL_VARIANT
};

static sl_provider sl__builtin = {SL_PROVIDER_ABI_VERSION,
                                  sizeof(sl_provider),
                                  "scatterlab",
                                  SL_VERSION_STRING,
                                  sizeof sl__builtin_rows /
                                      sizeof sl__builtin_rows[0],
                                  sl__builtin_rows,
                                  sl__alloc_faults,
                                  sl__alloc_release};

/* The capabilities depend on the op's catalogue row, which is not a
 * constant expression: filled in once, at the first call. */
static void sl__builtin_fill_caps(void) {
  for (size_t i = 0; i < sl__builtin.n_variants; ++i) {
    sl_provider_variant *v = &sl__builtin_rows[i];
    const sl_op_info *info = sl_op_get(v->op);
    v->caps.dtypes = SL_DTYPES_ALL;
    v->caps.index_dtypes = SL_INDEX_DTYPES_ALL;
    v->caps.reduces = info->reduces;
    v->caps.include_self = info->takes_include_self ? SL_INCLUDE_SELF_BOTH : 0;
    v->caps.max_rank = SL_MAX_DIMS;
    v->caps.layouts = SL_LAYOUTS_ALL;
  }
}

SL_PROVIDER_ENTRY {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, sl__builtin_fill_caps);
  return &sl__builtin;
}
