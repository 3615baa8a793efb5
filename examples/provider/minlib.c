/*
 * minlib: an example scatterlab provider ("bring your own kernel"), built
 * out of tree against an installed scatterlab (CMakeLists.txt, README.md).
 * It needs sl/sl_provider.h and nothing else of scatterlab: no LibTorch, no
 * SQLite, no harness symbol (it links with -z defs to prove it).
 *
 * Three variants of scatter_reduce with reduce=amin (sl/sl.h: slots
 * x index src | out): out = x; with include_self=0 every position the index
 * targets starts from amin's identity (+inf, or the dtype's highest
 * integer) instead; then out[i with i_dim := index[i]] = min(out[...],
 * src[i]) for every position i of index. A NaN wins over any number and a
 * NaN already in out stays (LibTorch's amin), so any NaN contribution makes
 * the result NaN. Equal values (-0.0 and 0.0) keep what out holds.
 *
 *   cpu.atomic_min   OpenMP threads over index positions; each update is a
 *                    C11 compare-and-swap loop on the output element's bit
 *                    pattern (f32, f64, i32, i64). Any strides, stride 0
 *                    included.
 *   cpu.lock_min     the same walk; each update takes one of a table of
 *                    OpenMP locks, chosen by the element's offset. Declares
 *                    contiguous inputs only (layouts 0): the harness hands
 *                    it contiguous copies of strided or broadcast inputs.
 *   cpu.planted_min  atomic_min with a PLANTED BUG, for the demonstration
 *                    that `scatterlab fuzz` finds and shrinks a wrong
 *                    kernel: a contribution whose index value is the last
 *                    position along dim (x.size(dim) - 1) is dropped, so
 *                    that position keeps x (or +inf without include_self)
 *                    where a smaller src value should have won.
 *
 * Kernel contract (sl/sl_provider.h): the call has been validated (shapes,
 * dtypes, index values in range, p.dim normalized to >= 0) and fits the
 * variant's capabilities; out is allocated by the harness, poisoned and
 * guarded. Strides are in elements. ctx->threads is the thread budget (0:
 * all). Scratch memory (cpu.lock_min's lock table) is freed before return.
 */
#include <math.h>
#include <omp.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sl/sl_provider.h"

/* ------------------------------------------------------------------------ */
/* The strided walk shared by every pass of every variant                    */
/* ------------------------------------------------------------------------ */

/* A row-major walk over the extents ext[0..nd) that keeps the element
 * offsets of up to three tensors in step. A rank-0 tensor counts as rank 1
 * of extent 1 (the op's contract): a dimension a tensor lacks has extent 1
 * and stride 0. */
#define MINLIB_WALK_TENSORS 3
typedef struct minlib_walk {
  int nd, nt;
  int64_t ext[SL_MAX_DIMS];
  int64_t str[MINLIB_WALK_TENSORS][SL_MAX_DIMS];
  int64_t coord[SL_MAX_DIMS];
  int64_t off[MINLIB_WALK_TENSORS];
} minlib_walk;

static int64_t minlib_extent(const sl_tensor *t, int d) {
  return d < t->ndim ? t->shape[d] : 1;
}
static int64_t minlib_stride(const sl_tensor *t, int d) {
  return d < t->ndim ? t->strides[d] : 0;
}

/* Walks shape's extents over the tensors ts[0..nt). Returns the number of
 * positions. */
static int64_t minlib_walk_init(minlib_walk *w, int nd, const sl_tensor *shape,
                                int nt, const sl_tensor *const *ts) {
  int64_t n = 1;
  memset(w, 0, sizeof *w);
  w->nd = nd;
  w->nt = nt;
  for (int d = 0; d < nd; ++d) {
    w->ext[d] = minlib_extent(shape, d);
    n *= w->ext[d];
    for (int t = 0; t < nt; ++t) w->str[t][d] = minlib_stride(ts[t], d);
  }
  return n;
}

/* Moves the walk to row-major position n (0 <= n < the walk's size). */
static void minlib_walk_seek(minlib_walk *w, int64_t n) {
  for (int t = 0; t < w->nt; ++t) w->off[t] = 0;
  for (int d = w->nd - 1; d >= 0; --d) {
    w->coord[d] = n % w->ext[d];
    n /= w->ext[d];
    for (int t = 0; t < w->nt; ++t) w->off[t] += w->coord[d] * w->str[t][d];
  }
}

/* Steps to the next position: the last coordinate first, carrying over. */
static void minlib_walk_next(minlib_walk *w) {
  for (int d = w->nd - 1; d >= 0; --d) {
    for (int t = 0; t < w->nt; ++t) w->off[t] += w->str[t][d];
    if (++w->coord[d] < w->ext[d]) return;
    for (int t = 0; t < w->nt; ++t) w->off[t] -= w->ext[d] * w->str[t][d];
    w->coord[d] = 0;
  }
}

/* ------------------------------------------------------------------------ */
/* Values                                                                    */
/* ------------------------------------------------------------------------ */

/* Whether the candidate b replaces the current value a under amin: b is
 * smaller, or b is NaN while a is not. A NaN in a stays. The values travel
 * as bit patterns of their width, as the atomics see them: f32 or i32 in
 * 32 bits, f64 or i64 in 64. */
static int minlib_wins32(sl_dtype dt, uint32_t b, uint32_t a) {
  if (dt == SL_F32) {
    float x, y;
    memcpy(&x, &b, sizeof x);
    memcpy(&y, &a, sizeof y);
    return !isnan(y) && (isnan(x) || x < y);
  }
  int32_t x, y;
  memcpy(&x, &b, sizeof x);
  memcpy(&y, &a, sizeof y);
  return x < y;
}

static int minlib_wins64(sl_dtype dt, uint64_t b, uint64_t a) {
  if (dt == SL_F64) {
    double x, y;
    memcpy(&x, &b, sizeof x);
    memcpy(&y, &a, sizeof y);
    return !isnan(y) && (isnan(x) || x < y);
  }
  int64_t x, y;
  memcpy(&x, &b, sizeof x);
  memcpy(&y, &a, sizeof y);
  return x < y;
}

/* The same for elements in memory, of es bytes. */
static int minlib_wins(sl_dtype dt, size_t es, const void *b, const void *a) {
  if (es == 4) {
    uint32_t x, y;
    memcpy(&x, b, sizeof x);
    memcpy(&y, a, sizeof y);
    return minlib_wins32(dt, x, y);
  }
  uint64_t x, y;
  memcpy(&x, b, sizeof x);
  memcpy(&y, a, sizeof y);
  return minlib_wins64(dt, x, y);
}

/* amin's identity for dt into buf (8 bytes): +inf or the highest integer. */
static void minlib_identity(sl_dtype dt, void *buf) {
  const float f = INFINITY;
  const double d = INFINITY;
  const int32_t i = INT32_MAX;
  const int64_t l = INT64_MAX;
  switch (dt) {
  case SL_F32:
    memcpy(buf, &f, sizeof f);
    break;
  case SL_F64:
    memcpy(buf, &d, sizeof d);
    break;
  case SL_I32:
    memcpy(buf, &i, sizeof i);
    break;
  default:
    memcpy(buf, &l, sizeof l);
    break;
  }
}

static int64_t minlib_load_index(sl_dtype it, const char *base, int64_t off) {
  if (it == SL_I32) {
    int32_t v;
    memcpy(&v, base + off * 4, sizeof v);
    return v;
  }
  int64_t v;
  memcpy(&v, base + off * 8, sizeof v);
  return v;
}

/* ------------------------------------------------------------------------ */
/* The scatter-min shared by the variants                                    */
/* ------------------------------------------------------------------------ */

typedef struct minlib_job minlib_job;

/* Updates the output element at element offset `off` with the candidate
 * val: unconditionally when `force` (the identity of include_self=0), else
 * when val wins. Called concurrently for one element from several threads. */
typedef void (*minlib_update_fn)(const minlib_job *job, int64_t off,
                                 const void *val, int force);

struct minlib_job {
  sl_dtype dt, it;
  size_t es;
  const char *x, *index, *src;
  char *out;
  int64_t ostep; /* out's stride along dim */
  int64_t last;  /* x.size(dim) - 1 */
  int drop_last; /* cpu.planted_min's bug */
  unsigned char identity[8];
  minlib_update_fn update;
  omp_lock_t *locks; /* cpu.lock_min */
};

/* The C11 atomic update on a 4- or 8-byte element: a CAS loop that stops
 * as soon as the value in memory wins over the candidate. Relaxed order
 * suffices: the passes are separated by the OpenMP barriers, and nothing
 * else is published through the element. */
#define MINLIB_ATOMIC_UPDATE(bits)                                             \
  static void minlib_atomic_update##bits(const minlib_job *job, void *p,       \
                                         const void *val, int force) {         \
    _Atomic uint##bits##_t *a = p;                                             \
    uint##bits##_t b;                                                          \
    memcpy(&b, val, sizeof b);                                                 \
    if (force) {                                                               \
      atomic_store_explicit(a, b, memory_order_relaxed);                       \
      return;                                                                  \
    }                                                                          \
    uint##bits##_t old = atomic_load_explicit(a, memory_order_relaxed);        \
    while (minlib_wins##bits(job->dt, b, old) &&                               \
           !atomic_compare_exchange_weak_explicit(                             \
               a, &old, b, memory_order_relaxed, memory_order_relaxed)) {      \
    }                                                                          \
  }
MINLIB_ATOMIC_UPDATE(32)
MINLIB_ATOMIC_UPDATE(64)

static void minlib_atomic_update(const minlib_job *job, int64_t off,
                                 const void *val, int force) {
  void *p = job->out + off * (int64_t)job->es;
  if (job->es == 4)
    minlib_atomic_update32(job, p, val, force);
  else
    minlib_atomic_update64(job, p, val, force);
}

/* Lock striping: neighbouring elements take different locks, and one
 * element always the same. A power of two. */
#define MINLIB_LOCKS 1024

static void minlib_lock_update(const minlib_job *job, int64_t off,
                               const void *val, int force) {
  char *p = job->out + off * (int64_t)job->es;
  omp_lock_t *lock = &job->locks[(uint64_t)off & (MINLIB_LOCKS - 1)];
  omp_set_lock(lock);
  if (force || minlib_wins(job->dt, job->es, val, p)) memcpy(p, val, job->es);
  omp_unset_lock(lock);
}

/* Rows of work per OpenMP chunk: each chunk seeks once, then steps. Small,
 * so that the fuzzer's small cases already run on several threads. */
#define MINLIB_CHUNK 64

/* What to do at one position of a walk; `arg` is the pass's own. */
typedef void (*minlib_step_fn)(const minlib_job *job, const minlib_walk *w,
                               int arg);

/* Calls step at the n positions of the walk w0, spread over threads. */
static void minlib_for_each(const minlib_job *job, const minlib_walk *w0,
                            int64_t n, int threads, minlib_step_fn step,
                            int arg) {
  const int64_t chunks = (n + MINLIB_CHUNK - 1) / MINLIB_CHUNK;
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int64_t k = 0; k < chunks; ++k) {
    minlib_walk w = *w0;
    const int64_t end = (k + 1) * MINLIB_CHUNK < n ? (k + 1) * MINLIB_CHUNK : n;
    minlib_walk_seek(&w, k * MINLIB_CHUNK);
    for (int64_t i = k * MINLIB_CHUNK; i < end; ++i, minlib_walk_next(&w))
      step(job, &w, arg);
  }
}

/* out = x at one position of out's shape; the walk's tensors are x, out. */
static void minlib_copy_step(const minlib_job *job, const minlib_walk *w,
                             int unused) {
  (void)unused;
  memcpy(job->out + w->off[1] * (int64_t)job->es,
         job->x + w->off[0] * (int64_t)job->es, job->es);
}

/* One position of index; the walk's tensors are index, src and out with
 * out's stride along dim zeroed (the index value supplies that
 * coordinate). identity: force amin's identity into the targeted element
 * (include_self=0), else combine src into it. */
static void minlib_scatter_step(const minlib_job *job, const minlib_walk *w,
                                int identity) {
  const int64_t v = minlib_load_index(job->it, job->index, w->off[0]);
  if (job->drop_last && v == job->last) return; /* the planted bug */
  const int64_t off = w->off[2] + v * job->ostep;
  if (identity)
    job->update(job, off, job->identity, 1);
  else
    job->update(job, off, job->src + w->off[1] * (int64_t)job->es, 0);
}

static sl_status minlib_scatter_min(sl_ctx *ctx, sl_call *c,
                                    minlib_update_fn update, int drop_last) {
  const sl_tensor *x = &c->arg[0], *index = &c->arg[1], *src = &c->arg[2];
  const sl_tensor *out = &c->arg[3];
  const int dim = (int)c->p.dim;
  const int threads = ctx->threads > 0 ? ctx->threads : omp_get_max_threads();
  int nd = x->ndim;
  if (index->ndim > nd) nd = index->ndim;
  if (src->ndim > nd) nd = src->ndim;

  minlib_job job = {
      .dt = x->dtype,
      .it = index->dtype,
      .es = sl_provider_dtype_size(x->dtype),
      .x = x->data,
      .index = index->data,
      .src = src->data,
      .out = out->data,
      .ostep = minlib_stride(out, dim),
      .last = minlib_extent(x, dim) - 1,
      .drop_last = drop_last,
      .update = update,
  };
  minlib_identity(job.dt, job.identity);

  /* out = x, over out's shape. */
  const sl_tensor *tc[2] = {x, out};
  minlib_walk wc;
  const int64_t out_n = minlib_walk_init(&wc, out->ndim, out, 2, tc);
  if (out_n == 0) return SL_STATUS_OK; /* nothing to write, nothing to read */
  minlib_for_each(&job, &wc, out_n, threads, minlib_copy_step, 0);

  /* out's stride along dim is left out of the walk: the index value gives
   * that coordinate. */
  sl_tensor out_off_dim = *out;
  if (dim < out_off_dim.ndim) out_off_dim.strides[dim] = 0;
  const sl_tensor *ts[3] = {index, src, &out_off_dim};
  minlib_walk w0;
  const int64_t n = minlib_walk_init(&w0, nd, index, 3, ts);
  if (n == 0) return SL_STATUS_OK;

  if (update == minlib_lock_update) {
    job.locks = malloc(MINLIB_LOCKS * sizeof *job.locks);
    if (!job.locks)
      return sl_provider_fail(ctx, SL_STATUS_OUT_OF_MEMORY,
                              "cpu.lock_min: cannot allocate %d locks",
                              MINLIB_LOCKS);
    for (int i = 0; i < MINLIB_LOCKS; ++i) omp_init_lock(&job.locks[i]);
  }
  /* Two passes: every identity is in place before the first min. */
  if (!c->p.include_self)
    minlib_for_each(&job, &w0, n, threads, minlib_scatter_step, 1);
  minlib_for_each(&job, &w0, n, threads, minlib_scatter_step, 0);
  if (job.locks) {
    for (int i = 0; i < MINLIB_LOCKS; ++i) omp_destroy_lock(&job.locks[i]);
    free(job.locks);
  }
  return SL_STATUS_OK;
}

static sl_status minlib_atomic_min(sl_ctx *ctx, sl_call *c) {
  return minlib_scatter_min(ctx, c, minlib_atomic_update, 0);
}

static sl_status minlib_lock_min(sl_ctx *ctx, sl_call *c) {
  return minlib_scatter_min(ctx, c, minlib_lock_update, 0);
}

static sl_status minlib_planted_min(sl_ctx *ctx, sl_call *c) {
  return minlib_scatter_min(ctx, c, minlib_atomic_update, 1);
}

/* ------------------------------------------------------------------------ */
/* The provider table                                                        */
/* ------------------------------------------------------------------------ */

/* What every variant takes: four dtypes, both index dtypes, amin only, both
 * include_self values, any rank; `layouts` differs. */
#define MINLIB_CAPS(layout_bits)                                               \
  {                                                                            \
    .dtypes = SL_DTYPE_BIT(SL_F32) | SL_DTYPE_BIT(SL_F64) |                    \
              SL_DTYPE_BIT(SL_I32) | SL_DTYPE_BIT(SL_I64),                     \
    .index_dtypes = SL_INDEX_DTYPES_ALL,                                       \
    .reduces = SL_REDUCE_BIT(SL_REDUCE_AMIN),                                  \
    .include_self = SL_INCLUDE_SELF_BOTH, .max_rank = SL_MAX_DIMS,             \
    .layouts = (layout_bits)                                                   \
  }

/* No SL_DETERMINISTIC: threads race to equal values (-0.0 and 0.0, NaNs
 * with different payloads), so the bits may differ from run to run. */
static const sl_provider_variant minlib_variants[] = {
    {SL_OP_SCATTER_REDUCE, "cpu.atomic_min", SL_DEVICE_CPU, minlib_atomic_min,
     0, MINLIB_CAPS(SL_LAYOUTS_ALL)},
    {SL_OP_SCATTER_REDUCE, "cpu.lock_min", SL_DEVICE_CPU, minlib_lock_min, 0,
     MINLIB_CAPS(0)},
    {SL_OP_SCATTER_REDUCE, "cpu.planted_min", SL_DEVICE_CPU, minlib_planted_min,
     0, MINLIB_CAPS(SL_LAYOUTS_ALL)},
};

static const sl_provider minlib_provider = {
    .abi_version = SL_PROVIDER_ABI_VERSION,
    .size = sizeof(sl_provider),
    .name = "minlib",
    .version = "1.0",
    .n_variants = sizeof minlib_variants / sizeof minlib_variants[0],
    .variants = minlib_variants,
};

SL_PROVIDER_ENTRY { return &minlib_provider; }
