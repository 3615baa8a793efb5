/* Host side of the shared device helpers (see cuda_common.cuh). */
#include <stdio.h>

#include "cuda/cuda_common.cuh"
#include "cuda/cuda_slots.cuh"

volatile int sl__cuda_used = 0;

sl_status sl__cuda_fail(sl_ctx *ctx, cudaError_t err, const char *what) {
  sl_status st = SL_STATUS_DEVICE_ERROR;
  if (err == cudaErrorMemoryAllocation)
    st = SL_STATUS_OUT_OF_MEMORY;
  else if (err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver)
    st = SL_STATUS_NO_DEVICE;
  return sl_ctx_fail(ctx, st, "%s: expected success, got CUDA error %s (%s)",
                     what, cudaGetErrorName(err), cudaGetErrorString(err));
}

int sl__cuda_sms(void) {
  static int sms[64];
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= 64) return 16;
  if (!sms[dev]) {
    int n = 0;
    if (cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev) !=
            cudaSuccess ||
        n <= 0)
      n = 16;
    sms[dev] = n;
  }
  return sms[dev];
}

int sl__cuda_coop(void) {
  static int coop[64]; /* 0 unknown, 1 yes, 2 no */
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= 64) return 0;
  if (!coop[dev]) {
    int v = 0;
    coop[dev] = cudaDeviceGetAttribute(&v, cudaDevAttrCooperativeLaunch, dev) ==
                            cudaSuccess &&
                        v
                    ? 1
                    : 2;
  }
  return coop[dev] == 1;
}

sl_status sl__cuda_begin(sl_ctx *ctx, cudaStream_t *stream) {
  static int pool_ready[64];
  sl__cuda_used = 1;
  *stream = (cudaStream_t)ctx->cuda_stream;
  int dev = 0;
  SL__CUDA_TRY(ctx, cudaGetDevice(&dev), "cudaGetDevice");
  if (dev >= 0 && dev < 64 && !pool_ready[dev]) {
    /* Keep freed workspace in the pool instead of returning it to the
     * driver at every synchronisation: the next call reuses it. */
    cudaMemPool_t pool;
    SL__CUDA_TRY(ctx, cudaDeviceGetDefaultMemPool(&pool, dev),
                 "cudaDeviceGetDefaultMemPool");
    uint64_t keep = UINT64_MAX;
    SL__CUDA_TRY(
        ctx,
        cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep),
        "cudaMemPoolSetAttribute");
    pool_ready[dev] = 1;
  }
  return SL_STATUS_OK;
}

sl__it sl__it_make(int ndim, const int64_t *shape, int nt,
                   const int64_t *const *strides, int keep_dim) {
  sl__it it;
  memset(&it, 0, sizeof it);
  it.nt = nt;
  it.keep = -1;
  it.numel = 1;
  for (int d = 0; d < ndim; ++d) it.numel *= shape[d];
  /* Drop extent-1 dims (their coordinate is always 0), except the kept one
   * when it is wider than 1. */
  int n = 0;
  for (int d = 0; d < ndim; ++d) {
    if (shape[d] == 1) continue;
    it.shape[n] = shape[d];
    for (int t = 0; t < nt; ++t) it.st[t][n] = strides[t][d];
    if (d == keep_dim) it.keep = n;
    ++n;
  }
  /* Merge a dim into its inner neighbour when every tensor steps over the
   * pair as over one dim (stride of the outer = extent * stride of the
   * inner); never the kept dim. */
  const int old_keep = it.keep; /* in the compacted numbering */
  int new_keep = -1, m = 0;
  for (int d = 0; d < n; ++d) {
    if (m > 0 && d != old_keep && m - 1 != new_keep) {
      int ok = 1;
      for (int t = 0; t < nt && ok; ++t)
        ok = it.st[t][m - 1] == it.shape[d] * it.st[t][d];
      if (ok) {
        it.shape[m - 1] *= it.shape[d];
        for (int t = 0; t < nt; ++t) it.st[t][m - 1] = it.st[t][d];
        continue;
      }
    }
    if (d == old_keep) new_keep = m;
    it.shape[m] = it.shape[d];
    for (int t = 0; t < nt; ++t) it.st[t][m] = it.st[t][d];
    ++m;
  }
  it.keep = new_keep;
  it.ndim = m;
  for (int d = 0; d < m; ++d)
    it.div[d] = sl__divmod_make(it.shape[d], it.numel);
  return it;
}

int64_t sl__it_span(const sl__it &it, int t) {
  int64_t span = 0;
  for (int d = 0; d < it.ndim; ++d) {
    const int64_t st = it.st[t][d] < 0 ? -it.st[t][d] : it.st[t][d];
    span += (it.shape[d] - 1) * st;
  }
  return span;
}

void sl__cuda_pos_str(const sl_tensor *t, int64_t linear, char *buf,
                      size_t len) {
  int64_t idx[SL_MAX_DIMS];
  sl__unravel(linear, t->ndim, t->shape, idx);
  size_t k = 0;
  if (len) buf[0] = '\0';
  for (int d = 0; d < t->ndim && k < len; ++d)
    k += (size_t)snprintf(buf + k, len - k, d ? ",%lld" : "%lld",
                          (long long)idx[d]);
}

/* A thread's verdict slots on one device (sl__cuda_slots): the device's
 * four, a pinned copy to read them into, and whether they may hold
 * anything but UINT64_MAX. Freed with the process. */
struct sl__slot_set {
  unsigned long long *dev, *host;
  int dirty;
};
static thread_local sl__slot_set sl__slot_sets[64];

static sl_status sl__slot_set_of(sl_ctx *ctx, sl__slot_set **set) {
  int dev = 0;
  SL__CUDA_TRY(ctx, cudaGetDevice(&dev), "index check: cudaGetDevice");
  if (dev < 0 || dev >= 64)
    return sl_ctx_fail(ctx, SL_STATUS_INTERNAL,
                       "index check: expected a device below 64, got %d", dev);
  *set = &sl__slot_sets[dev];
  return SL_STATUS_OK;
}

sl_status sl__cuda_slots(sl_ctx *ctx, cudaStream_t s, int n,
                         unsigned long long **slots) {
  sl__slot_set *set;
  *slots = nullptr;
  if (n < 1 || n > 4)
    return sl_ctx_fail(ctx, SL_STATUS_INTERNAL,
                       "index check: expected 1 to 4 slots, got %d", n);
  SL__TRY(sl__slot_set_of(ctx, &set));
  if (!set->dev) {
    /* The pinned copy first, and each pointer kept only once allocated:
     * a set with slots always has its copy. */
    unsigned long long *host = set->host, *dev = nullptr;
    if (!host)
      SL__CUDA_TRY(ctx, cudaMallocHost(&host, 4 * sizeof host[0]),
                   "index check: pinned slots");
    set->host = host;
    SL__CUDA_TRY(ctx, cudaMalloc(&dev, 4 * sizeof dev[0]),
                 "index check: slots");
    set->dev = dev;
    set->dirty = 1;
  }
  if (set->dirty) {
    /* Waits: a stopped call's kernels may still be writing them. */
    SL__CUDA_TRY(ctx,
                 cudaMemsetAsync(set->dev, 0xff, 4 * sizeof set->dev[0], s),
                 "index check: fill the slots");
    SL__CUDA_TRY(ctx, cudaStreamSynchronize(s), "index check: synchronize");
  }
  set->dirty = 1; /* until read back clean */
  *slots = set->dev;
  return SL_STATUS_OK;
}

sl_status sl__cuda_read_slots(sl_ctx *ctx, cudaStream_t s,
                              const unsigned long long *bad, int n,
                              int64_t *pos) {
  unsigned long long local[4];
  if (n < 1 || n > 4)
    return sl_ctx_fail(ctx, SL_STATUS_INTERNAL,
                       "index check: expected 1 to 4 slots, got %d", n);
  sl__slot_set *set;
  SL__TRY(sl__slot_set_of(ctx, &set));
  const bool kept = bad == set->dev;
  unsigned long long *first = kept ? set->host : local;
  SL__CUDA_TRY(ctx,
               cudaMemcpyAsync(first, bad, (size_t)n * sizeof first[0],
                               cudaMemcpyDeviceToHost, s),
               "index check: cudaMemcpyAsync");
  SL__CUDA_TRY(ctx, cudaStreamSynchronize(s), "index check: synchronize");
  int set_any = 0;
  for (int k = 0; k < n; ++k) {
    pos[k] = first[k] == ~0ull ? -1 : (int64_t)first[k];
    set_any |= pos[k] >= 0;
  }
  if (kept) set->dirty = set_any;
  return SL_STATUS_OK;
}

sl_status sl__cuda_value_at(sl_ctx *ctx, const sl_tensor *t, int64_t pos,
                            int64_t *value) {
  int64_t off = sl__offset_linear(t, pos);
  size_t es = sl_dtype_size(t->dtype);
  unsigned char buf[8] = {0};
  SL__CUDA_TRY(ctx,
               cudaMemcpy(buf, (const char *)t->data + off * (int64_t)es, es,
                          cudaMemcpyDeviceToHost),
               "index check: cudaMemcpy");
  *value = sl__load_i(t->dtype, buf);
  return SL_STATUS_OK;
}

sl_status sl__cuda_read_bad(sl_ctx *ctx, cudaStream_t s,
                            const unsigned long long *bad,
                            const sl_tensor *index, int64_t *pos,
                            int64_t *value) {
  *value = 0;
  SL__TRY(sl__cuda_read_slots(ctx, s, bad, 1, pos));
  return *pos < 0 ? SL_STATUS_OK : sl__cuda_value_at(ctx, index, *pos, value);
}

/* Every element of t: value outside [lo, his[c]) records its position. */
struct sl__bounds8 {
  int64_t v[8];
};

__global__ void sl__find_bad_k(sl__it it, const void *data, int is64,
                               int64_t lo, sl__divmod cdiv, int64_t cext,
                               sl__bounds8 his, unsigned long long *bad) {
  SL__GRID_STRIDE(i, it.numel) {
    int64_t off[1];
    sl__it_at<1>(it, i, off);
    int64_t v = sl__ld_index(data, is64, off[0]);
    /* The column is the coordinate of the last dim (col_dim is always the
     * innermost dim where it is used): i mod its extent. */
    int64_t c = cext > 1 ? i - sl__div(cdiv, i) * cext : 0;
    int64_t hi = his.v[c < 8 ? c : 0];
    if (v < lo || v >= hi) atomicMin(bad, (unsigned long long)i);
  }
}

/* The pass of sl__cuda_find_bad, launched only: the first bad position
 * lands in the slot *bad (set to UINT64_MAX by the caller). */
static sl_status sl__cuda_find_bad_launch(sl_ctx *ctx, cudaStream_t s,
                                          const sl_tensor *t, int64_t lo,
                                          const int64_t *his, int col_dim,
                                          unsigned long long *bad) {
  int64_t n = sl__numel(t);
  if (n == 0) return SL_STATUS_OK;
  sl__bounds8 h;
  for (int k = 0; k < 8; ++k) h.v[k] = his[0];
  int64_t cext = 1;
  if (col_dim >= 0) {
    /* Per-column bounds only along the innermost dim (gather_nd's last). */
    if (col_dim != t->ndim - 1 || t->shape[col_dim] > 8)
      return sl_ctx_fail(ctx, SL_STATUS_INTERNAL,
                         "index check: expected per-column bounds along the "
                         "last dim (at most 8 columns), got dim %d",
                         col_dim);
    cext = t->shape[col_dim];
    for (int k = 0; k < cext; ++k) h.v[k] = his[k];
  }
  const int64_t *st[1] = {t->strides};
  sl__it it = sl__it_make(t->ndim, t->shape, 1, st, -1);
  sl__find_bad_k<<<sl__blocks(n, SL__THREADS), SL__THREADS, 0, s>>>(
      it, t->data, t->dtype == SL_I64, lo, sl__divmod_make(cext, n), cext, h,
      bad);
  SL__CUDA_LAUNCHED(ctx, "index check kernel");
  return SL_STATUS_OK;
}

sl_status sl__cuda_find_bad(sl_ctx *ctx, cudaStream_t s, sl__ws &ws,
                            const sl_tensor *t, int64_t lo, const int64_t *his,
                            int col_dim, int64_t *pos, int64_t *value) {
  (void)ws; /* the verdict slot is the thread's (sl__cuda_slots) */
  *pos = -1;
  *value = 0;
  if (sl__numel(t) == 0) return SL_STATUS_OK;
  unsigned long long *bad;
  SL__TRY(sl__cuda_slots(ctx, s, 1, &bad));
  SL__TRY(sl__cuda_find_bad_launch(ctx, s, t, lo, his, col_dim, bad));
  return sl__cuda_read_bad(ctx, s, bad, t, pos, value);
}

/* The failure of an index value out of [0, bound), or OK when pos < 0. */
static sl_status sl__cuda_index_verdict(sl_ctx *ctx, const char *what,
                                        const sl_tensor *index, int64_t pos,
                                        int64_t v, int64_t bound,
                                        const char *ctxdesc) {
  if (pos < 0) return SL_STATUS_OK;
  char p[160];
  sl__cuda_pos_str(index, pos, p, sizeof p);
  return sl_ctx_fail(ctx, SL_STATUS_INDEX_OUT_OF_RANGE,
                     "%s[%s]=%lld out of range [0,%lld) for %s", what, p,
                     (long long)v, (long long)bound, ctxdesc);
}

sl_status sl__cuda_check_index(sl_ctx *ctx, cudaStream_t s, sl__ws &ws,
                               const char *what, const sl_tensor *index,
                               int64_t bound, const char *ctxdesc) {
  int64_t pos, v;
  SL__TRY(sl__cuda_find_bad(ctx, s, ws, index, 0, &bound, -1, &pos, &v));
  return sl__cuda_index_verdict(ctx, what, index, pos, v, bound, ctxdesc);
}

sl_status sl__guard_open(sl__ws &ws, int64_t hi, sl__guard *g) {
  g->hi = hi;
  return sl__cuda_slots(ws.ctx, ws.stream, 1, &g->bad);
}

sl_status sl__guard_close(sl_ctx *ctx, cudaStream_t s, const sl__guard &g,
                          const char *what, const sl_tensor *index,
                          const char *ctxdesc) {
  int64_t pos, v;
  SL__TRY(sl__cuda_read_bad(ctx, s, g.bad, index, &pos, &v));
  return sl__cuda_index_verdict(ctx, what, index, pos, v, g.hi, ctxdesc);
}

/* ------------------------------------------------------------------------ */
/* Strided copy                                                              */
/* ------------------------------------------------------------------------ */
template <class E> __global__ void sl__copy_k(sl__it it, E *out, const E *x) {
  SL__GRID_STRIDE(i, it.numel) {
    int64_t off[2];
    sl__it_at<2>(it, i, off);
    out[off[0]] = x[off[1]];
  }
}

template <class E>
static sl_status sl__copy_as(sl_ctx *ctx, cudaStream_t s, const sl__it &it,
                             void *out, const void *x) {
  sl__copy_k<E><<<sl__blocks(it.numel, SL__THREADS), SL__THREADS, 0, s>>>(
      it, (E *)out, (const E *)x);
  SL__CUDA_LAUNCHED(ctx, "strided copy kernel");
  return SL_STATUS_OK;
}

sl_status sl__cuda_copy_strided(sl_ctx *ctx, cudaStream_t s,
                                const sl_tensor *out, const sl_tensor *x) {
  int64_t n = sl__numel(x);
  if (n == 0) return SL_STATUS_OK;
  size_t es = sl_dtype_size(x->dtype);
  const int64_t *st[2] = {out->strides, x->strides};
  sl__it it = sl__it_make(x->ndim, x->shape, 2, st, -1);
  if (it.ndim == 0 || (it.ndim == 1 && it.st[0][0] == 1 && it.st[1][0] == 1))
    SL__CUDA_TRY(ctx,
                 cudaMemcpyAsync(out->data, x->data, (size_t)n * es,
                                 cudaMemcpyDeviceToDevice, s),
                 "copy x to out: cudaMemcpyAsync");
  else if (es == 1)
    return sl__copy_as<uint8_t>(ctx, s, it, out->data, x->data);
  else if (es == 2)
    return sl__copy_as<uint16_t>(ctx, s, it, out->data, x->data);
  else if (es == 4)
    return sl__copy_as<uint32_t>(ctx, s, it, out->data, x->data);
  else if (es == 8)
    return sl__copy_as<uint64_t>(ctx, s, it, out->data, x->data);
  else
    return sl__copy_as<sl__e16>(ctx, s, it, out->data, x->data);
  return SL_STATUS_OK;
}
