/*
 * Tests of the LibTorch reference shim: its version and origin, the
 * reference defects it works around, the rejections the harness relies on,
 * timing and the device entry (test_ref_ops.c: every op against
 * hand-computed answers).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ref_fixture.h"

static int torch_major(void) { return atoi(slref_version() + 9); }

static void test_version(void) {
  const char *v = slref_version(), *o = slref_origin();
  CHECK_MSG(strncmp(v, "LibTorch ", 9) == 0 && torch_major() >= 1,
            "version \"%s\"", v);
  /* The origin names the package; its version is the headers' own for PyPI
   * (torch 2.11.0 says 2.11.0), one patch level apart for Debian (1.13.1
   * ships headers saying 1.13.0). */
  if (strncmp(o, "PyPI torch ", 11) == 0)
    CHECK_MSG(strcmp(o + 11, v + 9) == 0, "origin \"%s\", version \"%s\"", o,
              v);
  else
    CHECK_MSG(strncmp(o, "Debian libtorch-dev 1.13", 24) == 0 &&
                  strncmp(v, "LibTorch 1.13", 13) == 0,
              "origin \"%s\", version \"%s\"", o, v);
}

/*
 * A known difference between the references, pinned so that a new LibTorch
 * that changes it fails here and docs/reference-differences.md gets
 * updated: LibTorch 2.11's CPU gather of a bf16 NaN (0x7FC0) into a 2-D (or
 * higher) output writes 0xFFFF; 1.13 copies the bits. The oracle lets any NaN
 * match any NaN (docs/spec.md §5).
 */
static void test_bf16_nan_gather(void) {
  sl_tensor outs[SL_MAX_ARGS];
  char err[256];
  /* 2-D: a 1-D gather keeps the bits in 2.11 too. */
  uint16_t x[3] = {0x7FC0, 0x7FC0, 0x3F80}; /* NaN, NaN, 1.0 */
  int64_t idx[3] = {0, 0, 0};
  const int64_t s13[2] = {1, 3};
  sl_call c;
  sl_call_init(&c, SL_OP_GATHER);
  c.arg[0] = mk(SL_BF16, 2, s13, x);
  c.arg[1] = mk(SL_I64, 2, s13, idx);
  c.p.dim = 0;
  CHECK(run(&c, outs, err, sizeof err) == 0);
  const uint16_t *o = (const uint16_t *)outs[0].data;
  const uint16_t nan_bits = torch_major() >= 2 ? 0xFFFF : 0x7FC0;
  CHECK_MSG(o[0] == nan_bits && o[1] == nan_bits,
            "bf16 NaN gathered as %04x %04x, documented %04x", o[0], o[1],
            nan_bits);
  CHECK_MSG(o[2] == 0x3F80, "1.0 gathered as %04x", o[2]);
  free_outs(outs, 1);
}

/* f16 bits of small integers and of 30 (exact in f16). */
static uint16_t f16_bits(int v) {
  /* v in [1, 2048]: exponent e with 2^e <= v, mantissa exact. */
  int e = 0;
  while ((2 << e) <= v) ++e;
  /* The 10 mantissa bits: (v - 2^e) / 2^e in units of 2^-10 (a shift by
   * 10 - e would be negative for v = 2048). */
  return (uint16_t)(((e + 15) << 10) | (((v - (1 << e)) << 10) >> e));
}

/* The row of the defect table named name (NULL when none). */
static const slref_defect *defect_named(const char *name) {
  for (int i = 0; i < slref_defect_count(); ++i)
    if (strcmp(slref_defect_at(i)->name, name) == 0) return slref_defect_at(i);
  return NULL;
}

/* A sum with include_self of n f16 updates into the one element *x0 along
 * dim 0 (scatter_reduce or index_reduce). */
static sl_call half_sum(sl_op op, uint16_t *x0, int64_t *index,
                        uint16_t *updates, int64_t n) {
  static const int64_t one[1] = {1};
  static int64_t len[1];
  len[0] = n;
  sl_call c;
  sl_call_init(&c, op);
  c.arg[0] = mk(SL_F16, 1, one, x0);
  c.arg[1] = mk(SL_I64, 1, len, index);
  c.arg[2] = mk(SL_F16, 1, len, updates);
  c.p.dim = 0;
  c.p.reduce = SL_REDUCE_SUM;
  c.p.include_self = 1;
  return c;
}

/*
 * Known LibTorch defects (references/slref_defects.def): the expected answer
 * is the op's definition under either reference, and slref_last_defect says
 * when LibTorch's own answer differed. 1.13 accumulates f16 scatter_reduce
 * sums in f16 (4096 ones give 2048); 2.1 and later do not, so under 2.x the
 * row is inactive and LibTorch's own answer is used. index_add accumulates
 * in the half type under both; scatter_reduce mean rounds the f32 sum to f16
 * before dividing under both (4096 values of 30 overflow to inf).
 */
static void test_defects(void) {
  static uint16_t ones[4096], thirties[4096];
  static int64_t zeros[4096];
  uint16_t x0 = 0;
  for (int i = 0; i < 4096; ++i)
    ones[i] = f16_bits(1), thirties[i] = f16_bits(30);
  CHECK(f16_bits(1) == 0x3C00 && f16_bits(2048) == 0x6800 &&
        f16_bits(30) == 0x4F80);
  sl_tensor outs[SL_MAX_ARGS];
  char err[256];
  const int v2 = torch_major() >= 2;
  const slref_defect *sum = defect_named("half-scatter-accumulate"),
                     *mean = defect_named("half-mean-rounded-sum"),
                     *index = defect_named("half-index-accumulate");
  CHECK(sum && mean && index && defect_named("half-autograd"));
  if (!sum || !mean || !index) return;
  CHECK_MSG(sum->active == !v2, "half-scatter-accumulate active=%d under %s",
            sum->active, slref_version());
  CHECK(strcmp(sum->fixed_in, "2.1") == 0 && mean->active && index->active);

  sl_call c = half_sum(SL_OP_SCATTER_REDUCE, &x0, zeros, ones, 4096);
  CHECK(run(&c, outs, err, sizeof err) == 0);
  CHECK_MSG(*(const uint16_t *)outs[0].data == 0x6C00,
            "4096 f16 ones summed to bits %04x, want 4096 (6c00)",
            *(const uint16_t *)outs[0].data);
  CHECK_MSG(slref_last_defect() == (v2 ? NULL : sum), "defect met: %s under %s",
            slref_last_defect() ? slref_last_defect()->name : "none",
            slref_version());
  free_outs(outs, 1);

  c = half_sum(SL_OP_SCATTER_REDUCE, &x0, zeros, thirties, 4096);
  c.p.reduce = SL_REDUCE_MEAN;
  c.p.include_self = 0;
  CHECK(run(&c, outs, err, sizeof err) == 0);
  CHECK_MSG(*(const uint16_t *)outs[0].data == f16_bits(30),
            "mean of 4096 f16 30s: bits %04x", *(const uint16_t *)outs[0].data);
  CHECK(slref_last_defect() == mean);
  free_outs(outs, 1);

  c = half_sum(SL_OP_INDEX_REDUCE, &x0, zeros, ones, 4096);
  CHECK(run(&c, outs, err, sizeof err) == 0);
  CHECK(*(const uint16_t *)outs[0].data == 0x6C00);
  CHECK(slref_last_defect() == index);
  free_outs(outs, 1);

  /* Two ones: no rounding anywhere, so LibTorch's own answer agrees. */
  c = half_sum(SL_OP_INDEX_REDUCE, &x0, zeros, ones, 2);
  CHECK(run(&c, outs, err, sizeof err) == 0);
  CHECK(*(const uint16_t *)outs[0].data == f16_bits(2));
  CHECK(slref_last_defect() == NULL);
  free_outs(outs, 1);
}

/*
 * index_reduce of a 0-D x: one element along the axis (rank 0 counts as 1).
 * LibTorch 2.11 refuses the shapes and 1.13's autograd refused the mean's
 * backward; the reference reduces into a [1] view under both.
 */
static void test_index_reduce_0d(void) {
  sl_tensor outs[SL_MAX_ARGS];
  char err[256];
  float x = 5, up[3] = {7, 2, 9}, g = 1, res = 6;
  int64_t idx[3] = {0, 0, 0}, one = 0;
  const int64_t n3[1] = {3};
  sl_call c;
  sl_call_init(&c, SL_OP_INDEX_REDUCE);
  c.arg[0] = mk(SL_F32, 0, NULL, &x);
  c.arg[1] = mk(SL_I64, 1, n3, idx);
  c.arg[2] = mk(SL_F32, 1, n3, up);
  c.p.dim = -1;
  c.p.reduce = SL_REDUCE_AMAX;
  c.p.include_self = 1;
  const double want_max = 9, want_mean = 6, want_one = 12;
  CHECK_MSG(run(&c, outs, err, sizeof err) == 0, "%s", err);
  CHECK(same_f(&outs[0], 0, NULL, &want_max));
  free_outs(outs, 1);
  c.p.reduce = SL_REDUCE_MEAN; /* (5 + 7 + 2 + 9) / 4 = 5.75: not exact */
  c.p.include_self = 0;        /* (7 + 2 + 9) / 3 = 6 */
  CHECK_MSG(run(&c, outs, err, sizeof err) == 0, "%s", err);
  CHECK(same_f(&outs[0], 0, NULL, &want_mean));
  free_outs(outs, 1);
  /* a 0-D index and a 0-D update */
  c.arg[1] = mk(SL_I64, 0, NULL, &one);
  c.arg[2] = mk(SL_F32, 0, NULL, &up[0]);
  c.p.reduce = SL_REDUCE_SUM;
  c.p.include_self = 1;
  CHECK_MSG(run(&c, outs, err, sizeof err) == 0, "%s", err);
  CHECK(same_f(&outs[0], 0, NULL, &want_one));
  free_outs(outs, 1);

  /* The mean's backward: each of the 3 updates gets grad / 3. */
  sl_call_init(&c, SL_OP_INDEX_REDUCE_BACKWARD);
  c.arg[0] = mk(SL_F32, 0, NULL, &g);
  c.arg[1] = mk(SL_F32, 0, NULL, &x);
  c.arg[2] = mk(SL_I64, 1, n3, idx);
  c.arg[3] = mk(SL_F32, 1, n3, up);
  c.arg[4] = mk(SL_F32, 0, NULL, &res);
  c.p.dim = 0;
  c.p.reduce = SL_REDUCE_MEAN;
  c.p.include_self = 0;
  CHECK_MSG(run(&c, outs, err, sizeof err) == 0, "%s", err);
  const double gx = 0, gu[3] = {1.0f / 3, 1.0f / 3, 1.0f / 3};
  CHECK(same_f(&outs[0], 0, NULL, &gx));
  CHECK(same_f(&outs[1], 1, n3, gu));
  free_outs(outs, 2);
}

static void test_time(void) {
  double samples[3] = {-1, -1, -1};
  char err[256];
  sl_call c;
  sl_call_init(&c, SL_OP_GATHER);
  c.arg[0] = mk(SL_F32, 2, S43, A);
  c.arg[1] = mk(SL_I64, 2, S23, IDX);
  CHECK(slref_time(&c, 1, 3, samples, err, sizeof err) == 0);
  for (int i = 0; i < 3; ++i) CHECK(samples[i] >= 0);
  c.p.dim = 1; /* out of range index: rejected like slref_run */
  CHECK(slref_time(&c, 0, 3, samples, err, sizeof err) == 1);
  CHECK(err[0] != '\0');
}

/* torch.cuda: CPU tensors are refused by name; without a CUDA device (or
 * with a LibTorch that has no CUDA backend) the call is rejected with the
 * reason. On a GPU the bench exercises the working path. */
static void test_run_device(void) {
  char err[256];
  sl_call c;
  sl_call_init(&c, SL_OP_GATHER);
  c.arg[0] = mk(SL_F32, 2, S43, A);
  c.arg[1] = mk(SL_I64, 2, S23, IDX);
  int rc = slref_run_device(&c, err, sizeof err);
  if (sl_cuda_device_count() == 0) {
    CHECK(rc == 1);
    CHECK_CONTAINS(err, "has no CUDA backend (or sees no CUDA device)");
  } else {
    CHECK(rc == 2);
    CHECK_CONTAINS(err, "x: expected a cuda tensor here, got a cpu one");
  }
  CHECK(slref_run_device(NULL, err, sizeof err) == 2);
  CHECK_CONTAINS(err, "call is NULL");
}

int main(void) {
  test_version();
  test_bf16_nan_gather();
  test_defects();
  test_index_reduce_0d();
  test_time();
  test_run_device();
  return sl_test_finish("test_ref");
}
