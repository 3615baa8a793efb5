/*
 * Outputs laid out as LibTorch lays out its result (out_layout.h), the
 * strides each case expects as LibTorch 2.11 gave them (a C++ program
 * printing result.strides()): select_scatter keeps a dense x's strides and
 * is row-major otherwise; scatter_nd (index_put) takes dense strides in x's
 * order whenever x does not overlap; scatter is row-major whatever x is.
 */
#include "out_layout.h"
#include "sl_test.h"

static float xbuf[64], vbuf[8], srcbuf[8];
static int64_t ibuf[8];

/* A call of op on x of shape [4,6] with strides [s0,s1] (a [6,4] or [6,8]
 * buffer seen through them): select_scatter(x, value, dim 0, index 1),
 * scatter_nd(x, index [2,1,1], src [2,1], sum) or scatter(x, 0, index
 * [1,6], src [1,6]), its outputs' shapes inferred. */
static sl_call call_on(sl_op op, int64_t s0, int64_t s1) {
  sl_call c;
  sl_call_init(&c, op);
  c.arg[0] = sl_tensor_make(SL_F32, 2, (int64_t[]){4, 6}, xbuf);
  c.arg[0].strides[0] = s0, c.arg[0].strides[1] = s1;
  if (op == SL_OP_SELECT_SCATTER) {
    c.arg[1] = sl_tensor_make(SL_F32, 1, (int64_t[]){6}, vbuf);
    c.p.index = 1;
  } else if (op == SL_OP_SCATTER_ND) {
    c.arg[1] = sl_tensor_make(SL_I64, 3, (int64_t[]){2, 1, 1}, ibuf);
    c.arg[2] = sl_tensor_make(SL_F32, 2, (int64_t[]){2, 1}, srcbuf);
    c.p.reduce = SL_REDUCE_SUM;
  } else {
    c.arg[1] = sl_tensor_make(SL_I64, 2, (int64_t[]){1, 6}, ibuf);
    c.arg[2] = sl_tensor_make(SL_F32, 2, (int64_t[]){1, 6}, srcbuf);
  }
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  CHECK_MSG(sl_infer(&ctx, &c) == SL_STATUS_OK, "%s", sl_ctx_message(&ctx));
  return c;
}

int main(void) {
  static const struct {
    sl_op op;
    int64_t s0, s1; /* x's strides */
    int changed;    /* what sl_outputs_like_reference returns */
    int64_t o0, o1; /* out's strides after it */
    const char *why;
  } cases[] = {
      {SL_OP_SELECT_SCATTER, 1, 4, 1, 1, 4, "a transposed x keeps them"},
      {SL_OP_SELECT_SCATTER, 6, 1, 0, 6, 1, "row-major x"},
      {SL_OP_SELECT_SCATTER, 2, 8, 0, 6, 1, "a transposed x with gaps"},
      {SL_OP_SELECT_SCATTER, 0, 1, 0, 6, 1, "a broadcast x overlaps"},
      {SL_OP_SELECT_SCATTER, 1, 1, 0, 6, 1, "elements shared (unfold-like)"},
      {SL_OP_SCATTER_ND, 2, 8, 1, 1, 4, "gaps in transposed order: dense"},
      {SL_OP_SCATTER_ND, 1, 4, 1, 1, 4, "a transposed x"},
      {SL_OP_SCATTER_ND, 12, 2, 0, 6, 1, "gaps in row-major order"},
      {SL_OP_SCATTER_ND, 0, 1, 0, 6, 1, "a broadcast x overlaps"},
      {SL_OP_SCATTER, 1, 4, 0, 6, 1, "scatter's result is new, row-major"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    sl_call c = call_on(cases[i].op, cases[i].s0, cases[i].s1);
    const int changed = sl_outputs_like_reference(&c);
    const int64_t *st = c.arg[sl_op_get(c.op)->n_in].strides;
    CHECK_MSG(changed == cases[i].changed && st[0] == cases[i].o0 &&
                  st[1] == cases[i].o1,
              "case %zu (%s): changed %d, strides [%lld,%lld]", i, cases[i].why,
              changed, (long long)st[0], (long long)st[1]);
  }
  return sl_test_finish("test_out_layout");
}
