/*
 * Conflict machinery of the parallel-over-inputs variants (variants.def): the
 * pieces that cpu.atomic, cpu.lock and cpu.sorted of every reducing op
 * share, so that no op carries its own copy.
 *
 * - Atomic combines (cpu.atomic): *dst = *dst ⊕ v as one indivisible step,
 *   for the accumulation dtypes f32, f64, i32, i64. Integer sum is a
 *   fetch-add on the unsigned type (wraps: reduce_ops.h); everything else
 *   is a compare-and-swap loop around reduce.h's combine, so NaN and -0.0
 *   behave exactly as in the serial loop. A combine that leaves the value
 *   unchanged (most amax/amin steps) does not write at all.
 * - Locks (cpu.lock): one byte-wide spinlock per destination (seed 004's
 *   `is_occupy` array); the update of a whole destination row happens under
 *   its lock with plain loads and stores.
 * - Partitions (cpu.sorted): a stable counting sort of the inputs into
 *   buckets of consecutive destinations; one thread then owns a bucket and
 *   applies its inputs in input order, which is the serial order for every
 *   destination: deterministic, and bitwise the serial answer.
 * - Accumulators (all three): the state a destination needs besides out
 *   itself: f32 accumulators for f16/bf16 (reduce.h) and contribution counts
 *   for mean, with one preparation step (x or the identity), one combine
 *   step (atomic or plain) and one final pass (divide, round).
 */
#ifndef SL_CONFLICT_H
#define SL_CONFLICT_H

#include "reduce.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The per-element helpers below sit in the innermost loops of every
 * variant: a call per element would cost more than the element's work. */
#define SL__HOT SL__ALWAYS_INLINE

/* fn(DT, ...) with DT the constant of dt, one of f32, f64, i32, i64 (any
 * other dtype counts as i64); SL__WITH_DTYPES adds IT, the index dtype's
 * constant (i64 when `i64` is true, else i32): fn(DT, IT, ...). A loop
 * written once as an SL__HOT function with dtype parameters becomes one
 * instance per constant, each without a dtype switch per element. */
#define SL__WITH_DTYPE(dt, fn, ...)                                            \
  do {                                                                         \
    switch (dt) {                                                              \
    case SL_F32:                                                               \
      fn(SL_F32, __VA_ARGS__);                                                 \
      break;                                                                   \
    case SL_F64:                                                               \
      fn(SL_F64, __VA_ARGS__);                                                 \
      break;                                                                   \
    case SL_I32:                                                               \
      fn(SL_I32, __VA_ARGS__);                                                 \
      break;                                                                   \
    default:                                                                   \
      fn(SL_I64, __VA_ARGS__);                                                 \
      break;                                                                   \
    }                                                                          \
  } while (0)

#define SL__WITH_INDEX_DTYPE(DT, i64, fn, ...)                                 \
  do {                                                                         \
    if (i64)                                                                   \
      fn(DT, SL_I64, __VA_ARGS__);                                             \
    else                                                                       \
      fn(DT, SL_I32, __VA_ARGS__);                                             \
  } while (0)

#define SL__WITH_DTYPES(dt, i64, fn, ...)                                      \
  SL__WITH_DTYPE(dt, SL__WITH_INDEX_DTYPE, i64, fn, __VA_ARGS__)

/* sl__load_index with the index dtype a constant (SL__WITH_DTYPES' IT). */
SL__HOT int64_t sl__index_typed(sl_dtype it, const sl_tensor *index,
                                int64_t off) {
  if (it == SL_I32) return ((const int32_t *)index->data)[off];
  return ((const int64_t *)index->data)[off];
}

/* Fewest elements of work per thread: below it a team would cost more to
 * start than it saves. It also keeps small calls on one thread, where the
 * atomic and lock variants apply inputs in input order (as LibTorch does:
 * the first of two equal amax values stays). The small-thresholds test
 * build (thresholds.def) lowers it so that the fuzzer's small cases run on
 * every thread. */
#define SL__CONFLICT_GRAIN ((int64_t)SL__TH_CONFLICT_GRAIN)

/* Threads worth starting for `work` elements, at most `threads`. */
static inline int sl__conflict_team(int threads, int64_t work) {
  int64_t t = work / SL__CONFLICT_GRAIN;
  if (t < 1) t = 1;
  return t < threads ? (int)t : threads;
}

/* ------------------------------------------------------------------------ */
/* Atomic combines                                                           */
/* ------------------------------------------------------------------------ */

static inline void sl__cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

/* *p = *p ⊕ v on an f32 in memory (or an f32 accumulator). */
SL__HOT void sl__atomic_f32(float *p, sl_reduce r, float v) {
  uint32_t *bits = (uint32_t *)(void *)p;
  uint32_t old = __atomic_load_n(bits, __ATOMIC_RELAXED);
  for (;;) {
    float a, n;
    uint32_t nb;
    memcpy(&a, &old, sizeof a);
    n = (float)sl__reduce_f(r, a, v);
    memcpy(&nb, &n, sizeof nb);
    if (nb == old) return;
    /* On failure `old` receives the current value: recombine with it. */
    if (__atomic_compare_exchange_n(bits, &old, nb, 1, __ATOMIC_RELAXED,
                                    __ATOMIC_RELAXED))
      return;
  }
}

SL__HOT void sl__atomic_f64(double *p, sl_reduce r, double v) {
  uint64_t *bits = (uint64_t *)(void *)p;
  uint64_t old = __atomic_load_n(bits, __ATOMIC_RELAXED);
  for (;;) {
    double a, n;
    uint64_t nb;
    memcpy(&a, &old, sizeof a);
    n = sl__reduce_f(r, a, v);
    memcpy(&nb, &n, sizeof nb);
    if (nb == old) return;
    if (__atomic_compare_exchange_n(bits, &old, nb, 1, __ATOMIC_RELAXED,
                                    __ATOMIC_RELAXED))
      return;
  }
}

/* Integers: the low 32 (64) bits of a sum or product depend only on the low
 * bits of the operands, so wrapping at every step is the serial answer. */
SL__HOT void sl__atomic_i32(int32_t *p, sl_reduce r, int32_t v) {
  uint32_t *u = (uint32_t *)(void *)p;
  if (r == SL_REDUCE_SUM || r == SL_REDUCE_MEAN) {
    __atomic_fetch_add(u, (uint32_t)v, __ATOMIC_RELAXED);
    return;
  }
  uint32_t old = __atomic_load_n(u, __ATOMIC_RELAXED);
  for (;;) {
    uint32_t nb = (uint32_t)sl__reduce_i(r, (int32_t)old, v);
    if (nb == old) return;
    if (__atomic_compare_exchange_n(u, &old, nb, 1, __ATOMIC_RELAXED,
                                    __ATOMIC_RELAXED))
      return;
  }
}

SL__HOT void sl__atomic_i64(int64_t *p, sl_reduce r, int64_t v) {
  uint64_t *u = (uint64_t *)(void *)p;
  if (r == SL_REDUCE_SUM || r == SL_REDUCE_MEAN) {
    __atomic_fetch_add(u, (uint64_t)v, __ATOMIC_RELAXED);
    return;
  }
  uint64_t old = __atomic_load_n(u, __ATOMIC_RELAXED);
  for (;;) {
    uint64_t nb = (uint64_t)sl__reduce_i(r, (int64_t)old, v);
    if (nb == old) return;
    if (__atomic_compare_exchange_n(u, &old, nb, 1, __ATOMIC_RELAXED,
                                    __ATOMIC_RELAXED))
      return;
  }
}

/* *dst = *dst ⊕ *src for dt one of f32, f64, i32, i64. */
SL__HOT void sl__atomic_elem(sl_dtype dt, sl_reduce r, void *dst,
                             const void *src) {
  switch (dt) {
  case SL_F32:
    sl__atomic_f32(dst, r, *(const float *)src);
    break;
  case SL_F64:
    sl__atomic_f64(dst, r, *(const double *)src);
    break;
  case SL_I32:
    sl__atomic_i32(dst, r, *(const int32_t *)src);
    break;
  default:
    sl__atomic_i64(dst, r, *(const int64_t *)src);
    break;
  }
}

/* *dst = *dst ⊕ *src without atomics, by the owner of dst: reduce.h's
 * step, with the accumulation dtypes spelled out so that the hot loops of
 * cpu.lock and cpu.sorted need no call per element. */
SL__HOT void sl__plain_elem(sl_dtype dt, sl_reduce r, void *dst,
                            const void *src) {
  if (r == SL_REDUCE_ASSIGN) {
    memcpy(dst, src, sl__dtype_size(dt));
    return;
  }
  /* memcpy: scratch accumulators need not be aligned to the element (x86
   * compiles these to plain moves). */
  switch (dt) {
  case SL_F32: {
    float a, b;
    memcpy(&a, dst, sizeof a), memcpy(&b, src, sizeof b);
    a = (float)sl__reduce_f(r, a, b);
    memcpy(dst, &a, sizeof a);
    break;
  }
  case SL_F64: {
    double a, b;
    memcpy(&a, dst, sizeof a), memcpy(&b, src, sizeof b);
    a = sl__reduce_f(r, a, b);
    memcpy(dst, &a, sizeof a);
    break;
  }
  case SL_I32: {
    int32_t a, b;
    memcpy(&a, dst, sizeof a), memcpy(&b, src, sizeof b);
    a = (int32_t)(uint32_t)sl__reduce_i(r, a, b);
    memcpy(dst, &a, sizeof a);
    break;
  }
  case SL_I64: {
    int64_t a, b;
    memcpy(&a, dst, sizeof a), memcpy(&b, src, sizeof b);
    a = sl__reduce_i(r, a, b);
    memcpy(dst, &a, sizeof a);
    break;
  }
  default:
    sl__reduce_step(dt, r, dst, src);
    break;
  }
}

/* *dst = the identity of r (x left out), for dt one of f32, f64, i32, i64,
 * as an atomic store: every input aimed at dst may store it, from any
 * thread, before the combines start. */
SL__HOT void sl__store_identity(sl_dtype dt, sl_reduce r, void *dst) {
  if (dt == SL_F32 || dt == SL_I32) {
    uint32_t bits;
    if (dt == SL_I32) {
      int32_t v = (int32_t)sl__reduce_identity_i(dt, r);
      memcpy(&bits, &v, sizeof bits);
    } else {
      float v = (float)sl__reduce_identity_f(r);
      memcpy(&bits, &v, sizeof bits);
    }
    __atomic_store_n((uint32_t *)dst, bits, __ATOMIC_RELAXED);
  } else {
    uint64_t bits;
    if (dt == SL_I64) {
      int64_t v = sl__reduce_identity_i(dt, r);
      memcpy(&bits, &v, sizeof bits);
    } else {
      double v = sl__reduce_identity_f(r);
      memcpy(&bits, &v, sizeof bits);
    }
    __atomic_store_n((uint64_t *)dst, bits, __ATOMIC_RELAXED);
  }
}

/*
 * A row update by its owner (a row lock, a bucket): d[k*ds] ⊕= s[k*ss] for
 * k < n, dt one of f32, f64, i32, i64. Contiguous rows are vectorized: the
 * row-wise update of seed 004's scheme 2 is where a lock pays for itself.
 */
void sl__row_plain(sl_dtype dt, sl_reduce r, char *d, int64_t ds, const char *s,
                   int64_t ss, int64_t n);

/* *p = min(*p, v) and *p = max(*p, v) on an int64 (a point index of
 * dynamic_scatter_backward, the last writer of an assignment). */
static inline void sl__atomic_min_i64(int64_t *p, int64_t v) {
  int64_t old = __atomic_load_n(p, __ATOMIC_RELAXED);
  while (v < old && !__atomic_compare_exchange_n(
                        p, &old, v, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
}

static inline void sl__atomic_max_i64(int64_t *p, int64_t v) {
  int64_t old = __atomic_load_n(p, __ATOMIC_RELAXED);
  while (v > old && !__atomic_compare_exchange_n(
                        p, &old, v, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
}

/* ------------------------------------------------------------------------ */
/* Locks: one byte per destination, test-and-test-and-set                    */
/* ------------------------------------------------------------------------ */
typedef struct sl__locks {
  unsigned char *flag; /* [n], 0 = free */
  int64_t n;
} sl__locks;

/* Allocates n free locks; OUT_OF_MEMORY names `what`. */
sl_status sl__locks_open(sl_ctx *ctx, const char *what, sl__locks *lk,
                         int64_t n);
void sl__locks_close(sl__locks *lk);

static inline void sl__lock(const sl__locks *lk, int64_t k) {
  unsigned char *f = lk->flag + k;
  while (__atomic_exchange_n(f, 1, __ATOMIC_ACQUIRE))
    while (__atomic_load_n(f, __ATOMIC_RELAXED)) sl__cpu_relax();
}

static inline void sl__unlock(const sl__locks *lk, int64_t k) {
  __atomic_store_n(lk->flag + k, 0, __ATOMIC_RELEASE);
}

/* ------------------------------------------------------------------------ */
/* Records: a stable counting sort of the inputs into buckets                */
/* ------------------------------------------------------------------------ */

/*
 * cpu.sorted moves every input, as a record (its destination key and es
 * bytes of payload: the element itself, or the number of a row), into the
 * bucket of its destination: bucket = key >> shift, so a bucket holds a
 * range of consecutive destinations and there are at most SL__MAX_BUCKETS.
 * The payload travels with the key so that reducing a bucket reads its
 * records in sequence instead of gathering the inputs at random.
 *
 * The op drives two passes over its inputs with the same split into
 * `parts` chunks (chunk t = inputs [sl__recs_begin(r,t), sl__recs_begin(r,
 * t+1))), each chunk visiting its inputs in input order:
 *   1. sl__recs_count(r, t, key) for every input, then sl__recs_offsets(r);
 *   2. sl__recs_put(r, t, key, payload) for every input.
 * Bucket b then holds records [start[b], start[b+1]), chunk 0's first, and
 * within a chunk in input order: every destination sees its inputs in input
 * order, whatever the number of threads.
 */
/* Few enough buckets that the writes of the sort stay in a few hundred
 * streams (caches and TLB keep up), enough for balance among threads. */
#define SL__MAX_BUCKETS 256

typedef struct sl__recs {
  int parts, shift;
  int64_t n, buckets;
  size_t es;          /* payload bytes */
  size_t rs;          /* record bytes: the uint32 key, then the payload */
  int64_t *at;        /* [parts * buckets]: counts, then write cursors */
  int64_t *start;     /* [buckets + 1] */
  unsigned char *rec; /* the records, one stream per bucket */
} sl__recs;

static inline uint32_t sl__recs_key(const sl__recs *r, int64_t k) {
  uint32_t key;
  memcpy(&key, r->rec + (size_t)k * r->rs, sizeof key);
  return key;
}

static inline const unsigned char *sl__recs_val(const sl__recs *r, int64_t k) {
  return r->rec + (size_t)k * r->rs + sizeof(uint32_t);
}

/* Whether `records` records with keys in [0, K) fit (uint32 keys); when
 * not, a variant falls back to one thread in input order. */
static inline int sl__recs_fit(int64_t records, int64_t K) {
  return records <= (int64_t)UINT32_MAX && K <= (int64_t)UINT32_MAX;
}

/* Sets up the records of n inputs (the unit that chunks split), each
 * emitting `per` records with keys in [0, K) and es bytes of payload, to be
 * sorted by up to `threads` threads. */
sl_status sl__recs_open(sl_ctx *ctx, const char *what, sl__recs *r, int64_t n,
                        int64_t per, int64_t K, size_t es, int threads);
void sl__recs_close(sl__recs *r);

/* First input of chunk t (t = parts gives n). */
static inline int64_t sl__recs_begin(const sl__recs *r, int t) {
  return (r->n / r->parts) * t + (t < r->n % r->parts ? t : r->n % r->parts);
}

static inline void sl__recs_count(const sl__recs *r, int t, uint32_t key) {
  ++r->at[(int64_t)t * r->buckets + (key >> r->shift)];
}

/* Turns the counts into bucket starts and write cursors. */
void sl__recs_offsets(sl__recs *r);

static inline void sl__recs_put(const sl__recs *r, int t, uint32_t key,
                                const void *payload) {
  const int64_t k = r->at[(int64_t)t * r->buckets + (key >> r->shift)]++;
  unsigned char *to = r->rec + (size_t)k * r->rs;
  memcpy(to, &key, sizeof key);
  to += sizeof key;
  /* Copies of a constant size compile to one move, not a call. */
  switch (r->es) {
  case 2:
    memcpy(to, payload, 2);
    break;
  case 4:
    memcpy(to, payload, 4);
    break;
  case 8:
    memcpy(to, payload, 8);
    break;
  default:
    memcpy(to, payload, r->es);
    break;
  }
}

/* ------------------------------------------------------------------------ */
/* Tables of targets                                                         */
/* ------------------------------------------------------------------------ */

/*
 * Where the targets are few beside the destinations, per-destination state
 * (assignment winners, accumulators) lives in an open-addressing table of
 * the targets, sized by the inputs, instead of one entry per destination:
 * a --huge case's 21 updates into 2.4e9 elements asked tens of GB of the
 * dense arrays and met the OOM killer. Sparse means more than
 * SL__SPARSE_RATIO destinations per input.
 */
#define SL__SPARSE_RATIO 4

static inline int sl__sparse(int64_t destinations, int64_t inputs) {
  return destinations > SL__SPARSE_RATIO * inputs;
}

typedef struct sl__slots {
  int64_t *key; /* [mask + 1], -1 marking a free slot; NULL: no table */
  int64_t mask; /* slots - 1, slots a power of two */
} sl__slots;

/* A table for up to n distinct keys (>= 0): at least 2n slots, so a probe
 * meets a free slot within a few steps. */
sl_status sl__slots_open(sl_ctx *ctx, const char *what, sl__slots *t,
                         int64_t n);
void sl__slots_close(sl__slots *t);

/* The slot of key k, claimed with a compare-and-swap when absent: threads
 * may look keys up and insert them concurrently. */
SL__HOT int64_t sl__slot(const sl__slots *t, int64_t k) {
  const uint64_t h = (uint64_t)k * 0x9E3779B97F4A7C15ull;
  for (int64_t s = (int64_t)(h >> 32) & t->mask;; s = (s + 1) & t->mask) {
    int64_t at = __atomic_load_n(&t->key[s], __ATOMIC_ACQUIRE);
    if (at == -1) {
      int64_t free_slot = -1;
      if (__atomic_compare_exchange_n(&t->key[s], &free_slot, k, 0,
                                      __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        return s;
      at = free_slot; /* claimed meanwhile: by k, or by another key */
    }
    if (at == k) return s;
  }
}

/* ------------------------------------------------------------------------ */
/* Accumulators                                                              */
/* ------------------------------------------------------------------------ */

/*
 * Destination e (a dense number in [0, E) that the op gives each element of
 * out) of a reduction with dtype dt. out holds x (the op copied it) and is
 * the accumulator of f32, f64, i32 and i64; f16 and bf16 accumulate in
 * wide[e] (sl__acc_dtype). count[e] counts the contributions of a mean, and for
 * f16/bf16 without mean it only marks e as targeted (1).
 *
 * Sparse (sl__sparse: E more than 4 times the inputs), wide and count are
 * indexed by e's slot in a table of the targets (slots.key) instead of by
 * e: memory and the final pass go by the inputs, not by out.
 */
typedef struct sl__acc {
  sl_dtype dt;
  sl_reduce r; /* SUM PROD MEAN AMAX AMIN MAX, or ASSIGN (plain steps only) */
  int self;    /* include_self */
  int64_t E;
  float *wide;     /* [E] (dense), [slots] (sparse), or NULL */
  int64_t *count;  /* [E] (dense), [slots] (sparse), or NULL */
  sl__slots slots; /* sparse: the targets; key NULL when dense */
} sl__acc;

/* Accumulators for E destinations that at most `inputs` contributions (of
 * one element each) reach. */
sl_status sl__acc_open(sl_ctx *ctx, const char *what, sl__acc *a, sl_dtype dt,
                       sl_reduce r, int self, int64_t E, int64_t inputs);
void sl__acc_close(sl__acc *a);

/* Where destination e's wide and count are: e itself when dense. Out of line:
 * the dense path keeps one test of a pointer per element. */
int64_t sl__acc_sparse_slot(const sl__acc *a, int64_t e);

/* Whether every targeted destination must be prepared (sl__acc_prepare)
 * before its first combine: x left out, or an f32 accumulator to load. */
static inline int sl__acc_needs_prepare(const sl__acc *a) {
  return a->r != SL_REDUCE_ASSIGN && (!a->self || a->wide);
}

/* Prepares destination e whose element of out is `dst`. Every input aimed at
 * e may call it, from any thread: they all store the same value, with atomic
 * stores, before any combine (a barrier apart). */
void sl__acc_prepare(const sl__acc *a, int64_t e, void *dst);

/* Combines the element `src` (dtype dt) into destination e atomically. */
SL__HOT void sl__acc_atomic(const sl__acc *a, int64_t e, void *dst,
                            const void *src) {
  if (__builtin_expect(a->slots.key != NULL, 0)) e = sl__acc_sparse_slot(a, e);
  if (a->wide)
    sl__atomic_f32(a->wide + e, a->r, (float)sl__load_f(a->dt, src));
  else
    sl__atomic_elem(a->dt, a->r, dst, src);
  if (a->r == SL_REDUCE_MEAN)
    __atomic_fetch_add(a->count + e, 1, __ATOMIC_RELAXED);
}

/* The same, by a thread that owns e (a lock or a bucket), at `at`: e itself
 * (dense) or e's slot (sparse). A loop that knows the accumulators are
 * dense calls it directly and keeps the table's test out of its body
 * (cpu.sorted's buckets: 5% on an f16 sum with the test per element). */
SL__HOT void sl__acc_plain_at(const sl__acc *a, int64_t at, void *dst,
                              const void *src) {
  if (a->wide)
    a->wide[at] =
        (float)sl__reduce_f(a->r, a->wide[at], sl__load_f(a->dt, src));
  else
    sl__plain_elem(a->dt, a->r, dst, src);
  if (a->r == SL_REDUCE_MEAN) ++a->count[at];
}

SL__HOT void sl__acc_plain(const sl__acc *a, int64_t e, void *dst,
                           const void *src) {
  if (__builtin_expect(a->slots.key != NULL, 0)) e = sl__acc_sparse_slot(a, e);
  sl__acc_plain_at(a, e, dst, src);
}

/* Where destination e lives in out (for the final pass). */
typedef char *(*sl__acc_where_fn)(const void *user, int64_t e);

/* The final pass over every targeted destination: a mean divides by its
 * count (x counting as one when included), f16/bf16 round their f32
 * accumulator once. Nothing to do (and nothing called) otherwise. Dense, it
 * reads every count; sparse, only the table's slots. */
void sl__acc_finish(const sl__acc *a, int threads, sl__acc_where_fn where,
                    const void *user);

#ifdef __cplusplus
}
#endif
#endif /* SL_CONFLICT_H */
