/*
 * index_reduce_backward of prod by slices: the formulas of the line walk
 * (sl__rb_lines_as, reduce_backward.c) for one target's chunk of columns
 * at a time, each element's contributions in index order, so the results
 * are the line walk's. The line walk took the lines along dim, a row
 * apart when dim is not the last axis, and widened every line of f16 or
 * bf16 whole into floats (f16 prod of one update into 986x986 read
 * 0.69-1.73x LibTorch across three runs, serial 0.40-0.94x).
 */
#include "index_reduce_backward_shares.h"

#include "half_blocks.h"
#include "reduce.h"

/* n elements from p into v, as doubles: f16 and bf16 through a float
 * block (n <= SL__IRB_CHUNK). */
SL__ALWAYS_INLINE void sl__irb_prod_load(sl_dtype dt, const char *p, int64_t n,
                                         double *v) {
  if (dt == SL_F16 || dt == SL_BF16) {
    float f[SL__IRB_CHUNK];
    sl__half_load_block(dt, p, f, n);
    for (int64_t q = 0; q < n; ++q) v[q] = f[q];
    return;
  }
  const size_t es = sl__dtype_size(dt);
  for (int64_t q = 0; q < n; ++q) v[q] = sl__load_f(dt, p + q * es);
}

/* n values to p: f16 and bf16 rounded to float first, as the line walk's
 * float instance stores them before it narrows. */
SL__ALWAYS_INLINE void sl__irb_prod_store(sl_dtype dt, const double *v, char *p,
                                          int64_t n) {
  if (dt == SL_F16 || dt == SL_BF16) {
    float f[SL__IRB_CHUNK];
    for (int64_t q = 0; q < n; ++q) f[q] = (float)v[q];
    sl__half_store_block(dt, f, p, n);
    return;
  }
  const size_t es = sl__dtype_size(dt);
  for (int64_t q = 0; q < n; ++q) sl__store_f(dt, p + q * es, v[q]);
}

/* grad_x where no contribution lands: g * x / x, x masked where zero
 * (LibTorch's masked_self), which a rounding or an infinite x keeps from
 * being g. */
SL__ALWAYS_INLINE void sl__irb_prod_plain_as(sl_dtype dt,
                                             const sl__irb_shares *s,
                                             int64_t off, int64_t len) {
  const size_t es = sl__dtype_size(dt);
  double g[SL__IRB_CHUNK], x[SL__IRB_CHUNK];
  for (int64_t a = 0; a < len; a += SL__IRB_CHUNK) {
    const int64_t n = len - a < SL__IRB_CHUNK ? len - a : SL__IRB_CHUNK;
    const size_t at = (size_t)(off + a) * es;
    sl__irb_prod_load(dt, s->g + at, n, g);
    sl__irb_prod_load(dt, s->x + at, n, x);
    for (int64_t q = 0; q < n; ++q) {
      const double masked = sl__zero_to_one(x[q]);
      g[q] = sl__round_to(sl__acc_dtype(dt), g[q] * masked) / masked;
    }
    sl__irb_prod_store(dt, g, s->gx + at, n);
  }
}

/* Target k's chunk: A, x masked times the contributions; R, the product
 * in the accumulation dtype; Z, the zeros among the contributions; B, x
 * times the contributions but a lone zero. grad_x = g * A / masked x (0
 * without self); a contribution's gradient is g * B where it is the lone
 * zero, else g * result / itself (f16/bf16: the f32 product R, as the
 * line walk's widened lines have it). */
SL__ALWAYS_INLINE void sl__irb_prod_chunk_as(sl_dtype dt,
                                             const sl__irb_shares *s, int64_t o,
                                             int64_t k, int64_t j,
                                             int64_t len) {
  const size_t es = sl__dtype_size(dt);
  const int wide = sl__acc_dtype(dt) != dt;
  const int64_t t = s->u[k], *c0 = s->by + s->first[k],
                *c1 = s->by + s->first[k + 1];
  double g[SL__IRB_CHUNK], x[SL__IRB_CHUNK], r[SL__IRB_CHUNK];
  double A[SL__IRB_CHUNK], B[SL__IRB_CHUNK], Z[SL__IRB_CHUNK];
  double v[SL__IRB_CHUNK];
#define RD(e) sl__round_to(sl__acc_dtype(dt), e)
#define SRC(i)                                                                 \
  sl__irb_prod_load(dt, sl__irb_slice(s->src, s, es, o, s->m, i, j), len, v)
  sl__irb_prod_load(dt, sl__irb_slice(s->g, s, es, o, s->n, t, j), len, g);
  sl__irb_prod_load(dt, sl__irb_slice(s->x, s, es, o, s->n, t, j), len, x);
  for (int64_t q = 0; q < len; ++q) {
    A[q] = s->self ? sl__zero_to_one(x[q]) : 1.0;
    B[q] = r[q] = s->self ? x[q] : 1.0;
    Z[q] = 0.0;
  }
  for (const int64_t *i = c0; i < c1; ++i) {
    SRC(*i);
    for (int64_t q = 0; q < len; ++q) {
      A[q] = RD(A[q] * v[q]);
      r[q] = RD(r[q] * v[q]);
      Z[q] += sl__pick_f64(v[q] == 0.0, 1.0, 0.0);
    }
  }
  for (const int64_t *i = c0; i < c1; ++i) {
    SRC(*i);
    for (int64_t q = 0; q < len; ++q)
      B[q] = RD(B[q] * sl__pick_f64((v[q] == 0.0) & (Z[q] == 1.0), 1.0, v[q]));
  }
  for (int64_t q = 0; q < len; ++q)
    A[q] = s->self ? RD(g[q] * A[q]) / sl__zero_to_one(x[q]) : 0.0;
  sl__irb_prod_store(dt, A, sl__irb_slice(s->gx, s, es, o, s->n, t, j), len);
  if (!wide) /* the given result */
    sl__irb_prod_load(dt, sl__irb_slice(s->res, s, es, o, s->n, t, j), len, r);
  for (const int64_t *i = c0; i < c1; ++i) {
    SRC(*i);
    for (int64_t q = 0; q < len; ++q)
      v[q] = sl__pick_f64((v[q] == 0.0) & (Z[q] == 1.0), g[q] * B[q],
                          RD(g[q] * r[q]) / sl__zero_to_one(v[q]));
    sl__irb_prod_store(dt, v, sl__irb_slice(s->gs, s, es, o, s->m, *i, j), len);
  }
#undef RD
#undef SRC
}

/* One instance of each per floating dtype: each folds its loads and
 * stores. */
#define SL__IRB_PROD_FN(D)                                                     \
  static void sl__irb_prod_plain_##D(const sl__irb_shares *s, int64_t off,     \
                                     int64_t len) {                            \
    sl__irb_prod_plain_as(SL_##D, s, off, len);                                \
  }                                                                            \
  static void sl__irb_prod_chunk_##D(const sl__irb_shares *s, int64_t o,       \
                                     int64_t k, int64_t j, int64_t len) {      \
    sl__irb_prod_chunk_as(SL_##D, s, o, k, j, len);                            \
  }
SL__RB_DTYPES(SL__IRB_PROD_FN)
#undef SL__IRB_PROD_FN

void sl__irb_prod_untargeted(const sl__irb_shares *s, int64_t off,
                             int64_t len) {
#define SL__IRB_PROD_IS(D)                                                     \
  if (s->dt == SL_##D) sl__irb_prod_plain_##D(s, off, len);
  SL__RB_DTYPES(SL__IRB_PROD_IS)
#undef SL__IRB_PROD_IS
}

void sl__irb_prod_chunk(const sl__irb_shares *s, int64_t o, int64_t k,
                        int64_t j, int64_t len) {
#define SL__IRB_PROD_IS(D)                                                     \
  if (s->dt == SL_##D) sl__irb_prod_chunk_##D(s, o, k, j, len);
  SL__RB_DTYPES(SL__IRB_PROD_IS)
#undef SL__IRB_PROD_IS
}
