/*
 * dynamic_scatter_backward parallel over its points (conflict.h). Only max has
 * conflicts: pass 1 finds, per voxel v and channel ch, the smallest point n
 * with map[n] = v and feats[n,ch] == voxel_feats[v,ch]. The minima are laid
 * out voxel-major ([M][C], mmcv's reduce_from) so that a point's channels
 * are neighbours.
 *   cpu.atomic  seed 004 scheme 1: every matching point makes an atomic min
 *               of its index into the voxel's slot (CUDA's atomicMin);
 *   cpu.lock    seed 004 scheme 2: one lock per voxel row (`is_occupy`);
 *               a point takes its voxel's lock and lowers the row's minima
 *               under it;
 *   cpu.sorted  points bucketed by voxel (a stable counting sort), each
 *               bucket scanned in point order by one thread: the first
 *               match of a slot is its minimum.
 * The minimum of a set does not depend on the order of arrival, so all
 * three give the serial answer exactly (the contract in
 * dynamic_scatter_backward.c: exact). Pass 2 (and sum
 * and mean, which have no pass 1) is the common one (sl__dsb_run).
 */
#include "conflict.h"
#include "dynamic_scatter_backward_cpu.h"

/* Every minimum starts as N ("no point"). */
static void sl__dsbc_clear(const sl_call *c, int threads, int64_t *first) {
  const int64_t N = c->arg[1].shape[0];
  const int64_t MC = c->arg[0].shape[0] * c->arg[1].shape[1];
  const int team = sl__conflict_team(threads, MC);
#pragma omp parallel for num_threads(team) schedule(static) if (team > 1)
  for (int64_t k = 0; k < MC; ++k) first[k] = N;
}

static sl_status sl__dsbc_find_atomic(sl_ctx *ctx, const sl_call *c,
                                      int threads, int64_t *first) {
  (void)ctx;
  const sl_tensor *map = &c->arg[3];
  const int64_t N = c->arg[1].shape[0], C = c->arg[1].shape[1];
  sl__dsbc_clear(c, threads, first);
  const int team = sl__conflict_team(threads, N * C);
#pragma omp parallel for num_threads(team) schedule(static) if (team > 1)
  for (int64_t n = 0; n < N; ++n) {
    const int64_t v = sl__dsb_i32(map, n);
    if (v < 0) continue;
    SL__DSB_FOR_MATCHES(c, n, v, C, ch,
                        sl__atomic_min_i64(&first[v * C + ch], n));
  }
  return SL_STATUS_OK;
}

static sl_status sl__dsbc_find_lock(sl_ctx *ctx, const sl_call *c, int threads,
                                    int64_t *first) {
  const sl_tensor *map = &c->arg[3];
  const int64_t N = c->arg[1].shape[0], C = c->arg[1].shape[1];
  const int64_t M = c->arg[0].shape[0];
  sl__locks lk;
  sl_status st = sl__locks_open(ctx, "dynamic_scatter_backward", &lk, M);
  if (st) return st;
  sl__dsbc_clear(c, threads, first);
  const int team = sl__conflict_team(threads, N * C);
#pragma omp parallel for num_threads(team) schedule(static) if (team > 1)
  for (int64_t n = 0; n < N; ++n) {
    const int64_t v = sl__dsb_i32(map, n);
    if (v < 0) continue;
    int64_t *row = first + v * C;
    sl__lock(&lk, v);
    SL__DSB_FOR_MATCHES(c, n, v, C, ch, if (n < row[ch]) row[ch] = n);
    sl__unlock(&lk, v);
  }
  sl__locks_close(&lk);
  return SL_STATUS_OK;
}

/* Records of chunk t in point order: key the voxel, payload the point;
 * dropped points have none. */
static void sl__dsbc_records(const sl_call *c, sl__recs *r, int t, int put) {
  const sl_tensor *map = &c->arg[3];
  for (int64_t n = sl__recs_begin(r, t); n < sl__recs_begin(r, t + 1); ++n) {
    const int64_t v = sl__dsb_i32(map, n);
    if (v < 0) continue;
    if (put)
      sl__recs_put(r, t, (uint32_t)v, &n);
    else
      sl__recs_count(r, t, (uint32_t)v);
  }
}

static sl_status sl__dsbc_find_sorted(sl_ctx *ctx, const sl_call *c,
                                      int threads, int64_t *first) {
  const int64_t N = c->arg[1].shape[0], C = c->arg[1].shape[1];
  const int64_t M = c->arg[0].shape[0];
  sl__recs r;
  /* N and M are bounded by INT32_MAX (the map is i32): they always fit. */
  sl_status st = sl__recs_open(ctx, "dynamic_scatter_backward", &r, N, 1, M,
                               sizeof(int64_t), threads);
  if (st) return st;
#pragma omp parallel for num_threads(r.parts) schedule(static) if (r.parts > 1)
  for (int t = 0; t < r.parts; ++t) sl__dsbc_records(c, &r, t, 0);
  sl__recs_offsets(&r);
#pragma omp parallel for num_threads(r.parts) schedule(static) if (r.parts > 1)
  for (int t = 0; t < r.parts; ++t) sl__dsbc_records(c, &r, t, 1);
  sl__dsbc_clear(c, threads, first);
#pragma omp parallel for num_threads(r.parts)                                  \
    schedule(dynamic, 1) if (r.parts > 1)
  for (int64_t b = 0; b < r.buckets; ++b)
    for (int64_t k = r.start[b]; k < r.start[b + 1]; ++k) {
      int64_t n;
      memcpy(&n, sl__recs_val(&r, k), sizeof n);
      const int64_t v = sl__recs_key(&r, k);
      int64_t *row = first + v * C;
      /* Points come in increasing index: the first match is the minimum. */
      SL__DSB_FOR_MATCHES(c, n, v, C, ch, if (row[ch] == N) row[ch] = n);
    }
  sl__recs_close(&r);
  return SL_STATUS_OK;
}

sl_status sl_dynamic_scatter_backward_cpu_atomic(sl_ctx *ctx, sl_call *c) {
  return sl__dsb_run(ctx, c, sl__threads(ctx), sl__dsbc_find_atomic);
}

sl_status sl_dynamic_scatter_backward_cpu_lock(sl_ctx *ctx, sl_call *c) {
  return sl__dsb_run(ctx, c, sl__threads(ctx), sl__dsbc_find_lock);
}

sl_status sl_dynamic_scatter_backward_cpu_sorted(sl_ctx *ctx, sl_call *c) {
  return sl__dsb_run(ctx, c, sl__threads(ctx), sl__dsbc_find_sorted);
}
