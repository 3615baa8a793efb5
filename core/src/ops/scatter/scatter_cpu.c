/*
 * scatter on the CPU. out starts as x; index is then walked in row-major
 * order, a row at a time (reduce_rows.h), so for any output element the
 * writer that comes last in row-major order of index wins. Two positions of
 * index that differ on an axis other than dim never write the same element,
 * so the OpenMP variant gives each thread a slab of index along such an
 * axis (sl__slabs_plan) and walks it in the same order: bitwise the serial
 * answer, duplicates included.
 *
 * The atomic variant gives each thread a slab along any axis, dim first
 * when it is the outermost (whole rows of index and src per thread: a
 * 65536x64 f32 scatter on 2 threads walks in 3.7 ms instead of 6.4 ms as
 * column halves, where each thread streams half of every row and the
 * prefetcher pulls the other half too). Writers of one element may then
 * race; each store is a relaxed atomic one, so the element ends up holding
 * one of the written values, which the contract (scatter.c) allows a
 * parallel variant. A scalar value is written the same from every position, so
 * cpu.omp takes that split too and stays bitwise deterministic.
 *
 * The contiguous rows of a src into a large out (avx512_rows.h) start with
 * AVX-512 scatters, whose element stores are ordered as the scalar loop's
 * and each one aligned store, as the relaxed atomic one is.
 */
#include <stdint.h>

#include "avx512_rows.h"
#include "reduce_rows.h"
#include "walk.h"

/* out[j*oc + index[j*ic]*od[0]] = src[j*sc] for each row of the block:
 * plain element bits, one loop per element size (scatter moves every
 * dtype); STORE(p, v) writes one element. The stride test is made once a
 * block and a row moves its pointers by a step: rows of a few positions
 * (a short last axis) spent their time setting each row up. */
#define SL__SCATTER_ROW(name, STORE, size, T, I)                               \
  static void name##_##size##_##I(char *o, const char *ip, const char *sp,     \
                                  const sl__rows_block *blk) {                 \
    const int64_t n = blk->n, oc = blk->oc, ic = blk->ic, sc = blk->sc;        \
    const int64_t d0 = blk->od[0]; /* m is always 1: one index column */       \
    T *out = (T *)o;                                                           \
    const I *index = (const I *)ip;                                            \
    const T *src = (const T *)sp;                                              \
    if (oc == 1 && ic == 1 && sc == 1) {                                       \
      for (int64_t r = 0; r < blk->rows; ++r) {                                \
        int64_t j = blk->wide ? sl__scatter_avx512(size, sizeof(I) == 8, out,  \
                                                   index, src, d0, n)          \
                              : 0;                                             \
        for (; j < n; ++j) STORE(&out[j + (int64_t)index[j] * d0], src[j]);    \
        out += blk->or_, index += blk->ir, src += blk->sr;                     \
      }                                                                        \
      return;                                                                  \
    }                                                                          \
    for (int64_t r = 0; r < blk->rows; ++r) {                                  \
      for (int64_t j = 0; j < n; ++j)                                          \
        STORE(&out[j * oc + (int64_t)index[j * ic] * d0], src[j * sc]);        \
      out += blk->or_, index += blk->ir, src += blk->sr;                       \
    }                                                                          \
  }
/* What a row of these loops costs to start (sl__row_order.row_start):
 * a quarter of the reduce loops' SL__ROWS_ROW_START. Through an index
 * [1,1,M,L] along its last axis rows of 2 then ran as fast as rows along
 * axis 2, rows of 4 and up faster (docs/notes/benchmarks-2026.md, "Short
 * rows"). */
#define SL__SCATTER_ROW_START (SL__ROWS_ROW_START / 4)

#define SL__STORE_PLAIN(p, v) (*(p) = (v))
#define SL__STORE_RELAXED(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)

#define SL__SCATTER_PLAIN_ROW(size, T, I)                                      \
  SL__SCATTER_ROW(sl__scatter_row, SL__STORE_PLAIN, size, T, I)
SL__INDEXED_ROWS(SL__SCATTER_PLAIN_ROW)
static const sl__reduce_row_fn sl__scatter_rows[][2] =
    SL__INDEXED_TABLE(sl__scatter_row);

/* Atomic stores exist for elements of up to 8 bytes: a 16-byte element
 * (complex128) has no entry and keeps the column split. */
#define SL__SCATTER_ATOMIC_ROW(size, T, I)                                     \
  SL__SCATTER_ROW(sl__scatter_atomic_row, SL__STORE_RELAXED, size, T, I)
#define SL__ATOMIC_ELEMS(X, a)                                                 \
  X(1, uint8_t, a) X(2, uint16_t, a) X(4, uint32_t, a) X(8, uint64_t, a)
SL__ATOMIC_ELEMS(SL__BOTH_INDEX_ROWS, SL__SCATTER_ATOMIC_ROW)
static const sl__reduce_row_fn sl__scatter_atomic_rows[][2] = {
    SL__ATOMIC_ELEMS(SL__BOTH_INDEX_ENTRY, sl__scatter_atomic_row){NULL, NULL}};

/* any_writer: the variant may let racing writers of an element pick the
 * winner (cpu.atomic). */
static sl_status sl__scatter_cpu(sl_call *c, int threads, int any_writer) {
  const sl_tensor *index = &c->arg[1], *out = &c->arg[3];
  int64_t ost[SL_MAX_DIMS], od, zero[SL_MAX_DIMS] = {0};
  sl__scatter_walk s;
  unsigned fixed =
      sl__scatter_walk_init(&s, c, index->ndim, 1, &c->p.dim, 0, ost, &od);
  const int cls = sl__elem_class(s.es), i64 = s.ies == 8;
  s.row = sl__scatter_rows[cls][i64];
  s.row_start = SL__SCATTER_ROW_START;
  s.wide = s.out_bytes > SL__SCATTER_WIDE_MIN_BYTES;
  if ((any_writer || c->p.has_value) && threads > 1 &&
      sl__scatter_atomic_rows[cls][i64] &&
      (uintptr_t)out->data % s.es == 0) { /* else a store could tear */
    s.row = sl__scatter_atomic_rows[cls][i64];
    fixed = 0;
  }
  _Alignas(16) unsigned char scalar[16];
  if (c->p.has_value) { /* the value, in x's dtype, as a src of stride 0 */
    if (sl_dtype_is_int(out->dtype))
      sl__store_i(out->dtype, scalar, c->p.ivalue);
    else
      sl__store_f(out->dtype, scalar, c->p.value);
    s.src = (const char *)scalar;
    s.sst = zero;
  }
  sl__slabs sl;
  sl__slabs_plan(&sl, index->ndim, index->shape, out, fixed, threads);
  if (!sl__scatter_walk_run_copying(&s, &sl, &c->arg[3], &c->arg[0], threads)) {
    sl__copy_strided(&c->arg[3], &c->arg[0], threads);
    sl__scatter_walk_run(&s, &sl);
  }
  return SL_STATUS_OK;
}

sl_status sl_scatter_cpu_serial(sl_ctx *ctx, sl_call *c) {
  (void)ctx;
  return sl__scatter_cpu(c, 1, 0);
}

sl_status sl_scatter_cpu_omp(sl_ctx *ctx, sl_call *c) {
  return sl__scatter_cpu(c, sl__threads(ctx), 0);
}

sl_status sl_scatter_cpu_atomic(sl_ctx *ctx, sl_call *c) {
  return sl__scatter_cpu(c, sl__threads(ctx), 1);
}
