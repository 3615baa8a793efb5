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

static sl_status sl__dyn_cuda(sl_ctx *ctx, sl_call *c, sl__strategy how) {
  const sl_tensor *feats = &c->arg[0], *coors = &c->arg[1];
  const sl_tensor *vfeats = &c->arg[2], *vcoors = &c->arg[3];
  const sl_tensor *map = &c->arg[4], *count = &c->arg[5];
  const int64_t N = feats->shape[0], C = feats->shape[1], D = coors->shape[1];
  c->out_rows = 0;
  if (N == 0) return SL_STATUS_OK;
  cudaStream_t s;
  SL__TRY(sl__cuda_begin(ctx, &s));
  sl__ws ws(ctx, s);
  sl__coors co = {(const int32_t *)coors->data, N, D, coors->strides[0],
                  coors->strides[1]};
  int32_t *mp = (int32_t *)map->data;
  const int64_t ms = map->strides[0];
  /* 1. Validity, column maxima, compaction. */
  unsigned char *flag;
  uint32_t *iota, *valid, *nsel;
  int32_t *colmax;
  SL__TRY(ws.get(&flag, (size_t)N, "dynamic_scatter: flags"));
  SL__TRY(ws.get(&iota, (size_t)N, "dynamic_scatter: points"));
  SL__TRY(ws.get(&valid, (size_t)N, "dynamic_scatter: points"));
  SL__TRY(ws.get(&nsel, 1, "dynamic_scatter: count"));
  SL__TRY(ws.get_set(&colmax, (size_t)D, 0, "dynamic_scatter: maxima"));
  sl__dyn_valid_k<<<sl__blocks(N, SL__THREADS), SL__THREADS, 0, s>>>(
      co, mp, ms, flag, iota, colmax);
  SL__CUDA_LAUNCHED(ctx, "dynamic_scatter: validity kernel");
  size_t t1 = 0;
  SL__CUDA_TRY(
      ctx,
      cub::DeviceSelect::Flagged(nullptr, t1, iota, flag, valid, nsel, N, s),
      "dynamic_scatter: select size");
  unsigned char *tmp;
  SL__TRY(ws.get(&tmp, t1, "dynamic_scatter: select workspace"));
  SL__CUDA_TRY(
      ctx, cub::DeviceSelect::Flagged(tmp, t1, iota, flag, valid, nsel, N, s),
      "dynamic_scatter: select the valid points");
  uint32_t nv32 = 0;
  int32_t *hmax = (int32_t *)malloc((size_t)D * sizeof *hmax);
  if (!hmax)
    return sl_ctx_fail(ctx, SL_STATUS_OUT_OF_MEMORY,
                       "dynamic_scatter: expected host memory for %lld column "
                       "maxima, got none",
                       (long long)D);
  cudaError_t e =
      cudaMemcpyAsync(&nv32, nsel, sizeof nv32, cudaMemcpyDeviceToHost, s);
  if (e == cudaSuccess)
    e = cudaMemcpyAsync(hmax, colmax, (size_t)D * sizeof *hmax,
                        cudaMemcpyDeviceToHost, s);
  if (e == cudaSuccess) e = cudaStreamSynchronize(s);
  if (e != cudaSuccess) {
    free(hmax);
    return sl__cuda_fail(ctx, e, "dynamic_scatter: read the valid count");
  }
  const int64_t nv = nv32;
  int total_bits = 0;
  sl__shifts sh;
  memset(&sh, 0, sizeof sh);
  for (int64_t k = D - 1; k >= 0; --k) {
    if (k < 64) sh.s[k] = total_bits;
    total_bits += sl__bits_for((uint64_t)hmax[k]);
  }
  int *colbits = (int *)malloc((size_t)D * sizeof *colbits);
  for (int64_t k = 0; colbits && k < D; ++k)
    colbits[k] = sl__bits_for((uint64_t)hmax[k]);
  free(hmax);
  if (!colbits)
    return sl_ctx_fail(ctx, SL_STATUS_OUT_OF_MEMORY,
                       "dynamic_scatter: expected host memory for %lld column "
                       "widths, got none",
                       (long long)D);
  if (nv == 0) {
    free(colbits);
    return SL_STATUS_OK; /* every map entry is -1; M = 0 */
  }
  /* 2. Sort the valid points by their rows. */
  uint32_t *perm, *perm2;
  SL__TRY(ws.get(&perm, (size_t)nv, "dynamic_scatter: order"));
  SL__TRY(ws.get(&perm2, (size_t)nv, "dynamic_scatter: order"));
  sl_status st = SL_STATUS_OK;
  if (total_bits <= 64 && D <= 64) {
    unsigned long long *keys, *skeys;
    st = ws.get(&keys, (size_t)nv, "dynamic_scatter: keys");
    if (!st) st = ws.get(&skeys, (size_t)nv, "dynamic_scatter: keys");
    if (!st) {
      sl__dyn_pack_k<<<sl__blocks(nv, SL__THREADS), SL__THREADS, 0, s>>>(
          co, valid, nv, sh, keys);
      e = cudaGetLastError();
      size_t t2 = 0;
      if (e == cudaSuccess)
        e = cub::DeviceRadixSort::SortPairs(nullptr, t2, keys, skeys, valid,
                                            perm, nv, 0, total_bits, s);
      unsigned char *tmp2 = nullptr;
      if (e == cudaSuccess) st = ws.get(&tmp2, t2, "dynamic_scatter: sort");
      if (e == cudaSuccess && !st)
        e = cub::DeviceRadixSort::SortPairs(tmp2, t2, keys, skeys, valid, perm,
                                            nv, 0, total_bits, s);
      if (e != cudaSuccess)
        st = sl__cuda_fail(ctx, e, "dynamic_scatter: sort packed rows");
    }
  } else {
    /* LSD: one stable pass per column, last column first. */
    uint32_t *keys, *skeys;
    st = ws.get(&keys, (size_t)nv, "dynamic_scatter: keys");
    if (!st) st = ws.get(&skeys, (size_t)nv, "dynamic_scatter: keys");
    size_t t2 = 0;
    if (!st) {
      e = cub::DeviceRadixSort::SortPairs(nullptr, t2, keys, skeys, perm, perm2,
                                          nv, 0, 32, s);
      if (e != cudaSuccess)
        st = sl__cuda_fail(ctx, e, "dynamic_scatter: sort size");
    }
    unsigned char *tmp2 = nullptr;
    if (!st) st = ws.get(&tmp2, t2, "dynamic_scatter: sort");
    if (!st)
      e = cudaMemcpyAsync(perm, valid, (size_t)nv * sizeof *perm,
                          cudaMemcpyDeviceToDevice, s);
    for (int64_t k = D - 1; !st && e == cudaSuccess && k >= 0; --k) {
      sl__dyn_column_k<<<sl__blocks(nv, SL__THREADS), SL__THREADS, 0, s>>>(
          co, perm, nv, k, keys);
      e = cudaGetLastError();
      if (e == cudaSuccess)
        e = cub::DeviceRadixSort::SortPairs(tmp2, t2, keys, skeys, perm, perm2,
                                            nv, 0, colbits[k], s);
      uint32_t *t = perm;
      perm = perm2;
      perm2 = t;
    }
    if (!st && e != cudaSuccess)
      st = sl__cuda_fail(ctx, e, "dynamic_scatter: sort by column");
  }
  free(colbits);
  SL__TRY(st);
  /* 3. Voxels. */
  uint32_t *head, *vid, *start, *lens;
  SL__TRY(ws.get(&head, (size_t)nv, "dynamic_scatter: heads"));
  SL__TRY(ws.get(&vid, (size_t)nv, "dynamic_scatter: voxel ids"));
  sl__dyn_heads_k<<<sl__blocks(nv, SL__THREADS), SL__THREADS, 0, s>>>(co, perm,
                                                                      nv, head);
  SL__CUDA_LAUNCHED(ctx, "dynamic_scatter: head kernel");
  size_t t3 = 0;
  SL__CUDA_TRY(ctx,
               cub::DeviceScan::InclusiveSum(nullptr, t3, head, vid, nv, s),
               "dynamic_scatter: scan size");
  unsigned char *tmp3;
  SL__TRY(ws.get(&tmp3, t3, "dynamic_scatter: scan workspace"));
  SL__CUDA_TRY(ctx, cub::DeviceScan::InclusiveSum(tmp3, t3, head, vid, nv, s),
               "dynamic_scatter: number the voxels");
  uint32_t m32 = 0;
  SL__CUDA_TRY(ctx,
               cudaMemcpyAsync(&m32, vid + nv - 1, sizeof m32,
                               cudaMemcpyDeviceToHost, s),
               "dynamic_scatter: read the voxel count");
  SL__CUDA_TRY(ctx, cudaStreamSynchronize(s), "dynamic_scatter: wait");
  const int64_t M = m32;
  SL__TRY(ws.get(&start, (size_t)M, "dynamic_scatter: voxel starts"));
  SL__TRY(ws.get_set(&lens, (size_t)M + 1, 0, "dynamic_scatter: voxel sizes"));
  sl__dyn_emit_k<<<sl__blocks(nv, SL__THREADS), SL__THREADS, 0, s>>>(
      co, perm, nv, head, vid, mp, ms, (int32_t *)vcoors->data,
      vcoors->strides[0], vcoors->strides[1], start);
  SL__CUDA_LAUNCHED(ctx, "dynamic_scatter: voxel kernel");
  sl__dyn_counts_k<<<sl__blocks(M, SL__THREADS), SL__THREADS, 0, s>>>(
      start, M, nv, (int32_t *)count->data, count->strides[0], lens);
  SL__CUDA_LAUNCHED(ctx, "dynamic_scatter: count kernel");
  /* 4. The features. */
  sl__dyn_addr a;
  memset(&a, 0, sizeof a);
  a.rows = N;
  a.width = C;
  a.dests = M;
  a.map = mp;
  a.ms = ms;
  a.fs0 = feats->strides[0];
  a.fs1 = feats->strides[1];
  a.os0 = vfeats->strides[0];
  a.os1 = vfeats->strides[1];
  /* cuda.sorted walks perm: the valid points in voxel order, each a row id
   * (its point index) of this addressing. */
  if (feats->dtype == SL_F32)
    st = sl__dyn_reduce<float>(ctx, s, ws, how, a, c, perm, lens);
  else
    st = sl__dyn_reduce<double>(ctx, s, ws, how, a, c, perm, lens);
  SL__TRY(st);
  c->out_rows = M;
  return SL_STATUS_OK;
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
