/*
 * Determinism, measured (rerun.h): a second run with another thread count,
 * compared bit for bit with the first. Fake gathers stand in for kernels:
 * one whose answer does not depend on its threads, one that adds a little
 * per thread (as a reduction split among threads rounds differently), and
 * one that refuses with one thread what it took with two.
 */
#include <math.h>
#include <string.h>

#include "rerun.h"
#include "sl_test.h"
#include "variant_call.h"

static float per_thread; /* added to every element, times the threads */
static int refuse_with;  /* refuse the call with this many threads (0: no) */

static sl_status fake_gather(sl_ctx *ctx, sl_call *call) {
  if (refuse_with && ctx->threads == refuse_with)
    return sl_ctx_fail(ctx, SL_STATUS_INVALID_ARGUMENT, "refused with %d",
                       ctx->threads);
  const float *x = call->arg[0].data;
  const int64_t *idx = call->arg[1].data;
  float *out = call->arg[2].data;
  for (int64_t i = 0; i < call->arg[2].shape[0]; ++i)
    out[i] = x[idx[i]] + per_thread * (float)ctx->threads;
  return SL_STATUS_OK;
}

static float x[6] = {1, 2, 3, 4, 5, 6};
static int64_t idx[4] = {5, 0, 0, 3};

/* The call inferred, and a first run of v on it with `threads` threads
 * into first (its outputs in vc). */
static int first_run(const sl_variant *v, int threads, sl_call *inferred,
                     sl_variant_call *vc) {
  sl_call_init(inferred, SL_OP_GATHER);
  const int64_t xs[1] = {6}, is[1] = {4};
  inferred->arg[0] = sl_tensor_make(SL_F32, 1, xs, x);
  inferred->arg[1] = sl_tensor_make(SL_I64, 1, is, idx);
  inferred->p.dim = 0;
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  ctx.threads = threads;
  char note[64];
  if (sl_infer(&ctx, inferred) ||
      sl_variant_call_prepare(vc, inferred, 0, note, sizeof note))
    return -1;
  return sl_run_variant(&ctx, v, &vc->call) == SL_STATUS_OK ? 0 : -1;
}

static void test_rerun(void) {
  sl_variant v = {SL_OP_GATHER, "cpu.fake", fake_gather, SL_DETERMINISTIC};
  sl_call inferred;
  sl_variant_call vc;
  double spread;
  char msg[400];
  /* Independent of the threads: the same bits. */
  per_thread = 0, refuse_with = 0;
  CHECK(first_run(&v, 2, &inferred, &vc) == 0);
  CHECK(sl_rerun_agrees(&v, &inferred, 0, 2, 0, &vc.call, &spread, msg,
                        sizeof msg) == 1);
  CHECK(spread == 0 && msg[0] == '\0');
  sl_variant_call_free(&vc);
  /* 1e-3 more per thread: 2 threads then 1 differ by 1e-3 everywhere. */
  per_thread = 1e-3f;
  CHECK(first_run(&v, 2, &inferred, &vc) == 0);
  CHECK(sl_rerun_agrees(&v, &inferred, 0, 2, 0, &vc.call, &spread, msg,
                        sizeof msg) == 0);
  CHECK_MSG(fabs(spread - 1e-3) < 1e-6, "spread %g", spread);
  CHECK_CONTAINS(msg, "out differs between runs with 2 and 1 threads");
  CHECK_CONTAINS(msg, "4 elements");
  sl_variant_call_free(&vc);
  /* A serial first run is rerun with 2 threads. */
  CHECK(first_run(&v, 1, &inferred, &vc) == 0);
  CHECK(sl_rerun_agrees(&v, &inferred, 0, 1, 0, &vc.call, &spread, msg,
                        sizeof msg) == 0);
  CHECK_CONTAINS(msg, "runs with 1 and 2 threads");
  sl_variant_call_free(&vc);
  /* Refusing with 1 thread what 2 took: a difference without bound. */
  per_thread = 0, refuse_with = 1;
  CHECK(first_run(&v, 2, &inferred, &vc) == 0);
  CHECK(sl_rerun_agrees(&v, &inferred, 0, 2, 0, &vc.call, &spread, msg,
                        sizeof msg) == 0);
  CHECK(isinf(spread));
  CHECK_CONTAINS(msg, "refused the inputs, where the first (2) passed");
  CHECK_CONTAINS(msg, "refused with 1");
  sl_variant_call_free(&vc);
  refuse_with = 0;
  CHECK(sl_rerun_threads(8) == 1 && sl_rerun_threads(1) == 2);
  CHECK(sl_rerun_selected(1, 7) && sl_rerun_selected(32, 64));
  CHECK(!sl_rerun_selected(32, 65) && !sl_rerun_selected(0, 0));
}

/* A 1-D scatter_reduce amax (include_self) whose combine is `acc > s ?
 * acc : s`: a NaN already in place is replaced by the next value, one
 * arriving later is kept, so the answer depends on the order (the combine
 * of an fmax-style loop). With nan_safe it propagates NaN either way. */
static int nan_safe;

static sl_status fake_amax(sl_ctx *ctx, sl_call *call) {
  (void)ctx;
  const float *x = call->arg[0].data, *src = call->arg[2].data;
  const int64_t *index = call->arg[1].data;
  float *out = call->arg[3].data;
  for (int64_t i = 0; i < call->arg[0].shape[0]; ++i) out[i] = x[i];
  for (int64_t i = 0; i < call->arg[1].shape[0]; ++i) {
    float *acc = &out[index[i]], s = src[i];
    if (nan_safe && (isnan(*acc) || isnan(s)))
      *acc = NAN;
    else
      *acc = *acc > s ? *acc : s;
  }
  return SL_STATUS_OK;
}

static void test_permuted(void) {
  static float xs[2] = {0, 0}, src[3] = {NAN, 1, 2};
  static int64_t index[3] = {0, 0, 1};
  const int64_t n2[1] = {2}, n3[1] = {3};
  sl_variant v = {SL_OP_SCATTER_REDUCE, "cpu.fake", fake_amax, 0};
  for (int safe = 0; safe < 2; ++safe) {
    nan_safe = safe;
    sl_call inferred;
    sl_call_init(&inferred, SL_OP_SCATTER_REDUCE);
    inferred.arg[0] = sl_tensor_make(SL_F32, 1, n2, xs);
    inferred.arg[1] = sl_tensor_make(SL_I64, 1, n3, index);
    inferred.arg[2] = sl_tensor_make(SL_F32, 1, n3, src);
    inferred.p.reduce = SL_REDUCE_AMAX;
    inferred.p.include_self = 1;
    sl_ctx ctx;
    sl_ctx_init(&ctx);
    sl_variant_call vc;
    char note[64], msg[400];
    CHECK(sl_infer(&ctx, &inferred) == SL_STATUS_OK);
    CHECK(sl_variant_call_prepare(&vc, &inferred, 0, note, sizeof note) == 0);
    CHECK(sl_run_variant(&ctx, &v, &vc.call) == SL_STATUS_OK);
    int applied = -1;
    const int rc = sl_permuted_agrees(&v, &inferred, 0, 1, &vc.call, &applied,
                                      msg, sizeof msg);
    CHECK(applied == 1);
    if (safe) {
      CHECK_MSG(rc == 1, "%s", msg);
    } else {
      /* In order: NaN replaces 0 (0 > NaN is false), then 1 replaces NaN
       * (NaN > 1 is false): out[0] = 1. Reversed: 1, then NaN (1 > NaN
       * is false): out[0] = NaN. */
      CHECK(rc == 0);
      CHECK_CONTAINS(msg, "not invariant under a permutation of the updates");
      CHECK_CONTAINS(msg, "out differs (1 elements");
    }
    /* A float sum: the order may move it, so no check is made. */
    vc.call.p.reduce = inferred.p.reduce = SL_REDUCE_SUM;
    CHECK(sl_permuted_agrees(&v, &inferred, 0, 1, &vc.call, &applied, msg,
                             sizeof msg) == 1);
    CHECK(applied == 0);
    sl_variant_call_free(&vc);
  }
}

int main(void) {
  test_rerun();
  test_permuted();
  return sl_test_finish("test_rerun");
}
