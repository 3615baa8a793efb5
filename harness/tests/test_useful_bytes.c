/*
 * The roofline's numerator (sl_useful_bytes): every input and output
 * counted once, except the inputs an op does not read: the backward of a
 * linear reduce skips x, src and the result, masked_scatter reads only as
 * many source elements as its (broadcast) mask has true positions.
 */
#include "bench_case.h"
#include "sl_test.h"

static sl_tensor f32(int ndim, const int64_t *shape, void *data) {
  return sl_tensor_make(SL_F32, ndim, shape, data);
}

/* gather: x, index and the output, each in full. */
static void test_plain_op(void) {
  static float x[12], out[6];
  static int64_t idx[6];
  sl_call c = {0};
  c.op = SL_OP_GATHER;
  c.arg[0] = f32(2, (int64_t[]){4, 3}, x);
  c.arg[1] = sl_tensor_make(SL_I64, 2, (int64_t[]){2, 3}, idx);
  sl_tensor ref[SL_MAX_ARGS] = {f32(2, (int64_t[]){2, 3}, out)};
  CHECK_MSG(sl_useful_bytes(&c, ref) == 12 * 4 + 6 * 8 + 6 * 4, "got %lld",
            (long long)sl_useful_bytes(&c, ref));
}

/* dynamic_scatter_backward: max reads everything; sum reads the gradient
 * and the map; mean also the counts. */
static void test_backward_reads(void) {
  enum { M = 3, N = 5, C = 2 };
  static float g[M * C], f[N * C], v[M * C], out[N * C];
  static int32_t map[N], cnt[M];
  sl_call c = {0};
  c.op = SL_OP_DYNAMIC_SCATTER_BACKWARD;
  c.arg[0] = f32(2, (int64_t[]){M, C}, g);
  c.arg[1] = f32(2, (int64_t[]){N, C}, f);
  c.arg[2] = f32(2, (int64_t[]){M, C}, v);
  c.arg[3] = sl_tensor_make(SL_I32, 1, (int64_t[]){N}, map);
  c.arg[4] = sl_tensor_make(SL_I32, 1, (int64_t[]){M}, cnt);
  sl_tensor ref[SL_MAX_ARGS] = {f32(2, (int64_t[]){N, C}, out)};
  const int64_t gb = M * C * 4, fb = N * C * 4, vb = M * C * 4, mb = N * 4;
  const int64_t cb = M * 4, ob = N * C * 4;
  c.p.reduce = SL_REDUCE_MAX;
  CHECK(sl_useful_bytes(&c, ref) == gb + fb + vb + mb + cb + ob);
  c.p.reduce = SL_REDUCE_SUM;
  CHECK(sl_useful_bytes(&c, ref) == gb + mb + ob);
  c.p.reduce = SL_REDUCE_MEAN;
  CHECK(sl_useful_bytes(&c, ref) == gb + mb + cb + ob);
}

/* masked_scatter: 3 true positions of a [2,3] mask read 3 source elements
 * of 6; a [3] mask broadcast over 2 rows with 2 true reads 4. */
static void test_masked_source(void) {
  static float x[6], src[6], out[6];
  static unsigned char mask[6] = {1, 0, 1, 0, 0, 1}, row[3] = {1, 1, 0};
  sl_call c = {0};
  c.op = SL_OP_MASKED_SCATTER;
  c.arg[0] = f32(2, (int64_t[]){2, 3}, x);
  c.arg[1] = sl_tensor_make(SL_BOOL, 2, (int64_t[]){2, 3}, mask);
  c.arg[2] = f32(1, (int64_t[]){6}, src);
  sl_tensor ref[SL_MAX_ARGS] = {f32(2, (int64_t[]){2, 3}, out)};
  CHECK_MSG(sl_useful_bytes(&c, ref) == 24 + 6 + 3 * 4 + 24, "got %lld",
            (long long)sl_useful_bytes(&c, ref));
  c.arg[1] = sl_tensor_make(SL_BOOL, 1, (int64_t[]){3}, row);
  CHECK_MSG(sl_useful_bytes(&c, ref) == 24 + 3 + 4 * 4 + 24, "got %lld",
            (long long)sl_useful_bytes(&c, ref));
}

int main(void) {
  test_plain_op();
  test_backward_reads();
  test_masked_source();
  return sl_test_finish("test_useful_bytes");
}
