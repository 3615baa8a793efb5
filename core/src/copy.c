/* Strided element copy shared by every op whose output starts as x. */
#include "sl_internal.h"

void sl__copy_strided(sl_tensor *out, const sl_tensor *x, int threads) {
  int64_t n = sl__numel(x);
  size_t es = sl_dtype_size(x->dtype);
  if (n == 0) return;
  if (sl_tensor_is_contiguous(x) && sl_tensor_is_contiguous(out)) {
    /* One memcpy per thread-sized chunk keeps large copies at bandwidth. */
    int64_t chunk = (n + threads - 1) / threads;
#pragma omp parallel for num_threads(threads) schedule(static) if (n > 65536)
    for (int64_t c = 0; c < threads; ++c) {
      int64_t b = c * chunk, e = b + chunk < n ? b + chunk : n;
      if (b < e)
        memcpy((char *)out->data + b * (int64_t)es,
               (const char *)x->data + b * (int64_t)es, (size_t)(e - b) * es);
    }
    return;
  }
#pragma omp parallel for num_threads(threads) schedule(static) if (n > 65536)
  for (int64_t i = 0; i < n; ++i)
    memcpy(sl__ptr(out, sl__offset_linear(out, i)),
           sl__ptr(x, sl__offset_linear(x, i)), es);
}
