/*
 * index_reduce_backward of mean, amax, amin and prod by slices (prod's
 * formulas in index_reduce_backward_products.c). mean's and amax/amin's
 * gradients are shares: each target's gradient divided by the count of
 * the elements it came from (mean: the contributions, self included;
 * amax/amin: those equal to the result). The line walk
 * (reduce_backward.c) takes the lines along dim side by side; when dim is
 * not the last axis a position is a row away from the next, so a line of
 * few positions and one update touched a cache line per element (the f16
 * leads of issue 52 ran at 0.2x LibTorch). Here a block goes slice after
 * slice: runs of untargeted slices in one pass, each targeted slice a
 * chunk of columns at a time with its contributions. Every element sees
 * the line walk's formulas in the same order, so the results are its
 * results.
 */
#include "index_reduce_backward_shares.h"

#include <math.h>
#include <stdlib.h>

#include "half_blocks.h"
#include "index_reduce_backward_slices.h"
#include "reduce.h"
#include "walk.h"

/* amax/amin's share of an untargeted element in f32/f64's own type:
 * g where x is the result, else a NaN (0 * (g / 0) is one for every g),
 * a compare and a blend that vectorize. The loop below made each NaN by
 * a multiply of 0 by an infinity, most of its time where x holds NaNs
 * (f32 amax through a scalar index into 6725778: 0.80x LibTorch). */
#define SL__IRB_HITS_FN(T, NAME)                                               \
  static void NAME(const sl__irb_shares *s, int64_t off, int64_t len) {        \
    const T *restrict g = (const T *)(const void *)s->g + off;                 \
    const T *restrict x = (const T *)(const void *)s->x + off;                 \
    const T *restrict res = (const T *)(const void *)s->res + off;             \
    T *restrict gx = (T *)(void *)s->gx + off;                                 \
    for (int64_t j = 0; j < len; ++j) {                                        \
      const T share = g[j]; /* loaded either way: no branch on NaN data */     \
      gx[j] = x[j] == res[j] ? share : (T)NAN;                                 \
    }                                                                          \
  }
SL__IRB_HITS_FN(float, sl__irb_hits_f32)
SL__IRB_HITS_FN(double, sl__irb_hits_f64)
#undef SL__IRB_HITS_FN

/* len elements of grad_x from element off on, as if no target were
 * among them: amax/amin's count is (x == result), so the share is
 * hit * RD(g / hit) with hit 1 or 0, divisions by constants; mean's count
 * is 1 (self) or 0 made 1. */
SL__ALWAYS_INLINE void sl__irb_untargeted(sl_dtype dt, const sl__irb_shares *s,
                                          int64_t off, int64_t len) {
  if (s->reduce != SL_REDUCE_MEAN && (dt == SL_F32 || dt == SL_F64)) {
    (dt == SL_F32 ? sl__irb_hits_f32 : sl__irb_hits_f64)(s, off, len);
    return;
  }
  const size_t es = sl__dtype_size(dt);
  const char *g = s->g + off * es, *x = s->x + off * es,
             *res = s->res + off * es;
  char *gx = s->gx + off * es;
  const int shares = s->reduce != SL_REDUCE_MEAN;
  for (int64_t j = 0; j < len; ++j) {
    const double gj = sl__load_f(dt, g + j * es);
    if (!shares) {
      sl__store_f(dt, gx + j * es, gj / 1.0);
      continue;
    }
    const int hit = sl__load_f(dt, x + j * es) == sl__load_f(dt, res + j * es);
    sl__store_f(dt, gx + j * es,
                hit ? sl__round_to(sl__acc_dtype(dt), gj / 1.0)
                    : 0.0 * sl__round_to(sl__acc_dtype(dt), gj / 0.0));
  }
}

/* The same for f16 and bf16 a block at a time in float: RD(g / 1.0) is g,
 * and 0 * RD(g / 0) a NaN (its sign and payload may differ). */
static void sl__irb_untargeted_half(const sl__irb_shares *s, int64_t off,
                                    int64_t len) {
  float g[SL__HALF_BLOCK], x[SL__HALF_BLOCK], res[SL__HALF_BLOCK];
  const int shares = s->reduce != SL_REDUCE_MEAN;
  for (int64_t a = 0; a < len; a += SL__HALF_BLOCK) {
    const int64_t k = len - a < SL__HALF_BLOCK ? len - a : SL__HALF_BLOCK;
    const size_t at = (size_t)(off + a) * 2;
    sl__half_load_block(s->dt, s->g + at, g, k);
    if (shares) {
      sl__half_load_block(s->dt, s->x + at, x, k);
      sl__half_load_block(s->dt, s->res + at, res, k);
      /* 0 * (g / 0) is a NaN for every g (0 * inf, 0 * NaN): written as
       * one, the loop is a compare and a blend, no branch on NaN data
       * (eight at a time: GCC's -O2 vectorizes a loop of known count) */
      int64_t j = 0;
      for (; j + 8 <= k; j += 8)
        for (int q = 0; q < 8; ++q)
          g[j + q] = x[j + q] == res[j + q] ? g[j + q] : NAN;
      for (; j < k; ++j) g[j] = x[j] == res[j] ? g[j] : NAN;
    }
    sl__half_store_block(s->dt, g, s->gx + at, k);
  }
}

SL__ALWAYS_INLINE void sl__irb_untargeted_run(sl_dtype dt,
                                              const sl__irb_shares *s,
                                              int64_t off, int64_t len) {
  if (s->reduce == SL_REDUCE_PROD)
    sl__irb_prod_untargeted(s, off, len);
  else if (dt == SL_F16 || dt == SL_BF16)
    sl__irb_untargeted_half(s, off, len);
  else
    sl__irb_untargeted(dt, s, off, len);
}

/* a chunk of columns is at most a block of half conversions */
_Static_assert((int)SL__IRB_CHUNK <= (int)SL__HALF_BLOCK,
               "chunk beyond a half block");

/* The loads of a chunk of slice t of block o, from column j on, in float
 * (f16 and bf16). */
#define SL__IRB_HALF_LOAD(base, nslices, t, to)                                \
  sl__half_load_block(s->dt, sl__irb_slice(base, s, 2, o, nslices, t, j), to,  \
                      len)

/* Target k's chunk, columns [j, j + len), for f16 and bf16 in float (by
 * scalar conversions they were most of the time: f16 amax of 104 updates
 * into 95 of 172 slices of 170x170 ran at 0.40x LibTorch). amax/amin:
 * the count starts as (x == result) and adds each contribution equal to
 * the result in index order (exact in float below 2^24); a share is
 * hit * (g / count), float's own quotient (g and the count are exact in
 * float). mean: g / N, whose float quotient rounds to the half type as
 * the double one does (24 bits >= 2 x 11 + 2). grad_x is 0 without self. */
static void sl__irb_chunk_half(const sl__irb_shares *s, int64_t o, int64_t k,
                               int64_t j, int64_t len) {
  float g[SL__IRB_CHUNK], x[SL__IRB_CHUNK], res[SL__IRB_CHUNK];
  float v[SL__IRB_CHUNK], count[SL__IRB_CHUNK];
  const int mean = s->reduce == SL_REDUCE_MEAN;
  const int64_t t = s->u[k], *i = s->by + s->first[k],
                ni = s->first[k + 1] - s->first[k];
  const float n = (float)s->mean_n[k];
  SL__IRB_HALF_LOAD(s->g, s->n, t, g);
  if (!mean) {
    SL__IRB_HALF_LOAD(s->x, s->n, t, x);
    SL__IRB_HALF_LOAD(s->res, s->n, t, res);
    for (int64_t q = 0; q < len; ++q) count[q] = x[q] == res[q];
    for (int64_t c = 0; c < ni; ++c) {
      SL__IRB_HALF_LOAD(s->src, s->m, i[c], v);
      for (int64_t q = 0; q < len; ++q) count[q] += v[q] == res[q];
    }
  }
  for (int64_t q = 0; q < len; ++q)
    v[q] = !s->self ? 0.0f
           : mean   ? g[q] / n
                    : (x[q] == res[q] ? 1.0f : 0.0f) * (g[q] / count[q]);
  sl__half_store_block(s->dt, v, sl__irb_slice(s->gx, s, 2, o, s->n, t, j),
                       len);
  for (int64_t c = 0; c < ni; ++c) {
    if (mean)
      for (int64_t q = 0; q < len; ++q) v[q] = g[q] / n;
    else {
      SL__IRB_HALF_LOAD(s->src, s->m, i[c], v);
      for (int64_t q = 0; q < len; ++q)
        v[q] = (v[q] == res[q] ? 1.0f : 0.0f) * (g[q] / count[q]);
    }
    sl__half_store_block(s->dt, v, sl__irb_slice(s->gs, s, 2, o, s->m, i[c], j),
                         len);
  }
}
#undef SL__IRB_HALF_LOAD

/* gradient share g / n, times hit for amax/amin (their counts' formula). */
SL__ALWAYS_INLINE double sl__irb_share(sl_dtype dt, int mean, double g,
                                       double n, int hit) {
  return mean ? g / n
              : (hit ? 1.0 : 0.0) * sl__round_to(sl__acc_dtype(dt), g / n);
}

/* amax/amin's counts of target k's chunk: (x == result), then each
 * contribution equal to the result, in index order. */
SL__ALWAYS_INLINE void sl__irb_count(sl_dtype dt, const sl__irb_shares *s,
                                     int64_t o, int64_t k, int64_t j,
                                     int64_t len, double *count) {
  const size_t es = sl__dtype_size(dt);
  const int64_t t = s->u[k];
  const char *x = sl__irb_slice(s->x, s, es, o, s->n, t, j);
  const char *res = sl__irb_slice(s->res, s, es, o, s->n, t, j);
  for (int64_t q = 0; q < len; ++q)
    count[q] = sl__load_f(dt, x + q * es) == sl__load_f(dt, res + q * es);
  for (int64_t c = s->first[k]; c < s->first[k + 1]; ++c) {
    const char *src = sl__irb_slice(s->src, s, es, o, s->m, s->by[c], j);
    for (int64_t q = 0; q < len; ++q)
      count[q] = sl__count_add(
          dt, count[q],
          sl__load_f(dt, src + q * es) == sl__load_f(dt, res + q * es) ? 1.0
                                                                       : 0.0);
  }
}

/* Target k's chunk, columns [j, j + len): its slice of grad_x (zeros
 * without self) and its contributions' grad_updates. One pass reads each
 * input once (the counts of a whole block kept in memory, and grad_x
 * written for every slice before the targets' were written again, read
 * and wrote four times the bytes: f32 amax of 884 updates into 1042x1043
 * ran at 0.72x LibTorch). */
SL__ALWAYS_INLINE void sl__irb_chunk(sl_dtype dt, const sl__irb_shares *s,
                                     int64_t o, int64_t k, int64_t j,
                                     int64_t len) {
  const size_t es = sl__dtype_size(dt);
  const int mean = s->reduce == SL_REDUCE_MEAN;
  double count[SL__IRB_CHUNK];
  if (mean)
    for (int64_t q = 0; q < len; ++q) count[q] = s->mean_n[k];
  else
    sl__irb_count(dt, s, o, k, j, len, count);
  const int64_t t = s->u[k];
  const char *g = sl__irb_slice(s->g, s, es, o, s->n, t, j);
  const char *x = sl__irb_slice(s->x, s, es, o, s->n, t, j);
  const char *res = sl__irb_slice(s->res, s, es, o, s->n, t, j);
  char *gx = sl__irb_slice(s->gx, s, es, o, s->n, t, j);
  for (int64_t q = 0; q < len; ++q)
    sl__store_f(dt, gx + q * es,
                !s->self ? 0.0
                         : sl__irb_share(dt, mean, sl__load_f(dt, g + q * es),
                                         count[q],
                                         sl__load_f(dt, x + q * es) ==
                                             sl__load_f(dt, res + q * es)));
  for (int64_t c = s->first[k]; c < s->first[k + 1]; ++c) {
    const char *src = sl__irb_slice(s->src, s, es, o, s->m, s->by[c], j);
    char *gs = sl__irb_slice(s->gs, s, es, o, s->m, s->by[c], j);
    for (int64_t q = 0; q < len; ++q)
      sl__store_f(dt, gs + q * es,
                  sl__irb_share(dt, mean, sl__load_f(dt, g + q * es), count[q],
                                sl__load_f(dt, src + q * es) ==
                                    sl__load_f(dt, res + q * es)));
  }
}

/* Block o, columns [j0, j1), slice after slice: the runs of untargeted
 * slices between the targets (whole slices: one run of elements), and
 * each target a chunk at a time. */
SL__ALWAYS_INLINE void sl__irb_block(sl_dtype dt, const sl__irb_shares *s,
                                     int64_t o, int64_t j0, int64_t j1) {
  const int64_t n = s->n, inner = s->inner, w = j1 - j0;
  const int half = dt == SL_F16 || dt == SL_BF16;
  for (int64_t k = 0, t = 0; k <= s->nu; ++k) {
    const int64_t end = k < s->nu ? s->u[k] : n; /* untargeted: [t, end) */
    if (w == inner)
      sl__irb_untargeted_run(dt, s, (o * n + t) * inner, (end - t) * inner);
    else
      for (; t < end; ++t)
        sl__irb_untargeted_run(dt, s, (o * n + t) * inner + j0, w);
    if (k == s->nu) return;
    for (int64_t j = j0; j < j1; j += SL__IRB_CHUNK) {
      const int64_t len = j1 - j < SL__IRB_CHUNK ? j1 - j : SL__IRB_CHUNK;
      if (s->reduce == SL_REDUCE_PROD)
        sl__irb_prod_chunk(s, o, k, j, len);
      else if (half)
        sl__irb_chunk_half(s, o, k, j, len);
      else
        sl__irb_chunk(dt, s, o, k, j, len);
    }
    t = end + 1;
  }
}

SL__ALWAYS_INLINE void sl__irb_shares_as(sl_dtype dt, const sl__irb_shares *s,
                                         int64_t o0, int64_t o1, int64_t j0,
                                         int64_t j1) {
  for (int64_t o = o0; o < o1; ++o) sl__irb_block(dt, s, o, j0, j1);
}

/* One instance per floating dtype: each folds its loads and stores. */
#define SL__IRB_SHARES_FN(D)                                                   \
  static void sl__irb_shares_##D(const sl__irb_shares *s, int64_t o0,          \
                                 int64_t o1, int64_t j0, int64_t j1) {         \
    sl__irb_shares_as(SL_##D, s, o0, o1, j0, j1);                              \
  }
SL__RB_DTYPES(SL__IRB_SHARES_FN)
#undef SL__IRB_SHARES_FN

static void sl__irb_shares_range(const void *user, int64_t o0, int64_t o1,
                                 int64_t j0, int64_t j1) {
  const sl__irb_shares *s = user;
#define SL__IRB_SHARES_IS(D)                                                   \
  if (s->dt == SL_##D) {                                                       \
    sl__irb_shares_##D(s, o0, o1, j0, j1);                                     \
    return;                                                                    \
  }
  SL__RB_DTYPES(SL__IRB_SHARES_IS)
#undef SL__IRB_SHARES_IS
}

/* Target k's contributions in index order, by[first[k]] on (a counting
 * sort of the slots, first[k] its cursor, then moved back a place). */
static void sl__irb_by_target(const int64_t *slot, int64_t m, int64_t nu,
                              int64_t *first, int64_t *by) {
  for (int64_t k = 0; k <= nu; ++k) first[k] = 0;
  for (int64_t i = 0; i < m; ++i) ++first[slot[i] + 1];
  for (int64_t k = 0; k < nu; ++k) first[k + 1] += first[k];
  for (int64_t i = 0; i < m; ++i) by[first[slot[i]]++] = i;
  for (int64_t k = nu; k > 0; --k) first[k] = first[k - 1];
  first[0] = 0;
}

/* From the index, in buf (5m + 1 entries): u, the distinct targets sorted
 * (nu of them); slot[i], contribution i's place in u; first and by
 * (sl__irb_by_target); mean_n, mean's count per target, added in index
 * order as the line walk adds it, a zero made 1. */
static void sl__irb_targets(const sl_call *c, sl__irb_shares *s, int64_t *buf) {
  const sl_tensor *index = &c->arg[2];
  const int64_t istep = index->ndim ? index->strides[0] : 0, m = s->m;
  int64_t *u = buf, *slot = buf + m, *first = buf + 2 * m,
          *by = buf + 3 * m + 1;
  double *mean_n = (double *)(buf + 4 * m + 1);
  for (int64_t i = 0; i < m; ++i) u[i] = sl__load_index(index, i * istep);
  s->nu = sl__rb_distinct(u, m);
  for (int64_t k = 0; k < s->nu; ++k) mean_n[k] = s->self ? 1.0 : 0.0;
  for (int64_t i = 0; i < m; ++i) {
    const int64_t t = sl__load_index(index, i * istep);
    slot[i] = sl__rb_slot(u, s->nu, t);
    mean_n[slot[i]] = sl__count_add(s->dt, mean_n[slot[i]], 1.0);
  }
  for (int64_t k = 0; k < s->nu; ++k)
    if (mean_n[k] == 0.0) mean_n[k] = 1.0; /* N.masked_fill_(N == 0, 1) */
  sl__irb_by_target(slot, m, s->nu, first, by);
  s->u = u, s->first = first, s->by = by, s->mean_n = mean_n;
}

/* Whether the call qualifies, and its geometry. */
static int sl__irb_shares_of(const sl_call *c, sl__irb_shares *s) {
  const sl_tensor *g = &c->arg[0];
  const sl_reduce r = c->p.reduce;
  if (r != SL_REDUCE_MEAN && r != SL_REDUCE_AMAX && r != SL_REDUCE_AMIN &&
      r != SL_REDUCE_PROD)
    return 0;
  /* inputs in another layout go through contiguous copies (below) */
  if (!sl_tensor_is_contiguous(&c->arg[5]) ||
      !sl_tensor_is_contiguous(&c->arg[6]))
    return 0;
  int64_t outer, inner;
  sl__irb_blocks(g, (int)c->p.dim, &outer, &inner);
  *s = (sl__irb_shares){.dt = g->dtype,
                        .reduce = r,
                        .self = c->p.include_self,
                        .g = g->data,
                        .x = c->arg[1].data,
                        .src = c->arg[3].data,
                        .res = c->arg[4].data,
                        .gx = c->arg[5].data,
                        .gs = c->arg[6].data,
                        .outer = outer,
                        .n = g->ndim ? g->shape[c->p.dim] : 1,
                        .m = sl__numel(&c->arg[2]),
                        .inner = inner};
  /* Narrower slices stay with the line walk, unless the contributions are
   * few beside the positions along dim: a slice of a few elements per
   * target pays the loop set-up of a whole one. */
  return s->inner * (int64_t)sl_dtype_size(g->dtype) >= 64 ||
         s->m * SL__RB_SPARSE_RATIO <= s->n;
}

/* The slices pass over s, whose inputs are contiguous. */
static void sl__irb_shares_run(sl_ctx *ctx, const sl_call *c, int threads,
                               sl__irb_shares *s, sl_status *status) {
  *status = SL_STATUS_OK;
  if (s->outer == 0 || s->inner == 0) return;
  const int64_t entries = 5 * s->m + 1;
  int64_t *buf = sl__malloc((size_t)entries * sizeof *buf);
  if (!buf) {
    *status = sl_ctx_fail(ctx, SL_STATUS_OUT_OF_MEMORY,
                          "index_reduce_backward: no memory for %lld "
                          "entries of the targets of %lld updates",
                          (long long)entries, (long long)s->m);
    return;
  }
  sl__irb_targets(c, s, buf);
  sl__for_blocks(threads, s->outer, s->inner,
                 s->outer * (s->n + s->m) * s->inner, sl__irb_shares_range, s);
  sl__free(buf);
}

/* The data of input slot a, contiguous: a tensor in another layout (a
 * step, a transpose) is copied into a buffer left in *copy, since the slices
 * pass reads runs of elements; the copy reads and writes the tensor once, the
 * line walk it would otherwise take touches a cache line per element
 * (f16 amin with stepped updates ran at 0.25x LibTorch). NULL when the
 * copy finds no memory. */
static const char *sl__irb_dense(const sl_call *c, int a, int threads,
                                 char **copy) {
  const sl_tensor *t = &c->arg[a];
  if (sl_tensor_is_contiguous(t)) return t->data;
  sl_tensor dense = *t;
  sl_contiguous_strides(t->ndim, t->shape, dense.strides);
  dense.data = *copy =
      sl__malloc((size_t)sl__numel(t) * sl_dtype_size(t->dtype) + 1);
  if (dense.data) sl__copy_strided(&dense, t, threads);
  return dense.data;
}

int sl__index_backward_shares(sl_ctx *ctx, sl_call *c, int threads,
                              sl_status *status) {
  sl__irb_shares s;
  if (!sl__irb_shares_of(c, &s)) return 0;
  char *copies[4] = {NULL, NULL, NULL, NULL};
  s.g = sl__irb_dense(c, 0, threads, &copies[0]);
  s.x = sl__irb_dense(c, 1, threads, &copies[1]);
  s.src = sl__irb_dense(c, 3, threads, &copies[2]);
  s.res = sl__irb_dense(c, 4, threads, &copies[3]);
  const int dense = s.g && s.x && s.src && s.res;
  if (dense) sl__irb_shares_run(ctx, c, threads, &s, status);
  for (int k = 0; k < 4; ++k) sl__free(copies[k]);
  return dense; /* without memory for a copy, the line walk takes it */
}
