/* The CUDA queries of a build without CUDA: honest answers, no device. */
#include "sl_internal.h"

int sl_cuda_built(void) { return 0; }
int sl_cuda_device_count(void) { return 0; }
