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

/*
 * The leading positions of a contiguous row (out, x and mask of unit
 * stride, source contiguous from element *k, ns elements in all) done with
 * the CPU's vector expand, where it has one for elements of es bytes
 * (AVX-512, masked_scatter_avx512.c, else AVX2, masked_scatter_avx2.c):
 * returns how many (0 without one) and moves *k past the source elements
 * taken. The caller finishes the row.
 */
int64_t sl__masked_expand(size_t es, char *out, const char *x,
                          const unsigned char *mask, const char *source,
                          int64_t *k, int64_t ns, int64_t n);
int64_t sl__masked_expand_avx2(size_t es, char *out, const char *x,
                               const unsigned char *mask, const char *source,
                               int64_t *k, int64_t ns, int64_t n);

#ifdef __cplusplus
}
#endif

#endif /* SL_MASKED_SCATTER_H */
