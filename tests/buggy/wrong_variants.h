/*
 * What the deliberately wrong providers share (tests/buggy, tests/planted):
 * the walk over a scatter-like call's targets, the row of a variant that
 * takes every case of its op's contract, and the reduces and include_self
 * its op declares. Header-only: each provider is one library of its own.
 */
#ifndef SL_WRONG_VARIANTS_H
#define SL_WRONG_VARIANTS_H

#include "sl/sl_provider.h"
#include "sl_internal.h"

/* The element offset in out of a target, with the offset of its src. */
typedef void (*sl_wrong_visit)(const sl_call *c, int64_t out_off,
                               int64_t src_off, void *user);

/* Calls fn for every index position of a scatter-like call (index in slot
 * 1, src in 2, out in 3) in row-major order of index, but the last `skip`. */
static inline void sl_wrong_each_target(const sl_call *c, int64_t skip,
                                        sl_wrong_visit fn, void *user) {
  const sl_tensor *index = &c->arg[1], *src = &c->arg[2], *out = &c->arg[3];
  int64_t idx[SL_MAX_DIMS], n = sl__numel(index) - skip;
  const int dim = (int)c->p.dim;
  for (int64_t i = 0; i < n; ++i) {
    sl__unravel(i, index->ndim, index->shape, idx);
    int64_t v = sl__load_index(index, sl__offset(index, idx));
    int64_t off = 0;
    for (int d = 0; d < out->ndim; ++d)
      off += (d == dim ? v : idx[d]) * out->strides[d];
    fn(c, off, sl__offset(src, idx), user);
  }
}

/* A CPU variant row taking every case of its op's contract. */
#define SL_WRONG_ROW(op, name, fn, flags)                                      \
  {                                                                            \
    op, name, SL_DEVICE_CPU, fn, flags, {                                      \
      SL_DTYPES_ALL, SL_INDEX_DTYPES_ALL, 0, 0, SL_MAX_DIMS, SL_LAYOUTS_ALL    \
    }                                                                          \
  }

/* Each row declares the reduces and include_self of its own op. */
static inline void sl_wrong_declare_reduces(sl_provider_variant *rows,
                                            size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const sl_op_info *info = sl_op_get(rows[i].op);
    rows[i].caps.reduces = info->reduces;
    rows[i].caps.include_self =
        info->takes_include_self ? SL_INCLUDE_SELF_BOTH : 0;
  }
}

#endif
