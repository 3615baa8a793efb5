/*
 * reduce_ops.h, the combines and identities that the CPU and the CUDA
 * kernels share: each rule of its header comment on values worked out by
 * hand, for every accumulation type (f32, f64, i32, i64).
 */
#include <math.h>
#include <stdint.h>

#include "reduce_ops.h"
#include "sl_test.h"

/* The floating rules, written once for f32 and f64. */
#define CHECK_FLOAT_RULES(T, s)                                                \
  do {                                                                         \
    const T nan_ = (T)NAN, inf_ = (T)INFINITY;                                 \
    CHECK(sl__combine_##s(SL_REDUCE_SUM, (T)1.5, (T)2) == (T)3.5);             \
    CHECK(sl__combine_##s(SL_REDUCE_MEAN, (T)1.5, (T)2) == (T)3.5);            \
    CHECK(sl__combine_##s(SL_REDUCE_PROD, (T)1.5, (T)2) == (T)3);              \
    CHECK(sl__combine_##s(SL_REDUCE_AMAX, (T)1, (T)2) == (T)2);                \
    CHECK(sl__combine_##s(SL_REDUCE_MAX, (T)2, (T)1) == (T)2);                 \
    CHECK(sl__combine_##s(SL_REDUCE_AMIN, (T)1, (T)2) == (T)1);                \
    CHECK(sl__combine_##s(SL_REDUCE_ASSIGN, (T)1, (T)2) == (T)2);              \
    CHECK(sl__combine_##s(SL_REDUCE_NONE, (T)1, (T)2) == (T)2);                \
    /* NaN wins from either side of amax and amin. */                          \
    CHECK(isnan(sl__combine_##s(SL_REDUCE_AMAX, (T)1, nan_)));                 \
    CHECK(isnan(sl__combine_##s(SL_REDUCE_AMAX, nan_, (T)1)));                 \
    CHECK(isnan(sl__combine_##s(SL_REDUCE_AMIN, (T)1, nan_)));                 \
    CHECK(isnan(sl__combine_##s(SL_REDUCE_AMIN, nan_, (T)1)));                 \
    CHECK(isnan(sl__combine_##s(SL_REDUCE_MAX, nan_, inf_)));                  \
    /* -0.0 against 0.0 keeps the accumulator. */                              \
    CHECK(signbit(sl__combine_##s(SL_REDUCE_AMAX, (T)-0.0, (T)0.0)));          \
    CHECK(!signbit(sl__combine_##s(SL_REDUCE_AMAX, (T)0.0, (T)-0.0)));         \
    CHECK(signbit(sl__combine_##s(SL_REDUCE_AMIN, (T)-0.0, (T)0.0)));          \
    CHECK(!signbit(sl__combine_##s(SL_REDUCE_AMIN, (T)0.0, (T)-0.0)));         \
    /* Identities: 1, -inf, +inf, 0. */                                        \
    CHECK(sl__identity_##s(SL_REDUCE_PROD) == (T)1);                           \
    CHECK(sl__identity_##s(SL_REDUCE_AMAX) == -inf_);                          \
    CHECK(sl__identity_##s(SL_REDUCE_MAX) == -inf_);                           \
    CHECK(sl__identity_##s(SL_REDUCE_AMIN) == inf_);                           \
    CHECK(sl__identity_##s(SL_REDUCE_SUM) == (T)0);                            \
    CHECK(sl__identity_##s(SL_REDUCE_MEAN) == (T)0);                           \
    CHECK(!signbit(sl__identity_##s(SL_REDUCE_SUM)));                          \
  } while (0)

static void test_float(void) {
  CHECK_FLOAT_RULES(float, f32);
  CHECK_FLOAT_RULES(double, f64);
}

static void test_int(void) {
  /* Sum and prod wrap: INT32_MAX + 1 = INT32_MIN; 2^31 * 2 wraps to 0 in
   * 32 bits; INT64_MAX + 1 = INT64_MIN; (2^62) * 4 wraps to 0 in 64. */
  CHECK(sl__combine_i32(SL_REDUCE_SUM, INT32_MAX, 1) == INT32_MIN);
  CHECK(sl__combine_i32(SL_REDUCE_PROD, INT32_MIN, 2) == 0);
  CHECK(sl__combine_i32(SL_REDUCE_PROD, -3, 5) == -15);
  CHECK(sl__combine_i64(SL_REDUCE_SUM, INT64_MAX, 1) == INT64_MIN);
  CHECK(sl__combine_i64(SL_REDUCE_PROD, (int64_t)1 << 62, 4) == 0);
  CHECK(sl__combine_i64(SL_REDUCE_MEAN, -7, 3) == -4);
  CHECK(sl__combine_i32(SL_REDUCE_AMAX, -7, 3) == 3);
  CHECK(sl__combine_i64(SL_REDUCE_AMIN, -7, 3) == -7);
  CHECK(sl__combine_i64(SL_REDUCE_ASSIGN, -7, 3) == 3);
  /* Identities: the type's least and greatest values for amax and amin. */
  CHECK(sl__identity_i32(SL_REDUCE_AMAX) == INT32_MIN);
  CHECK(sl__identity_i32(SL_REDUCE_AMIN) == INT32_MAX);
  CHECK(sl__identity_i64(SL_REDUCE_MAX) == INT64_MIN);
  CHECK(sl__identity_i64(SL_REDUCE_AMIN) == INT64_MAX);
  CHECK(sl__identity_i32(SL_REDUCE_PROD) == 1);
  CHECK(sl__identity_i64(SL_REDUCE_SUM) == 0);
  /* Floor division: (-1 + -2) / 2 = -2; -3 / 3 = -1 exactly; 7 / 2 = 3. */
  CHECK(sl__floor_div_i32(-3, 2) == -2);
  CHECK(sl__floor_div_i64(-3, 2) == -2);
  CHECK(sl__floor_div_i64(-3, 3) == -1);
  CHECK(sl__floor_div_i32(7, 2) == 3);
  CHECK(sl__floor_div_i64(INT64_MIN, 1) == INT64_MIN);
}

/* sl__takes_half against sl__takes_f32 on the converted values: every
 * f16 and bf16 bit pattern as the accumulator, against every 251st
 * pattern and the special ones (both zeros, both infinities, quiet and
 * signalling NaNs of both signs, the extremes) as the offer. */
static void test_half_takes(void) {
  static const uint16_t special[] = {0x0000, 0x8000, 0x7c00, 0xfc00, 0x7f80,
                                     0xff80, 0x7e00, 0xfe00, 0x7d00, 0x7fc0,
                                     0xffc1, 0x7f81, 0x0001, 0x8001, 0x7bff,
                                     0xfbff, 0x7f7f, 0xff7f, 0x3c00, 0xbc00};
  const int nspecial = (int)(sizeof special / sizeof special[0]);
  long wrong = 0;
  for (int bf16 = 0; bf16 < 2; ++bf16)
    for (int r = 0; r < 2; ++r) {
      const sl_reduce reduce = r ? SL_REDUCE_AMIN : SL_REDUCE_AMAX;
      for (uint32_t a = 0; a < 65536; ++a)
        for (int k = 0; k < 262 + nspecial; ++k) {
          const uint16_t b = k < 262 ? (uint16_t)(k * 251) : special[k - 262];
          const float fa =
              bf16 ? sl_bf16_to_f32((uint16_t)a) : sl_f16_to_f32((uint16_t)a);
          const float fb = bf16 ? sl_bf16_to_f32(b) : sl_f16_to_f32(b);
          wrong += sl__takes_half(reduce, bf16, (uint16_t)a, b) !=
                   sl__takes_f32(reduce, fa, fb);
        }
    }
  CHECK(wrong == 0);
}

int main(void) {
  test_float();
  test_int();
  test_half_takes();
  return sl_test_finish("test_reduce_ops");
}
