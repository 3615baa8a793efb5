/*
 * Typed row loops of the scatter-like reductions (scatter_reduce, and
 * scatter_nd's sum and plain writes): one function per dtype, reduce and
 * index dtype, so that the walk (walk.h) of a large call runs plain loops
 * instead of the generic per-element double/int64 path of reduce.h. Same
 * numerics as reduce.h: f32 and f64 combine in themselves (one operation
 * in double rounded to f32 is f32's own), integer sum and prod wrap, amax
 * and amin propagate NaN and keep the accumulator on ties.
 */
#ifndef SL_REDUCE_ROWS_H
#define SL_REDUCE_ROWS_H

#include "sl_internal.h"

/*
 * A block of a walk handed to a row loop: `rows` rows of n positions.
 * Strides are in elements: c* between the columns of a row, r* between
 * rows, for out, index and src.
 */
typedef struct sl__rows_block {
  int64_t n, rows;
  int64_t oc, ic, sc;  /* column strides */
  int64_t or_, ir, sr; /* row strides */
  const int64_t *od;   /* out's strides along the m decided axes */
  int m;
  int64_t ik; /* stride between index columns */
  int wide;   /* scatter: contiguous rows may lead with AVX-512 stores */
} sl__rows_block;

/* What starting a row costs the row loops of reduce_rows.c in the walk
 * order's model (sl__row_order.row_start): their set-up (row pointers,
 * stride tests) is tens of instructions against a few an element, so rows
 * of 2-4 elements lose to a long axis that streams. Not a line count:
 * fitted to the crossover of rows of L along a scatter's last axis
 * (docs/notes/benchmarks-2026.md, "Short rows"; test_walk_order). */
#define SL__ROWS_ROW_START 512

/*
 * For each row r < rows and j < n: out[t] = out[t] ⊕ src[r*sr + j*sc] with
 * t = r*or_ + j*oc + sum_{k<m} index[r*ir + j*ic + k*ik] * od[k].
 * ⊕ is the reduce; NONE and ASSIGN write src. Rows run in order, so a
 * block keeps the walk's row-major order.
 */
typedef void (*sl__reduce_row_fn)(char *out, const char *index, const char *src,
                                  const sl__rows_block *b);

/* The row loop of dtype dt (f32 f64 i32 i64; for NONE and ASSIGN, which
 * copy bytes, every dtype), reduce r (SUM PROD AMAX AMIN, NONE or
 * ASSIGN) and index dtype (i32 i64) for an index that decides m axes
 * (m >= 0: scatter_nd's tuples may be empty); NULL for any other.
 * PROD, AMAX and AMIN have loops for m == 1 only: the ops that reduce that
 * way decide one axis (scatter_nd, which decides any number, writes or
 * sums), so loops for other counts would never run. */
sl__reduce_row_fn sl__reduce_row_for(sl_dtype dt, sl_reduce r,
                                     sl_dtype index_dtype, int m);

/*
 * A row along out's own decided axis with its index values unchecked:
 * index and src contiguous, out[index[j] * d0] = out[..] ⊕ src[j] for j <
 * n in order, each index value tested against [0, bound) first. Stops at
 * the first value outside, having stepped every position before it, and
 * returns that position; -1 when every value passed.
 */
typedef int64_t (*sl__checked_row_fn)(char *out, const char *index,
                                      const char *src, int64_t n, int64_t d0,
                                      uint64_t bound);

/* The checked row of dtype dt (f32 f64 i32 i64; every dtype of 4 or 8
 * bytes for ASSIGN), reduce r and index dtype (i32 i64); NULL for any
 * other. */
sl__checked_row_fn sl__checked_row_for(sl_dtype dt, sl_reduce r,
                                       sl_dtype index_dtype);

/*
 * One walk of a scatter-like call: the positions (a shape of rank ndim) in
 * row-major order, a row at a time (walk.h), each row handed to `row`.
 * Strides are in elements over the positions' axes; out's are 0 on the axes
 * the index decides (their strides are od[0..m)); a scalar src has stride 0
 * everywhere.
 */
typedef struct sl__scatter_walk {
  sl__reduce_row_fn row;
  sl__checked_row_fn checked; /* row's checked form, or NULL */
  int ndim;
  const int64_t *shape;
  char *out;
  const int64_t *ost, *od;
  int m;
  size_t es; /* bytes per element of out and src */
  const char *index;
  const int64_t *ist;
  int64_t ik;
  size_t ies; /* bytes per index element */
  const char *src;
  const int64_t *sst;
  int64_t out_bytes; /* all of out, for sizing panels */
  /* bytes of out along each axis the index decides (its extent times its
   * stride), 0 on the others: how far apart a row's lookups land */
  int64_t span[SL_MAX_DIMS];
  int wide; /* handed to the row loops (sl__rows_block) */
  /* the rows write src (no reduce): an element ends with its last write,
   * so positions that differ only along an axis the index does not move
   * along (a broadcast index: one target for all of them) may come in any
   * order of that axis, last is last either way */
  int last_wins;
  /* what starting a row costs `row` (sl__row_order.row_start):
   * SL__ROWS_ROW_START unless the caller's loop says otherwise */
  int64_t row_start;
} sl__scatter_walk;

/*
 * Fills the walk of a scatter-like call (slot 1 index, 2 src, 3 out): the
 * positions are index's first `ndim` axes, src moves with them, and so does
 * out except on the m axes the index decides (axes[k]: index column k, at
 * element stride ik). ost and od are the caller's storage (SL_MAX_DIMS
 * each). Leaves row unset. Returns the decided axes as a bit mask: the
 * `fixed` of sl__slabs_plan.
 */
unsigned sl__scatter_walk_init(sl__scatter_walk *s, const sl_call *c, int ndim,
                               int m, const int64_t *axes, int64_t ik,
                               int64_t *ost, int64_t *od);

/* Runs every slab of `sl` (walk.h) on its team of threads; a slab along
 * out's unit-stride last axis whose columns reach more of out than a cache
 * holds goes a panel of columns at a time (sl__panel_width). */
struct sl__slabs;
void sl__scatter_walk_run(const sl__scatter_walk *s,
                          const struct sl__slabs *sl);

/*
 * The same for a call whose out starts as a copy of x (same shape, dtype,
 * both contiguous) and whose axis 0 the index does not decide: out's rows
 * along axis 0 are copied from x a few at a time, each just before the
 * walk reaches them, so the walk finds them in the cache instead of
 * reading all of out back after a copy of it all. Returns 0, having done
 * nothing, when the call does not qualify; the caller then copies and runs
 * sl__scatter_walk_run.
 */
int sl__scatter_walk_run_copying(const sl__scatter_walk *s,
                                 const struct sl__slabs *sl, sl_tensor *out,
                                 const sl_tensor *x, int threads);

/* Runs the positions whose coordinate on `axis` lies in [a0, a1) (all of
 * them when axis < 0; see sl__slabs_plan). */
void sl__scatter_walk_slab(const sl__scatter_walk *s, int axis, int64_t a0,
                           int64_t a1);

/*
 * scatter_reduce's typed path, for any call laid out as scatter_reduce's
 * (slot 0 x, 1 index, 2 src, 3 out; p.dim, p.reduce, p.include_self):
 * copies x to out, then out[.., index[i], ..] = out[..] ⊕ src[i] over the
 * index positions in row-major order, on `threads` threads.
 * include_self=false first writes the identity to every targeted element,
 * as LibTorch does. Handles f32 f64 i32 i64 with sum, prod, amax, amin and
 * assign; returns 0, having done nothing, for any other call. `parted`
 * (cpu.omp) lets a float sum or product group its terms in parts (private
 * copies, the same parts on any thread count); 0 (cpu.serial) keeps every
 * element's terms in row-major order, one after the other.
 */
int sl__scatter_reduce_rows(sl_call *c, int threads, int parted);

/*
 * The same for f16/bf16 amax and amin with fewer contributions than a
 * quarter of out's elements, on the half bits: the extreme of halves is
 * one of them, so out itself accumulates. Where they are more,
 * sl__half_wide_rows (half_wide.h) takes the f32 rows, faster per step
 * (a half compare is several integer operations); with fewer, its
 * widening of out costs more than the steps. Returns 0 having done
 * nothing when the call does not qualify.
 */
int sl__scatter_reduce_half_extremes(sl_call *c, int threads, int parted);

/* The same for a mean (f32 f64 i32 i64; reduce_rows_mean.c): out := x,
 * then each element's sum over x (include_self) and its terms, divided by
 * their count. `parted` lets an integer sum go by private copies (exact in
 * any grouping). Returns 0, having done nothing, for any other call or
 * when the counts find no memory. */
int sl__scatter_reduce_mean_rows(sl_call *c, int threads, int parted);

/*
 * The same with the index values not yet checked, for the plan that can
 * check them as it goes: private copies of out (contributions outnumbering
 * out 4:1, include_self). Then returns 1 with *bad the first row-major
 * position of index outside [0, x.size(dim)), out untouched, or -1, out
 * complete. Returns 0, having done nothing, for any other call: the caller
 * checks the index, then takes sl__scatter_reduce_rows.
 */
int sl__scatter_reduce_rows_unchecked(sl_call *c, int threads, int64_t *bad);

/* Whether the index moves along dim only (stride 0 or extent 1 on every
 * other axis), out having its rank: then all the positions at coordinate i
 * on dim go to out's slice index[i]. */
int sl__index_along_dim_only(const sl_tensor *index, const sl_tensor *out,
                             int dim);

/* include_self=false with the index along dim only: out := x, and the
 * identity (an element of out's dtype) over every slice along dim an
 * index value names, in one pass over out (reduce_rows_identity.c).
 * Returns 0, having done nothing, unless x and out are contiguous alike
 * with 2-, 4- or 8-byte elements. */
int sl__copy_identity_targets(const sl_call *c, const void *identity,
                              int threads);

/* The same by parts: out := x over out's slices along dim, the identity
 * over those the m index values (index's elements `step` apart) name,
 * the values in range. Returns 0, having done nothing, unless x and out
 * are contiguous alike with 2-, 4- or 8-byte elements. */
int sl__copy_identity_slices(const sl_tensor *x, const sl_tensor *out, int dim,
                             const sl_tensor *index, int64_t m, int64_t step,
                             const void *identity, int threads);

#endif /* SL_REDUCE_ROWS_H */
