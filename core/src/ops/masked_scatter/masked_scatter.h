/*
 * masked_scatter's view of its mask, shared by the infer function (which
 * counts the true positions to check source's length) and the kernels.
 */
#ifndef SL_MASKED_SCATTER_H
#define SL_MASKED_SCATTER_H

#include "sl_internal.h"

/*
 * Strides (in elements) of a validated mask broadcast to x's shape: the mask
 * is aligned on x's trailing axes, and its size-1 axes and the leading axes
 * it lacks get stride 0.
 */
static inline void sl__mask_strides(const sl_tensor *x, const sl_tensor *mask,
                                    int64_t *ms) {
  int lead = x->ndim - mask->ndim;
  for (int d = 0; d < x->ndim; ++d) {
    int j = d - lead;
    ms[d] = (j < 0 || mask->shape[j] == 1) ? 0 : mask->strides[j];
  }
}

#ifdef __cplusplus
extern "C" {
#endif

/* Number of true mask positions among x's row-major positions
 * [begin, end) (masked_scatter_mask.c). */
int64_t sl__mask_count(const sl_tensor *x, const sl_tensor *mask,
                       const int64_t *ms, int64_t begin, int64_t end);

#ifdef __cplusplus
}
#endif

#endif /* SL_MASKED_SCATTER_H */
