/* Conflict machinery of the atomic, lock and sorted variants (conflict.h). */
#include "conflict.h"

#include <stdlib.h>

sl_status sl__locks_open(sl_ctx *ctx, const char *what, sl__locks *lk,
                         int64_t n) {
  lk->n = n;
  lk->flag = sl__calloc(n > 0 ? (size_t)n : 1, 1);
  if (lk->flag) return SL_STATUS_OK;
  return sl_ctx_fail(ctx, SL_STATUS_OUT_OF_MEMORY,
                     "%s: expected memory for %lld locks, got an allocation "
                     "failure",
                     what, (long long)n);
}

void sl__locks_close(sl__locks *lk) {
  sl__free(lk->flag);
  lk->flag = NULL;
}

/* Whether *dst ⊕ *src differs from *dst (a NaN counts as a change). */
SL__HOT int sl__elem_changes(sl_dtype dt, sl_reduce r, const void *dst,
                             const void *src) {
  switch (dt) {
  case SL_F32: {
    const float a = *(const float *)dst;
    return (float)sl__reduce_f(r, a, *(const float *)src) != a;
  }
  case SL_F64: {
    const double a = *(const double *)dst;
    return sl__reduce_f(r, a, *(const double *)src) != a;
  }
  case SL_I32: {
    const int32_t a = *(const int32_t *)dst;
    return (int32_t)sl__reduce_i(r, a, *(const int32_t *)src) != a;
  }
  default: {
    const int64_t a = *(const int64_t *)dst;
    return sl__reduce_i(r, a, *(const int64_t *)src) != a;
  }
  }
}

/* The contiguous row loop, instantiated with constant dt and r by
 * sl__row_plain so that sl__plain_elem folds to one vector operation. A
 * min or max row first checks whether anything changes: most updates of a
 * contended row do not, and a row left unwritten stays shared in the other
 * cores' caches instead of moving to this one. */
SL__HOT void sl__row_loop(sl_dtype dt, sl_reduce r, char *d, const char *s,
                          int64_t n) {
  const int64_t es = dt == SL_F32 || dt == SL_I32 ? 4 : 8;
  if (r == SL_REDUCE_AMIN || r == SL_REDUCE_AMAX) {
    int changes = 0;
#pragma omp simd reduction(| : changes)
    for (int64_t k = 0; k < n; ++k)
      changes |= sl__elem_changes(dt, r, d + k * es, s + k * es);
    if (!changes) return;
  }
#pragma omp simd
  for (int64_t k = 0; k < n; ++k) sl__plain_elem(dt, r, d + k * es, s + k * es);
}

SL__HOT void sl__row_dtype(sl_dtype dt, sl_reduce r, char *d, const char *s,
                           int64_t n) {
  switch (r) {
  case SL_REDUCE_SUM:
    sl__row_loop(dt, SL_REDUCE_SUM, d, s, n);
    break;
  case SL_REDUCE_PROD:
    sl__row_loop(dt, SL_REDUCE_PROD, d, s, n);
    break;
  case SL_REDUCE_AMIN:
    sl__row_loop(dt, SL_REDUCE_AMIN, d, s, n);
    break;
  default:
    sl__row_loop(dt, SL_REDUCE_AMAX, d, s, n);
    break;
  }
}

void sl__row_plain(sl_dtype dt, sl_reduce r, char *d, int64_t ds, const char *s,
                   int64_t ss, int64_t n) {
  const int vectorizable =
      ds == 1 && ss == 1 &&
      (r == SL_REDUCE_SUM || r == SL_REDUCE_PROD || r == SL_REDUCE_AMIN ||
       r == SL_REDUCE_AMAX || r == SL_REDUCE_MAX);
  if (!vectorizable) {
    const int64_t es = (int64_t)sl__dtype_size(dt);
    for (int64_t k = 0; k < n; ++k)
      sl__plain_elem(dt, r, d + k * ds * es, s + k * ss * es);
    return;
  }
  SL__WITH_DTYPE(dt, sl__row_dtype, r, d, s, n);
}

sl_status sl__recs_open(sl_ctx *ctx, const char *what, sl__recs *r, int64_t n,
                        int64_t per, int64_t K, size_t es, int threads) {
  memset(r, 0, sizeof *r);
  r->n = n;
  r->es = es;
  r->rs = sizeof(uint32_t) + es;
  r->parts = sl__conflict_team(threads, n * per);
  while (K > 0 && ((K - 1) >> r->shift) >= SL__MAX_BUCKETS) ++r->shift;
  r->buckets = K > 0 ? ((K - 1) >> r->shift) + 1 : 1;
  r->at = sl__calloc((size_t)r->parts * (size_t)r->buckets, sizeof *r->at);
  r->start = sl__malloc((size_t)(r->buckets + 1) * sizeof *r->start);
  const size_t records = n * per > 0 ? (size_t)(n * per) : 1;
  r->rec = sl__malloc(records * r->rs);
  if (r->at && r->start && r->rec) return SL_STATUS_OK;
  sl__recs_close(r);
  return sl_ctx_fail(ctx, SL_STATUS_OUT_OF_MEMORY,
                     "%s: expected memory to sort %lld inputs of %zu bytes "
                     "by destination, got an allocation failure",
                     what, (long long)(n * per), es + sizeof(uint32_t));
}

void sl__recs_offsets(sl__recs *r) {
  /* Bucket-major: bucket b's records of chunk 0 come first, then chunk
   * 1's, ..., so every bucket keeps the input order. */
  int64_t sum = 0;
  for (int64_t b = 0; b < r->buckets; ++b) {
    r->start[b] = sum;
    for (int t = 0; t < r->parts; ++t) {
      int64_t *at = r->at + (int64_t)t * r->buckets + b;
      int64_t k = *at;
      *at = sum;
      sum += k;
    }
  }
  r->start[r->buckets] = sum;
}

void sl__recs_close(sl__recs *r) {
  sl__free(r->at);
  sl__free(r->start);
  sl__free(r->rec);
  memset(r, 0, sizeof *r);
}

sl_status sl__slots_open(sl_ctx *ctx, const char *what, sl__slots *t,
                         int64_t n) {
  int64_t size = 2;
  while (size < 2 * n) size *= 2;
  t->mask = size - 1;
  t->key = sl__malloc((size_t)size * sizeof *t->key);
  if (!t->key)
    return sl_ctx_fail(ctx, SL_STATUS_OUT_OF_MEMORY,
                       "%s: expected memory for a table of %lld targets, got "
                       "an allocation failure",
                       what, (long long)size);
  memset(t->key, 0xff, (size_t)size * sizeof *t->key); /* every key -1 */
  return SL_STATUS_OK;
}

void sl__slots_close(sl__slots *t) {
  sl__free(t->key);
  t->key = NULL;
  t->mask = 0;
}

sl_status sl__acc_open(sl_ctx *ctx, const char *what, sl__acc *a, sl_dtype dt,
                       sl_reduce r, int self, int64_t E, int64_t inputs) {
  a->dt = dt;
  a->r = r;
  a->self = self;
  a->E = E;
  a->wide = NULL;
  a->count = NULL;
  a->slots.key = NULL;
  a->slots.mask = 0;
  if (r == SL_REDUCE_ASSIGN || E == 0) return SL_STATUS_OK;
  const int wide = sl__acc_dtype(dt) != dt;
  const int counted = wide || r == SL_REDUCE_MEAN;
  if (!counted) return SL_STATUS_OK;
  int64_t n = E;
  if (sl__sparse(E, inputs)) {
    sl_status st = sl__slots_open(ctx, what, &a->slots, inputs);
    if (st) return st;
    n = a->slots.mask + 1;
  }
  if (wide) a->wide = sl__malloc((size_t)n * sizeof *a->wide);
  /* calloc: fresh zero pages, cheap until touched. */
  a->count = sl__calloc((size_t)n, sizeof *a->count);
  if ((!wide || a->wide) && a->count) return SL_STATUS_OK;
  sl__acc_close(a);
  return sl_ctx_fail(ctx, SL_STATUS_OUT_OF_MEMORY,
                     "%s: expected memory for %lld accumulators, got an "
                     "allocation failure",
                     what, (long long)n);
}

void sl__acc_close(sl__acc *a) {
  sl__free(a->wide);
  sl__free(a->count);
  sl__slots_close(&a->slots);
  a->wide = NULL;
  a->count = NULL;
}

int64_t sl__acc_sparse_slot(const sl__acc *a, int64_t e) {
  return sl__slot(&a->slots, e);
}

void sl__acc_prepare(const sl__acc *a, int64_t e, void *dst) {
  if (a->wide) {
    if (a->slots.key) e = sl__slot(&a->slots, e);
    float v = a->self ? (float)sl__load_f(a->dt, dst)
                      : (float)sl__reduce_identity_f(a->r);
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    __atomic_store_n((uint32_t *)(void *)(a->wide + e), bits, __ATOMIC_RELAXED);
    if (a->r != SL_REDUCE_MEAN)
      __atomic_store_n(a->count + e, 1, __ATOMIC_RELAXED);
    return;
  }
  /* x left out: the identity, in the dtype's bits. */
  sl__store_identity(a->dt, a->r, dst);
}

/* The count LibTorch's count tensor holds after k additions of 1 (reduce.h:
 * counts live in the accumulation dtype): exact for integers and f64, while
 * an f32 count (f16 and bf16 count in f32) stops growing at 2^24. */
static double sl__count_value(sl_dtype dt, int64_t k) {
  if (sl__reduce_is_int(dt) || sl__acc_dtype(dt) == SL_F64) return (double)k;
  return k > (1 << 24) ? 16777216.0 : (double)k;
}

/* Destination dst's final step, its k contributions accumulated (in
 * *wide for f16/bf16). */
static inline void sl__acc_finish_one(const sl__acc *a, char *dst, int64_t k,
                                      const float *wide) {
  const int mean = a->r == SL_REDUCE_MEAN;
  double c = mean ? sl__count_value(a->dt, k + (a->self ? 1 : 0)) : 1.0;
  if (wide) {
    /* As the serial line kernel: divide in f32, round to the half type. */
    double v = c > 1.0 ? (double)*wide / c : (double)*wide;
    sl__store_f(a->dt, dst, sl__round_to(SL_F32, v));
  } else if (c > 1.0) {
    sl__reduce_mean_finish(a->dt, dst, c);
  }
}

void sl__acc_finish(const sl__acc *a, int threads, sl__acc_where_fn where,
                    const void *user) {
  if (!a->count) return;
  /* Untargeted destinations (count 0, or no slot) keep x. */
  if (a->slots.key) {
    const int64_t size = a->slots.mask + 1;
    const int team = sl__conflict_team(threads, size);
#pragma omp parallel for num_threads(team) schedule(static) if (team > 1)
    for (int64_t s = 0; s < size; ++s) {
      const int64_t e = a->slots.key[s];
      if (e < 0 || a->count[s] == 0) continue;
      sl__acc_finish_one(a, where(user, e), a->count[s],
                         a->wide ? a->wide + s : NULL);
    }
    return;
  }
  const int team = sl__conflict_team(threads, a->E);
#pragma omp parallel for num_threads(team) schedule(static) if (team > 1)
  for (int64_t e = 0; e < a->E; ++e) {
    if (a->count[e] == 0) continue;
    sl__acc_finish_one(a, where(user, e), a->count[e],
                       a->wide ? a->wide + e : NULL);
  }
}
