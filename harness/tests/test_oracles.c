/*
 * The exact oracles' notion of "the same bits" (SPEC §5: bitwise, NaN
 * positions matching): equal bytes, or NaN against any NaN, whatever its
 * sign and payload. References do not keep NaN bits (LibTorch 2.11's bf16
 * gather writes 0xFFFF for 0x7FC0), but every other difference in the bits,
 * -0.0 against 0.0 among them, is still one.
 */
#include <math.h>
#include <string.h>

#include "compare.h"
#include "sl_test.h"

/* Compares two 1-D tensors of n elements with oracle o; returns the
 * mismatch count. */
static int64_t mismatches(sl_dtype dt, int n, const void *got, const void *want,
                          sl_oracle o) {
  const int64_t shape[1] = {n};
  sl_tensor g = sl_tensor_make(dt, 1, shape, (void *)got);
  sl_tensor w = sl_tensor_make(dt, 1, shape, (void *)want);
  sl_diff d;
  sl_compare(&g, &w, o, NULL, &d);
  return d.mismatches;
}

static void test_nan_bits(void) {
  const sl_oracle oracles[2] = {SL_ORACLE_BITWISE, SL_ORACLE_ANY_VALID};
  for (int k = 0; k < 2; ++k) {
    sl_oracle o = oracles[k];
    /* bf16: quiet NaN vs LibTorch 2.11's 0xFFFF, then vs a signalling-
     * pattern NaN, then 1.0 against NaN (a real difference). */
    const uint16_t bf_got[4] = {0x7FC0, 0x7FC0, 0x3F80, 0x7FC0};
    const uint16_t bf_want[4] = {0xFFFF, 0x7F81, 0x3F80, 0x3F80};
    CHECK_MSG(mismatches(SL_BF16, 4, bf_got, bf_want, o) == 1, "%s",
              sl_oracle_name(o));
    /* f16: 0x7E00 vs 0xFE01 (both NaN); +0 vs -0 (bits differ: wrong). */
    const uint16_t h_got[2] = {0x7E00, 0x0000};
    const uint16_t h_want[2] = {0xFE01, 0x8000};
    CHECK_MSG(mismatches(SL_F16, 2, h_got, h_want, o) == 1, "%s",
              sl_oracle_name(o));
    /* f32 and f64 NaNs with other payloads match; an inf does not. */
    uint32_t f_got[2] = {0x7FC00000u, 0x7F800000u};
    uint32_t f_want[2] = {0xFFC00001u, 0x7FC00000u};
    CHECK_MSG(mismatches(SL_F32, 2, f_got, f_want, o) == 1, "%s",
              sl_oracle_name(o));
    uint64_t d_got[1] = {0x7FF8000000000000ull};
    uint64_t d_want[1] = {0xFFF8000000000001ull};
    CHECK(mismatches(SL_F64, 1, d_got, d_want, o) == 0);
    /* c64: NaN parts match part by part; a NaN real part does not excuse
     * a different imaginary part. */
    uint32_t c_got[4] = {0x7FC00000u, 0x3F800000u, 0x7FC00000u, 0x3F800000u};
    uint32_t c_want[4] = {0xFFC00000u, 0x3F800000u, 0xFFC00000u, 0x40000000u};
    CHECK_MSG(mismatches(SL_C64, 2, c_got, c_want, o) == 1, "%s",
              sl_oracle_name(o));
    /* Integers: a bit pattern that would be a NaN as a float is a value. */
    int32_t i_got[1] = {0x7FC00000}, i_want[1] = {(int32_t)0xFFC00000u};
    CHECK(mismatches(SL_I32, 1, i_got, i_want, o) == 1);
  }
}

/* The tolerance metrics hold at the ends of the f64 range: a one-ulp
 * difference among values near 1e300 passes (its squares once overflowed
 * to inf/inf = NaN), and a real difference there still fails. */
static void test_tolerance_extreme(void) {
  const double want[3] = {1e300, -3e299, 2.5};
  double got[3] = {1e300, -3e299, 2.5};
  got[0] = nextafter(want[0], 0);
  CHECK(mismatches(SL_F64, 3, got, want, SL_ORACLE_TOLERANCE) == 0);
  got[1] = -2e299;
  CHECK(mismatches(SL_F64, 3, got, want, SL_ORACLE_TOLERANCE) == 1);
  const double small[2] = {1e-300, 3e-300};
  double sgot[2] = {1e-300, 3e-300};
  sgot[1] = nextafter(small[1], 1);
  CHECK(mismatches(SL_F64, 2, sgot, small, SL_ORACLE_TOLERANCE) == 0);
}

/* The same bits as a whole buffer (sl_compare's memcmp shortcut) and
 * element by element (a strided view of the same data) give one answer
 * under every oracle: a pass with every metric 0, NaNs and infinities
 * included; one element changed still fails where it is. */
static void test_identical_buffers(void) {
  float a[8] = {1, -0.0f, NAN, INFINITY, 3, 4, 5, 6}, b[8];
  memcpy(b, a, sizeof a);
  const int64_t shape[1] = {8}, half[1] = {4}, step2[1] = {2};
  const sl_oracle os[3] = {SL_ORACLE_BITWISE, SL_ORACLE_ANY_VALID,
                           SL_ORACLE_TOLERANCE};
  for (int k = 0; k < 3; ++k) {
    sl_tensor g = sl_tensor_make(SL_F32, 1, shape, a);
    sl_tensor w = sl_tensor_make(SL_F32, 1, shape, b);
    sl_tensor gs = sl_tensor_make(SL_F32, 1, half, a);
    sl_tensor ws = sl_tensor_make(SL_F32, 1, half, b);
    gs.strides[0] = ws.strides[0] = step2[0];
    sl_diff d, ds;
    CHECK(sl_compare(&g, &w, os[k], NULL, &d) == 1);
    CHECK(sl_compare(&gs, &ws, os[k], NULL, &ds) == 1);
    CHECK_MSG(d.mismatches == 0 && d.diff1 == 0 && d.diff2 == 0 &&
                  d.diff3 == 0 && d.first_bad == -1 && ds.diff1 == 0 &&
                  ds.first_bad == -1,
              "%s: diff %g %g %g, first_bad %lld", sl_oracle_name(os[k]),
              d.diff1, d.diff2, d.diff3, (long long)d.first_bad);
    b[6] = 50; /* the tolerance oracle judges by the metrics: no position */
    CHECK(sl_compare(&g, &w, os[k], NULL, &d) == 0 &&
          d.first_bad == (os[k] == SL_ORACLE_TOLERANCE ? -1 : 6));
    b[6] = 5;
  }
}

int main(void) {
  test_nan_bits();
  test_identical_buffers();
  test_tolerance_extreme();
  return sl_test_finish("test_oracles");
}
