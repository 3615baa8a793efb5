/*
 * scatter on the CPU. out starts as x; index is then walked in row-major
 * order, a row at a time (reduce_rows.h), so for any output element the
 * writer that comes last in row-major order of index wins. Two positions of
 * index that differ on an axis other than dim never write the same element,
 * so the OpenMP variant gives each thread a slab of index along such an
 * axis (sl__slabs_plan) and walks it in the same order: bitwise the serial
 * answer, duplicates included.
 */
#include "reduce_rows.h"
#include "walk.h"

/* out[j*oc + index[j*ic]*od[0]] = src[j*sc] for each row of the block:
 * plain element bits, one loop per element size (scatter moves every
 * dtype). */
#define SL__SCATTER_ROW(size, T, I)                                            \
  static void sl__scatter_row_##size##_##I(                                    \
      char *o, const char *ip, const char *sp, const sl__rows_block *blk) {    \
    const int64_t n = blk->n, oc = blk->oc, ic = blk->ic, sc = blk->sc;        \
    const int64_t d0 = blk->od[0]; /* m is always 1: one index column */       \
    for (int64_t r = 0; r < blk->rows; ++r) {                                  \
      T *out = (T *)sl__at(o, r * blk->or_ * (int64_t)sizeof(T));              \
      const I *index =                                                         \
          (const I *)sl__at(ip, r * blk->ir * (int64_t)sizeof(I));             \
      const T *src = (const T *)sl__at(sp, r * blk->sr * (int64_t)sizeof(T));  \
      if (oc == 1 && ic == 1 && sc == 1) {                                     \
        for (int64_t j = 0; j < n; ++j)                                        \
          out[j + (int64_t)index[j] * d0] = src[j];                            \
      } else {                                                                 \
        for (int64_t j = 0; j < n; ++j)                                        \
          out[j * oc + (int64_t)index[j * ic] * d0] = src[j * sc];             \
      }                                                                        \
    }                                                                          \
  }
SL__INDEXED_ROWS(SL__SCATTER_ROW)
static const sl__reduce_row_fn sl__scatter_rows[][2] =
    SL__INDEXED_TABLE(sl__scatter_row);

static sl_status sl__scatter_cpu(sl_call *c, int threads) {
  sl__copy_strided(&c->arg[3], &c->arg[0], threads);
  const sl_tensor *index = &c->arg[1], *out = &c->arg[3];
  int64_t ost[SL_MAX_DIMS], od, zero[SL_MAX_DIMS] = {0};
  sl__scatter_walk s;
  unsigned fixed =
      sl__scatter_walk_init(&s, c, index->ndim, 1, &c->p.dim, 0, ost, &od);
  s.row = sl__scatter_rows[sl__elem_class(s.es)][s.ies == 8];
  _Alignas(16) unsigned char scalar[16];
  if (c->p.has_value) { /* the value, in x's dtype, as a src of stride 0 */
    if (sl_dtype_is_int(out->dtype))
      sl__store_i(out->dtype, scalar, c->p.ivalue);
    else
      sl__store_f(out->dtype, scalar, c->p.value);
    s.src = (const char *)scalar;
    s.sst = zero;
  }
  sl__slabs sl;
  sl__slabs_plan(&sl, index->ndim, index->shape, out, fixed, threads);
  sl__scatter_walk_run(&s, &sl);
  return SL_STATUS_OK;
}

sl_status sl_scatter_cpu_serial(sl_ctx *ctx, sl_call *c) {
  (void)ctx;
  return sl__scatter_cpu(c, 1);
}

sl_status sl_scatter_cpu_omp(sl_ctx *ctx, sl_call *c) {
  return sl__scatter_cpu(c, sl__threads(ctx));
}
