/*
 * scatter_nd parallel over its positions (conflict.h): cpu.atomic, cpu.lock
 * and cpu.sorted. Position p of index.shape[:-1] (row-major) writes one
 * element of out, destination e = that element's row-major position.
 *
 *   cpu.atomic  sum: an atomic add per position (f16/bf16 into an f32
 *               accumulator, rounded once at the end, sl__acc_dtype);
 *               none: every element keeps the largest position aimed at it
 *               (an atomic max), then that position is copied: the last
 *               writer wins, as in the serial loop.
 *   cpu.lock    one lock per element of out, the update made under it;
 *               none: any writer may win.
 *   cpu.sorted  positions bucketed by destination, every bucket applied in
 *               position order by one thread: bitwise the serial answer.
 * Float sums of cpu.atomic and cpu.lock depend on the order of arrival.
 */
#include <stdlib.h>

#include "conflict.h"
#include "ops/gather_nd/nd_index.h"
#include "scatter_nd_split.h"

/* A validated call seen position by position. */
typedef struct sl__ndc {
  const sl_call *c;
  int K;                    /* rank of index.shape[:-1] */
  int64_t P;                /* positions */
  int64_t row[SL_MAX_DIMS]; /* row-major strides of out's shape */
  int direct;              /* sl__scatter_nd_direct: targets from index alone */
  int64_t od[SL_MAX_DIMS]; /* then: out's strides along dims */
  size_t es;
} sl__ndc;

static void sl__ndc_init(const sl_call *c, sl__ndc *q) {
  q->c = c;
  q->K = c->arg[1].ndim - 1;
  q->P = sl__nd_positions(&c->arg[1]);
  sl_contiguous_strides(c->arg[3].ndim, c->arg[3].shape, q->row);
  q->direct = sl__scatter_nd_direct(c);
  for (int k = 0; k < c->p.ndims; ++k) q->od[k] = q->row[c->p.dims[k]];
  q->es = sl_dtype_size(c->arg[3].dtype);
}

/* Position p's element of out (direct addressing: its index row alone);
 * `it` a constant in the typed loops. */
SL__HOT int64_t sl__ndc_target(sl_dtype it, const sl__ndc *q, int64_t p) {
  const sl_tensor *index = &q->c->arg[1];
  const int M = q->c->p.ndims;
  if (M == 2) /* single elements of a matrix: the usual case */
    return sl__index_typed(it, index, 2 * p) * q->od[0] +
           sl__index_typed(it, index, 2 * p + 1) * q->od[1];
  int64_t e = 0;
  for (int k = 0; k < M; ++k)
    e += sl__index_typed(it, index, p * M + k) * q->od[k];
  return e;
}

/* Position p: its destination number, its element of out and of src. */
static inline int64_t sl__ndc_resolve(const sl__ndc *q, int64_t p, char **dst,
                                      const char **src) {
  const sl_tensor *index = &q->c->arg[1], *s = &q->c->arg[2];
  const sl_tensor *out = &q->c->arg[3];
  if (q->direct) { /* no multi-index to unravel and rebuild */
    const int64_t e = sl__ndc_target(index->dtype, q, p);
    *dst = (char *)out->data + e * (int64_t)q->es;
    *src = (const char *)s->data + p * (int64_t)q->es;
    return e;
  }
  int64_t pos[SL_MAX_DIMS], coord[SL_MAX_DIMS];
  sl__unravel(p, q->K, index->shape, pos);
  sl__nd_target(index, &q->c->p, pos, coord);
  int64_t e = 0;
  for (int d = 0; d < out->ndim; ++d) e += coord[d] * q->row[d];
  *dst = sl__ptr(out, sl__offset(out, coord));
  *src = sl__ptr(s, sl__offset(s, pos));
  return e;
}

static char *sl__ndc_where(const void *user, int64_t e) {
  const sl_tensor *out = &((const sl__ndc *)user)->c->arg[3];
  return sl__ptr(out, sl__offset_linear(out, e));
}

typedef enum { SL__ND_PREPARE, SL__ND_ATOMIC, SL__ND_PLAIN } sl__nd_mode;

static inline void sl__ndc_apply(const sl__ndc *q, const sl__acc *a,
                                 const sl__locks *lk, sl__nd_mode mode,
                                 int64_t p) {
  char *dst;
  const char *src;
  const int64_t e = sl__ndc_resolve(q, p, &dst, &src);
  if (mode == SL__ND_PREPARE) {
    sl__acc_prepare(a, e, dst);
  } else if (mode == SL__ND_ATOMIC) {
    sl__acc_atomic(a, e, dst, src);
  } else {
    if (lk) sl__lock(lk, e);
    sl__acc_plain(a, e, dst, src);
    if (lk) sl__unlock(lk, e);
  }
}

/*
 * The typed path, for the common case: direct addressing, a sum into out
 * itself (f32, f64, i32, i64: no f32 accumulators, no counts). The loops
 * are written once with dtype parameters and instantiated per constant
 * (SL__WITH_DTYPES), so no dtype switch is left per position: the generic
 * path's accumulator calls cost more than the atomics themselves.
 */
static int sl__ndc_typed_ok(const sl__ndc *q) {
  const sl_dtype dt = q->c->arg[3].dtype;
  return q->direct && q->c->p.reduce == SL_REDUCE_SUM &&
         (dt == SL_F32 || dt == SL_F64 || dt == SL_I32 || dt == SL_I64);
}

SL__HOT void sl__ndc_typed_loop(sl_dtype dt, sl_dtype it, const sl__ndc *q,
                                const sl__locks *lk, sl__nd_mode mode,
                                int64_t p0, int64_t p1) {
  const int64_t es = dt == SL_F32 || dt == SL_I32 ? 4 : 8;
  char *out = q->c->arg[3].data;
  const char *src = q->c->arg[2].data;
  for (int64_t p = p0; p < p1; ++p) {
    const int64_t e = sl__ndc_target(it, q, p);
    if (mode == SL__ND_ATOMIC) {
      sl__atomic_elem(dt, SL_REDUCE_SUM, out + e * es, src + p * es);
      continue;
    }
    if (lk) sl__lock(lk, e);
    sl__plain_elem(dt, SL_REDUCE_SUM, out + e * es, src + p * es);
    if (lk) sl__unlock(lk, e);
  }
}

static void sl__ndc_typed(const sl__ndc *q, const sl__locks *lk,
                          sl__nd_mode mode, int64_t p0, int64_t p1) {
  SL__WITH_DTYPES(q->c->arg[3].dtype, q->c->arg[1].dtype == SL_I64,
                  sl__ndc_typed_loop, q, lk, mode, p0, p1);
}

static void sl__ndc_pass(const sl__ndc *q, const sl__acc *a,
                         const sl__locks *lk, sl__nd_mode mode, int threads) {
  const int team = sl__conflict_team(threads, q->P);
  if (mode != SL__ND_PREPARE && sl__ndc_typed_ok(q)) {
    /* blocks in position order, a contiguous run of them per thread */
    const int64_t B = SL__CONFLICT_GRAIN, blocks = (q->P + B - 1) / B;
#pragma omp parallel for num_threads(team) schedule(static) if (team > 1)
    for (int64_t b = 0; b < blocks; ++b)
      sl__ndc_typed(q, lk, mode, b * B, b + 1 < blocks ? (b + 1) * B : q->P);
    return;
  }
#pragma omp parallel for num_threads(team) schedule(static) if (team > 1)
  for (int64_t p = 0; p < q->P; ++p) sl__ndc_apply(q, a, lk, mode, p);
}

/* reduce none in the atomic way: winner[e] = the last position aimed at e. */
static sl_status sl__ndc_assign_atomic(sl_ctx *ctx, const sl__ndc *q,
                                       int threads) {
  const int64_t E = sl__numel(&q->c->arg[3]);
  const size_t es = sl_dtype_size(q->c->arg[3].dtype);
  int64_t *winner = sl__malloc((size_t)E * sizeof *winner);
  if (!winner)
    return sl_ctx_fail(ctx, SL_STATUS_OUT_OF_MEMORY,
                       "scatter_nd: expected memory for %lld winners, got an "
                       "allocation failure",
                       (long long)E);
  int team = sl__conflict_team(threads, E);
#pragma omp parallel for num_threads(team) schedule(static) if (team > 1)
  for (int64_t e = 0; e < E; ++e) winner[e] = -1;
  team = sl__conflict_team(threads, q->P);
#pragma omp parallel num_threads(team) if (team > 1)
  {
    char *dst;
    const char *src;
#pragma omp for schedule(static)
    for (int64_t p = 0; p < q->P; ++p)
      sl__atomic_max_i64(&winner[sl__ndc_resolve(q, p, &dst, &src)], p);
#pragma omp for schedule(static)
    for (int64_t p = 0; p < q->P; ++p)
      if (winner[sl__ndc_resolve(q, p, &dst, &src)] == p) memcpy(dst, src, es);
  }
  sl__free(winner);
  return SL_STATUS_OK;
}

/* The accumulator of a call: none moves data (a plain copy per step). Each
 * position reaches one element of out. */
static sl_status sl__ndc_acc(sl_ctx *ctx, const sl_call *c, sl__acc *a) {
  sl_reduce r = c->p.reduce == SL_REDUCE_SUM ? SL_REDUCE_SUM : SL_REDUCE_ASSIGN;
  return sl__acc_open(ctx, "scatter_nd", a, c->arg[3].dtype, r, 1,
                      sl__numel(&c->arg[3]), sl__nd_positions(&c->arg[1]));
}

sl_status sl_scatter_nd_cpu_atomic(sl_ctx *ctx, sl_call *c) {
  const int threads = sl__threads(ctx);
  sl__ndc q;
  sl__ndc_init(c, &q);
  sl__copy_strided(&c->arg[3], &c->arg[0], threads);
  if (q.P == 0) return SL_STATUS_OK;
  if (c->p.reduce != SL_REDUCE_SUM)
    return sl__ndc_assign_atomic(ctx, &q, threads);
  sl__acc a;
  sl_status st = sl__ndc_acc(ctx, c, &a);
  if (st) return st;
  if (sl__acc_needs_prepare(&a))
    sl__ndc_pass(&q, &a, NULL, SL__ND_PREPARE, threads);
  sl__ndc_pass(&q, &a, NULL, SL__ND_ATOMIC, threads);
  sl__acc_finish(&a, threads, sl__ndc_where, &q);
  sl__acc_close(&a);
  return SL_STATUS_OK;
}

sl_status sl_scatter_nd_cpu_lock(sl_ctx *ctx, sl_call *c) {
  const int threads = sl__threads(ctx);
  sl__ndc q;
  sl__ndc_init(c, &q);
  sl__copy_strided(&c->arg[3], &c->arg[0], threads);
  if (q.P == 0) return SL_STATUS_OK;
  sl__acc a;
  sl_status st = sl__ndc_acc(ctx, c, &a);
  if (st) return st;
  sl__locks lk;
  st = sl__locks_open(ctx, "scatter_nd", &lk, sl__numel(&c->arg[3]));
  if (st) {
    sl__acc_close(&a);
    return st;
  }
  if (sl__acc_needs_prepare(&a))
    sl__ndc_pass(&q, &a, NULL, SL__ND_PREPARE, threads);
  sl__ndc_pass(&q, &a, &lk, SL__ND_PLAIN, threads);
  sl__acc_finish(&a, threads, sl__ndc_where, &q);
  sl__locks_close(&lk);
  sl__acc_close(&a);
  return SL_STATUS_OK;
}

/* Records of chunk t in position order: key e, payload the src element. */
SL__HOT void sl__ndc_records_typed(sl_dtype it, const sl__ndc *q, sl__recs *r,
                                   int t, int put) {
  const char *src = q->c->arg[2].data;
  for (int64_t p = sl__recs_begin(r, t); p < sl__recs_begin(r, t + 1); ++p) {
    const uint32_t key = (uint32_t)sl__ndc_target(it, q, p);
    if (put)
      sl__recs_put(r, t, key, src + p * (int64_t)q->es);
    else
      sl__recs_count(r, t, key);
  }
}

static void sl__ndc_records(const sl__ndc *q, sl__recs *r, int t, int put) {
  if (q->direct) { /* the index dtype a constant */
    if (q->c->arg[1].dtype == SL_I64)
      sl__ndc_records_typed(SL_I64, q, r, t, put);
    else
      sl__ndc_records_typed(SL_I32, q, r, t, put);
    return;
  }
  for (int64_t p = sl__recs_begin(r, t); p < sl__recs_begin(r, t + 1); ++p) {
    char *dst;
    const char *src;
    const uint32_t key = (uint32_t)sl__ndc_resolve(q, p, &dst, &src);
    if (put)
      sl__recs_put(r, t, key, src);
    else
      sl__recs_count(r, t, key);
  }
}

/* A bucket on the typed path: one typed sum per record. */
SL__HOT void sl__ndc_bucket_typed(sl_dtype dt, const sl__ndc *q,
                                  const sl__recs *r, int64_t b) {
  const int64_t es = dt == SL_F32 || dt == SL_I32 ? 4 : 8;
  char *out = q->c->arg[3].data;
  for (int64_t k = r->start[b]; k < r->start[b + 1]; ++k)
    sl__plain_elem(dt, SL_REDUCE_SUM, out + sl__recs_key(r, k) * es,
                   sl__recs_val(r, k));
}

/* Applies bucket b's records in order (the bucket owns their elements). */
static void sl__ndc_bucket(const sl__ndc *q, const sl__acc *a,
                           const sl__recs *r, int64_t b, int prepare) {
  if (!prepare && sl__ndc_typed_ok(q)) {
    SL__WITH_DTYPE(q->c->arg[3].dtype, sl__ndc_bucket_typed, q, r, b);
    return;
  }
  for (int64_t k = r->start[b]; k < r->start[b + 1]; ++k) {
    char *dst = sl__ndc_where(q, sl__recs_key(r, k));
    if (prepare)
      sl__acc_prepare(a, sl__recs_key(r, k), dst);
    else
      sl__acc_plain(a, sl__recs_key(r, k), dst, sl__recs_val(r, k));
  }
}

sl_status sl_scatter_nd_cpu_sorted(sl_ctx *ctx, sl_call *c) {
  const int threads = sl__threads(ctx);
  sl__ndc q;
  sl__ndc_init(c, &q);
  const int64_t E = sl__numel(&c->arg[3]);
  /* Too many to number: the serial loop is the same answer (in position
   * order, as cpu.sorted's own). */
  if (!sl__recs_fit(q.P, E)) return sl_scatter_nd_cpu_serial(ctx, c);
  sl__copy_strided(&c->arg[3], &c->arg[0], threads);
  if (q.P == 0) return SL_STATUS_OK;
  sl__acc a;
  sl_status st = sl__ndc_acc(ctx, c, &a);
  if (st) return st;
  sl__recs r;
  st = sl__recs_open(ctx, "scatter_nd", &r, q.P, 1, E,
                     sl_dtype_size(c->arg[3].dtype), threads);
  if (st) {
    sl__acc_close(&a);
    return st;
  }
#pragma omp parallel for num_threads(r.parts) schedule(static) if (r.parts > 1)
  for (int t = 0; t < r.parts; ++t) sl__ndc_records(&q, &r, t, 0);
  sl__recs_offsets(&r);
#pragma omp parallel for num_threads(r.parts) schedule(static) if (r.parts > 1)
  for (int t = 0; t < r.parts; ++t) sl__ndc_records(&q, &r, t, 1);
  const int prepare = sl__acc_needs_prepare(&a);
#pragma omp parallel for num_threads(r.parts)                                  \
    schedule(dynamic, 1) if (r.parts > 1)
  for (int64_t b = 0; b < r.buckets; ++b) {
    if (prepare) sl__ndc_bucket(&q, &a, &r, b, 1);
    sl__ndc_bucket(&q, &a, &r, b, 0);
  }
  sl__acc_finish(&a, threads, sl__ndc_where, &q);
  sl__recs_close(&r);
  sl__acc_close(&a);
  return SL_STATUS_OK;
}
