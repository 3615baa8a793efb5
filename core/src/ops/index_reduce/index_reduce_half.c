/*
 * index_reduce's f16/bf16 sum, prod and mean by whole slices, in float. The
 * line walk (reduce.c's wide line) goes along dim, one element a cache line
 * of a row-major out, and converts each element by itself: f16 prod of
 * 1058 slices of 1440 columns into 1441 ran at 0.10x LibTorch
 * (docs/notes/benchmarks-2026.md). Here a pass takes `width` columns of
 * every targeted slice of a block into an f32 accumulator, slot by slot
 * (targets numbered as the index first meets them), and the contributions
 * go in index order, a block of columns at a time; or, where a pass would
 * take a short piece of every update row, a slot at a time over long
 * pieces of its rows (sl__half_by_target).
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

/* Floats of one slot's accumulator by target: 32 KiB of each update row
 * read along its columns into 64 KiB that stay in L2 (4096 ran an f16 sum
 * of 300 rows of 100,000 columns 12% slower). */
enum { SL__IR_HALF_TARGET_WIDTH = 16384, SL__IR_HALF_TARGET_MIN_COLUMNS = 64 };

/* By target, the update rows come in no order: the first lines of the
 * row this many contributions ahead are fetched early. */
enum { SL__IR_HALF_AHEAD = 8, SL__IR_HALF_AHEAD_LINES = 4 };

/* A slot of at most this many contributions goes a block of columns at
 * a time: its rows, x's and out's stream side by side. */
enum { SL__IR_HALF_FEW = 4 };

/* More distinct targets than this could make the accumulator large (16 MiB
 * a thread at the least width): the line walk takes those calls. */
enum { SL__IR_HALF_MAX_SLOTS = 1 << 18 };

typedef struct sl__half_job {
  sl__slices s;
  const int64_t *slot;   /* contribution i's slot */
  const int64_t *target; /* slot k's target, nu of them */
  const float *count;    /* mean: slot k's count (x's included); else NULL */
  /* by target: the contributions grouped by slot, in index order within
   * each (slot k's are order[first[k]] .. order[first[k + 1] - 1]); else
   * NULL */
  const int64_t *order, *first;
  /* x's data when the targeted slices start from it, out := x copying
   * the others only (sl__half_copy_untargeted); else NULL: out := x
   * comes first and they start from out */
  const uint16_t *x;
  int64_t nu, width; /* slots; columns a pass takes */
  int64_t k0, k1;    /* by target: the slots this call takes */
  float *acc;        /* one accumulator of nu x width per thread (one
                        row of width by target) */
  int next_acc;      /* the next free accumulator (atomic) */
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

/* dst := dst ⊕ columns [j, j + w) of updates' slice i of block o. */
static void sl__half_add(const sl__half_job *h, float *dst, int64_t o,
                         int64_t i, int64_t j, int64_t w) {
  const sl__slices *s = &h->s;
  float v[SL__HALF_BLOCK];
  for (int64_t a = 0; a < w; a += SL__HALF_BLOCK) {
    const int64_t len = sl__half_block_len(w, a);
    sl__half_updates(s, o, i, j + a, len, v);
    if (s->reduce == SL_REDUCE_PROD)
      sl__half_combine(SL_REDUCE_PROD, dst + a, v, len);
    else
      sl__half_combine(SL_REDUCE_SUM, dst + a, v, len);
  }
}

/* a := slot k's start over columns [0, w) of a row of `from` (x's or
 * out's block, at the pass's first column): its value, or the identity
 * without include_self. */
static void sl__half_start(const sl__half_job *h, int64_t k,
                           const uint16_t *from, float *a, int64_t w) {
  const sl__slices *s = &h->s;
  if (s->include_self) {
    sl__half_load_block(s->dt, from + h->target[k] * s->inner, a, w);
    return;
  }
  const float identity = (float)sl__reduce_identity_f(s->reduce);
  for (int64_t q = 0; q < w; ++q) a[q] = identity;
}

/* Slot k's result from a (the mean divided) rounded into out's row. */
static void sl__half_finish(const sl__half_job *h, int64_t k, float *a,
                            uint16_t *out, int64_t w) {
  if (h->count && h->count[k] > 1.0f)
    for (int64_t q = 0; q < w; ++q) a[q] /= h->count[k];
  sl__half_store_block(h->s.dt, a, out + h->target[k] * h->s.inner, w);
}

/* Where block o's slots start at column j: x's block, or out's. */
static const uint16_t *sl__half_from(const sl__half_job *h, uint16_t *out,
                                     int64_t o, int64_t j) {
  return h->x ? h->x + o * h->s.n * h->s.inner + j : out;
}

/* Columns [j, j + w) of block o: every slot started, the contributions in
 * index order, every slot finished. */
static void sl__half_pass(const sl__half_job *h, float *acc, int64_t o,
                          int64_t j, int64_t w) {
  const sl__slices *s = &h->s;
  uint16_t *out = (uint16_t *)(void *)s->out + o * s->n * s->inner + j;
  const uint16_t *from = sl__half_from(h, out, o, j);
  for (int64_t k = 0; k < h->nu; ++k)
    sl__half_start(h, k, from, acc + k * w, w);
  for (int64_t i = 0; i < s->m; ++i)
    sl__half_add(h, acc + h->slot[i] * w, o, i, j, w);
  for (int64_t k = 0; k < h->nu; ++k)
    sl__half_finish(h, k, acc + k * w, out, w);
}

/* Slot k over columns [j, j + w) of block o a block of SL__HALF_BLOCK
 * at a time, every contribution to each block before the next: its
 * accumulator stays in L1, its few rows stream side by side. */
static void sl__half_slot_by_blocks(const sl__half_job *h, int64_t k,
                                    float *acc, int64_t o, int64_t j,
                                    int64_t w) {
  const sl__slices *s = &h->s;
  uint16_t *out = (uint16_t *)(void *)s->out + o * s->n * s->inner + j;
  const uint16_t *from = sl__half_from(h, out, o, j);
  for (int64_t a = 0; a < w; a += SL__HALF_BLOCK) {
    const int64_t len = sl__half_block_len(w, a);
    sl__half_start(h, k, from + a, acc, len);
    for (int64_t p = h->first[k]; p < h->first[k + 1]; ++p)
      sl__half_add(h, acc, o, h->order[p], j + a, len);
    sl__half_finish(h, k, acc, out + a, len);
  }
}

/* The same a slot at a time, its contributions in index order: each
 * update row is read once along its columns, where the pass above reads
 * width columns of every row per pass. A slot of few contributions goes
 * by blocks (sl__half_slot_by_blocks); the others through an accumulator
 * of the whole width (f16 prod of 42 unique targets of 66 slices of
 * 63^3: their accumulator of 64 KiB went through L2 three times). */
static void sl__half_pass_by_target(const sl__half_job *h, float *acc,
                                    int64_t o, int64_t j, int64_t w) {
  const sl__slices *s = &h->s;
  uint16_t *out = (uint16_t *)(void *)s->out + o * s->n * s->inner + j;
  const int64_t lines = (w * s->sj * 2 + 63) / 64;
  const int64_t ahead =
      lines < SL__IR_HALF_AHEAD_LINES ? lines : SL__IR_HALF_AHEAD_LINES;
  const uint16_t *from = sl__half_from(h, out, o, j);
  for (int64_t k = h->k0; k < h->k1; ++k) {
    if (h->first[k + 1] - h->first[k] <= SL__IR_HALF_FEW) {
      sl__half_slot_by_blocks(h, k, acc, o, j, w);
      continue;
    }
    sl__half_start(h, k, from, acc, w);
    for (int64_t p = h->first[k]; p < h->first[k + 1]; ++p) {
      if (p + SL__IR_HALF_AHEAD < s->m) {
        const char *next =
            s->upd + 2 * (o * s->so + j * s->sj +
                          h->order[p + SL__IR_HALF_AHEAD] * s->si);
        for (int64_t l = 0; l < ahead; ++l) __builtin_prefetch(next + 64 * l);
      }
      sl__half_add(h, acc, o, h->order[p], j, w);
    }
    sl__half_finish(h, k, acc, out, w);
  }
}

/* This call's accumulator: one of nu x width (one row of width by
 * target) a thread. */
static float *sl__half_acc(sl__half_job *h) {
  const int mine = __atomic_fetch_add(&h->next_acc, 1, __ATOMIC_RELAXED);
  return h->acc + (int64_t)mine * (h->order ? 1 : h->nu) * h->width;
}

/* Blocks [o0, o1) x columns [j0, j1), a run (sl__slices_run) and `width`
 * columns at a time in acc. */
static void sl__half_columns(const sl__half_job *h, float *acc, int64_t o0,
                             int64_t o1, int64_t j0, int64_t j1) {
  sl__half_job run = *h;
  for (int64_t r = j0, len; r < j1; r += len) {
    len = sl__slices_run(&h->s, r, j1, &run.s);
    run.x = h->x ? h->x + r : NULL; /* as the run's out */
    for (int64_t o = o0; o < o1; ++o)
      for (int64_t j = 0; j < len; j += h->width)
        (h->order ? sl__half_pass_by_target : sl__half_pass)(
            &run, acc, o, j, len - j < h->width ? len - j : h->width);
  }
}

/* An sl__blocks_fn: every slot over blocks [o0, o1) x columns [j0, j1). */
static void sl__half_range(const void *user, int64_t o0, int64_t o1, int64_t j0,
                           int64_t j1) {
  sl__half_job *h = (sl__half_job *)(uintptr_t)user;
  sl__half_columns(h, sl__half_acc(h), o0, o1, j0, j1);
}

/* The first slot whose contributions start at p or later. */
static int64_t sl__half_slot_from(const sl__half_job *h, int64_t p) {
  int64_t lo = 0, hi = h->nu;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (h->first[mid] < p)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* By target, an sl__for_units unit a contribution: the slots whose
 * contributions start in [b, e), over every block and column. */
static void sl__half_slot_range(void *user, int64_t b, int64_t e) {
  sl__half_job *h = user, mine = *h;
  mine.k0 = sl__half_slot_from(h, b), mine.k1 = sl__half_slot_from(h, e);
  sl__half_columns(&mine, sl__half_acc(h), 0, h->s.outer, 0, h->s.inner);
}

/* Whether a team takes the slots by target apart, whole rows each: where
 * sl__for_blocks would split the columns (fewer blocks than threads) and
 * no slot holds more than a thread's share of the contributions. A bf16
 * sum of 2496 rows of 3274 into 1700 targets, its columns split in two,
 * had each thread read 51 lines of a row before the next row. */
static int sl__half_by_slots(const sl__half_job *h, int threads) {
  if (!h->order || threads < 2 || h->s.outer >= threads) return 0;
  int64_t most = 0;
  for (int64_t k = 0; k < h->nu; ++k)
    if (h->first[k + 1] - h->first[k] > most)
      most = h->first[k + 1] - h->first[k];
  return most * threads <= h->s.m;
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

/* The contributions grouped by slot, in index order within each (a
 * counting sort): order (room for m) and first (room for nu + 1). */
static void sl__half_group(const sl__half_job *h, int64_t *order,
                           int64_t *first) {
  for (int64_t k = 0; k <= h->nu; ++k) first[k] = 0;
  for (int64_t i = 0; i < h->s.m; ++i) ++first[h->slot[i] + 1];
  for (int64_t k = 0; k < h->nu; ++k) first[k + 1] += first[k];
  for (int64_t i = 0; i < h->s.m; ++i) order[first[h->slot[i]]++] = i;
  for (int64_t k = h->nu; k > 0; --k) first[k] = first[k - 1];
  first[0] = 0;
}

/* Columns a pass takes: as many as fit the accumulator, at least
 * SL__IR_HALF_MIN_WIDTH, at most inner. */
static int64_t sl__half_width(int64_t nu, int64_t inner) {
  int64_t w = SL__IR_HALF_ACC_FLOATS / (nu ? nu : 1);
  w = w < SL__IR_HALF_MIN_WIDTH ? SL__IR_HALF_MIN_WIDTH : w & ~(int64_t)15;
  return w < inner ? w : inner;
}

/* Whether the slots go one at a time (sl__half_pass_by_target): when a
 * pass of all of them would take part of a row only, every pass reading
 * a short piece of every update row in turn, and a row's run is long
 * enough to read in no order. f16 sums (2 threads) of 2410 rows of 2549
 * into 774 targets: 6.4 -> 3.5 ms; 150,000 of 200 into 33,086: 153 ->
 * 31 ms; 300,000 of 64: 32-47 -> 23 ms; 500,000 of 32 lost (30-43 ->
 * 33-52 ms). */
static int sl__half_by_target(const sl__half_job *h) {
  return h->s.cols >= SL__IR_HALF_TARGET_MIN_COLUMNS &&
         sl__half_width(h->nu, h->s.inner) < h->s.inner;
}

/* Untargeted slices in runs of at most this many copies a block: past it
 * out := x goes whole (a call per run), unless the runs are long
 * (SL__IR_HALF_RUN_BYTES). */
enum { SL__IR_HALF_MAX_RUNS = 64 };

/* Runs of untargeted slices this long on average (bytes a block) go as
 * one team over the slices, however many runs: a bf16 sum into 1700 of
 * 3274 rows of 3274 copied all of x first, out's targeted rows through
 * memory twice. */
enum { SL__IR_HALF_RUN_BYTES = 256 };

/* The slices no contribution targets, ascending, in rows (room for n):
 * their count, and in *runs how many runs of adjacent ones they make. */
static int64_t sl__half_untargeted(const sl__half_job *h, uint8_t *hit,
                                   int64_t *rows, int64_t *runs) {
  for (int64_t k = 0; k < h->nu; ++k) hit[h->target[k]] = 1;
  int64_t count = 0;
  *runs = 0;
  for (int64_t t = 0; t < h->s.n; ++t)
    if (!hit[t]) {
      *runs += count == 0 || rows[count - 1] != t - 1;
      rows[count++] = t;
    }
  return count;
}

/* The end of the run of consecutive slices rows[i], rows[i] + 1, ...
 * before `e`. */
static int64_t sl__half_run_end(const int64_t *rows, int64_t i, int64_t e) {
  int64_t r = i + 1;
  while (r < e && rows[r] == rows[r - 1] + 1) ++r;
  return r;
}

/* out := x over the untargeted slices rows[b .. e) (an sl__for_units
 * unit each), adjacent ones in one copy a block. */
typedef struct sl__half_rows {
  const sl__half_job *h;
  const int64_t *rows;
  const uint16_t *x;
} sl__half_rows;

static void sl__half_copy_rows(void *user, int64_t b, int64_t e) {
  const sl__half_rows *c = user;
  const sl__slices *s = &c->h->s;
  for (int64_t i = b, r; i < e; i = r) {
    r = sl__half_run_end(c->rows, i, e);
    const size_t bytes = (size_t)((r - i) * s->inner) * 2;
    for (int64_t o = 0; o < s->outer; ++o) {
      const int64_t at = (o * s->n + c->rows[i]) * s->inner;
      memcpy((uint16_t *)(void *)s->out + at, c->x + at, bytes);
    }
  }
}

/* out := x over the runs of untargeted slices one call each, rows[] as
 * sl__half_untargeted leaves it. */
static void sl__half_copy_runs(const sl__half_job *h, const sl_tensor *x,
                               const int64_t *rows, int64_t count,
                               int threads) {
  const int64_t block = h->s.n * h->s.inner;
  for (int64_t i = 0, r; i < count; i = r) {
    r = sl__half_run_end(rows, i, count);
    /* the run in every block: outer rows of its slices' elements */
    const int64_t at = rows[i] * h->s.inner;
    sl_tensor to = *x, from;
    to.ndim = 2;
    to.shape[0] = h->s.outer;
    to.shape[1] = (r - i) * h->s.inner;
    to.strides[0] = block, to.strides[1] = 1;
    from = to;
    to.data = (uint16_t *)(void *)h->s.out + at;
    from.data = (uint16_t *)x->data + at;
    sl__copy_strided(&to, &from, threads);
  }
}

/* out := x over the untargeted slices, by runs or by slices; 0 where
 * out := x had better go whole (or memory is short), having done
 * nothing. */
static int sl__half_copy_slices(const sl__half_job *h, const sl_tensor *x,
                                int threads) {
  uint8_t *hit = sl__calloc((size_t)h->s.n, 1);
  int64_t *rows = sl__malloc((size_t)h->s.n * sizeof *rows), runs = 0;
  const int64_t count =
      hit && rows ? sl__half_untargeted(h, hit, rows, &runs) : 0;
  const int long_runs =
      runs && count * h->s.inner * 2 / runs >= SL__IR_HALF_RUN_BYTES;
  const int done = hit && rows && (long_runs || runs <= SL__IR_HALF_MAX_RUNS);
  if (done && long_runs) {
    sl__half_rows c = {h, rows, x->data};
    sl__for_units(threads, h->s.outer * count * h->s.inner, count,
                  sl__half_copy_rows, &c);
  } else if (done)
    sl__half_copy_runs(h, x, rows, count, threads);
  sl__free(rows);
  sl__free(hit);
  return done;
}

/* With x laid out as out (and not out itself), out := x over the
 * untargeted slices only, and h->x set: the targeted ones start from x
 * in their passes. Copying all of x first took out through memory twice
 * (f16 prod into 42 of 66 slices of 63^3: 0.79x LibTorch, which ran at
 * 87% of the copy bandwidth). 0 having done nothing otherwise. */
static int sl__half_copy_untargeted(const sl_call *c, sl__half_job *h,
                                    int threads) {
  const sl_tensor *x = &c->arg[0];
  if (!h->s.include_self || x->data == c->arg[3].data ||
      !sl_tensor_is_contiguous(x) || !sl__half_copy_slices(h, x, threads))
    return 0;
  h->x = x->data;
  return 1;
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
  int64_t *slot = sl__malloc((size_t)(4 * m + 2) * sizeof *slot);
  float *count = sl__malloc((size_t)(m + 1) * sizeof *count);
  int ok = slot && count &&
           sl__half_slots(&h.s, slot, slot + m,
                          h.s.reduce == SL_REDUCE_MEAN ? count : NULL, &h.nu);
  if (ok) {
    h.slot = slot, h.target = slot + m;
    h.count = h.s.reduce == SL_REDUCE_MEAN ? count : NULL;
    int64_t rows = h.nu;
    h.width = sl__half_width(h.nu, h.s.inner);
    if (sl__half_by_target(&h)) {
      sl__half_group(&h, slot + 2 * m, slot + 3 * m);
      h.order = slot + 2 * m, h.first = slot + 3 * m;
      h.width = h.s.inner < SL__IR_HALF_TARGET_WIDTH ? h.s.inner
                                                     : SL__IR_HALF_TARGET_WIDTH;
      rows = 1;
    }
    h.acc = sl__malloc((size_t)(team * rows * h.width) * sizeof(float));
    ok = h.acc != NULL;
  }
  if (ok && !sl__half_copy_untargeted(c, &h, threads))
    sl__copy_strided(&c->arg[3], &c->arg[0], threads);
  if (ok) {
    const int64_t work = h.s.outer * m * h.s.inner;
    h.k0 = 0, h.k1 = h.nu;
    if (m && h.s.outer && sl__half_by_slots(&h, threads))
      sl__for_units(threads, work, m, sl__half_slot_range, &h);
    else if (m && h.s.outer)
      sl__for_blocks(threads, h.s.outer, h.s.inner, work, sl__half_range, &h);
  }
  sl__free(h.acc);
  sl__free(count);
  sl__free(slot);
  return ok;
}
