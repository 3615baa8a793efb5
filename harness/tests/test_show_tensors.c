/*
 * show_tensors.c: a small case's tensors as text. Strided views print in
 * their logical order, each dtype as its values (f64 with 17 digits, the
 * integers whole), a scalar as one value, a tensor past 64 elements by its
 * shape only, and a buffer too short for a line cuts at the last whole
 * line with "...".
 */
#include <stdint.h>
#include <string.h>

#include "show_tensors.h"
#include "sl_test.h"

static void test_views_and_dtypes(void) {
  /* gather's slots: x, index (inputs), out. x is the transpose of a 3x2
   * buffer: row-major 2x3 with strides {1, 2}. */
  float xbuf[6] = {1, 2, 3, 4, 5, 6.5f};
  int64_t ibuf[2] = {2, -1};
  sl_tensor args[SL_MAX_ARGS] = {{0}};
  args[0] = sl_tensor_make(SL_F32, 2, (int64_t[]){2, 3}, xbuf);
  args[0].strides[0] = 1, args[0].strides[1] = 2;
  args[1] = sl_tensor_make(SL_I64, 1, (int64_t[]){2}, ibuf);
  char buf[512] = "";
  sl_show_slots(buf, sizeof buf, "", SL_OP_GATHER, args, 0, 2, 0);
  CHECK_MSG(strcmp(buf, "x f32 [2x3] = [[1, 3, 5], [2, 4, 6.5]]\n"
                        "index i64 [2] = [2, -1]\n") == 0,
            "got %s", buf);
  /* outputs: the reference's array starts at slot n_in */
  double obuf[1] = {0.1};
  sl_tensor ref[1] = {sl_tensor_make(SL_F64, 0, NULL, obuf)};
  sl_show_slots(buf, sizeof buf, "expected ", SL_OP_GATHER, ref, 2, 3, 2);
  CHECK_CONTAINS(buf, "\nexpected out f64 [scalar] = 0.10000000000000001\n");
}

static void test_limits(void) {
  static float big[65];
  sl_tensor args[SL_MAX_ARGS] = {{0}};
  args[0] = sl_tensor_make(SL_F32, 1, (int64_t[]){65}, big);
  char buf[512] = "";
  sl_show_slots(buf, sizeof buf, "", SL_OP_GATHER, args, 0, 2, 0);
  CHECK_MSG(strcmp(buf, "x f32 [65]: 65 elements, not shown\n") == 0, "got %s",
            buf);
  /* 64 elements are shown; a buffer too short keeps whole lines only */
  args[0].shape[0] = 64;
  args[1] = sl_tensor_make(SL_F32, 1, (int64_t[]){2}, big);
  char small[48] = "";
  sl_show_slots(small, sizeof small, "", SL_OP_GATHER, args, 0, 2, 0);
  CHECK_MSG(strcmp(small, "...\n") == 0, "got %s", small);
  sl_show_slots(buf, sizeof buf, "", SL_OP_GATHER, args, 0, 1, 0);
  CHECK_CONTAINS(buf, "x f32 [64] = [0, 0, ");
  /* an absent argument (no data) is left out */
  buf[0] = '\0';
  args[0].data = NULL;
  sl_show_slots(buf, sizeof buf, "", SL_OP_GATHER, args, 0, 1, 0);
  CHECK(buf[0] == '\0');
}

int main(void) {
  test_views_and_dtypes();
  test_limits();
  return sl_test_finish("test_show_tensors");
}
