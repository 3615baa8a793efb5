/*
 * libsltest_broken: a provider ("broken") whose gather variants misbehave on
 * purpose, one way each, so that tests/providers/broken.sh can prove that
 * the harness judges an external kernel as it judges its own: a crash, a
 * hang, exit(), a write outside the output and an undefined status code are
 * verdicts, the campaign goes on, and the store stays sound.
 *
 *   cpu.ok          a correct gather                       -> passed
 *   cpu.segv        writes through a NULL pointer          -> crashed
 *   cpu.hang        never returns                          -> timeout
 *   cpu.overrun     correct, then one element past out     -> failed
 *   cpu.underrun    correct, then one element before out   -> failed
 *   cpu.bad_status  correct, then returns 12345            -> failed
 *   cpu.exit        calls exit(3)                          -> crashed
 *
 * Two declare SL_CHECKS_INDEX_VALUES, so the harness leaves the index values
 * to them (a case with a bad one reaches the kernel):
 *
 *   cpu.checks      refuses a bad value itself             -> both_rejected
 *   cpu.trusts      accepts it (writes zeros)              -> reject_mismatch
 *
 * The library links nothing of scatterlab: sl_provider.h is all it needs.
 */
/* pause() is POSIX, beyond the C11 the project compiles as. */
#define _POSIX_C_SOURCE 200809L

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sl/sl_provider.h"
#include "sltest_gather.h"

static sl_status sltest_ok(sl_ctx *ctx, sl_call *c) {
  (void)ctx;
  sltest_gather_each(c, sltest_copy, NULL);
  return SL_STATUS_OK;
}

/* A volatile object holding NULL: the compiler cannot prove the store below
 * faults, so it emits a real store (SIGSEGV) rather than a trap instruction
 * or nothing at all. */
static int *volatile sltest_null;

static sl_status sltest_segv(sl_ctx *ctx, sl_call *c) {
  (void)ctx;
  (void)c;
  *sltest_null = 1;
  return SL_STATUS_OK;
}

static sl_status sltest_hang(sl_ctx *ctx, sl_call *c) {
  (void)ctx;
  (void)c;
  for (;;) pause();
  return SL_STATUS_OK;
}

/* Writes one element's worth of bytes at element offset `at` of out. The
 * bytes (0x11) differ from the poisons and guard patterns the harness uses
 * (0xA5, 0x5A; 0x5C on the CPU, 0xC3 on the device), so the stray write is
 * visible whatever the guard holds. An empty output gets no stray write:
 * the point is a write beside a real buffer, and an empty one may have no
 * buffer at all (data NULL), where the write would be a crash instead. */
static void sltest_stray_write(const sl_tensor *out, int64_t at) {
  if (sltest_numel(out) == 0) return;
  size_t es = sl_provider_dtype_size(out->dtype);
  memset((char *)out->data + at * (int64_t)es, 0x11, es);
}

static sl_status sltest_overrun(sl_ctx *ctx, sl_call *c) {
  sltest_ok(ctx, c);
  sltest_stray_write(&c->arg[2], sltest_end(&c->arg[2]));
  return SL_STATUS_OK;
}

static sl_status sltest_underrun(sl_ctx *ctx, sl_call *c) {
  sltest_ok(ctx, c);
  sltest_stray_write(&c->arg[2], -1);
  return SL_STATUS_OK;
}

static sl_status sltest_bad_status(sl_ctx *ctx, sl_call *c) {
  sltest_ok(ctx, c);
  return (sl_status)12345;
}

static sl_status sltest_exit(sl_ctx *ctx, sl_call *c) {
  (void)ctx;
  (void)c;
  exit(3);
}

/* Keeps SL_CHECKS_INDEX_VALUES's promise: a value outside x's axis is
 * refused, with the status sl_infer gives, before anything is written. */
static sl_status sltest_checks(sl_ctx *ctx, sl_call *c) {
  int64_t v, at;
  if (sltest_bad_index(c, &v, &at))
    return sl_provider_fail(ctx, SL_STATUS_INDEX_OUT_OF_RANGE,
                            "index: expected values in [0, %lld), got %lld "
                            "at element %lld (broken:cpu.checks' own check)",
                            (long long)sltest_extent(&c->arg[0], (int)c->p.dim),
                            (long long)v, (long long)at);
  return sltest_ok(ctx, c);
}

/* Declares the flag and does not check: a bad value gives zeros (it does
 * not read outside x, so the verdict is the acceptance, not a crash). */
static sl_status sltest_trusts(sl_ctx *ctx, sl_call *c) {
  int64_t v, at;
  if (!sltest_bad_index(c, &v, &at)) return sltest_ok(ctx, c);
  const sl_tensor *out = &c->arg[2];
  if (sltest_numel(out))
    memset(out->data, 0,
           (size_t)sltest_numel(out) * sl_provider_dtype_size(out->dtype));
  return SL_STATUS_OK;
}

/* Every dtype, both index dtypes, any rank and layout: no case of gather is
 * outside the capabilities, so every verdict comes from the kernel. */
#define SLTEST_CAPS                                                            \
  {                                                                            \
    .dtypes = SL_DTYPES_ALL, .index_dtypes = SL_INDEX_DTYPES_ALL,              \
    .reduces = 0, .include_self = 0, .max_rank = SL_MAX_DIMS,                  \
    .layouts = SL_LAYOUTS_ALL                                                  \
  }

#define SLTEST_VARIANT(name, fn, flags)                                        \
  { SL_OP_GATHER, name, SL_DEVICE_CPU, fn, flags, SLTEST_CAPS }

static const sl_provider_variant sltest_variants[] = {
    SLTEST_VARIANT("cpu.ok", sltest_ok, SL_DETERMINISTIC),
    SLTEST_VARIANT("cpu.segv", sltest_segv, 0),
    SLTEST_VARIANT("cpu.hang", sltest_hang, 0),
    SLTEST_VARIANT("cpu.overrun", sltest_overrun, 0),
    SLTEST_VARIANT("cpu.underrun", sltest_underrun, 0),
    SLTEST_VARIANT("cpu.bad_status", sltest_bad_status, 0),
    SLTEST_VARIANT("cpu.exit", sltest_exit, 0),
    SLTEST_VARIANT("cpu.checks", sltest_checks, SL_CHECKS_INDEX_VALUES),
    SLTEST_VARIANT("cpu.trusts", sltest_trusts, SL_CHECKS_INDEX_VALUES),
};

static const sl_provider sltest_provider = {
    .abi_version = SL_PROVIDER_ABI_VERSION,
    .size = sizeof(sl_provider),
    .name = "broken",
    .version = "test fixture",
    .n_variants = sizeof sltest_variants / sizeof sltest_variants[0],
    .variants = sltest_variants,
};

SL_PROVIDER_ENTRY { return &sltest_provider; }
