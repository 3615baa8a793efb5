/*
 * dynamic_scatter and dynamic_scatter_backward on every CPU variant: a small
 * hand-computed example (an invalid row, duplicate and unsorted coors, sum,
 * mean and max), all rows invalid, no invalid row, N = 0, max backward with
 * ties and a channel that matches no point, mean dividing by the count,
 * transposed (strided) inputs and outputs, one test per bad-input status that
 * applies, and a medium random case where cpu.omp must equal cpu.serial
 * bitwise and both must equal a naive recomputation.
 */
#include <math.h>
#include <stdint.h>

#include "core_test.h"
#include "sl/sl.h"
#include "sl_test.h"

#define SHAPE(...) ((const int64_t[]){__VA_ARGS__})

/* A forward call with contiguous outputs of capacity N rows. */
static sl_call fwd_call(sl_reduce r, sl_tensor feats, sl_tensor coors,
                        void *vfeats, int32_t *vcoors, int32_t *map,
                        int32_t *count) {
  sl_call c;
  sl_call_init(&c, SL_OP_DYNAMIC_SCATTER);
  int64_t N = feats.shape[0], C = feats.shape[1], D = coors.shape[1];
  c.arg[0] = feats;
  c.arg[1] = coors;
  c.arg[2] = sl_tensor_make(feats.dtype, 2, SHAPE(N, C), vfeats);
  c.arg[3] = sl_tensor_make(SL_I32, 2, SHAPE(N, D), vcoors);
  c.arg[4] = sl_tensor_make(SL_I32, 1, SHAPE(N), map);
  c.arg[5] = sl_tensor_make(SL_I32, 1, SHAPE(N), count);
  c.p.reduce = r;
  return c;
}

/* A backward call with a contiguous output. */
static sl_call bwd_call(sl_reduce r, sl_tensor grad, sl_tensor feats,
                        sl_tensor vfeats, sl_tensor map, sl_tensor count,
                        void *out) {
  sl_call c;
  sl_call_init(&c, SL_OP_DYNAMIC_SCATTER_BACKWARD);
  c.arg[0] = grad;
  c.arg[1] = feats;
  c.arg[2] = vfeats;
  c.arg[3] = map;
  c.arg[4] = count;
  c.arg[5] = sl_tensor_make(feats.dtype, 2, feats.shape, out);
  c.p.reduce = r;
  return c;
}

/* ------------------------------------------------------------------------ */
/* The small example. Points (coors -> feats):                              */
/*   p0 (1,0)  -> (1, 8)     p4 (0,2)  -> (-4,-1)                           */
/*   p1 (0,2)  -> (2,-3)     p5 (0,1)  -> (7, 0.5)                          */
/*   p2 (-1,0) -> invalid    p6 (0,-3) -> invalid (negative second entry)   */
/*   p3 (1,0)  -> (5, 2)                                                    */
/* Voxels in lexicographic order: v0 (0,1) = {p5}, v1 (0,2) = {p1,p4},      */
/* v2 (1,0) = {p0,p3}.                                                      */
/* ------------------------------------------------------------------------ */
static const int32_t EX_COORS[14] = {1, 0, 0, 2, -1, 0, 1,
                                     0, 0, 2, 0, 1,  0, -3};
static const float EX_FEATS[14] = {1, 8,  2,  -3, 100,  100, 5,
                                   2, -4, -1, 7,  0.5f, 50,  50};
static const int32_t EX_VCOORS[6] = {0, 1, 0, 2, 1, 0};
static const int32_t EX_MAP[7] = {2, 1, -1, 2, 1, 0, -1};
static const int32_t EX_COUNT[3] = {1, 2, 2};
static const float EX_SUM[6] = {7, 0.5f, -2, -4, 6, 10};
static const float EX_MEAN[6] = {7, 0.5f, -1, -2, 3, 5};
static const float EX_MAX[6] = {7, 0.5f, 2, -1, 5, 8};

static void test_forward_example(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  ctx.threads = 16; /* more threads than points, channels or voxels */
  sl_tensor feats = sl_tensor_make(SL_F32, 2, SHAPE(7, 2), (void *)EX_FEATS);
  sl_tensor coors = sl_tensor_make(SL_I32, 2, SHAPE(7, 2), (void *)EX_COORS);
  const sl_reduce reduces[3] = {SL_REDUCE_SUM, SL_REDUCE_MEAN, SL_REDUCE_MAX};
  const float *wants[3] = {EX_SUM, EX_MEAN, EX_MAX};
  int ran = 0;
  FOR_EACH_VARIANT(SL_OP_DYNAMIC_SCATTER, v) {
    for (int r = 0; r < 3; ++r) {
      float vf[14];
      int32_t vc[14], map[7], cnt[7];
      for (int i = 0; i < 14; ++i) vf[i] = -99, vc[i] = -99;
      for (int i = 0; i < 7; ++i) map[i] = -99, cnt[i] = -99;
      sl_call c = fwd_call(reduces[r], feats, coors, vf, vc, map, cnt);
      CHECK_MSG(sl_run(&ctx, v->name, &c) == SL_STATUS_OK, "%s: %s", v->name,
                ctx.msg);
      CHECK(c.out_rows == 3);
      CHECK_MSG(memcmp(vf, wants[r], sizeof EX_SUM) == 0, "%s reduce %d",
                v->name, r);
      CHECK(memcmp(vc, EX_VCOORS, sizeof EX_VCOORS) == 0);
      CHECK(memcmp(map, EX_MAP, sizeof EX_MAP) == 0);
      CHECK(memcmp(cnt, EX_COUNT, sizeof EX_COUNT) == 0);
      /* Rows [M,N) of the voxel outputs are not touched. */
      CHECK(vf[6] == -99 && vf[13] == -99 && vc[6] == -99 && vc[13] == -99);
      CHECK(cnt[3] == -99 && cnt[6] == -99);
    }
    /* f64 feats, sum. */
    double f64[14], vf64[14];
    for (int i = 0; i < 14; ++i) f64[i] = EX_FEATS[i];
    int32_t vc[14], map[7], cnt[7];
    sl_tensor feats64 = sl_tensor_make(SL_F64, 2, SHAPE(7, 2), f64);
    sl_call c = fwd_call(SL_REDUCE_SUM, feats64, coors, vf64, vc, map, cnt);
    CHECK(sl_run(&ctx, v->name, &c) == SL_STATUS_OK);
    CHECK(c.out_rows == 3);
    for (int i = 0; i < 6; ++i) CHECK(vf64[i] == (double)EX_SUM[i]);
    ++ran;
  }
  CHECK(ran == 5); /* serial, omp, atomic, lock, sorted */
}

/* Transposed feats and coors (column-major views) and strided outputs. */
static void test_forward_strides(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  float ft[14];
  int32_t ct[14];
  for (int n = 0; n < 7; ++n)
    for (int k = 0; k < 2; ++k) {
      ft[k * 7 + n] = EX_FEATS[n * 2 + k];
      ct[k * 7 + n] = EX_COORS[n * 2 + k];
    }
  sl_tensor feats = sl_tensor_make(SL_F32, 2, SHAPE(7, 2), ft);
  feats.strides[0] = 1;
  feats.strides[1] = 7;
  sl_tensor coors = sl_tensor_make(SL_I32, 2, SHAPE(7, 2), ct);
  coors.strides[0] = 1;
  coors.strides[1] = 7;
  FOR_EACH_VARIANT(SL_OP_DYNAMIC_SCATTER, v) {
    float vf[14];
    int32_t vc[14], map[14], cnt[21];
    for (int i = 0; i < 14; ++i) vf[i] = -99, vc[i] = -99, map[i] = -99;
    for (int i = 0; i < 21; ++i) cnt[i] = -99;
    sl_call c = fwd_call(SL_REDUCE_MAX, feats, coors, vf, vc, map, cnt);
    /* voxel_feats and voxel_coors column-major, map every 2nd, count every
     * 3rd element. */
    c.arg[2].strides[0] = 1, c.arg[2].strides[1] = 7;
    c.arg[3].strides[0] = 1, c.arg[3].strides[1] = 7;
    c.arg[4].strides[0] = 2;
    c.arg[5].strides[0] = 3;
    CHECK_MSG(sl_run(&ctx, v->name, &c) == SL_STATUS_OK, "%s", ctx.msg);
    CHECK(c.out_rows == 3);
    for (int m = 0; m < 3; ++m)
      for (int k = 0; k < 2; ++k) {
        CHECK(vf[k * 7 + m] == EX_MAX[m * 2 + k]);
        CHECK(vc[k * 7 + m] == EX_VCOORS[m * 2 + k]);
      }
    for (int n = 0; n < 7; ++n) CHECK(map[2 * n] == EX_MAP[n]);
    for (int m = 0; m < 3; ++m) CHECK(cnt[3 * m] == EX_COUNT[m]);
    CHECK(map[1] == -99 && cnt[1] == -99 && vf[3] == -99 && vc[10] == -99);
  }
}

/* Every row invalid: M = 0, the map all -1, nothing else written. No row
 * invalid: the first voxel is a voxel like any other. N = 0: M = 0. */
static void test_forward_edges(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  FOR_EACH_VARIANT(SL_OP_DYNAMIC_SCATTER, v) {
    const int32_t bad[6] = {-1, 0, 0, -5, -2, -2};
    const float f[3] = {1, 2, 3};
    float vf[3] = {-99, -99, -99};
    int32_t vc[6] = {-99, -99, -99, -99, -99, -99};
    int32_t map[3] = {7, 7, 7}, cnt[3] = {-99, -99, -99};
    sl_call c = fwd_call(
        SL_REDUCE_MEAN, sl_tensor_make(SL_F32, 2, SHAPE(3, 1), (void *)f),
        sl_tensor_make(SL_I32, 2, SHAPE(3, 2), (void *)bad), vf, vc, map, cnt);
    c.out_rows = 42;
    CHECK_MSG(sl_run(&ctx, v->name, &c) == SL_STATUS_OK, "%s", ctx.msg);
    CHECK(c.out_rows == 0);
    CHECK(map[0] == -1 && map[1] == -1 && map[2] == -1);
    CHECK(vf[0] == -99 && vc[0] == -99 && cnt[0] == -99);

    /* (0,0) (2,1) (0,0): v0 = (0,0) with p0 and p2, v1 = (2,1) with p1. */
    const int32_t good[6] = {0, 0, 2, 1, 0, 0};
    c = fwd_call(
        SL_REDUCE_SUM, sl_tensor_make(SL_F32, 2, SHAPE(3, 1), (void *)f),
        sl_tensor_make(SL_I32, 2, SHAPE(3, 2), (void *)good), vf, vc, map, cnt);
    CHECK_MSG(sl_run(&ctx, v->name, &c) == SL_STATUS_OK, "%s", ctx.msg);
    CHECK(c.out_rows == 2);
    CHECK(vf[0] == 4 && vf[1] == 2);
    CHECK(vc[0] == 0 && vc[1] == 0 && vc[2] == 2 && vc[3] == 1);
    CHECK(map[0] == 0 && map[1] == 1 && map[2] == 0);
    CHECK(cnt[0] == 2 && cnt[1] == 1);

    /* N = 0: every tensor empty, no data. */
    c = fwd_call(SL_REDUCE_MAX, sl_tensor_make(SL_F32, 2, SHAPE(0, 4), NULL),
                 sl_tensor_make(SL_I32, 2, SHAPE(0, 3), NULL), NULL, NULL, NULL,
                 NULL);
    c.out_rows = 42;
    CHECK_MSG(sl_run(&ctx, v->name, &c) == SL_STATUS_OK, "%s", ctx.msg);
    CHECK(c.out_rows == 0);
  }
}

/* ------------------------------------------------------------------------ */
/* The backward example: N = 5 points, M = 2 voxels, C = 3 channels.        */
/*   map = {1, 0, 1, -1, 1}                                                 */
/*   feats: p0 (3,1,0) p1 (2,2,2) p2 (3,5,0) p3 (9,9,9) p4 (1,5,0)          */
/*   voxel_feats: v0 (2,7,2) v1 (3,5,0); grad: v0 (10,20,30) v1 (40,50,60)  */
/* max: v1 ch0 = 3 ties p0,p2 -> p0; ch1 = 5 ties p2,p4 -> p2; ch2 = 0 ties */
/* p0,p2,p4 -> p0; v0 ch1 = 7 matches no point: its gradient goes nowhere;  */
/* p3 (map -1) gets 0 although its values would match nothing anyway.       */
/* ------------------------------------------------------------------------ */
static const float BW_FEATS[15] = {3, 1, 0, 2, 2, 2, 3, 5, 0, 9, 9, 9, 1, 5, 0};
static const float BW_VFEATS[6] = {2, 7, 2, 3, 5, 0};
static const float BW_GRAD[6] = {10, 20, 30, 40, 50, 60};
static const int32_t BW_MAP[5] = {1, 0, 1, -1, 1};
static const int32_t BW_COUNT[2] = {1, 4};
static const float BW_MAX[15] = {40, 0, 60, 10, 0, 30, 0, 50,
                                 0,  0, 0,  0,  0, 0,  0};
static const float BW_SUM[15] = {40, 50, 60, 10, 20, 30, 40, 50,
                                 60, 0,  0,  0,  40, 50, 60};
static const float BW_MEAN[15] = {10, 12.5f, 15, 10, 20, 30,    10, 12.5f,
                                  15, 0,     0,  0,  10, 12.5f, 15};

static void test_backward_example(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  ctx.threads = 2;
  sl_tensor grad = sl_tensor_make(SL_F32, 2, SHAPE(2, 3), (void *)BW_GRAD);
  sl_tensor feats = sl_tensor_make(SL_F32, 2, SHAPE(5, 3), (void *)BW_FEATS);
  sl_tensor vfeats = sl_tensor_make(SL_F32, 2, SHAPE(2, 3), (void *)BW_VFEATS);
  sl_tensor map = sl_tensor_make(SL_I32, 1, SHAPE(5), (void *)BW_MAP);
  sl_tensor count = sl_tensor_make(SL_I32, 1, SHAPE(2), (void *)BW_COUNT);
  const sl_reduce reduces[3] = {SL_REDUCE_SUM, SL_REDUCE_MEAN, SL_REDUCE_MAX};
  const float *wants[3] = {BW_SUM, BW_MEAN, BW_MAX};
  int ran = 0;
  FOR_EACH_VARIANT(SL_OP_DYNAMIC_SCATTER_BACKWARD, v) {
    for (int r = 0; r < 3; ++r) {
      float out[15];
      for (int i = 0; i < 15; ++i) out[i] = -99;
      sl_call c = bwd_call(reduces[r], grad, feats, vfeats, map, count, out);
      CHECK_MSG(sl_run(&ctx, v->name, &c) == SL_STATUS_OK, "%s", ctx.msg);
      CHECK_MSG(memcmp(out, wants[r], sizeof out) == 0, "%s reduce %d", v->name,
                r);
    }
    /* Transposed feats and output, grad with a row stride of 4. */
    float ft[15], gpad[8] = {10, 20, 30, -1, 40, 50, 60, -1}, out[15];
    for (int n = 0; n < 5; ++n)
      for (int k = 0; k < 3; ++k) ft[k * 5 + n] = BW_FEATS[n * 3 + k];
    sl_tensor tf = sl_tensor_make(SL_F32, 2, SHAPE(5, 3), ft);
    tf.strides[0] = 1, tf.strides[1] = 5;
    sl_tensor tg = sl_tensor_make(SL_F32, 2, SHAPE(2, 3), gpad);
    tg.strides[0] = 4;
    /* map every 2nd element, count every 3rd. */
    int32_t mpad[10], kpad[6] = {0};
    for (int n = 0; n < 5; ++n) mpad[2 * n] = BW_MAP[n], mpad[2 * n + 1] = 7;
    kpad[0] = BW_COUNT[0], kpad[3] = BW_COUNT[1];
    sl_tensor tm = sl_tensor_make(SL_I32, 1, SHAPE(5), mpad);
    tm.strides[0] = 2;
    sl_tensor tk = sl_tensor_make(SL_I32, 1, SHAPE(2), kpad);
    tk.strides[0] = 3;
    sl_call c;
    for (int r = 1; r < 3; ++r) { /* mean (reads the counts) and max */
      c = bwd_call(reduces[r], tg, tf, vfeats, tm, tk, out);
      c.arg[5].strides[0] = 1, c.arg[5].strides[1] = 5;
      CHECK_MSG(sl_run(&ctx, v->name, &c) == SL_STATUS_OK, "%s", ctx.msg);
      for (int n = 0; n < 5; ++n)
        for (int k = 0; k < 3; ++k)
          CHECK(out[k * 5 + n] == wants[r][n * 3 + k]);
    }
    /* M = 0 (every point dropped): a zero gradient, written. */
    const int32_t none[2] = {-1, -1};
    float z[6] = {-99, -99, -99, -99, -99, -99};
    c = bwd_call(SL_REDUCE_MAX, sl_tensor_make(SL_F32, 2, SHAPE(0, 3), NULL),
                 sl_tensor_make(SL_F32, 2, SHAPE(2, 3), (void *)BW_FEATS),
                 sl_tensor_make(SL_F32, 2, SHAPE(0, 3), NULL),
                 sl_tensor_make(SL_I32, 1, SHAPE(2), (void *)none),
                 sl_tensor_make(SL_I32, 1, SHAPE(0), NULL), z);
    CHECK_MSG(sl_run(&ctx, v->name, &c) == SL_STATUS_OK, "%s", ctx.msg);
    for (int i = 0; i < 6; ++i) CHECK(z[i] == 0);
    /* N = 0. */
    c = bwd_call(SL_REDUCE_MEAN, grad,
                 sl_tensor_make(SL_F32, 2, SHAPE(0, 3), NULL), vfeats,
                 sl_tensor_make(SL_I32, 1, SHAPE(0), NULL), count, NULL);
    CHECK_MSG(sl_run(&ctx, v->name, &c) == SL_STATUS_OK, "%s", ctx.msg);
    ++ran;
  }
  CHECK(ran == 5); /* serial, omp, atomic, lock, sorted */
}

/* Bad input for the forward: each class that applies, status and message. */
static void test_forward_bad_input(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  float vf[14];
  int32_t vc[14], map[7], cnt[7];
  sl_tensor feats = sl_tensor_make(SL_F32, 2, SHAPE(7, 2), (void *)EX_FEATS);
  sl_tensor coors = sl_tensor_make(SL_I32, 2, SHAPE(7, 2), (void *)EX_COORS);
  sl_call c;
#define FWD(f, co, r) c = fwd_call(r, f, co, vf, vc, map, cnt)
  FOR_EACH_VARIANT(SL_OP_DYNAMIC_SCATTER, v) {
    for (int i = 0; i < 7; ++i) map[i] = -99;
    /* null pointer: input data, output data */
    sl_tensor nf = feats;
    nf.data = NULL;
    FWD(nf, coors, SL_REDUCE_SUM);
    CHECK(sl_run(&ctx, v->name, &c) == SL_STATUS_NULL_POINTER);
    CHECK_CONTAINS(ctx.msg, "feats: expected data for 14 elements, got NULL");
    FWD(feats, coors, SL_REDUCE_SUM);
    c.arg[4].data = NULL;
    CHECK(sl_run(&ctx, v->name, &c) == SL_STATUS_NULL_POINTER);
    CHECK_CONTAINS(ctx.msg, "point2voxel_map: expected data");
    /* rank mismatch */
    FWD(sl_tensor_make(SL_F32, 1, SHAPE(14), (void *)EX_FEATS), coors,
        SL_REDUCE_SUM);
    CHECK(sl_run(&ctx, v->name, &c) == SL_STATUS_RANK_MISMATCH);
    CHECK_CONTAINS(ctx.msg, "feats: expected rank 2 [N,C], got rank 1 [14]");
    FWD(feats, sl_tensor_make(SL_I32, 3, SHAPE(7, 2, 1), (void *)EX_COORS),
        SL_REDUCE_SUM);
    CHECK(sl_run(&ctx, v->name, &c) == SL_STATUS_RANK_MISMATCH);
    CHECK_CONTAINS(ctx.msg, "coors: expected rank 2 [N,D], got rank 3");
    /* shape mismatch: coors rows, no coors column, output not of
     * capacity N */
    FWD(feats, sl_tensor_make(SL_I32, 2, SHAPE(6, 2), (void *)EX_COORS),
        SL_REDUCE_SUM);
    CHECK(sl_run(&ctx, v->name, &c) == SL_STATUS_SHAPE_MISMATCH);
    CHECK_CONTAINS(ctx.msg,
                   "coors: expected 7 rows (the rows of feats [7,2]), got "
                   "[6,2]");
    FWD(feats, sl_tensor_make(SL_I32, 2, SHAPE(7, 0), NULL), SL_REDUCE_SUM);
    CHECK(sl_run(&ctx, v->name, &c) == SL_STATUS_SHAPE_MISMATCH);
    CHECK_CONTAINS(ctx.msg, "coors: expected at least 1 column, got [7,0]");
    FWD(feats, coors, SL_REDUCE_SUM);
    c.arg[2] = sl_tensor_make(SL_F32, 2, SHAPE(3, 2), vf);
    CHECK(sl_run(&ctx, v->name, &c) == SL_STATUS_SHAPE_MISMATCH);
    CHECK_CONTAINS(ctx.msg, "voxel_feats: expected shape [7,2], got [3,2]");
    /* unsupported dtype: feats i32, coors i64, an output of another dtype;
     * coors of a non-integer dtype is an index dtype error */
    FWD(sl_tensor_make(SL_I32, 2, SHAPE(7, 2), (void *)EX_COORS), coors,
        SL_REDUCE_SUM);
    CHECK(sl_run(&ctx, v->name, &c) == SL_STATUS_UNSUPPORTED_DTYPE);
    CHECK_CONTAINS(ctx.msg, "feats: expected one of f32, f64 (mmcv's "
                            "dynamic_scatter takes float and double only), "
                            "got i32");
    int64_t c64[14] = {0};
    FWD(feats, sl_tensor_make(SL_I64, 2, SHAPE(7, 2), c64), SL_REDUCE_SUM);
    CHECK(sl_run(&ctx, v->name, &c) == SL_STATUS_UNSUPPORTED_DTYPE);
    CHECK_CONTAINS(ctx.msg, "coors: expected dtype i32, got i64");
    FWD(feats, sl_tensor_make(SL_F32, 2, SHAPE(7, 2), (void *)EX_FEATS),
        SL_REDUCE_SUM);
    CHECK(sl_run(&ctx, v->name, &c) == SL_STATUS_INDEX_DTYPE);
    CHECK_CONTAINS(ctx.msg, "coors: expected dtype i32, got f32");
    int64_t cnt64[7];
    FWD(feats, coors, SL_REDUCE_SUM);
    c.arg[5].dtype = SL_I64;
    c.arg[5].data = cnt64;
    CHECK(sl_run(&ctx, v->name, &c) == SL_STATUS_UNSUPPORTED_DTYPE);
    CHECK_CONTAINS(ctx.msg, "voxel_points_count: expected dtype i32, got i64");
    /* unknown reduce */
    FWD(feats, coors, SL_REDUCE_AMIN);
    CHECK(sl_run(&ctx, v->name, &c) == SL_STATUS_UNKNOWN_REDUCE);
    CHECK_CONTAINS(ctx.msg, "reduce: expected one of {sum, mean, max}, got "
                            "amin");
    FWD(feats, coors, (sl_reduce)99);
    CHECK(sl_run(&ctx, v->name, &c) == SL_STATUS_UNKNOWN_REDUCE);
    CHECK_CONTAINS(ctx.msg, "reduce:");
    /* overflow: of the shape product, and of the i32 map's range */
    const int64_t big = INT64_C(1) << 31;
    FWD(sl_tensor_make(SL_F32, 2, SHAPE(big, big), (void *)EX_FEATS), coors,
        SL_REDUCE_SUM);
    CHECK(sl_run(&ctx, v->name, &c) == SL_STATUS_OVERFLOW);
    CHECK_CONTAINS(ctx.msg, "feats: shape [2147483648,2147483648]");
    FWD(sl_tensor_make(SL_F32, 2, SHAPE(big, 1), (void *)EX_FEATS),
        sl_tensor_make(SL_I32, 2, SHAPE(big, 1), (void *)EX_COORS),
        SL_REDUCE_SUM);
    CHECK(sl_run(&ctx, v->name, &c) == SL_STATUS_OVERFLOW);
    CHECK_CONTAINS(ctx.msg, "feats: expected at most 2147483647 rows");
    /* Nothing was written by any rejected call. */
    CHECK(map[0] == -99 && map[6] == -99);
  }
#undef FWD
}

/* Bad input for the backward. */
static void test_backward_bad_input(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  float out[15];
  for (int i = 0; i < 15; ++i) out[i] = -99;
  sl_tensor grad = sl_tensor_make(SL_F32, 2, SHAPE(2, 3), (void *)BW_GRAD);
  sl_tensor feats = sl_tensor_make(SL_F32, 2, SHAPE(5, 3), (void *)BW_FEATS);
  sl_tensor vfeats = sl_tensor_make(SL_F32, 2, SHAPE(2, 3), (void *)BW_VFEATS);
  sl_tensor map = sl_tensor_make(SL_I32, 1, SHAPE(5), (void *)BW_MAP);
  sl_tensor count = sl_tensor_make(SL_I32, 1, SHAPE(2), (void *)BW_COUNT);
  sl_call c;
#define BWD(g, f, vf, m, k, r) c = bwd_call(r, g, f, vf, m, k, out)
  FOR_EACH_VARIANT(SL_OP_DYNAMIC_SCATTER_BACKWARD, v) {
    /* null pointer */
    sl_tensor ng = grad;
    ng.data = NULL;
    BWD(ng, feats, vfeats, map, count, SL_REDUCE_MAX);
    CHECK(sl_run(&ctx, v->name, &c) == SL_STATUS_NULL_POINTER);
    CHECK_CONTAINS(ctx.msg, "grad_voxel_feats: expected data for 6 elements");
    /* rank mismatch: feats 1-D, map 2-D */
    BWD(grad, sl_tensor_make(SL_F32, 1, SHAPE(15), (void *)BW_FEATS), vfeats,
        map, count, SL_REDUCE_MAX);
    CHECK(sl_run(&ctx, v->name, &c) == SL_STATUS_RANK_MISMATCH);
    CHECK_CONTAINS(ctx.msg, "feats: expected rank 2 [N,C], got rank 1 [15]");
    BWD(grad, feats, vfeats,
        sl_tensor_make(SL_I32, 2, SHAPE(5, 1), (void *)BW_MAP), count,
        SL_REDUCE_MAX);
    CHECK(sl_run(&ctx, v->name, &c) == SL_STATUS_RANK_MISMATCH);
    CHECK_CONTAINS(ctx.msg, "point2voxel_map: expected rank 1 [5], got rank 2");
    /* shape mismatch: feats columns, voxel_feats, map length, count length */
    BWD(grad, sl_tensor_make(SL_F32, 2, SHAPE(5, 2), (void *)BW_FEATS), vfeats,
        map, count, SL_REDUCE_MAX);
    CHECK(sl_run(&ctx, v->name, &c) == SL_STATUS_SHAPE_MISMATCH);
    CHECK_CONTAINS(ctx.msg, "feats: expected 3 columns (grad_voxel_feats is "
                            "[2,3]), got [5,2]");
    BWD(grad, feats, sl_tensor_make(SL_F32, 2, SHAPE(1, 3), (void *)BW_VFEATS),
        map, count, SL_REDUCE_MAX);
    CHECK(sl_run(&ctx, v->name, &c) == SL_STATUS_SHAPE_MISMATCH);
    CHECK_CONTAINS(ctx.msg, "voxel_feats: expected shape [2,3] (the shape of "
                            "grad_voxel_feats), got [1,3]");
    BWD(grad, feats, vfeats,
        sl_tensor_make(SL_I32, 1, SHAPE(4), (void *)BW_MAP), count,
        SL_REDUCE_MAX);
    CHECK(sl_run(&ctx, v->name, &c) == SL_STATUS_SHAPE_MISMATCH);
    CHECK_CONTAINS(ctx.msg, "point2voxel_map: expected shape [5] (the rows of "
                            "feats), got [4]");
    BWD(grad, feats, vfeats, map,
        sl_tensor_make(SL_I32, 1, SHAPE(1), (void *)BW_COUNT), SL_REDUCE_MAX);
    CHECK(sl_run(&ctx, v->name, &c) == SL_STATUS_SHAPE_MISMATCH);
    CHECK_CONTAINS(ctx.msg, "voxel_points_count: expected shape [2]");
    /* unsupported dtype: feats i32, feats f64 with f32 grad, map i64;
     * map f32 is an index dtype error */
    BWD(grad, sl_tensor_make(SL_I32, 2, SHAPE(5, 3), (void *)BW_FEATS), vfeats,
        map, count, SL_REDUCE_MAX);
    CHECK(sl_run(&ctx, v->name, &c) == SL_STATUS_UNSUPPORTED_DTYPE);
    CHECK_CONTAINS(ctx.msg, "feats: expected one of f32, f64 (mmcv's "
                            "dynamic_scatter takes float and double only), "
                            "got i32");
    double f64[15] = {0};
    BWD(grad, sl_tensor_make(SL_F64, 2, SHAPE(5, 3), f64), vfeats, map, count,
        SL_REDUCE_MAX);
    CHECK(sl_run(&ctx, v->name, &c) == SL_STATUS_UNSUPPORTED_DTYPE);
    CHECK_CONTAINS(ctx.msg, "feats: expected dtype f32 (the dtype of "
                            "grad_voxel_feats), got f64");
    int64_t m64[5] = {0};
    BWD(grad, feats, vfeats, sl_tensor_make(SL_I64, 1, SHAPE(5), m64), count,
        SL_REDUCE_MAX);
    CHECK(sl_run(&ctx, v->name, &c) == SL_STATUS_UNSUPPORTED_DTYPE);
    CHECK_CONTAINS(ctx.msg, "point2voxel_map: expected dtype i32, got i64");
    BWD(grad, feats, vfeats,
        sl_tensor_make(SL_F32, 1, SHAPE(5), (void *)BW_FEATS), count,
        SL_REDUCE_MAX);
    CHECK(sl_run(&ctx, v->name, &c) == SL_STATUS_INDEX_DTYPE);
    CHECK_CONTAINS(ctx.msg, "point2voxel_map: expected dtype i32, got f32");
    /* unknown reduce */
    BWD(grad, feats, vfeats, map, count, SL_REDUCE_AMIN);
    CHECK(sl_run(&ctx, v->name, &c) == SL_STATUS_UNKNOWN_REDUCE);
    CHECK_CONTAINS(ctx.msg, "reduce: expected one of {sum, mean, max}, got "
                            "amin");
    /* map out of range: M itself, and below -1 */
    const int32_t hi[5] = {1, 0, 2, -1, 1}, lo[5] = {1, 0, 1, -1, -2};
    BWD(grad, feats, vfeats, sl_tensor_make(SL_I32, 1, SHAPE(5), (void *)hi),
        count, SL_REDUCE_SUM);
    CHECK(sl_run(&ctx, v->name, &c) == SL_STATUS_INDEX_OUT_OF_RANGE);
    CHECK_CONTAINS(ctx.msg, "point2voxel_map[2]=2 out of range [-1,2) for the "
                            "voxels of grad_voxel_feats [2,3]");
    BWD(grad, feats, vfeats, sl_tensor_make(SL_I32, 1, SHAPE(5), (void *)lo),
        count, SL_REDUCE_MAX);
    CHECK(sl_run(&ctx, v->name, &c) == SL_STATUS_INDEX_OUT_OF_RANGE);
    CHECK_CONTAINS(ctx.msg, "point2voxel_map[4]=-2 out of range [-1,2)");
    /* a count of 0 */
    const int32_t zero[2] = {1, 0};
    BWD(grad, feats, vfeats, map,
        sl_tensor_make(SL_I32, 1, SHAPE(2), (void *)zero), SL_REDUCE_MEAN);
    CHECK(sl_run(&ctx, v->name, &c) == SL_STATUS_INVALID_ARGUMENT);
    CHECK_CONTAINS(ctx.msg, "voxel_points_count[1]: expected a count > 0, got "
                            "0");
    /* overflow of the shape product */
    const int64_t big = INT64_C(1) << 31;
    BWD(sl_tensor_make(SL_F32, 2, SHAPE(big, big), (void *)BW_GRAD), feats,
        vfeats, map, count, SL_REDUCE_MAX);
    CHECK(sl_run(&ctx, v->name, &c) == SL_STATUS_OVERFLOW);
    CHECK_CONTAINS(ctx.msg, "grad_voxel_feats: shape [2147483648,2147483648]");
    /* Nothing was written by any rejected call. */
    CHECK(out[0] == -99 && out[14] == -99);
  }
#undef BWD
}

/* ------------------------------------------------------------------------ */
/* Random cases: C = 16, D = 3, coordinates in [-1,grid) so that about half */
/* the rows are valid and voxels collect many points each. N = 2000 on a    */
/* grid of 4 (64 voxels, ~16 points each) and N = 20000 on a grid of 12     */
/* (large enough for the parallel compaction and sort passes). cpu.omp must */
/* equal cpu.serial bitwise, and both must equal a naive recomputation      */
/* (sums in point order in f32).                                            */
/* ------------------------------------------------------------------------ */
enum { RMAX = 20000, RC = 16, RD = 3 };

static uint32_t rng_state = 12345u;
static uint32_t rng(void) {
  rng_state = rng_state * 1664525u + 1013904223u;
  return rng_state >> 8;
}

static int lex_less(const int32_t *a, const int32_t *b) {
  for (int d = 0; d < RD; ++d)
    if (a[d] != b[d]) return a[d] < b[d];
  return 0;
}

typedef struct fwd_out {
  float vf[RMAX * RC];
  int32_t vc[RMAX * RD], map[RMAX], cnt[RMAX];
  int64_t M;
} fwd_out;

static void run_forward(const char *variant, int threads, sl_reduce r, int N,
                        const float *f, const int32_t *co, fwd_out *o) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  ctx.threads = threads;
  memset(o, 0, sizeof *o);
  sl_call c = fwd_call(r, sl_tensor_make(SL_F32, 2, SHAPE(N, RC), (void *)f),
                       sl_tensor_make(SL_I32, 2, SHAPE(N, RD), (void *)co),
                       o->vf, o->vc, o->map, o->cnt);
  CHECK_MSG(sl_run(&ctx, variant, &c) == SL_STATUS_OK, "%s", ctx.msg);
  o->M = c.out_rows;
}

/* Checks o against the definition, computed naively. */
static void check_forward_naive(sl_reduce r, int N, const float *f,
                                const int32_t *co, const fwd_out *o) {
  static float acc[RMAX * RC];
  static int32_t n_in[RMAX];
  int valid = 0;
  CHECK(o->M > 0 && o->M <= N);
  /* Voxel coordinates strictly increasing: sorted and distinct. */
  for (int64_t v = 1; v < o->M; ++v)
    CHECK(lex_less(o->vc + (v - 1) * RD, o->vc + v * RD));
  memset(n_in, 0, sizeof n_in);
  for (int n = 0; n < N; ++n) {
    const int32_t *row = co + n * RD;
    int ok = row[0] >= 0 && row[1] >= 0 && row[2] >= 0;
    valid += ok;
    if (!ok) {
      CHECK(o->map[n] == -1);
      continue;
    }
    int32_t v = o->map[n];
    CHECK(v >= 0 && v < o->M);
    if (v < 0 || v >= o->M) continue;
    CHECK(memcmp(o->vc + v * RD, row, RD * sizeof *row) == 0);
    for (int k = 0; k < RC; ++k) {
      float x = f[n * RC + k];
      float *a = &acc[v * RC + k];
      if (n_in[v] == 0)
        *a = x;
      else if (r == SL_REDUCE_MAX)
        *a = x > *a ? x : *a;
      else
        *a += x;
    }
    ++n_in[v];
  }
  int total = 0;
  for (int64_t v = 0; v < o->M; ++v) {
    CHECK(o->cnt[v] == n_in[v] && n_in[v] > 0);
    total += n_in[v];
    for (int k = 0; k < RC; ++k) {
      float want = acc[v * RC + k];
      if (r == SL_REDUCE_MEAN) want /= (float)n_in[v];
      CHECK(o->vf[v * RC + k] == want);
    }
  }
  CHECK(total == valid);
}

/* The backward's answer by definition: for max, the first point (in index
 * order) of each voxel and channel that matches the voxel's value. */
static void backward_naive(sl_reduce r, int N, const float *f,
                           const float *grad, const fwd_out *o, float *want,
                           int *ties) {
  static int first[RMAX * RC], matches[RMAX * RC];
  for (int64_t i = 0; i < o->M * RC; ++i) first[i] = -1, matches[i] = 0;
  for (int n = 0; n < N; ++n)
    for (int k = 0; k < RC; ++k) {
      int32_t v = o->map[n];
      if (v >= 0 && f[n * RC + k] == o->vf[v * RC + k]) {
        if (first[v * RC + k] < 0) first[v * RC + k] = n;
        ++matches[v * RC + k];
      }
    }
  *ties = 0;
  for (int64_t i = 0; i < o->M * RC; ++i) *ties += matches[i] > 1;
  for (int n = 0; n < N; ++n)
    for (int k = 0; k < RC; ++k) {
      int32_t v = o->map[n];
      float g = 0;
      if (v >= 0 && r == SL_REDUCE_SUM) g = grad[v * RC + k];
      if (v >= 0 && r == SL_REDUCE_MEAN)
        g = grad[v * RC + k] / (float)o->cnt[v];
      if (v >= 0 && r == SL_REDUCE_MAX && first[v * RC + k] == n)
        g = grad[v * RC + k];
      want[n * RC + k] = g;
    }
}

static void random_case(int N, int grid) {
  static float fr[RMAX * RC], fq[RMAX * RC], grad[RMAX * RC];
  static int32_t co[RMAX * RD];
  static fwd_out serial, omp;
  static float gout[RMAX * RC], gwant[RMAX * RC];
  for (int i = 0; i < N * RD; ++i)
    co[i] = (int32_t)(rng() % (uint32_t)(grid + 1)) - 1;
  for (int i = 0; i < N * RC; ++i) {
    /* fr: values whose sums round (order matters); fq: few distinct values
     * (max ties). */
    fr[i] = (float)((int32_t)(rng() % 2000001) - 1000000) / 7.0f;
    fq[i] = (float)(rng() % 8);
    grad[i] = (float)((int32_t)(rng() % 2001) - 1000) / 3.0f;
  }
  const sl_reduce reduces[3] = {SL_REDUCE_SUM, SL_REDUCE_MEAN, SL_REDUCE_MAX};
  for (int r = 0; r < 3; ++r) {
    const float *f = reduces[r] == SL_REDUCE_MAX ? fq : fr;
    run_forward("cpu.serial", 0, reduces[r], N, f, co, &serial);
    check_forward_naive(reduces[r], N, f, co, &serial);
    for (int threads = 2; threads <= 7; threads += 5) {
      run_forward("cpu.omp", threads, reduces[r], N, f, co, &omp);
      CHECK(omp.M == serial.M);
      CHECK_MSG(memcmp(&omp, &serial, sizeof omp) == 0,
                "N=%d: cpu.omp (%d threads) differs from cpu.serial, reduce "
                "%d",
                N, threads, r);
    }

    /* Backward from this forward's outputs. */
    int64_t M = serial.M;
    sl_tensor tg = sl_tensor_make(SL_F32, 2, SHAPE(M, RC), grad);
    sl_tensor tf = sl_tensor_make(SL_F32, 2, SHAPE(N, RC), (void *)f);
    sl_tensor tvf = sl_tensor_make(SL_F32, 2, SHAPE(M, RC), serial.vf);
    sl_tensor tm = sl_tensor_make(SL_I32, 1, SHAPE(N), serial.map);
    sl_tensor tk = sl_tensor_make(SL_I32, 1, SHAPE(M), serial.cnt);
    int ties;
    backward_naive(reduces[r], N, f, grad, &serial, gwant, &ties);
    /* Every run must equal the naive answer bitwise (so cpu.omp equals
     * cpu.serial). cpu.omp runs first: a workspace freed by an earlier call
     * and handed out again could otherwise hold the right minima already. */
    const char *names[3] = {"cpu.omp", "cpu.omp", "cpu.serial"};
    const int nthreads[3] = {3, 16, 1};
    for (int k = 0; k < 3; ++k) {
      sl_ctx ctx;
      sl_ctx_init(&ctx);
      ctx.threads = nthreads[k];
      memset(gout, 0xff, sizeof gout);
      sl_call c = bwd_call(reduces[r], tg, tf, tvf, tm, tk, gout);
      CHECK_MSG(sl_run(&ctx, names[k], &c) == SL_STATUS_OK, "%s", ctx.msg);
      CHECK_MSG(memcmp(gout, gwant, (size_t)N * RC * sizeof *gout) == 0,
                "N=%d: backward %s (%d threads) differs from the naive "
                "answer, reduce %d",
                N, names[k], nthreads[k], r);
    }
    /* The max case really has ties to break. */
    if (reduces[r] == SL_REDUCE_MAX) CHECK(ties > 100);
  }
}

/* The validity pass works on blocks of 1024 points, column by column: a
 * block all invalid, a block all valid and a mixed tail, with coors
 * row-major (strided columns), column-major (contiguous columns) and
 * broadcast (one row for every point, valid or not). */
static void test_forward_blocks(void) {
  enum { N = 3000 };
  static float f[N * RC];
  static int32_t co[N * RD], ct[N * RD];
  static fwd_out rows, cols;
  for (int n = 0; n < N; ++n)
    for (int d = 0; d < RD; ++d) {
      const int32_t x = (int32_t)(rng() % 5);
      co[n * RD + d] = n < 1024 && d == n % RD ? -1 - x : n < 2048 ? x : x - 1;
      ct[d * N + n] = co[n * RD + d];
    }
  for (int i = 0; i < N * RC; ++i) f[i] = (float)(rng() % 8);
  run_forward("cpu.serial", 1, SL_REDUCE_SUM, N, f, co, &rows);
  check_forward_naive(SL_REDUCE_SUM, N, f, co, &rows);
  int dropped = 0;
  for (int n = 0; n < N; ++n) dropped += rows.map[n] < 0;
  CHECK_MSG(dropped > 1024 && dropped < 2048, "%d dropped", dropped);
  sl_tensor feats = sl_tensor_make(SL_F32, 2, SHAPE(N, RC), f);
  sl_tensor coors = sl_tensor_make(SL_I32, 2, SHAPE(N, RD), ct);
  coors.strides[0] = 1, coors.strides[1] = N;
  const int32_t one_row[2][RD] = {{2, 0, 1}, {2, -1, 1}};
  FOR_EACH_VARIANT(SL_OP_DYNAMIC_SCATTER, v) {
    sl_ctx ctx;
    sl_ctx_init(&ctx);
    ctx.threads = 2;
    memset(&cols, 0, sizeof cols);
    sl_call c = fwd_call(SL_REDUCE_SUM, feats, coors, cols.vf, cols.vc,
                         cols.map, cols.cnt);
    CHECK_MSG(sl_run(&ctx, v->name, &c) == SL_STATUS_OK, "%s", ctx.msg);
    cols.M = c.out_rows;
    CHECK_MSG(memcmp(&cols, &rows, sizeof cols) == 0,
              "%s: column-major coors differ from row-major", v->name);
    for (int k = 0; k < 2; ++k) {
      sl_tensor bc =
          sl_tensor_make(SL_I32, 2, SHAPE(N, RD), (void *)one_row[k]);
      bc.strides[0] = 0;
      memset(&cols, 0x7f, sizeof cols);
      c = fwd_call(SL_REDUCE_MAX, feats, bc, cols.vf, cols.vc, cols.map,
                   cols.cnt);
      CHECK_MSG(sl_run(&ctx, v->name, &c) == SL_STATUS_OK, "%s", ctx.msg);
      int wrong = 0;
      for (int n = 0; n < N; ++n) wrong += cols.map[n] != (k ? -1 : 0);
      CHECK_MSG(wrong == 0 && c.out_rows == 1 - k,
                "%s: broadcast coors %s: M %lld, %d map entries wrong", v->name,
                k ? "invalid" : "valid", (long long)c.out_rows, wrong);
      CHECK(k || (cols.cnt[0] == N && cols.vf[0] == 7 && cols.vc[1] == 0));
    }
  }
}

static void test_random(void) {
  random_case(2000, 4);
  random_case(RMAX, 12);
}

/* NaN, inf and -0.0 in feats (docs/spec.md §2): one voxel of three points
 * (channels: a NaN after a number, a NaN first, +0.0 then -0.0, -0.0 then
 * +0.0, -inf and a number). max propagates the NaN wherever it comes and
 * keeps the first of two equal zeros; sum starts from +0.0. Backward max:
 * where the maximum is NaN no point equals it, and no point gets that
 * channel's gradient. */
static void test_special_values(void) {
  const float nan = NAN, inf = INFINITY;
  const float f[15] = {1,    nan, 0.0f, -0.0f, -inf,  nan,  2,   -0.0f,
                       0.0f, 3,   5,    1,     -0.0f, 0.0f, -inf};
  const int32_t coors[3] = {4, 4, 4};
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  ctx.threads = 2;
  FOR_EACH_VARIANT(SL_OP_DYNAMIC_SCATTER, v) {
    float vf[15];
    int32_t vc[3], map[3], count[3];
    sl_call c = fwd_call(SL_REDUCE_MAX,
                         sl_tensor_make(SL_F32, 2, SHAPE(3, 5), (void *)f),
                         sl_tensor_make(SL_I32, 2, SHAPE(3, 1), (void *)coors),
                         vf, vc, map, count);
    CHECK_MSG(sl_run(&ctx, v->name, &c) == SL_STATUS_OK, "%s", ctx.msg);
    CHECK_MSG(isnan(vf[0]) && isnan(vf[1]), "%s: max %g %g, want NaN NaN",
              v->name, vf[0], vf[1]);
    CHECK_MSG(vf[2] == 0 && !signbit(vf[2]) && vf[3] == 0 && signbit(vf[3]),
              "%s: max of +0,-0 / -0,+0: %g %g, want the first each", v->name,
              vf[2], vf[3]);
    CHECK_MSG(vf[4] == 3, "%s: max of -inf, 3, -inf: %g", v->name, vf[4]);
    c = fwd_call(SL_REDUCE_SUM,
                 sl_tensor_make(SL_F32, 2, SHAPE(3, 5), (void *)f),
                 sl_tensor_make(SL_I32, 2, SHAPE(3, 1), (void *)coors), vf, vc,
                 map, count);
    CHECK_MSG(sl_run(&ctx, v->name, &c) == SL_STATUS_OK, "%s", ctx.msg);
    CHECK_MSG(isnan(vf[0]) && isnan(vf[1]) && vf[4] == -inf, "%s: sum",
              v->name);
    CHECK_MSG(vf[2] == 0 && !signbit(vf[2]), "%s: a sum of zeros is +0.0",
              v->name);
  }
  /* Backward max on the forward's maxima: the NaN channels lose their
   * gradient; the others go to the first point equal to the maximum. */
  const float vmax[5] = {nan, nan, 0.0f, -0.0f, 3};
  const float g[5] = {10, 20, 30, 40, 50};
  const int32_t map[3] = {0, 0, 0}, count[1] = {3};
  const float want[15] = {0, 0, 30, 40, 0, 0, 0, 0, 0, 50, 0, 0, 0, 0, 0};
  FOR_EACH_VARIANT(SL_OP_DYNAMIC_SCATTER_BACKWARD, v) {
    float out[15];
    for (int i = 0; i < 15; ++i) out[i] = -99;
    sl_call c = bwd_call(
        SL_REDUCE_MAX, sl_tensor_make(SL_F32, 2, SHAPE(1, 5), (void *)g),
        sl_tensor_make(SL_F32, 2, SHAPE(3, 5), (void *)f),
        sl_tensor_make(SL_F32, 2, SHAPE(1, 5), (void *)vmax),
        sl_tensor_make(SL_I32, 1, SHAPE(3), (void *)map),
        sl_tensor_make(SL_I32, 1, SHAPE(1), (void *)count), out);
    CHECK_MSG(sl_run(&ctx, v->name, &c) == SL_STATUS_OK, "%s", ctx.msg);
    int wrong = 0;
    for (int i = 0; i < 15; ++i) wrong += out[i] != want[i];
    CHECK_MSG(wrong == 0, "%s: %d of 15 gradients wrong", v->name, wrong);
  }
}

int main(void) {
  test_special_values();
  test_forward_example();
  test_forward_strides();
  test_forward_edges();
  test_backward_example();
  test_forward_bad_input();
  test_backward_bad_input();
  test_random();
  test_forward_blocks();
  return sl_test_finish("test_dynamic_scatter");
}
