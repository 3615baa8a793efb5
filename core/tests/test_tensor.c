/* Descriptor checks: numel overflow, bad extents/strides, names, halves. */
#include <stdint.h>

#include "half_blocks.h"
#include "sl/sl.h"
#include "sl_test.h"

static void test_numel_and_overflow(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  int64_t shape[3] = {4, 3, 2}, n = -1;
  float buf[24];
  sl_tensor t = sl_tensor_make(SL_F32, 3, shape, buf);
  CHECK(sl_tensor_numel(&ctx, "x", &t, &n) == SL_STATUS_OK && n == 24);
  CHECK(t.strides[0] == 6 && t.strides[1] == 2 && t.strides[2] == 1);
  CHECK(sl_tensor_is_contiguous(&t));

  int64_t huge[2] = {INT64_C(1) << 40, INT64_C(1) << 40};
  sl_tensor h = sl_tensor_make(SL_F32, 2, huge, NULL);
  CHECK(sl_tensor_numel(&ctx, "x", &h, &n) == SL_STATUS_OVERFLOW);
  CHECK_CONTAINS(ctx.msg, "x: shape [1099511627776,1099511627776]");

  int64_t empty[3] = {0, INT64_C(1) << 62, 5};
  sl_tensor e = sl_tensor_make(SL_F32, 3, empty, NULL);
  /* 2^62 * 5 * 4 bytes overflows even though a zero extent makes it empty. */
  CHECK(sl_tensor_numel(&ctx, "x", &e, &n) == SL_STATUS_OVERFLOW);
  empty[1] = 7;
  e = sl_tensor_make(SL_F32, 3, empty, NULL);
  CHECK(sl_tensor_check(&ctx, "x", &e) == SL_STATUS_OK);

  int64_t neg[1] = {-2};
  sl_tensor g = sl_tensor_make(SL_F32, 1, neg, buf);
  CHECK(sl_tensor_check(&ctx, "src", &g) == SL_STATUS_INVALID_ARGUMENT);
  CHECK_CONTAINS(ctx.msg, "src: expected extents >= 0, got shape[0] = -2");

  t.ndim = 9;
  CHECK(sl_tensor_check(&ctx, "x", &t) == SL_STATUS_INVALID_ARGUMENT);
  CHECK_CONTAINS(ctx.msg, "expected ndim in [0,8], got 9");
  t.ndim = 3;
  t.data = NULL;
  CHECK(sl_tensor_check(&ctx, "x", &t) == SL_STATUS_NULL_POINTER);
  CHECK_CONTAINS(ctx.msg, "x: expected data for 24 elements");
  t.data = buf;
  t.strides[1] = -1;
  CHECK(sl_tensor_check(&ctx, "x", &t) == SL_STATUS_INVALID_ARGUMENT);
}

static void test_names(void) {
  for (int i = 0; i < SL_DTYPE_COUNT; ++i)
    CHECK(sl_dtype_from_name(sl_dtype_name((sl_dtype)i)) == i);
  CHECK(sl_dtype_from_name("f128") == -1);
  for (int i = 0; i < SL_OP_COUNT; ++i)
    CHECK(sl_op_from_name(sl_op_name((sl_op)i)) == i);
  for (int i = 0; i < SL_REDUCE_COUNT; ++i)
    CHECK(sl_reduce_from_name(sl_reduce_name((sl_reduce)i)) == i);
  CHECK(strcmp(sl_status_name(SL_STATUS_INDEX_OUT_OF_RANGE),
               "index_out_of_range") == 0);
  CHECK(sl_op_arg(SL_OP_SCATTER, "src") == 2);
  CHECK(sl_op_arg(SL_OP_DYNAMIC_SCATTER, "voxel_points_count") == 5);
  CHECK(sl_op_arg(SL_OP_GATHER, "nope") == -1);
}

static void test_half(void) {
  /* Every finite half round-trips through float exactly. */
  for (uint32_t h = 0; h < 0x10000u; ++h) {
    if ((h & 0x7c00u) == 0x7c00u && (h & 0x3ffu)) continue; /* NaN */
    CHECK(sl_f32_to_f16(sl_f16_to_f32((uint16_t)h)) == h);
  }
  CHECK(sl_f32_to_f16(65520.0f) == 0x7c00u);           /* rounds to inf */
  CHECK(sl_f32_to_f16(65504.0f) == 0x7bffu);           /* max half */
  CHECK(sl_f32_to_f16(1.0f + 1.0f / 2048) == 0x3c00u); /* tie to even */
  CHECK(sl_f16_to_f32(0x0001u) == 5.9604644775390625e-8f);
  /* Bits the arithmetic of the conversion could lose: -0's sign, a
   * signalling NaN's payload (a multiply would quiet it). */
  const float negzero = sl_f16_to_f32(0x8000u), snan = sl_f16_to_f32(0x7c01u);
  uint32_t bits;
  memcpy(&bits, &negzero, 4);
  CHECK(bits == 0x80000000u);
  memcpy(&bits, &snan, 4);
  CHECK(bits == 0x7f802000u);
  CHECK(sl_f32_to_bf16(1.0f) == 0x3f80u);
  CHECK(sl_bf16_to_f32(0xc000u) == -2.0f);
  CHECK(isnan(sl_bf16_to_f32(sl_f32_to_bf16(NAN))));
}

static int same_half(uint16_t a, uint16_t b, int bf16) {
  const uint16_t nan_min = bf16 ? 0x7f81u : 0x7c01u;
  if ((a & 0x7fffu) >= nan_min) return (b & 0x7fffu) >= nan_min;
  return a == b;
}

/* The block conversions (F16C where the CPU has it) give the scalar ones'
 * values: every half, and floats between halves (ties, the subnormal
 * range, overflow), in blocks whose length is not a multiple of 8. */
static void test_half_blocks(void) {
  enum { N = 0x10000 };
  static uint16_t h[N], back[N];
  static float f[N];
  for (int dt = 0; dt < 2; ++dt) {
    const sl_dtype d = dt ? SL_BF16 : SL_F16;
    for (uint32_t i = 0; i < N; ++i) h[i] = (uint16_t)i;
    sl__half_load_block(d, h, f, N - 3);
    for (uint32_t i = 0; i < N - 3; ++i) {
      const float want = dt ? sl__bf16_to_f32(h[i]) : sl__f16_to_f32(h[i]);
      CHECK(isnan(want) ? isnan(f[i])
                        : f[i] == want && signbit(f[i]) == signbit(want));
    }
    /* floats between neighbouring halves: each half plus bits below its
     * precision (a tie every eighth), from the subnormals to overflow */
    for (uint32_t i = 0; i < N; ++i) {
      const float base =
          dt ? sl__bf16_to_f32((uint16_t)i) : sl__f16_to_f32((uint16_t)i);
      const uint32_t below = dt ? 16 : 13, tie = 1u << (below - 1);
      uint32_t bits, delta = (i * 0x9e3779b1u >> 7) & ((1u << below) - 1);
      memcpy(&bits, &base, 4);
      if (!isnan(base)) bits += (i & 7u) ? delta : tie;
      memcpy(&f[i], &bits, 4);
    }
    sl__half_store_block(d, f, back, N - 5);
    for (uint32_t i = 0; i < N - 5; ++i)
      CHECK(same_half(back[i],
                      dt ? sl__f32_to_bf16(f[i]) : sl__f32_to_f16(f[i]), dt));
  }
}

int main(void) {
  test_numel_and_overflow();
  test_names();
  test_half();
  test_half_blocks();
  return sl_test_finish("test_tensor");
}
