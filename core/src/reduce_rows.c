/* Typed row loops of the scatter-like reductions (see reduce_rows.h). */
#include "reduce_rows.h"

#include "reduce.h"
#include "walk.h"

/* The combine steps on an accumulator *a and a value b of type T (U: the
 * unsigned type of the same width, for the wrapping integer sum/prod). */
#define SL__STEP_ASSIGN(T, U) *a = b
#define SL__STEP_SUM_F(T, U) *a = *a + b
#define SL__STEP_PROD_F(T, U) *a = *a * b
#define SL__STEP_AMAX_F(T, U) *a = b != b ? b : (*a < b ? b : *a)
#define SL__STEP_AMIN_F(T, U) *a = b != b ? b : (b < *a ? b : *a)
#define SL__STEP_SUM_I(T, U) *a = (T)((U)*a + (U)b)
#define SL__STEP_PROD_I(T, U) *a = (T)((U)*a * (U)b)
#define SL__STEP_AMAX_I(T, U) *a = *a < b ? b : *a
#define SL__STEP_AMIN_I(T, U) *a = b < *a ? b : *a

#define SL__REDUCE_ROW(name, T, U, I, STEP)                                    \
  static void name(char *o, const char *ip, const char *sp,                    \
                   const sl__rows_block *blk) {                                \
    const int64_t n = blk->n, oc = blk->oc, ic = blk->ic, sc = blk->sc;        \
    const int64_t *od = blk->od;                                               \
    const int m = blk->m;                                                      \
    const int64_t ik = blk->ik, d0 = od[0];                                    \
    const int unit = oc == 1 && ic == 1 && sc == 1;                            \
    for (int64_t r = 0; r < blk->rows; ++r) {                                  \
      T *out = (T *)sl__at(o, r * blk->or_ * (int64_t)sizeof(T));              \
      const I *index =                                                         \
          (const I *)sl__at(ip, r * blk->ir * (int64_t)sizeof(I));             \
      const T *src = (const T *)sl__at(sp, r * blk->sr * (int64_t)sizeof(T));  \
      if (m == 1 && unit) { /* contiguous rows: the common case */             \
        for (int64_t j = 0; j < n; ++j) {                                      \
          T *a = out + j + (int64_t)index[j] * d0, b = src[j];                 \
          STEP(T, U);                                                          \
        }                                                                      \
      } else if (m == 1) { /* scatter_reduce, scatter_nd with one column */    \
        for (int64_t j = 0; j < n; ++j) {                                      \
          T *a = out + j * oc + (int64_t)index[j * ic] * d0, b = src[j * sc];  \
          STEP(T, U);                                                          \
        }                                                                      \
      } else {                                                                 \
        for (int64_t j = 0; j < n; ++j) {                                      \
          int64_t t = j * oc;                                                  \
          for (int k = 0; k < m; ++k)                                          \
            t += (int64_t)index[j * ic + k * ik] * od[k];                      \
          T *a = out + t, b = src[j * sc];                                     \
          STEP(T, U);                                                          \
        }                                                                      \
      }                                                                        \
    }                                                                          \
  }

/* Every (dtype, index dtype) pair for one step: [f32, f64, i32, i64][i32,
 * i64], named sl__rr_<step>_<dtype>_<index>. */
#define SL__REDUCE_ROWS(step, FSTEP, ISTEP)                                    \
  SL__REDUCE_ROW(sl__rr_##step##_f32_i32, float, uint32_t, int32_t, FSTEP)     \
  SL__REDUCE_ROW(sl__rr_##step##_f32_i64, float, uint32_t, int64_t, FSTEP)     \
  SL__REDUCE_ROW(sl__rr_##step##_f64_i32, double, uint64_t, int32_t, FSTEP)    \
  SL__REDUCE_ROW(sl__rr_##step##_f64_i64, double, uint64_t, int64_t, FSTEP)    \
  SL__REDUCE_ROW(sl__rr_##step##_i32_i32, int32_t, uint32_t, int32_t, ISTEP)   \
  SL__REDUCE_ROW(sl__rr_##step##_i32_i64, int32_t, uint32_t, int64_t, ISTEP)   \
  SL__REDUCE_ROW(sl__rr_##step##_i64_i32, int64_t, uint64_t, int32_t, ISTEP)   \
  SL__REDUCE_ROW(sl__rr_##step##_i64_i64, int64_t, uint64_t, int64_t, ISTEP)
SL__REDUCE_ROWS(assign, SL__STEP_ASSIGN, SL__STEP_ASSIGN)
SL__REDUCE_ROWS(sum, SL__STEP_SUM_F, SL__STEP_SUM_I)
SL__REDUCE_ROWS(prod, SL__STEP_PROD_F, SL__STEP_PROD_I)
SL__REDUCE_ROWS(amax, SL__STEP_AMAX_F, SL__STEP_AMAX_I)
SL__REDUCE_ROWS(amin, SL__STEP_AMIN_F, SL__STEP_AMIN_I)

#define SL__ROW_TABLE(step)                                                    \
  {                                                                            \
    {sl__rr_##step##_f32_i32, sl__rr_##step##_f32_i64},                        \
        {sl__rr_##step##_f64_i32, sl__rr_##step##_f64_i64},                    \
        {sl__rr_##step##_i32_i32, sl__rr_##step##_i32_i64},                    \
        {sl__rr_##step##_i64_i32, sl__rr_##step##_i64_i64},                    \
  }
static const sl__reduce_row_fn sl__rows[5][4][2] = {
    SL__ROW_TABLE(assign), SL__ROW_TABLE(sum), SL__ROW_TABLE(prod),
    SL__ROW_TABLE(amax), SL__ROW_TABLE(amin)};

sl__reduce_row_fn sl__reduce_row_for(sl_dtype dt, sl_reduce r,
                                     sl_dtype index_dtype) {
  int d = dt == SL_F32   ? 0
          : dt == SL_F64 ? 1
          : dt == SL_I32 ? 2
          : dt == SL_I64 ? 3
                         : -1;
  int s = r == SL_REDUCE_NONE || r == SL_REDUCE_ASSIGN ? 0
          : r == SL_REDUCE_SUM                         ? 1
          : r == SL_REDUCE_PROD                        ? 2
          : r == SL_REDUCE_AMAX                        ? 3
          : r == SL_REDUCE_AMIN                        ? 4
                                                       : -1;
  if (d < 0 || s < 0 || (index_dtype != SL_I32 && index_dtype != SL_I64))
    return NULL;
  return sl__rows[s][d][index_dtype == SL_I64];
}

void sl__scatter_walk_slab(const sl__scatter_walk *s, int axis, int64_t a0,
                           int64_t a1) {
  const int64_t *st[3] = {s->ost, s->ist, s->sst};
  int64_t base[3];
  sl__walk w;
  int64_t all = sl__walk_slab(&w, s->ndim, s->shape, 3, st, axis, a0, a1, base);
  int64_t es = (int64_t)s->es, ies = (int64_t)s->ies;
  sl__rows_block b = {0};
  b.od = s->od;
  b.m = s->m;
  b.ik = s->ik;
  b.oc = sl__walk_step(&w, 0);
  b.ic = sl__walk_step(&w, 1);
  b.sc = sl__walk_step(&w, 2);
  b.or_ = sl__walk_row_step(&w, 0);
  b.ir = sl__walk_row_step(&w, 1);
  b.sr = sl__walk_row_step(&w, 2);
  for (int64_t left = all; left > 0; sl__walk_next_rows(&w, b.rows)) {
    b.rows = sl__walk_rows(&w, left, &b.n);
    left -= b.rows * b.n;
    s->row(sl__at(s->out, (base[0] + sl__walk_at(&w, 0)) * es),
           sl__at(s->index, (base[1] + sl__walk_at(&w, 1)) * ies),
           sl__at(s->src, (base[2] + sl__walk_at(&w, 2)) * es), &b);
  }
}

unsigned sl__scatter_walk_init(sl__scatter_walk *s, const sl_call *c, int ndim,
                               int m, const int64_t *axes, int64_t ik,
                               int64_t *ost, int64_t *od) {
  const sl_tensor *index = &c->arg[1], *src = &c->arg[2], *out = &c->arg[3];
  unsigned fixed = 0;
  for (int d = 0; d < ndim; ++d) ost[d] = out->strides[d];
  for (int k = 0; k < m; ++k) {
    /* A rank-0 scatter decides "axis 0" of a scalar out: stride 0. */
    od[k] = axes[k] < out->ndim ? out->strides[axes[k]] : 0;
    if (axes[k] < ndim) ost[axes[k]] = 0; /* the index decides there */
    fixed |= 1u << axes[k];
  }
  memset(s, 0, sizeof *s);
  s->ndim = ndim;
  s->shape = index->shape;
  s->out = (char *)out->data;
  s->ost = ost;
  s->od = od;
  s->m = m;
  s->es = sl_dtype_size(out->dtype);
  s->index = (const char *)index->data;
  s->ist = index->strides;
  s->ik = ik;
  s->ies = sl_dtype_size(index->dtype);
  s->src = (const char *)src->data;
  s->sst = src->strides;
  return fixed;
}

void sl__scatter_walk_run(const sl__scatter_walk *s, const sl__slabs *sl) {
#pragma omp parallel for num_threads(sl->team)                                 \
    schedule(static) if (sl->team > 1)
  for (int t = 0; t < sl->team; ++t)
    sl__scatter_walk_slab(s, sl->axis, sl->cut[t], sl->cut[t + 1]);
}
