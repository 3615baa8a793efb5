/*
 * What the two segment_reduce ops share (their infer, the CPU kernels and
 * the CUDA variant): the geometry of a call, the check of the lengths'
 * values (which also turns them into offsets) and the strided columns.
 *
 * A call is seen as data [Q, N, R]: Q rows (the axes before the axis,
 * flattened), N positions along the axis, R columns (the axes after it,
 * flattened); out is [Q, S, R]. Row q of lengths cuts the N positions into
 * S segments; offs[q * (S + 1) + s] is where segment s starts.
 */
#ifndef SL_SEGMENT_REDUCE_H
#define SL_SEGMENT_REDUCE_H

#include "sl_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sl__seg_geom {
  int axis, k;        /* normalized axis, data's rank (>= 1) */
  int64_t Q, S, N, R; /* rows, segments, positions, columns */
  int64_t lead[SL_MAX_DIMS], inner[SL_MAX_DIMS]; /* shapes before/after */
  int nlead, ninner;
} sl__seg_geom;

/* The geometry of data and lengths (validated shapes; axis normalized). */
void sl__seg_geom_of(const sl_tensor *data, const sl_tensor *lengths, int axis,
                     int is_offsets, sl__seg_geom *g);

/*
 * Checks the values of lengths (a CPU tensor; `is_offsets`: it holds
 * offsets): every length >= 0 and each row summing to N; offsets starting
 * at 0, never decreasing, ending at N. The failure (INDEX_OUT_OF_RANGE)
 * names the row or position and the values. With offs != NULL, writes the
 * Q * (S + 1) offsets there.
 */
sl_status sl__seg_offsets(sl_ctx *ctx, const sl_tensor *lengths, int is_offsets,
                          const sl__seg_geom *g, int64_t *offs);

/* The same offsets for a kernel, which only reads them. `checked`: infer
 * validated them (a failure can then only be OUT_OF_MEMORY); 0 for a
 * variant that checks them itself (SL_CHECKS_INDEX_VALUES), whose offsets
 * are validated as they are made, and given ones as they lie. Given
 * offsets of i64, contiguous, are used where they lie; otherwise *offs is
 * fresh memory. Either way sl__seg_offsets_free lets go of them. */
sl_status sl__seg_offsets_alloc(sl_ctx *ctx, const sl_call *c, int lengths_slot,
                                const sl__seg_geom *g, int checked,
                                int64_t **offs);
void sl__seg_offsets_free(const sl_call *c, int lengths_slot, int64_t *offs);

/* The same for a kernel that steps *row_step offsets from one row to the
 * next: where every row of lengths is one row (stride 0 along each lead
 * axis of more than one position), that row's S + 1 offsets alone and a
 * step of 0, else S + 1. One position a segment over 4952521 rows spent a
 * sixth of its backward making and reading 79 MB of the same offsets. */
sl_status sl__seg_offsets_rows(sl_ctx *ctx, const sl_call *c, int lengths_slot,
                               const sl__seg_geom *g, int checked,
                               int64_t **offs, int64_t *row_step);

/* Columns per block: a task of the CPU kernels reduces one segment over at
 * most this many columns, whose offsets it computes once. */
#define SL__SEG_BLOCK 256
/* Tasks per run: the unit that threads take (a run walks its tasks in
 * order, so that offsets are recomputed only where they change). */
#define SL__SEG_RUN 64

/* Columns a task of f16 or bf16 needs to go by blocks of floats
 * (half_blocks.h): a block of a few elements paid its loops' set-up per
 * element (bf16 amin backward over 3.3M rows of one column ran at 0.23x
 * LibTorch that way). */
#define SL__SEG_HALF_MIN_COLUMNS 8

/* Offset of row q's first element (position 0 along the axis) in t. */
static inline int64_t sl__seg_row_off(const sl__seg_geom *g, const sl_tensor *t,
                                      int64_t q) {
  int64_t off = 0;
  for (int d = g->nlead - 1; d >= 0; --d) {
    int64_t e = g->lead[d];
    if (e == 1) continue; /* a division by 1 costs as much as any */
    /* q within this axis: the axes further out are at 0 (one lead axis of
     * 735899 rows, two divisions a row, ran at 0.64x LibTorch) */
    if (q < e) return off + q * t->strides[d];
    off += (q % e) * t->strides[d];
    q /= e;
  }
  return off;
}

/* Offsets in t of columns [r0, r0 + w) (w <= SL__SEG_BLOCK), an odometer
 * over the inner axes of extent > 1: one division per axis for r0, then
 * adds (a column stepped through every axis of extent 1 besides, a reset
 * and a multiply each: bf16 data [1,735378,1,1] spent most of its backward
 * here). With one such axis, a plain stride. */
static inline void sl__seg_cols(const sl__seg_geom *g, const sl_tensor *t,
                                int64_t r0, int64_t w, int64_t *off) {
  const int64_t *strides = t->strides + g->axis + 1;
  int64_t idx[SL_MAX_DIMS], ext[SL_MAX_DIMS], st[SL_MAX_DIMS], o = 0;
  int n = 0;
  for (int d = 0; d < g->ninner; ++d)
    if (g->inner[d] != 1) ext[n] = g->inner[d], st[n++] = strides[d];
  sl__unravel(r0, n, ext, idx);
  for (int d = 0; d < n; ++d) o += idx[d] * st[d];
  if (n <= 1) {
    const int64_t step = n ? st[0] : 0;
    for (int64_t j = 0; j < w; ++j) off[j] = o + j * step;
    return;
  }
  for (int64_t j = 0; j < w; ++j) {
    off[j] = o;
    for (int d = n - 1; d >= 0; --d) {
      o += st[d];
      if (++idx[d] < ext[d]) break;
      o -= idx[d] * st[d];
      idx[d] = 0;
    }
  }
}

#ifdef __cplusplus
}
#endif
#endif /* SL_SEGMENT_REDUCE_H */
