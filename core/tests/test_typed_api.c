/*
 * The typed entry points of sl.h, one per op of the catalogue (and
 * scatter's value form): each on a small case whose answer is worked out
 * by hand in the comment above it, then each with a bad argument, whose
 * message must name that argument. Every entry point is a wrapper over
 * sl_run, so what this checks is the argument order and the parameters
 * each one sets.
 */
#include <stdint.h>
#include <string.h>

#include "sl/sl.h"
#include "sl_test.h"

#define V "cpu.serial"
#define F32(n, d) sl_tensor_make(SL_F32, 1, (int64_t[]){n}, d)
#define I64(n, d) sl_tensor_make(SL_I64, 1, (int64_t[]){n}, d)
#define I32(n, d) sl_tensor_make(SL_I32, 1, (int64_t[]){n}, d)

static int same_f(const float *a, const float *b, int n) {
  return memcmp(a, b, (size_t)n * sizeof *a) == 0;
}

/* The message of a failed call starts with the argument's name. */
#define CHECK_NAMES(ctx, st, want_status, name)                                \
  do {                                                                         \
    CHECK_MSG((st) == (want_status), "%s: status %s", name,                    \
              sl_status_name(st));                                             \
    CHECK_MSG(strncmp(sl_ctx_message(ctx), name ": ", strlen(name ": ")) == 0, \
              "\"%s\" does not start with \"%s: \"", sl_ctx_message(ctx),      \
              name);                                                           \
  } while (0)

static void test_gather_family(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  /* gather: x [10,20,30], index [2,0,2] -> [30,10,30]. */
  float x[3] = {10, 20, 30}, out[3] = {0};
  int64_t ix[3] = {2, 0, 2};
  sl_tensor tx = F32(3, x), ti = I64(3, ix), to = F32(3, out);
  CHECK(sl_gather(&ctx, V, &tx, 0, &ti, &to) == SL_STATUS_OK);
  CHECK(same_f(out, (float[]){30, 10, 30}, 3));
  /* A dim past the rank names dim. */
  CHECK_NAMES(&ctx, sl_gather(&ctx, V, &tx, 1, &ti, &to),
              SL_STATUS_DIM_OUT_OF_RANGE, "dim");

  /* gather_nd: x [[1,2,3],[4,5,6]], index [1,2,2] with rows (2,1) and
   * (0,0), dims {1,0} (column 0 is the axis-1 coordinate): x[1][2] = 6,
   * x[0][0] = 1 -> out [1,2] = [6,1]. */
  float x2[6] = {1, 2, 3, 4, 5, 6}, o2[2] = {0};
  int64_t nd[4] = {2, 1, 0, 0};
  sl_tensor tx2 = sl_tensor_make(SL_F32, 2, (int64_t[]){2, 3}, x2);
  sl_tensor tn = sl_tensor_make(SL_I64, 3, (int64_t[]){1, 2, 2}, nd);
  sl_tensor to2 = sl_tensor_make(SL_F32, 2, (int64_t[]){1, 2}, o2);
  CHECK(sl_gather_nd(&ctx, V, &tx2, &tn, 2, (int64_t[]){1, 0}, &to2) ==
        SL_STATUS_OK);
  CHECK(same_f(o2, (float[]){6, 1}, 2));
  CHECK_NAMES(&ctx,
              sl_gather_nd(&ctx, V, &tx2, &tn, SL_MAX_DIMS + 1, NULL, &to2),
              SL_STATUS_INVALID_ARGUMENT, "ndims");
  CHECK_NAMES(&ctx, sl_gather_nd(&ctx, V, &tx2, NULL, 0, NULL, &to2),
              SL_STATUS_NULL_POINTER, "index");
}

static void test_scatter_family(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  /* scatter: x [0,0,0,0], index [3,1], src [5,7] -> [0,7,0,5]. */
  float x[4] = {0}, src[2] = {5, 7}, out[4] = {0};
  int64_t ix[2] = {3, 1};
  sl_tensor tx = F32(4, x), ti = I64(2, ix), ts = F32(2, src), to = F32(4, out);
  CHECK(sl_scatter(&ctx, V, &tx, 0, &ti, &ts, &to) == SL_STATUS_OK);
  CHECK(same_f(out, (float[]){0, 7, 0, 5}, 4));
  CHECK_NAMES(&ctx, sl_scatter(&ctx, V, &tx, 0, &ti, NULL, &to),
              SL_STATUS_NULL_POINTER, "src");

  /* scatter's value form: x [1,1,1], index [0,2], 9 -> [9,1,9]. */
  float y[3] = {1, 1, 1}, yo[3] = {0};
  int64_t iy[2] = {0, 2};
  sl_tensor ty = F32(3, y), tiy = I64(2, iy), tyo = F32(3, yo);
  CHECK(sl_scatter_value(&ctx, V, &ty, 0, &tiy, 9, &tyo) == SL_STATUS_OK);
  CHECK(same_f(yo, (float[]){9, 1, 9}, 3));
  CHECK_NAMES(&ctx, sl_scatter_value(&ctx, V, &ty, 0, &tiy, 9, NULL),
              SL_STATUS_NULL_POINTER, "out");

  /* scatter_reduce sum without self: x [1,2,3], index [0,0,2],
   * src [4,5,6] -> [4+5, 2, 6] = [9,2,6]. */
  float r[3] = {1, 2, 3}, rs[3] = {4, 5, 6}, ro[3] = {0};
  int64_t ir[3] = {0, 0, 2};
  sl_tensor tr = F32(3, r), tir = I64(3, ir), trs = F32(3, rs),
            tro = F32(3, ro);
  CHECK(sl_scatter_reduce(&ctx, V, &tr, 0, &tir, &trs, SL_REDUCE_SUM, 0,
                          &tro) == SL_STATUS_OK);
  CHECK(same_f(ro, (float[]){9, 2, 6}, 3));
  CHECK_NAMES(
      &ctx,
      sl_scatter_reduce(&ctx, V, &tr, 0, &tir, &trs, SL_REDUCE_MAX, 0, &tro),
      SL_STATUS_UNKNOWN_REDUCE, "reduce");

  /* Its backward, sum without self: grad_x = grad_out with 0 at the
   * targeted positions 0 and 2; grad_src = grad_out[index].
   * grad_out [0.5,1,2] -> grad_x [0,1,0], grad_src [0.5,0.5,2]. */
  float g[3] = {0.5f, 1, 2}, gx[3] = {9, 9, 9}, gs[3] = {9, 9, 9};
  sl_tensor tg = F32(3, g), tgx = F32(3, gx), tgs = F32(3, gs);
  CHECK(sl_scatter_reduce_backward(&ctx, V, &tg, &tr, 0, &tir, &trs, &tro,
                                   SL_REDUCE_SUM, 0, &tgx,
                                   &tgs) == SL_STATUS_OK);
  CHECK(same_f(gx, (float[]){0, 1, 0}, 3));
  CHECK(same_f(gs, (float[]){0.5f, 0.5f, 2}, 3));
  CHECK_NAMES(&ctx,
              sl_scatter_reduce_backward(&ctx, V, &tg, &tr, 0, &tir, &trs, NULL,
                                         SL_REDUCE_SUM, 0, &tgx, &tgs),
              SL_STATUS_NULL_POINTER, "result");

  /* scatter_nd sum: x [1,1,1], index [2,1] = rows (2),(2), src [3,4]
   * -> [1, 1, 1+3+4] = [1,1,8]. */
  float n[3] = {1, 1, 1}, ns[2] = {3, 4}, no[3] = {0};
  int64_t in[2] = {2, 2};
  sl_tensor tn = F32(3, n), tns = F32(2, ns), tno = F32(3, no);
  sl_tensor tin = sl_tensor_make(SL_I64, 2, (int64_t[]){2, 1}, in);
  CHECK(sl_scatter_nd(&ctx, V, &tn, &tin, &tns, 0, NULL, SL_REDUCE_SUM, &tno) ==
        SL_STATUS_OK);
  CHECK(same_f(no, (float[]){1, 1, 8}, 3));
  CHECK_NAMES(
      &ctx,
      sl_scatter_nd(&ctx, V, &tn, &tin, &tns, 1, NULL, SL_REDUCE_SUM, &tno),
      SL_STATUS_NULL_POINTER, "dims");
}

static void test_index_family(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  /* index_reduce amax without self, dim 0: x [[1,2],[3,4]], index [1,1],
   * updates [[10,20],[5,30]] -> row 1 = [max(10,5), max(20,30)],
   * row 0 kept: [[1,2],[10,30]]. */
  float x[4] = {1, 2, 3, 4}, u[4] = {10, 20, 5, 30}, out[4] = {0};
  int64_t ix[2] = {1, 1};
  sl_tensor tx = sl_tensor_make(SL_F32, 2, (int64_t[]){2, 2}, x);
  sl_tensor tu = sl_tensor_make(SL_F32, 2, (int64_t[]){2, 2}, u);
  sl_tensor to = sl_tensor_make(SL_F32, 2, (int64_t[]){2, 2}, out);
  sl_tensor ti = I64(2, ix);
  CHECK(sl_index_reduce(&ctx, V, &tx, 0, &ti, &tu, SL_REDUCE_AMAX, 0, &to) ==
        SL_STATUS_OK);
  CHECK(same_f(out, (float[]){1, 2, 10, 30}, 4));
  CHECK_NAMES(
      &ctx, sl_index_reduce(&ctx, V, &tx, 0, &ti, NULL, SL_REDUCE_AMAX, 0, &to),
      SL_STATUS_NULL_POINTER, "updates");

  /* Its backward, sum with self, 1-D: grad_x = grad_out;
   * grad_updates = grad_out[index]. grad_out [1,2,3], index [2,0]
   * -> grad_x [1,2,3], grad_updates [3,1]. */
  float y[3] = {0}, yu[2] = {0}, res[3] = {0}, g[3] = {1, 2, 3};
  float gx[3] = {9, 9, 9}, gu[2] = {9, 9};
  int64_t iy[2] = {2, 0};
  sl_tensor ty = F32(3, y), tyu = F32(2, yu), tres = F32(3, res),
            tg = F32(3, g), tgx = F32(3, gx), tgu = F32(2, gu),
            tiy = I64(2, iy);
  CHECK(sl_index_reduce_backward(&ctx, V, &tg, &ty, 0, &tiy, &tyu, &tres,
                                 SL_REDUCE_SUM, 1, &tgx, &tgu) == SL_STATUS_OK);
  CHECK(same_f(gx, (float[]){1, 2, 3}, 3));
  CHECK(same_f(gu, (float[]){3, 1}, 2));
  CHECK_NAMES(&ctx,
              sl_index_reduce_backward(&ctx, V, &tg, &ty, 0, &tiy, &tyu, &tres,
                                       SL_REDUCE_SUM, 1, &tgx, NULL),
              SL_STATUS_NULL_POINTER, "grad_updates");
}

static void test_slice_and_mask(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  /* select_scatter: x zeros [2,3], value [7,8], dim 1, index -1 (the last
   * column) -> [[0,0,7],[0,0,8]]. */
  float x[6] = {0}, val[2] = {7, 8}, out[6] = {0};
  sl_tensor tx = sl_tensor_make(SL_F32, 2, (int64_t[]){2, 3}, x);
  sl_tensor to = sl_tensor_make(SL_F32, 2, (int64_t[]){2, 3}, out);
  sl_tensor tv = F32(2, val);
  CHECK(sl_select_scatter(&ctx, V, &tx, &tv, 1, -1, &to) == SL_STATUS_OK);
  CHECK(same_f(out, (float[]){0, 0, 7, 0, 0, 8}, 6));
  CHECK_NAMES(&ctx, sl_select_scatter(&ctx, V, &tx, &tv, 1, 3, &to),
              SL_STATUS_INDEX_OUT_OF_RANGE, "index");

  /* masked_scatter: x [1,2,3,4], mask [1,0,1,0], source [10,20]
   * -> [10,2,20,4]. */
  float m[4] = {1, 2, 3, 4}, src[2] = {10, 20}, mo[4] = {0};
  uint8_t mask[4] = {1, 0, 1, 0};
  sl_tensor tm = F32(4, m), ts = F32(2, src), tmo = F32(4, mo);
  sl_tensor tk = sl_tensor_make(SL_BOOL, 1, (int64_t[]){4}, mask);
  CHECK(sl_masked_scatter(&ctx, V, &tm, &tk, &ts, &tmo) == SL_STATUS_OK);
  CHECK(same_f(mo, (float[]){10, 2, 20, 4}, 4));
  CHECK_NAMES(&ctx, sl_masked_scatter(&ctx, V, &tm, NULL, &ts, &tmo),
              SL_STATUS_NULL_POINTER, "mask");
}

static void test_dynamic(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  /* dynamic_scatter mean: feats [3,1] = 1,2,4 at coors 5,2,5. The voxels
   * in sorted order: (2) with point 1, (5) with points 0 and 2. M = 2;
   * voxel_feats [2, (1+4)/2] = [2, 2.5], voxel_coors [2,5],
   * point2voxel_map [1,0,1], voxel_points_count [1,2]. */
  float f[3] = {1, 2, 4}, vf[3] = {-1, -1, -1};
  int32_t co[3] = {5, 2, 5}, vc[3] = {-1, -1, -1}, map[3] = {9, 9, 9},
          cnt[3] = {-1, -1, -1};
  sl_tensor tf = sl_tensor_make(SL_F32, 2, (int64_t[]){3, 1}, f);
  sl_tensor tco = sl_tensor_make(SL_I32, 2, (int64_t[]){3, 1}, co);
  sl_tensor tvf = sl_tensor_make(SL_F32, 2, (int64_t[]){3, 1}, vf);
  sl_tensor tvc = sl_tensor_make(SL_I32, 2, (int64_t[]){3, 1}, vc);
  sl_tensor tmap = I32(3, map), tcnt = I32(3, cnt);
  int64_t voxels = -1;
  CHECK(sl_dynamic_scatter(&ctx, V, &tf, &tco, SL_REDUCE_MEAN, &tvf, &tvc,
                           &tmap, &tcnt, &voxels) == SL_STATUS_OK);
  CHECK(voxels == 2);
  CHECK(same_f(vf, (float[]){2, 2.5f}, 2));
  CHECK(vc[0] == 2 && vc[1] == 5);
  CHECK(map[0] == 1 && map[1] == 0 && map[2] == 1);
  CHECK(cnt[0] == 1 && cnt[1] == 2);
  CHECK_NAMES(&ctx,
              sl_dynamic_scatter(&ctx, V, &tf, &tco, SL_REDUCE_MEAN, &tvf, NULL,
                                 &tmap, &tcnt, &voxels),
              SL_STATUS_NULL_POINTER, "voxel_coors");
  CHECK(voxels == 0);

  /* Its backward, mean: grad_feats[n] = grad_voxel_feats[map[n]] /
   * count[map[n]]. grad_voxel_feats [1,4] -> [4/2, 1/1, 4/2] = [2,1,2]. */
  float gv[2] = {1, 4}, gf[3] = {9, 9, 9};
  sl_tensor tgv = sl_tensor_make(SL_F32, 2, (int64_t[]){2, 1}, gv);
  sl_tensor tvf2 = sl_tensor_make(SL_F32, 2, (int64_t[]){2, 1}, vf);
  sl_tensor tcnt2 = I32(2, cnt);
  sl_tensor tgf = sl_tensor_make(SL_F32, 2, (int64_t[]){3, 1}, gf);
  CHECK(sl_dynamic_scatter_backward(&ctx, V, &tgv, &tf, &tvf2, &tmap, &tcnt2,
                                    SL_REDUCE_MEAN, &tgf) == SL_STATUS_OK);
  CHECK(same_f(gf, (float[]){2, 1, 2}, 3));
  CHECK_NAMES(&ctx,
              sl_dynamic_scatter_backward(&ctx, V, &tgv, &tf, &tvf2, NULL,
                                          &tcnt2, SL_REDUCE_MEAN, &tgf),
              SL_STATUS_NULL_POINTER, "point2voxel_map");
}

int main(void) {
  test_gather_family();
  test_scatter_family();
  test_index_family();
  test_slice_and_mask();
  test_dynamic();
  return sl_test_finish("test_typed_api");
}
