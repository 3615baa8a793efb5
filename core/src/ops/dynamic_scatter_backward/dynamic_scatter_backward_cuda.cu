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
 *   cuda.warp    scheme 1 with warp-aggregated atomics: a block loads a tile
 *                of 32 points x 32 channels (coalesced along the channels),
 *                transposes the match flags through shared memory, and per
 *                channel the lanes of one voxel agree (__match_any_sync) so
 *                that only the lowest matching lane, the smallest point,
 *                does the atomicMin.
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
 * first (map in [-1, M), counts > 0), with the CPU's messages.
 */
#include <stdio.h>

#include "cuda/reduce_engine.cuh"

/* The tensors, as [rows, C] views with strides. */
template <class F> struct sl__dsb {
  const F *grad, *feats, *vfeats;
  F *out;
  const int32_t *map, *count;
  int64_t n, m, c;
  int64_t gs0, gs1, fs0, fs1, vs0, vs1, os0, os1, ms, ks;
  __device__ int32_t voxel(int64_t i) const { return map[i * ms]; }
  __device__ bool match(int64_t i, int64_t v, int64_t ch) const {
    return feats[i * fs0 + ch * fs1] == vfeats[v * vs0 + ch * vs1];
  }
};

/* sum, mean, and the second kernel of max: every element of grad_feats. */
template <class F>
__global__ void sl__dsb_write_k(sl__dsb<F> t, sl_reduce r, const int32_t *first,
                                sl__divmod cdiv) {
  SL__GRID_STRIDE(e, t.n * t.c) {
    const int64_t i = sl__div(cdiv, e), ch = e - i * t.c;
    const int64_t v = t.voxel(i);
    F g = 0;
    if (v >= 0 && (r != SL_REDUCE_MAX || first[v * t.c + ch] == i)) {
      g = t.grad[v * t.gs0 + ch * t.gs1];
      if (r == SL_REDUCE_MEAN) g = g / (F)t.count[v * t.ks];
    }
    t.out[i * t.os0 + ch * t.os1] = g;
  }
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

/* Scheme 1, warp-aggregated: block (32, 8) per tile of 32 points x 32
 * channels. */
template <class F>
__global__ void sl__dsb_warp_k(sl__dsb<F> t, int32_t *first) {
  __shared__ unsigned char hit[32][33];
  __shared__ int32_t vox[32];
  const int lane = threadIdx.x, w = threadIdx.y;
  const int64_t p0 = (int64_t)blockIdx.x * 32, c0 = (int64_t)blockIdx.y * 32;
  /* Rows w, w + 8, ...: lane = channel (coalesced loads). */
  for (int q = w; q < 32; q += 8) {
    const int64_t i = p0 + q, ch = c0 + lane;
    int32_t v = -1;
    if (i < t.n) v = t.voxel(i);
    if (lane == 0) vox[q] = v;
    hit[q][lane] = (unsigned char)(v >= 0 && ch < t.c && t.match(i, v, ch));
  }
  __syncthreads();
  /* Channels w, w + 8, ...: lane = point, in increasing index. */
  for (int q = w; q < 32; q += 8) {
    const int64_t ch = c0 + q, i = p0 + lane;
    const int f = hit[lane][q];
    const int32_t v = vox[lane];
    const unsigned key = f ? (unsigned)v : 0x80000000u + (unsigned)lane;
    const unsigned peers = __match_any_sync(0xffffffffu, key);
    if (f && lane == __ffs(peers) - 1 && ch < t.c)
      atomicMin(first + (int64_t)v * t.c + ch, (int32_t)i);
  }
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

template <class F>
static sl_status sl__dsb_run(sl_ctx *ctx, cudaStream_t s, sl__ws &ws,
                             sl__strategy how, const sl_call *c) {
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
  if (r == SL_REDUCE_MAX && t.m > 0) {
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
    SL__TRY(ws.get(&first, (size_t)(t.m * t.c), "max: minima"));
    sl__dsb_fill_k<<<sl__blocks(t.m * t.c, SL__THREADS), SL__THREADS, 0, s>>>(
        first, t.m * t.c, (int32_t)t.n);
    SL__CUDA_LAUNCHED(ctx, "max: fill kernel");
    if (how == SL__ATOMIC) {
      sl__dsb_atomic_k<F>
          <<<sl__blocks(nc, SL__THREADS), SL__THREADS, 0, s>>>(t, first, cdiv);
      SL__CUDA_LAUNCHED(ctx, "max: atomicMin kernel");
    } else if (how == SL__WARP) {
      const dim3 grid((unsigned)((t.n + 31) / 32), (unsigned)((t.c + 31) / 32));
      if (grid.y > 65535)
        return sl_ctx_fail(ctx, SL_STATUS_INVALID_ARGUMENT,
                           "feats: expected at most %d channels for "
                           "cuda.warp, got %lld",
                           65535 * 32, (long long)t.c);
      sl__dsb_warp_k<F><<<grid, dim3(32, 8), 0, s>>>(t, first);
      SL__CUDA_LAUNCHED(ctx, "max: warp-aggregated kernel");
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
  const int64_t N = feats->shape[0], C = feats->shape[1], M = grad->shape[0];
  cudaStream_t s;
  SL__TRY(sl__cuda_begin(ctx, &s));
  sl__ws ws(ctx, s);
  /* The values that index, before anything is written. */
  int64_t pos, v, hi = M;
  char a[160];
  SL__TRY(sl__cuda_find_bad(ctx, s, ws, map, -1, &hi, -1, &pos, &v));
  if (pos >= 0)
    return sl_ctx_fail(ctx, SL_STATUS_INDEX_OUT_OF_RANGE,
                       "point2voxel_map[%lld]=%d out of range [-1,%lld) for "
                       "the voxels of grad_voxel_feats %s",
                       (long long)pos, (int)v, (long long)M,
                       sl_shape_str(grad->ndim, grad->shape, a, sizeof a));
  hi = INT64_MAX;
  SL__TRY(sl__cuda_find_bad(ctx, s, ws, cnt, 1, &hi, -1, &pos, &v));
  if (pos >= 0)
    return sl_ctx_fail(ctx, SL_STATUS_INVALID_ARGUMENT,
                       "voxel_points_count[%lld]: expected a count > 0, got "
                       "%d",
                       (long long)pos, (int)v);
  if (N == 0 || C == 0) return SL_STATUS_OK;
  if (feats->dtype == SL_F32) return sl__dsb_run<float>(ctx, s, ws, how, c);
  return sl__dsb_run<double>(ctx, s, ws, how, c);
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
