/*
 * The LibTorch reference shim against hand-computed answers, op by op (the
 * examples of seeds 000, 001 and 004 and small cases worked out from the
 * definitions of docs/spec.md), plus the rejections the harness relies on.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ref_fixture.h"

static void test_gather(void) {
  sl_tensor outs[SL_MAX_ARGS];
  char err[256];
  sl_call c;
  sl_call_init(&c, SL_OP_GATHER);
  c.arg[0] = mk(SL_F32, 2, S43, A);
  c.arg[1] = mk(SL_I64, 2, S23, IDX);
  /* dim 0: out[i][j] = A[index[i][j]][j]. */
  const double want0[6] = {0, 4, 5, 9, 7, 2};
  CHECK(run(&c, outs, err, sizeof err) == 0);
  CHECK(outs[0].dtype == SL_F32 && outs[0].strides[0] == 3);
  CHECK(same_f(&outs[0], 2, S23, want0));
  free_outs(outs, 1);

  /* dim 1: index value 3 is out of range for a row of 3. */
  c.p.dim = 1;
  CHECK(run(&c, outs, err, sizeof err) == 1);
  CHECK_CONTAINS(err, "out of bounds");
  CHECK(outs[0].data == NULL);

  /* An int32 index is widened, not rejected. */
  int32_t idx32[6] = {0, 1, 1, 3, 2, 0};
  c.p.dim = 0;
  c.arg[1] = mk(SL_I32, 2, S23, idx32);
  CHECK(run(&c, outs, err, sizeof err) == 0);
  CHECK(same_f(&outs[0], 2, S23, want0));
  free_outs(outs, 1);

  /* A transposed x: memory holds A^T (3x4), the descriptor reads A. */
  float at[12];
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 3; ++j) at[j * 4 + i] = A[i * 3 + j];
  c.arg[0] = mk(SL_F32, 2, S43, at);
  c.arg[0].strides[0] = 1;
  c.arg[0].strides[1] = 4;
  CHECK(run(&c, outs, err, sizeof err) == 0);
  CHECK(same_f(&outs[0], 2, S23, want0));
  free_outs(outs, 1);

  /* A broadcast (stride 0) x: every row is A's row 0 = [0,1,2]. */
  c.arg[0] = mk(SL_F32, 2, S43, A);
  c.arg[0].strides[0] = 0;
  const double want_b[6] = {0, 1, 2, 0, 1, 2};
  CHECK(run(&c, outs, err, sizeof err) == 0);
  CHECK(same_f(&outs[0], 2, S23, want_b));
  free_outs(outs, 1);

  /* A float index is LibTorch's to reject. */
  float fidx[6] = {0, 1, 1, 3, 2, 0};
  c.arg[0] = mk(SL_F32, 2, S43, A);
  c.arg[1] = mk(SL_F32, 2, S23, fidx);
  CHECK(run(&c, outs, err, sizeof err) == 1);
  CHECK_CONTAINS(err, "int64");

  /* An empty index with data NULL gives an empty output. */
  const int64_t s03[2] = {0, 3};
  c.arg[1] = mk(SL_I64, 2, s03, NULL);
  CHECK(run(&c, outs, err, sizeof err) == 0);
  CHECK(outs[0].ndim == 2 && outs[0].shape[0] == 0 && outs[0].shape[1] == 3);
  CHECK(outs[0].data == NULL);
  free_outs(outs, 1);

  /* A NULL pointer with elements is refused, not read. */
  c.arg[1] = mk(SL_I64, 2, S23, NULL);
  CHECK(run(&c, outs, err, sizeof err) == 1);
  CHECK_CONTAINS(err, "NULL");

  /* A short err buffer gets a truncated, terminated message. */
  char tiny[8];
  CHECK(slref_run(&c, outs, tiny, sizeof tiny) == 1);
  CHECK(strlen(tiny) == sizeof tiny - 1);
}

static void test_scatter(void) {
  sl_tensor outs[SL_MAX_ARGS];
  char err[256];
  float zeros[12] = {0}, src[6] = {0, 4, 5, 9, 7, 2};
  sl_call c;
  sl_call_init(&c, SL_OP_SCATTER);
  c.arg[0] = mk(SL_F32, 2, S43, zeros);
  c.arg[1] = mk(SL_I64, 2, S23, IDX);
  c.arg[2] = mk(SL_F32, 2, S23, src);
  /* out[index[i][j]][j] = src[i][j]: (0,0)=0 (1,1)=4 (1,2)=5 (3,0)=9 (2,1)=7
   * (0,2)=2. */
  const double want[12] = {0, 0, 2, 0, 4, 5, 0, 7, 0, 9, 0, 0};
  CHECK(run(&c, outs, err, sizeof err) == 0);
  CHECK(same_f(&outs[0], 2, S43, want));
  free_outs(outs, 1);
  CHECK(zeros[2] == 0); /* the input is not written */

  /* The scalar form on int64 keeps INT64_MIN exact. */
  int64_t xi[4] = {0, 0, 0, 0}, ii[2] = {1, 3};
  const int64_t s4[1] = {4}, s2[1] = {2};
  sl_call_init(&c, SL_OP_SCATTER);
  c.arg[0] = mk(SL_I64, 1, s4, xi);
  c.arg[1] = mk(SL_I64, 1, s2, ii);
  c.p.has_value = 1;
  c.p.ivalue = INT64_MIN;
  c.p.value = 1.0; /* ignored for an integer x */
  CHECK(run(&c, outs, err, sizeof err) == 0);
  const int64_t *o = (const int64_t *)outs[0].data;
  CHECK(outs[0].dtype == SL_I64);
  CHECK(o[0] == 0 && o[1] == INT64_MIN && o[2] == 0 && o[3] == INT64_MIN);
  free_outs(outs, 1);
}

static void test_scatter_reduce(void) {
  sl_tensor outs[SL_MAX_ARGS];
  char err[256];
  float x[3] = {0, 0, 0}, src[4] = {1, NAN, 2, -1};
  int64_t idx[4] = {0, 0, 1, 2};
  const int64_t s3[1] = {3}, s4[1] = {4};
  sl_call c;
  sl_call_init(&c, SL_OP_SCATTER_REDUCE);
  c.arg[0] = mk(SL_F32, 1, s3, x);
  c.arg[1] = mk(SL_I64, 1, s4, idx);
  c.arg[2] = mk(SL_F32, 1, s4, src);
  c.p.reduce = SL_REDUCE_AMAX;
  c.p.include_self = 1;
  /* max(0,1,NaN) = NaN; max(0,2) = 2; max(0,-1) = 0. */
  const double want[3] = {NAN, 2, 0};
  CHECK(run(&c, outs, err, sizeof err) == 0);
  CHECK(same_f(&outs[0], 1, s3, want));
  free_outs(outs, 1);

  /* include_self = false: targeted positions forget x. */
  x[0] = x[1] = x[2] = 5;
  c.p.include_self = 0;
  const double want_ex[3] = {NAN, 2, -1};
  CHECK(run(&c, outs, err, sizeof err) == 0);
  CHECK(same_f(&outs[0], 1, s3, want_ex));
  free_outs(outs, 1);

  /* An unknown reduce is LibTorch's to reject. */
  c.p.reduce = SL_REDUCE_MAX;
  CHECK(run(&c, outs, err, sizeof err) == 1);
  CHECK_CONTAINS(err, "reduce");

  /* Backward of sum with include_self: both gradients pass through. */
  float go[3] = {1, 2, 3}, s2[4] = {1, 1, 1, 1};
  sl_call_init(&c, SL_OP_SCATTER_REDUCE_BACKWARD);
  c.arg[0] = mk(SL_F32, 1, s3, go);
  c.arg[1] = mk(SL_F32, 1, s3, x);
  c.arg[2] = mk(SL_I64, 1, s4, idx);
  c.arg[3] = mk(SL_F32, 1, s4, s2);
  c.arg[4] = mk(SL_F32, 1, s3, x); /* result: unused by the reference */
  c.p.reduce = SL_REDUCE_SUM;
  c.p.include_self = 1;
  const double gx[3] = {1, 2, 3}, gs[4] = {1, 1, 2, 3};
  CHECK(run(&c, outs, err, sizeof err) == 0);
  CHECK(same_f(&outs[0], 1, s3, gx));
  CHECK(same_f(&outs[1], 1, s4, gs));
  free_outs(outs, 2);

  /* grad_out of another dtype is refused (autograd would cast it). */
  double go64[3] = {1, 2, 3};
  c.arg[0] = mk(SL_F64, 1, s3, go64);
  CHECK(run(&c, outs, err, sizeof err) == 1);
  CHECK_CONTAINS(err, "grad_out");
}

/* Seed 001: Paddle scatter(x, index, updates, overwrite=False). */
static void test_index_reduce(void) {
  sl_tensor outs[SL_MAX_ARGS];
  char err[256];
  float x[6] = {1, 1, 2, 2, 3, 3}, up[8] = {1, 1, 2, 2, 3, 3, 4, 4};
  int64_t idx[4] = {2, 1, 0, 1};
  const int64_t s32[2] = {3, 2}, s42[2] = {4, 2}, s4[1] = {4};
  sl_call c;
  sl_call_init(&c, SL_OP_INDEX_REDUCE);
  c.arg[0] = mk(SL_F32, 2, s32, x);
  c.arg[1] = mk(SL_I64, 1, s4, idx);
  c.arg[2] = mk(SL_F32, 2, s42, up);
  c.p.reduce = SL_REDUCE_SUM;
  c.p.include_self = 0;
  /* Rows 0,1,2 are all targeted: row0 = up[2], row1 = up[1]+up[3], row2 =
   * up[0]. */
  const double want[6] = {3, 3, 6, 6, 1, 1};
  CHECK(run(&c, outs, err, sizeof err) == 0);
  CHECK(same_f(&outs[0], 2, s32, want));
  free_outs(outs, 1);

  c.p.include_self = 1;
  const double want_in[6] = {4, 4, 8, 8, 4, 4};
  CHECK(run(&c, outs, err, sizeof err) == 0);
  CHECK(same_f(&outs[0], 2, s32, want_in));
  free_outs(outs, 1);

  /* amax without self: row1 = max(2,4) = 4. */
  c.p.reduce = SL_REDUCE_AMAX;
  c.p.include_self = 0;
  const double want_max[6] = {3, 3, 4, 4, 1, 1};
  CHECK(run(&c, outs, err, sizeof err) == 0);
  CHECK(same_f(&outs[0], 2, s32, want_max));
  free_outs(outs, 1);

  /* An int32 index works through every LibTorch op behind the reduces. */
  int32_t idx32[4] = {2, 1, 0, 1};
  c.arg[1] = mk(SL_I32, 1, s4, idx32);
  for (int r = SL_REDUCE_ASSIGN; r <= SL_REDUCE_AMIN; ++r) {
    c.p.reduce = (sl_reduce)r;
    CHECK_MSG(run(&c, outs, err, sizeof err) == 0, "%s: %s",
              sl_reduce_name((sl_reduce)r), err);
    free_outs(outs, 1);
  }

  /* A 0-D index: updates is the row slice. */
  int64_t one = 1;
  float row[2] = {5, 7};
  const int64_t s2[1] = {2};
  c.arg[1] = mk(SL_I64, 0, NULL, &one);
  c.arg[2] = mk(SL_F32, 1, s2, row);
  c.p.reduce = SL_REDUCE_SUM;
  c.p.include_self = 1;
  const double want0d[6] = {1, 1, 7, 9, 3, 3};
  CHECK(run(&c, outs, err, sizeof err) == 0);
  CHECK(same_f(&outs[0], 2, s32, want0d));
  free_outs(outs, 1);

  /* A negative index is rejected (index_fill alone would wrap it). */
  int64_t neg[4] = {2, 1, -1, 1};
  c.arg[1] = mk(SL_I64, 1, s4, neg);
  c.arg[2] = mk(SL_F32, 2, s42, up);
  c.p.include_self = 0;
  CHECK(run(&c, outs, err, sizeof err) == 1);
}

/* index_reduce_backward: amax ties share the gradient evenly (seed 001). */
static void test_index_reduce_backward(void) {
  sl_tensor outs[SL_MAX_ARGS];
  char err[256];
  float go[2] = {1, 1}, x[2] = {3, 0}, up[3] = {3, 3, 1}, res[2] = {3, 1};
  int64_t idx[3] = {0, 0, 1};
  const int64_t s2[1] = {2}, s3[1] = {3};
  sl_call c;
  sl_call_init(&c, SL_OP_INDEX_REDUCE_BACKWARD);
  c.arg[0] = mk(SL_F32, 1, s2, go);
  c.arg[1] = mk(SL_F32, 1, s2, x);
  c.arg[2] = mk(SL_I64, 1, s3, idx);
  c.arg[3] = mk(SL_F32, 1, s3, up);
  c.arg[4] = mk(SL_F32, 1, s2, res);
  c.p.reduce = SL_REDUCE_AMAX;
  c.p.include_self = 1;
  /* Position 0: x=3, up0=3, up1=3 tie -> a third each. Position 1: max(0,1)
   * = up2 alone. */
  CHECK(run(&c, outs, err, sizeof err) == 0);
  const float *gx = (const float *)outs[0].data;
  const float *gu = (const float *)outs[1].data;
  CHECK(fabsf(gx[0] - 1.0f / 3) < 1e-6f && gx[1] == 0);
  CHECK(fabsf(gu[0] - 1.0f / 3) < 1e-6f && fabsf(gu[1] - 1.0f / 3) < 1e-6f);
  CHECK(gu[2] == 1);
  free_outs(outs, 2);

  /* Without self, x = [0,0]: the two tied updates share; x gets nothing. */
  float x0[2] = {0, 0};
  c.arg[1] = mk(SL_F32, 1, s2, x0);
  c.p.include_self = 0;
  const double wx[2] = {0, 0}, wu[3] = {0.5, 0.5, 1};
  CHECK(run(&c, outs, err, sizeof err) == 0);
  CHECK(same_f(&outs[0], 1, s2, wx));
  CHECK(same_f(&outs[1], 1, s3, wu));
  free_outs(outs, 2);

  /* LibTorch 1.13 quirk, kept by the reference: without self but with x[0]
   * = 3 equal to the maximum, x still counts as a tie when the gradient is
   * divided (N = [x==out] + #updates==out = 3), then x's share is zeroed:
   * the updates get a third each and the shares sum to 2/3. */
  c.arg[1] = mk(SL_F32, 1, s2, x);
  CHECK(run(&c, outs, err, sizeof err) == 0);
  gu = (const float *)outs[1].data;
  CHECK(same_f(&outs[0], 1, s2, wx));
  CHECK(fabsf(gu[0] - 1.0f / 3) < 1e-6f && fabsf(gu[1] - 1.0f / 3) < 1e-6f);
  CHECK(gu[2] == 1);
  free_outs(outs, 2);

  /* prod with a single zero per position. Position 0 is x=3 * 0 * 3: only
   * the zero update gets a gradient, the product of the others (9). Position
   * 1 is x=0 * 1: x gets 1, the update gets x = 0. */
  float upz[3] = {0, 3, 1};
  c.arg[3] = mk(SL_F32, 1, s3, upz);
  c.p.reduce = SL_REDUCE_PROD;
  c.p.include_self = 1;
  const double pzx[2] = {0, 1}, pzu[3] = {9, 0, 0};
  CHECK(run(&c, outs, err, sizeof err) == 0);
  CHECK(same_f(&outs[0], 1, s2, pzx));
  CHECK(same_f(&outs[1], 1, s3, pzu));
  free_outs(outs, 2);

  /* Integer tensors cannot require gradients in LibTorch; the reference
   * refuses them before, with the spec's set (the core's catalogue,
   * sl_op_dtypes). */
  int32_t gi[2] = {1, 1}, xi[2] = {3, 0}, ui[3] = {3, 3, 1};
  c.arg[0] = mk(SL_I32, 1, s2, gi);
  c.arg[1] = mk(SL_I32, 1, s2, xi);
  c.arg[3] = mk(SL_I32, 1, s3, ui);
  c.arg[4] = mk(SL_I32, 1, s2, xi);
  CHECK(run(&c, outs, err, sizeof err) == 1);
  CHECK_CONTAINS(err, "x: expected one of f16, bf16, f32, f64 for "
                      "index_reduce_backward prod");
}

/* gather_nd / scatter_nd (seed 000's CINN form). */
static void test_nd(void) {
  sl_tensor outs[SL_MAX_ARGS];
  char err[256];
  const int64_t s231[3] = {2, 3, 1};
  sl_call c;
  sl_call_init(&c, SL_OP_GATHER_ND);
  c.arg[0] = mk(SL_F32, 2, S43, A);
  c.arg[1] = mk(SL_I64, 3, s231, IDX);
  /* gather(dim=0) == gather_nd(dims=[0], index.unsqueeze(-1)). */
  const double want0[6] = {0, 4, 5, 9, 7, 2};
  CHECK(run(&c, outs, err, sizeof err) == 0);
  CHECK(same_f(&outs[0], 2, S23, want0));
  free_outs(outs, 1);

  /* dims=[1]: out[i][j] = A[i][index[i][j]]: index 3 is out of range. */
  c.p.ndims = 1;
  c.p.dims[0] = 1;
  CHECK(run(&c, outs, err, sizeof err) == 1);
  CHECK_CONTAINS(err, "out of range");

  /* M == K: index [2,1,2] = [[[3,1]],[[0,2]]] gives [[A[3][1]],[A[0][2]]]. */
  int64_t full[4] = {3, 1, 0, 2};
  const int64_t s212[3] = {2, 1, 2}, s21[2] = {2, 1};
  c.p.ndims = 0;
  c.arg[1] = mk(SL_I64, 3, s212, full);
  const double want_full[2] = {10, 2};
  CHECK(run(&c, outs, err, sizeof err) == 0);
  CHECK(same_f(&outs[0], 2, s21, want_full));
  free_outs(outs, 1);

  /* dims = [1,0] swaps the roles: [[A[1][3]]...] -> 3 out of range in dim 1;
   * use [[[1,3]],[[2,0]]] -> [[A[3][1]],[A[0][2]]]. */
  int64_t swapped[4] = {1, 3, 2, 0};
  c.arg[1] = mk(SL_I64, 3, s212, swapped);
  c.p.ndims = 2;
  c.p.dims[0] = 1;
  c.p.dims[1] = 0;
  CHECK(run(&c, outs, err, sizeof err) == 0);
  CHECK(same_f(&outs[0], 2, s21, want_full));
  free_outs(outs, 1);

  /* A negative index is rejected (LibTorch's indexing would wrap it). */
  int64_t negi[4] = {-1, 1, 0, 2};
  c.arg[1] = mk(SL_I64, 3, s212, negi);
  c.p.ndims = 0;
  CHECK(run(&c, outs, err, sizeof err) == 1);
  CHECK_CONTAINS(err, "index[0,0,0] = -1");

  /* M = 0: no axis indexed, out[i] = x[i] over index.shape[:-1] = [2,3];
   * the index has no elements (data NULL) yet the output has six. */
  const int64_t s230[3] = {2, 3, 0};
  c.arg[1] = mk(SL_I64, 3, s230, NULL);
  const double want_crop[6] = {0, 1, 2, 3, 4, 5};
  CHECK(run(&c, outs, err, sizeof err) == 0);
  CHECK(same_f(&outs[0], 2, S23, want_crop));
  free_outs(outs, 1);

  /* Wrong index rank. */
  c.arg[1] = mk(SL_I64, 2, S23, IDX);
  CHECK(run(&c, outs, err, sizeof err) == 1);
  CHECK_CONTAINS(err, "rank");

  /* scatter_nd sum with duplicates: index[i][j] picks the row, j the column.
   * (0,j) -> row 1 += [1,2,3]; (1,0) -> row 1 col 0 += 4; (1,1) -> row 2
   * col 1 += 5; (1,2) -> row 1 col 2 += 6. */
  float z[12] = {0}, src[6] = {1, 2, 3, 4, 5, 6};
  int64_t rows[6] = {1, 1, 1, 1, 2, 1};
  sl_call_init(&c, SL_OP_SCATTER_ND);
  c.arg[0] = mk(SL_F32, 2, S43, z);
  c.arg[1] = mk(SL_I64, 3, s231, rows);
  c.arg[2] = mk(SL_F32, 2, S23, src);
  c.p.reduce = SL_REDUCE_SUM;
  const double want_sum[12] = {0, 0, 0, 5, 2, 9, 0, 5, 0, 0, 0, 0};
  CHECK(run(&c, outs, err, sizeof err) == 0);
  CHECK(same_f(&outs[0], 2, S43, want_sum));
  free_outs(outs, 1);

  /* none: seed 000's scatter again, as scatter_nd(dims=[0]). */
  float src0[6] = {0, 4, 5, 9, 7, 2};
  c.arg[1] = mk(SL_I64, 3, s231, IDX);
  c.arg[2] = mk(SL_F32, 2, S23, src0);
  c.p.reduce = SL_REDUCE_NONE;
  const double want_none[12] = {0, 0, 2, 0, 4, 5, 0, 7, 0, 9, 0, 0};
  CHECK(run(&c, outs, err, sizeof err) == 0);
  CHECK(same_f(&outs[0], 2, S43, want_none));
  free_outs(outs, 1);

  /* src must have index.shape[:-1] exactly (index_put would broadcast). */
  const int64_t s13[2] = {1, 3};
  c.arg[2] = mk(SL_F32, 2, s13, src0);
  CHECK(run(&c, outs, err, sizeof err) == 1);
  CHECK_CONTAINS(err, "src");

  /* The same with M = 0 (src [1,3] against index.shape[:-1] = [2,3]). */
  c.arg[1] = mk(SL_I64, 3, s230, NULL);
  CHECK(run(&c, outs, err, sizeof err) == 1);
  CHECK_CONTAINS(err, "[2,3]");

  c.arg[1] = mk(SL_I64, 3, s231, IDX);
  c.arg[2] = mk(SL_F32, 2, S23, src0);
  c.p.reduce = SL_REDUCE_PROD;
  CHECK(run(&c, outs, err, sizeof err) == 1);
  CHECK_CONTAINS(err, "reduce");
}

static void test_select_masked(void) {
  sl_tensor outs[SL_MAX_ARGS];
  char err[256];
  float x[6] = {0}, v[2] = {1, 2};
  const int64_t s2[1] = {2}, s3[1] = {3};
  sl_call c;
  sl_call_init(&c, SL_OP_SELECT_SCATTER);
  c.arg[0] = mk(SL_F32, 2, S23, x);
  c.arg[1] = mk(SL_F32, 1, s2, v);
  c.p.dim = 1;
  c.p.index = -1;
  /* Column -1 = column 2 takes [1,2]. */
  const double want[6] = {0, 0, 1, 0, 0, 2};
  CHECK(run(&c, outs, err, sizeof err) == 0);
  CHECK(same_f(&outs[0], 2, S23, want));
  free_outs(outs, 1);

  c.p.index = 3;
  CHECK(run(&c, outs, err, sizeof err) == 1);
  c.p.index = 0;
  float v3[3] = {1, 2, 3};
  c.arg[1] = mk(SL_F32, 1, s3, v3);
  CHECK(run(&c, outs, err, sizeof err) == 1);

  /* masked_scatter: mask [3] broadcast over x [2,3]; true positions in
   * row-major order take source 1,2,3,4; the fifth is ignored. */
  uint8_t mask[3] = {1, 0, 1};
  float src[5] = {1, 2, 3, 4, 5};
  const int64_t s5[1] = {5};
  sl_call_init(&c, SL_OP_MASKED_SCATTER);
  c.arg[0] = mk(SL_F32, 2, S23, x);
  c.arg[1] = mk(SL_BOOL, 1, s3, mask);
  c.arg[2] = mk(SL_F32, 1, s5, src);
  const double want_m[6] = {1, 0, 2, 3, 0, 4};
  CHECK(run(&c, outs, err, sizeof err) == 0);
  CHECK(same_f(&outs[0], 2, S23, want_m));
  free_outs(outs, 1);

  /* Source shorter than the true count (4). */
  c.arg[2] = mk(SL_F32, 1, s3, src);
  CHECK(run(&c, outs, err, sizeof err) == 1);
  /* A uint8 mask (LibTorch 1.13 would accept it, deprecated). */
  c.arg[2] = mk(SL_F32, 1, s5, src);
  c.arg[1] = mk(SL_U8, 1, s3, mask);
  CHECK(run(&c, outs, err, sizeof err) == 1);
  CHECK_CONTAINS(err, "bool");
  /* A mask larger than x (LibTorch would broadcast x up to it). */
  uint8_t mask6[6] = {1, 0, 1, 0, 0, 0};
  c.arg[0] = mk(SL_F32, 1, s3, x);
  c.arg[1] = mk(SL_BOOL, 2, S23, mask6);
  CHECK(run(&c, outs, err, sizeof err) == 1);
  CHECK_CONTAINS(err, "broadcastable");
}

/*
 * dynamic_scatter on 5 points, C = 2, D = 2:
 *   p0 (1,0) [1,5]   p1 (0,2) [2,2]   p2 (-1,0) [9,9] dropped
 *   p3 (1,0) [1,7]   p4 (0,2) [4,2]
 * Voxels in sorted order: v0 = (0,2) {p1,p4}, v1 = (1,0) {p0,p3}.
 */
static float FE[10] = {1, 5, 2, 2, 9, 9, 1, 7, 4, 2};
static int32_t CO[10] = {1, 0, 0, 2, -1, 0, 1, 0, 0, 2};

static void test_dynamic_scatter(void) {
  sl_tensor outs[SL_MAX_ARGS];
  char err[256];
  const int64_t s52[2] = {5, 2}, s22[2] = {2, 2}, s5[1] = {5}, s2[1] = {2};
  sl_call c;
  sl_call_init(&c, SL_OP_DYNAMIC_SCATTER);
  c.arg[0] = mk(SL_F32, 2, s52, FE);
  c.arg[1] = mk(SL_I32, 2, s52, CO);
  const int32_t coors[4] = {0, 2, 1, 0}, map[5] = {1, 0, -1, 1, 0},
                count[2] = {2, 2};
  const sl_reduce reduces[3] = {SL_REDUCE_MAX, SL_REDUCE_SUM, SL_REDUCE_MEAN};
  const double want[3][4] = {{4, 2, 1, 7}, {6, 4, 2, 12}, {3, 2, 1, 6}};
  for (int r = 0; r < 3; ++r) {
    c.p.reduce = reduces[r];
    CHECK(run(&c, outs, err, sizeof err) == 0);
    CHECK_MSG(same_f(&outs[0], 2, s22, want[r]), "reduce %s",
              sl_reduce_name(reduces[r]));
    CHECK(same_i32(&outs[1], 2, s22, coors));
    CHECK(same_i32(&outs[2], 1, s5, map));
    CHECK(same_i32(&outs[3], 1, s2, count));
    free_outs(outs, 4);
  }

  /* All rows invalid: M = 0. */
  int32_t bad[10] = {-1, 0, 0, -2, -1, -1, 5, -1, -3, 3};
  c.arg[1] = mk(SL_I32, 2, s52, bad);
  c.p.reduce = SL_REDUCE_MAX;
  const int32_t none[5] = {-1, -1, -1, -1, -1};
  CHECK(run(&c, outs, err, sizeof err) == 0);
  CHECK(outs[0].ndim == 2 && outs[0].shape[0] == 0 && outs[0].shape[1] == 2);
  CHECK(outs[1].ndim == 2 && outs[1].shape[0] == 0 && outs[1].shape[1] == 2);
  CHECK(same_i32(&outs[2], 1, s5, none));
  CHECK(outs[3].ndim == 1 && outs[3].shape[0] == 0);
  free_outs(outs, 4);

  /* Contract checks of the shim's own. */
  int64_t co64[10] = {0};
  c.arg[1] = mk(SL_I64, 2, s52, co64);
  CHECK(run(&c, outs, err, sizeof err) == 1);
  CHECK_CONTAINS(err, "coors");
  c.arg[1] = mk(SL_I32, 2, s22, CO);
  CHECK(run(&c, outs, err, sizeof err) == 1);
  c.arg[1] = mk(SL_I32, 2, s52, CO);
  c.p.reduce = SL_REDUCE_PROD;
  CHECK(run(&c, outs, err, sizeof err) == 1);
  CHECK_CONTAINS(err, "reduce");
}

static void test_dynamic_scatter_backward(void) {
  sl_tensor outs[SL_MAX_ARGS];
  char err[256];
  const int64_t s52[2] = {5, 2}, s22[2] = {2, 2}, s5[1] = {5}, s2[1] = {2};
  float grad[4] = {10, 20, 30, 40}, vmax[4] = {4, 2, 1, 7};
  int32_t map[5] = {1, 0, -1, 1, 0}, count[2] = {2, 2};
  sl_call c;
  sl_call_init(&c, SL_OP_DYNAMIC_SCATTER_BACKWARD);
  c.arg[0] = mk(SL_F32, 2, s22, grad);
  c.arg[1] = mk(SL_F32, 2, s52, FE);
  c.arg[2] = mk(SL_F32, 2, s22, vmax);
  c.arg[3] = mk(SL_I32, 1, s5, map);
  c.arg[4] = mk(SL_I32, 1, s2, count);
  c.p.reduce = SL_REDUCE_MAX;
  /* v0 ch0 max 4: p4. v0 ch1 max 2: p1 and p4 tie -> p1. v1 ch0 max 1: p0
   * and p3 tie -> p0. v1 ch1 max 7: p3. */
  const double want_max[10] = {30, 0, 0, 20, 0, 0, 0, 40, 10, 0};
  CHECK(run(&c, outs, err, sizeof err) == 0);
  CHECK(same_f(&outs[0], 2, s52, want_max));
  free_outs(outs, 1);

  c.p.reduce = SL_REDUCE_SUM;
  const double want_sum[10] = {30, 40, 10, 20, 0, 0, 30, 40, 10, 20};
  CHECK(run(&c, outs, err, sizeof err) == 0);
  CHECK(same_f(&outs[0], 2, s52, want_sum));
  free_outs(outs, 1);

  c.p.reduce = SL_REDUCE_MEAN;
  const double want_mean[10] = {15, 20, 5, 10, 0, 0, 15, 20, 5, 10};
  CHECK(run(&c, outs, err, sizeof err) == 0);
  CHECK(same_f(&outs[0], 2, s52, want_mean));
  free_outs(outs, 1);

  /* A map entry beyond M is refused. */
  map[2] = 2;
  CHECK(run(&c, outs, err, sizeof err) == 1);
  CHECK_CONTAINS(err, "point2voxel_map[2] = 2");
  map[2] = -1;

  /* M = 0 (every point dropped): a zero gradient. */
  const int64_t s02[2] = {0, 2}, s0[1] = {0};
  int32_t dropped[5] = {-1, -1, -1, -1, -1};
  c.arg[0] = mk(SL_F32, 2, s02, NULL);
  c.arg[2] = mk(SL_F32, 2, s02, NULL);
  c.arg[3] = mk(SL_I32, 1, s5, dropped);
  c.arg[4] = mk(SL_I32, 1, s0, NULL);
  c.p.reduce = SL_REDUCE_MAX;
  const double zeros[10] = {0};
  CHECK(run(&c, outs, err, sizeof err) == 0);
  CHECK(same_f(&outs[0], 2, s52, zeros));
  free_outs(outs, 1);
}

/* PyTorch's segment_reduce on the example of docs/spec.md (answers of
 * LibTorch 2.11, worked out by hand too), its offsets form, and the
 * rejections the shim adds (offsets that do not start at 0 or decrease). */
static void test_segment_reduce(void) {
  sl_tensor outs[SL_MAX_ARGS];
  char err[256];
  const double nan = 0.0 / 0.0, inf = 1.0 / 0.0;
  float data[8] = {1, 5, 5, -2, 0, 3, nan, 2};
  int64_t lengths[4] = {2, 0, 3, 3}, offsets[5] = {0, 2, 2, 5, 8};
  const int64_t s8[1] = {8}, s4[1] = {4}, s5[1] = {5};
  sl_call c;
  sl_call_init(&c, SL_OP_SEGMENT_REDUCE);
  c.arg[0] = mk(SL_F32, 1, s8, data);
  c.arg[1] = mk(SL_I64, 1, s4, lengths);
  const struct {
    sl_reduce r;
    int has_initial;
    double want[4];
  } cases[] = {
      {SL_REDUCE_SUM, 0, {6, 0, 3, nan}},
      {SL_REDUCE_MEAN, 0, {3, nan, 1, nan}},
      {SL_REDUCE_AMAX, 0, {5, -inf, 5, nan}},
      {SL_REDUCE_AMIN, 0, {1, inf, -2, nan}},
      {SL_REDUCE_PROD, 0, {5, 1, -0.0, nan}},
      {SL_REDUCE_SUM, 1, {13, 7, 10, nan}},
      {SL_REDUCE_MEAN, 1, {6.5, 7, 10.0f / 3.0f, nan}},
      {SL_REDUCE_AMAX, 1, {7, 7, 7, nan}},
      {SL_REDUCE_PROD, 1, {35, 7, -0.0, nan}},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i)
    for (int form = 0; form < 2; ++form) {
      c.p.reduce = cases[i].r;
      c.p.has_value = cases[i].has_initial;
      c.p.value = 7;
      c.segment.offsets = form;
      c.arg[1] = form ? mk(SL_I64, 1, s5, offsets) : mk(SL_I64, 1, s4, lengths);
      CHECK_MSG(run(&c, outs, err, sizeof err) == 0, "%s", err);
      CHECK_MSG(same_f(&outs[0], 1, s4, cases[i].want),
                "reduce %s initial %d "
                "form %d",
                sl_reduce_name(cases[i].r), cases[i].has_initial, form);
      free_outs(outs, 1);
    }
  /* Offsets must start at 0: LibTorch alone takes [1,3,3,6,9] over 8 and
   * reads past the data. */
  int64_t late[5] = {1, 3, 3, 6, 9};
  c.p.reduce = SL_REDUCE_SUM;
  c.p.has_value = 0;
  c.segment.offsets = 1;
  c.arg[1] = mk(SL_I64, 1, s5, late);
  CHECK(run(&c, outs, err, sizeof err) == 1);
  CHECK_CONTAINS(err, "offsets: expected every row to start at 0, got 1");
  /* ... and never decrease: LibTorch 2.11 takes [0,2,9,5,8] and reads
   * past the data. */
  int64_t back[5] = {0, 2, 9, 5, 8};
  c.arg[1] = mk(SL_I64, 1, s5, back);
  CHECK(run(&c, outs, err, sizeof err) == 1);
  CHECK_CONTAINS(err, "offsets: expected entries that never decrease, got a "
                      "step of -4");
  /* Lengths that do not sum to the axis, a negative length, max/none. */
  int64_t long_row[4] = {2, 0, 3, 4}, negative[4] = {2, -1, 4, 3};
  c.segment.offsets = 0;
  c.arg[1] = mk(SL_I64, 1, s4, long_row);
  CHECK(run(&c, outs, err, sizeof err) == 1);
  c.arg[1] = mk(SL_I64, 1, s4, negative);
  CHECK(run(&c, outs, err, sizeof err) == 1);
  c.arg[1] = mk(SL_I64, 1, s4, lengths);
  c.p.reduce = SL_REDUCE_MAX;
  CHECK(run(&c, outs, err, sizeof err) == 1);
  CHECK_CONTAINS(err, "reduce: expected sum, prod, mean, amax or amin");
  /* No data element takes part (an empty axis cut into 2 empty segments;
   * LibTorch 1.13 refuses such data, 2.x an empty lengths): every output
   * is its segment's start. */
  const int64_t s03[2] = {0, 3}, s2[1] = {2}, s23[2] = {2, 3};
  int64_t zeros[2] = {0, 0};
  c.arg[0] = mk(SL_F32, 2, s03, NULL);
  c.arg[1] = mk(SL_I64, 1, s2, zeros);
  const struct {
    sl_reduce r;
    double start;
  } starts[] = {{SL_REDUCE_SUM, 0},
                {SL_REDUCE_PROD, 1},
                {SL_REDUCE_AMAX, -inf},
                {SL_REDUCE_AMIN, inf},
                {SL_REDUCE_MEAN, nan}};
  for (size_t i = 0; i < sizeof starts / sizeof starts[0]; ++i) {
    c.p.reduce = starts[i].r;
    double want[6];
    for (int k = 0; k < 6; ++k) want[k] = starts[i].start;
    CHECK_MSG(run(&c, outs, err, sizeof err) == 0, "%s", err);
    CHECK_MSG(same_f(&outs[0], 2, s23, want), "empty axis, reduce %s",
              sl_reduce_name(starts[i].r));
    free_outs(outs, 1);
  }
  /* ... and with an initial value, that value; lengths that do not cover
   * the (empty) axis are still refused. */
  c.p.has_value = 1;
  c.p.value = 2.5;
  const double w25[6] = {2.5, 2.5, 2.5, 2.5, 2.5, 2.5};
  CHECK(run(&c, outs, err, sizeof err) == 0);
  CHECK(same_f(&outs[0], 2, s23, w25));
  free_outs(outs, 1);
  zeros[1] = 1;
  CHECK(run(&c, outs, err, sizeof err) == 1);
  CHECK_CONTAINS(err, "lengths: expected every row to cover");
}

/* Its backward: amax/amin share a tie's gradient evenly, negative or not
 * (LibTorch's own backward gives -3 to each of the three 5s below). */
static void test_segment_reduce_backward(void) {
  sl_tensor outs[SL_MAX_ARGS];
  char err[256];
  float data[9] = {5, 5, 5, 1, 0, 0, 2, 0, 3}, grad[4] = {-3, 2, 4, -1};
  float max[4] = {5, 1, 0, 3}, min[4] = {5, 1, 0, 0}, prod[4] = {125, 1, 0, 0};
  int64_t lengths[4] = {3, 1, 2, 3};
  const int64_t s9[1] = {9}, s4[1] = {4};
  sl_call c;
  sl_call_init(&c, SL_OP_SEGMENT_REDUCE_BACKWARD);
  c.arg[0] = mk(SL_F32, 1, s4, grad);
  c.arg[1] = mk(SL_F32, 1, s9, data);
  c.arg[2] = mk(SL_I64, 1, s4, lengths);
  const struct {
    sl_reduce r;
    float *result;
    double want[9];
  } cases[] = {
      {SL_REDUCE_AMAX, max, {-1, -1, -1, 2, 2, 2, 0, 0, -1}},
      {SL_REDUCE_AMIN, min, {-1, -1, -1, 2, 2, 2, 0, -1, 0}},
      {SL_REDUCE_PROD, prod, {-75, -75, -75, 2, 0, 0, -0.0, -6, -0.0}},
      {SL_REDUCE_SUM, max, {-3, -3, -3, 2, 4, 4, -1, -1, -1}},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    c.p.reduce = cases[i].r;
    c.arg[3] = mk(SL_F32, 1, s4, cases[i].result);
    CHECK_MSG(run(&c, outs, err, sizeof err) == 0, "%s", err);
    CHECK_MSG(same_f(&outs[0], 1, s9, cases[i].want), "reduce %s",
              sl_reduce_name(cases[i].r));
    free_outs(outs, 1);
  }
  /* A gradient of another shape than the output's. */
  c.arg[0] = mk(SL_F32, 1, s9, data);
  c.p.reduce = SL_REDUCE_SUM;
  CHECK(run(&c, outs, err, sizeof err) == 1);
  CHECK_CONTAINS(err, "grad_out: expected shape [4]");
}

int main(void) {
  test_gather();
  test_scatter();
  test_scatter_reduce();
  test_index_reduce();
  test_index_reduce_backward();
  test_nd();
  test_select_masked();
  test_dynamic_scatter();
  test_dynamic_scatter_backward();
  test_segment_reduce();
  test_segment_reduce_backward();
  return sl_test_finish("test_ref_ops");
}
