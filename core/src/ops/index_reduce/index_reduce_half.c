/*
 * index_reduce's f16/bf16 sum, prod and mean by whole slices, in float. The
 * line walk (reduce.c's wide line) goes along dim, one element a cache line
 * of a row-major out, and converts each element by itself: f16 prod of
 * 1058 slices of 1440 columns into 1441 ran at 0.10x LibTorch
 * (docs/notes/benchmarks-2026.md). Here a pass takes `width` columns of
 * every targeted slice of a block into an f32 accumulator, slot by slot
 * (targets numbered as the index first meets them), and the contributions
 * go in index order, a block of columns at a time.
 *
 * The bits are the line walk's: each target starts from x (or the
 * identity), every step rounds to f32, the mean divides by its f32 count,
 * and the result rounds to the half type once. The line does a step in
 * double and rounds it to f32; float arithmetic gives the same value (a
 * sum, product or quotient of two floats, computed in double and rounded
 * to float, is the correctly rounded float one).
 */
#include "half_blocks.h"
#include "index_reduce_slices.h"
#include "reduce.h"
#include "walk.h"

/* Slices narrower than this stay on the line walk, which batches
 * neighbouring lines. */
enum { SL__IR_HALF_MIN_COLUMNS = 8 };

/* Floats of one pass's accumulator: the targeted slices' columns stay in
 * L2 beside the updates streaming through. */
enum { SL__IR_HALF_ACC_FLOATS = 64 * 1024, SL__IR_HALF_MIN_WIDTH = 16 };

/* More distinct targets than this could make the accumulator large (16 MiB
 * a thread at the least width): the line walk takes those calls. */
enum { SL__IR_HALF_MAX_SLOTS = 1 << 18 };

typedef struct sl__half_job {
  sl__slices s;
  const int64_t *slot;   /* contribution i's slot */
  const int64_t *target; /* slot k's target, nu of them */
  const float *count;    /* mean: slot k's count (x's included); else NULL */
  int64_t nu, width;     /* slots; columns a pass takes */
  float *acc;            /* one accumulator of nu x width per thread */
  int next_acc;          /* the next free accumulator (atomic) */
} sl__half_job;

/* Columns [a0, a0 + w) of updates' slice i of block o, as floats in v. */
static void sl__half_updates(const sl__slices *s, int64_t o, int64_t i,
                             int64_t a0, int64_t w, float *v) {
  const uint16_t *u = (const uint16_t *)(const void *)s->upd + o * s->so +
                      i * s->si + a0 * s->sj;
  sl__half_load_steps(s->dt, u, s->sj, v, w);
}

/* acc[q] = acc[q] ⊕ v[q] in float; r is a constant in each call. */
SL__ALWAYS_INLINE void sl__half_combine(sl_reduce r, float *acc, const float *v,
                                        int64_t w) {
  if (r == SL_REDUCE_PROD)
    for (int64_t q = 0; q < w; ++q) acc[q] *= v[q];
  else
    for (int64_t q = 0; q < w; ++q) acc[q] += v[q];
}

/* The contributions to columns [j, j + w) of block o, in index order. */
static void sl__half_contribute(const sl__half_job *h, float *acc, int64_t o,
                                int64_t j, int64_t w) {
  const sl__slices *s = &h->s;
  float v[SL__HALF_BLOCK];
  for (int64_t i = 0; i < s->m; ++i)
    for (int64_t a = 0; a < w; a += SL__HALF_BLOCK) {
      const int64_t len = sl__half_block_len(w, a);
      float *dst = acc + h->slot[i] * w + a;
      sl__half_updates(s, o, i, j + a, len, v);
      if (s->reduce == SL_REDUCE_PROD)
        sl__half_combine(SL_REDUCE_PROD, dst, v, len);
      else
        sl__half_combine(SL_REDUCE_SUM, dst, v, len);
    }
}

/* Columns [j, j + w) of block o: start, contributions, finish. */
static void sl__half_pass(const sl__half_job *h, float *acc, int64_t o,
                          int64_t j, int64_t w) {
  const sl__slices *s = &h->s;
  uint16_t *out = (uint16_t *)(void *)s->out + o * s->n * s->inner + j;
  const float identity = (float)sl__reduce_identity_f(s->reduce);
  for (int64_t k = 0; k < h->nu; ++k) {
    if (s->include_self) {
      sl__half_load_block(s->dt, out + h->target[k] * s->inner, acc + k * w, w);
      continue;
    }
    for (int64_t q = 0; q < w; ++q) acc[k * w + q] = identity;
  }
  sl__half_contribute(h, acc, o, j, w);
  for (int64_t k = 0; k < h->nu; ++k) {
    float *a = acc + k * w;
    if (h->count && h->count[k] > 1.0f)
      for (int64_t q = 0; q < w; ++q) a[q] /= h->count[k];
    sl__half_store_block(s->dt, a, out + h->target[k] * s->inner, w);
  }
}

/* Blocks [o0, o1) x columns [j0, j1) (an sl__blocks_fn), a run
 * (sl__slices_run) and `width` columns at a time in an accumulator of this
 * call's own. */
static void sl__half_range(const void *user, int64_t o0, int64_t o1, int64_t j0,
                           int64_t j1) {
  sl__half_job *h = (sl__half_job *)(uintptr_t)user;
  const int mine = __atomic_fetch_add(&h->next_acc, 1, __ATOMIC_RELAXED);
  float *acc = h->acc + (int64_t)mine * h->nu * h->width;
  sl__half_job run = *h;
  for (int64_t r = j0, len; r < j1; r += len) {
    len = sl__slices_run(&h->s, r, j1, &run.s);
    for (int64_t o = o0; o < o1; ++o)
      for (int64_t j = 0; j < len; j += h->width)
        sl__half_pass(&run, acc, o, j, len - j < h->width ? len - j : h->width);
  }
}

/* Slots numbered as the index first meets its targets: slot[i], target[k]
 * (room for m each) and *nu; with count (room for m), the mean's counts.
 * 0 when memory is short. */
static int sl__half_slots(const sl__slices *s, int64_t *slot, int64_t *target,
                          float *count, int64_t *nu) {
  int64_t *slot_of = sl__malloc((size_t)s->n * sizeof *slot_of);
  if (!slot_of) return 0;
  for (int64_t t = 0; t < s->n; ++t) slot_of[t] = -1;
  *nu = 0;
  for (int64_t i = 0; i < s->m; ++i) {
    const int64_t t = sl__load_index(s->index, i * s->istep);
    if (slot_of[t] < 0) {
      slot_of[t] = (*nu)++;
      target[slot_of[t]] = t;
      if (count) count[slot_of[t]] = s->include_self ? 1.0f : 0.0f;
    }
    slot[i] = slot_of[t];
    if (count)
      count[slot[i]] = (float)sl__count_add(s->dt, count[slot[i]], 1.0);
  }
  sl__free(slot_of);
  return 1;
}

/* Columns a pass takes: as many as fit the accumulator, at least
 * SL__IR_HALF_MIN_WIDTH, at most inner. */
static int64_t sl__half_width(int64_t nu, int64_t inner) {
  int64_t w = SL__IR_HALF_ACC_FLOATS / (nu ? nu : 1);
  w = w < SL__IR_HALF_MIN_WIDTH ? SL__IR_HALF_MIN_WIDTH : w & ~(int64_t)15;
  return w < inner ? w : inner;
}

static int sl__half_qualifies(const sl_call *c, sl__slices *s) {
  const sl_reduce r = c->p.reduce;
  const sl_dtype dt = c->arg[0].dtype;
  return (dt == SL_F16 || dt == SL_BF16) &&
         (r == SL_REDUCE_SUM || r == SL_REDUCE_PROD || r == SL_REDUCE_MEAN) &&
         sl__slices_geometry(c, s) && s->cols >= SL__IR_HALF_MIN_COLUMNS &&
         (s->n < s->m ? s->n : s->m) <= SL__IR_HALF_MAX_SLOTS;
}

int sl__index_half_slices(sl_call *c, int threads) {
  sl__half_job h = {.next_acc = 0};
  if (!sl__half_qualifies(c, &h.s)) return 0;
  const int64_t m = h.s.m, team = threads > 1 ? threads : 1;
  int64_t *slot = sl__malloc((size_t)(2 * m + 1) * sizeof *slot);
  float *count = sl__malloc((size_t)(m + 1) * sizeof *count);
  int ok = slot && count &&
           sl__half_slots(&h.s, slot, slot + m,
                          h.s.reduce == SL_REDUCE_MEAN ? count : NULL, &h.nu);
  if (ok) {
    h.width = sl__half_width(h.nu, h.s.inner);
    h.acc = sl__malloc((size_t)(team * h.nu * h.width) * sizeof(float));
    ok = h.acc != NULL;
  }
  if (ok) {
    h.slot = slot, h.target = slot + m;
    h.count = h.s.reduce == SL_REDUCE_MEAN ? count : NULL;
    sl__copy_strided(&c->arg[3], &c->arg[0], threads);
    if (m && h.s.outer)
      sl__for_blocks(threads, h.s.outer, h.s.inner, h.s.outer * m * h.s.inner,
                     sl__half_range, &h);
  }
  sl__free(h.acc);
  sl__free(count);
  sl__free(slot);
  return ok;
}
