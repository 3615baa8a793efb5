/*
 * index_reduce assign (index_copy), amax and amin by slices. With out
 * contiguous, the slice at position t along dim is, in each of `outer`
 * blocks, `inner` adjacent elements; updates' axes before dim and after it each
 * collapse to one axis (any strides, broadcast included). One copy per (block,
 * index) pair then replaces a line walk per element: the line walk pays an
 * index pass per line, so an x whose dim has extent 1 (one line per
 * element) ran an order of magnitude slower than LibTorch's index_copy
 * (docs/notes/benchmarks-2026.md).
 *
 * Threads split the outer blocks when there are enough of them, else the
 * inner columns: either way every element is written by one thread, in
 * index order, so the last duplicate wins as it does serially.
 */
#include "index_reduce_slices.h"

#include <string.h>

#include "reduce.h"
#include "walk.h"

/* Copies columns [j0, j1) of every slice of blocks [o0, o1) with memcpy:
 * updates' columns adjacent (sj == 1). */
static void sl__copy_rows(const sl__slices *s, int64_t o0, int64_t o1,
                          int64_t j0, int64_t j1) {
  const size_t es = s->es, bytes = (size_t)(j1 - j0) * es;
  for (int64_t o = o0; o < o1; ++o) {
    char *ob = s->out + (size_t)((o * s->n * s->inner + j0) * (int64_t)es);
    for (int64_t i = 0; i < s->m; ++i) {
      const int64_t t = sl__load_index(s->index, i * s->istep);
      memcpy(ob + (size_t)(t * s->inner) * es,
             s->upd + (size_t)((o * s->so + i * s->si + j0) * (int64_t)es),
             bytes);
    }
  }
}

/* The same with typed stores, for any column stride (broadcast updates,
 * single elements): element sizes 1, 2, 4, 8. The index is the outer loop,
 * so that a narrow slice (an x whose dim has extent 1: one element a
 * block) runs as one strided loop over the blocks per index value; each
 * element still sees the index in order. */
#define SL__ELEM_MAP(X)                                                        \
  X(1, uint8_t)                                                                \
  X(2, uint16_t)                                                               \
  X(4, uint32_t)                                                               \
  X(8, uint64_t)

#define SL__ELEM_FN(bytes, T)                                                  \
  static void sl__elems_##bytes(const sl__slices *s, int64_t o0, int64_t o1,   \
                                int64_t j0, int64_t j1) {                      \
    const int64_t block = s->n * s->inner;                                     \
    if (o1 - o0 == 1 && j1 - j0 == 1) { /* one element a slice */              \
      T *dst = (T *)(void *)s->out + o0 * block + j0;                          \
      const T *src =                                                           \
          (const T *)(const void *)s->upd + o0 * s->so + j0 * s->sj;           \
      for (int64_t i = 0; i < s->m; ++i)                                       \
        dst[sl__load_index(s->index, i * s->istep) * s->inner] =               \
            src[i * s->si];                                                    \
      return;                                                                  \
    }                                                                          \
    for (int64_t i = 0; i < s->m; ++i) {                                       \
      T *dst = (T *)(void *)s->out +                                           \
               sl__load_index(s->index, i * s->istep) * s->inner;              \
      const T *src = (const T *)(const void *)s->upd + i * s->si;              \
      for (int64_t o = o0; o < o1; ++o)                                        \
        for (int64_t j = j0; j < j1; ++j)                                      \
          dst[o * block + j] = src[o * s->so + j * s->sj];                     \
    }                                                                          \
  }
SL__ELEM_MAP(SL__ELEM_FN)
#undef SL__ELEM_FN

/* Whether acc ⊕ v is v for amax or amin (reduce_ops.h's rules: a NaN v
 * wins, a NaN accumulator stays, a tie keeps the accumulator), and the
 * caller copies v's bits. Storing the combined value instead converted
 * every element back from double, for a result that is one of the two
 * elements; f32 compares as float, the halves by their bits, without a
 * branch (the combine's branches mispredicted on random updates: bf16
 * amin into 1x1811466x1x1 ran at 0.60x LibTorch). */
SL__ALWAYS_INLINE int sl__select_takes(sl_dtype dt, sl_reduce r,
                                       const char *acc, const char *v) {
  if (sl__reduce_is_int(dt))
    return sl__takes_i64(r, sl__load_i(dt, acc), sl__load_i(dt, v));
  if (dt == SL_F64)
    return sl__takes_f64(r, sl__load_f(dt, acc), sl__load_f(dt, v));
  if (dt == SL_F32)
    return sl__takes_f32(r, *(const float *)acc, *(const float *)v);
  uint16_t a, b;
  memcpy(&a, acc, 2);
  memcpy(&b, v, 2);
  return sl__takes_half(r, dt == SL_BF16, a, b);
}

/* What sl__select_slice stores: the identity, the combine's winner, or the
 * update itself (a target's first contribution without include_self:
 * identity ⊕ v is v, bit for bit, for amax and amin). */
enum { SL__SEL_IDENTITY, SL__SEL_COMBINE, SL__SEL_COPY };

/* The combine of n adjacent elements with n adjacent updates, typed: the
 * byte-wise loop below does not vectorize, and a contiguous row of f16
 * amin ran at 0.16x LibTorch (docs/notes/benchmarks-2026.md). Each
 * dtype's C type and its rule (sl__select_takes's). */
#define SL__TAKES_INT(r, a, b) ((r) == SL_REDUCE_AMIN ? (b) < (a) : (a) < (b))
#define SL__TAKES_F16(r, a, b) sl__takes_half(r, 0, a, b)
#define SL__TAKES_BF16(r, a, b) sl__takes_half(r, 1, a, b)
#define SL__SELECT_TYPES(X)                                                    \
  X(U8, uint8_t, SL__TAKES_INT)                                                \
  X(I8, int8_t, SL__TAKES_INT)                                                 \
  X(I16, int16_t, SL__TAKES_INT)                                               \
  X(I32, int32_t, SL__TAKES_INT)                                               \
  X(I64, int64_t, SL__TAKES_INT)                                               \
  X(F16, uint16_t, SL__TAKES_F16)                                              \
  X(BF16, uint16_t, SL__TAKES_BF16)                                            \
  X(F32, float, sl__takes_f32)                                                 \
  X(F64, double, sl__takes_f64)

#define SL__SELECT_ROW_FN(DT, T, TAKES)                                        \
  SL__ALWAYS_INLINE void sl__select_row_##DT(sl_reduce r, T *acc, const T *v,  \
                                             int64_t n) {                      \
    for (int64_t j = 0; j < n; ++j) {                                          \
      const T kept = acc[j], offered = v[j];                                   \
      acc[j] = TAKES(r, kept, offered) ? offered : kept;                       \
    }                                                                          \
  }
SL__SELECT_TYPES(SL__SELECT_ROW_FN)
#undef SL__SELECT_ROW_FN

/* The same with n elements `as` apart and their updates `vs` apart: the
 * columns of slices one element wide (an x whose dim is its last axis),
 * and a broadcast update (vs 0), which the byte-wise loop took one element
 * at a time (f16 amin of one update broadcast over 31216842 elements ran
 * at 0.29x LibTorch). Strides 1 and 0 get loops that vectorize. */
#define SL__SELECT_COLUMN_FN(DT, T, TAKES)                                     \
  SL__ALWAYS_INLINE void sl__select_column_##DT(                               \
      sl_reduce r, T *acc, int64_t as, const T *v, int64_t vs, int64_t n) {    \
    if (as == 1 && vs == 1) {                                                  \
      sl__select_row_##DT(r, acc, v, n);                                       \
    } else if (as == 1 && vs == 0) {                                           \
      const T offered = v[0];                                                  \
      for (int64_t j = 0; j < n; ++j) {                                        \
        const T kept = acc[j];                                                 \
        acc[j] = TAKES(r, kept, offered) ? offered : kept;                     \
      }                                                                        \
    } else {                                                                   \
      for (int64_t j = 0; j < n; ++j) {                                        \
        const T kept = acc[j * as], offered = v[j * vs];                       \
        acc[j * as] = TAKES(r, kept, offered) ? offered : kept;                \
      }                                                                        \
    }                                                                          \
  }
SL__SELECT_TYPES(SL__SELECT_COLUMN_FN)
#undef SL__SELECT_COLUMN_FN

/* sl__select_column_<dt> (dt a constant where inlined), strides in
 * elements. */
SL__ALWAYS_INLINE void sl__select_column(sl_dtype dt, sl_reduce r, char *acc,
                                         int64_t as, const char *v, int64_t vs,
                                         int64_t n) {
#define SL__SELECT_COLUMN_CASE(DT, T, TAKES)                                   \
  if (dt == SL_##DT)                                                           \
    sl__select_column_##DT(r, (T *)(void *)acc, as,                            \
                           (const T *)(const void *)v, vs, n);
  SL__SELECT_TYPES(SL__SELECT_COLUMN_CASE)
#undef SL__SELECT_COLUMN_CASE
}

/* Blocks [o0, o1) x columns [j0, j1) of the slice at `dst`, each element
 * given what `mode` says (its update at `src`); the store is
 * unconditional, so that the loop has no branch to mispredict on random
 * data. */
SL__ALWAYS_INLINE void sl__select_slice(sl_dtype dt, sl_reduce r, int mode,
                                        const sl__slices *s, char *dst,
                                        const char *src, const char *identity,
                                        int64_t o0, int64_t o1, int64_t j0,
                                        int64_t j1) {
  const int64_t block = s->n * s->inner, es = (int64_t)sl__dtype_size(dt);
  if (mode == SL__SEL_COMBINE && j1 - j0 == 1) {
    sl__select_column(dt, r, dst + (o0 * block + j0) * es, block,
                      src + (o0 * s->so + j0 * s->sj) * es, s->so, o1 - o0);
    return;
  }
  for (int64_t o = o0; o < o1; ++o) {
    char *row = dst + o * block * es;
    const char *vrow = src + o * s->so * es;
    if (mode == SL__SEL_COMBINE) {
      sl__select_column(dt, r, row + j0 * es, 1, vrow + j0 * s->sj * es, s->sj,
                        j1 - j0);
      continue;
    }
    for (int64_t j = j0; j < j1; ++j) {
      char *acc = row + j * es;
      const char *v =
          mode == SL__SEL_IDENTITY ? identity : vrow + j * s->sj * es;
      uint64_t kept = 0, offered = 0;
      memcpy(&kept, acc, (size_t)es);
      memcpy(&offered, v, (size_t)es);
      /* a mask, not an if: gcc made that a branch, random on random data */
      const uint64_t take = 0u - (uint64_t)(mode != SL__SEL_COMBINE ||
                                            sl__select_takes(dt, r, acc, v));
      kept = (offered & take) | (kept & ~take);
      memcpy(acc, &kept, (size_t)es);
    }
  }
}

/* The contributions in index order. Without include_self, a target's first
 * contribution is copied where first[] is known; else every targeted
 * element is set to the identity first, as the line walk does. dt and r are
 * constants in each instance below. */
SL__ALWAYS_INLINE void sl__select_as(sl_dtype dt, sl_reduce r,
                                     const sl__slices *s, int64_t o0,
                                     int64_t o1, int64_t j0, int64_t j1) {
  const int64_t es = (int64_t)sl__dtype_size(dt);
  char identity[8];
  sl__reduce_set_identity(dt, r, identity);
  const int fill = !s->include_self && !s->first;
  for (int pass = fill ? 0 : 1; pass < 2; ++pass)
    for (int64_t i = 0; i < s->m; ++i) {
      char *dst =
          s->out + sl__load_index(s->index, i * s->istep) * s->inner * es;
      const char *src = s->upd + i * s->si * es;
      if (!pass)
        sl__select_slice(dt, r, SL__SEL_IDENTITY, s, dst, src, identity, o0, o1,
                         j0, j1);
      else if (s->first && s->first[i])
        sl__select_slice(dt, r, SL__SEL_COPY, s, dst, src, identity, o0, o1, j0,
                         j1);
      else
        sl__select_slice(dt, r, SL__SEL_COMBINE, s, dst, src, identity, o0, o1,
                         j0, j1);
    }
}

typedef void (*sl__select_fn)(const sl__slices *s, int64_t o0, int64_t o1,
                              int64_t j0, int64_t j1);
/* One instance per dtype and reduce, both constants: the loads, the
 * combine's switch and its NaN tests fold into a loop of compares. */
#define SL__SELECT_FN(DT, T, TAKES)                                            \
  static void sl__select_##DT(const sl__slices *s, int64_t o0, int64_t o1,     \
                              int64_t j0, int64_t j1) {                        \
    if (s->reduce == SL_REDUCE_AMAX)                                           \
      sl__select_as(SL_##DT, SL_REDUCE_AMAX, s, o0, o1, j0, j1);               \
    else                                                                       \
      sl__select_as(SL_##DT, SL_REDUCE_AMIN, s, o0, o1, j0, j1);               \
  }
SL__SELECT_TYPES(SL__SELECT_FN)
#undef SL__SELECT_FN

/*
 * One element a slice (outer == inner == 1: a 1-D x, or extent 1 around
 * dim): each contribution is a random element of out, so the walk per
 * slice above costs tens of instructions for one compare. Here a tight
 * loop over the targets in [t0, t1) only (threads split the targets, each
 * reading the whole index), a target's first contribution known from the
 * bitset `seen` as it comes (without include_self; identity ⊕ v is v), not
 * from a pass of its own. bf16 amin of 1571538 updates into 2933242 ran at
 * 0.51x LibTorch by slices.
 */
#define SL__SELECT_AHEAD 32
#define SL__SELECT_ONE_LOOP(T, TAKES, R)                                       \
  for (int64_t i = 0; i < s->m; ++i) {                                         \
    if (i + SL__SELECT_AHEAD < s->m) {                                         \
      const int64_t ahead =                                                    \
          sl__load_index(s->index, (i + SL__SELECT_AHEAD) * s->istep);         \
      if (ahead >= t0 && ahead < t1) __builtin_prefetch(out + ahead, 1);       \
    }                                                                          \
    const int64_t t = sl__load_index(s->index, i * s->istep);                  \
    if (t < t0 || t >= t1) continue;                                           \
    const T v = upd[i * s->si], kept = out[t];                                 \
    int take = TAKES(R, kept, v);                                              \
    if (seen) {                                                                \
      const uint8_t bit = (uint8_t)(1u << (t & 7));                            \
      take |= !(seen[t >> 3] & bit);                                           \
      seen[t >> 3] |= bit;                                                     \
    }                                                                          \
    out[t] = take ? v : kept;                                                  \
  }
#define SL__SELECT_ONE_FN(DT, T, TAKES)                                        \
  static void sl__select_one_##DT(const sl__slices *s, int64_t t0, int64_t t1, \
                                  uint8_t *seen) {                             \
    T *out = (T *)(void *)s->out;                                              \
    const T *upd = (const T *)(const void *)s->upd;                            \
    if (s->reduce == SL_REDUCE_AMAX) {                                         \
      SL__SELECT_ONE_LOOP(T, TAKES, SL_REDUCE_AMAX)                            \
    } else {                                                                   \
      SL__SELECT_ONE_LOOP(T, TAKES, SL_REDUCE_AMIN)                            \
    }                                                                          \
  }
SL__SELECT_TYPES(SL__SELECT_ONE_FN)
#undef SL__SELECT_ONE_FN
#undef SL__SELECT_ONE_LOOP

typedef void (*sl__select_one_fn)(const sl__slices *s, int64_t t0, int64_t t1,
                                  uint8_t *seen);

/* The instances of one dtype: by slices, and one element a slice. */
typedef struct sl__select_impl {
  sl_dtype dt;
  sl__select_fn slices;
  sl__select_one_fn one;
} sl__select_impl;

/* dt's row; NULL for a dtype amax/amin does not take. */
static const sl__select_impl *sl__select_of(sl_dtype dt) {
  static const sl__select_impl table[] = {
#define SL__SELECT_ROW(DT, T, TAKES)                                           \
  {SL_##DT, sl__select_##DT, sl__select_one_##DT},
      SL__SELECT_TYPES(SL__SELECT_ROW)
#undef SL__SELECT_ROW
  };
  for (size_t i = 0; i < sizeof table / sizeof table[0]; ++i)
    if (table[i].dt == dt) return &table[i];
  return NULL;
}

/* Runs s by sl__select_one_<dt> on a team splitting the targets at
 * multiples of 64 (no byte of `seen` shared). Returns 0 having done
 * nothing when s is not one element a slice or `seen` finds no memory. */
static int sl__select_one(const sl__slices *s, int threads) {
  const sl__select_impl *row = sl__select_of(s->dt);
  const sl__select_one_fn fn = row ? row->one : NULL;
  if (!fn || s->reduce == SL_REDUCE_ASSIGN || s->outer != 1 || s->inner != 1)
    return 0;
  uint8_t *seen = NULL;
  if (!s->include_self && !(seen = sl__calloc((size_t)(s->n + 7) / 8, 1)))
    return 0;
  const int64_t units = (s->n + 63) / 64;
  /* Inside the L3 a second thread, reading the whole index too, only
   * slowed it (bf16 amin into 2933242: 15.6 -> 26.1 ms); beyond it two
   * threads keep twice the misses in flight (20000000: 352 -> 227 ms). */
  const int team =
      (int64_t)s->es * s->n >= SL__TH_SELECT_TEAM ? sl__team(threads, s->m) : 1;
#pragma omp parallel for num_threads(team) schedule(static) if (team > 1)
  for (int k = 0; k < team; ++k) {
    int64_t u0, u1;
    sl__chunk(units, team, k, &u0, &u1);
    fn(s, u0 * 64, u1 * 64 < s->n ? u1 * 64 : s->n, seen);
  }
  sl__free(seen);
  return 1;
}

/* Columns [j0, j1) of blocks [o0, o1) within one run (sl__slices_run), by
 * the cheapest way. */
static void sl__run_range(const sl__slices *s, int64_t o0, int64_t o1,
                          int64_t j0, int64_t j1) {
  if (s->reduce != SL_REDUCE_ASSIGN) {
    sl__select_of(s->dt)->slices(s, o0, o1, j0, j1);
    return;
  }
  if (s->sj == 1 && (j1 - j0) * (int64_t)s->es >= 64) {
    sl__copy_rows(s, o0, o1, j0, j1);
    return;
  }
#define SL__ELEM_CASE(bytes, T)                                                \
  if (s->es == bytes) {                                                        \
    sl__elems_##bytes(s, o0, o1, j0, j1);                                      \
    return;                                                                    \
  }
  SL__ELEM_MAP(SL__ELEM_CASE)
#undef SL__ELEM_CASE
  sl__copy_rows(s, o0, o1, j0, j1); /* 16-byte elements: sj == 1 checked */
}

/* Columns [j0, j1) of blocks [o0, o1), a run at a time (an sl__blocks_fn
 * over an sl__slices). */
static void sl__range(const void *user, int64_t o0, int64_t o1, int64_t j0,
                      int64_t j1) {
  sl__slices run;
  for (int64_t j = j0, len; j < j1; j += len) {
    len = sl__slices_run(user, j, j1, &run);
    sl__run_range(&run, o0, o1, 0, len);
  }
}

int64_t sl__slices_run(const sl__slices *s, int64_t j, int64_t j1,
                       sl__slices *run) {
  const int64_t row = j / s->cols, col = j % s->cols;
  const int64_t len = s->cols - col < j1 - j ? s->cols - col : j1 - j;
  *run = *s;
  run->out += j * (int64_t)s->es;
  run->upd += (row * s->sr + col * s->sj) * (int64_t)s->es;
  return len;
}

/* Axes [a, b) of t as at most `most` groups, each one extent at one
 * stride, innermost first: extent[g] and stride[g] (elements; extent-1
 * axes skipped). Returns the number of groups, 0 when more are needed. */
static int sl__collapse(const sl_tensor *t, int a, int b, int most,
                        int64_t *extent, int64_t *stride) {
  int g = 0;
  extent[0] = 1;
  stride[0] = 0;
  for (int d = b - 1; d >= a; --d) {
    if (t->shape[d] == 1) continue;
    if (extent[g] > 1 && t->strides[d] != stride[g] * extent[g]) {
      if (++g == most) return 0;
      extent[g] = 1;
    }
    if (extent[g] == 1) stride[g] = t->strides[d];
    extent[g] *= t->shape[d];
  }
  return g + 1;
}

int sl__slices_geometry(const sl_call *c, sl__slices *s) {
  const sl_tensor *x = &c->arg[0], *out = &c->arg[3];
  if (!sl_tensor_is_contiguous(out)) return 0;
  const int k = x->ndim ? x->ndim : 1, dim = (int)c->p.dim;
  sl_tensor u;
  sl__axis_view(&c->arg[2], k, dim, &u);
  /* after dim: rows of cols[0] columns, cols[1] of them (or one) */
  int64_t outer, so, cols[2], step[2];
  const int groups = sl__collapse(&u, dim + 1, k, 2, cols, step);
  if (!sl__collapse(&u, 0, dim, 1, &outer, &so) || !groups) return 0;
  if (groups == 1) cols[1] = 1, step[1] = 0;
  int64_t inner = cols[0] * cols[1], sj = step[0];
  const int64_t m = sl__numel(&c->arg[1]);
  const int64_t n = out->ndim ? out->shape[dim] : 1;
  /* One target and one column (out of extent 1 along dim and after it):
   * the blocks become the columns of one block, so that a contribution
   * is a row of outer elements, not a block of one element each (f16
   * prod of 1591685 blocks of 3 contributions ran at 0.05x LibTorch a
   * block at a time). */
  if (inner == 1 && n == 1) inner = cols[0] = outer, sj = so, outer = 1, so = 0;
  if (inner == 1) sj = 1; /* one column: its stride is never stepped */
  *s = (sl__slices){(char *)out->data,
                    (const char *)u.data,
                    &c->arg[1],
                    c->arg[1].ndim ? c->arg[1].strides[0] : 0,
                    outer,
                    n,
                    m,
                    inner,
                    so,
                    u.strides[dim],
                    sj,
                    sl_dtype_size(x->dtype),
                    x->dtype,
                    c->p.reduce,
                    c->p.include_self,
                    NULL,
                    cols[0] ? cols[0] : 1,
                    step[1]};
  return 1;
}

/* Whether the call qualifies, and its geometry. */
static int sl__slices_of(const sl_call *c, sl__slices *s) {
  const sl_reduce r = c->p.reduce;
  if ((r != SL_REDUCE_ASSIGN && r != SL_REDUCE_AMAX && r != SL_REDUCE_AMIN) ||
      (r != SL_REDUCE_ASSIGN && !sl__select_of(c->arg[0].dtype)) ||
      !sl__slices_geometry(c, s))
    return 0;
  return s->sj == 1 || s->es <= 8;
}

uint8_t *sl__index_firsts(const sl_tensor *index, int64_t istep, int64_t m,
                          int64_t n) {
  uint8_t *first = sl__malloc((size_t)m + 1);
  uint8_t *seen = sl__calloc((size_t)(n + 7) / 8, 1);
  if (!first || !seen) {
    sl__free(first);
    sl__free(seen);
    return NULL;
  }
  for (int64_t i = 0; i < m; ++i) {
    const int64_t t = sl__load_index(index, i * istep);
    const uint8_t bit = (uint8_t)(1u << (t & 7));
    first[i] = !(seen[t >> 3] & bit);
    seen[t >> 3] |= bit;
  }
  sl__free(seen);
  return first;
}

int sl__index_slices(sl_call *c, int threads) {
  sl__slices s;
  if (!sl__slices_of(c, &s)) return 0;
  sl__copy_strided(&c->arg[3], &c->arg[0], threads);
  if (s.m == 0 || s.inner == 0 || s.outer == 0) return 1;
  if (sl__select_one(&s, threads)) return 1;
  uint8_t *first = NULL;
  if (s.reduce != SL_REDUCE_ASSIGN && !s.include_self)
    s.first = first = sl__index_firsts(s.index, s.istep, s.m, s.n);
  sl__for_blocks(threads, s.outer, s.inner, s.outer * s.m * s.inner, sl__range,
                 &s);
  sl__free(first);
  return 1;
}
