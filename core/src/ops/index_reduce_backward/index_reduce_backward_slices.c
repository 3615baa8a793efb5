/*
 * index_reduce_backward of sum and assign by slices. Their gradients are
 * copies (reduce.h above sl__rbline): grad_x is grad_out with some targeted
 * slices zeroed, and grad_updates is index_select of grad_out. The line
 * walk (reduce_backward.c) takes a line at a time along dim; when dim is
 * not the last axis its every position is a row away from the last, a
 * cache line fetched per element and a stride that defeats the
 * prefetcher. Here each (block, index) pair copies one slice of adjacent
 * elements, as LibTorch's index_select does.
 */
#include "index_reduce_backward_slices.h"

#include <string.h>

#include "reduce.h"
#include "reduce_rows.h"
#include "walk.h"

/* The geometry: `outer` blocks; in each, grad_out's and grad_x's n slices
 * and grad_updates' m, of `inner` elements each. */
typedef struct sl__irb_slices {
  const char *g;
  char *gx, *gs;
  const sl_tensor *index;
  const int64_t *targets; /* index's values, read once */
  int64_t istep, outer, n, m, inner;
  size_t es;
  int zero_targets;
} sl__irb_slices;

/* Slices narrower than a cache line: a typed loop per contribution over
 * the blocks, instead of a copy call per element or two. A block of a few
 * elements in all (m x columns at most SL__IRB_FEW) goes element by
 * element along the blocks instead, a strided copy the compiler unrolls:
 * the loops per block cost more than their one element (f16 assign of a
 * scalar index into 3M blocks of one element: 0.36x LibTorch). */
enum { SL__IRB_FEW = 8 };
typedef void (*sl__irb_narrow_fn)(const sl__irb_slices *s, int64_t o0,
                                  int64_t o1, int64_t j0, int64_t j1);
#define SL__IRB_NARROW_FN(size, T)                                             \
  static void sl__irb_narrow_##size(const sl__irb_slices *s, int64_t o0,       \
                                    int64_t o1, int64_t j0, int64_t j1) {      \
    const T *g = (const T *)s->g;                                              \
    T *gx = (T *)s->gx, *gs = (T *)s->gs;                                      \
    const int64_t n = s->n, m = s->m, inner = s->inner;                        \
    if (m * (j1 - j0) <= SL__IRB_FEW) {                                        \
      for (int64_t i = 0; i < m; ++i)                                          \
        for (int64_t j = j0; j < j1; ++j) {                                    \
          const T *from = g + s->targets[i] * inner + j;                       \
          T *to = gs + i * inner + j;                                          \
          for (int64_t o = o0; o < o1; ++o)                                    \
            to[o * m * inner] = from[o * n * inner];                           \
          if (!s->zero_targets) continue;                                      \
          T *zero = gx + s->targets[i] * inner + j;                            \
          for (int64_t o = o0; o < o1; ++o)                                    \
            memset(&zero[o * n * inner], 0, size);                             \
        }                                                                      \
      return;                                                                  \
    }                                                                          \
    if (inner == 1 && !s->zero_targets) { /* a gather: no loop a slice */      \
      for (int64_t o = o0; o < o1; ++o)                                        \
        for (int64_t i = 0; i < m; ++i)                                        \
          gs[o * m + i] = g[o * n + s->targets[i]];                            \
      return;                                                                  \
    }                                                                          \
    for (int64_t o = o0; o < o1; ++o)                                          \
      for (int64_t i = 0; i < m; ++i) {                                        \
        const int64_t t = s->targets[i];                                       \
        const int64_t from = (o * n + t) * inner, to = (o * m + i) * inner;    \
        for (int64_t j = j0; j < j1; ++j) gs[to + j] = g[from + j];            \
        if (s->zero_targets)                                                   \
          for (int64_t j = j0; j < j1; ++j) memset(&gx[from + j], 0, size);    \
      }                                                                        \
  }
SL__ELEM_TYPES(SL__IRB_NARROW_FN)
#define SL__IRB_NARROW_ENTRY(size, T) sl__irb_narrow_##size,
static const sl__irb_narrow_fn sl__irb_narrows[] = {
    SL__ELEM_TYPES(SL__IRB_NARROW_ENTRY)};

/* Columns [j0, j1) of blocks [o0, o1). grad_x was copied before: the
 * zeroing writes over it, the same zeros for a duplicate. */
static void sl__irb_slices_range(const void *user, int64_t o0, int64_t o1,
                                 int64_t j0, int64_t j1) {
  const sl__irb_slices *s = user;
  const size_t es = s->es, bytes = (size_t)(j1 - j0) * es;
  if (bytes < 64) {
    sl__irb_narrows[sl__elem_class(es)](s, o0, o1, j0, j1);
    return;
  }
  for (int64_t o = o0; o < o1; ++o)
    for (int64_t i = 0; i < s->m; ++i) {
      const int64_t t = s->targets[i];
      const int64_t from = (o * s->n + t) * s->inner + j0;
      memcpy(s->gs + (size_t)((o * s->m + i) * s->inner + j0) * es,
             s->g + (size_t)from * es, bytes);
      if (s->zero_targets) memset(s->gx + (size_t)from * es, 0, bytes);
    }
}

void sl__irb_blocks(const sl_tensor *g, int dim, int64_t *outer,
                    int64_t *inner) {
  *outer = *inner = 1;
  for (int d = 0; d < g->ndim; ++d)
    if (d < dim)
      *outer *= g->shape[d];
    else if (d > dim)
      *inner *= g->shape[d];
}

/* Whether the call qualifies, and its geometry. */
static int sl__irb_slices_of(const sl_call *c, sl__irb_slices *s) {
  const sl_tensor *g = &c->arg[0], *index = &c->arg[2];
  const sl_reduce r = c->p.reduce;
  if ((r != SL_REDUCE_SUM && r != SL_REDUCE_ASSIGN) ||
      !sl_tensor_is_contiguous(g) || !sl_tensor_is_contiguous(&c->arg[5]) ||
      !sl_tensor_is_contiguous(&c->arg[6]))
    return 0;
  const int dim = (int)c->p.dim;
  int64_t outer, inner;
  sl__irb_blocks(g, dim, &outer, &inner);
  *s = (sl__irb_slices){
      .g = g->data,
      .gx = c->arg[5].data,
      .gs = c->arg[6].data,
      .index = index,
      .istep = index->ndim ? index->strides[0] : 0,
      .outer = outer,
      .n = g->ndim ? g->shape[dim] : 1,
      .m = sl__numel(index),
      .inner = inner,
      .es = sl_dtype_size(g->dtype),
      /* assign overwrites x whatever include_self says (index_copy) */
      .zero_targets = !c->p.include_self || r == SL_REDUCE_ASSIGN};
  return 1;
}

/* grad_x := grad_out with the targeted slices zeroed, in one pass
 * (sl__copy_identity_slices), rather than a copy and then the zeros a
 * contribution at a time; zero_targets then cleared. 0 where that pass
 * does not take the layout, having done nothing. */
static int sl__irb_zero_targets(const sl_call *c, sl__irb_slices *s,
                                int threads) {
  static const unsigned char zero[16] = {0};
  const int dim = (int)c->p.dim;
  if (!s->zero_targets ||
      !sl__copy_identity_slices(&c->arg[0], &c->arg[5], dim, s->index, s->m,
                                s->istep, zero, threads))
    return 0;
  s->zero_targets = 0;
  return 1;
}

/* Contributions [i0, i1) of the one block (an sl__for_units unit each):
 * their slices of grad_updates, grad_x done before. One block of narrow
 * slices is one call of sl__irb_slices_range, which sl__for_blocks gave
 * one thread (a 1-D x: every contribution on one thread). */
static void sl__irb_contributions(void *user, int64_t i0, int64_t i1) {
  sl__irb_slices part = *(const sl__irb_slices *)user;
  part.targets += i0;
  part.gs += (size_t)(i0 * part.inner) * part.es;
  part.m = i1 - i0;
  sl__irb_slices_range(&part, 0, 1, 0, part.inner);
}

/* targets[i] = index[i] for i in [i0, i1) (an sl__for_chunks chunk). */
typedef struct sl__irb_read {
  const sl__irb_slices *s;
  int64_t *targets;
} sl__irb_read;

static void sl__irb_read_targets(void *user, int64_t i0, int64_t i1) {
  const sl__irb_read *r = user;
  for (int64_t i = i0; i < i1; ++i)
    r->targets[i] = sl__load_index(r->s->index, i * r->s->istep);
}

int sl__index_backward_slices(sl_call *c, int threads) {
  sl__irb_slices s;
  if (!sl__irb_slices_of(c, &s)) return 0;
  /* without memory for the targets, the line walk (which needs none) */
  int64_t *targets = sl__malloc((size_t)s.m * sizeof *targets + 1);
  if (!targets) return 0;
  sl__irb_read job = {&s, targets};
  sl__for_chunks(threads, s.m, sl__irb_read_targets, &job);
  s.targets = targets;
  if (!sl__irb_zero_targets(c, &s, threads))
    sl__copy_strided(&c->arg[5], &c->arg[0], threads);
  const int64_t work = s.outer * s.m * s.inner;
  if (s.m > 0 && s.outer == 1 && !s.zero_targets && s.inner < 64 * threads)
    sl__for_units(threads, work, s.m, sl__irb_contributions, &s);
  else if (s.m > 0 && s.outer > 0)
    sl__for_blocks(threads, s.outer, s.inner, work, sl__irb_slices_range, &s);
  sl__free(targets);
  return 1;
}
