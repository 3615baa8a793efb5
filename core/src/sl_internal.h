/*
 * Internal helpers shared by the ops of the core library (prefix sl__).
 * Not installed, not used outside core/.
 */
#ifndef SL_INTERNAL_H
#define SL_INTERNAL_H

#include <stdint.h>
#include <string.h>

#include "sl/sl.h"
#include "thresholds.h"

/* 1 in a build whose memory accesses AddressSanitizer or MemorySanitizer
 * checks: they see neither into asm nor through a block kept past its
 * free, so the paths that do either stand aside (copy.c, alloc.c). */
#if defined(__SANITIZE_ADDRESS__)
#define SL__MEMORY_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define SL__MEMORY_SANITIZED 1
#endif
#endif
#ifndef SL__MEMORY_SANITIZED
#define SL__MEMORY_SANITIZED 0
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Number of elements; the caller has validated the descriptor. */
int64_t sl__numel(const sl_tensor *t);
/* Elements t's memory holds: its axes of stride 0 (a broadcast) count
 * once. What a kernel that can reach any element of t brings in. */
int64_t sl__numel_stored(const sl_tensor *t);

/* Reorders the axes of the n tensors t[0..n) (one shape) by t[0]'s falling
 * strides, a stable sort: their row-major order is then t[0]'s memory
 * order. For element-wise passes, whose result does not depend on the
 * order they visit the positions in. */
void sl__memory_order(int n, sl_tensor *t);

/* Turns a row-major linear position into a multi-index over shape. */
static inline void sl__unravel(int64_t linear, int ndim, const int64_t *shape,
                               int64_t *idx) {
  for (int d = ndim - 1; d >= 0; --d) {
    int64_t e = shape[d];
    idx[d] = e ? linear % e : 0;
    linear = e ? linear / e : 0;
  }
}

/* Element offset (in elements) of a multi-index in a strided tensor. */
static inline int64_t sl__offset(const sl_tensor *t, const int64_t *idx) {
  int64_t off = 0;
  for (int d = 0; d < t->ndim; ++d) off += idx[d] * t->strides[d];
  return off;
}

/* Element offset of the row-major linear position in a strided tensor. */
static inline int64_t sl__offset_linear(const sl_tensor *t, int64_t linear) {
  int64_t off = 0;
  for (int d = t->ndim - 1; d >= 0; --d) {
    int64_t e = t->shape[d];
    off += (linear % e) * t->strides[d];
    linear /= e;
  }
  return off;
}

/*
 * Lines along `dim`: a tensor of numel n has n / shape[dim] lines, each the
 * set of elements that differ only in coordinate `dim`. Line l starts at the
 * multi-index written here (with idx[dim] = 0). Scatter-like ops own whole
 * lines per thread, so their parallel loops never write the same element.
 */
static inline void sl__line_start(int64_t line, int ndim, const int64_t *shape,
                                  int dim, int64_t *idx) {
  for (int d = ndim - 1; d >= 0; --d) {
    if (d == dim) {
      idx[d] = 0;
      continue;
    }
    int64_t e = shape[d];
    idx[d] = e ? line % e : 0;
    line = e ? line / e : 0;
  }
}

/* The coordinates of the line after the one at idx, in sl__line_start's
 * order, without its division per axis. */
static inline void sl__line_next(int ndim, const int64_t *shape, int dim,
                                 int64_t *idx) {
  for (int d = ndim - 1; d >= 0; --d) {
    if (d == dim) continue;
    if (++idx[d] < shape[d]) return;
    idx[d] = 0;
  }
}

/* Bytes per element, inline: in a loop whose dtype is a constant it folds,
 * and a memcpy of that many bytes becomes a load and a store; through
 * sl_dtype_size (a call) the size is unknown and every such memcpy is a
 * libc call per element. 0 if invalid. */
static inline size_t sl__dtype_size(sl_dtype dt) {
  switch (dt) {
#define SL__DTYPE_SIZE_CASE(E, name, size)                                     \
  case SL_##E:                                                                 \
    return size;
    SL_DTYPE_MAP(SL__DTYPE_SIZE_CASE)
#undef SL__DTYPE_SIZE_CASE
  default:
    return 0;
  }
}

static inline char *sl__ptr(const sl_tensor *t, int64_t off) {
  /* An empty tensor may have no data: NULL + 0 is undefined in C. */
  if (!t->data) return NULL;
  return (char *)t->data + off * (int64_t)sl__dtype_size(t->dtype);
}

/* p + bytes, or NULL for NULL: an empty tensor (index of gather_nd/
 * scatter_nd with M = 0) may have no data, and NULL + 0 is undefined. */
static inline char *sl__at(const char *p, int64_t bytes) {
  return p ? (char *)p + bytes : NULL;
}

/* Reads an index element (i32 or i64, checked by the op's infer). */
static inline int64_t sl__load_index(const sl_tensor *t, int64_t off) {
  if (t->dtype == SL_I32) return ((const int32_t *)t->data)[off];
  return ((const int64_t *)t->data)[off];
}

/* The kernels' scratch memory: malloc, calloc and free, counted, and
 * failing on request (alloc.c, sl_provider.alloc_faults). Every allocation
 * in core/src goes through them (layers.core_alloc checks it). */
void *sl__malloc(size_t bytes);
void *sl__calloc(size_t n, size_t size);
void sl__free(void *p);
/* The bytes of the large blocks sl__free keeps for the next sl__malloc,
 * or -1 where it keeps none (alloc.c: with glibc, not under
 * AddressSanitizer). */
int64_t sl__alloc_kept_bytes(void);

/* Copies one element of `size` bytes. */
static inline void sl__copy_elem(void *dst, const void *src, size_t size) {
  memcpy(dst, src, size);
}

/*
 * Scalar values of any non-complex dtype, for the reductions. Integer dtypes
 * travel as int64 (exact), floating dtypes as double; f16/bf16 reductions
 * accumulate in f32 precision (reduce.h's sl__acc_dtype) by rounding through
 * float on store.
 */
double sl__load_f_any(sl_dtype dt, const void *p);
void sl__store_f_any(sl_dtype dt, void *p, double v);
/* bf16 <-> f32, inline: two bit operations that an out-of-line call per
 * element made the largest part of a bf16 kernel's time (sl_bf16_to_f32
 * and sl_f32_to_bf16 are these). */
static inline float sl__bf16_to_f32(uint16_t h) {
  const uint32_t bits = (uint32_t)h << 16;
  float f;
  memcpy(&f, &bits, 4);
  return f;
}
static inline uint16_t sl__f32_to_bf16(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40u);
  x += 0x7fffu + ((x >> 16) & 1u); /* round to nearest even */
  return (uint16_t)(x >> 16);
}
/* IEEE binary16 <-> binary32, round to nearest even, NaN kept quiet;
 * inline for the reason the bf16 pair is (sl_f16_to_f32 and sl_f32_to_f16
 * are these). */
static inline float sl__f16_to_f32(uint16_t h) {
  /* Without a branch on the data but one for inf and NaN (kept bit for
   * bit, signalling NaNs too, which a multiply would quiet): a normal
   * half's bits moved into place with the exponent rebased by 224 (so
   * that 31 lands on 255), then scaled by 2^-112; a subnormal's mantissa
   * m as 0.5 + m * 2^-24 minus 0.5, exact. Equal to the branchy version
   * on all 65,536 inputs; it mispredicted on data of random exponents. */
  const uint32_t w = (uint32_t)h << 16, sign = w & 0x80000000u, two_w = w + w;
  uint32_t bits;
  if ((h & 0x7c00u) == 0x7c00u) {
    bits = sign | 0x7f800000u | ((uint32_t)(h & 0x3ffu) << 13);
  } else {
    uint32_t nb = (two_w >> 4) + (0xE0u << 23),
             tb = (two_w >> 17) | (126u << 23);
    float normal, tiny;
    memcpy(&normal, &nb, 4);
    memcpy(&tiny, &tb, 4);
    normal *= 0x1p-112f;
    tiny -= 0.5f;
    memcpy(&nb, &normal, 4);
    memcpy(&tb, &tiny, 4);
    /* a mask, not ?: (GCC made that a branch, the normal case out of
     * line: two taken jumps per conversion) */
    const uint32_t tiny_mask = 0u - (uint32_t)(two_w < (1u << 27));
    bits = sign | (tb & tiny_mask) | (nb & ~tiny_mask);
  }
  float f;
  memcpy(&f, &bits, 4);
  return f;
}

static inline uint16_t sl__f32_to_f16(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
  uint32_t absx = x & 0x7fffffffu;
  if (absx >= 0x7f800000u) /* inf or NaN */
    return sign | 0x7c00u | (absx > 0x7f800000u ? 0x200u : 0u);
  if (absx >= 0x477ff000u) return sign | 0x7c00u; /* rounds to >= 65520: inf */
  if (absx < 0x38800000u) { /* below the smallest normal half: subnormal */
    if (absx < 0x33000000u) return sign; /* < 2^-25 rounds to zero */
    uint32_t man = (absx & 0x7fffffu) | 0x800000u;
    /* f32 exponent e maps to half subnormal mantissa man >> (126 - e). */
    int shift = 126 - (int)(absx >> 23);
    uint32_t half = man >> shift;
    uint32_t rem = man & ((1u << shift) - 1);
    uint32_t mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1u))) ++half;
    return sign | (uint16_t)half;
  }
  /* Normal: round to nearest even by adding just under half an ulp plus
   * the kept lowest bit (the carry may step the exponent), without the
   * branch on the dropped bits that mispredicted on random data (equal
   * to that version on all 2^32 inputs). */
  const uint32_t rounded = absx + 0xfffu + ((absx >> 13) & 1u);
  return sign | (uint16_t)((rounded >> 13) - (112u << 10));
}
/* f32, f64, bf16 and f16 inline, so that a loop whose dtype is a constant folds
 * the switch away (the per-element kernels otherwise spend most of their
 * time calling these); every other dtype through the _any versions. */
static inline double sl__load_f(sl_dtype dt, const void *p) {
  switch (dt) {
  case SL_F32:
    return *(const float *)p;
  case SL_F64:
    return *(const double *)p;
  case SL_BF16:
    return sl__bf16_to_f32(*(const uint16_t *)p);
  case SL_F16:
    return sl__f16_to_f32(*(const uint16_t *)p);
  default:
    return sl__load_f_any(dt, p);
  }
}
static inline void sl__store_f(sl_dtype dt, void *p, double v) {
  switch (dt) {
  case SL_F32:
    *(float *)p = (float)v;
    break;
  case SL_F64:
    *(double *)p = v;
    break;
  case SL_BF16:
    *(uint16_t *)p = sl__f32_to_bf16((float)v);
    break;
  case SL_F16:
    *(uint16_t *)p = sl__f32_to_f16((float)v);
    break;
  default:
    sl__store_f_any(dt, p, v);
    break;
  }
}
int64_t sl__load_i(sl_dtype dt, const void *p);
void sl__store_i(sl_dtype dt, void *p, int64_t v);

/* dst[j*ds] = src[j*ss] for j < n, elements of es bytes (strides in
 * elements; a stride-0 src fills dst). */
void sl__copy_row(size_t es, char *dst, int64_t ds, const char *src, int64_t ss,
                  int64_t n);

/* out := x elementwise (same shape, any strides), using `threads` threads. */
void sl__copy_strided(sl_tensor *out, const sl_tensor *x, int threads);

/* The same past the caches (non-temporal stores in long contiguous runs),
 * for a caller that will not read out soon and copies more than the
 * last-level cache holds (SL__TH_COPY_STREAM): the stores then need not
 * read out's lines first. */
void sl__copy_streamed(sl_tensor *out, const sl_tensor *x, int threads);

/*
 * What an infer checks. The index values are the one check that a variant
 * may take over (SL_CHECKS_INDEX_VALUES: it checks them in its own pass,
 * with the same messages), so the caller says which it wants; every other
 * check (shapes, dtypes, parameters, the mask's count, coors rows) is made
 * in both modes.
 */
typedef enum sl__infer_mode {
  SL__INFER_ALL,   /* every check: sl_infer, and sl_run for other variants */
  SL__INFER_SHAPES /* the index values left out: sl_infer_shapes, and sl_run
                      for an SL_CHECKS_INDEX_VALUES variant */
} sl__infer_mode;

/* The one body of sl_infer and sl_infer_shapes (dispatch.c): validates the
 * call's inputs and fills in its outputs, checking what `mode` says. */
sl_status sl__infer_call(sl_ctx *ctx, sl_call *call, sl__infer_mode mode);

/* Checks shared by the ops' infer functions. Each names `what` in messages. */
sl_status sl__check_input(sl_ctx *ctx, const sl_call *c, int slot);
sl_status sl__check_index_dtype(sl_ctx *ctx, const char *what,
                                const sl_tensor *index);
/* t has x's rank (rank 0 counts as 1, as in LibTorch). */
sl_status sl__check_rank_of_x(sl_ctx *ctx, const char *what, const sl_tensor *t,
                              const sl_tensor *x);
/* The dynamic ops' feats-like tensors: rank 2 ([rows,C], as `layout`
 * says), then c's data dtypes (sl__check_op_dtype). */
sl_status sl__check_feats_like(sl_ctx *ctx, const sl_call *c, const char *what,
                               const char *layout, const sl_tensor *t);
/* index.size(k) <= t.size(k), t being called `name` in the message. */
sl_status sl__check_index_fits(sl_ctx *ctx, const sl_tensor *index,
                               const char *name, const sl_tensor *t, int k);
/* The index rules of gather and the scatter-like ops (LibTorch's): an
 * i32/i64 index of x's rank (rank 0 counts as 1), no larger than x on any
 * axis but dim. */
sl_status sl__check_index_like_x(sl_ctx *ctx, const sl_tensor *index,
                                 const sl_tensor *x, int64_t dim);
/* dim in [-ndim, ndim) (a rank-0 tensor accepts -1 and 0); writes the
 * normalized value. */
sl_status sl__normalize_dim(sl_ctx *ctx, const char *what, int64_t dim,
                            int ndim, int64_t *out);
/* Every element of index (a CPU tensor) lies in [0, bound), the extent of
 * x's axis dim. On failure the message names the position, value and
 * bound, and the axis ("dim 1 of x [4,40]": built only then, as a call
 * that passes costs under a microsecond). gather_nd's per-column bounds
 * live in ops/gather_nd. Does nothing with mode SL__INFER_SHAPES, nor for
 * an index on the device (the CUDA variant checks it there);
 * sl__check_index_values always checks. */
sl_status sl__check_index_range(sl_ctx *ctx, sl__infer_mode mode,
                                const char *what, const sl_tensor *index,
                                int64_t bound, int64_t dim, const sl_tensor *x);
sl_status sl__check_index_values(sl_ctx *ctx, const char *what,
                                 const sl_tensor *index, int64_t bound,
                                 int64_t dim, const sl_tensor *x);
/* Whether any value of index (a CPU tensor) lies outside [0, bound), read
 * in memory order, each broadcast value once; where, only
 * sl__index_first_bad tells. */
int sl__index_any_bad(const sl_ctx *ctx, const sl_tensor *index, int64_t bound);
/* For the instances of a function that a constant argument specializes
 * (a dtype, a reduce), and helpers of the innermost loops: inlined into
 * every caller, except in a coverage build, where gcov would count each
 * inlined copy's branches apart (CMakeLists.txt's -fno-inline). */
#if defined(__GNUC__) && !defined(SL_COVERAGE)
#define SL__ALWAYS_INLINE static inline __attribute__((always_inline))
#else
#define SL__ALWAYS_INLINE static inline
#endif

/* Index scans: x86-64's baseline (SSE2) has no 64-bit compare, so a
 * function marked so gets AVX2 and AVX-512 clones too (AVX-512 has
 * unsigned 64-bit compares and max), the best one the CPU has picked at
 * load time (GCC's target_clones; clang builds keep one version, and so
 * does a coverage build, where only the clone this CPU picks could ever
 * count). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) &&         \
    !defined(SL_COVERAGE)
#define SL__SIMD_CLONES                                                        \
  __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define SL__SIMD_CLONES
#endif

/* The row-major position in [b, e) of the first value of index outside
 * [0, bound), or -1; and the failure that names it (`at`, row-major). */
int64_t sl__index_first_bad(const sl_tensor *index, int64_t b, int64_t e,
                            int64_t bound);
sl_status sl__index_out_of_range(sl_ctx *ctx, const char *what,
                                 const sl_tensor *index, int64_t at,
                                 int64_t bound, int64_t dim,
                                 const sl_tensor *x);
/* Reduce valid for the op's group; `allowed` is a bitmask of 1u << reduce. */
sl_status sl__check_reduce(sl_ctx *ctx, sl_reduce r, unsigned allowed);
/* The data dtypes of op's row for reduce r's kind (sl_op_info.data_dtypes),
 * whether or not op takes r: an op that checks its data before its reduce
 * has one set for both kinds, so the order of its checks stays free. */
unsigned sl__op_dtype_set(const sl_op_info *info, sl_reduce r);
/* dt (of the argument `what`) is in op's data dtypes for reduce r's kind
 * (the catalogue's row, sl_op_dtypes); the message names the argument, the
 * set, the row's note, the reduce where the set depends on it, and dt. */
sl_status sl__check_op_dtype(sl_ctx *ctx, sl_op op, sl_reduce r,
                             const char *what, sl_dtype dt);
/* scatter's scalar (p->value or p->ivalue) representable in dt, by
 * sl_scalar_range_of's rule; `what` names it in the message. */
sl_status sl__check_scalar(sl_ctx *ctx, const char *what, sl_dtype dt,
                           const sl_params *p);
/* Sets out's dtype/shape, contiguous strides; keeps data and device. */
void sl__set_out(sl_tensor *out, sl_dtype dt, int ndim, const int64_t *shape);

/* scatter's shape rules, shared by scatter_reduce: x, index, src (when
 * has_src), dim; sets out (slot 3) and normalizes c->p.dim. The index
 * values are left to sl__scatter_like_index, the last check. */
sl_status sl__scatter_like_infer(sl_ctx *ctx, sl_call *c, int has_src);
/* scatter-like index values in [0, x.size(dim)) (after the infer above):
 * sl__check_index_range's check with `mode` (a kernel that checks the
 * values itself passes SL__INFER_ALL), or with bad >= 0 the failure naming
 * row-major position `bad`. */
sl_status sl__scatter_like_index(sl_ctx *ctx, const sl_call *c,
                                 sl__infer_mode mode, int64_t bad);

/* Threads for an OpenMP region: ctx->threads, or all when 0. */
int sl__threads(const sl_ctx *ctx);

/* Per-op validation + output shape inference (ops/<op>/<op>.c). */
#define SL__INFER_DECL(e, name)                                                \
  sl_status sl__##name##_infer(sl_ctx *, sl_call *, sl__infer_mode);
SL_OP_MAP(SL__INFER_DECL)
#undef SL__INFER_DECL

/* Every kernel in the variant table, declared from the table itself. */
#define SL_VARIANT(op, vname, fn, flags) sl_status fn(sl_ctx *, sl_call *);
#define SL_VARIANT_CUDA(op, vname, fn, flags) SL_VARIANT(op, vname, fn, flags)
#include "variants.def"
#undef SL_VARIANT_CUDA
#undef SL_VARIANT

#ifdef __cplusplus
}
#endif
#endif /* SL_INTERNAL_H */
