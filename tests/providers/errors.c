/*
 * The loader-error fixtures of tests/providers/loader_errors.sh: one source,
 * built once per fault with one SLTEST_* macro defined, each a library the
 * loader must refuse as a whole (exit 2, a message naming the file and the
 * fault, no variant of it loaded):
 *
 *   SLTEST_NOENTRY  libsltest_noentry.so  exports no sl_provider_entry
 *   SLTEST_ABI1     libsltest_abi1.so     abi_version 1 (a provider built for version 1)
 *   SLTEST_DUP      libsltest_dup.so      two gather variants "cpu.twice"
 *   SLTEST_BADCAPS  libsltest_badcaps.so  scatter_reduce with caps.reduces 0
 *   SLTEST_BADNAME  libsltest_badname.so  "gpu.x": no such device part
 *   SLTEST_MISMATCH libsltest_mismatch.so "cuda.x" on device cpu
 *   SLTEST_UPPER    libsltest_upper.so    "cpu.Gather": an upper-case letter
 *   SLTEST_NULLFN   libsltest_nullfn.so   a variant whose fn is NULL
 *
 * Apart from its one fault each table is valid, so that the loader's
 * message can only be about that fault.
 */
#include "sl/sl_provider.h"

#if defined(SLTEST_NOENTRY)

/* Something exported, so that the library is a real, loadable library whose
 * only fault is the missing entry point. */
SL_PROVIDER_EXPORT int sltest_not_a_provider(void) { return 42; }

#else

/* A kernel that is never run: every table here is refused before any call. */
static sl_status sltest_never(sl_ctx *ctx, sl_call *c) {
  (void)c;
  return sl_provider_fail(ctx, SL_STATUS_INTERNAL, "a refused provider ran");
}

#define SLTEST_GATHER_CAPS                                                     \
  {                                                                            \
    .dtypes = SL_DTYPES_ALL, .index_dtypes = SL_INDEX_DTYPES_ALL,              \
    .reduces = 0, .include_self = 0, .max_rank = SL_MAX_DIMS,                  \
    .layouts = SL_LAYOUTS_ALL                                                  \
  }
#define SLTEST_GATHER(name, device, fn)                                        \
  { SL_OP_GATHER, name, device, fn, SL_DETERMINISTIC, SLTEST_GATHER_CAPS }

#if defined(SLTEST_ABI1)
#define SLTEST_NAME "abi1"
#define SLTEST_ABI 1u /* the first version: sl_call laid out otherwise */
#else
#define SLTEST_ABI SL_PROVIDER_ABI_VERSION
#endif

static const sl_provider_variant sltest_variants[] = {
#if defined(SLTEST_ABI1)
    SLTEST_GATHER("cpu.fine", SL_DEVICE_CPU, sltest_never),
#elif defined(SLTEST_DUP)
#define SLTEST_NAME "dup"
    /* A first, distinct variant: the duplicate is not simply the first row. */
    SLTEST_GATHER("cpu.fine", SL_DEVICE_CPU, sltest_never),
    SLTEST_GATHER("cpu.twice", SL_DEVICE_CPU, sltest_never),
    SLTEST_GATHER("cpu.twice", SL_DEVICE_CPU, sltest_never),
#elif defined(SLTEST_BADCAPS)
#define SLTEST_NAME "badcaps"
    {SL_OP_SCATTER_REDUCE,
     "cpu.noreduce",
     SL_DEVICE_CPU,
     sltest_never,
     0,
     {.dtypes = SL_DTYPES_ALL,
      .index_dtypes = SL_INDEX_DTYPES_ALL,
      .reduces = 0, /* the fault: scatter_reduce needs a reduce */
      .include_self = SL_INCLUDE_SELF_BOTH,
      .max_rank = SL_MAX_DIMS,
      .layouts = SL_LAYOUTS_ALL}},
#elif defined(SLTEST_BADNAME)
#define SLTEST_NAME "badname"
    SLTEST_GATHER("gpu.x", SL_DEVICE_CPU, sltest_never),
#elif defined(SLTEST_MISMATCH)
#define SLTEST_NAME "mismatch"
    SLTEST_GATHER("cuda.x", SL_DEVICE_CPU, sltest_never),
#elif defined(SLTEST_UPPER)
#define SLTEST_NAME "upper"
    SLTEST_GATHER("cpu.Gather", SL_DEVICE_CPU, sltest_never),
#elif defined(SLTEST_NULLFN)
#define SLTEST_NAME "nullfn"
    SLTEST_GATHER("cpu.fine", SL_DEVICE_CPU, sltest_never),
    SLTEST_GATHER("cpu.nofn", SL_DEVICE_CPU, NULL),
#else
#error "define one SLTEST_* fault"
#endif
};

static const sl_provider sltest_provider = {
    .abi_version = SLTEST_ABI,
    .size = sizeof(sl_provider),
    .name = SLTEST_NAME,
    .version = "test fixture",
    .n_variants = sizeof sltest_variants / sizeof sltest_variants[0],
    .variants = sltest_variants,
};

SL_PROVIDER_ENTRY { return &sltest_provider; }

#endif
