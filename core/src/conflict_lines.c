/*
 * The atomic, lock and sorted strategies over lines (conflict_lines.h).
 *
 * Work is cut into tiles of contributions [i0,i1) x lines [l0,l1): a tile
 * walks its contributions in order and, for each, its lines side by side
 * (SL__LINE_BATCH of them, or the whole row when the index is shared), so
 * neighbouring elements of a row are touched together. Tiles go to threads
 * in contiguous blocks of contribution order.
 */
#include "conflict_lines.h"

#include <stdlib.h>

sl_status sl__clines_alloc(sl_ctx *ctx, sl__clines *p, int64_t L) {
  size_t k = L > 0 ? (size_t)L : 1;
  p->L = L;
  p->oline = sl__malloc(k * sizeof *p->oline);
  p->sline = sl__malloc(k * sizeof *p->sline);
  p->iline = p->rows ? NULL : sl__malloc(k * sizeof *p->iline);
  if (p->oline && p->sline && (p->rows || p->iline)) return SL_STATUS_OK;
  sl__clines_free(p);
  return sl_ctx_fail(ctx, SL_STATUS_OUT_OF_MEMORY,
                     "%s: expected memory for %lld line offsets, got an "
                     "allocation failure",
                     p->what, (long long)L);
}

void sl__clines_seal(sl__clines *p) {
  p->olstep = p->L > 1 ? p->oline[1] - p->oline[0] : 0;
  p->slstep = p->L > 1 ? p->sline[1] - p->sline[0] : 0;
  p->ilstep = p->L > 1 && p->iline ? p->iline[1] - p->iline[0] : 0;
  p->dense = p->L > 0 && p->oline[0] == 0 && p->sline[0] == 0 &&
             (!p->iline || p->iline[0] == 0);
  for (int64_t l = 1; p->dense && l < p->L; ++l)
    p->dense = p->oline[l] == l * p->olstep && p->sline[l] == l * p->slstep &&
               (!p->iline || p->iline[l] == l * p->ilstep);
  /* Destination numbers (sl__cl_e) that are a fixed multiple of the element
   * offset spare cpu.sorted a division per record: t-major numbers
   * t*L + l when a line step times L is the dim's step (x [M,C] along dim
   * 0), l-major l*n + t when lines are n apart (along the last dim). */
  p->elinear = 0;
  if (p->L == 1 && p->oline[0] == 0) {
    p->elinear = 1;
    p->eunit = p->ostep;
  } else if (p->dense && p->ostep != 1 && p->olstep * p->L == p->ostep) {
    p->elinear = 1;
    p->eunit = p->olstep;
  } else if (p->dense && p->ostep == 1 && p->olstep == p->n) {
    p->elinear = 1;
    p->eunit = 1;
  }
}

void sl__clines_free(sl__clines *p) {
  sl__free(p->oline);
  sl__free(p->sline);
  sl__free(p->iline);
  p->oline = p->sline = p->iline = NULL;
}

SL__HOT int64_t sl__cl_target(const sl__clines *p, int64_t l, int64_t i) {
  return sl__load_index(p->index, (p->iline ? p->iline[l] : 0) + i * p->istep);
}

SL__HOT char *sl__cl_dst(const sl__clines *p, int64_t l, int64_t t) {
  return p->out + (p->oline[l] + t * p->ostep) * p->es;
}

SL__HOT const char *sl__cl_src(const sl__clines *p, int64_t l, int64_t i) {
  return p->src + (p->sline[l] + i * p->sstep) * p->es;
}

/* The number e of destination (l, t): t-major (t*L + l) when the lines
 * are neighbours in out (t is not the innermost step), else l-major (l*n +
 * t), so that consecutive numbers are nearby elements: cpu.sorted's buckets
 * are ranges of numbers, and cpu.lock's locks are indexed by them. */
SL__HOT int64_t sl__cl_e(const sl__clines *p, int64_t l, int64_t t) {
  return p->ostep != 1 ? t * p->L + l : l * p->n + t;
}

/* Destination e back to its element (the final pass, cpu.sorted). */
static char *sl__cl_where(const void *user, int64_t e) {
  const sl__clines *p = user;
  if (p->elinear) return p->out + e * p->eunit * p->es;
  if (p->ostep != 1) return sl__cl_dst(p, e % p->L, e / p->L);
  return sl__cl_dst(p, e / p->n, e % p->n);
}

/* The accumulators of the L * n destinations, which the L * m contributions
 * reach (a row contribution reaches L of them). */
static sl_status sl__cl_acc_open(sl_ctx *ctx, const sl__clines *p, sl__acc *a) {
  return sl__acc_open(ctx, p->what, a, p->dt, p->reduce, p->self, p->L * p->n,
                      p->L * p->m);
}

typedef enum { SL__CL_PREPARE, SL__CL_ATOMIC, SL__CL_PLAIN } sl__cl_mode;

SL__HOT void sl__cl_elem(const sl__clines *p, const sl__acc *a,
                         sl__cl_mode mode, int64_t l, int64_t i, int64_t t) {
  const int64_t e = sl__cl_e(p, l, t);
  char *dst = sl__cl_dst(p, l, t);
  if (mode == SL__CL_PREPARE)
    sl__acc_prepare(a, e, dst);
  else if (mode == SL__CL_ATOMIC)
    sl__acc_atomic(a, e, dst, sl__cl_src(p, l, i));
  else
    sl__acc_plain(a, e, dst, sl__cl_src(p, l, i));
}

/*
 * The direct path, for the common case where out is the accumulator (no f32
 * accumulators, no counts: not f16/bf16, not mean, not assign) and the
 * dtype is f32, f64, i32 or i64. The loop is written once; sl__cl_direct
 * calls it with constant dtypes, so that after inlining each instance has
 * no dtype dispatch left per element.
 */
SL__HOT void sl__cl_direct_loop(sl_dtype dt, sl_dtype it, const sl__clines *p,
                                const sl__locks *lk, sl__cl_mode mode,
                                int64_t i0, int64_t i1, int64_t l0,
                                int64_t l1) {
  const sl_reduce r = p->reduce;
  const int64_t es = dt == SL_F32 || dt == SL_I32 ? 4 : 8;
  const int atomic = mode == SL__CL_ATOMIC;
  for (int64_t i = i0; i < i1; ++i) {
    if (p->rows) {
      const int64_t t = sl__index_typed(it, p->index, i * p->istep);
      if (lk) sl__lock(lk, t);
      if (!atomic && p->dense) {
        /* The row as one strided vector: out row t, src row i. */
        sl__row_plain(dt, r, p->out + (l0 * p->olstep + t * p->ostep) * es,
                      p->olstep, p->src + (l0 * p->slstep + i * p->sstep) * es,
                      p->slstep, l1 - l0);
        if (lk) sl__unlock(lk, t);
        continue;
      }
      for (int64_t l = l0; l < l1; ++l) {
        char *dst = p->out + (p->oline[l] + t * p->ostep) * es;
        const char *src = p->src + (p->sline[l] + i * p->sstep) * es;
        if (atomic)
          sl__atomic_elem(dt, r, dst, src);
        else
          sl__plain_elem(dt, r, dst, src);
      }
      if (lk) sl__unlock(lk, t);
      continue;
    }
    for (int64_t l = l0; l < l1; ++l) {
      /* Evenly spaced lines (the usual case) need no line tables. */
      const int64_t io = p->dense ? l * p->ilstep : p->iline[l];
      const int64_t oo = p->dense ? l * p->olstep : p->oline[l];
      const int64_t so = p->dense ? l * p->slstep : p->sline[l];
      const int64_t t = sl__index_typed(it, p->index, io + i * p->istep);
      char *dst = p->out + (oo + t * p->ostep) * es;
      const char *src = p->src + (so + i * p->sstep) * es;
      if (mode == SL__CL_PREPARE) {
        sl__store_identity(dt, r, dst);
      } else if (atomic) {
        sl__atomic_elem(dt, r, dst, src);
      } else {
        const int64_t e = lk ? sl__cl_e(p, l, t) : 0;
        if (lk) sl__lock(lk, e);
        sl__plain_elem(dt, r, dst, src);
        if (lk) sl__unlock(lk, e);
      }
    }
  }
}

/* Whether a pass with accumulator a can take the direct path. */
static int sl__cl_direct_ok(const sl__clines *p, const sl__acc *a) {
  return !a->wide && !a->count && p->reduce != SL_REDUCE_ASSIGN &&
         (p->dt == SL_F32 || p->dt == SL_F64 || p->dt == SL_I32 ||
          p->dt == SL_I64);
}

static void sl__cl_direct(const sl__clines *p, const sl__locks *lk,
                          sl__cl_mode mode, int64_t i0, int64_t i1, int64_t l0,
                          int64_t l1) {
  SL__WITH_DTYPES(p->dt, p->index->dtype == SL_I64, sl__cl_direct_loop, p, lk,
                  mode, i0, i1, l0, l1);
}

/* Contributions [i0,i1) of lines [l0,l1). With locks (plain mode only) the
 * destination is held around its update: the row t when the index is
 * shared (seed 004's row-wise update under `is_occupy`), else the element. */
static void sl__cl_tile(const sl__clines *p, const sl__acc *a,
                        const sl__locks *lk, sl__cl_mode mode, int64_t i0,
                        int64_t i1, int64_t l0, int64_t l1) {
  if (sl__cl_direct_ok(p, a)) {
    sl__cl_direct(p, lk, mode, i0, i1, l0, l1);
    return;
  }
  for (int64_t i = i0; i < i1; ++i) {
    if (p->rows) {
      const int64_t t = sl__cl_target(p, 0, i);
      if (lk) sl__lock(lk, t);
      for (int64_t l = l0; l < l1; ++l) sl__cl_elem(p, a, mode, l, i, t);
      if (lk) sl__unlock(lk, t);
      continue;
    }
    for (int64_t l = l0; l < l1; ++l) {
      const int64_t t = sl__cl_target(p, l, i);
      if (lk) sl__lock(lk, sl__cl_e(p, l, t));
      sl__cl_elem(p, a, mode, l, i, t);
      if (lk) sl__unlock(lk, sl__cl_e(p, l, t));
    }
  }
}

/* One pass of `mode` over every contribution, on up to `threads` threads. */
static void sl__cl_pass(const sl__clines *p, const sl__acc *a,
                        const sl__locks *lk, sl__cl_mode mode, int threads) {
  const int64_t width =
      p->rows || p->L < SL__LINE_BATCH ? p->L : SL__LINE_BATCH;
  const int64_t batches = (p->L + width - 1) / width;
  const int64_t chunk =
      width < SL__CONFLICT_GRAIN ? SL__CONFLICT_GRAIN / width : 1;
  const int64_t chunks = (p->m + chunk - 1) / chunk;
  const int team = sl__conflict_team(threads, p->L * p->m);
#pragma omp parallel for num_threads(team) schedule(static) if (team > 1)
  for (int64_t tile = 0; tile < chunks * batches; ++tile) {
    const int64_t c = tile / batches, b = tile % batches;
    const int64_t i1 = (c + 1) * chunk < p->m ? (c + 1) * chunk : p->m;
    const int64_t l1 = (b + 1) * width < p->L ? (b + 1) * width : p->L;
    sl__cl_tile(p, a, lk, mode, c * chunk, i1, b * width, l1);
  }
}

/*
 * Prepares every targeted destination (x left out, or f32 accumulators)
 * before any combine. Element destinations take one store per input, as
 * the combines do. A targeted row takes L stores however many inputs aim
 * at it: the rows are marked first (one byte per input), then each marked
 * row is prepared once, so that 2^20 updates into 16 rows do not store
 * 2^20 rows of identities.
 */
static sl_status sl__cl_prepare(sl_ctx *ctx, const sl__clines *p,
                                const sl__acc *a, int threads) {
  if (!sl__acc_needs_prepare(a)) return SL_STATUS_OK;
  if (!p->rows) {
    sl__cl_pass(p, a, NULL, SL__CL_PREPARE, threads);
    return SL_STATUS_OK;
  }
  unsigned char *hit = sl__calloc((size_t)p->n, 1);
  if (!hit)
    return sl_ctx_fail(ctx, SL_STATUS_OUT_OF_MEMORY,
                       "%s: expected memory to mark %lld rows, got an "
                       "allocation failure",
                       p->what, (long long)p->n);
  int team = sl__conflict_team(threads, p->m);
#pragma omp parallel for num_threads(team) schedule(static) if (team > 1)
  for (int64_t i = 0; i < p->m; ++i)
    __atomic_store_n(&hit[sl__cl_target(p, 0, i)], 1, __ATOMIC_RELAXED);
  team = sl__conflict_team(threads, p->n * p->L);
#pragma omp parallel for num_threads(team) schedule(static) if (team > 1)
  for (int64_t t = 0; t < p->n; ++t) {
    if (!hit[t]) continue;
    for (int64_t l = 0; l < p->L; ++l)
      sl__acc_prepare(a, sl__cl_e(p, l, t), sl__cl_dst(p, l, t));
  }
  sl__free(hit);
  return SL_STATUS_OK;
}

/* In input order on one thread: the serial answer. */
static sl_status sl__cl_serial(sl_ctx *ctx, const sl__clines *p,
                               const sl__acc *a) {
  sl_status st = sl__cl_prepare(ctx, p, a, 1);
  if (st) return st;
  sl__cl_tile(p, a, NULL, SL__CL_PLAIN, 0, p->m, 0, p->L);
  return SL_STATUS_OK;
}

static int sl__cl_empty(const sl__clines *p) {
  return p->L == 0 || p->m == 0 || p->n == 0;
}

/* Copies contribution i's row into its target row t. */
static void sl__cl_copy_row(const sl__clines *p, int64_t t, int64_t i) {
  for (int64_t l = 0; l < p->L; ++l)
    memcpy(sl__cl_dst(p, l, t), sl__cl_src(p, l, i), (size_t)p->es);
}

/* Winners per target row, one int64 each: for targets that are not few
 * beside the rows (not sl__sparse(n, m)). */
static sl_status sl__cl_assign_dense(sl_ctx *ctx, const sl__clines *p,
                                     int threads) {
  int64_t *winner = sl__malloc((size_t)p->n * sizeof *winner);
  if (!winner)
    return sl_ctx_fail(ctx, SL_STATUS_OUT_OF_MEMORY,
                       "%s: expected memory for %lld row winners, got an "
                       "allocation failure",
                       p->what, (long long)p->n);
  int team = sl__conflict_team(threads, p->n);
#pragma omp parallel for num_threads(team) schedule(static) if (team > 1)
  for (int64_t t = 0; t < p->n; ++t) winner[t] = -1;
  team = sl__conflict_team(threads, p->m);
#pragma omp parallel for num_threads(team) schedule(static) if (team > 1)
  for (int64_t i = 0; i < p->m; ++i)
    sl__atomic_max_i64(&winner[sl__cl_target(p, 0, i)], i);
  team = sl__conflict_team(threads, p->n * p->L);
#pragma omp parallel for num_threads(team) schedule(static) if (team > 1)
  for (int64_t t = 0; t < p->n; ++t)
    if (winner[t] >= 0) sl__cl_copy_row(p, t, winner[t]);
  sl__free(winner);
  return SL_STATUS_OK;
}

/* Few targets among many rows (a --huge case's 21 updates into 2.4e9 rows
 * asked 19 GB of row winners and met the OOM killer): the winners in a
 * table of the targets, at most twice the contributions' slots. */
static sl_status sl__cl_assign_sparse(sl_ctx *ctx, const sl__clines *p,
                                      int threads) {
  sl__slots tab;
  sl_status st = sl__slots_open(ctx, p->what, &tab, p->m);
  if (st) return st;
  const int64_t size = tab.mask + 1;
  int64_t *winner = sl__malloc((size_t)size * sizeof *winner);
  if (!winner) {
    sl__slots_close(&tab);
    return sl_ctx_fail(ctx, SL_STATUS_OUT_OF_MEMORY,
                       "%s: expected memory for %lld row winners, got an "
                       "allocation failure",
                       p->what, (long long)size);
  }
  for (int64_t s = 0; s < size; ++s) winner[s] = -1;
  int team = sl__conflict_team(threads, p->m);
#pragma omp parallel for num_threads(team) schedule(static) if (team > 1)
  for (int64_t i = 0; i < p->m; ++i)
    sl__atomic_max_i64(&winner[sl__slot(&tab, sl__cl_target(p, 0, i))], i);
  team = sl__conflict_team(threads, p->m * p->L);
#pragma omp parallel for num_threads(team) schedule(static) if (team > 1)
  for (int64_t i = 0; i < p->m; ++i) {
    const int64_t t = sl__cl_target(p, 0, i);
    if (winner[sl__slot(&tab, t)] == i) sl__cl_copy_row(p, t, i);
  }
  sl__slots_close(&tab);
  sl__free(winner);
  return SL_STATUS_OK;
}

/*
 * Assignment (index_reduce's assign) the atomic way: every row t keeps the
 * largest contribution number aimed at it (an atomic max, the mirror of
 * seed 004's atomicMin of the point index), then each row copies its
 * winner's elements. The last writer wins, as in the serial loop. The
 * winners live per row, or, where the targets are few beside the rows, in
 * a table of the targets (memory by the contributions, not by x).
 */
static sl_status sl__cl_assign_atomic(sl_ctx *ctx, const sl__clines *p,
                                      int threads) {
  return sl__sparse(p->n, p->m) ? sl__cl_assign_sparse(ctx, p, threads)
                                : sl__cl_assign_dense(ctx, p, threads);
}

sl_status sl__clines_atomic(sl_ctx *ctx, const sl__clines *p, int threads) {
  if (sl__cl_empty(p)) return SL_STATUS_OK;
  if (p->reduce == SL_REDUCE_ASSIGN) {
    if (p->rows) return sl__cl_assign_atomic(ctx, p, threads);
    threads = 1; /* no op assigns per element; keep it correct anyway */
  }
  sl__acc a;
  sl_status st = sl__cl_acc_open(ctx, p, &a);
  if (st) return st;
  if (threads == 1) {
    st = sl__cl_serial(ctx, p, &a);
  } else {
    /* The preparation ends (a barrier) before any combine starts. */
    st = sl__cl_prepare(ctx, p, &a, threads);
    if (!st) sl__cl_pass(p, &a, NULL, SL__CL_ATOMIC, threads);
  }
  if (!st) sl__acc_finish(&a, threads, sl__cl_where, p);
  sl__acc_close(&a);
  return st;
}

sl_status sl__clines_lock(sl_ctx *ctx, const sl__clines *p, int threads) {
  if (sl__cl_empty(p)) return SL_STATUS_OK;
  sl__acc a;
  sl_status st = sl__cl_acc_open(ctx, p, &a);
  if (st) return st;
  sl__locks lk;
  st = sl__locks_open(ctx, p->what, &lk, p->rows ? p->n : p->L * p->n);
  if (st) {
    sl__acc_close(&a);
    return st;
  }
  st = sl__cl_prepare(ctx, p, &a, threads);
  if (!st) {
    sl__cl_pass(p, &a, &lk, SL__CL_PLAIN, threads);
    sl__acc_finish(&a, threads, sl__cl_where, p);
  }
  sl__locks_close(&lk);
  sl__acc_close(&a);
  return st;
}

/* The records of chunk t (contributions [i0, i1) of every line), in
 * contribution order: count (payload NULL) or put. Rows: key t, payload the
 * contribution number; elements: key e, payload the element. */
static void sl__cl_records(const sl__clines *p, sl__recs *r, int t, int put) {
  const int64_t i0 = sl__recs_begin(r, t), i1 = sl__recs_begin(r, t + 1);
  for (int64_t i = i0; i < i1; ++i) {
    if (p->rows) {
      const uint32_t key = (uint32_t)sl__cl_target(p, 0, i);
      if (put)
        sl__recs_put(r, t, key, &i);
      else
        sl__recs_count(r, t, key);
      continue;
    }
    for (int64_t l = 0; l < p->L; ++l) {
      const uint32_t key = (uint32_t)sl__cl_e(p, l, sl__cl_target(p, l, i));
      if (put)
        sl__recs_put(r, t, key, sl__cl_src(p, l, i));
      else
        sl__recs_count(r, t, key);
    }
  }
}

/* An element-mode bucket on the direct path (sl__cl_direct_ok), with a
 * constant dtype: one typed step per record. */
SL__HOT void sl__cl_bucket_direct(sl_dtype dt, const sl__clines *p,
                                  const sl__recs *r, int64_t b,
                                  sl__cl_mode mode) {
  const int64_t es = dt == SL_F32 || dt == SL_I32 ? 4 : 8;
  for (int64_t k = r->start[b]; k < r->start[b + 1]; ++k) {
    const int64_t e = sl__recs_key(r, k);
    char *dst = p->elinear ? p->out + e * p->eunit * es : sl__cl_where(p, e);
    if (mode == SL__CL_PREPARE)
      sl__store_identity(dt, p->reduce, dst);
    else
      sl__plain_elem(dt, p->reduce, dst, sl__recs_val(r, k));
  }
}

/* Applies the records of bucket b in order; the bucket owns their
 * destinations, so plain steps suffice. */
static void sl__cl_bucket(const sl__clines *p, const sl__acc *a,
                          const sl__recs *r, int64_t b, sl__cl_mode mode) {
  if (!p->rows && sl__cl_direct_ok(p, a)) {
    SL__WITH_DTYPE(p->dt, sl__cl_bucket_direct, p, r, b, mode);
    return;
  }
  const int dense = a->slots.key == NULL;
  for (int64_t k = r->start[b]; k < r->start[b + 1]; ++k) {
    const unsigned char *val = sl__recs_val(r, k);
    if (p->rows) {
      int64_t i;
      memcpy(&i, val, sizeof i);
      const int64_t t = sl__recs_key(r, k);
      if (p->dense && mode == SL__CL_PLAIN && sl__cl_direct_ok(p, a)) {
        sl__row_plain(p->dt, p->reduce, sl__cl_dst(p, 0, t), p->olstep,
                      sl__cl_src(p, 0, i), p->slstep, p->L);
        continue;
      }
      for (int64_t l = 0; l < p->L; ++l) sl__cl_elem(p, a, mode, l, i, t);
      continue;
    }
    const int64_t e = sl__recs_key(r, k);
    char *dst = sl__cl_where(p, e);
    if (mode == SL__CL_PREPARE)
      sl__acc_prepare(a, e, dst);
    else if (dense)
      sl__acc_plain_at(a, e, dst, val);
    else
      sl__acc_plain(a, e, dst, val);
  }
}

sl_status sl__clines_sorted(sl_ctx *ctx, const sl__clines *p, int threads) {
  if (sl__cl_empty(p)) return SL_STATUS_OK;
  const int64_t K = p->rows ? p->n : p->L * p->n;
  sl__acc a;
  sl_status st = sl__cl_acc_open(ctx, p, &a);
  if (st) return st;
  if (!sl__recs_fit(p->rows ? p->m : p->L * p->m, K)) {
    /* Too many inputs to number: input order on one thread is the same
     * answer. */
    st = sl__cl_serial(ctx, p, &a);
    if (!st) sl__acc_finish(&a, 1, sl__cl_where, p);
    sl__acc_close(&a);
    return st;
  }
  /* Chunks split the contributions; in element mode each contribution
   * number emits one record per line. */
  sl__recs r;
  st = sl__recs_open(ctx, p->what, &r, p->m, p->rows ? 1 : p->L, K,
                     p->rows ? sizeof(int64_t) : (size_t)p->es, threads);
  if (st) {
    sl__acc_close(&a);
    return st;
  }
#pragma omp parallel for num_threads(r.parts) schedule(static) if (r.parts > 1)
  for (int t = 0; t < r.parts; ++t) sl__cl_records(p, &r, t, 0);
  sl__recs_offsets(&r);
#pragma omp parallel for num_threads(r.parts) schedule(static) if (r.parts > 1)
  for (int t = 0; t < r.parts; ++t) sl__cl_records(p, &r, t, 1);
  /* Rows are prepared once each, up front; elements in their bucket. */
  const int prepare = !p->rows && sl__acc_needs_prepare(&a);
  if (p->rows) st = sl__cl_prepare(ctx, p, &a, threads);
  if (!st) {
#pragma omp parallel for num_threads(r.parts)                                  \
    schedule(dynamic, 1) if (r.parts > 1)
    for (int64_t b = 0; b < r.buckets; ++b) {
      if (prepare) sl__cl_bucket(p, &a, &r, b, SL__CL_PREPARE);
      sl__cl_bucket(p, &a, &r, b, SL__CL_PLAIN);
    }
    sl__acc_finish(&a, threads, sl__cl_where, p);
  }
  sl__recs_close(&r);
  sl__acc_close(&a);
  return st;
}
