/* The CUDA queries of a build with CUDA: is there a device to run on? */
#include <cuda_runtime.h>

#include "sl/sl.h"

extern "C" int sl_cuda_built(void) { return 1; }

/* Counted once: a machine without a driver answers an error, which means no
 * device, not a failure of the caller. */
extern "C" int sl_cuda_device_count(void) {
  static int cached = -1;
  if (cached < 0) {
    int n = 0;
    cached = cudaGetDeviceCount(&n) == cudaSuccess ? n : 0;
  }
  return cached;
}
