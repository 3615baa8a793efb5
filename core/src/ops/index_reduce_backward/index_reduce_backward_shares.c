/*
 * index_reduce_backward of mean, amax and amin by slices. Their gradients
 * are shares: each target's gradient divided by the count of the elements
 * it came from (mean: the contributions, self included; amax/amin: those
 * equal to the result). The line walk (reduce_backward.c) takes the lines
 * along dim side by side; when dim is not the last axis a position is a
 * row away from the next, so a line of few positions and one update
 * touched a cache line per element (the f16 leads of issue 52 ran at
 * 0.2x LibTorch). Here a block's untargeted slices go in one pass, and
 * only the targeted slices keep counts. Every element sees the line
 * walk's formulas in the same order, so the results are its results.
 */
#include "index_reduce_backward_shares.h"

#include <math.h>
#include <stdlib.h>

#include "half_blocks.h"
#include "index_reduce_backward_slices.h"
#include "reduce.h"
#include "walk.h"

/* The geometry: `outer` blocks; in each, the n slices of grad_out, x,
 * result and grad_x and the m of updates and grad_updates, of `inner`
 * elements each. Contribution i goes to target u[slot[i]], one of the nu
 * distinct targets. Counts: mean's one per target (mean_n), amax/amin's
 * one per element of a targeted slice (count, outer x nu x inner). */
typedef struct sl__irb_shares {
  sl_dtype dt;
  sl_reduce reduce;
  int self;
  const char *g, *x, *res, *src;
  char *gx, *gs;
  const int64_t *u, *slot;
  const double *mean_n;
  double *count;
  int64_t outer, n, m, nu, inner;
} sl__irb_shares;

/* Column j0 of slice t of block o, in a tensor of nslices slices. The
 * loops below take their pointers once a slice: a store through char *
 * may alias the geometry, which the compiler then reloaded per element. */
SL__ALWAYS_INLINE char *sl__irb_slice(const void *base, const sl__irb_shares *s,
                                      size_t es, int64_t o, int64_t nslices,
                                      int64_t t, int64_t j0) {
  return (char *)base + (size_t)(((o * nslices + t) * s->inner) + j0) * es;
}

/* len elements of grad_x from element off on, as if no target were
 * among them: amax/amin's count is (x == result), so the share is
 * hit * RD(g / hit) with hit 1 or 0, divisions by constants; mean's count
 * is 1 (self) or 0 made 1. */
SL__ALWAYS_INLINE void sl__irb_untargeted(sl_dtype dt, const sl__irb_shares *s,
                                          int64_t off, int64_t len) {
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
  if (dt == SL_F16 || dt == SL_BF16)
    sl__irb_untargeted_half(s, off, len);
  else
    sl__irb_untargeted(dt, s, off, len);
}

/* The contributions' part of amax/amin's counts and shares for f16 and
 * bf16, a block at a time in float (the scalar conversions were most of
 * the time: f16 amin of 46 updates of 215,000 elements ran at 0.69x
 * LibTorch). A count stays below 2^24, exact in float; the share
 * hit * RD(g / n) is float's own g / n (n a float), times 1 or 0. */
static void sl__irb_count_half(const sl__irb_shares *s, int64_t o, int64_t j0,
                               int64_t j1) {
  float src[SL__HALF_BLOCK], res[SL__HALF_BLOCK];
  double *count = s->count + o * s->nu * s->inner + j0;
  for (int64_t i = 0; i < s->m; ++i) {
    const int64_t k = s->slot[i];
    const char *sp = sl__irb_slice(s->src, s, 2, o, s->m, i, j0);
    const char *rp = sl__irb_slice(s->res, s, 2, o, s->n, s->u[k], j0);
    double *c = count + k * s->inner;
    for (int64_t a = 0; a < j1 - j0; a += SL__HALF_BLOCK) {
      const int64_t len = sl__half_block_len(j1 - j0, a);
      sl__half_load_block(s->dt, sp + a * 2, src, len);
      sl__half_load_block(s->dt, rp + a * 2, res, len);
      for (int64_t q = 0; q < len; ++q)
        c[a + q] = (float)(c[a + q] + (src[q] == res[q]));
    }
  }
}

static void sl__irb_shares_half(const sl__irb_shares *s, int64_t o, int64_t j0,
                                int64_t j1) {
  float g[SL__HALF_BLOCK], src[SL__HALF_BLOCK], res[SL__HALF_BLOCK];
  const double *count = s->count + o * s->nu * s->inner + j0;
  for (int64_t i = 0; i < s->m; ++i) {
    const int64_t k = s->slot[i], t = s->u[k];
    const char *gp = sl__irb_slice(s->g, s, 2, o, s->n, t, j0);
    const char *sp = sl__irb_slice(s->src, s, 2, o, s->m, i, j0);
    const char *rp = sl__irb_slice(s->res, s, 2, o, s->n, t, j0);
    char *gsp = sl__irb_slice(s->gs, s, 2, o, s->m, i, j0);
    const double *c = count + k * s->inner;
    for (int64_t a = 0; a < j1 - j0; a += SL__HALF_BLOCK) {
      const int64_t len = sl__half_block_len(j1 - j0, a);
      sl__half_load_block(s->dt, gp + a * 2, g, len);
      sl__half_load_block(s->dt, sp + a * 2, src, len);
      sl__half_load_block(s->dt, rp + a * 2, res, len);
      for (int64_t q = 0; q < len; ++q)
        src[q] = (src[q] == res[q] ? 1.0f : 0.0f) * (g[q] / (float)c[a + q]);
      sl__half_store_block(s->dt, src, gsp + a * 2, len);
    }
  }
}

/* amax/amin's targeted slices of block o, columns [j0, j1), for f16 and
 * bf16 a block at a time in float (by scalar conversions they were most of
 * the time: f16 amax of 104 updates into 95 of 172 slices of 170x170 ran
 * at 0.40x LibTorch). start_counts: each count starts as (x == result);
 * else grad_x gets the shares, hit * RD(g / count) with self (float's own
 * g / count: g and the count are exact in float), zeros without. */
static void sl__irb_slices_half(const sl__irb_shares *s, int64_t o, int64_t j0,
                                int64_t j1, int start_counts) {
  float g[SL__HALF_BLOCK], x[SL__HALF_BLOCK], res[SL__HALF_BLOCK];
  double *count = s->count + o * s->nu * s->inner + j0;
  for (int64_t k = 0; k < s->nu; ++k) {
    const int64_t t = s->u[k];
    const char *xp = sl__irb_slice(s->x, s, 2, o, s->n, t, j0);
    const char *rp = sl__irb_slice(s->res, s, 2, o, s->n, t, j0);
    const char *gp = sl__irb_slice(s->g, s, 2, o, s->n, t, j0);
    char *gxp = sl__irb_slice(s->gx, s, 2, o, s->n, t, j0);
    double *c = count + k * s->inner;
    for (int64_t a = 0; a < j1 - j0; a += SL__HALF_BLOCK) {
      const int64_t len = sl__half_block_len(j1 - j0, a);
      if (!start_counts && !s->self) {
        for (int64_t q = 0; q < len; ++q) g[q] = 0.0f;
        sl__half_store_block(s->dt, g, gxp + a * 2, len);
        continue;
      }
      sl__half_load_block(s->dt, xp + a * 2, x, len);
      sl__half_load_block(s->dt, rp + a * 2, res, len);
      if (start_counts) {
        for (int64_t q = 0; q < len; ++q) c[a + q] = x[q] == res[q];
        continue;
      }
      sl__half_load_block(s->dt, gp + a * 2, g, len);
      for (int64_t q = 0; q < len; ++q)
        g[q] = (x[q] == res[q] ? 1.0f : 0.0f) * (g[q] / (float)c[a + q]);
      sl__half_store_block(s->dt, g, gxp + a * 2, len);
    }
  }
}

/* mean's targeted slices of block o, columns [j0, j1), for f16 and bf16 a
 * block at a time in float: grad_x = g / N with self (zeros without),
 * grad_updates = g[target] / N. g and N are exact in float, and float's
 * quotient rounds to the half type as the double one does (24 bits >= 2 x
 * 11 + 2), so the values are the line walk's (by scalar conversions,
 * f16 mean of 3 updates into one slice of 5.1M ran at 0.27x LibTorch). */
static void sl__irb_mean_half(const sl__irb_shares *s, int64_t o, int64_t j0,
                              int64_t j1) {
  float g[SL__HALF_BLOCK];
  for (int64_t i = -s->nu; i < s->m; ++i) {
    /* i < 0: target nu + i's grad_x; else contribution i's grad_updates */
    const int64_t k = i < 0 ? s->nu + i : s->slot[i], t = s->u[k];
    const char *gp = sl__irb_slice(s->g, s, 2, o, s->n, t, j0);
    char *out = i < 0 ? sl__irb_slice(s->gx, s, 2, o, s->n, t, j0)
                      : sl__irb_slice(s->gs, s, 2, o, s->m, i, j0);
    const int zero = i < 0 && !s->self;
    const float n = (float)s->mean_n[k];
    for (int64_t a = 0; a < j1 - j0; a += SL__HALF_BLOCK) {
      const int64_t len = sl__half_block_len(j1 - j0, a);
      if (zero)
        for (int64_t q = 0; q < len; ++q) g[q] = 0.0f;
      else {
        sl__half_load_block(s->dt, gp + a * 2, g, len);
        for (int64_t q = 0; q < len; ++q) g[q] /= n;
      }
      sl__half_store_block(s->dt, g, out + a * 2, len);
    }
  }
}

/* amax/amin's counts of block o's targeted slices, columns [j0, j1):
 * (x == result), then each contribution equal to its target's result,
 * in index order. */
SL__ALWAYS_INLINE void sl__irb_count(sl_dtype dt, const sl__irb_shares *s,
                                     int64_t o, int64_t j0, int64_t j1) {
  const size_t es = sl__dtype_size(dt);
  const int64_t w = j1 - j0;
  if (dt == SL_F16 || dt == SL_BF16) {
    sl__irb_slices_half(s, o, j0, j1, 1);
    sl__irb_count_half(s, o, j0, j1);
    return;
  }
  double *count = s->count + o * s->nu * s->inner + j0;
  for (int64_t k = 0; k < s->nu; ++k) {
    const char *x = sl__irb_slice(s->x, s, es, o, s->n, s->u[k], j0);
    const char *res = sl__irb_slice(s->res, s, es, o, s->n, s->u[k], j0);
    double *c = count + k * s->inner;
    for (int64_t j = 0; j < w; ++j)
      c[j] = sl__load_f(dt, x + j * es) == sl__load_f(dt, res + j * es);
  }
  for (int64_t i = 0; i < s->m; ++i) {
    const int64_t k = s->slot[i];
    const char *src = sl__irb_slice(s->src, s, es, o, s->m, i, j0);
    const char *res = sl__irb_slice(s->res, s, es, o, s->n, s->u[k], j0);
    double *c = count + k * s->inner;
    for (int64_t j = 0; j < w; ++j)
      c[j] = sl__count_add(
          dt, c[j],
          sl__load_f(dt, src + j * es) == sl__load_f(dt, res + j * es) ? 1.0
                                                                       : 0.0);
  }
}

/* gradient share g / n, times hit for amax/amin (their counts' formula). */
SL__ALWAYS_INLINE double sl__irb_share(sl_dtype dt, int mean, double g,
                                       double n, int hit) {
  return mean ? g / n
              : (hit ? 1.0 : 0.0) * sl__round_to(sl__acc_dtype(dt), g / n);
}

/* Block o's targeted slices of grad_x (zeros without self) and its
 * grad_updates, columns [j0, j1). */
SL__ALWAYS_INLINE void sl__irb_targeted(sl_dtype dt, const sl__irb_shares *s,
                                        int64_t o, int64_t j0, int64_t j1) {
  const size_t es = sl__dtype_size(dt);
  const int mean = s->reduce == SL_REDUCE_MEAN, self = s->self;
  const int64_t w = j1 - j0;
  if (dt == SL_F16 || dt == SL_BF16) {
    if (mean) {
      sl__irb_mean_half(s, o, j0, j1);
      return;
    }
    sl__irb_slices_half(s, o, j0, j1, 0);
    sl__irb_shares_half(s, o, j0, j1);
    return;
  }
  /* mean has no counts per element (s->count NULL) */
  const double *count = mean ? NULL : s->count + o * s->nu * s->inner + j0;
  for (int64_t k = 0; k < s->nu; ++k) {
    const int64_t t = s->u[k];
    const char *g = sl__irb_slice(s->g, s, es, o, s->n, t, j0);
    const char *x = sl__irb_slice(s->x, s, es, o, s->n, t, j0);
    const char *res = sl__irb_slice(s->res, s, es, o, s->n, t, j0);
    char *gx = sl__irb_slice(s->gx, s, es, o, s->n, t, j0);
    const double *c = mean ? NULL : count + k * s->inner, mean_n = s->mean_n[k];
    for (int64_t j = 0; j < w; ++j)
      sl__store_f(dt, gx + j * es,
                  !self ? 0.0
                        : sl__irb_share(dt, mean, sl__load_f(dt, g + j * es),
                                        mean ? mean_n : c[j],
                                        sl__load_f(dt, x + j * es) ==
                                            sl__load_f(dt, res + j * es)));
  }
  for (int64_t i = 0; i < s->m; ++i) {
    const int64_t k = s->slot[i], t = s->u[k];
    const char *g = sl__irb_slice(s->g, s, es, o, s->n, t, j0);
    const char *src = sl__irb_slice(s->src, s, es, o, s->m, i, j0);
    const char *res = sl__irb_slice(s->res, s, es, o, s->n, t, j0);
    char *gs = sl__irb_slice(s->gs, s, es, o, s->m, i, j0);
    const double *c = mean ? NULL : count + k * s->inner, mean_n = s->mean_n[k];
    for (int64_t j = 0; j < w; ++j)
      sl__store_f(dt, gs + j * es,
                  sl__irb_share(dt, mean, sl__load_f(dt, g + j * es),
                                mean ? mean_n : c[j],
                                sl__load_f(dt, src + j * es) ==
                                    sl__load_f(dt, res + j * es)));
  }
}

SL__ALWAYS_INLINE void sl__irb_shares_as(sl_dtype dt, const sl__irb_shares *s,
                                         int64_t o0, int64_t o1, int64_t j0,
                                         int64_t j1) {
  /* whole blocks are one run of elements; a share of columns is a run a
   * slice */
  const int64_t n = s->n, inner = s->inner, w = j1 - j0;
  if (w == inner)
    sl__irb_untargeted_run(dt, s, o0 * n * inner, (o1 - o0) * n * inner);
  else
    for (int64_t o = o0; o < o1; ++o)
      for (int64_t t = 0; t < n; ++t)
        sl__irb_untargeted_run(dt, s, (o * n + t) * inner + j0, w);
  if (s->nu == 0) return; /* an empty index: no targets, no count buffer */
  for (int64_t o = o0; o < o1; ++o) {
    if (s->reduce != SL_REDUCE_MEAN) sl__irb_count(dt, s, o, j0, j1);
    sl__irb_targeted(dt, s, o, j0, j1);
  }
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

/* u: the distinct targets sorted (nu of them); slot[i]: contribution i's
 * place in u; mean_n: mean's count per target, added in index order as
 * the line walk adds it, a zero made 1. */
static void sl__irb_targets(const sl_call *c, sl__irb_shares *s, int64_t *u,
                            int64_t *slot, double *mean_n) {
  const sl_tensor *index = &c->arg[2];
  const int64_t istep = index->ndim ? index->strides[0] : 0;
  for (int64_t i = 0; i < s->m; ++i) u[i] = sl__load_index(index, i * istep);
  s->nu = sl__rb_distinct(u, s->m);
  for (int64_t k = 0; k < s->nu; ++k) mean_n[k] = s->self ? 1.0 : 0.0;
  for (int64_t i = 0; i < s->m; ++i) {
    const int64_t t = sl__load_index(index, i * istep);
    slot[i] = sl__rb_slot(u, s->nu, t);
    mean_n[slot[i]] = sl__count_add(s->dt, mean_n[slot[i]], 1.0);
  }
  for (int64_t k = 0; k < s->nu; ++k)
    if (mean_n[k] == 0.0) mean_n[k] = 1.0; /* N.masked_fill_(N == 0, 1) */
}

/* Whether the call qualifies, and its geometry. */
static int sl__irb_shares_of(const sl_call *c, sl__irb_shares *s) {
  const sl_tensor *g = &c->arg[0];
  const sl_reduce r = c->p.reduce;
  if (r != SL_REDUCE_MEAN && r != SL_REDUCE_AMAX && r != SL_REDUCE_AMIN)
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
  /* u, slot and mean_n: m each; then amax/amin's counts, nu per position
   * (sized by the distinct targets: a buffer sized by m, 24 MB for 104
   * updates of 170x170 into 10 targets, was mapped afresh per call). */
  int64_t *u = sl__malloc((size_t)(3 * s->m) * sizeof(int64_t) + 1);
  double *count = NULL;
  int64_t counts = 0;
  if (u) {
    sl__irb_targets(c, s, u, u + s->m, (double *)(u + 2 * s->m));
    counts = s->reduce == SL_REDUCE_MEAN ? 0 : s->outer * s->nu * s->inner;
    count = counts ? sl__malloc((size_t)counts * sizeof *count) : NULL;
  }
  if (!u || (counts && !count)) {
    sl__free(u);
    *status = sl_ctx_fail(ctx, SL_STATUS_OUT_OF_MEMORY,
                          "index_reduce_backward: no memory for %lld targets' "
                          "counts",
                          (long long)(3 * s->m + counts));
    return;
  }
  s->u = u, s->slot = u + s->m, s->mean_n = (double *)(u + 2 * s->m);
  s->count = count;
  sl__for_blocks(threads, s->outer, s->inner,
                 s->outer * (s->n + s->m) * s->inner, sl__irb_shares_range, s);
  sl__free(count);
  sl__free(u);
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
