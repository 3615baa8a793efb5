/*
 * The exact oracles' notion of "the same bits" (docs/spec.md §5: bitwise, NaN
 * positions matching): equal bytes, or NaN against any NaN, whatever its
 * sign and payload. References do not keep NaN bits (LibTorch 2.11's bf16
 * gather writes 0xFFFF for 0x7FC0), but every other difference in the bits,
 * -0.0 against 0.0 among them, is still one.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "oracles.h"
#include "sl_test.h"
#include "tolerance.h"

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

/* A 1-D scatter_reduce call: x (m elements of dt) reduced with src (n
 * elements) at index, dim 0. */
static sl_call reduce_call(sl_dtype dt, sl_reduce r, int include_self, int m,
                           void *x, int n, int64_t *index, void *src) {
  sl_call c;
  sl_call_init(&c, SL_OP_SCATTER_REDUCE);
  const int64_t xs[1] = {m}, is[1] = {n};
  c.arg[0] = sl_tensor_make(dt, 1, xs, x);
  c.arg[1] = sl_tensor_make(SL_I64, 1, is, index);
  c.arg[2] = sl_tensor_make(dt, 1, is, src);
  c.p.dim = 0;
  c.p.reduce = r;
  c.p.include_self = include_self;
  return c;
}

/* Judges got against want (m elements) as the output of call c. */
static int64_t judged(const sl_call *c, int m, const void *got,
                      const void *want, sl_diff *d) {
  const int64_t shape[1] = {m};
  sl_dtype dt = c->arg[0].dtype;
  sl_tensor g = sl_tensor_make(dt, 1, shape, (void *)got);
  sl_tensor w = sl_tensor_make(dt, 1, shape, (void *)want);
  sl_compare(&g, &w, SL_ORACLE_TOLERANCE, c, d);
  return d->mismatches;
}

/* Where at most one value is written, no accumulation order exists: the
 * output is one rounding of x op value (or x itself), and a one-ulp error
 * there is a wrong answer. (The per-dtype table passed all four: their
 * diff1 is about 1e-4.) Hand-computed: f16 3 + 3*2^-10 lies halfway
 * between 0x4201 and 0x4202 and rounds to the even 0x4202; bf16 3 +
 * 3*2^-8 = 3.01171875 rounds up to 3.015625 (0x4041); the bf16 mean of 1
 * and 0.5 is 0.75 (0x3F40). */
static void test_single_contribution_exact(void) {
  int64_t index[2] = {0, 2};
  uint16_t x[4] = {0x4200, 0x3C00, 0x4200, 0x4400};
  uint16_t src[2] = {0x3C00, 0x1A00}; /* 1, 3*2^-10 */
  /* include_self: 3 + 1 = 4, x[1] and x[3] untouched, 3 + 3*2^-10 */
  sl_call c = reduce_call(SL_F16, SL_REDUCE_SUM, 1, 4, x, 2, index, src);
  const uint16_t want[4] = {0x4400, 0x3C00, 0x4202, 0x4400};
  uint16_t got[4] = {0x4400, 0x3C00, 0x4201, 0x4400}; /* toward zero */
  sl_diff d;
  CHECK_MSG(judged(&c, 4, got, want, &d) == 1 && d.first_bad == 2 &&
                strstr(d.msg, "exact: one value written"),
            "f16 sum: %s", d.msg);
  got[2] = 0x4202;
  got[1] = 0x3C01; /* an untouched element off by one ulp */
  CHECK_MSG(judged(&c, 4, got, want, &d) == 1 && d.first_bad == 1 &&
                strstr(d.msg, "x untouched"),
            "f16 untouched: %s", d.msg);

  uint16_t bx[1] = {0x4040}, bsrc[1] = {0x3C40}; /* 3, 3*2^-8 */
  int64_t bindex[1] = {0};
  sl_call b = reduce_call(SL_BF16, SL_REDUCE_SUM, 1, 1, bx, 1, bindex, bsrc);
  const uint16_t bwant[1] = {0x4041};
  const uint16_t bgot[1] = {0x4040};
  CHECK_MSG(judged(&b, 1, bgot, bwant, &d) == 1, "bf16 sum: %s", d.msg);

  uint16_t mx[1] = {0x3F80}, msrc[1] = {0x3F00}; /* 1, 0.5 */
  sl_call mc = reduce_call(SL_BF16, SL_REDUCE_MEAN, 1, 1, mx, 1, bindex, msrc);
  const uint16_t mwant[1] = {0x3F40};
  const uint16_t mgot[1] = {0x3F3F};
  CHECK_MSG(judged(&mc, 1, mgot, mwant, &d) == 1, "bf16 mean: %s", d.msg);
}

/* 200 f16 terms summed into one position, once in f32 and rounded once
 * (the definition) and once in f16, rounding at every step and in reverse
 * order (a kernel that accumulates in the half type): they differ. With a
 * subnormal term (2^-24) the f32 sum itself rounds, its order can matter,
 * and the sum bound 2 gamma_200 sum|t| + 2^-24 explains the difference.
 * Without it every order gives the same f32 sum (a multiple of 2^-13 below
 * 2^24 of them): one rounding of one value, so the half-type kernel's
 * answer is wrong, and judged so. */
static void half_sum_case(int subnormal, int expect_fail) {
  enum { N = 200 };
  uint16_t x[1] = {0}, src[N];
  int64_t index[N];
  double exact = 0;
  for (int k = 0; k < N; ++k) {
    index[k] = 0;
    sl_elem_set_f(SL_F16, &src[k], 0.1 + 0.013 * k);
  }
  if (subnormal) src[0] = 0x0001; /* 2^-24 */
  for (int k = 0; k < N; ++k) exact += sl_elem_get_f(SL_F16, &src[k]);
  uint16_t want[1], got[1] = {0};
  sl_elem_set_f(SL_F16, want, (float)exact);
  for (int k = N - 1; k >= 0; --k)
    sl_elem_set_f(SL_F16, got,
                  sl_elem_get_f(SL_F16, got) + sl_elem_get_f(SL_F16, &src[k]));
  CHECK_MSG(got[0] != want[0], "the orders agree (0x%04x): no test", got[0]);
  sl_call c = reduce_call(SL_F16, SL_REDUCE_SUM, 0, 1, x, N, index, src);
  sl_diff d;
  const int r = judged(&c, 1, got, want, &d);
  if (expect_fail)
    CHECK_MSG(r == 1 && strstr(d.msg, "exact: the sum"), "%s", d.msg);
  else
    CHECK_MSG(r == 0, "%s", d.msg);
}

static void test_reordered_half_sum_passes(void) { half_sum_case(1, 0); }
static void test_exact_half_sum_fails(void) { half_sum_case(0, 1); }

/* 256 + 0.125 in f16 (dp=tie's kind of sum): exactly halfway between 256
 * and 256.25, so ties-to-even gives 256. A conversion that rounds the tie
 * the other way is one ulp off, which the sum bound (0.5 here) let pass. */
static void test_tie_rounding_fails(void) {
  uint16_t x[1] = {0}, src[2] = {0x5C00, 0x3000}; /* 256, 0.125 */
  int64_t index[2] = {0, 0};
  sl_call c = reduce_call(SL_F16, SL_REDUCE_SUM, 0, 1, x, 2, index, src);
  const uint16_t want[1] = {0x5C00};
  uint16_t got[1] = {0x5C01}; /* 256.25 */
  sl_diff d;
  CHECK_MSG(judged(&c, 1, got, want, &d) == 1 &&
                strstr(d.msg, "exact: the sum"),
            "tie: %s", d.msg);
  got[0] = want[0];
  CHECK_MSG(judged(&c, 1, got, want, &d) == 0, "tie, right: %s", d.msg);
}

/* Three f16 ones and 2^-24 into one position (include_self off; the
 * subnormal makes the f32 sum order-dependent, so the bound applies): n =
 * 4, sum|t| = 3 + 2^-24, bound 2 * gamma_4 * sum|t| + 2^-24 = 0.0117 (gamma_4
 * = 4u/(1-4u) with u = 2^-11). The f16 step above 3 is 2^-9: 6 steps
 * (0.01172) pass, 7 (0.0137) fail, though diff1 = 0.0046 is within the
 * table's 1e-2. An override installed for f16 restores the table. */
static void test_sum_bound_edge(void) {
  uint16_t x[1] = {0}, src[4] = {0x3C00, 0x3C00, 0x3C00, 0x0001};
  int64_t index[4] = {0, 0, 0, 0};
  sl_call c = reduce_call(SL_F16, SL_REDUCE_SUM, 0, 1, x, 4, index, src);
  const uint16_t want[1] = {0x4200};
  uint16_t got[1] = {0x4206};
  sl_diff d;
  CHECK_MSG(judged(&c, 1, got, want, &d) == 0, "6 ulps: %s", d.msg);
  got[0] = 0x4207;
  CHECK_MSG(judged(&c, 1, got, want, &d) == 1 && strstr(d.msg, "sum bound") &&
                strstr(d.msg, "n=4"),
            "7 ulps: %s", d.msg);
  sl_tolerances t = {0};
  CHECK(sl_tolerances_parse(&t, "test", "f16=1e-2") == 0);
  sl_tolerances_install(&t);
  CHECK_MSG(judged(&c, 1, got, want, &d) == 0, "override: %s", d.msg);
  got[0] = 0x4500; /* 5: diff1 0.25 */
  CHECK_MSG(judged(&c, 1, got, want, &d) == 1 &&
                strstr(d.msg, "--tolerance override"),
            "override: %s", d.msg);
  sl_tolerances none = {0};
  sl_tolerances_install(&none);
}

/* dynamic_scatter's voxel sums are judged per voxel through the point map
 * the call produced (writes.c): a voxel of one point is that point's value
 * exactly, so a one-ulp error there fails (the per-dtype table took it:
 * diff1 about 1e-7); a voxel of two points may round either way; points
 * mapped to -1 are dropped. */
static void test_dynamic_per_voxel(void) {
  float feats[4] = {1.0f, 0.1f, 0.2f, 5.0f};
  int32_t map[4] = {0, 0, -1, 1};
  const int64_t fs[2] = {4, 1}, ms[1] = {4}, vs[2] = {2, 1};
  float want[2] = {1.1f, 5.0f};
  sl_call c;
  sl_call_init(&c, SL_OP_DYNAMIC_SCATTER);
  c.arg[0] = sl_tensor_make(SL_F32, 2, fs, feats);
  c.arg[4] = sl_tensor_make(SL_I32, 1, ms, map);
  c.p.reduce = SL_REDUCE_SUM;
  c.out_rows = 2;
  sl_tensor w = sl_tensor_make(SL_F32, 2, vs, want);
  float got[2] = {1.1f, nextafterf(5.0f, 6.0f)};
  sl_tensor g = sl_tensor_make(SL_F32, 2, vs, got);
  sl_diff d;
  CHECK_MSG(sl_compare(&g, &w, SL_ORACLE_TOLERANCE, &c, &d) == 0 &&
                d.first_bad == 1 && strstr(d.msg, "exact: one value written"),
            "one point: %s", d.msg);
  got[1] = 5.0f;
  got[0] = nextafterf(1.1f, 2.0f); /* 1 + 0.1 in the other order */
  CHECK_MSG(sl_compare(&g, &w, SL_ORACLE_TOLERANCE, &c, &d) == 1,
            "two points: %s", d.msg);
}

/* Flushing adds (SL_CMP_FTZ_ADDS): the fuzz campaign's minimal case of an
 * H200 (scatter_reduce f32 sum, include_self=0, one subnormal
 * contribution): cuda.atomic wrote 0 where 2.452802e-39 was expected. It
 * fails for a variant without the flag, passes with it; a difference above
 * the smallest normal, or any in f64 (whose atomic adds keep subnormals),
 * still fails. */
static void test_flushed_subnormal(void) {
  float x[1] = {6.2185506e-39f}, src[1] = {2.452802e-39f};
  int64_t index[1] = {0};
  sl_call c = reduce_call(SL_F32, SL_REDUCE_SUM, 0, 1, x, 1, index, src);
  const int64_t shape[1] = {1};
  float want[1] = {2.452802e-39f}, got[1] = {0.0f};
  sl_tensor g = sl_tensor_make(SL_F32, 1, shape, got);
  sl_tensor w = sl_tensor_make(SL_F32, 1, shape, want);
  sl_diff d;
  CHECK_MSG(sl_compare(&g, &w, SL_ORACLE_TOLERANCE, &c, &d) == 0, "no flag: %s",
            d.msg);
  CHECK_MSG(sl_compare_as(&g, &w, SL_ORACLE_TOLERANCE, &c, SL_CMP_FTZ_ADDS,
                          &d) == 1 &&
                d.flushed == 1,
            "flushed: %s", d.msg);
  got[0] = -2.0f * FLT_MIN;
  CHECK_MSG(
      sl_compare_as(&g, &w, SL_ORACLE_TOLERANCE, &c, SL_CMP_FTZ_ADDS, &d) == 0,
      "two smallest normals off: %s", d.msg);
  double dx[1] = {1e-310}, dsrc[1] = {2e-310}, dwant[1] = {2e-310},
         dgot[1] = {0.0};
  sl_call dc = reduce_call(SL_F64, SL_REDUCE_SUM, 0, 1, dx, 1, index, dsrc);
  sl_tensor dg = sl_tensor_make(SL_F64, 1, shape, dgot);
  sl_tensor dw = sl_tensor_make(SL_F64, 1, shape, dwant);
  CHECK_MSG(sl_compare_as(&dg, &dw, SL_ORACLE_TOLERANCE, &dc, SL_CMP_FTZ_ADDS,
                          &d) == 0,
            "f64: %s", d.msg);
}

int main(void) {
  test_flushed_subnormal();
  test_dynamic_per_voxel();
  test_nan_bits();
  test_identical_buffers();
  test_tolerance_extreme();
  test_single_contribution_exact();
  test_reordered_half_sum_passes();
  test_exact_half_sum_fails();
  test_tie_rounding_fails();
  test_sum_bound_edge();
  return sl_test_finish("test_oracles");
}
