/*
 * libsltest_slow<P>: a correct gather that then spins for P% of the time
 * the gather took, for tests/ab/ab.sh: the planted slowdown that
 * `scatterlab ab` must catch, and (P = 0, two copies of one library) the
 * unchanged kernel it must not call slower. The unchanged build (P = 0)
 * also has cpu.gather2, which the others (and its lean build, SLTEST_LEAN)
 * lack: a base variant missing from the candidate. With SLOW_FIXED_US the
 * gather spins that long a call instead (libsltest_slowfixed, for
 * tests/e2e/bench_generate.sh's --shrink), and with SLOW_EVERY as well on
 * every SLOW_EVERY-th call of the process only (libsltest_jitter: timings
 * that scatter, for bench --retime).
 */
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "sl/sl_provider.h"
#include "sltest_gather.h"

#ifndef SLOW_PCT
#error "build with -DSLOW_PCT=<percent>"
#endif
#define SLTEST_STR_(x) #x
#define SLTEST_STR(x) SLTEST_STR_(x)

static double sltest_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static sl_status sltest_slow_gather(sl_ctx *ctx, sl_call *c) {
  (void)ctx;
  const double t0 = sltest_now();
  sltest_gather_each(c, sltest_copy, NULL);
  /* Busy, not asleep: a slower kernel keeps its core. */
#ifdef SLOW_FIXED_US
  /* A fixed cost a call (bench --shrink's fixture): slower than LibTorch
   * at every size, so the shrinker goes down to its smallest case. */
#ifdef SLOW_EVERY
  static unsigned calls;
  if (++calls % SLOW_EVERY != 0) return SL_STATUS_OK;
#endif
  const double until = t0 + SLOW_FIXED_US * 1e-6;
  while (sltest_now() < until) {
  }
#else
  const double until = sltest_now() + (sltest_now() - t0) * SLOW_PCT / 100.0;
  while (SLOW_PCT > 0 && sltest_now() < until) {
  }
#endif
  return SL_STATUS_OK;
}

#define SLTEST_GATHER(name)                                                    \
  {                                                                            \
    SL_OP_GATHER, name, SL_DEVICE_CPU, sltest_slow_gather, SL_DETERMINISTIC, { \
      .dtypes = SL_DTYPES_ALL, .index_dtypes = SL_INDEX_DTYPES_ALL,            \
      .reduces = 0, .include_self = 0, .max_rank = SL_MAX_DIMS,                \
      .layouts = SL_LAYOUTS_ALL                                                \
    }                                                                          \
  }

static const sl_provider_variant sltest_variants[] = {
    SLTEST_GATHER("cpu.gather"),
#if SLOW_PCT == 0 && !defined(SLTEST_LEAN)
    SLTEST_GATHER("cpu.gather2"),
#endif
};

static const sl_provider sltest_provider = {
    .abi_version = SL_PROVIDER_ABI_VERSION,
    .size = sizeof(sl_provider),
    .name = "abtest",
    .version = "test fixture, " SLTEST_STR(SLOW_PCT) "% slower",
    .n_variants = sizeof sltest_variants / sizeof sltest_variants[0],
    .variants = sltest_variants,
};

SL_PROVIDER_ENTRY { return &sltest_provider; }
