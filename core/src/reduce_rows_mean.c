/*
 * The mean of a scatter-like call (scatter_reduce, and index_reduce as
 * scatter_reduce with its index broadcast) for f32, f64, i32 and i64 by
 * the typed row path:
 * the sum by sl__scatter_reduce_rows, the counts by a second walk of the
 * index adding 1 into an i32 count per element of out, then one pass that
 * divides each element with more than one term. The lines (reduce.c) took
 * every term through a dtype switch and a call per line.
 *
 * The numbers are the lines': each element's terms in row-major order in
 * its own dtype (no parts for a float sum), a float count that grows as a
 * sum of ones in that dtype (an f32 one stops at 2^24), an integer mean
 * that floors.
 */
#include <string.h>

#include "reduce.h"
#include "reduce_rows.h"
#include "walk.h"

/* The divisor of a count k: k as that dtype's sum of ones reaches it (an
 * f32 one stops at 2^24: 2^24 + 1 rounds to 2^24), and 1 for a count of 0
 * or 1, which divides nothing (x / 1 is x, NaN included). */
static inline float sl__f32_divisor(int32_t k) {
  k = k < (1 << 24) ? k : (1 << 24);
  /* k + (k == 0), not k > 1 ? k : 1: gcc turns that into a branch around
   * the division (x / 1 is x), and the loop no longer vectorizes */
  return (float)(k + (k == 0));
}
static inline double sl__f64_divisor(int32_t k) {
  return (double)(k + (k == 0));
}

#define SL__MEAN_F32(a, k) ((a) / sl__f32_divisor(k))
#define SL__MEAN_F64(a, k) ((a) / sl__f64_divisor(k))
#define SL__MEAN_INT(a, k) sl__floor_div((a), (k))

/* out[j * os] /= its count k[j * ks] where that is more than 1: a float
 * row divides every element (by 1 where nothing is to divide: no branch,
 * so it vectorizes; a branch on random counts mispredicted a third of the
 * time), an integer one only where it must (no vector division). */
typedef void (*sl__mean_row_fn)(char *out, const int32_t *k, int64_t n,
                                int64_t os, int64_t ks);
#define SL__MEAN_ROWS(X)                                                       \
  X(f32, float, SL__MEAN_F32, SL_F32, SL__MEAN_ALL)                            \
  X(f64, double, SL__MEAN_F64, SL_F64, SL__MEAN_ALL)                           \
  X(i32, int32_t, SL__MEAN_INT, SL_I32, SL__MEAN_SOME)                         \
  X(i64, int64_t, SL__MEAN_INT, SL_I64, SL__MEAN_SOME)
#define SL__MEAN_ALL(T, DIV)                                                   \
  for (int64_t j = 0; j < n; ++j) o[j * os] = (T)DIV(o[j * os], k[j * ks]);
#define SL__MEAN_SOME(T, DIV)                                                  \
  for (int64_t j = 0; j < n; ++j)                                              \
    if (k[j * ks] > 1) o[j * os] = (T)DIV(o[j * os], k[j * ks]);
#define SL__MEAN_ROW(name, T, DIV, DT, LOOP)                                   \
  static void sl__mean_row_##name(char *out, const int32_t *k, int64_t n,      \
                                  int64_t os, int64_t ks) {                    \
    T *o = (T *)out;                                                           \
    if (os == 1 && ks == 1) {                                                  \
      const int64_t os = 1, ks = 1; /* constant strides: vector loops */       \
      LOOP(T, DIV)                                                             \
    } else {                                                                   \
      LOOP(T, DIV)                                                             \
    }                                                                          \
  }
SL__MEAN_ROWS(SL__MEAN_ROW)
#undef SL__MEAN_ROW

static sl__mean_row_fn sl__mean_row_for(sl_dtype dt) {
#define SL__MEAN_ROW_IS(name, T, DIV, DT, LOOP)                                \
  if (dt == DT) return sl__mean_row_##name;
  SL__MEAN_ROWS(SL__MEAN_ROW_IS)
#undef SL__MEAN_ROW_IS
  return NULL;
}

/* The counts, [numel(out)] i32 in out's shape, row-major. */
typedef struct sl__mean_job {
  const sl_tensor *out;
  int32_t *counts;
  int32_t start; /* each count's start: include_self */
  sl__mean_row_fn row;
} sl__mean_job;

static void sl__mean_fill(void *user, int64_t b, int64_t e) {
  const sl__mean_job *jb = user;
  if (jb->start == 0) {
    memset(jb->counts + b, 0, (size_t)(e - b) * sizeof *jb->counts);
    return;
  }
  for (int64_t i = b; i < e; ++i) jb->counts[i] = jb->start;
}

/* Positions [b, e) of out in row-major order, a row at a time. */
static void sl__mean_divide(void *user, int64_t b, int64_t e) {
  const sl__mean_job *jb = user;
  const sl_tensor *out = jb->out;
  int64_t row_major[SL_MAX_DIMS], stride = 1;
  for (int d = out->ndim - 1; d >= 0; --d) {
    row_major[d] = stride;
    stride *= out->shape[d];
  }
  const int64_t *st[2] = {out->strides, row_major};
  const int64_t es = (int64_t)sl_dtype_size(out->dtype);
  sl__walk w;
  sl__walk_init(&w, out->ndim, out->shape, 2, st, b);
  for (int64_t left = e - b; left > 0;) {
    const int64_t n = sl__walk_span(&w, left);
    jb->row((char *)out->data + sl__walk_at(&w, 0) * es,
            jb->counts + sl__walk_at(&w, 1), n, sl__walk_step(&w, 0),
            sl__walk_step(&w, 1));
    left -= n;
    sl__walk_next(&w);
  }
}

/* counts[t] += 1 for every index position's target t: the i32 sum row of
 * a src of ones (stride 0) into the counts laid out as out. */
static void sl__mean_count(const sl_call *c, int32_t *counts, int threads) {
  static const int32_t one = 1;
  const sl_tensor *index = &c->arg[1];
  sl_call k = *c;
  k.arg[3] = sl_tensor_make(SL_I32, c->arg[3].ndim, c->arg[3].shape, counts);
  k.arg[2] = sl_tensor_make(SL_I32, index->ndim, index->shape, (void *)&one);
  for (int d = 0; d < index->ndim; ++d) k.arg[2].strides[d] = 0;
  int64_t ost[SL_MAX_DIMS], od;
  sl__scatter_walk s;
  const unsigned fixed =
      sl__scatter_walk_init(&s, &k, index->ndim, 1, &k.p.dim, 0, ost, &od);
  s.row = sl__reduce_row_for(SL_I32, SL_REDUCE_SUM, index->dtype, 1);
  sl__slabs sl;
  sl__slabs_plan(&sl, index->ndim, index->shape, &k.arg[3], fixed, threads);
  sl__scatter_walk_run(&s, &sl);
}

int sl__scatter_reduce_mean_rows(sl_call *c, int threads, int parted) {
  const sl_tensor *index = &c->arg[1], *out = &c->arg[3];
  sl__mean_job jb = {out, NULL, c->p.include_self ? 1 : 0,
                     sl__mean_row_for(out->dtype)};
  const int64_t numel = sl__numel(out);
  /* i32 counts hold every term of an element, x's included */
  if (c->p.reduce != SL_REDUCE_MEAN || !jb.row || sl__numel(index) == 0 ||
      sl__numel(index) >= INT32_MAX ||
      !sl__reduce_row_for(out->dtype, SL_REDUCE_SUM, index->dtype, 1))
    return 0;
  if (!(jb.counts = sl__malloc((size_t)numel * sizeof *jb.counts))) return 0;
  sl_call sum = *c;
  sum.p.reduce = SL_REDUCE_SUM;
  /* parts regroup a float sum's terms; an integer sum is exact either way */
  sl__scatter_reduce_rows(&sum, threads,
                          parted && sl__reduce_is_int(out->dtype));
  sl__for_chunks(threads, numel, sl__mean_fill, &jb);
  sl__mean_count(c, jb.counts, threads);
  sl__for_chunks(threads, numel, sl__mean_divide, &jb);
  sl__free(jb.counts);
  return 1;
}
