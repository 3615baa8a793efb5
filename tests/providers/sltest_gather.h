/*
 * A plain, correct gather for the test providers: out[i] = x[i with i_dim :=
 * index[i]], over any strides, built on sl_provider.h alone (a provider
 * cannot call the harness's sl_* functions).
 *
 * The walk hands each output element and the x element it takes to a
 * callback, so that the broken provider copies bytes and the twins add their
 * offset with one walk between them.
 *
 * Ranks follow LibTorch, as the harness's contract does: a rank-0 tensor
 * counts as rank 1 of extent 1, so x and index may differ in rank only by a
 * scalar against a one-element vector. A missing dimension has extent 1 and
 * stride 0, which makes every case one loop over index's elements.
 */
#ifndef SLTEST_GATHER_H
#define SLTEST_GATHER_H

#include <stdint.h>
#include <string.h>

#include "sl/sl_provider.h"

typedef void (*sltest_elem_fn)(void *out, const void *x, sl_dtype dt,
                               void *user);

/* The element callback of a correct gather: a copy. */
static inline void sltest_copy(void *out, const void *x, sl_dtype dt,
                               void *user) {
  (void)user;
  memcpy(out, x, sl_provider_dtype_size(dt));
}

/* Extent and stride of dimension d of t, with the missing ones of a lower
 * rank read as extent 1, stride 0. */
static inline int64_t sltest_extent(const sl_tensor *t, int d) {
  return d < t->ndim ? t->shape[d] : 1;
}
static inline int64_t sltest_stride(const sl_tensor *t, int d) {
  return d < t->ndim ? t->strides[d] : 0;
}

/* The index value at element offset off (i32 or i64: the caps allow no
 * other). */
static inline int64_t sltest_load_index(const sl_tensor *index, int64_t off) {
  const char *p = (const char *)index->data;
  if (index->dtype == SL_I32) {
    int32_t v;
    memcpy(&v, p + off * 4, sizeof v);
    return v;
  }
  int64_t v;
  memcpy(&v, p + off * 8, sizeof v);
  return v;
}

/* Calls fn for every element of the gather call c (slots x, index, out),
 * with p.dim already normalized by the harness. Returns without touching
 * memory when index (and so out) is empty. */
static inline void sltest_gather_each(const sl_call *c, sltest_elem_fn fn,
                                      void *user) {
  const sl_tensor *x = &c->arg[0], *index = &c->arg[1], *out = &c->arg[2];
  const int dim = (int)c->p.dim;
  const int nd = index->ndim > x->ndim ? index->ndim : x->ndim;
  const size_t es = sl_provider_dtype_size(x->dtype);
  int64_t numel = 1;
  for (int d = 0; d < nd; ++d) numel *= sltest_extent(index, d);
  if (numel == 0) return;
  int64_t coord[SL_MAX_DIMS] = {0};
  for (int64_t n = 0; n < numel; ++n) {
    int64_t ioff = 0, ooff = 0, xoff = 0;
    for (int d = 0; d < nd; ++d) {
      ioff += coord[d] * sltest_stride(index, d);
      ooff += coord[d] * sltest_stride(out, d);
      if (d != dim) xoff += coord[d] * sltest_stride(x, d);
    }
    xoff += sltest_load_index(index, ioff) * sltest_stride(x, dim);
    fn((char *)out->data + ooff * (int64_t)es,
       (const char *)x->data + xoff * (int64_t)es, x->dtype, user);
    /* Row-major increment of the coordinate over index's extents. */
    for (int d = nd - 1; d >= 0; --d) {
      if (++coord[d] < sltest_extent(index, d)) break;
      coord[d] = 0;
    }
  }
}

/* Whether an index value of the gather call c lies outside [0, extent of
 * x's axis): then 1, with the first such value and its element number
 * (row-major over index) in *value and *at. */
static inline int sltest_bad_index(const sl_call *c, int64_t *value,
                                   int64_t *at) {
  const sl_tensor *x = &c->arg[0], *index = &c->arg[1];
  const int dim = (int)c->p.dim;
  const int nd = index->ndim > x->ndim ? index->ndim : x->ndim;
  const int64_t bound = sltest_extent(x, dim);
  int64_t numel = 1;
  for (int d = 0; d < nd; ++d) numel *= sltest_extent(index, d);
  int64_t coord[SL_MAX_DIMS] = {0};
  for (int64_t n = 0; n < numel; ++n) {
    int64_t ioff = 0;
    for (int d = 0; d < nd; ++d) ioff += coord[d] * sltest_stride(index, d);
    const int64_t v = sltest_load_index(index, ioff);
    if (v < 0 || v >= bound) {
      *value = v;
      *at = n;
      return 1;
    }
    for (int d = nd - 1; d >= 0; --d) {
      if (++coord[d] < sltest_extent(index, d)) break;
      coord[d] = 0;
    }
  }
  return 0;
}

/* Number of elements of t and the element just past its last one (the
 * largest offset plus one), in elements: for a contiguous output these are
 * equal. */
static inline int64_t sltest_numel(const sl_tensor *t) {
  int64_t n = 1;
  for (int d = 0; d < t->ndim; ++d) n *= t->shape[d];
  return n;
}
static inline int64_t sltest_end(const sl_tensor *t) {
  int64_t last = 0;
  for (int d = 0; d < t->ndim; ++d) last += (t->shape[d] - 1) * t->strides[d];
  return last + 1;
}

#endif /* SLTEST_GATHER_H */
