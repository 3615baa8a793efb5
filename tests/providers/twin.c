/*
 * libsltest_twin_a / libsltest_twin_b: one source built twice, with
 * TWIN_OFFSET 0 and 1, for tests/providers/twins.sh. Both libraries export
 * the same function, twin_offset(), and the kernel reaches it through the
 * dynamic symbol (a call through the PLT, see below), so the two libraries
 * behave differently only while each one's call binds to its own
 * definition:
 *
 *   a:cpu.gather  out = x + 0  -> passed
 *   b:cpu.gather  out = x + 1  -> failed
 *
 * Loaded with dlopen(RTLD_NOW | RTLD_LOCAL), a's twin_offset never enters
 * the global scope, so b's call resolves in b's own local scope to b's
 * definition, whichever library is loaded first. Were the loader to use
 * RTLD_GLOBAL, b's call would bind to a's definition (the global scope is
 * searched before b's own), b would pass, and twins.sh would fail. That is
 * why these libraries are built WITHOUT -Bsymbolic (which would bind b's
 * call to b's definition at link time and hide the loader's mistake) and
 * with -fsemantic-interposition (so the compiler keeps the call to the
 * exported function instead of inlining it).
 *
 * Checked by hand with a throwaway dlopen program (gcc 12, glibc, x86-64):
 *   a, b both RTLD_LOCAL:       a's kernel adds 0, b's adds 1 (either order)
 *   a RTLD_GLOBAL, b LOCAL:     b's kernel adds 0 (bound to a's twin_offset)
 */
#include <stdint.h>
#include <string.h>

#include "sl/sl_provider.h"
#include "sltest_gather.h"

#ifndef TWIN_OFFSET
#error "build with -DTWIN_OFFSET=0 or 1"
#endif
#define SLTEST_STR_(x) #x
#define SLTEST_STR(x) SLTEST_STR_(x)

/* Exported (default visibility) on purpose: the symbol the twins share. */
SL_PROVIDER_EXPORT int twin_offset(void) { return TWIN_OFFSET; }

/* x + twin_offset() in x's dtype; integers wrap through unsigned so that
 * the largest value plus one is defined behaviour. */
static void sltest_add(void *out, const void *x, sl_dtype dt, void *user) {
  const int k = *(const int *)user;
  if (k == 0) { /* the element's bits: -0.0 + 0 would give +0.0 */
    memcpy(out, x, sl_provider_dtype_size(dt));
    return;
  }
  switch (dt) {
  case SL_F32: {
    float v;
    memcpy(&v, x, sizeof v);
    v += (float)k;
    memcpy(out, &v, sizeof v);
    break;
  }
  case SL_F64: {
    double v;
    memcpy(&v, x, sizeof v);
    v += (double)k;
    memcpy(out, &v, sizeof v);
    break;
  }
  case SL_I32: {
    uint32_t v;
    memcpy(&v, x, sizeof v);
    v += (uint32_t)k;
    memcpy(out, &v, sizeof v);
    break;
  }
  default: { /* SL_I64: the caps allow no other dtype */
    uint64_t v;
    memcpy(&v, x, sizeof v);
    v += (uint64_t)k;
    memcpy(out, &v, sizeof v);
    break;
  }
  }
}

static sl_status sltest_twin_gather(sl_ctx *ctx, sl_call *c) {
  (void)ctx;
  int k = twin_offset();
  sltest_gather_each(c, sltest_add, &k);
  return SL_STATUS_OK;
}

static const sl_provider_variant sltest_variants[] = {
    {SL_OP_GATHER,
     "cpu.gather",
     SL_DEVICE_CPU,
     sltest_twin_gather,
     SL_DETERMINISTIC,
     {.dtypes = SL_DTYPE_BIT(SL_F32) | SL_DTYPE_BIT(SL_F64) |
                SL_DTYPE_BIT(SL_I32) | SL_DTYPE_BIT(SL_I64),
      .index_dtypes = SL_INDEX_DTYPES_ALL,
      .reduces = 0,
      .include_self = 0,
      .max_rank = SL_MAX_DIMS,
      .layouts = SL_LAYOUTS_ALL}},
};

static const sl_provider sltest_provider = {
    .abi_version = SL_PROVIDER_ABI_VERSION,
    .size = sizeof(sl_provider),
    .name = "twin",
    .version = "test fixture, offset " SLTEST_STR(TWIN_OFFSET),
    .n_variants = 1,
    .variants = sltest_variants,
};

SL_PROVIDER_ENTRY { return &sltest_provider; }
