/*
 * The adjoint identity (adjoint.h) on outputs of the core's own cpu.serial
 * kernels, which must satisfy it, and on the same outputs with one update
 * misplaced, dropped or doubled, which must not: for each of the three
 * adding scatters, in f32, f64 and f16.
 */
#include <math.h>
#include <string.h>

#include "adjoint.h"
#include "sl_test.h"

/* Runs cpu.serial on c (inputs set; outputs allocated here into out). */
static int run_serial(sl_call *c, void *out, size_t bytes) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  if (sl_infer(&ctx, c)) return -1;
  const sl_op_info *info = sl_op_get(c->op);
  memset(out, 0, bytes);
  c->arg[info->n_in].data = out;
  return sl_run(&ctx, "cpu.serial", c) == SL_STATUS_OK ? 0 : -1;
}

static float x[12], src[24];
static double xd[12], srcd[24];
static uint16_t xh[12], srch[24];
static int64_t idx[24];

static void fill(void) {
  for (int i = 0; i < 12; ++i) x[i] = (float)(i % 5) - 1.5f, xd[i] = x[i];
  for (int i = 0; i < 24; ++i) {
    src[i] = (float)((i * 7) % 11) / 4 - 1;
    srcd[i] = src[i];
    idx[i] = (i * 5) % 3; /* 0..2: every target hit several times */
  }
  /* f16: the same small values, exact in half precision. */
  for (int i = 0; i < 12; ++i) sl_elem_set_f(SL_F16, &xh[i], x[i]);
  for (int i = 0; i < 24; ++i) sl_elem_set_f(SL_F16, &srch[i], src[i]);
}

/* The identity on c's first run out, then with out[at] moved by delta. */
static void check(const char *what, sl_call *c, void *outv, sl_dtype dt, int at,
                  double delta) {
  int applied = -1;
  char msg[512];
  CHECK_MSG(sl_adjoint_agrees(c, c, 7, &applied, msg, sizeof msg) == 1 &&
                applied == 1,
            "%s: %s (applied %d)", what, msg, applied);
  const sl_op_info *info = sl_op_get(c->op);
  char *p = (char *)outv + (size_t)at * sl_dtype_size(dt);
  const double keep = sl_elem_get_f(dt, p);
  sl_elem_set_f(dt, p, keep + delta);
  CHECK_MSG(sl_adjoint_agrees(c, c, 7, &applied, msg, sizeof msg) == 0,
            "%s: an update of %g more at %d went unseen", what, delta, at);
  CHECK_CONTAINS(msg, "adjoint identity broken");
  sl_elem_set_f(dt, p, keep);
  (void)info;
}

static void test_scatter_reduce(void) {
  const sl_dtype dts[3] = {SL_F32, SL_F64, SL_F16};
  void *xs[3] = {x, xd, xh}, *ss[3] = {src, srcd, srch};
  static double out[12];
  for (int k = 0; k < 3; ++k) {
    /* x 3x4, index 6x4 (values 0..2 along dim 0), src 6x4. */
    const int64_t xs_[2] = {3, 4}, is[2] = {6, 4};
    sl_call c;
    sl_call_init(&c, SL_OP_SCATTER_REDUCE);
    c.arg[0] = sl_tensor_make(dts[k], 2, xs_, xs[k]);
    c.arg[1] = sl_tensor_make(SL_I64, 2, is, idx);
    c.arg[2] = sl_tensor_make(dts[k], 2, is, ss[k]);
    c.p.reduce = SL_REDUCE_SUM;
    c.p.include_self = 1;
    CHECK(run_serial(&c, out, sizeof out) == 0);
    check(sl_dtype_name(dts[k]), &c, out, dts[k], 5, 0.25);
    /* A one-ulp error of the half type must not trip it. */
    if (dts[k] == SL_F16) {
      int applied;
      char msg[512];
      char *p = (char *)out + 5 * 2;
      const double keep = sl_elem_get_f(SL_F16, p);
      const double ulp = keep != 0 ? ldexp(1, ilogb(keep) - 10) : ldexp(1, -24);
      sl_elem_set_f(SL_F16, p, keep + ulp);
      CHECK(sl_elem_get_f(SL_F16, p) != keep);
      CHECK(sl_adjoint_agrees(&c, &c, 7, &applied, msg, sizeof msg) == 1);
      sl_elem_set_f(SL_F16, p, keep);
    }
    /* Not an adding scatter: no judgement. */
    int applied = -1;
    char msg[512];
    c.p.reduce = SL_REDUCE_AMAX;
    CHECK(sl_adjoint_agrees(&c, &c, 7, &applied, msg, sizeof msg) == 1 &&
          applied == 0);
    c.p.reduce = SL_REDUCE_SUM;
    c.p.include_self = 0;
    CHECK(sl_adjoint_agrees(&c, &c, 7, &applied, msg, sizeof msg) == 1 &&
          applied == 0);
  }
  /* A NaN in the inputs: no inner product, no judgement. */
  float nan_src[24];
  memcpy(nan_src, src, sizeof nan_src);
  nan_src[3] = NAN;
  const int64_t xs_[2] = {3, 4}, is[2] = {6, 4};
  sl_call c;
  sl_call_init(&c, SL_OP_SCATTER_REDUCE);
  c.arg[0] = sl_tensor_make(SL_F32, 2, xs_, x);
  c.arg[1] = sl_tensor_make(SL_I64, 2, is, idx);
  c.arg[2] = sl_tensor_make(SL_F32, 2, is, nan_src);
  c.p.reduce = SL_REDUCE_SUM;
  c.p.include_self = 1;
  static float nan_out[12];
  CHECK(run_serial(&c, nan_out, sizeof nan_out) == 0);
  int applied = -1;
  char msg[512];
  CHECK(sl_adjoint_agrees(&c, &c, 7, &applied, msg, sizeof msg) == 1 &&
        applied == 0);
}

static void test_index_reduce(void) {
  /* x 3x4; along axis 0: an index of 6 rows, updates 6x4. */
  static float out[12];
  static int64_t index[6] = {2, 0, 2, 1, 0, 2};
  const int64_t xs_[2] = {3, 4}, is[1] = {6}, us[2] = {6, 4};
  sl_call c;
  sl_call_init(&c, SL_OP_INDEX_REDUCE);
  c.arg[0] = sl_tensor_make(SL_F32, 2, xs_, x);
  c.arg[1] = sl_tensor_make(SL_I64, 1, is, index);
  c.arg[2] = sl_tensor_make(SL_F32, 2, us, src);
  c.p.reduce = SL_REDUCE_SUM;
  c.p.include_self = 1;
  CHECK(run_serial(&c, out, sizeof out) == 0);
  check("index_reduce", &c, out, SL_F32, 7, -0.5);
  /* Along axis 1: index of 4 over x's 4 columns, updates 3x4. */
  static int64_t index1[4] = {3, 3, 0, 1};
  const int64_t is1[1] = {4}, us1[2] = {3, 4};
  c.arg[1] = sl_tensor_make(SL_I64, 1, is1, index1);
  c.arg[2] = sl_tensor_make(SL_F32, 2, us1, src);
  c.p.dim = 1;
  CHECK(run_serial(&c, out, sizeof out) == 0);
  check("index_reduce axis 1", &c, out, SL_F32, 3, 1.0);
}

static void test_scatter_nd(void) {
  /* x 3x4, index 5x1x2 (5 tuples of (row, column)), src 5x1. */
  static float out[12];
  static int64_t index[10] = {0, 1, 2, 3, 0, 1, 1, 0, 2, 3};
  const int64_t xs_[2] = {3, 4}, is[3] = {5, 1, 2}, ss[2] = {5, 1};
  sl_call c;
  sl_call_init(&c, SL_OP_SCATTER_ND);
  c.arg[0] = sl_tensor_make(SL_F32, 2, xs_, x);
  c.arg[1] = sl_tensor_make(SL_I64, 3, is, index);
  c.arg[2] = sl_tensor_make(SL_F32, 2, ss, src);
  c.p.reduce = SL_REDUCE_SUM;
  CHECK(run_serial(&c, out, sizeof out) == 0);
  check("scatter_nd", &c, out, SL_F32, 1, 0.125);
}

int main(void) {
  fill();
  test_scatter_reduce();
  test_index_reduce();
  test_scatter_nd();
  return sl_test_finish("test_adjoint");
}
