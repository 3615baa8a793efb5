/*
 * dynamic_scatter on the GPU: the voxels are found on the device, then the
 * features are reduced with one of the strategies of cuda/reduce_engine.cuh
 * (cuda.atomic, cuda.lock, cuda.sorted, cuda.warp).
 *
 * Unique rows, shared by the four variants:
 *   1. One pass over the points: a point is valid when no coordinate is
 *      negative (an invalid one gets point2voxel_map = -1); the maximum of
 *      every column over the valid points; the valid points compacted in
 *      point order (CUB select). The count and the maxima are read back.
 *   2. A stable radix sort of the valid points by their coordinate rows.
 *      When the columns' bit widths add up to at most 64, one sort of the
 *      rows packed into 64-bit keys (first column most significant);
 *      otherwise one 32-bit pass per column, last column first (LSD).
 *      Stability keeps the points of one voxel in increasing point index.
 *   3. A sorted point starts a voxel when its row differs from the one
 *      before; an inclusive scan of those heads numbers the voxels in
 *      lexicographic order (M is read back). Then every valid point gets
 *      its voxel in point2voxel_map, every voxel its coordinates, its count
 *      and its first sorted slot.
 * Reduction: contribution n is point n's row of C features, aimed at row
 * map[n] of voxel_feats (rows [0,M) start from the identity: 0 for sum and
 * mean, -inf for max; every voxel has a point). cuda.sorted reuses step 2's
 * order, so it needs no second sort: its voxels of at most 32 points are
 * summed in point order, bitwise as the CPU does.
 */
#include <cub/device/device_select.cuh>
#include <stdio.h>

#include "cuda/reduce_engine.cuh"

/* Contribution n: feats row n into voxel_feats row map[n] (skipped when -1). */
struct sl__dyn_addr {
  int64_t rows, width, dests;
  const int32_t *map;
  int64_t ms, fs0, fs1, os0, os1;
  __device__ bool row(int64_t n, int64_t *dest, int64_t *sb,
                      int64_t *ob) const {
    const int64_t v = map[n * ms];
    if (v < 0) return false;
    *dest = v;
    *sb = n * fs0;
    *ob = v * os0;
    return true;
  }
  __device__ int64_t scol(int64_t j) const { return j * fs1; }
  __device__ int64_t ocol(int64_t j) const { return j * os1; }
  __device__ int64_t obase_of(int64_t dest) const { return dest * os0; }
};

/* The coordinates: coors [N,D] i32 with strides (cs0, cs1). */
struct sl__coors {
  const int32_t *p;
  int64_t n, d, cs0, cs1;
  __device__ int32_t at(int64_t i, int64_t k) const {
    return p[i * cs0 + k * cs1];
  }
};

__global__ void sl__dyn_valid_k(sl__coors co, int32_t *map, int64_t ms,
                                unsigned char *flag, uint32_t *iota,
                                int32_t *colmax) {
  SL__GRID_STRIDE(i, co.n) {
    int ok = 1;
    for (int64_t k = 0; k < co.d && ok; ++k) ok = co.at(i, k) >= 0;
    flag[i] = (unsigned char)ok;
    iota[i] = (uint32_t)i;
    if (!ok) {
      map[i * ms] = -1;
      continue;
    }
    for (int64_t k = 0; k < co.d; ++k) atomicMax(colmax + k, co.at(i, k));
  }
}

/* Packed keys: column k shifted by shift[k] (first column highest). */
struct sl__shifts {
  int s[64];
};

__global__ void sl__dyn_pack_k(sl__coors co, const uint32_t *valid, int64_t nv,
                               sl__shifts sh, unsigned long long *keys) {
  SL__GRID_STRIDE(k, nv) {
    const int64_t i = valid[k];
    unsigned long long key = 0;
    for (int64_t c = 0; c < co.d; ++c)
      key |= (unsigned long long)(uint32_t)co.at(i, c) << sh.s[c];
    keys[k] = key;
  }
}

__global__ void sl__dyn_column_k(sl__coors co, const uint32_t *perm, int64_t nv,
                                 int64_t c, uint32_t *keys) {
  SL__GRID_STRIDE(k, nv) { keys[k] = (uint32_t)co.at(perm[k], c); }
}

__global__ void sl__dyn_heads_k(sl__coors co, const uint32_t *perm, int64_t nv,
                                uint32_t *head) {
  SL__GRID_STRIDE(k, nv) {
    uint32_t h = k == 0;
    for (int64_t c = 0; c < co.d && !h; ++c)
      h = co.at(perm[k], c) != co.at(perm[k - 1], c);
    head[k] = h;
  }
}

/* vid is the inclusive scan of the heads: voxel vid[k] - 1. */
__global__ void sl__dyn_emit_k(sl__coors co, const uint32_t *perm, int64_t nv,
                               const uint32_t *head, const uint32_t *vid,
                               int32_t *map, int64_t ms, int32_t *vcoors,
                               int64_t vs0, int64_t vs1, uint32_t *start) {
  SL__GRID_STRIDE(k, nv) {
    const uint32_t v = vid[k] - 1, i = perm[k];
    map[(int64_t)i * ms] = (int32_t)v;
    if (!head[k]) continue;
    start[v] = (uint32_t)k;
    for (int64_t c = 0; c < co.d; ++c)
      vcoors[(int64_t)v * vs0 + c * vs1] = co.at(i, c);
  }
}

__global__ void sl__dyn_counts_k(const uint32_t *start, int64_t m, int64_t nv,
                                 int32_t *count, int64_t cs, uint32_t *lens) {
  SL__GRID_STRIDE(v, m) {
    const uint32_t e = v + 1 < m ? start[v + 1] : (uint32_t)nv;
    const uint32_t len = e - start[v];
    count[v * cs] = (int32_t)len;
    lens[v] = len;
  }
}

template <class F>
static sl_status sl__dyn_reduce(sl_ctx *ctx, cudaStream_t s, sl__ws &ws,
                                sl__strategy how, const sl__dyn_addr &a,
                                const sl_call *c, const uint32_t *perm,
                                const uint32_t *lens) {
  const F *feats = (const F *)c->arg[0].data;
  F *vfeats = (F *)c->arg[2].data;
  if (how == SL__SORTED)
    return sl__reduce_segments<F, sl__dyn_addr>(
        ctx, s, ws, a, feats, vfeats, c->p.reduce, 0, perm, lens, a.dests);
  return sl__reduce<F, sl__dyn_addr>(ctx, s, ws, how, a, feats, vfeats,
                                     c->p.reduce, 0);
}

/* What the steps of one call share. */
struct sl__dyn_run {
  sl_ctx *ctx;
  cudaStream_t s;
  sl__coors co;
  int32_t *mp;
  int64_t ms, nv, M;
  uint32_t *valid, *perm, *perm2, *lens;
  int total_bits;
  sl__shifts sh;
  int *colbits; /* malloc'd: each column's width in bits */
};

/* The column widths from their maxima (host): the packed key's shifts and
 * its total width. */
static sl_status sl__dyn_widths(sl__dyn_run &r, const int32_t *hmax) {
  const int64_t D = r.co.d;
  r.total_bits = 0;
  memset(&r.sh, 0, sizeof r.sh);
  for (int64_t k = D - 1; k >= 0; --k) {
    if (k < 64) r.sh.s[k] = r.total_bits;
    r.total_bits += sl__bits_for((uint64_t)hmax[k]);
  }
  r.colbits = (int *)malloc((size_t)D * sizeof *r.colbits);
  for (int64_t k = 0; r.colbits && k < D; ++k)
    r.colbits[k] = sl__bits_for((uint64_t)hmax[k]);
  if (!r.colbits)
    return sl_ctx_fail(r.ctx, SL_STATUS_OUT_OF_MEMORY,
                       "dynamic_scatter: expected host memory for %lld column "
                       "widths, got none",
                       (long long)D);
  return SL_STATUS_OK;
}

/* 1. Validity, column maxima, compaction: r.valid holds the r.nv valid
 * points; the widths follow from the maxima. */
static sl_status sl__dyn_select(sl__dyn_run &r, sl__ws &ws) {
  sl_ctx *ctx = r.ctx;
  const int64_t N = r.co.n, D = r.co.d;
  unsigned char *flag;
  uint32_t *iota, *nsel;
  int32_t *colmax;
  SL__TRY(ws.get(&flag, (size_t)N, "dynamic_scatter: flags"));
  SL__TRY(ws.get(&iota, (size_t)N, "dynamic_scatter: points"));
  SL__TRY(ws.get(&r.valid, (size_t)N, "dynamic_scatter: points"));
  SL__TRY(ws.get(&nsel, 1, "dynamic_scatter: count"));
  SL__TRY(ws.get_set(&colmax, (size_t)D, 0, "dynamic_scatter: maxima"));
  sl__dyn_valid_k<<<sl__blocks(N, SL__THREADS), SL__THREADS, 0, r.s>>>(
      r.co, r.mp, r.ms, flag, iota, colmax);
  SL__CUDA_LAUNCHED(ctx, "dynamic_scatter: validity kernel");
  size_t t1 = 0;
  SL__CUDA_TRY(ctx,
               cub::DeviceSelect::Flagged(nullptr, t1, iota, flag, r.valid,
                                          nsel, N, r.s),
               "dynamic_scatter: select size");
  unsigned char *tmp;
  SL__TRY(ws.get(&tmp, t1, "dynamic_scatter: select workspace"));
  SL__CUDA_TRY(
      ctx,
      cub::DeviceSelect::Flagged(tmp, t1, iota, flag, r.valid, nsel, N, r.s),
      "dynamic_scatter: select the valid points");
  uint32_t nv32 = 0;
  int32_t *hmax = (int32_t *)malloc((size_t)D * sizeof *hmax);
  if (!hmax)
    return sl_ctx_fail(ctx, SL_STATUS_OUT_OF_MEMORY,
                       "dynamic_scatter: expected host memory for %lld column "
                       "maxima, got none",
                       (long long)D);
  cudaError_t e =
      cudaMemcpyAsync(&nv32, nsel, sizeof nv32, cudaMemcpyDeviceToHost, r.s);
  if (e == cudaSuccess)
    e = cudaMemcpyAsync(hmax, colmax, (size_t)D * sizeof *hmax,
                        cudaMemcpyDeviceToHost, r.s);
  if (e == cudaSuccess) e = cudaStreamSynchronize(r.s);
  sl_status st =
      e == cudaSuccess
          ? sl__dyn_widths(r, hmax)
          : sl__cuda_fail(ctx, e, "dynamic_scatter: read the valid count");
  free(hmax);
  r.nv = nv32;
  return st;
}

/* 2a. Rows that fit 64 bits: one radix sort of the packed keys. */
static sl_status sl__dyn_sort_packed(sl__dyn_run &r, sl__ws &ws) {
  unsigned long long *keys, *skeys;
  sl_status st = ws.get(&keys, (size_t)r.nv, "dynamic_scatter: keys");
  if (!st) st = ws.get(&skeys, (size_t)r.nv, "dynamic_scatter: keys");
  if (st) return st;
  sl__dyn_pack_k<<<sl__blocks(r.nv, SL__THREADS), SL__THREADS, 0, r.s>>>(
      r.co, r.valid, r.nv, r.sh, keys);
  cudaError_t e = cudaGetLastError();
  size_t t2 = 0;
  if (e == cudaSuccess)
    e = cub::DeviceRadixSort::SortPairs(nullptr, t2, keys, skeys, r.valid,
                                        r.perm, r.nv, 0, r.total_bits, r.s);
  unsigned char *tmp2 = nullptr;
  if (e == cudaSuccess) st = ws.get(&tmp2, t2, "dynamic_scatter: sort");
  if (e == cudaSuccess && !st)
    e = cub::DeviceRadixSort::SortPairs(tmp2, t2, keys, skeys, r.valid, r.perm,
                                        r.nv, 0, r.total_bits, r.s);
  if (e != cudaSuccess)
    st = sl__cuda_fail(r.ctx, e, "dynamic_scatter: sort packed rows");
  return st;
}

/* 2b. LSD: one stable pass per column, last column first. */
static sl_status sl__dyn_sort_columns(sl__dyn_run &r, sl__ws &ws) {
  uint32_t *keys, *skeys;
  sl_status st = ws.get(&keys, (size_t)r.nv, "dynamic_scatter: keys");
  if (!st) st = ws.get(&skeys, (size_t)r.nv, "dynamic_scatter: keys");
  size_t t2 = 0;
  cudaError_t e = cudaSuccess;
  if (!st) {
    e = cub::DeviceRadixSort::SortPairs(nullptr, t2, keys, skeys, r.perm,
                                        r.perm2, r.nv, 0, 32, r.s);
    if (e != cudaSuccess)
      st = sl__cuda_fail(r.ctx, e, "dynamic_scatter: sort size");
  }
  unsigned char *tmp2 = nullptr;
  if (!st) st = ws.get(&tmp2, t2, "dynamic_scatter: sort");
  if (!st)
    e = cudaMemcpyAsync(r.perm, r.valid, (size_t)r.nv * sizeof *r.perm,
                        cudaMemcpyDeviceToDevice, r.s);
  for (int64_t k = r.co.d - 1; !st && e == cudaSuccess && k >= 0; --k) {
    sl__dyn_column_k<<<sl__blocks(r.nv, SL__THREADS), SL__THREADS, 0, r.s>>>(
        r.co, r.perm, r.nv, k, keys);
    e = cudaGetLastError();
    if (e == cudaSuccess)
      e = cub::DeviceRadixSort::SortPairs(tmp2, t2, keys, skeys, r.perm,
                                          r.perm2, r.nv, 0, r.colbits[k], r.s);
    uint32_t *t = r.perm;
    r.perm = r.perm2;
    r.perm2 = t;
  }
  if (!st && e != cudaSuccess)
    st = sl__cuda_fail(r.ctx, e, "dynamic_scatter: sort by column");
  return st;
}

/* 3. Voxels: heads of equal rows, numbered by a scan; each point's voxel,
 * each voxel's coordinates, start and size. */
static sl_status sl__dyn_voxels(sl__dyn_run &r, sl__ws &ws, sl_call *c) {
  sl_ctx *ctx = r.ctx;
  const sl_tensor *vcoors = &c->arg[3], *count = &c->arg[5];
  const int64_t nv = r.nv;
  uint32_t *head, *vid, *start;
  SL__TRY(ws.get(&head, (size_t)nv, "dynamic_scatter: heads"));
  SL__TRY(ws.get(&vid, (size_t)nv, "dynamic_scatter: voxel ids"));
  sl__dyn_heads_k<<<sl__blocks(nv, SL__THREADS), SL__THREADS, 0, r.s>>>(
      r.co, r.perm, nv, head);
  SL__CUDA_LAUNCHED(ctx, "dynamic_scatter: head kernel");
  size_t t3 = 0;
  SL__CUDA_TRY(ctx,
               cub::DeviceScan::InclusiveSum(nullptr, t3, head, vid, nv, r.s),
               "dynamic_scatter: scan size");
  unsigned char *tmp3;
  SL__TRY(ws.get(&tmp3, t3, "dynamic_scatter: scan workspace"));
  SL__CUDA_TRY(ctx, cub::DeviceScan::InclusiveSum(tmp3, t3, head, vid, nv, r.s),
               "dynamic_scatter: number the voxels");
  uint32_t m32 = 0;
  SL__CUDA_TRY(ctx,
               cudaMemcpyAsync(&m32, vid + nv - 1, sizeof m32,
                               cudaMemcpyDeviceToHost, r.s),
               "dynamic_scatter: read the voxel count");
  SL__CUDA_TRY(ctx, cudaStreamSynchronize(r.s), "dynamic_scatter: wait");
  r.M = m32;
  SL__TRY(ws.get(&start, (size_t)r.M, "dynamic_scatter: voxel starts"));
  SL__TRY(
      ws.get_set(&r.lens, (size_t)r.M + 1, 0, "dynamic_scatter: voxel sizes"));
  sl__dyn_emit_k<<<sl__blocks(nv, SL__THREADS), SL__THREADS, 0, r.s>>>(
      r.co, r.perm, nv, head, vid, r.mp, r.ms, (int32_t *)vcoors->data,
      vcoors->strides[0], vcoors->strides[1], start);
  SL__CUDA_LAUNCHED(ctx, "dynamic_scatter: voxel kernel");
  sl__dyn_counts_k<<<sl__blocks(r.M, SL__THREADS), SL__THREADS, 0, r.s>>>(
      start, r.M, nv, (int32_t *)count->data, count->strides[0], r.lens);
  SL__CUDA_LAUNCHED(ctx, "dynamic_scatter: count kernel");
  return SL_STATUS_OK;
}

/* 4. The features, reduced into their voxels. cuda.sorted walks perm: the
 * valid points in voxel order, each a row id (its point index) of this
 * addressing. */
static sl_status sl__dyn_features(sl__dyn_run &r, sl__ws &ws, sl_call *c,
                                  sl__strategy how) {
  const sl_tensor *feats = &c->arg[0], *vfeats = &c->arg[2];
  sl__dyn_addr a;
  memset(&a, 0, sizeof a);
  a.rows = feats->shape[0];
  a.width = feats->shape[1];
  a.dests = r.M;
  a.map = r.mp;
  a.ms = r.ms;
  a.fs0 = feats->strides[0];
  a.fs1 = feats->strides[1];
  a.os0 = vfeats->strides[0];
  a.os1 = vfeats->strides[1];
  if (feats->dtype == SL_F32)
    return sl__dyn_reduce<float>(r.ctx, r.s, ws, how, a, c, r.perm, r.lens);
  return sl__dyn_reduce<double>(r.ctx, r.s, ws, how, a, c, r.perm, r.lens);
}

static sl_status sl__dyn_cuda(sl_ctx *ctx, sl_call *c, sl__strategy how) {
  const sl_tensor *feats = &c->arg[0], *coors = &c->arg[1];
  const sl_tensor *map = &c->arg[4];
  const int64_t N = feats->shape[0];
  c->out_rows = 0;
  if (N == 0) return SL_STATUS_OK;
  sl__dyn_run r;
  memset(&r, 0, sizeof r);
  r.ctx = ctx;
  SL__TRY(sl__cuda_begin(ctx, &r.s));
  sl__ws ws(ctx, r.s);
  r.co = {(const int32_t *)coors->data, N, coors->shape[1], coors->strides[0],
          coors->strides[1]};
  r.mp = (int32_t *)map->data;
  r.ms = map->strides[0];
  sl_status st = sl__dyn_select(r, ws);
  if (!st && r.nv > 0) { /* nv == 0: every map entry is -1; M = 0 */
    st = ws.get(&r.perm, (size_t)r.nv, "dynamic_scatter: order");
    if (!st) st = ws.get(&r.perm2, (size_t)r.nv, "dynamic_scatter: order");
    if (!st)
      st = r.total_bits <= 64 && r.co.d <= 64 ? sl__dyn_sort_packed(r, ws)
                                              : sl__dyn_sort_columns(r, ws);
    if (!st) st = sl__dyn_voxels(r, ws, c);
    if (!st) st = sl__dyn_features(r, ws, c, how);
    if (!st) c->out_rows = r.M;
  }
  free(r.colbits);
  return st;
}

sl_status sl_dynamic_scatter_cuda_atomic(sl_ctx *ctx, sl_call *c) {
  return sl__dyn_cuda(ctx, c, SL__ATOMIC);
}

sl_status sl_dynamic_scatter_cuda_lock(sl_ctx *ctx, sl_call *c) {
  return sl__dyn_cuda(ctx, c, SL__LOCK);
}

sl_status sl_dynamic_scatter_cuda_sorted(sl_ctx *ctx, sl_call *c) {
  return sl__dyn_cuda(ctx, c, SL__SORTED);
}

sl_status sl_dynamic_scatter_cuda_warp(sl_ctx *ctx, sl_call *c) {
  return sl__dyn_cuda(ctx, c, SL__WARP);
}
