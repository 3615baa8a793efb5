/* The tensor descriptor: construction, element counts, validation. */
#include <stdio.h>

#include "sl_internal.h"

void sl_contiguous_strides(int ndim, const int64_t *shape, int64_t *strides) {
  /* Unsigned: a shape too large to address (rejected later with OVERFLOW)
   * must not make this helper undefined behaviour first. */
  uint64_t s = 1;
  for (int d = ndim - 1; d >= 0; --d) {
    strides[d] = (int64_t)s;
    s *= shape[d] > 0 ? (uint64_t)shape[d] : 1u;
  }
}

sl_tensor sl_tensor_make(sl_dtype dt, int ndim, const int64_t *shape,
                         void *data) {
  sl_tensor t;
  memset(&t, 0, sizeof t);
  t.dtype = dt;
  t.ndim = ndim;
  for (int d = 0; d < ndim && d < SL_MAX_DIMS; ++d) t.shape[d] = shape[d];
  sl_contiguous_strides(t.ndim, t.shape, t.strides);
  t.data = data;
  t.device = SL_DEVICE_CPU;
  return t;
}

char *sl_shape_str(int ndim, const int64_t *shape, char *buf, size_t len) {
  size_t n = 0;
  if (len == 0) return buf;
  buf[0] = '\0';
  n += (size_t)snprintf(buf + n, len - n, "[");
  for (int d = 0; d < ndim && n < len; ++d)
    n += (size_t)snprintf(buf + n, len - n, d ? ",%lld" : "%lld",
                          (long long)shape[d]);
  if (n < len) snprintf(buf + n, len - n, "]");
  return buf;
}

int64_t sl__numel(const sl_tensor *t) {
  int64_t n = 1;
  for (int d = 0; d < t->ndim; ++d) n *= t->shape[d];
  return n;
}

int64_t sl__numel_stored(const sl_tensor *t) {
  int64_t n = 1;
  for (int d = 0; d < t->ndim; ++d)
    if (t->strides[d] != 0 || t->shape[d] == 0) n *= t->shape[d];
  return n;
}

void sl__memory_order(int n, sl_tensor *t) {
  for (int d = 1; d < t[0].ndim; ++d)
    for (int k = d; k > 0 && t[0].strides[k - 1] < t[0].strides[k]; --k)
      for (int i = 0; i < n; ++i) {
        const int64_t st = t[i].strides[k], sh = t[i].shape[k];
        t[i].strides[k] = t[i].strides[k - 1],
        t[i].shape[k] = t[i].shape[k - 1];
        t[i].strides[k - 1] = st, t[i].shape[k - 1] = sh;
      }
}

sl_status sl_tensor_numel(sl_ctx *ctx, const char *name, const sl_tensor *t,
                          int64_t *numel) {
  if (!t)
    return sl_ctx_fail(ctx, SL_STATUS_NULL_POINTER,
                       "%s: expected a tensor, got NULL", name);
  if (t->ndim < 0 || t->ndim > SL_MAX_DIMS)
    return sl_ctx_fail(ctx, SL_STATUS_INVALID_ARGUMENT,
                       "%s: expected ndim in [0,%d], got %d", name, SL_MAX_DIMS,
                       t->ndim);
  /* A zero extent makes the product 0 whatever the others are, but every
   * extent must still fit on its own: check the product of the non-zero
   * extents against SIZE_MAX / element size. */
  size_t esize = sl_dtype_size(t->dtype) ? sl_dtype_size(t->dtype) : 1;
  uint64_t limit = (uint64_t)SIZE_MAX / esize;
  if (limit > (uint64_t)INT64_MAX) limit = (uint64_t)INT64_MAX;
  uint64_t prod = 1;
  int empty = 0;
  for (int d = 0; d < t->ndim; ++d) {
    if (t->shape[d] < 0)
      return sl_ctx_fail(ctx, SL_STATUS_INVALID_ARGUMENT,
                         "%s: expected extents >= 0, got shape[%d] = %lld",
                         name, d, (long long)t->shape[d]);
    if (t->shape[d] == 0) {
      empty = 1;
      continue;
    }
    if (prod > limit / (uint64_t)t->shape[d]) {
      char buf[160];
      return sl_ctx_fail(ctx, SL_STATUS_OVERFLOW,
                         "%s: shape %s has more elements than size_t can "
                         "address at %zu bytes each",
                         name, sl_shape_str(t->ndim, t->shape, buf, sizeof buf),
                         esize);
    }
    prod *= (uint64_t)t->shape[d];
  }
  if (numel) *numel = empty ? 0 : (int64_t)prod;
  return SL_STATUS_OK;
}

int sl_tensor_is_contiguous(const sl_tensor *t) {
  uint64_t s = 1;
  for (int d = t->ndim - 1; d >= 0; --d) {
    if (t->shape[d] != 1 && (uint64_t)t->strides[d] != s) return 0;
    s *= (uint64_t)t->shape[d];
  }
  return 1;
}

sl_status sl_tensor_check(sl_ctx *ctx, const char *name, const sl_tensor *t) {
  int64_t n;
  sl_status st = sl_tensor_numel(ctx, name, t, &n);
  if (st) return st;
  if ((unsigned)t->dtype >= SL_DTYPE_COUNT)
    return sl_ctx_fail(ctx, SL_STATUS_UNSUPPORTED_DTYPE,
                       "%s: expected a known dtype, got code %d", name,
                       (int)t->dtype);
  if (t->device != SL_DEVICE_CPU && t->device != SL_DEVICE_CUDA)
    return sl_ctx_fail(ctx, SL_STATUS_INVALID_ARGUMENT,
                       "%s: expected device cpu or cuda, got code %d", name,
                       (int)t->device);
  for (int d = 0; d < t->ndim; ++d)
    if (t->strides[d] < 0)
      return sl_ctx_fail(ctx, SL_STATUS_INVALID_ARGUMENT,
                         "%s: expected strides >= 0, got strides[%d] = %lld",
                         name, d, (long long)t->strides[d]);
  if (n > 0 && !t->data)
    return sl_ctx_fail(ctx, SL_STATUS_NULL_POINTER,
                       "%s: expected data for %lld elements, got NULL", name,
                       (long long)n);
  return SL_STATUS_OK;
}
