/*
 * libsltest_broken_cuda: a CUDA provider ("brokencuda") whose 1-D f32
 * gather variants misbehave on the device on purpose, so that
 * broken_cuda.sh can prove that the harness's device checks (device.h) turn
 * a device kernel's misbehaviour into a `failed` verdict, never into
 * reject_mismatch:
 *
 *   cuda.ok         a correct gather                          -> passed
 *   cuda.overrun    correct, then one element past out        -> failed
 *   cuda.unwritten  writes only the first half of out         -> failed
 *
 * Capabilities: f32, int64 index, rank 1, contiguous inputs (the harness
 * hands it contiguous copies of anything else). Built from sl_provider.h
 * and the CUDA runtime alone, as a user's provider would be.
 */
#include <cuda_runtime.h>
#include <stdint.h>

#include "sl/sl_provider.h"

/* out[i] = x[index[i]] for i in [0, n); writes out[n] too when overrun. */
__global__ static void bc_gather(float *out, const float *x,
                                 const int64_t *index, int64_t n, int overrun) {
  const int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n) out[i] = x[index[i]];
  if (overrun && i == 0) out[n] = 1.0f;
}

static sl_status bc_run(sl_ctx *ctx, sl_call *c, int64_t n, int overrun) {
  const sl_tensor *x = &c->arg[0], *index = &c->arg[1], *out = &c->arg[2];
  if (n > 0 || overrun) {
    const int64_t blocks = (n + 255) / 256 > 0 ? (n + 255) / 256 : 1;
    bc_gather<<<(unsigned)blocks, 256, 0, (cudaStream_t)ctx->cuda_stream>>>(
        (float *)out->data, (const float *)x->data,
        (const int64_t *)index->data, n, overrun);
  }
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess)
    return sl_provider_fail(ctx, SL_STATUS_DEVICE_ERROR, "launch: %s",
                            cudaGetErrorString(e));
  return SL_STATUS_OK;
}

static int64_t bc_numel(const sl_tensor *t) {
  return t->ndim ? t->shape[0] : 1;
}

static sl_status bc_ok(sl_ctx *ctx, sl_call *c) {
  return bc_run(ctx, c, bc_numel(&c->arg[2]), 0);
}
static sl_status bc_overrun(sl_ctx *ctx, sl_call *c) {
  return bc_run(ctx, c, bc_numel(&c->arg[2]), 1);
}
static sl_status bc_unwritten(sl_ctx *ctx, sl_call *c) {
  return bc_run(ctx, c, bc_numel(&c->arg[2]) / 2, 0);
}

/* The fields in order (C++ has designated initializers only from C++20). */
#define BC_VARIANT(name, fn)                                                   \
  {                                                                            \
    SL_OP_GATHER, name, SL_DEVICE_CUDA, fn, 0, {                               \
      SL_DTYPE_BIT(SL_F32), SL_DTYPE_BIT(SL_I64), 0, 0, 1, 0                   \
    }                                                                          \
  }

static const sl_provider_variant bc_variants[] = {
    BC_VARIANT("cuda.ok", bc_ok),
    BC_VARIANT("cuda.overrun", bc_overrun),
    BC_VARIANT("cuda.unwritten", bc_unwritten),
};

static const sl_provider bc_provider = {
    SL_PROVIDER_ABI_VERSION,
    sizeof(sl_provider),
    "brokencuda",
    "test fixture",
    sizeof bc_variants / sizeof bc_variants[0],
    bc_variants,
    NULL,
    NULL,
};

SL_PROVIDER_ENTRY { return &bc_provider; }
