/*
 * include_self=false's start of out when the index varies along dim only
 * (index_reduce's broadcast view): out := x over the slices along dim
 * that no index value names, the identity over those it names, in one
 * pass over out (reduce_rows.h). The copy of x and then a fill of the
 * named slices took out through the caches twice, the fill a slice at a
 * time: with dim the last axis each slice is one element a row of out,
 * and each slice's pass touched every line of out again.
 */
#include "reduce_rows.h"

#include <string.h>

#include "walk.h"

typedef struct sl__ci {
  const uint8_t *named; /* named[t]: some index value is t */
  const char *x;
  char *out;
  const void *identity;
  int64_t n, inner; /* out as [outer, n, inner], n along dim */
} sl__ci;

/* Blocks ([n, inner] of out) of fewer elements than this go by a mask
 * per element of the block (one copy or fill where the block is all x or
 * all identity): the loop below costs a division and a loop set-up a
 * block, which a dim of extent 1 pays on every element. */
enum { SL__CI_SHORT_BLOCK = 64 };

/* Slices [s0, s1) of out (an sl__for_units unit each), outer * n in all;
 * sl__ci_short_ for short blocks. */
#define SL__CI_FN(bytes, T)                                                    \
  static void sl__ci_short_##bytes(const sl__ci *c, T id, int64_t s0,          \
                                   int64_t s1) {                               \
    const int64_t block = c->n * c->inner, end = s1 * c->inner;                \
    T keep[SL__CI_SHORT_BLOCK]; /* all ones: x's element; 0: the identity */   \
    int64_t kept = 0;                                                          \
    for (int64_t k = 0; k < block; ++k) {                                      \
      keep[k] = (T)((T)c->named[k / c->inner] - 1u);                           \
      kept += keep[k] != 0;                                                    \
    }                                                                          \
    const T *x = (const T *)(const void *)c->x;                                \
    T *out = (T *)(void *)c->out;                                              \
    int64_t e = s0 * c->inner;                                                 \
    if (kept == block)                                                         \
      memcpy(out + e, x + e, (size_t)(end - e) * sizeof(T));                   \
    else if (!kept)                                                            \
      for (; e < end; ++e) out[e] = id;                                        \
    else                                                                       \
      for (int64_t k = s0 % c->n * c->inner; e < end; ++e) {                   \
        out[e] = (T)((x[e] & keep[k]) | (id & (T)~keep[k]));                   \
        if (++k == block) k = 0;                                               \
      }                                                                        \
  }                                                                            \
  static void sl__ci_##bytes(void *user, int64_t s0, int64_t s1) {             \
    const sl__ci *c = user;                                                    \
    T id; /* the caller's bytes: no alignment promised */                      \
    memcpy(&id, c->identity, sizeof id);                                       \
    if (c->n * c->inner < SL__CI_SHORT_BLOCK) {                                \
      sl__ci_short_##bytes(c, id, s0, s1);                                     \
      return;                                                                  \
    }                                                                          \
    for (int64_t s = s0, t0, t1; s < s1; s += t1 - t0) {                       \
      t0 = s % c->n;                                                           \
      t1 = c->n - t0 < s1 - s ? c->n : t0 + (s1 - s);                          \
      const int64_t at = (s - t0) * c->inner;                                  \
      const T *x = (const T *)(const void *)c->x + at;                         \
      T *out = (T *)(void *)c->out + at;                                       \
      if (c->inner == 1) /* masks a lane: a branch mispredicts */              \
        for (int64_t t = t0; t < t1; ++t) {                                    \
          const T keep = (T)((T)c->named[t] - 1u);                             \
          out[t] = (T)((x[t] & keep) | (id & (T)~keep));                       \
        }                                                                      \
      else                                                                     \
        for (int64_t t = t0; t < t1; ++t)                                      \
          for (int64_t j = t * c->inner; j < (t + 1) * c->inner; ++j)          \
            out[j] = c->named[t] ? id : x[j];                                  \
    }                                                                          \
  }
SL__CI_FN(2, uint16_t)
SL__CI_FN(4, uint32_t)
SL__CI_FN(8, uint64_t)
#undef SL__CI_FN

/* Targets up to this many are marked by a team, each thread in a table
 * of its own, the tables then merged. More, and one thread marks them
 * all: the tables and their merge would cost more than the index (a
 * million index values into a million targets). */
enum { SL__CI_TEAM_TARGETS = 4096 };

/* parts tables of n marks, table u for the u-th of parts chunks of the
 * m index values along dim. */
typedef struct sl__ci_marks {
  const sl_tensor *index;
  int64_t step, m, n;
  int64_t stride; /* bytes from one table to the next */
  int parts;
  uint8_t *tables;
} sl__ci_marks;

/* Chunks [u0, u1) marked (an sl__for_units unit each). */
static void sl__ci_mark(void *user, int64_t u0, int64_t u1) {
  const sl__ci_marks *k = user;
  /* locals: a byte store may alias k's fields, reloaded every step */
  const sl_tensor index = *k->index;
  const int64_t step = k->step;
  for (int64_t u = u0; u < u1; ++u) {
    uint8_t *table = k->tables + u * k->stride;
    int64_t b, e;
    sl__chunk(k->m, k->parts, (int)u, &b, &e);
    for (int64_t i = b; i < e; ++i) table[sl__load_index(&index, i * step)] = 1;
  }
}

/* The n marks of the index's m values along dim, table 0 of k (room for
 * k->parts tables, zeroed) holding them all at the end. */
static void sl__ci_mark_all(sl__ci_marks *k, int threads) {
  sl__for_units(threads, k->m, k->parts, sl__ci_mark, k);
  for (int u = 1; u < k->parts; ++u)
    for (int64_t t = 0; t < k->n; ++t)
      k->tables[t] |= k->tables[u * k->stride + t];
}

typedef void (*sl__ci_fn)(void *user, int64_t s0, int64_t s1);

static sl__ci_fn sl__ci_for(size_t es) {
  return es == 2 ? sl__ci_2 : es == 4 ? sl__ci_4 : es == 8 ? sl__ci_8 : NULL;
}

/* x and out contiguous, of one shape and dtype. */
static int sl__ci_layouts(const sl_tensor *x, const sl_tensor *out) {
  if (x->dtype != out->dtype || x->ndim != out->ndim ||
      !sl_tensor_is_contiguous(x) || !sl_tensor_is_contiguous(out))
    return 0;
  for (int d = 0; d < out->ndim; ++d)
    if (x->shape[d] != out->shape[d]) return 0;
  return 1;
}

int sl__copy_identity_slices(const sl_tensor *x, const sl_tensor *out, int dim,
                             const sl_tensor *index, int64_t m, int64_t step,
                             const void *identity, int threads) {
  const sl__ci_fn fn = sl__ci_for(sl_dtype_size(out->dtype));
  if (!fn || dim < 0 || dim >= out->ndim || !sl__ci_layouts(x, out)) return 0;
  sl__ci ci = {.x = x->data, .out = out->data, .identity = identity};
  ci.n = out->shape[dim];
  ci.inner = 1;
  for (int d = dim + 1; d < out->ndim; ++d) ci.inner *= out->shape[d];
  const int64_t numel = sl__numel(out);
  if (numel == 0) return 1;
  sl__ci_marks marks = {index, step, m, ci.n, 0, 1, NULL};
  if (ci.n <= SL__CI_TEAM_TARGETS && threads > 1) marks.parts = threads;
  /* a pair of lines apart: the L2 fetches lines in pairs */
  marks.stride = (ci.n + 127) / 128 * 128 + 128;
  uint8_t *named = sl__calloc((size_t)(marks.parts * marks.stride), 1);
  if (!named) return 0;
  marks.tables = named;
  sl__ci_mark_all(&marks, threads);
  ci.named = named;
  sl__for_units(threads, numel, numel / ci.inner, fn, &ci);
  sl__free(named);
  return 1;
}

/* The index's positions reach all of out off dim: a scatter_reduce index
 * may cover part of it (the rest keeps x). */
static int sl__ci_covers(const sl_tensor *index, const sl_tensor *out,
                         int dim) {
  for (int d = 0; d < out->ndim; ++d)
    if (d != dim && index->shape[d] != out->shape[d]) return 0;
  return 1;
}

int sl__copy_identity_targets(const sl_call *c, const void *identity,
                              int threads) {
  const sl_tensor *index = &c->arg[1];
  const int dim = (int)c->p.dim;
  if (!sl__index_along_dim_only(index, &c->arg[3], dim) ||
      !sl__ci_covers(index, &c->arg[3], dim))
    return 0;
  /* no position (an index like [6, 0]): no value to read, nothing named */
  const int64_t m = sl__numel(index) ? index->shape[dim] : 0;
  return sl__copy_identity_slices(&c->arg[0], &c->arg[3], dim, index, m,
                                  index->strides[dim], identity, threads);
}
