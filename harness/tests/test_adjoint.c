/*
 * The adjoint identity (adjoint.h) on outputs of the core's own cpu.serial
 * kernels, which must satisfy it, and on the same outputs with one update
 * misplaced, dropped or doubled, which must not: for each of the three
 * adding scatters, in f32, f64 and f16. Then the backward ops against
 * their forward (Euler's identity): scatter_reduce_backward and
 * index_reduce_backward on cpu.serial's gradients, dynamic_scatter_backward
 * on gradients worked out here, and each with one gradient moved.
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

/* The identity on c's outputs as they are, then with element `at` of slot
 * `slot` (an output: out, or a gradient) moved by delta. */
static void check_slot(const char *what, sl_call *c, int slot, int at,
                       double delta) {
  int applied = -1;
  char msg[512];
  CHECK_MSG(sl_adjoint_agrees(c, c, 7, &applied, msg, sizeof msg) == 1 &&
                applied == 1,
            "%s: %s (applied %d)", what, msg, applied);
  const sl_tensor *t = &c->arg[slot];
  char *p = (char *)t->data + (size_t)at * sl_dtype_size(t->dtype);
  const double keep = sl_elem_get_f(t->dtype, p);
  sl_elem_set_f(t->dtype, p, keep + delta);
  CHECK_MSG(sl_adjoint_agrees(c, c, 7, &applied, msg, sizeof msg) == 0,
            "%s: %g more at %s[%d] went unseen", what, delta,
            sl_op_get(c->op)->arg_names[slot], at);
  CHECK_CONTAINS(msg, "adjoint identity broken");
  sl_elem_set_f(t->dtype, p, keep);
}

/* The same on a forward call's out (run_serial's). */
static void check(const char *what, sl_call *c, int at, double delta) {
  check_slot(what, c, sl_op_get(c->op)->n_in, at, delta);
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
    check(sl_dtype_name(dts[k]), &c, 5, 0.25);
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
  check("index_reduce", &c, 7, -0.5);
  /* Along axis 1: index of 4 over x's 4 columns, updates 3x4. */
  static int64_t index1[4] = {3, 3, 0, 1};
  const int64_t is1[1] = {4}, us1[2] = {3, 4};
  c.arg[1] = sl_tensor_make(SL_I64, 1, is1, index1);
  c.arg[2] = sl_tensor_make(SL_F32, 2, us1, src);
  c.p.dim = 1;
  CHECK(run_serial(&c, out, sizeof out) == 0);
  check("index_reduce axis 1", &c, 3, 1.0);
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
  check("scatter_nd", &c, 1, 0.125);
}

/* scatter_reduce_backward (x 3x4, index and src 6x4 along dim 0) and
 * index_reduce_backward (x 3x4, index 6, updates 6x4): cpu.serial's
 * result, then its gradients, for each reduce the identity takes. */
static void test_reduce_backward(void) {
  static float g[12], result[12], gx[12], gs[24], gi[24];
  static int64_t index6[6] = {2, 0, 2, 1, 0, 2};
  for (int i = 0; i < 12; ++i) g[i] = (float)((i * 3) % 7) / 2 - 1;
  const int64_t xs_[2] = {3, 4}, is[2] = {6, 4}, i1[1] = {6};
  const sl_op ops[2] = {SL_OP_SCATTER_REDUCE_BACKWARD,
                        SL_OP_INDEX_REDUCE_BACKWARD};
  const sl_reduce rs[3] = {SL_REDUCE_SUM, SL_REDUCE_MEAN, SL_REDUCE_AMAX};
  for (int o = 0; o < 2; ++o)
    for (int k = 0; k < 3; ++k)
      for (int self = 0; self <= 1; ++self) {
        const int index_reduce = ops[o] == SL_OP_INDEX_REDUCE_BACKWARD;
        if (index_reduce && rs[k] == SL_REDUCE_SUM) continue; /* no sum */
        sl_call f;
        sl_call_init(&f,
                     index_reduce ? SL_OP_INDEX_REDUCE : SL_OP_SCATTER_REDUCE);
        f.arg[0] = sl_tensor_make(SL_F32, 2, xs_, x);
        f.arg[1] = index_reduce ? sl_tensor_make(SL_I64, 1, i1, index6)
                                : sl_tensor_make(SL_I64, 2, is, idx);
        f.arg[2] = sl_tensor_make(SL_F32, 2, is, src);
        f.p.reduce = rs[k];
        f.p.include_self = self;
        CHECK(run_serial(&f, result, sizeof result) == 0);
        sl_call c;
        sl_call_init(&c, ops[o]);
        c.p = f.p;
        c.arg[0] = sl_tensor_make(SL_F32, 2, xs_, g);
        for (int s = 0; s < 3; ++s) c.arg[s + 1] = f.arg[s];
        c.arg[4] = sl_tensor_make(SL_F32, 2, xs_, result);
        sl_ctx ctx;
        sl_ctx_init(&ctx);
        CHECK(sl_infer(&ctx, &c) == SL_STATUS_OK);
        c.arg[5].data = gx;
        c.arg[6].data = index_reduce ? gi : gs;
        CHECK(sl_run(&ctx, "cpu.serial", &c) == SL_STATUS_OK);
        char what[96];
        snprintf(what, sizeof what, "%s %s self=%d", sl_op_name(ops[o]),
                 sl_reduce_name(rs[k]), self);
        int applied = -1;
        char msg[512];
        if (rs[k] == SL_REDUCE_AMAX && !self) {
          /* LibTorch's ties rule without self: not judged. */
          CHECK(sl_adjoint_agrees(&c, &c, 7, &applied, msg, sizeof msg) == 1 &&
                applied == 0);
          continue;
        }
        check_slot(what, &c, 6, 5, 0.5);
        if (self) check_slot(what, &c, 5, 7, -0.5);
      }
}

/* dynamic_scatter_backward: 6 points of 2 channels in 3 voxels (one point
 * dropped), voxel_feats the sum, mean or max worked out here, and the
 * gradients as mmcv gives them (a max's to the first point equal to it). */
static void test_dynamic_backward(void) {
  static float feats[12], vf[6], gv[6], gf[12];
  static int32_t map[6] = {0, 1, 0, 2, -1, 0}, count[3] = {3, 1, 1};
  for (int i = 0; i < 12; ++i) feats[i] = (float)((i * 5) % 9) / 4 - 1;
  for (int i = 0; i < 6; ++i) gv[i] = (float)(i % 4) - 1.5f;
  const sl_reduce rs[3] = {SL_REDUCE_SUM, SL_REDUCE_MEAN, SL_REDUCE_MAX};
  for (int k = 0; k < 3; ++k) {
    for (int v = 0; v < 6; ++v) vf[v] = rs[k] == SL_REDUCE_MAX ? -INFINITY : 0;
    for (int p = 0; p < 6; ++p)
      for (int ch = 0; ch < 2 && map[p] >= 0; ++ch) {
        float *o = &vf[map[p] * 2 + ch];
        const float f = feats[p * 2 + ch];
        *o = rs[k] == SL_REDUCE_MAX ? (f > *o ? f : *o) : *o + f;
      }
    if (rs[k] == SL_REDUCE_MEAN)
      for (int v = 0; v < 6; ++v) vf[v] /= (float)count[v / 2];
    memset(gf, 0, sizeof gf);
    for (int v = 0; v < 6; ++v) {
      int first = -1;
      for (int p = 0; p < 6; ++p)
        if (map[p] == v / 2 && first < 0 && feats[p * 2 + v % 2] == vf[v])
          first = p;
      for (int p = 0; p < 6; ++p) {
        if (map[p] != v / 2) continue;
        gf[p * 2 + v % 2] = rs[k] == SL_REDUCE_SUM    ? gv[v]
                            : rs[k] == SL_REDUCE_MEAN ? gv[v] / count[v / 2]
                            : p == first              ? gv[v]
                                                      : 0;
      }
    }
    sl_call c;
    sl_call_init(&c, SL_OP_DYNAMIC_SCATTER_BACKWARD);
    c.p.reduce = rs[k];
    const int64_t pc[2] = {6, 2}, vc[2] = {3, 2}, n[1] = {6}, m[1] = {3};
    c.arg[0] = sl_tensor_make(SL_F32, 2, vc, gv);
    c.arg[1] = sl_tensor_make(SL_F32, 2, pc, feats);
    c.arg[2] = sl_tensor_make(SL_F32, 2, vc, vf);
    c.arg[3] = sl_tensor_make(SL_I32, 1, n, map);
    c.arg[4] = sl_tensor_make(SL_I32, 1, m, count);
    c.arg[5] = sl_tensor_make(SL_F32, 2, pc, gf);
    check_slot(sl_reduce_name(rs[k]), &c, 5, 2, 0.5);
  }
}

int main(void) {
  fill();
  test_reduce_backward();
  test_dynamic_backward();
  test_scatter_reduce();
  test_index_reduce();
  test_scatter_nd();
  return sl_test_finish("test_adjoint");
}
