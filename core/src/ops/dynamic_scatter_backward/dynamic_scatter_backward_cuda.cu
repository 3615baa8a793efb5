/*
 * dynamic_scatter_backward on the GPU. sum and mean are a gather (every
 * element of grad_feats from its voxel's gradient, divided by the count for
 * mean), the same in every variant. max needs, per voxel and channel, the
 * smallest point index whose feature equals the voxel's maximum (seed 004);
 * the variants differ in how they find it:
 *
 *   cuda.atomic  seed 004's scheme 1, two kernels: every matching (point,
 *                channel) does atomicMin(first[v,c], n); then every element
 *                of grad_feats takes the gradient where n == first[v,c].
 *   cuda.warp    scheme 1 aggregated over tiles and fused into one launch:
 *                a block loads a tile of 32 points x 32 channels (coalesced
 *                along the channels) into shared memory; a warp finds which
 *                points of the tile share a voxel (__match_any_sync), and a
 *                matching point does the atomicMin only when no earlier
 *                point of its voxel in the tile matched the channel. The
 *                lanes run along the channels, so a warp's atomics land on
 *                one row of the minima. The checks and the fill, the
 *                atomics, and the writes are the three phases of one
 *                cooperative kernel separated by grid-wide barriers (the
 *                others take four launches); four launches where the device
 *                cannot launch cooperatively.
 *   cuda.lock    seed 004's scheme 2 (is_occupy): a lock per voxel; a point
 *                takes its voxel's lock and lowers the voxel's minima of
 *                the channels it matches, with plain loads and stores.
 *   cuda.sorted  the points sorted by voxel (a stable radix sort of the map:
 *                increasing point index within a voxel), then one fused
 *                kernel: a warp per voxel scans its points per channel for
 *                the first match and writes every element of those points'
 *                rows. No atomics, no minima array, each element written
 *                once.
 *
 * The result is a function of the inputs (the smallest index is unique), so
 * every variant is deterministic. map and counts are checked on the device
 * (map in [-1, M), counts > 0), with the CPU's messages, by one pass whose
 * verdicts (two slots) are read back in one copy after the last kernel: a
 * wait for the device in the middle of the call cost more than the op
 * itself at seed 004's scale. Meanwhile the kernels take a map value out of
 * range for a dropped point.
 */
#include <cooperative_groups.h>
#include <stdio.h>

#include "cuda/cuda_slots.cuh"
#include "cuda/reduce_engine.cuh"

/* The tensors, as [rows, C] views with strides. */
template <class F> struct sl__dsb {
  const F *grad, *feats, *vfeats;
  F *out;
  const int32_t *map, *count;
  int64_t n, m, c;
  int64_t gs0, gs1, fs0, fs1, vs0, vs1, os0, os1, ms, ks;
  /* The point's voxel, -1 when dropped or out of range (the check fails
   * the call then). */
  __device__ int32_t voxel(int64_t i) const {
    const int32_t v = map[i * ms];
    return v >= 0 && v < m ? v : -1;
  }
  __device__ bool match(int64_t i, int64_t v, int64_t ch) const {
    return feats[i * fs0 + ch * fs1] == vfeats[v * vs0 + ch * vs1];
  }
};

/* The checks at element k: map[k] in [-1, M) (slot 0) and count[k] > 0
 * (slot 1); the smallest failing position of each is kept. */
template <class F>
__device__ __forceinline__ void sl__dsb_check_at(const sl__dsb<F> &t, int64_t k,
                                                 unsigned long long *bad) {
  if (k < t.n) {
    const int32_t v = t.map[k * t.ms];
    if (v < -1 || v >= t.m) atomicMin(bad, (unsigned long long)k);
  }
  if (k < t.m && t.count[k * t.ks] < 1)
    atomicMin(bad + 1, (unsigned long long)k);
}

template <class F>
__global__ void sl__dsb_check_k(sl__dsb<F> t, unsigned long long *bad) {
  SL__GRID_STRIDE(k, t.n > t.m ? t.n : t.m) { sl__dsb_check_at(t, k, bad); }
}

/* Element e (row-major) of grad_feats. */
template <class F>
__device__ __forceinline__ void
sl__dsb_write_one(const sl__dsb<F> &t, sl_reduce r, const int32_t *first,
                  const sl__divmod &cdiv, int64_t e) {
  const int64_t i = sl__div(cdiv, e), ch = e - i * t.c;
  const int64_t v = t.voxel(i);
  F g = 0;
  if (v >= 0 && (r != SL_REDUCE_MAX || first[v * t.c + ch] == i)) {
    g = t.grad[v * t.gs0 + ch * t.gs1];
    if (r == SL_REDUCE_MEAN) g = g / (F)t.count[v * t.ks];
  }
  t.out[i * t.os0 + ch * t.os1] = g;
}

/* sum, mean, and the last kernel of max: every element of grad_feats. */
template <class F>
__global__ void sl__dsb_write_k(sl__dsb<F> t, sl_reduce r, const int32_t *first,
                                sl__divmod cdiv) {
  SL__GRID_STRIDE(e, t.n * t.c) { sl__dsb_write_one(t, r, first, cdiv, e); }
}

__global__ void sl__dsb_fill_k(int32_t *first, int64_t n, int32_t value) {
  SL__GRID_STRIDE(i, n) { first[i] = value; }
}

/* Scheme 1: atomicMin per matching (point, channel). */
template <class F>
__global__ void sl__dsb_atomic_k(sl__dsb<F> t, int32_t *first,
                                 sl__divmod cdiv) {
  SL__GRID_STRIDE(e, t.n * t.c) {
    const int64_t i = sl__div(cdiv, e), ch = e - i * t.c;
    const int64_t v = t.voxel(i);
    if (v >= 0 && t.match(i, v, ch))
      atomicMin(first + v * t.c + ch, (int32_t)i);
  }
}

/* The shared memory of a tile of 32 points x 32 channels. */
struct sl__dsb_tile {
  unsigned char hit[32][33]; /* [point][channel]: matches its voxel's max */
  int32_t vox[32];           /* the points' voxels */
  unsigned same[32];         /* the tile's earlier points in the same voxel */
};

/* One tile by a block of (32, 8): the match flags into shared memory, then
 * per (point q, channel = lane) the atomicMin, unless an earlier point of
 * the tile in q's voxel matched the channel too (its index is smaller).
 * Every thread of the block calls it (it synchronises the block). */
template <class F>
__device__ __forceinline__ void
sl__dsb_warp_tile(const sl__dsb<F> &t, int32_t *first, int64_t p0, int64_t c0,
                  sl__dsb_tile &sh) {
  const int lane = threadIdx.x, w = threadIdx.y;
  const int64_t ch = c0 + lane;
  for (int q = w; q < 32; q += 8) {
    const int64_t i = p0 + q;
    const int32_t v = i < t.n ? t.voxel(i) : -1;
    if (lane == 0) sh.vox[q] = v;
    sh.hit[q][lane] = (unsigned char)(v >= 0 && ch < t.c && t.match(i, v, ch));
  }
  __syncthreads();
  if (w == 0) {
    const int32_t v = sh.vox[lane];
    const unsigned peers = __match_any_sync(0xffffffffu, v);
    sh.same[lane] = v >= 0 ? peers & ((1u << lane) - 1u) : 0u;
  }
  __syncthreads();
  for (int q = w; q < 32; q += 8) {
    if (!sh.hit[q][lane]) continue;
    bool shadowed = false;
    for (unsigned e = sh.same[q]; e != 0u && !shadowed; e &= e - 1u)
      shadowed = sh.hit[__ffs((int)e) - 1][lane] != 0;
    if (!shadowed)
      atomicMin(first + (int64_t)sh.vox[q] * t.c + ch, (int32_t)(p0 + q));
  }
  __syncthreads(); /* the next tile overwrites sh */
}

/* cuda.warp, block (32, 8), blocks striding over the tiles. FUSED: launched
 * cooperatively, the fill and the checks (into bad), the atomics and the
 * writes are its phases, separated by grid-wide barriers; otherwise the
 * caller launches the others around it. */
template <class F, bool FUSED>
__global__ void sl__dsb_warp_k(sl__dsb<F> t, int32_t *first, sl__divmod cdiv,
                               unsigned long long *bad) {
  __shared__ sl__dsb_tile sh;
  const int64_t tid =
      (int64_t)blockIdx.x * 256 + threadIdx.y * 32 + threadIdx.x;
  const int64_t step = (int64_t)gridDim.x * 256;
  if constexpr (FUSED) {
    for (int64_t e = tid; e < t.m * t.c; e += step) first[e] = (int32_t)t.n;
    for (int64_t k = tid; k < (t.n > t.m ? t.n : t.m); k += step)
      sl__dsb_check_at(t, k, bad);
    cooperative_groups::this_grid().sync();
  }
  const int64_t tc = (t.c + 31) / 32, tiles = (t.n + 31) / 32 * tc;
  for (int64_t k = blockIdx.x; k < tiles; k += gridDim.x)
    sl__dsb_warp_tile(t, first, k / tc * 32, k % tc * 32, sh);
  if constexpr (FUSED) {
    cooperative_groups::this_grid().sync();
    for (int64_t e = tid; e < t.n * t.c; e += step)
      sl__dsb_write_one(t, SL_REDUCE_MAX, first, cdiv, e);
  }
}

/* cuda.warp's max in one cooperative launch, checks included; *done =
 * false where the device cannot launch one (the caller then takes four
 * launches). */
template <class F>
static sl_status sl__dsb_warp_fused(sl_ctx *ctx, cudaStream_t s,
                                    const sl__dsb<F> &t, int32_t *first,
                                    const sl__divmod &cdiv,
                                    unsigned long long *bad, bool *done) {
  *done = false;
  if (!sl__cuda_coop()) return SL_STATUS_OK;
  void (*k)(sl__dsb<F>, int32_t *, sl__divmod, unsigned long long *) =
      sl__dsb_warp_k<F, true>;
  /* Blocks resident per multiprocessor, asked once per device and dtype
   * (stored plus one: 0 is not yet asked). */
  static int resident[64];
  int dev = 0;
  SL__CUDA_TRY(ctx, cudaGetDevice(&dev), "cudaGetDevice");
  if (dev < 0 || dev >= 64) return SL_STATUS_OK;
  if (!resident[dev]) {
    int v = 0;
    SL__CUDA_TRY(ctx,
                 cudaOccupancyMaxActiveBlocksPerMultiprocessor(&v, k, 256, 0),
                 "cuda.warp: occupancy");
    resident[dev] = v + 1;
  }
  const int per_sm = resident[dev] - 1;
  if (per_sm < 1) return SL_STATUS_OK;
  /* Every block must be resident at once; no more than the largest phase
   * has work for. */
  const int64_t tiles = (t.n + 31) / 32 * ((t.c + 31) / 32);
  int64_t want = (t.n * t.c + 255) / 256;
  if ((t.m * t.c + 255) / 256 > want) want = (t.m * t.c + 255) / 256;
  if (tiles > want) want = tiles;
  int64_t blocks = (int64_t)per_sm * sl__cuda_sms();
  if (want < blocks) blocks = want;
  sl__dsb<F> ta = t;
  int32_t *fa = first;
  sl__divmod ca = cdiv;
  unsigned long long *ba = bad;
  void *args[] = {&ta, &fa, &ca, &ba};
  SL__CUDA_TRY(ctx,
               cudaLaunchCooperativeKernel((const void *)k,
                                           dim3((unsigned)blocks), dim3(32, 8),
                                           args, 0, s),
               "cuda.warp: cooperative launch");
  *done = true;
  return SL_STATUS_OK;
}

/* Scheme 2: a lock per voxel, a thread (narrow rows) or a warp per point. */
template <class F>
__global__ void sl__dsb_lock1_k(sl__dsb<F> t, int32_t *first, int *locks) {
  SL__GRID_STRIDE(i, t.n) {
    const int64_t v = t.voxel(i);
    if (v < 0) continue;
    sl__lock(locks + v);
    for (int64_t ch = 0; ch < t.c; ++ch) {
      int32_t *q = first + v * t.c + ch;
      if (t.match(i, v, ch) && i < sl__ld_cg(q)) sl__st_cg(q, (int32_t)i);
    }
    sl__unlock(locks + v);
  }
}

template <class F>
__global__ void sl__dsb_lock32_k(sl__dsb<F> t, int32_t *first, int *locks) {
  const unsigned lane = threadIdx.x & 31u;
  const int64_t warps = (int64_t)gridDim.x * (blockDim.x / 32);
  for (int64_t i = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
       i < t.n; i += warps) {
    const int64_t v = t.voxel(i);
    if (v < 0) continue;
    if (lane == 0) sl__lock(locks + v);
    __syncwarp();
    for (int64_t ch = lane; ch < t.c; ch += 32) {
      int32_t *q = first + v * t.c + ch;
      if (t.match(i, v, ch) && i < sl__ld_cg(q)) sl__st_cg(q, (int32_t)i);
    }
    __threadfence();
    __syncwarp();
    if (lane == 0) sl__unlock(locks + v);
  }
}

/* Sorted: key = map + 1 (0 for dropped points), point index as value. */
template <class F>
__global__ void sl__dsb_keys_k(sl__dsb<F> t, uint32_t *keys, uint32_t *vals) {
  SL__GRID_STRIDE(i, t.n) {
    keys[i] = (uint32_t)(t.voxel(i) + 1);
    vals[i] = (uint32_t)i;
  }
}

/* Segment g (key g) spans sorted slots [lo[g], hi[g]). */
__global__ void sl__dsb_bounds_k(const uint32_t *keys, int64_t n, uint32_t *lo,
                                 uint32_t *hi) {
  SL__GRID_STRIDE(k, n) {
    const uint32_t g = keys[k];
    if (k == 0 || keys[k - 1] != g) lo[g] = (uint32_t)k;
    if (k == n - 1 || keys[k + 1] != g) hi[g] = (uint32_t)(k + 1);
  }
}

/* Block (32, 8): warp y owns segment g = blockIdx.x * 8 + y (g = 0: the
 * dropped points, zero rows; g >= 1: voxel g - 1); lanes stride over the
 * channels. */
template <class F>
__global__ void sl__dsb_sorted_k(sl__dsb<F> t, const uint32_t *perm,
                                 const uint32_t *lo, const uint32_t *hi) {
  const int64_t g = (int64_t)blockIdx.x * 8 + threadIdx.y;
  if (g > t.m) return;
  const int64_t b = lo[g], e = hi[g], v = g - 1;
  for (int64_t ch = threadIdx.x; ch < t.c; ch += 32) {
    int64_t first = -1;
    for (int64_t k = b; k < e && g > 0; ++k)
      if (t.match(perm[k], v, ch)) {
        first = perm[k];
        break;
      }
    const F gv = first >= 0 ? t.grad[v * t.gs0 + ch * t.gs1] : (F)0;
    for (int64_t k = b; k < e; ++k) {
      const int64_t i = perm[k];
      t.out[i * t.os0 + ch * t.os1] = i == first ? gv : (F)0;
    }
  }
}

/* The op, its checks included (into the two slots of bad). */
template <class F>
static sl_status sl__dsb_run(sl_ctx *ctx, cudaStream_t s, sl__ws &ws,
                             sl__strategy how, const sl_call *c,
                             unsigned long long *bad) {
  sl__dsb<F> t;
  const sl_tensor *grad = &c->arg[0], *feats = &c->arg[1], *vf = &c->arg[2];
  const sl_tensor *map = &c->arg[3], *cnt = &c->arg[4], *out = &c->arg[5];
  t.grad = (const F *)grad->data;
  t.feats = (const F *)feats->data;
  t.vfeats = (const F *)vf->data;
  t.out = (F *)out->data;
  t.map = (const int32_t *)map->data;
  t.count = (const int32_t *)cnt->data;
  t.n = feats->shape[0];
  t.m = grad->shape[0];
  t.c = feats->shape[1];
  t.gs0 = grad->strides[0], t.gs1 = grad->strides[1];
  t.fs0 = feats->strides[0], t.fs1 = feats->strides[1];
  t.vs0 = vf->strides[0], t.vs1 = vf->strides[1];
  t.os0 = out->strides[0], t.os1 = out->strides[1];
  t.ms = map->strides[0], t.ks = cnt->strides[0];
  const sl_reduce r = c->p.reduce;
  const int64_t nc = t.n * t.c;
  const sl__divmod cdiv = sl__divmod_make(t.c, nc);
  int32_t *first = nullptr;
  const bool max = r == SL_REDUCE_MAX && t.m > 0 && nc > 0;
  if (max && how == SL__WARP) {
    bool done;
    SL__TRY(ws.get(&first, (size_t)(t.m * t.c), "max: minima"));
    SL__TRY(sl__dsb_warp_fused<F>(ctx, s, t, first, cdiv, bad, &done));
    if (done) return SL_STATUS_OK;
  }
  const int64_t checks = t.n > t.m ? t.n : t.m;
  if (checks > 0) {
    sl__dsb_check_k<F>
        <<<sl__blocks(checks, SL__THREADS), SL__THREADS, 0, s>>>(t, bad);
    SL__CUDA_LAUNCHED(ctx, "check kernel");
  }
  if (nc == 0) return SL_STATUS_OK;
  if (max) {
    if (how == SL__SORTED) {
      uint32_t *keys, *vals, *skeys, *perm, *lo, *hi;
      SL__TRY(ws.get(&keys, (size_t)t.n, "sorted: keys"));
      SL__TRY(ws.get(&vals, (size_t)t.n, "sorted: points"));
      SL__TRY(ws.get(&skeys, (size_t)t.n, "sorted: keys"));
      SL__TRY(ws.get(&perm, (size_t)t.n, "sorted: points"));
      SL__TRY(ws.get_set(&lo, (size_t)t.m + 1, 0, "sorted: segments"));
      SL__TRY(ws.get_set(&hi, (size_t)t.m + 1, 0, "sorted: segments"));
      sl__dsb_keys_k<F>
          <<<sl__blocks(t.n, SL__THREADS), SL__THREADS, 0, s>>>(t, keys, vals);
      SL__CUDA_LAUNCHED(ctx, "sorted: key kernel");
      const int bits = sl__bits_for((uint64_t)t.m);
      size_t tb = 0;
      SL__CUDA_TRY(ctx,
                   cub::DeviceRadixSort::SortPairs(nullptr, tb, keys, skeys,
                                                   vals, perm, t.n, 0, bits, s),
                   "sorted: sort size");
      unsigned char *tmp;
      SL__TRY(ws.get(&tmp, tb, "sorted: sort workspace"));
      SL__CUDA_TRY(ctx,
                   cub::DeviceRadixSort::SortPairs(tmp, tb, keys, skeys, vals,
                                                   perm, t.n, 0, bits, s),
                   "sorted: sort the points by voxel");
      sl__dsb_bounds_k<<<sl__blocks(t.n, SL__THREADS), SL__THREADS, 0, s>>>(
          skeys, t.n, lo, hi);
      SL__CUDA_LAUNCHED(ctx, "sorted: segment kernel");
      const int64_t segs = t.m + 1;
      sl__dsb_sorted_k<F>
          <<<(unsigned)((segs + 7) / 8), dim3(32, 8), 0, s>>>(t, perm, lo, hi);
      SL__CUDA_LAUNCHED(ctx, "sorted: fused kernel");
      return SL_STATUS_OK;
    }
    if (!first) SL__TRY(ws.get(&first, (size_t)(t.m * t.c), "max: minima"));
    sl__dsb_fill_k<<<sl__blocks(t.m * t.c, SL__THREADS), SL__THREADS, 0, s>>>(
        first, t.m * t.c, (int32_t)t.n);
    SL__CUDA_LAUNCHED(ctx, "max: fill kernel");
    if (how == SL__ATOMIC) {
      sl__dsb_atomic_k<F>
          <<<sl__blocks(nc, SL__THREADS), SL__THREADS, 0, s>>>(t, first, cdiv);
      SL__CUDA_LAUNCHED(ctx, "max: atomicMin kernel");
    } else if (how == SL__WARP) {
      const int64_t tiles = (t.n + 31) / 32 * ((t.c + 31) / 32);
      sl__dsb_warp_k<F, false>
          <<<sl__blocks(tiles, 1), dim3(32, 8), 0, s>>>(t, first, cdiv, bad);
      SL__CUDA_LAUNCHED(ctx, "max: tile-aggregated kernel");
    } else {
      int *locks;
      SL__TRY(ws.get_set(&locks, (size_t)t.m, 0, "max: locks"));
      if (t.c >= 16) {
        sl__dsb_lock32_k<F>
            <<<sl__blocks(t.n, SL__THREADS / 32), SL__THREADS, 0, s>>>(t, first,
                                                                       locks);
        SL__CUDA_LAUNCHED(ctx, "max: lock kernel (warp per point)");
      } else {
        sl__dsb_lock1_k<F><<<sl__blocks(t.n, SL__THREADS), SL__THREADS, 0, s>>>(
            t, first, locks);
        SL__CUDA_LAUNCHED(ctx, "max: lock kernel (thread per point)");
      }
    }
  }
  sl__dsb_write_k<F>
      <<<sl__blocks(nc, SL__THREADS), SL__THREADS, 0, s>>>(t, r, first, cdiv);
  SL__CUDA_LAUNCHED(ctx, "write kernel");
  return SL_STATUS_OK;
}

static sl_status sl__dsb_cuda(sl_ctx *ctx, sl_call *c, sl__strategy how) {
  const sl_tensor *grad = &c->arg[0], *feats = &c->arg[1];
  const sl_tensor *map = &c->arg[3], *cnt = &c->arg[4];
  const int64_t M = grad->shape[0];
  cudaStream_t s;
  SL__TRY(sl__cuda_begin(ctx, &s));
  sl__ws ws(ctx, s);
  /* Slot 0: the first bad map position, slot 1: the first bad count. */
  unsigned long long *bad;
  SL__TRY(sl__cuda_slots(ctx, s, 2, &bad));
  if (feats->dtype == SL_F32)
    SL__TRY(sl__dsb_run<float>(ctx, s, ws, how, c, bad));
  else
    SL__TRY(sl__dsb_run<double>(ctx, s, ws, how, c, bad));
  int64_t pos[2], v;
  char a[160];
  SL__TRY(sl__cuda_read_slots(ctx, s, bad, 2, pos));
  if (pos[0] >= 0) {
    SL__TRY(sl__cuda_value_at(ctx, map, pos[0], &v));
    return sl_ctx_fail(ctx, SL_STATUS_INDEX_OUT_OF_RANGE,
                       "point2voxel_map[%lld]=%d out of range [-1,%lld) for "
                       "the voxels of grad_voxel_feats %s",
                       (long long)pos[0], (int)v, (long long)M,
                       sl_shape_str(grad->ndim, grad->shape, a, sizeof a));
  }
  if (pos[1] >= 0) {
    SL__TRY(sl__cuda_value_at(ctx, cnt, pos[1], &v));
    return sl_ctx_fail(ctx, SL_STATUS_INVALID_ARGUMENT,
                       "voxel_points_count[%lld]: expected a count > 0, got "
                       "%d",
                       (long long)pos[1], (int)v);
  }
  return SL_STATUS_OK;
}

sl_status sl_dynamic_scatter_backward_cuda_atomic(sl_ctx *ctx, sl_call *c) {
  return sl__dsb_cuda(ctx, c, SL__ATOMIC);
}

sl_status sl_dynamic_scatter_backward_cuda_lock(sl_ctx *ctx, sl_call *c) {
  return sl__dsb_cuda(ctx, c, SL__LOCK);
}

sl_status sl_dynamic_scatter_backward_cuda_sorted(sl_ctx *ctx, sl_call *c) {
  return sl__dsb_cuda(ctx, c, SL__SORTED);
}

sl_status sl_dynamic_scatter_backward_cuda_warp(sl_ctx *ctx, sl_call *c) {
  return sl__dsb_cuda(ctx, c, SL__WARP);
}
