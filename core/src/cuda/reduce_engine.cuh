/*
 * The conflict strategies of the reducing ops on the GPU, written once for
 * scatter_reduce, index_reduce, scatter_nd and dynamic_scatter.
 *
 * The model: `rows` contributions, each a row of W values (scatter_reduce
 * and scatter_nd: W = 1; index_reduce: the slice off the axis; dynamic_scatter:
 * the C channels of a point). Row r goes to destination row dest(r) of out
 * (a dense id in [0, dests)); value j of the row reads src at
 * sbase(r) + scol(j) and combines into out at obase(dest) + ocol(j). An op
 * describes that with an addressing struct (see the ops' *_cuda.cu):
 *
 *   int64_t rows, width, dests;   host and device
 *   bool row(r, &dest, &sbase, &obase)   device; false: the row is skipped
 *   int64_t scol(j), ocol(j), obase_of(dest)   device
 *
 * Strategies (the cuda.* rows of variants.def):
 *   atomic  one thread per value; native atomicAdd for sums, native integer
 *           max/min, compare-and-swap loops for float max/min and every prod.
 *   warp    as atomic, but the lanes of a warp that hit the same element
 *           first combine their values (__match_any_sync, then a tree over
 *           the group's ranks), and one lane per group does the atomic: the
 *           sign trick's native atomicMax/Min for floats (NaN canonicalised).
 *   lock    a spin lock per destination row (striped over a table), taken by
 *           one thread (narrow rows) or one warp (wide rows) that then
 *           updates the row with plain loads and stores: seed 004's
 *           is_occupy scheme. The rows of a warp's trip aimed at one
 *           destination are combined first (narrow: as warp does; wide:
 *           column by column), and one lock is taken for them.
 *   sorted  CUB radix sort of the rows by destination (stable: a segment
 *           keeps row order), run-length encoding into segments, and an
 *           ordered reduction: chunks of SL__CHUNK rows reduced in order,
 *           chunk partials combined in order. No atomics: deterministic, and
 *           a destination with at most SL__CHUNK rows gets exactly the CPU's
 *           sequential result.
 *
 * Numerics are reduce.h's: f16/bf16 accumulate in f32 (a workspace of f32
 * accumulators for atomic/warp/lock, registers for sorted) and are rounded
 * once; integer sum/prod wrap; mean divides by the count (floor for
 * integers; a float count stops at 2^24 as LibTorch's f32 count does);
 * amax/amin propagate NaN. The caller has copied x to out and checked the
 * indices. include_self = false starts every targeted element from the
 * reduce's identity.
 */
#ifndef SL_REDUCE_ENGINE_CUH
#define SL_REDUCE_ENGINE_CUH

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_scan.cuh>

#include "cuda/cuda_common.cuh"

typedef enum sl__strategy {
  SL__ATOMIC,
  SL__LOCK,
  SL__SORTED,
  SL__WARP
} sl__strategy;

/* Rows per chunk of the sorted strategy's ordered reduction. */
enum { SL__CHUNK = 32 };

/* Everything the kernels need, by value. */
template <class T, class Addr> struct sl__red {
  typedef typename sl__acc_of<T>::type A;
  Addr a;
  const T *src;
  T *out;
  sl_reduce r;
  int self;
  int sign;      /* warp: the sign trick for float max/min */
  A *acc;        /* [dests * W] f32 accumulators of f16/bf16, or NULL */
  unsigned *cnt; /* [dests] contributions (mean; touched for f16/bf16) */
  int *locks;    /* lock table */
  int64_t nlocks;
  sl__divmod wdiv; /* division by W */
};

/* The element a value combines into: the f32 accumulator or out itself. */
template <class T, class Addr>
__device__ __forceinline__ typename sl__red<T, Addr>::A *
sl__red_target(const sl__red<T, Addr> &p, int64_t dest, int64_t j,
               int64_t off) {
  if constexpr (sl__is_half<T>::value)
    return p.acc + dest * p.a.width + j;
  else
    return p.out + off;
}

/* ------------------------------------------------------------------------ */
/* Preparation: targeted elements start from the identity (include_self =  */
/* false) or from x; f16/bf16 accumulators are filled; for the sign trick a */
/* NaN already there is made canonical.                                      */
/* ------------------------------------------------------------------------ */
template <class T, class Addr>
__global__ void sl__red_prep_k(sl__red<T, Addr> p) {
  typedef typename sl__red<T, Addr>::A A;
  const int64_t W = p.a.width, n = p.a.rows * W;
  SL__GRID_STRIDE(e, n) {
    int64_t r = sl__div(p.wdiv, e), j = e - r * W, dest, sb, ob;
    if (!p.a.row(r, &dest, &sb, &ob)) continue;
    const int64_t off = ob + p.a.ocol(j);
    A v = p.self ? sl__to_acc<A>(p.out[off]) : sl__arith<A>::identity(p.r);
    bool nan = false;
    if constexpr (sl__is_float<A>::value) {
      nan = p.sign && isnan(v);
      if (nan) v = sl__canonical_nan(p.r, v);
    }
    if constexpr (sl__is_half<T>::value)
      p.acc[dest * W + j] = v;
    else if (!p.self || nan)
      p.out[off] = v;
  }
}

/* ------------------------------------------------------------------------ */
/* atomic                                                                    */
/* ------------------------------------------------------------------------ */
template <class T, class Addr>
__global__ void sl__red_atomic_k(sl__red<T, Addr> p) {
  typedef typename sl__red<T, Addr>::A A;
  const int64_t W = p.a.width, n = p.a.rows * W;
  SL__GRID_STRIDE(e, n) {
    int64_t r = sl__div(p.wdiv, e), j = e - r * W, dest, sb, ob;
    if (!p.a.row(r, &dest, &sb, &ob)) continue;
    const int64_t off = ob + p.a.ocol(j);
    const T v = p.src[sb + p.a.scol(j)];
    if (p.r == SL_REDUCE_ASSIGN) {
      sl__st_racy(&p.out[off], v);
      continue;
    }
    sl__atomic<A>::apply(sl__red_target(p, dest, j, off), p.r, sl__to_acc<A>(v),
                         false);
    if (p.cnt && j == 0) atomicAdd(p.cnt + dest, 1u);
  }
}

/* ------------------------------------------------------------------------ */
/* warp                                                                      */
/* ------------------------------------------------------------------------ */

/* The lanes with equal keys (*peers) combine their values into the lowest
 * of them (rank 0), which gets the group's result. A tree over the group's
 * ranks: at step s, rank k (k % 2s == 0) takes rank k + s, so the order of
 * combination is fixed by the lanes. All 32 lanes call it. */
template <class A>
__device__ __forceinline__ A sl__warp_combine(sl_reduce r, unsigned peers,
                                              unsigned rank, A v) {
  const unsigned lane = threadIdx.x & 31u;
  for (unsigned s = 1; s < 32; s <<= 1) {
    const unsigned from = __fns(peers, lane, (int)s + 1);
    const A other = __shfl_sync(0xffffffffu, v, from < 32 ? from : lane);
    if ((rank & (2 * s - 1)) == 0 && from < 32)
      v = sl__arith<A>::combine(r, v, other);
  }
  return v;
}

/* A warp's group key: the element (or row) for a live lane, a key of its
 * own (never equal to a real one) for an idle lane. */
__device__ __forceinline__ unsigned long long sl__warp_key(bool live,
                                                           int64_t k) {
  return live ? (unsigned long long)k : ~0ull - (threadIdx.x & 31u);
}
template <class T, class Addr>
__global__ void sl__red_warp_k(sl__red<T, Addr> p) {
  typedef typename sl__red<T, Addr>::A A;
  const int64_t W = p.a.width, n = p.a.rows * W;
  const unsigned lane = threadIdx.x & 31u, below = (1u << lane) - 1u;
  const int64_t step = (int64_t)gridDim.x * blockDim.x;
  /* The loop bound is rounded up to whole warps so that every lane of a
   * warp takes every trip (the warp intrinsics need all 32). */
  const int64_t warp0 =
      ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) & ~31ll;
  for (int64_t base = warp0; base < n; base += step) {
    const int64_t e = base + lane;
    int64_t dest = 0, sb = 0, ob = 0, j = 0, off = 0;
    bool live = false;
    A v = 0;
    if (e < n) {
      int64_t r = sl__div(p.wdiv, e);
      j = e - r * W;
      live = p.a.row(r, &dest, &sb, &ob);
      if (live) {
        off = ob + p.a.ocol(j);
        T t = p.src[sb + p.a.scol(j)];
        if (p.r == SL_REDUCE_ASSIGN) {
          sl__st_racy(&p.out[off], t);
          live = false;
        } else {
          v = sl__to_acc<A>(t);
        }
      }
    }
    const unsigned peers =
        __match_any_sync(0xffffffffu, sl__warp_key(live, dest * W + j));
    const unsigned rank = __popc(peers & below);
    v = sl__warp_combine<A>(p.r, peers, rank, v);
    if (live && rank == 0) {
      sl__atomic<A>::apply(sl__red_target(p, dest, j, off), p.r, v,
                           p.sign != 0);
      if (p.cnt && j == 0) atomicAdd(p.cnt + dest, (unsigned)__popc(peers));
    }
  }
}

/* ------------------------------------------------------------------------ */
/* lock                                                                      */
/* ------------------------------------------------------------------------ */

/* Narrow rows (W < SL__LOCK_WIDE): one thread per row. The lanes of a warp
 * whose rows share a destination first combine them (as warp does), so one
 * lock is taken per destination and warp, not per row: under contention
 * the lock is the bottleneck (2^20 rows queued on one lock took 12.5 s on
 * an H100, 67 ms combined first on an H200). */
enum { SL__LOCK_WIDE = 16 };
template <class T, class Addr>
__global__ void sl__red_lock1_k(sl__red<T, Addr> p) {
  typedef typename sl__red<T, Addr>::A A;
  const unsigned lane = threadIdx.x & 31u;
  const int64_t W = p.a.width, step = (int64_t)gridDim.x * blockDim.x;
  /* Whole warps take every trip (the warp intrinsics need all 32). */
  const int64_t warp0 =
      ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) & ~31ll;
  for (int64_t base = warp0; base < p.a.rows; base += step) {
    const int64_t r = base + lane;
    int64_t dest = 0, sb = 0, ob = 0;
    const bool live = r < p.a.rows && p.a.row(r, &dest, &sb, &ob);
    const unsigned peers =
        __match_any_sync(0xffffffffu, sl__warp_key(live, dest));
    const unsigned rank = __popc(peers & ((1u << lane) - 1u));
    A v[SL__LOCK_WIDE];
    for (int64_t j = 0; j < W; ++j)
      v[j] = sl__warp_combine<A>(p.r, peers, rank,
                                 live ? sl__to_acc<A>(p.src[sb + p.a.scol(j)])
                                      : A());
    if (!live || rank != 0) continue;
    int *lk = p.locks + dest % p.nlocks;
    sl__lock(lk);
    for (int64_t j = 0; j < W; ++j) {
      A *q = sl__red_target(p, dest, j, ob + p.a.ocol(j));
      sl__st_cg(q, sl__arith<A>::combine(p.r, sl__ld_cg(q), v[j]));
    }
    sl__unlock(lk);
    if (p.cnt) atomicAdd(p.cnt + dest, (unsigned)__popc(peers));
  }
}

/* Wide rows: a warp takes 32 rows at a time, and the rows among them that
 * share a destination (a group) are combined first, column by column in
 * row order, so that a destination costs one critical section per warp
 * trip, not one per row: a warp per row queued 2^20 sections on one lock
 * at M = 1, C = 128 (4.3 s a call on an H200). The section covers
 * SL__LOCK_COLS * 32 columns (only each element's read-modify-write needs
 * the lock, not the whole row); lane 0 holds it. */
enum { SL__LOCK_COLS = 4 };

/* v[u]: column j0 + 32 u of the group's rows combined (rows' source bases
 * in wsb[lane], members the bits of group, lowest first). */
template <class T, class Addr>
__device__ __forceinline__ void
sl__red_group_values(const sl__red<T, Addr> &p, const int64_t *wsb,
                     unsigned group, int64_t j0,
                     typename sl__red<T, Addr>::A (&v)[SL__LOCK_COLS]) {
  typedef typename sl__red<T, Addr>::A A;
  SL__UNROLL
  for (int u = 0; u < SL__LOCK_COLS; ++u) {
    const int64_t j = j0 + 32 * u;
    if (j >= p.a.width) break;
    const int64_t sc = p.a.scol(j);
    unsigned m = group;
    v[u] = sl__to_acc<A>(p.src[wsb[__ffs(m) - 1] + sc]);
    for (m &= m - 1; m; m &= m - 1)
      v[u] = sl__arith<A>::combine(
          p.r, v[u], sl__to_acc<A>(p.src[wsb[__ffs(m) - 1] + sc]));
  }
}

/* The group's combined rows into destination dest (out at ob), a section
 * of columns at a time. All 32 lanes call it. */
template <class T, class Addr>
__device__ __forceinline__ void
sl__red_lock_group(const sl__red<T, Addr> &p, int64_t dest, int64_t ob,
                   const int64_t *wsb, unsigned group, unsigned lane) {
  typedef typename sl__red<T, Addr>::A A;
  int *lk = p.locks + dest % p.nlocks;
  for (int64_t c0 = 0; c0 < p.a.width; c0 += 32 * SL__LOCK_COLS) {
    A v[SL__LOCK_COLS];
    sl__red_group_values(p, wsb, group, c0 + lane, v);
    if (lane == 0) sl__lock(lk);
    __syncwarp();
    SL__UNROLL
    for (int u = 0; u < SL__LOCK_COLS; ++u) {
      const int64_t j = c0 + lane + 32 * u;
      if (j >= p.a.width) break;
      A *q = sl__red_target(p, dest, j, ob + p.a.ocol(j));
      sl__st_cg(q, sl__arith<A>::combine(p.r, sl__ld_cg(q), v[u]));
    }
    __threadfence();
    __syncwarp();
    if (lane == 0) sl__unlock(lk);
  }
}

template <class T, class Addr>
__global__ void sl__red_lock32_k(sl__red<T, Addr> p) {
  __shared__ int64_t sbase[SL__THREADS];
  const unsigned lane = threadIdx.x & 31u;
  int64_t *wsb = sbase + (threadIdx.x & ~31u);
  const int64_t warps = (int64_t)gridDim.x * (blockDim.x / 32);
  /* The bound is the warp's: every lane takes every trip. */
  for (int64_t g = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
       g * 32 < p.a.rows; g += warps) {
    const int64_t r = g * 32 + lane;
    int64_t dest = 0, sb = 0, ob = 0;
    const bool live = r < p.a.rows && p.a.row(r, &dest, &sb, &ob);
    const unsigned peers =
        __match_any_sync(0xffffffffu, sl__warp_key(live, dest));
    wsb[lane] = sb;
    __syncwarp();
    unsigned leaders =
        __ballot_sync(0xffffffffu, live && __ffs(peers) - 1 == (int)lane);
    while (leaders) {
      const int l = __ffs(leaders) - 1;
      leaders &= leaders - 1;
      const unsigned group = __shfl_sync(0xffffffffu, peers, l);
      const int64_t d = __shfl_sync(0xffffffffu, dest, l);
      sl__red_lock_group(p, d, __shfl_sync(0xffffffffu, ob, l), wsb, group,
                         lane);
      if (lane == 0 && p.cnt) atomicAdd(p.cnt + d, (unsigned)__popc(group));
    }
    __syncwarp(); /* wsb is written again on the next trip */
  }
}

/* ------------------------------------------------------------------------ */
/* Finishing atomic/warp/lock: mean divides; f16/bf16 accumulators are       */
/* rounded into out. Only elements whose row was targeted.                   */
/* ------------------------------------------------------------------------ */
template <class T, class Addr>
__global__ void sl__red_finish_k(sl__red<T, Addr> p) {
  typedef typename sl__red<T, Addr>::A A;
  const int64_t W = p.a.width, n = p.a.dests * W;
  SL__GRID_STRIDE(e, n) {
    int64_t dest = sl__div(p.wdiv, e), j = e - dest * W;
    const unsigned k = p.cnt[dest];
    if (k == 0) continue;
    const int64_t off = p.a.obase_of(dest) + p.a.ocol(j);
    A v;
    if constexpr (sl__is_half<T>::value)
      v = p.acc[dest * W + j];
    else
      v = p.out[off];
    if (p.r == SL_REDUCE_MEAN)
      v = sl__arith<A>::mean(v, (uint64_t)k + (p.self ? 1 : 0));
    p.out[off] = sl__from_acc<T>(v);
  }
}

/* ------------------------------------------------------------------------ */
/* sorted                                                                    */
/* ------------------------------------------------------------------------ */

/* key = destination (dests for a skipped row: sorted last, never reduced),
 * value = row. */
template <class Addr, class I>
__global__ void sl__red_keys_k(Addr a, I *keys, I *vals) {
  SL__GRID_STRIDE(r, a.rows) {
    int64_t dest, sb, ob;
    keys[r] = (I)(a.row(r, &dest, &sb, &ob) ? dest : a.dests);
    vals[r] = (I)r;
  }
}

/* Per segment: chunks (0 for the skipped rows' segment), the chunks of a
 * multi-chunk segment (which needs partials) and whether it is one. */
template <class I>
__global__ void sl__seg_chunks_k(int64_t cap, const I *uniq, int64_t dests,
                                 const I *lens, I *chunks, I *multi,
                                 I *is_multi) {
  SL__GRID_STRIDE(s, cap) {
    I len = lens[s];
    if (uniq && (int64_t)uniq[s] >= dests) len = 0;
    I c = (len + SL__CHUNK - 1) / SL__CHUNK;
    chunks[s] = c;
    multi[s] = c > 1 ? c : 0;
    is_multi[s] = c > 1;
  }
}

/* cseg: the segment of every chunk; mlist: the multi-chunk segments. */
template <class I>
__global__ void sl__seg_map_k(int64_t cap, const I *chunks, const I *cstart,
                              const I *mpos, I *cseg, I *mlist) {
  SL__GRID_STRIDE(s, cap) {
    for (I c = 0; c < chunks[s]; ++c) cseg[cstart[s] + c] = (I)s;
    if (chunks[s] > 1) mlist[mpos[s]] = (I)s;
  }
}

/* The value a segment's reduction starts from: x (out holds it) or the
 * identity. */
template <class T, class Addr>
__device__ __forceinline__ typename sl__red<T, Addr>::A
sl__red_base(const sl__red<T, Addr> &p, int64_t off) {
  typedef typename sl__red<T, Addr>::A A;
  return p.self ? sl__to_acc<A>(p.out[off]) : sl__arith<A>::identity(p.r);
}

/* Writes a finished segment's value (mean divided by its count). */
template <class T, class Addr>
__device__ __forceinline__ void
sl__red_put(const sl__red<T, Addr> &p, int64_t off,
            typename sl__red<T, Addr>::A v, uint64_t len) {
  typedef typename sl__red<T, Addr>::A A;
  if (p.r == SL_REDUCE_MEAN) v = sl__arith<A>::mean(v, len + (p.self ? 1 : 0));
  p.out[off] = sl__from_acc<T>(v);
}

/* Chunk q, value j: the chunk's rows in sorted (= row) order. A segment of
 * one chunk is finished here; otherwise the partial is kept. The first
 * chunk of a segment starts from the base, so a one-chunk segment combines
 * exactly as the CPU's sequential loop does. assign: the segment's last row
 * wins (the chunk holding it writes). */
template <class T, class Addr, class I>
__global__ void sl__red_chunk_k(sl__red<T, Addr> p, const I *perm,
                                const I *uniq, const I *lens, const I *sstart,
                                const I *cstart, const I *mstart, const I *cseg,
                                const I *total,
                                typename sl__red<T, Addr>::A *partial) {
  typedef typename sl__red<T, Addr>::A A;
  const int64_t W = p.a.width, n = (int64_t)*total * W;
  SL__GRID_STRIDE(e, n) {
    const int64_t q = sl__div(p.wdiv, e), j = e - q * W;
    const I s = cseg[q];
    const int64_t c = q - (int64_t)cstart[s], len = (int64_t)lens[s];
    const int64_t nch = (len + SL__CHUNK - 1) / SL__CHUNK;
    const int64_t b = (int64_t)sstart[s] + c * SL__CHUNK;
    const int64_t end = c + 1 < nch ? b + SL__CHUNK : (int64_t)sstart[s] + len;
    const int64_t dest = uniq ? (int64_t)uniq[s] : (int64_t)s;
    const int64_t off = p.a.obase_of(dest) + p.a.ocol(j);
    int64_t d2, sb, ob;
    if (p.r == SL_REDUCE_ASSIGN) {
      if (c + 1 == nch) {
        p.a.row((int64_t)perm[end - 1], &d2, &sb, &ob);
        p.out[off] = p.src[sb + p.a.scol(j)];
      }
      continue;
    }
    int64_t k = b;
    A v;
    if (c == 0) {
      v = sl__red_base(p, off);
    } else {
      p.a.row((int64_t)perm[k++], &d2, &sb, &ob);
      v = sl__to_acc<A>(p.src[sb + p.a.scol(j)]);
    }
    for (; k < end; ++k) {
      p.a.row((int64_t)perm[k], &d2, &sb, &ob);
      v = sl__arith<A>::combine(p.r, v, sl__to_acc<A>(p.src[sb + p.a.scol(j)]));
    }
    if (nch == 1)
      sl__red_put(p, off, v, (uint64_t)len);
    else
      partial[((int64_t)mstart[s] + c) * W + j] = v;
  }
}

/* Segments of several chunks: a warp per segment and value; lane l
 * combines partials l, l + 32, ... in order, then the lanes combine in a
 * fixed tree. The order is fixed: deterministic. */
template <class T, class Addr, class I>
__global__ void sl__red_merge_k(sl__red<T, Addr> p, const I *mlist,
                                const I *mcount, const I *uniq, const I *lens,
                                const I *mstart, const I *multi,
                                const typename sl__red<T, Addr>::A *partial) {
  typedef typename sl__red<T, Addr>::A A;
  const unsigned lane = threadIdx.x & 31u;
  const int64_t W = p.a.width, n = (int64_t)*mcount * W;
  const int64_t warps = (int64_t)gridDim.x * (blockDim.x / 32);
  for (int64_t w = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32; w < n;
       w += warps) {
    const int64_t mi = sl__div(p.wdiv, w), j = w - mi * W;
    const int64_t s = (int64_t)mlist[mi], nch = (int64_t)multi[s];
    const A *part = partial + (int64_t)mstart[s] * W + j;
    int has = (int64_t)lane < nch;
    A v = has ? part[(int64_t)lane * W] : sl__arith<A>::identity(p.r);
    for (int64_t c = lane + 32; c < nch; c += 32)
      v = sl__arith<A>::combine(p.r, v, part[c * W]);
    for (unsigned off = 16; off > 0; off >>= 1) {
      const A o = __shfl_down_sync(0xffffffffu, v, off);
      const int oh = __shfl_down_sync(0xffffffffu, has, off);
      if (lane + off < 32 && oh) {
        v = has ? sl__arith<A>::combine(p.r, v, o) : o;
        has = 1;
      }
    }
    if (lane == 0) {
      const int64_t dest = uniq ? (int64_t)uniq[s] : s;
      sl__red_put(p, p.a.obase_of(dest) + p.a.ocol(j), v, (uint64_t)lens[s]);
    }
  }
}

/*
 * The ordered reduction over segments given by the caller: perm lists rows
 * sorted by destination (stable), lens[s] the rows of segment s (0 past the
 * last segment; cap entries), uniq[s] its destination (NULL: s itself).
 */
template <class T, class Addr, class I>
sl_status sl__red_segments(sl_ctx *ctx, cudaStream_t s, sl__ws &ws,
                           sl__red<T, Addr> p, const I *perm, const I *uniq,
                           const I *lens, int64_t cap) {
  typedef typename sl__red<T, Addr>::A A;
  I *chunks, *multi, *is_multi, *sstart, *cstart, *mstart, *mpos, *cseg, *mlist;
  SL__TRY(ws.get_set(&chunks, (size_t)cap + 1, 0, "sorted: chunks"));
  SL__TRY(ws.get_set(&multi, (size_t)cap + 1, 0, "sorted: chunks"));
  SL__TRY(ws.get_set(&is_multi, (size_t)cap + 1, 0, "sorted: chunks"));
  SL__TRY(ws.get(&sstart, (size_t)cap + 1, "sorted: offsets"));
  SL__TRY(ws.get(&cstart, (size_t)cap + 1, "sorted: offsets"));
  SL__TRY(ws.get(&mstart, (size_t)cap + 1, "sorted: offsets"));
  SL__TRY(ws.get(&mpos, (size_t)cap + 1, "sorted: offsets"));
  SL__TRY(ws.get(&cseg, (size_t)p.a.rows + 1, "sorted: chunk map"));
  /* A multi-chunk segment has more than SL__CHUNK rows. */
  const int64_t max_multi = p.a.rows / (SL__CHUNK + 1) + 1;
  SL__TRY(ws.get(&mlist, (size_t)max_multi, "sorted: segment list"));
  sl__seg_chunks_k<I><<<sl__blocks(cap, SL__THREADS), SL__THREADS, 0, s>>>(
      cap, uniq, p.a.dests, lens, chunks, multi, is_multi);
  SL__CUDA_LAUNCHED(ctx, "sorted: chunk count kernel");
  /* lens must have cap + 1 entries with the last 0 (callers allocate so):
   * the exclusive sums then end with the totals. */
  size_t tb = 0;
  SL__CUDA_TRY(
      ctx, cub::DeviceScan::ExclusiveSum(nullptr, tb, lens, sstart, cap + 1, s),
      "sorted: scan size");
  unsigned char *tmp;
  SL__TRY(ws.get(&tmp, tb, "sorted: scan workspace"));
  SL__CUDA_TRY(ctx,
               cub::DeviceScan::ExclusiveSum(tmp, tb, lens, sstart, cap + 1, s),
               "sorted: scan of segment lengths");
  SL__CUDA_TRY(
      ctx, cub::DeviceScan::ExclusiveSum(tmp, tb, chunks, cstart, cap + 1, s),
      "sorted: scan of chunk counts");
  SL__CUDA_TRY(
      ctx, cub::DeviceScan::ExclusiveSum(tmp, tb, multi, mstart, cap + 1, s),
      "sorted: scan of partial counts");
  SL__CUDA_TRY(
      ctx, cub::DeviceScan::ExclusiveSum(tmp, tb, is_multi, mpos, cap + 1, s),
      "sorted: scan of multi-chunk segments");
  sl__seg_map_k<I><<<sl__blocks(cap, SL__THREADS), SL__THREADS, 0, s>>>(
      cap, chunks, cstart, mpos, cseg, mlist);
  SL__CUDA_LAUNCHED(ctx, "sorted: chunk map kernel");
  /* Partials: at most one per row (a chunk holds at least one row). */
  const int64_t W = p.a.width;
  A *partial = nullptr;
  if (p.r != SL_REDUCE_ASSIGN)
    SL__TRY(ws.get(&partial, (size_t)(p.a.rows * W), "sorted: partials"));
  p.wdiv = sl__divmod_make(W, p.a.rows * W);
  sl__red_chunk_k<T, Addr, I>
      <<<sl__blocks(p.a.rows * W, SL__THREADS), SL__THREADS, 0, s>>>(
          p, perm, uniq, lens, sstart, cstart, mstart, cseg, cstart + cap,
          partial);
  SL__CUDA_LAUNCHED(ctx, "sorted: chunk reduction kernel");
  if constexpr (sl__reducible<T>::value) {
    if (p.r == SL_REDUCE_ASSIGN) return SL_STATUS_OK;
    p.wdiv = sl__divmod_make(W, max_multi * W);
    sl__red_merge_k<T, Addr, I>
        <<<sl__blocks(max_multi * W, SL__THREADS / 32), SL__THREADS, 0, s>>>(
            p, mlist, mpos + cap, uniq, lens, mstart, multi, partial);
    SL__CUDA_LAUNCHED(ctx, "sorted: merge kernel");
  }
  return SL_STATUS_OK;
}

/* Number of bits that values in [0, n] need. */
static inline int sl__bits_for(uint64_t n) {
  int b = 1;
  while (b < 64 && (n >> b) != 0) ++b;
  return b;
}

/*
 * Sorts n (key, value) pairs by key (the low `bits` bits; stable, so equal
 * keys keep their values' order) and run-length encodes the sorted keys:
 * *perm the values in key order, *uniq each run's key, *lens each run's
 * length (n + 1 entries, 0 past the last run: ready for an exclusive scan
 * that ends with the total), *nruns the number of runs (on the device).
 * Shared by the sorted strategies of the reductions and of their backward.
 */
template <class I>
sl_status sl__sort_runs(sl_ctx *ctx, cudaStream_t s, sl__ws &ws, int64_t n,
                        const I *keys, const I *vals, int bits, I **perm,
                        I **uniq, I **lens, I **nruns) {
  I *skeys;
  SL__TRY(ws.get(&skeys, (size_t)n, "sorted: keys"));
  SL__TRY(ws.get(perm, (size_t)n, "sorted: rows"));
  SL__TRY(ws.get(uniq, (size_t)n + 1, "sorted: segments"));
  SL__TRY(ws.get_set(lens, (size_t)n + 1, 0, "sorted: segments"));
  SL__TRY(ws.get(nruns, 1, "sorted: segments"));
  size_t t1 = 0, t2 = 0;
  SL__CUDA_TRY(ctx,
               cub::DeviceRadixSort::SortPairs(nullptr, t1, keys, skeys, vals,
                                               *perm, n, 0, bits, s),
               "sorted: radix sort size");
  SL__CUDA_TRY(ctx,
               cub::DeviceRunLengthEncode::Encode(nullptr, t2, skeys, *uniq,
                                                  *lens, *nruns, n, s),
               "sorted: run-length size");
  size_t tb = t1 > t2 ? t1 : t2;
  unsigned char *tmp;
  SL__TRY(ws.get(&tmp, tb, "sorted: CUB workspace"));
  SL__CUDA_TRY(ctx,
               cub::DeviceRadixSort::SortPairs(tmp, tb, keys, skeys, vals,
                                               *perm, n, 0, bits, s),
               "sorted: radix sort by destination");
  SL__CUDA_TRY(ctx,
               cub::DeviceRunLengthEncode::Encode(tmp, tb, skeys, *uniq, *lens,
                                                  *nruns, n, s),
               "sorted: run-length encoding");
  return SL_STATUS_OK;
}

template <class T, class Addr, class I>
sl_status sl__red_sorted(sl_ctx *ctx, cudaStream_t s, sl__ws &ws,
                         sl__red<T, Addr> p) {
  const int64_t rows = p.a.rows;
  I *keys, *vals, *perm, *uniq, *lens, *nruns;
  SL__TRY(ws.get(&keys, (size_t)rows, "sorted: keys"));
  SL__TRY(ws.get(&vals, (size_t)rows, "sorted: rows"));
  sl__red_keys_k<Addr, I>
      <<<sl__blocks(rows, SL__THREADS), SL__THREADS, 0, s>>>(p.a, keys, vals);
  SL__CUDA_LAUNCHED(ctx, "sorted: key kernel");
  SL__TRY(sl__sort_runs<I>(ctx, s, ws, rows, keys, vals,
                           sl__bits_for((uint64_t)p.a.dests), &perm, &uniq,
                           &lens, &nruns));
  return sl__red_segments<T, Addr, I>(ctx, s, ws, p, perm, uniq, lens, rows);
}

/* ------------------------------------------------------------------------ */
/* Entry points                                                              */
/* ------------------------------------------------------------------------ */

/* Lock table: one lock per destination row, at most 2^22 (striped). */
static const int64_t SL__MAX_LOCKS = (int64_t)1 << 22;

/* The parameters of a call; 0 rows or columns need no kernel (returns 0). */
template <class T, class Addr>
int sl__red_make(sl__red<T, Addr> *p, const Addr &a, const T *src, T *out,
                 sl_reduce r, int self) {
  memset(p, 0, sizeof *p);
  p->a = a;
  p->src = src;
  p->out = out;
  p->r = r;
  p->self = r == SL_REDUCE_ASSIGN ? 1 : self;
  p->wdiv = sl__divmod_make(a.width, a.rows * a.width);
  return a.rows > 0 && a.width > 0 && a.dests > 0;
}

template <class T, class Addr>
sl_status sl__red_unsorted(sl_ctx *ctx, cudaStream_t s, sl__ws &ws,
                           sl__strategy how, sl__red<T, Addr> p) {
  typedef typename sl__acc_of<T>::type A;
  const Addr &a = p.a;
  const int64_t W = a.width;
  const sl_reduce r = p.r;
  if (r == SL_REDUCE_ASSIGN || !sl__reducible<T>::value) {
    /* Nothing to lock or combine: any writer may win an assignment. */
    sl__red_atomic_k<T, Addr>
        <<<sl__blocks(a.rows * W, SL__THREADS), SL__THREADS, 0, s>>>(p);
    SL__CUDA_LAUNCHED(ctx, "reduce: assignment kernel");
    return SL_STATUS_OK;
  }
  if constexpr (sl__reducible<T>::value) {
    const bool half = sl__is_half<T>::value;
    p.sign = how == SL__WARP && sl__is_float<A>::value &&
             (r == SL_REDUCE_AMAX || r == SL_REDUCE_AMIN || r == SL_REDUCE_MAX);
    if (half)
      SL__TRY(ws.get(&p.acc, (size_t)(a.dests * W), "f32 accumulators"));
    if (half || r == SL_REDUCE_MEAN)
      SL__TRY(ws.get_set(&p.cnt, (size_t)a.dests, 0, "counts"));
    if (half || !p.self || p.sign) {
      sl__red_prep_k<T, Addr>
          <<<sl__blocks(a.rows * W, SL__THREADS), SL__THREADS, 0, s>>>(p);
      SL__CUDA_LAUNCHED(ctx, "reduce: preparation kernel");
    }
    if (how == SL__ATOMIC) {
      sl__red_atomic_k<T, Addr>
          <<<sl__blocks(a.rows * W, SL__THREADS), SL__THREADS, 0, s>>>(p);
      SL__CUDA_LAUNCHED(ctx, "reduce: atomic kernel");
    } else if (how == SL__WARP) {
      sl__red_warp_k<T, Addr>
          <<<sl__blocks(a.rows * W, SL__THREADS), SL__THREADS, 0, s>>>(p);
      SL__CUDA_LAUNCHED(ctx, "reduce: warp-aggregated kernel");
    } else {
      p.nlocks = a.dests < SL__MAX_LOCKS ? a.dests : SL__MAX_LOCKS;
      SL__TRY(ws.get_set(&p.locks, (size_t)p.nlocks, 0, "locks"));
      if (W >= SL__LOCK_WIDE) {
        sl__red_lock32_k<T, Addr>
            <<<sl__blocks(a.rows, SL__THREADS), SL__THREADS, 0, s>>>(p);
        SL__CUDA_LAUNCHED(ctx, "reduce: lock kernel (warp per 32 rows)");
      } else {
        sl__red_lock1_k<T, Addr>
            <<<sl__blocks(a.rows, SL__THREADS), SL__THREADS, 0, s>>>(p);
        SL__CUDA_LAUNCHED(ctx, "reduce: lock kernel (thread per row)");
      }
    }
    if (p.cnt) {
      p.wdiv = sl__divmod_make(W, a.dests * W);
      sl__red_finish_k<T, Addr>
          <<<sl__blocks(a.dests * W, SL__THREADS), SL__THREADS, 0, s>>>(p);
      SL__CUDA_LAUNCHED(ctx, "reduce: finishing kernel");
    }
  }
  return SL_STATUS_OK;
}

/* out (holding x) ⊕= the rows of `a` with strategy `how`. */
template <class T, class Addr>
sl_status sl__reduce(sl_ctx *ctx, cudaStream_t s, sl__ws &ws, sl__strategy how,
                     const Addr &a, const T *src, T *out, sl_reduce r,
                     int self) {
  sl__red<T, Addr> p;
  if (!sl__red_make(&p, a, src, out, r, self)) return SL_STATUS_OK;
  if (a.rows > UINT32_MAX)
    return sl_ctx_fail(ctx, SL_STATUS_OVERFLOW,
                       "%s: expected at most %u contributions (32-bit "
                       "counts), got %lld",
                       sl_reduce_name(r), UINT32_MAX, (long long)a.rows);
  if (how != SL__SORTED) return sl__red_unsorted<T, Addr>(ctx, s, ws, how, p);
  if ((uint64_t)a.dests < UINT32_MAX && (uint64_t)a.rows < UINT32_MAX)
    return sl__red_sorted<T, Addr, uint32_t>(ctx, s, ws, p);
  return sl__red_sorted<T, Addr, uint64_t>(ctx, s, ws, p);
}

/* The sorted strategy over segments the caller already has (dynamic_scatter:
 * its points sorted by voxel): see sl__red_segments. */
template <class T, class Addr>
sl_status sl__reduce_segments(sl_ctx *ctx, cudaStream_t s, sl__ws &ws,
                              const Addr &a, const T *src, T *out, sl_reduce r,
                              int self, const uint32_t *perm,
                              const uint32_t *lens, int64_t cap) {
  sl__red<T, Addr> p;
  if (!sl__red_make(&p, a, src, out, r, self)) return SL_STATUS_OK;
  return sl__red_segments<T, Addr, uint32_t>(ctx, s, ws, p, perm, nullptr, lens,
                                             cap);
}

/* sl__reduce for dtype dt: the reduction group (i32, i64, f16, bf16, f32,
 * f64), and any dtype for assignment (moved as bytes). */
template <class Addr>
sl_status sl__reduce_dtype(sl_ctx *ctx, cudaStream_t s, sl__ws &ws,
                           sl__strategy how, const Addr &a, sl_dtype dt,
                           const void *src, void *out, sl_reduce r, int self) {
  if (r == SL_REDUCE_ASSIGN) {
    switch (sl_dtype_size(dt)) {
    case 1:
      return sl__reduce<uint8_t, Addr>(ctx, s, ws, how, a, (const uint8_t *)src,
                                       (uint8_t *)out, r, self);
    case 2:
      return sl__reduce<uint16_t, Addr>(
          ctx, s, ws, how, a, (const uint16_t *)src, (uint16_t *)out, r, self);
    case 4:
      return sl__reduce<uint32_t, Addr>(
          ctx, s, ws, how, a, (const uint32_t *)src, (uint32_t *)out, r, self);
    case 8:
      return sl__reduce<uint64_t, Addr>(
          ctx, s, ws, how, a, (const uint64_t *)src, (uint64_t *)out, r, self);
    default:
      return sl__reduce<sl__e16, Addr>(ctx, s, ws, how, a, (const sl__e16 *)src,
                                       (sl__e16 *)out, r, self);
    }
  }
  switch (dt) {
  case SL_I32:
    return sl__reduce<int32_t, Addr>(ctx, s, ws, how, a, (const int32_t *)src,
                                     (int32_t *)out, r, self);
  case SL_I64:
    return sl__reduce<int64_t, Addr>(ctx, s, ws, how, a, (const int64_t *)src,
                                     (int64_t *)out, r, self);
  case SL_F16:
    return sl__reduce<__half, Addr>(ctx, s, ws, how, a, (const __half *)src,
                                    (__half *)out, r, self);
  case SL_BF16:
    return sl__reduce<__nv_bfloat16, Addr>(ctx, s, ws, how, a,
                                           (const __nv_bfloat16 *)src,
                                           (__nv_bfloat16 *)out, r, self);
  case SL_F32:
    return sl__reduce<float, Addr>(ctx, s, ws, how, a, (const float *)src,
                                   (float *)out, r, self);
  case SL_F64:
    return sl__reduce<double, Addr>(ctx, s, ws, how, a, (const double *)src,
                                    (double *)out, r, self);
  default:
    return sl_ctx_fail(ctx, SL_STATUS_UNSUPPORTED_DTYPE,
                       "x: expected one of i32, i64, f16, bf16, f32, f64, got "
                       "%s",
                       sl_dtype_name(dt));
  }
}

#endif /* SL_REDUCE_ENGINE_CUH */
