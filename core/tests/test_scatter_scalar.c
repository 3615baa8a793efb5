/*
 * scatter's scalar on every CPU variant: for every dtype, the values at
 * each end of what the dtype holds are taken and the values one past them
 * refused (status invalid_argument, nothing written), as LibTorch 2.11
 * refuses them. The expected answers are written out by hand, not read
 * from the core's table, so that a wrong row in the table shows.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core_test.h"
#include "sl/sl.h"
#include "sl_test.h"

typedef struct {
  sl_dtype dt;
  double value;   /* the scalar of float, complex and bool x */
  int64_t ivalue; /* the scalar of integer x */
  int ok;         /* 1: taken, 0: refused */
} scalar_case;

/* Integer x: ivalue exact, value the nearest double (as the harness sets
 * them). Other x: value. */
#define I(dt, v, ok)                                                           \
  { SL_##dt, (double)(v), (v), ok }
#define F(dt, v, ok)                                                           \
  { SL_##dt, (v), 0, ok }

static const scalar_case CASES[] = {
    /* bool: LibTorch converts any value (value != 0) */
    F(BOOL, 0, 1),
    F(BOOL, 2, 1),
    F(BOOL, -1, 1),
    F(BOOL, 0.5, 1),
    F(BOOL, NAN, 1),
    F(BOOL, INFINITY, 1),
    F(BOOL, 1e300, 1),
    /* u8: a negative value down to -255 wraps modulo 256, as in LibTorch */
    I(U8, -256, 0),
    I(U8, -255, 1),
    I(U8, -1, 1),
    I(U8, 0, 1),
    I(U8, 255, 1),
    I(U8, 256, 0),
    I(I8, -129, 0),
    I(I8, -128, 1),
    I(I8, 127, 1),
    I(I8, 128, 0),
    I(I8, 300, 0),
    I(I16, -32769, 0),
    I(I16, -32768, 1),
    I(I16, 32767, 1),
    I(I16, 32768, 0),
    I(I16, 40000, 0),
    I(I32, -2147483649LL, 0),
    I(I32, -2147483648LL, 1),
    I(I32, 2147483647LL, 1),
    I(I32, 2147483648LL, 0),
    I(I64, INT64_MIN, 1),
    I(I64, INT64_MAX, 1),
    /* f16: 65504 is its largest; 65505 rounds to it but is refused, as
     * LibTorch compares before rounding */
    F(F16, 65504, 1),
    F(F16, -65504, 1),
    F(F16, 65505, 0),
    F(F16, -65505, 0),
    F(F16, 65519, 0),
    F(F16, 65520, 0),
    F(F16, 70000, 0),
    F(F16, INFINITY, 1),
    F(F16, -INFINITY, 1),
    F(F16, NAN, 1),
    /* bf16: 0x1.fep127 = 3.3895313892515355e38 and the next double up */
    F(BF16, 0x1.fep127, 1),
    F(BF16, -0x1.fep127, 1),
    F(BF16, 0x1.fe00000000001p127, 0),
    F(BF16, -0x1.fe00000000001p127, 0),
    F(BF16, 1e39, 0),
    F(BF16, INFINITY, 1),
    F(BF16, NAN, 1),
    /* f32: FLT_MAX = 3.4028234663852886e38 and the next double up */
    F(F32, 0x1.fffffep127, 1),
    F(F32, -0x1.fffffep127, 1),
    F(F32, 0x1.fffffe0000001p127, 0),
    F(F32, -0x1.fffffe0000001p127, 0),
    F(F32, 1e39, 0),
    F(F32, -INFINITY, 1),
    F(F32, NAN, 1),
    F(F64, DBL_MAX, 1),
    F(F64, -DBL_MAX, 1),
    F(F64, INFINITY, 1),
    F(F64, NAN, 1),
    /* complex: as the float of its parts */
    F(C64, 0x1.fffffep127, 1),
    F(C64, 0x1.fffffe0000001p127, 0),
    F(C64, -1e39, 0),
    F(C64, INFINITY, 1),
    F(C64, NAN, 1),
    F(C128, DBL_MAX, 1),
    F(C128, -DBL_MAX, 1),
    F(C128, NAN, 1),
};

/* x [4] of zeros, index {1, 3}: out[1] and out[3] take the scalar. */
static sl_status run(sl_ctx *ctx, const char *variant, const scalar_case *k,
                     int64_t n_index, unsigned char *out) {
  static unsigned char zeros[4 * 16];
  static const int64_t idx[2] = {1, 3};
  sl_call c;
  sl_call_init(&c, SL_OP_SCATTER);
  c.arg[0] = sl_tensor_make(k->dt, 1, (int64_t[]){4}, zeros);
  c.arg[1] = sl_tensor_make(SL_I64, 1, (int64_t[]){n_index}, (void *)idx);
  c.arg[3] = sl_tensor_make(k->dt, 1, (int64_t[]){4}, out);
  c.p.has_value = 1;
  c.p.value = k->value;
  c.p.ivalue = k->ivalue;
  return sl_run(ctx, variant, &c);
}

static void test_boundaries(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  int ran = 0;
  FOR_EACH_VARIANT(SL_OP_SCATTER, v) {
    ++ran;
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; ++i) {
      const scalar_case *k = &CASES[i];
      unsigned char out[4 * 16];
      memset(out, 0x5a, sizeof out);
      sl_status st = run(&ctx, v->name, k, 2, out);
      CHECK_MSG(st == (k->ok ? SL_STATUS_OK : SL_STATUS_INVALID_ARGUMENT),
                "%s %s value %.17g ivalue %lld: %s (%s)", v->name,
                sl_dtype_name(k->dt), k->value, (long long)k->ivalue,
                k->ok ? "refused" : "taken", sl_ctx_message(&ctx));
      if (!k->ok) {
        CHECK_CONTAINS(sl_ctx_message(&ctx), "value: expected a value "
                                             "representable in");
        CHECK_MSG(out[0] == 0x5a && out[sizeof out - 1] == 0x5a,
                  "%s %s: out written for a value to refuse", v->name,
                  sl_dtype_name(k->dt));
      }
      /* Nothing to scatter: LibTorch takes any value, so does the core. */
      CHECK_MSG(run(&ctx, v->name, k, 0, out) == SL_STATUS_OK,
                "%s %s empty index: %s", v->name, sl_dtype_name(k->dt),
                sl_ctx_message(&ctx));
    }
  }
  CHECK(ran >= 2);
}

/* What the boundaries store, and the message of a refusal. */
static void test_stored(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  unsigned char out[4 * 16];
  const scalar_case u8m1 = I(U8, -1, 1), i64min = I(I64, INT64_MIN, 1);
  const scalar_case f16max = F(F16, 65504, 1), b2 = F(BOOL, 2, 1);
  CHECK(run(&ctx, "cpu.serial", &u8m1, 2, out) == SL_STATUS_OK);
  CHECK(out[1] == 255 && out[3] == 255 && out[0] == 0);
  CHECK(run(&ctx, "cpu.serial", &i64min, 2, out) == SL_STATUS_OK);
  CHECK(sl_elem_get_i(SL_I64, out + 8) == INT64_MIN);
  CHECK(run(&ctx, "cpu.serial", &f16max, 2, out) == SL_STATUS_OK);
  CHECK(sl_elem_get_f(SL_F16, out + 2) == 65504.0);
  CHECK(run(&ctx, "cpu.serial", &b2, 2, out) == SL_STATUS_OK);
  CHECK(out[1] == 1 && out[3] == 1);

  const scalar_case u8 = I(U8, 256, 0), f16 = F(F16, 70000, 0);
  const scalar_case bf16 = F(BF16, 1e39, 0);
  CHECK(run(&ctx, "cpu.serial", &u8, 2, out) == SL_STATUS_INVALID_ARGUMENT);
  CHECK_CONTAINS(sl_ctx_message(&ctx),
                 "value: expected a value representable in u8 [-255, 255], "
                 "got 256");
  CHECK(run(&ctx, "cpu.serial", &f16, 2, out) == SL_STATUS_INVALID_ARGUMENT);
  CHECK_CONTAINS(sl_ctx_message(&ctx),
                 "value: expected a value representable in f16 [-65504, "
                 "65504] (or inf or nan), got 70000");
  CHECK(run(&ctx, "cpu.serial", &bf16, 2, out) == SL_STATUS_INVALID_ARGUMENT);
  CHECK_CONTAINS(sl_ctx_message(&ctx), "got 1e+39");
}

/* The public wrapper goes through the same check. */
static void test_public_entry(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  int8_t x[3] = {0, 0, 0}, out[3] = {7, 7, 7};
  int64_t idx[1] = {2};
  sl_tensor tx = sl_tensor_make(SL_I8, 1, (int64_t[]){3}, x);
  sl_tensor ti = sl_tensor_make(SL_I64, 1, (int64_t[]){1}, idx);
  sl_tensor to = sl_tensor_make(SL_I8, 1, (int64_t[]){3}, out);
  CHECK(sl_scatter_value(&ctx, "cpu.serial", &tx, 0, &ti, 300, &to) ==
        SL_STATUS_INVALID_ARGUMENT);
  CHECK(out[0] == 7 && out[2] == 7);
  CHECK(sl_scatter_value(&ctx, "cpu.serial", &tx, 0, &ti, -128, &to) ==
        SL_STATUS_OK);
  CHECK(out[0] == 0 && out[2] == -128);
}

int main(void) {
  test_boundaries();
  test_stored();
  test_public_entry();
  return sl_test_finish("test_scatter_scalar");
}
