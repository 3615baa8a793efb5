/*
 * GPU test of the core library's device side, on small hand-computed cases:
 * the device memory API, a cuda.plain kernel, the device-side checks (index
 * range, masked_scatter's short source, wrong device), and the numerics the
 * reduction strategies must share (NaN and -0.0 in amax/amin, the sign
 * trick's pitfall, integer wrap, f16 accumulating in f32, seed 004's
 * backward). Exits 77 (skipped) without a CUDA device.
 *
 * `test_gpu_device --has-device` only answers 0 (a device) or 77.
 */
#include <math.h>
#include <stdint.h>

#include "sl/sl.h"
#include "sl_test.h"

static const char *const sl__strategies[] = {"cuda.atomic", "cuda.lock",
                                             "cuda.sorted", "cuda.warp"};

/* A device tensor holding `host` (contiguous); NULL data when empty. */
static sl_tensor dev_tensor(sl_dtype dt, int ndim, const int64_t *shape,
                            const void *host) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  sl_tensor t = sl_tensor_make(dt, ndim, shape, NULL);
  t.device = SL_DEVICE_CUDA;
  int64_t n = 1;
  for (int d = 0; d < ndim; ++d) n *= shape[d];
  size_t bytes = (size_t)n * sl_dtype_size(dt);
  if (sl_device_alloc(&ctx, bytes ? bytes : 1, &t.data)) {
    fprintf(stderr, "dev_tensor: %s\n", sl_ctx_message(&ctx));
    exit(1);
  }
  if (host && bytes && sl_device_copy_to(&ctx, t.data, host, bytes)) {
    fprintf(stderr, "dev_tensor: %s\n", sl_ctx_message(&ctx));
    exit(1);
  }
  return t;
}

static void to_host(const sl_tensor *t, void *host) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  int64_t n = 1;
  for (int d = 0; d < t->ndim; ++d) n *= t->shape[d];
  if (sl_device_copy_from(&ctx, host, t->data,
                          (size_t)n * sl_dtype_size(t->dtype))) {
    fprintf(stderr, "to_host: %s\n", sl_ctx_message(&ctx));
    exit(1);
  }
}

static void test_memory(void) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  void *p = NULL;
  unsigned char in[64], out[64];
  for (int i = 0; i < 64; ++i) in[i] = (unsigned char)(i * 7);
  CHECK(sl_device_alloc(&ctx, 64, &p) == SL_STATUS_OK);
  CHECK(sl_device_copy_to(&ctx, p, in, 64) == SL_STATUS_OK);
  CHECK(sl_device_memset(&ctx, (char *)p + 32, 0xAB, 16) == SL_STATUS_OK);
  CHECK(sl_device_sync(&ctx) == SL_STATUS_OK);
  CHECK(sl_device_copy_from(&ctx, out, p, 64) == SL_STATUS_OK);
  CHECK(out[0] == 0 && out[31] == (unsigned char)(31 * 7));
  CHECK(out[32] == 0xAB && out[47] == 0xAB &&
        out[48] == (unsigned char)(48 * 7));
  sl_device_free(p);
  char name[256];
  size_t l2 = 0;
  CHECK(sl_device_describe(&ctx, name, sizeof name, &l2) == SL_STATUS_OK);
  CHECK(name[0] != '\0' && l2 > 0);
  printf("device: %s\n", name);
}

/* Seed 000's example: gather(A, dim=0, index=[[0,1,1],[3,2,0]]). */
static void test_gather(void) {
  float x[12];
  for (int i = 0; i < 12; ++i) x[i] = (float)i;
  int64_t idx[6] = {0, 1, 1, 3, 2, 0}, bad[6] = {0, 1, 1, 3, 4, 0};
  int64_t xs[2] = {4, 3}, is[2] = {2, 3};
  sl_tensor tx = dev_tensor(SL_F32, 2, xs, x);
  sl_tensor ti = dev_tensor(SL_I64, 2, is, idx);
  sl_tensor to = dev_tensor(SL_F32, 2, is, NULL);
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  CHECK_MSG(sl_gather(&ctx, "cuda.plain", &tx, 0, &ti, &to) == SL_STATUS_OK,
            "%s", sl_ctx_message(&ctx));
  float got[6];
  to_host(&to, got);
  const float want[6] = {0, 4, 5, 9, 7, 2};
  CHECK(memcmp(got, want, sizeof want) == 0);
  /* Out of range: found on the device, the CPU's message. */
  sl_tensor tb = dev_tensor(SL_I64, 2, is, bad);
  CHECK(sl_gather(&ctx, "cuda.plain", &tx, 0, &tb, &to) ==
        SL_STATUS_INDEX_OUT_OF_RANGE);
  CHECK_CONTAINS(sl_ctx_message(&ctx),
                 "index[1,1]=4 out of range [0,4) for dim 0 of x [4,3]");
  /* Host tensors for a device variant. */
  sl_tensor hx = sl_tensor_make(SL_F32, 2, xs, x);
  sl_tensor hi = sl_tensor_make(SL_I64, 2, is, idx);
  float ho[6];
  sl_tensor hout = sl_tensor_make(SL_F32, 2, is, ho);
  CHECK(sl_gather(&ctx, "cuda.plain", &hx, 0, &hi, &hout) ==
        SL_STATUS_WRONG_DEVICE);
  sl_device_free(tx.data);
  sl_device_free(ti.data);
  sl_device_free(tb.data);
  sl_device_free(to.data);
}

static void test_masked_scatter_short(void) {
  float x[4] = {1, 2, 3, 4}, src[2] = {9, 8};
  unsigned char mask[4] = {1, 0, 1, 1};
  int64_t s4[1] = {4}, s2[1] = {2};
  sl_call c;
  sl_call_init(&c, SL_OP_MASKED_SCATTER);
  c.arg[0] = dev_tensor(SL_F32, 1, s4, x);
  c.arg[1] = dev_tensor(SL_BOOL, 1, s4, mask);
  c.arg[2] = dev_tensor(SL_F32, 1, s2, src);
  c.arg[3] = dev_tensor(SL_F32, 1, s4, NULL);
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  CHECK(sl_run(&ctx, "cuda.plain", &c) == SL_STATUS_SHAPE_MISMATCH);
  CHECK_CONTAINS(sl_ctx_message(&ctx),
                 "source: expected at least 3 elements (the mask's true "
                 "count), got 2");
  /* Enough source: positions 0, 2, 3 take 9, 8, 7. */
  float src3[3] = {9, 8, 7}, got[4];
  int64_t s3[1] = {3};
  sl_device_free(c.arg[2].data);
  c.arg[2] = dev_tensor(SL_F32, 1, s3, src3);
  CHECK_MSG(sl_run(&ctx, "cuda.plain", &c) == SL_STATUS_OK, "%s",
            sl_ctx_message(&ctx));
  to_host(&c.arg[3], got);
  CHECK(got[0] == 9 && got[1] == 2 && got[2] == 8 && got[3] == 7);
  for (int s = 0; s < 4; ++s) sl_device_free(c.arg[s].data);
}

/* scatter_reduce of f32 along dim 0 of 1-D tensors with every strategy. */
static void sr_f32(const char *variant, sl_reduce r, int self, int n,
                   const float *x, int m, const int64_t *index,
                   const float *src, float *got) {
  int64_t sx[1] = {n}, sm[1] = {m};
  sl_tensor tx = dev_tensor(SL_F32, 1, sx, x);
  sl_tensor ti = dev_tensor(SL_I64, 1, sm, index);
  sl_tensor ts = dev_tensor(SL_F32, 1, sm, src);
  sl_tensor to = dev_tensor(SL_F32, 1, sx, NULL);
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  sl_status st =
      sl_scatter_reduce(&ctx, variant, &tx, 0, &ti, &ts, r, self, &to);
  CHECK_MSG(st == SL_STATUS_OK, "%s: %s", variant, sl_ctx_message(&ctx));
  to_host(&to, got);
  sl_device_free(tx.data);
  sl_device_free(ti.data);
  sl_device_free(ts.data);
  sl_device_free(to.data);
}

static void test_minmax_nan_zero(void) {
  const float x[3] = {1.0f, -1.0f, 0.0f};
  const int64_t index[5] = {0, 0, 1, 1, 2};
  const float src[5] = {NAN, 2.0f, -0.0f, -5.0f, -0.0f};
  for (int v = 0; v < 4; ++v) {
    const char *name = sl__strategies[v];
    float got[3];
    sr_f32(name, SL_REDUCE_AMAX, 1, 3, x, 5, index, src, got);
    CHECK_MSG(isnan(got[0]), "%s amax: NaN did not propagate", name);
    CHECK_MSG(got[1] == 0.0f, "%s amax: max(-1, -0, -5) gave %g", name,
              (double)got[1]);
    CHECK_MSG(got[2] == 0.0f, "%s amax: max(0, -0) gave %g", name,
              (double)got[2]);
    sr_f32(name, SL_REDUCE_AMIN, 1, 3, x, 5, index, src, got);
    CHECK_MSG(isnan(got[0]), "%s amin: NaN did not propagate", name);
    CHECK_MSG(got[1] == -5.0f, "%s amin gave %g", name, (double)got[1]);
    CHECK_MSG(got[2] == 0.0f, "%s amin gave %g", name, (double)got[2]);
    /* The sign trick's pitfall: -0.0 against -1.0 must win the max
     * (testing v >= 0 instead of the sign bit keeps -1.0). */
    const float xm[1] = {-1.0f}, sm[1] = {-0.0f};
    const int64_t i0[1] = {0};
    sr_f32(name, SL_REDUCE_AMAX, 1, 1, xm, 1, i0, sm, got);
    CHECK_MSG(got[0] == 0.0f, "%s: max(-1, -0) gave %g", name, (double)got[0]);
    /* A NaN already in x stays, whatever comes after it. */
    const float xn[1] = {NAN}, sv[2] = {3.0f, -3.0f};
    const int64_t i00[2] = {0, 0};
    sr_f32(name, SL_REDUCE_AMIN, 1, 1, xn, 2, i00, sv, got);
    CHECK_MSG(isnan(got[0]), "%s: NaN of x was lost under amin", name);
    sr_f32(name, SL_REDUCE_AMAX, 1, 1, xn, 2, i00, sv, got);
    CHECK_MSG(isnan(got[0]), "%s: NaN of x was lost under amax", name);
    /* include_self = false: the untargeted element keeps x. */
    sr_f32(name, SL_REDUCE_AMAX, 0, 3, x, 2, index + 2, src + 3, got);
    CHECK_MSG(got[0] == 1.0f && got[1] == -0.0f && got[2] == 0.0f,
              "%s amax self=0: %g %g %g", name, (double)got[0], (double)got[1],
              (double)got[2]);
    /* mean with include_self: (x + 2 + 4) / 3 at element 0. */
    const float xs[2] = {3.0f, 7.0f}, ss[2] = {2.0f, 4.0f};
    sr_f32(name, SL_REDUCE_MEAN, 1, 2, xs, 2, i00, ss, got);
    CHECK_MSG(got[0] == 3.0f && got[1] == 7.0f, "%s mean: %g %g", name,
              (double)got[0], (double)got[1]);
  }
}

static void test_int_wrap(void) {
  for (int v = 0; v < 4; ++v) {
    int32_t x[1] = {INT32_MAX}, src[2] = {1, 1}, got[1];
    int64_t index[2] = {0, 0}, s1[1] = {1}, s2[1] = {2};
    sl_tensor tx = dev_tensor(SL_I32, 1, s1, x);
    sl_tensor ti = dev_tensor(SL_I64, 1, s2, index);
    sl_tensor ts = dev_tensor(SL_I32, 1, s2, src);
    sl_tensor to = dev_tensor(SL_I32, 1, s1, NULL);
    sl_ctx ctx;
    sl_ctx_init(&ctx);
    CHECK(sl_scatter_reduce(&ctx, sl__strategies[v], &tx, 0, &ti, &ts,
                            SL_REDUCE_SUM, 1, &to) == SL_STATUS_OK);
    to_host(&to, got);
    CHECK_MSG(got[0] == INT32_MIN + 1, "%s: INT32_MAX + 2 gave %d",
              sl__strategies[v], got[0]);
    /* Integer mean is floor division: (-1 + -2) / 2 = -2. */
    int32_t xm[1] = {-1}, sm[1] = {-2};
    sl_device_copy_to(&ctx, tx.data, xm, sizeof xm);
    sl_device_copy_to(&ctx, ts.data, sm, sizeof sm);
    ti.shape[0] = ts.shape[0] = 1;
    CHECK(sl_scatter_reduce(&ctx, sl__strategies[v], &tx, 0, &ti, &ts,
                            SL_REDUCE_MEAN, 1, &to) == SL_STATUS_OK);
    to_host(&to, got);
    CHECK_MSG(got[0] == -2, "%s: mean(-1, -2) gave %d", sl__strategies[v],
              got[0]);
    sl_device_free(tx.data);
    sl_device_free(ti.data);
    sl_device_free(ts.data);
    sl_device_free(to.data);
  }
}

/* 4096 ones summed into one f16 element: 4096 when accumulated in f32
 * (docs/spec.md §3); an f16 accumulator would stop at 2048. */
static void test_half_sum(void) {
  enum { M = 4096 };
  static uint16_t ones[M];
  static int64_t index[M];
  for (int i = 0; i < M; ++i) ones[i] = sl_f32_to_f16(1.0f), index[i] = 0;
  uint16_t x[1] = {sl_f32_to_f16(0.0f)}, got[1];
  int64_t s1[1] = {1}, sm[1] = {M};
  sl_tensor tx = dev_tensor(SL_F16, 1, s1, x);
  sl_tensor ti = dev_tensor(SL_I64, 1, sm, index);
  sl_tensor ts = dev_tensor(SL_F16, 1, sm, ones);
  sl_tensor to = dev_tensor(SL_F16, 1, s1, NULL);
  for (int v = 0; v < 4; ++v) {
    sl_ctx ctx;
    sl_ctx_init(&ctx);
    CHECK(sl_scatter_reduce(&ctx, sl__strategies[v], &tx, 0, &ti, &ts,
                            SL_REDUCE_SUM, 1, &to) == SL_STATUS_OK);
    to_host(&to, got);
    CHECK_MSG(sl_f16_to_f32(got[0]) == 4096.0f, "%s: f16 sum gave %g",
              sl__strategies[v], (double)sl_f16_to_f32(got[0]));
  }
  sl_device_free(tx.data);
  sl_device_free(ti.data);
  sl_device_free(ts.data);
  sl_device_free(to.data);
}

/* Seed 004's backward, max: per channel the smallest matching point. */
static void test_dynamic_backward_max(void) {
  const float grad[2] = {10, 20}, feats[6] = {1, 5, 3, 5, 3, 2};
  const float vfeats[2] = {3, 5};
  const int32_t map[3] = {0, 0, 0}, count[1] = {3};
  const float want[6] = {0, 20, 10, 0, 0, 0};
  int64_t mc[2] = {1, 2}, nc[2] = {3, 2}, n[1] = {3}, m[1] = {1};
  for (int v = 0; v < 4; ++v) {
    sl_call c;
    sl_call_init(&c, SL_OP_DYNAMIC_SCATTER_BACKWARD);
    c.p.reduce = SL_REDUCE_MAX;
    c.arg[0] = dev_tensor(SL_F32, 2, mc, grad);
    c.arg[1] = dev_tensor(SL_F32, 2, nc, feats);
    c.arg[2] = dev_tensor(SL_F32, 2, mc, vfeats);
    c.arg[3] = dev_tensor(SL_I32, 1, n, map);
    c.arg[4] = dev_tensor(SL_I32, 1, m, count);
    c.arg[5] = dev_tensor(SL_F32, 2, nc, NULL);
    sl_ctx ctx;
    sl_ctx_init(&ctx);
    CHECK_MSG(sl_run(&ctx, sl__strategies[v], &c) == SL_STATUS_OK, "%s: %s",
              sl__strategies[v], sl_ctx_message(&ctx));
    float got[6];
    to_host(&c.arg[5], got);
    CHECK_MSG(memcmp(got, want, sizeof want) == 0,
              "%s: got %g %g / %g %g / %g %g", sl__strategies[v],
              (double)got[0], (double)got[1], (double)got[2], (double)got[3],
              (double)got[4], (double)got[5]);
    /* A map value out of range is found before anything is written. */
    const int32_t bad[3] = {0, 1, 0};
    sl_device_copy_to(&ctx, c.arg[3].data, bad, sizeof bad);
    CHECK(sl_run(&ctx, sl__strategies[v], &c) == SL_STATUS_INDEX_OUT_OF_RANGE);
    CHECK_CONTAINS(sl_ctx_message(&ctx), "point2voxel_map[1]=1 out of range");
    for (int s = 0; s < 6; ++s) sl_device_free(c.arg[s].data);
  }
}

/* dynamic_scatter forward, sum: voxels (0,2) and (1,0); the last point is
 * dropped. */
static void test_dynamic_forward(void) {
  const int32_t coors[8] = {1, 0, 0, 2, 1, 0, -1, 0};
  const float feats[4] = {1, 2, 3, 4};
  int64_t n1[2] = {4, 1}, nd[2] = {4, 2}, n[1] = {4};
  for (int v = 0; v < 4; ++v) {
    sl_call c;
    sl_call_init(&c, SL_OP_DYNAMIC_SCATTER);
    c.p.reduce = SL_REDUCE_SUM;
    c.arg[0] = dev_tensor(SL_F32, 2, n1, feats);
    c.arg[1] = dev_tensor(SL_I32, 2, nd, coors);
    c.arg[2] = dev_tensor(SL_F32, 2, n1, NULL);
    c.arg[3] = dev_tensor(SL_I32, 2, nd, NULL);
    c.arg[4] = dev_tensor(SL_I32, 1, n, NULL);
    c.arg[5] = dev_tensor(SL_I32, 1, n, NULL);
    sl_ctx ctx;
    sl_ctx_init(&ctx);
    CHECK_MSG(sl_run(&ctx, sl__strategies[v], &c) == SL_STATUS_OK, "%s: %s",
              sl__strategies[v], sl_ctx_message(&ctx));
    CHECK(c.out_rows == 2);
    float vf[4];
    int32_t vc[8], map[4], cnt[4];
    to_host(&c.arg[2], vf);
    to_host(&c.arg[3], vc);
    to_host(&c.arg[4], map);
    to_host(&c.arg[5], cnt);
    CHECK_MSG(vf[0] == 2 && vf[1] == 4, "%s: voxel_feats %g %g",
              sl__strategies[v], (double)vf[0], (double)vf[1]);
    CHECK(vc[0] == 0 && vc[1] == 2 && vc[2] == 1 && vc[3] == 0);
    CHECK(map[0] == 1 && map[1] == 0 && map[2] == 1 && map[3] == -1);
    CHECK(cnt[0] == 1 && cnt[1] == 2);
    for (int s = 0; s < 6; ++s) sl_device_free(c.arg[s].data);
  }
}

/* c128 duplicates: 2^20 writers of one element, writer k writing (k, -k).
 * Whichever wins, the element must be one writer's whole value: a c128
 * moved as two 8-byte halves leaves the real part of one writer and the
 * imaginary part of another (seen on the H200 before sl__st_racy). And a
 * c128 tensor at an address that is not 16-byte aligned gets a clear error,
 * not a device fault. */
static void test_c128_whole_writes(void) {
  enum { N = 1 << 20 };
  double *src = malloc(sizeof(double) * 2 * N);
  int64_t *idx = calloc(N, sizeof(int64_t));
  CHECK(src && idx);
  if (!src || !idx) return;
  for (int k = 0; k < N; ++k) {
    src[2 * k] = k + 1;
    src[2 * k + 1] = -(double)(k + 1);
  }
  int64_t n1[1] = {1}, nn[1] = {N};
  const double zero[2] = {0, 0};
  sl_tensor tx = dev_tensor(SL_C128, 1, n1, zero);
  sl_tensor ti = dev_tensor(SL_I64, 1, nn, idx);
  sl_tensor ts = dev_tensor(SL_C128, 1, nn, src);
  sl_tensor to = dev_tensor(SL_C128, 1, n1, NULL);
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  int torn = 0;
  for (int rep = 0; rep < 20; ++rep) {
    CHECK_MSG(sl_scatter(&ctx, "cuda.plain", &tx, 0, &ti, &ts, &to) ==
                  SL_STATUS_OK,
              "%s", sl_ctx_message(&ctx));
    double got[2];
    to_host(&to, got);
    torn += got[1] != -got[0] || got[0] < 1 || got[0] > N;
    CHECK_MSG(!torn, "cuda.plain scatter c128: got (%g, %g), no writer's",
              got[0], got[1]);
    /* The same through the reduce engine's assignment (index_reduce). */
    for (int v = 0; v < 4 && !torn; ++v) {
      sl_call c;
      sl_call_init(&c, SL_OP_INDEX_REDUCE);
      c.p.dim = 0;
      c.p.reduce = SL_REDUCE_ASSIGN;
      c.p.include_self = 1;
      c.arg[0] = tx;
      c.arg[1] = ti;
      c.arg[2] = ts;
      c.arg[3] = to;
      CHECK_MSG(sl_run(&ctx, sl__strategies[v], &c) == SL_STATUS_OK, "%s: %s",
                sl__strategies[v], sl_ctx_message(&ctx));
      to_host(&to, got);
      torn += got[1] != -got[0] || got[0] < 1 || got[0] > N;
      CHECK_MSG(!torn, "%s index_reduce assign c128: got (%g, %g)",
                sl__strategies[v], got[0], got[1]);
    }
  }
  sl_tensor odd = to;
  odd.data = (char *)ts.data + 8;
  CHECK(sl_scatter(&ctx, "cuda.plain", &tx, 0, &ti, &ts, &odd) ==
        SL_STATUS_INVALID_ARGUMENT);
  CHECK_CONTAINS(sl_ctx_message(&ctx), "out: expected data aligned to 16");
  sl_device_free(tx.data);
  sl_device_free(ti.data);
  sl_device_free(ts.data);
  sl_device_free(to.data);
  free(src);
  free(idx);
}

int main(int argc, char **argv) {
  if (sl_cuda_device_count() == 0) {
    printf("test_gpu_device: no CUDA device (%s): skipped\n",
           sl_cuda_built() ? "CUDA built" : "built without CUDA");
    return SL_TEST_SKIP_CODE;
  }
  if (argc > 1 && strcmp(argv[1], "--has-device") == 0) return 0;
  test_memory();
  test_gather();
  test_masked_scatter_short();
  test_minmax_nan_zero();
  test_int_wrap();
  test_half_sum();
  test_dynamic_backward_max();
  test_dynamic_forward();
  test_c128_whole_writes();
  return sl_test_finish("test_gpu_device");
}
