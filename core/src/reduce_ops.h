/*
 * The reductions' identities and combine steps: the one statement of them,
 * read by the CPU kernels (through reduce.h) and by the CUDA kernels
 * (through cuda/cuda_common.cuh's sl__arith). Plain C; under nvcc every
 * function is __host__ __device__ (SL_HD), so that both sides compile the
 * same text and cannot drift apart.
 *
 * One set per accumulation type: f32 (the CUDA kernels' float and the
 * accumulator of f16/bf16 there), f64 (every CPU floating reduction, which
 * combines in double and rounds on store, and CUDA's double), i32 and i64.
 *
 * The rules (LibTorch's scatter kernels):
 * - sum and mean add (mean divides at the end); prod multiplies. Integer sum
 *   and prod wrap: they are computed unsigned, the one wrapping arithmetic
 *   C defines.
 * - amax/amin (and the dynamic ops' max) propagate a NaN from either side:
 *   a NaN b wins; a NaN accumulator fails both comparisons and stays. On
 *   equal values, -0.0 against 0.0 included, the accumulator is kept, as
 *   std::max/std::min do.
 * - Anything else (assign, none) takes b.
 * - The identity, which a targeted position takes when include_self is
 *   false: 1 for prod, -inf (the type's least integer) for amax/max, +inf
 *   (its greatest) for amin, 0 for the rest.
 * - Integer mean is floor division: (-1 + -2) / 2 = -2.
 */
#ifndef SL_REDUCE_OPS_H
#define SL_REDUCE_OPS_H

#include <math.h>
#include <stdint.h>

#include "sl/sl.h"

#if defined(__CUDACC__)
#define SL_HD __host__ __device__ __forceinline__
#else
#define SL_HD inline
#endif

/* Floating type T, function suffix s. b != b is isnan(b) on either side. */
#define SL__REDUCE_OPS_FLOAT(T, s)                                             \
  static SL_HD T sl__combine_##s(sl_reduce r, T a, T b) {                      \
    switch (r) {                                                               \
    case SL_REDUCE_SUM:                                                        \
    case SL_REDUCE_MEAN:                                                       \
      return a + b;                                                            \
    case SL_REDUCE_PROD:                                                       \
      return a * b;                                                            \
    case SL_REDUCE_AMAX:                                                       \
    case SL_REDUCE_MAX:                                                        \
      return b != b ? b : (a < b ? b : a);                                     \
    case SL_REDUCE_AMIN:                                                       \
      return b != b ? b : (b < a ? b : a);                                     \
    default:                                                                   \
      return b;                                                                \
    }                                                                          \
  }                                                                            \
  /* Whether amax's (amin's with r AMIN) combine returns b: the same rule      \
   * without a branch, for loops that pick one of the two operands' bits */    \
  static SL_HD int sl__takes_##s(sl_reduce r, T a, T b) {                      \
    return (b != b) | (r == SL_REDUCE_AMIN ? b < a : a < b);                   \
  }                                                                            \
  static SL_HD T sl__identity_##s(sl_reduce r) {                               \
    switch (r) {                                                               \
    case SL_REDUCE_PROD:                                                       \
      return (T)1;                                                             \
    case SL_REDUCE_AMAX:                                                       \
    case SL_REDUCE_MAX:                                                        \
      return (T)-INFINITY;                                                     \
    case SL_REDUCE_AMIN:                                                       \
      return (T)INFINITY;                                                      \
    default:                                                                   \
      return (T)0;                                                             \
    }                                                                          \
  }

/* Integer type I (U its unsigned twin, LO and HI its range), suffix s. */
#define SL__REDUCE_OPS_INT(I, U, LO, HI, s)                                    \
  static SL_HD I sl__combine_##s(sl_reduce r, I a, I b) {                      \
    switch (r) {                                                               \
    case SL_REDUCE_SUM:                                                        \
    case SL_REDUCE_MEAN:                                                       \
      return (I)((U)a + (U)b);                                                 \
    case SL_REDUCE_PROD:                                                       \
      return (I)((U)a * (U)b);                                                 \
    case SL_REDUCE_AMAX:                                                       \
    case SL_REDUCE_MAX:                                                        \
      return a < b ? b : a;                                                    \
    case SL_REDUCE_AMIN:                                                       \
      return b < a ? b : a;                                                    \
    default:                                                                   \
      return b;                                                                \
    }                                                                          \
  }                                                                            \
  static SL_HD int sl__takes_##s(sl_reduce r, I a, I b) {                      \
    return r == SL_REDUCE_AMIN ? b < a : a < b;                                \
  }                                                                            \
  static SL_HD I sl__identity_##s(sl_reduce r) {                               \
    switch (r) {                                                               \
    case SL_REDUCE_PROD:                                                       \
      return 1;                                                                \
    case SL_REDUCE_AMAX:                                                       \
    case SL_REDUCE_MAX:                                                        \
      return LO;                                                               \
    case SL_REDUCE_AMIN:                                                       \
      return HI;                                                               \
    default:                                                                   \
      return 0;                                                                \
    }                                                                          \
  }                                                                            \
  /* Floor division for b > 0 (the integer mean). */                           \
  static SL_HD I sl__floor_div_##s(I a, I b) {                                 \
    I q = a / b;                                                               \
    if (a % b != 0 && (a < 0) != (b < 0)) --q;                                 \
    return q;                                                                  \
  }

SL__REDUCE_OPS_FLOAT(float, f32)
SL__REDUCE_OPS_FLOAT(double, f64)
SL__REDUCE_OPS_INT(int32_t, uint32_t, INT32_MIN, INT32_MAX, i32)
SL__REDUCE_OPS_INT(int64_t, uint64_t, INT64_MIN, INT64_MAX, i64)

#undef SL__REDUCE_OPS_FLOAT
#undef SL__REDUCE_OPS_INT

/* sl__takes_f32's rule on f16 (bf16: nonzero) bits a and b, without
 * converting them: a half's magnitude bits order like its value, so the
 * signed magnitude (-0 and +0 both 0) compares like the float; a NaN is a
 * magnitude past infinity's. Integer operations only, which vectorize
 * where the software conversion (a branch for inf and NaN) did not; in
 * 16 bits (every step fits), so that a vector holds as many halves as
 * it loads, not half of them widened to 32. */
static SL_HD int sl__takes_half(sl_reduce r, int bf16, uint16_t a, uint16_t b) {
  const int16_t inf = bf16 ? 0x7f80 : 0x7c00;
  const int16_t ma = (int16_t)(a & 0x7fff), mb = (int16_t)(b & 0x7fff);
  const int16_t sa = (int16_t)(-(a >> 15)), sb = (int16_t)(-(b >> 15));
  const int16_t ka = (int16_t)((ma ^ sa) - sa), kb = (int16_t)((mb ^ sb) - sb);
  const int below = r == SL_REDUCE_AMIN ? kb < ka : ka < kb;
  return (mb > inf) | ((ma <= inf) & below);
}

#endif /* SL_REDUCE_OPS_H */
