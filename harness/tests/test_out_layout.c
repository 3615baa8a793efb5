/*
 * Outputs laid out as LibTorch lays out its result (out_layout.h), the
 * strides each case expects as LibTorch 2.11 gave them (a C++ program
 * printing result.strides()): select_scatter keeps a dense x's strides and
 * is row-major otherwise; scatter_nd (index_put) takes dense strides in x's
 * order whenever x does not overlap; scatter is row-major whatever x is.
 */
#include <string.h>

#include "out_layout.h"
#include "sl_test.h"

static float xbuf[64], vbuf[8], srcbuf[8];
static int64_t ibuf[8];

/* x of shape [4,6] (a [6,4] or [6,8] buffer seen through strides) */
static sl_tensor x_with(int64_t s0, int64_t s1) {
  sl_tensor x = sl_tensor_make(SL_F32, 2, (int64_t[]){4, 6}, xbuf);
  x.strides[0] = s0, x.strides[1] = s1;
  return x;
}

/* select_scatter(x, value, dim 0, index 1): out's strides after the call */
static int select_scatter_out(sl_tensor x, int64_t *strides) {
  sl_call c;
  sl_call_init(&c, SL_OP_SELECT_SCATTER);
  c.arg[0] = x;
  c.arg[1] = sl_tensor_make(SL_F32, 1, (int64_t[]){6}, vbuf);
  c.p.dim = 0;
  c.p.index = 1;
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  CHECK(sl_infer(&ctx, &c) == SL_STATUS_OK);
  const int changed = sl_outputs_like_reference(&c);
  memcpy(strides, c.arg[2].strides, 2 * sizeof *strides);
  return changed;
}

/* scatter_nd(x, index [2,1,1], src [2,1], sum): out's strides */
static int scatter_nd_out(sl_tensor x, int64_t *strides) {
  sl_call c;
  sl_call_init(&c, SL_OP_SCATTER_ND);
  c.arg[0] = x;
  c.arg[1] = sl_tensor_make(SL_I64, 3, (int64_t[]){2, 1, 1}, ibuf);
  c.arg[2] = sl_tensor_make(SL_F32, 2, (int64_t[]){2, 1}, srcbuf);
  c.p.reduce = SL_REDUCE_SUM;
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  CHECK_MSG(sl_infer(&ctx, &c) == SL_STATUS_OK, "%s", sl_ctx_message(&ctx));
  const int changed = sl_outputs_like_reference(&c);
  memcpy(strides, c.arg[3].strides, 2 * sizeof *strides);
  return changed;
}

#define STRIDES_ARE(s, a, b)                                                   \
  CHECK_MSG((s)[0] == (a) && (s)[1] == (b), "strides [%lld,%lld]",             \
            (long long)(s)[0], (long long)(s)[1])

int main(void) {
  int64_t s[2];
  /* select_scatter: a transposed x (strides [1,4]) keeps them */
  CHECK(select_scatter_out(x_with(1, 4), s) == 1);
  STRIDES_ARE(s, 1, 4);
  /* row-major x: row-major out, nothing changed */
  CHECK(select_scatter_out(x_with(6, 1), s) == 0);
  STRIDES_ARE(s, 6, 1);
  /* a transposed x with gaps ([2,8]: not dense): row-major */
  CHECK(select_scatter_out(x_with(2, 8), s) == 0);
  STRIDES_ARE(s, 6, 1);
  /* a broadcast x (stride 0) overlaps: row-major */
  CHECK(select_scatter_out(x_with(0, 1), s) == 0);
  STRIDES_ARE(s, 6, 1);
  /* elements shared ([1,1]: an unfold-like view) overlap: row-major */
  CHECK(select_scatter_out(x_with(1, 1), s) == 0);
  STRIDES_ARE(s, 6, 1);

  /* scatter_nd: x with gaps in transposed order gets dense strides in
   * that order, [1,4], as index_put's result */
  CHECK(scatter_nd_out(x_with(2, 8), s) == 1);
  STRIDES_ARE(s, 1, 4);
  CHECK(scatter_nd_out(x_with(1, 4), s) == 1);
  STRIDES_ARE(s, 1, 4);
  CHECK(scatter_nd_out(x_with(12, 2), s) == 0); /* gaps, row-major order */
  STRIDES_ARE(s, 6, 1);
  CHECK(scatter_nd_out(x_with(0, 1), s) == 0);
  STRIDES_ARE(s, 6, 1);

  /* scatter's result is a new row-major tensor whatever x is */
  sl_call c;
  sl_call_init(&c, SL_OP_SCATTER);
  c.arg[0] = x_with(1, 4);
  c.arg[1] = sl_tensor_make(SL_I64, 2, (int64_t[]){1, 6}, ibuf);
  c.arg[2] = sl_tensor_make(SL_F32, 2, (int64_t[]){1, 6}, srcbuf);
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  CHECK(sl_infer(&ctx, &c) == SL_STATUS_OK);
  CHECK(sl_outputs_like_reference(&c) == 0);
  STRIDES_ARE(c.arg[3].strides, 6, 1);
  return sl_test_finish("test_out_layout");
}
