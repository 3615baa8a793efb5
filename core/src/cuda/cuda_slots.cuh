/*
 * The verdict slots of the device-side index checks (internal to core/):
 * kernels atomicMin the row-major position of a bad index value into a
 * slot, and the call reads the slots once, after its last kernel
 * (sl__cuda_read_slots). They are the calling thread's, kept on each device
 * between calls, so that a call's checks cost it no allocation and no fill,
 * only the read it needs anyway to return a verdict.
 */
#ifndef SL_CUDA_SLOTS_CUH
#define SL_CUDA_SLOTS_CUH

#include "cuda/cuda_common.cuh"

/* n (at most 4) consecutive slots holding UINT64_MAX. They are filled again
 * only after a read found one set, or when a call stopped before reading
 * them (then with a wait: its kernels may still be writing). One set per
 * call at a time: asking again before the read refills the same slots. */
sl_status sl__cuda_slots(sl_ctx *ctx, cudaStream_t s, int n,
                         unsigned long long **slots);

#endif /* SL_CUDA_SLOTS_CUH */
