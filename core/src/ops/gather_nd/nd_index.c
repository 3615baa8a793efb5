/* Validation of the index and dims of gather_nd and scatter_nd. */
#include <stdio.h>

#include "ops/gather_nd/nd_index.h"
#include "walk.h"

/* "1,0,2": a multi-index for messages. */
static void sl__nd_pos_str(int ndim, const int64_t *idx, char *buf,
                           size_t len) {
  size_t k = 0;
  buf[0] = '\0';
  for (int d = 0; d < ndim && k < len; ++d)
    k += (size_t)snprintf(buf + k, len - k, d ? ",%lld" : "%lld",
                          (long long)idx[d]);
}

/* Normalizes c->p.dims (or the default 0..M-1) into dims[0..M). */
static sl_status sl__nd_dims(sl_ctx *ctx, const sl_call *c, int K, int M,
                             int64_t *dims) {
  const sl_params *p = &c->p;
  char a[160];
  if (p->ndims < 0 || p->ndims > SL_MAX_DIMS)
    return sl_ctx_fail(ctx, SL_STATUS_INVALID_ARGUMENT,
                       "dims: expected a count in [0,%d], got %d", SL_MAX_DIMS,
                       p->ndims);
  if (p->ndims != 0 && p->ndims != M)
    return sl_ctx_fail(
        ctx, SL_STATUS_SHAPE_MISMATCH,
        "dims: expected %d axes (index.shape[-1] of index %s), "
        "got %d",
        M, sl_shape_str(c->arg[1].ndim, c->arg[1].shape, a, sizeof a),
        p->ndims);
  int owner[SL_MAX_DIMS];
  for (int d = 0; d < SL_MAX_DIMS; ++d) owner[d] = -1;
  for (int k = 0; k < M; ++k) {
    int64_t d = p->ndims ? p->dims[k] : k;
    char what[32];
    snprintf(what, sizeof what, "dims[%d]", k);
    /* sl__normalize_dim lets a rank-0 tensor take -1 and 0; here M <= K, so
     * K >= 1 whenever there is a dim to check. */
    sl_status st = sl__normalize_dim(ctx, what, d, K, &d);
    if (st) return st;
    if (owner[d] >= 0)
      return sl_ctx_fail(ctx, SL_STATUS_INVALID_ARGUMENT,
                         "dims: expected distinct axes, got axis %lld twice "
                         "(dims[%d] and dims[%d])",
                         (long long)d, owner[d], k);
    owner[d] = k;
    dims[k] = d;
  }
  return SL_STATUS_OK;
}

/* Every index[..., k] lies in [0, x.shape[dims[k]]); index on the CPU. */
/*
 * The first position in [b, e) of index.shape[:K] (row-major) whose tuple
 * holds a value outside [0, bound[k]), or -1; *col gets the column k.
 * Walks the positions a row at a time (walk.h).
 */
static int64_t sl__nd_first_bad_walk(const sl_tensor *index,
                                     const int64_t *bound, int M, int64_t b,
                                     int64_t e, int *col) {
  int K = index->ndim - 1;
  int64_t ik = index->strides[K];
  const int64_t *st[1] = {index->strides};
  sl__walk w;
  sl__walk_init(&w, K, index->shape, 1, st, b);
  for (int64_t at = b, n; at < e; at += n, sl__walk_next(&w)) {
    n = sl__walk_span(&w, e - at);
    int64_t base = sl__walk_at(&w, 0), step = sl__walk_step(&w, 0);
    for (int64_t j = 0; j < n; ++j)
      for (int k = 0; k < M; ++k) {
        int64_t v = sl__load_index(index, base + j * step + k * ik);
        if ((uint64_t)v >= (uint64_t)bound[k]) {
          *col = k;
          return at + j;
        }
      }
  }
  return -1;
}

/* Whether any tuple of positions [b, e) of a contiguous index (tuple p at
 * p*M) holds a value outside its column's bound, with no early exit: the
 * unsigned maximum of each lane of 16 tuples at a time (a loop the compiler
 * vectorizes, one max per vector), then each lane's maximum against its
 * column's bound (pat[l] = bound[l % M]). An OR of the compares per 16
 * tuples instead spent most of its time folding the vector into one int.
 * Unsigned values make negative ones huge; an i32 bound above INT32_MAX
 * leaves only those. */
#define SL__ND_ANY_BAD(T, U, CLAMP)                                            \
  SL__SIMD_CLONES static int sl__nd_any_bad_##T(                               \
      const T *v, const int64_t *bound, int M, int64_t b, int64_t e) {         \
    U most[16 * SL_MAX_DIMS];                                                  \
    const int P = 16 * M;                                                      \
    for (int l = 0; l < P; ++l) most[l] = 0; /* the lanes in use */            \
    int64_t p = b;                                                             \
    for (; p + 16 <= e; p += 16) {                                             \
      const U *w = (const U *)(v + p * M);                                     \
      for (int l = 0; l < P; ++l) most[l] = w[l] > most[l] ? w[l] : most[l];   \
    }                                                                          \
    for (; p < e; ++p)                                                         \
      for (int k = 0; k < M; ++k) {                                            \
        const U u = (U)v[p * M + k];                                           \
        most[k] = u > most[k] ? u : most[k];                                   \
      }                                                                        \
    int bad = 0;                                                               \
    for (int l = 0; l < P; ++l) bad |= most[l] >= CLAMP(bound[l % M]);         \
    return bad;                                                                \
  }
#define SL__CLAMP_U32(x) ((x) > INT32_MAX ? 0x80000000u : (uint32_t)(x))
#define SL__CLAMP_U64(x) ((uint64_t)(x))
SL__ND_ANY_BAD(int32_t, uint32_t, SL__CLAMP_U32)
SL__ND_ANY_BAD(int64_t, uint64_t, SL__CLAMP_U64)

/* The first bad position in [b, e) (see sl__nd_first_bad_walk): a
 * contiguous i32/i64 index is scanned in branch-free blocks first, and
 * only a block holding a bad value is walked for the position. The
 * scalar walk alone checked 65536 2-D tuples in 31 us. */
static int64_t sl__nd_first_bad(const sl_tensor *index, const int64_t *bound,
                                int M, int64_t b, int64_t e, int *col) {
  enum { BLOCK = SL__TH_INDEX_BLOCK }; /* positions */
  if (M == 0 || !sl_tensor_is_contiguous(index) ||
      (index->dtype != SL_I32 && index->dtype != SL_I64))
    return sl__nd_first_bad_walk(index, bound, M, b, e, col);
  for (int64_t at = b; at < e; at += BLOCK) {
    const int64_t stop = e - at < BLOCK ? e : at + BLOCK;
    const int bad =
        index->dtype == SL_I32
            ? sl__nd_any_bad_int32_t(index->data, bound, M, at, stop)
            : sl__nd_any_bad_int64_t(index->data, bound, M, at, stop);
    if (bad) return sl__nd_first_bad_walk(index, bound, M, at, stop, col);
  }
  return -1;
}

/* Whether any column index[..., k] of a strided index holds a value
 * outside [0, bound[k]), each column read in memory order: the row-major
 * walk of a transposed index takes a cache miss a value, and took longer
 * than the gather_nd itself. */
static int sl__nd_any_bad_column(const sl_ctx *ctx, const sl_tensor *index,
                                 const int64_t *bound) {
  const int K = index->ndim - 1, M = (int)index->shape[K];
  const size_t es = sl__dtype_size(index->dtype);
  sl_tensor column = *index;
  column.ndim = K;
  for (int k = 0; k < M; ++k) {
    column.data = (char *)index->data + (size_t)(k * index->strides[K]) * es;
    if (sl__index_any_bad(ctx, &column, bound[k])) return 1;
  }
  return 0;
}

static sl_status sl__nd_check_values(sl_ctx *ctx, const sl_tensor *x,
                                     const sl_tensor *given,
                                     const int64_t *dims) {
  if (given->device != SL_DEVICE_CPU) return SL_STATUS_OK;
  int K = x->ndim, M = (int)given->shape[K];
  /* An axis the index does not move along (stride 0: broadcast) repeats
   * the same tuples, so they are checked once, at coordinate 0, which is
   * also where row-major order meets a bad one first. */
  sl_tensor view = *given;
  for (int d = 0; d < K; ++d)
    if (view.strides[d] == 0) view.shape[d] = 1;
  const sl_tensor *index = &view;
  int64_t n = sl__nd_positions(index), bound[SL_MAX_DIMS];
  for (int k = 0; k < M; ++k) bound[k] = x->shape[dims[k]];
  if (!sl_tensor_is_contiguous(index) &&
      !sl__nd_any_bad_column(ctx, index, bound))
    return SL_STATUS_OK;
  /* Large indices are checked in parallel chunks; the report names the
   * first bad position in row-major order whatever the split. */
  int parts = sl__team(sl__threads(ctx), n * (M ? M : 1));
  int64_t first = INT64_MAX;
  int col = 0;
#pragma omp parallel for num_threads(parts) schedule(static) if (parts > 1)
  for (int t = 0; t < parts; ++t) {
    int64_t b, e;
    int k = 0;
    sl__chunk(n, parts, t, &b, &e);
    int64_t bad = b < e ? sl__nd_first_bad(index, bound, M, b, e, &k) : -1;
#pragma omp critical(sl__nd_bad)
    if (bad >= 0 && bad < first) {
      first = bad;
      col = k;
    }
  }
  if (first == INT64_MAX) return SL_STATUS_OK;
  int64_t idx[SL_MAX_DIMS];
  sl__unravel(first, K, index->shape, idx);
  idx[K] = col;
  int64_t off = sl__offset(index, idx);
  char pos[160], a[160];
  sl__nd_pos_str(index->ndim, idx, pos, sizeof pos);
  return sl_ctx_fail(ctx, SL_STATUS_INDEX_OUT_OF_RANGE,
                     "index[%s]=%lld out of range [0,%lld) for dim %lld of "
                     "x %s",
                     pos, (long long)sl__load_index(index, off),
                     (long long)bound[col], (long long)dims[col],
                     sl_shape_str(x->ndim, x->shape, a, sizeof a));
}

sl_status sl__nd_index_infer(sl_ctx *ctx, sl_call *c, sl__infer_mode mode) {
  const sl_tensor *x = &c->arg[0], *index = &c->arg[1];
  char a[160], b[160];
  sl_status st = sl__check_index_dtype(ctx, "index", index);
  if (st) return st;
  int K = x->ndim;
  if (index->ndim != K + 1)
    return sl_ctx_fail(ctx, SL_STATUS_RANK_MISMATCH,
                       "index: expected rank %d (the rank of x %s plus one), "
                       "got rank %d %s",
                       K + 1, sl_shape_str(K, x->shape, a, sizeof a),
                       index->ndim,
                       sl_shape_str(index->ndim, index->shape, b, sizeof b));
  int64_t m = index->shape[K];
  if (m > K)
    return sl_ctx_fail(ctx, SL_STATUS_SHAPE_MISMATCH,
                       "index: expected a last extent <= %d (the rank of x "
                       "%s), got %s",
                       K, sl_shape_str(K, x->shape, a, sizeof a),
                       sl_shape_str(index->ndim, index->shape, b, sizeof b));
  int M = (int)m;
  int64_t dims[SL_MAX_DIMS];
  st = sl__nd_dims(ctx, c, K, M, dims);
  if (st) return st;
  /* LibTorch never reads an empty selection, so the extents only matter
   * when there is a position to compute (as for gather). */
  if (sl__nd_positions(index) > 0) {
    int indexed[SL_MAX_DIMS] = {0};
    for (int k = 0; k < M; ++k) indexed[dims[k]] = 1;
    for (int d = 0; d < K; ++d)
      if (!indexed[d] && index->shape[d] > x->shape[d])
        return sl_ctx_fail(
            ctx, SL_STATUS_SHAPE_MISMATCH,
            "index: expected size <= %lld in dim %d (x is %s; "
            "dim %d is not indexed), got %s",
            (long long)x->shape[d], d, sl_shape_str(K, x->shape, a, sizeof a),
            d, sl_shape_str(index->ndim, index->shape, b, sizeof b));
    if (mode == SL__INFER_ALL) {
      st = sl__nd_check_values(ctx, x, index, dims);
      if (st) return st;
    }
  }
  c->p.ndims = M;
  for (int k = 0; k < M; ++k) c->p.dims[k] = dims[k];
  return SL_STATUS_OK;
}

sl_status sl__nd_check_index(sl_ctx *ctx, const sl_call *c) {
  if (sl__nd_positions(&c->arg[1]) == 0) return SL_STATUS_OK;
  return sl__nd_check_values(ctx, &c->arg[0], &c->arg[1], c->p.dims);
}
