/* The reduction machinery shared by the reducing ops (see reduce.h). */
#include "reduce.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/*
 * One line of an f16/bf16 reduction, accumulated in f32 (sl__acc_dtype): the
 * targeted positions start from x (or the identity) in `acc`, every step
 * rounds to f32, the mean divides by an f32 count, and each targeted
 * position is rounded to the half type once at the end. dt and r are
 * constants in each instance below, so the loads, the combine and the
 * rounding fold (one switch of each per element was 8x LibTorch's time
 * on a contended f16 amin).
 *
 * A step in float is the f32-rounded one in double: both operands are
 * floats, so the exact result rounds once either way; likewise the count
 * (exact below 2^24, then rounded as f32). A position not yet started
 * holds a NaN no step makes (its lowest bit set: a half's NaN widens with
 * those bits clear, and float arithmetic keeps an operand's).
 */
typedef struct sl__wide_line {
  const sl__rlines *p;
  int64_t out_off, src_off, idx_off;
  float *acc;
  double *counts;       /* mean: each position's count; else NULL */
  const uint64_t *dup;  /* sparse: the positions of 2+ contributions */
  int64_t *dups, ndups; /* sparse: those positions, listed */
  int by_index;         /* fewer contributions than positions, no bitmaps */
} sl__wide_line;

static const uint32_t sl__unset_bits = 0x7fc00001u;

SL__ALWAYS_INLINE int sl__wide_unset(const float *acc, int64_t t) {
  return memcmp(&acc[t], &sl__unset_bits, sizeof(float)) == 0;
}

SL__ALWAYS_INLINE int sl__bit_at(const uint64_t *bits, int64_t t) {
  return (int)(bits[t >> 6] >> (t & 63)) & 1;
}

SL__ALWAYS_INLINE char *sl__wide_out(sl_dtype dt, const sl__wide_line *w,
                                     int64_t t) {
  const sl__rlines *p = w->p;
  return p->out + (w->out_off + t * p->ostep) * (int64_t)sl__dtype_size(dt);
}

/* Position t's start value: x's, or the identity. */
SL__ALWAYS_INLINE float sl__wide_start(sl_dtype dt, sl_reduce r,
                                       const sl__wide_line *w, int64_t t) {
  return w->p->include_self ? (float)sl__load_f(dt, sl__wide_out(dt, w, t))
                            : (float)sl__reduce_identity_f(r);
}

/* Stores position t's final value (a mean divided by its count). */
SL__ALWAYS_INLINE void sl__wide_store(sl_dtype dt, const sl__wide_line *w,
                                      int64_t t, float value, float count) {
  const double v = w->counts && count > 1.0f ? value / count : value;
  sl__store_f(dt, sl__wide_out(dt, w, t), sl__round_to(SL_F32, v));
}

/* Stores position t's only step, v. */
SL__ALWAYS_INLINE void sl__wide_once(sl_dtype dt, sl_reduce r,
                                     const sl__wide_line *w, int64_t t,
                                     float v) {
  const float one = sl__combine_f32(r, sl__wide_start(dt, r, w, t), v);
  sl__wide_store(dt, w, t, one, w->p->include_self ? 2.0f : 1.0f);
}

/* Sparse steps land on random positions, each a cache miss: the step
 * SL__WIDE_AHEAD on asks for its lines (out's, and acc's for a position
 * of several contributions) while this one runs. */
enum { SL__WIDE_AHEAD = 16 };

SL__ALWAYS_INLINE void sl__wide_prefetch(sl_dtype dt, const sl__wide_line *w,
                                         int64_t t) {
  __builtin_prefetch(sl__wide_out(dt, w, t), 1);
  if (sl__bit_at(w->dup, t)) __builtin_prefetch(w->acc + t, 1);
}

/* The steps in index order. A position of one contribution (sparse) is
 * stored at once; the target of the last step keeps its value and count
 * in registers while the next steps go there too: a step then waits on
 * the add, not on a store and its reload (5.2M contributions to one
 * target ran at 0.79x LibTorch). */
SL__ALWAYS_INLINE void sl__wide_steps(sl_dtype dt, sl_reduce r,
                                      const sl__wide_line *w) {
  const sl__rlines *p = w->p;
  const int64_t es = (int64_t)sl__dtype_size(dt);
  const float self_count = p->include_self ? 1.0f : 0.0f;
  float *acc = w->acc, value = 0.0f, count = 0.0f;
  int64_t held = -1;
  for (int64_t i = 0; i < p->m; ++i) {
    const int64_t t = sl__target(p->index, w->idx_off, p->istep, i);
    const float v =
        (float)sl__load_f(dt, p->src + (w->src_off + i * p->sstep) * es);
    if (w->dup && i + SL__WIDE_AHEAD < p->m)
      sl__wide_prefetch(
          dt, w,
          sl__target(p->index, w->idx_off, p->istep, i + SL__WIDE_AHEAD));
    if (w->dup && !sl__bit_at(w->dup, t)) {
      sl__wide_once(dt, r, w, t, v);
      continue;
    }
    if (t != held) {
      if (held >= 0) acc[held] = value;
      if (held >= 0 && w->counts) w->counts[held] = count;
      if (sl__wide_unset(acc, t)) {
        acc[t] = sl__wide_start(dt, r, w, t);
        if (w->counts) w->counts[t] = self_count;
      }
      held = t, value = acc[t], count = w->counts ? (float)w->counts[t] : 0;
    }
    value = sl__combine_f32(r, value, v);
    count += 1.0f;
  }
  if (held >= 0) acc[held] = value;
  if (held >= 0 && w->counts) w->counts[held] = count;
}

/* Marks the positions the steps go to through acc unset: every position
 * where there are no more of them than contributions; else (sparse) those
 * of two or more contributions, found with two bitmaps of n bits at
 * `bits` and listed after them (the others are stored by their one step,
 * without acc). Without bitmaps (a line under 64 positions) but fewer
 * contributions than positions, the positions the index names: many
 * short lines of one contribution each otherwise spent their time on
 * all n positions twice. */
SL__ALWAYS_INLINE void sl__wide_marks(sl__wide_line *w, uint64_t *bits) {
  const sl__rlines *p = w->p;
  float unset;
  memcpy(&unset, &sl__unset_bits, sizeof unset);
  if (!bits && w->by_index) {
    for (int64_t i = 0; i < p->m; ++i)
      w->acc[sl__target(p->index, w->idx_off, p->istep, i)] = unset;
    return;
  }
  if (!bits) {
    for (int64_t t = 0; t < p->n; ++t) w->acc[t] = unset;
    return;
  }
  const int64_t words = (p->n + 63) / 64;
  uint64_t *seen = bits, *dup = bits + words;
  memset(bits, 0, (size_t)(2 * words) * sizeof *bits);
  for (int64_t i = 0; i < p->m; ++i) {
    const int64_t t = sl__target(p->index, w->idx_off, p->istep, i);
    const uint64_t bit = (uint64_t)1 << (t & 63);
    if ((seen[t >> 6] & bit) && !(dup[t >> 6] & bit)) {
      dup[t >> 6] |= bit;
      w->acc[t] = unset;
      w->dups[w->ndups++] = t;
    }
    seen[t >> 6] |= bit;
  }
  w->dup = dup;
}

/* Stores the positions stepped through acc, each once (by the index:
 * each is marked unset again once stored, so a repeated one is skipped). */
SL__ALWAYS_INLINE void sl__wide_finish(sl_dtype dt, const sl__wide_line *w) {
  const sl__rlines *p = w->p;
  const int64_t count = w->dup ? w->ndups : w->by_index ? p->m : p->n;
  for (int64_t k = 0; k < count; ++k) {
    const int64_t t = w->dup ? w->dups[k]
                      : w->by_index
                          ? sl__target(p->index, w->idx_off, p->istep, k)
                          : k;
    if (sl__wide_unset(w->acc, t)) continue;
    sl__wide_store(dt, w, t, w->acc[t], w->counts ? (float)w->counts[t] : 0.0f);
    if (w->by_index) memcpy(&w->acc[t], &sl__unset_bits, sizeof(float));
  }
}

/* k lines where each step has a position of its own: every step stored
 * at once, without the accumulators, step by step across the lines (many
 * short lines of a step or two each spent their time marking and
 * finishing accumulators, a line at a time). */
SL__ALWAYS_INLINE void
sl__wide_distinct(sl_dtype dt, sl_reduce r, const sl__rlines *p, int k,
                  const int64_t *out_off, const int64_t *src_off,
                  const int64_t *idx_off, double *counts) {
  const int64_t es = (int64_t)sl__dtype_size(dt);
  for (int64_t i = 0; i < p->m; ++i)
    for (int l = 0; l < k; ++l) {
      const sl__wide_line w = {p,      out_off[l], src_off[l], idx_off[l], NULL,
                               counts, NULL,       NULL,       0,          0};
      const float v =
          (float)sl__load_f(dt, p->src + (w.src_off + i * p->sstep) * es);
      sl__wide_once(dt, r, &w, sl__target(p->index, w.idx_off, p->istep, i), v);
    }
}

/* At most half as many contributions as positions (sparse): the bitmaps
 * and the list of at most m / 2 positions go after acc's n floats in the
 * scratch of n doubles, where there is room from 64 positions. */
SL__ALWAYS_INLINE void sl__wide_line_as(sl_dtype dt, sl_reduce r,
                                        const sl__rlines *p, int64_t out_off,
                                        int64_t src_off, int64_t idx_off,
                                        float *acc, double *counts) {
  sl__wide_line w = {p,      out_off, src_off, idx_off, acc,
                     counts, NULL,    NULL,    0,       p->m < p->n};
  const int64_t words = (p->n + 63) / 64;
  uint64_t *bits = NULL;
  if (p->m <= p->n / 2 && p->n >= 64) {
    bits = (uint64_t *)(void *)(acc + (p->n + 1) / 2 * 2);
    w.dups = (int64_t *)(void *)(bits + 2 * words);
  }
  sl__wide_marks(&w, bits);
  sl__wide_steps(dt, r, &w);
  sl__wide_finish(dt, &w);
}

/* k lines (at most SL__LINE_BATCH), as sl__reduce_lines takes them. */
typedef void (*sl__wide_lines_fn)(const sl__rlines *p, int k,
                                  const int64_t *out_off,
                                  const int64_t *src_off,
                                  const int64_t *idx_off, float *acc,
                                  double *counts);

/* The instances: the half dtypes by the reduces that accumulate. */
#define SL__WIDE_LINES(X)                                                      \
  X(F16, SUM)                                                                  \
  X(F16, PROD)                                                                 \
  X(F16, MEAN)                                                                 \
  X(F16, AMAX)                                                                 \
  X(F16, AMIN)                                                                 \
  X(BF16, SUM) X(BF16, PROD) X(BF16, MEAN) X(BF16, AMAX) X(BF16, AMIN)

#define SL__WIDE_LINES_FN(D, R)                                                \
  static void sl__wide_lines_##D##_##R(                                        \
      const sl__rlines *p, int k, const int64_t *out_off,                      \
      const int64_t *src_off, const int64_t *idx_off, float *acc,              \
      double *counts) {                                                        \
    if (p->distinct) {                                                         \
      sl__wide_distinct(SL_##D, SL_REDUCE_##R, p, k, out_off, src_off,         \
                        idx_off, counts);                                      \
      return;                                                                  \
    }                                                                          \
    for (int l = 0; l < k; ++l)                                                \
      sl__wide_line_as(SL_##D, SL_REDUCE_##R, p, out_off[l], src_off[l],       \
                       idx_off[l], acc, counts);                               \
  }
SL__WIDE_LINES(SL__WIDE_LINES_FN)
#undef SL__WIDE_LINES_FN

static sl__wide_lines_fn sl__wide_lines_for(sl_dtype dt, sl_reduce r) {
#define SL__WIDE_LINES_IS(D, R)                                                \
  if (dt == SL_##D && r == SL_REDUCE_##R) return sl__wide_lines_##D##_##R;
  SL__WIDE_LINES(SL__WIDE_LINES_IS)
#undef SL__WIDE_LINES_IS
  return NULL;
}

void sl__reduce_lines(const sl__rlines *p, int k, const int64_t *out_off,
                      const int64_t *src_off, const int64_t *idx_off,
                      double *scratch) {
  const sl_dtype dt = p->dt;
  double *counts = scratch;
  if (sl__acc_dtype(dt) != dt && p->reduce != SL_REDUCE_ASSIGN) {
    double *mean_counts = p->reduce == SL_REDUCE_MEAN ? scratch + p->n : NULL;
    sl__wide_lines_for(dt, p->reduce)(p, k, out_off, src_off, idx_off,
                                      (float *)scratch, mean_counts);
    return;
  }
  const sl_reduce r = p->reduce;
  const int64_t es = (int64_t)sl__dtype_size(dt);
  const int64_t m = p->m;
  /* include_self = false: every targeted position starts from the identity
   * (assignment overwrites anyway). */
  if (!p->include_self && r != SL_REDUCE_ASSIGN)
    for (int64_t i = 0; i < m; ++i)
      for (int l = 0; l < k; ++l) {
        int64_t t = sl__target(p->index, idx_off[l], p->istep, i);
        sl__reduce_set_identity(dt, r,
                                p->out + (out_off[l] + t * p->ostep) * es);
      }
  /* Contributions in index order, the k lines side by side. */
  for (int64_t i = 0; i < m; ++i)
    for (int l = 0; l < k; ++l) {
      int64_t t = sl__target(p->index, idx_off[l], p->istep, i);
      sl__reduce_step(dt, r, p->out + (out_off[l] + t * p->ostep) * es,
                      p->src + (src_off[l] + i * p->sstep) * es);
    }
  if (r != SL_REDUCE_MEAN) return;
  /* Mean: count per targeted position (only those are touched, so the
   * scratch needs no clearing), divide once, then mark it done by a count
   * of 1 so that a duplicate target is not divided again. A position with
   * one contribution (or none besides x) divides by 1: nothing to do. */
  for (int l = 0; l < k; ++l) {
    for (int64_t i = 0; i < m; ++i)
      counts[sl__target(p->index, idx_off[l], p->istep, i)] =
          p->include_self ? 1.0 : 0.0;
    for (int64_t i = 0; i < m; ++i) {
      int64_t t = sl__target(p->index, idx_off[l], p->istep, i);
      counts[t] = sl__count_add(dt, counts[t], 1.0);
    }
    for (int64_t i = 0; i < m; ++i) {
      int64_t t = sl__target(p->index, idx_off[l], p->istep, i);
      if (counts[t] == 1.0) continue;
      sl__reduce_mean_finish(dt, p->out + (out_off[l] + t * p->ostep) * es,
                             counts[t]);
      counts[t] = 1.0;
    }
  }
}

sl_status sl__reduce_line_batches(sl_ctx *ctx, const char *op, sl_call *c,
                                  int64_t lines, int64_t n, int threads,
                                  sl__line_batch_fn fn, const void *user) {
  const sl_tensor *out = &c->arg[3];
  int64_t batches = (lines + SL__LINE_BATCH - 1) / SL__LINE_BATCH;
  int team = batches < threads ? (batches > 0 ? (int)batches : 1) : threads;
  int64_t per = sl__reduce_lines_scratch(out->dtype, c->p.reduce, n);
  double *scratch = NULL;
  if (lines && per) {
    scratch = sl__malloc((size_t)team * (size_t)per * sizeof(double));
    if (!scratch)
      return sl_ctx_fail(ctx, SL_STATUS_OUT_OF_MEMORY,
                         "%s: no memory for %lld doubles of scratch", op,
                         (long long)(team * per));
  }
  sl__copy_strided(&c->arg[3], &c->arg[0], threads);
#pragma omp parallel num_threads(team) if (team > 1)
  {
#ifdef _OPENMP
    double *mine =
        scratch ? scratch + (int64_t)omp_get_thread_num() * per : NULL;
#else
    double *mine = scratch;
#endif
#pragma omp for schedule(static)
    for (int64_t b = 0; b < batches; ++b) {
      int64_t end = (b + 1) * SL__LINE_BATCH;
      fn(user, b * SL__LINE_BATCH, end < lines ? end : lines, mine);
    }
  }
  sl__free(scratch);
  return SL_STATUS_OK;
}

void sl__axis_view(const sl_tensor *t, int k, int axis, sl_tensor *view) {
  *view = *t;
  if (t->ndim == k) return;
  /* rank k-1: open an extent-1 dim at axis. */
  for (int d = k - 1; d > axis; --d) {
    view->shape[d] = t->shape[d - 1];
    view->strides[d] = t->strides[d - 1];
  }
  view->shape[axis] = 1;
  view->strides[axis] = 0;
  view->ndim = k;
}

sl_status sl__check_like_x(sl_ctx *ctx, const char *what, const sl_tensor *t,
                           const sl_tensor *x) {
  char a[160], b[160];
  if (t->dtype != x->dtype)
    return sl_ctx_fail(ctx, SL_STATUS_UNSUPPORTED_DTYPE,
                       "%s: expected dtype %s (the dtype of x), got %s", what,
                       sl_dtype_name(x->dtype), sl_dtype_name(t->dtype));
  int same = t->ndim == x->ndim;
  for (int d = 0; same && d < t->ndim; ++d) same = t->shape[d] == x->shape[d];
  if (!same)
    return sl_ctx_fail(ctx, SL_STATUS_SHAPE_MISMATCH,
                       "%s: expected shape %s (the shape of x), got %s", what,
                       sl_shape_str(x->ndim, x->shape, a, sizeof a),
                       sl_shape_str(t->ndim, t->shape, b, sizeof b));
  return SL_STATUS_OK;
}
