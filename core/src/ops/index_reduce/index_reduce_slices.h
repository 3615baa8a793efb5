/*
 * index_reduce by whole slices, for the calls the typed scatter_reduce
 * path does not take (1- and 2-byte dtypes): assign, amax and amin
 * (index_reduce_slices.c: index_copy of u8/i8/bool/i16, f16/bf16
 * amax/amin), and f16/bf16 sum, prod and mean in float
 * (index_reduce_half.c).
 */
#ifndef SL_INDEX_REDUCE_SLICES_H
#define SL_INDEX_REDUCE_SLICES_H

#include "sl_internal.h"

/* The geometry of a call whose out is contiguous: the slice at position t
 * along dim is, in each of `outer` blocks, `inner` adjacent elements;
 * updates' strides in elements. Updates' axes after dim may collapse to
 * two (a stepped last axis, a transposed pair): the inner columns are then
 * rows of `cols`, each row at step sr, its columns at step sj. */
typedef struct sl__slices {
  char *out;
  const char *upd;
  const sl_tensor *index;
  int64_t istep, outer, n, m, inner;
  int64_t so, si, sj; /* updates' strides: block, index, column */
  size_t es;
  sl_dtype dt;
  sl_reduce reduce;
  int include_self;
  /* amax/amin without include_self: first[i] is 1 where index[i] is its
   * target's first contribution (sl__index_firsts), or NULL. */
  const uint8_t *first;
  int64_t cols, sr; /* columns of a row (>= 1); updates' step between rows */
} sl__slices;

/* first[i] for the m values of index (step istep, checked to lie in
 * [0, n)): 1 where index[i] is its value's first, else 0; NULL when memory
 * is short. The caller frees it (sl__free). */
uint8_t *sl__index_firsts(const sl_tensor *index, int64_t istep, int64_t m,
                          int64_t n);

/* Whether c (index_reduce's slots: 0 x, 1 index, 2 updates, 3 out) has a
 * contiguous out and updates whose axes before dim collapse to one and
 * after it to at most two (any strides, broadcast included); then *s,
 * first NULL. */
int sl__slices_geometry(const sl_call *c, sl__slices *s);

/* The run of columns from j (< j1) to the end of its row or j1: its
 * length, and in *run the view of s whose column 0 is j and whose columns
 * all step sj in updates (the loops over columns take runs). */
int64_t sl__slices_run(const sl__slices *s, int64_t j, int64_t j1,
                       sl__slices *run);

/*
 * Runs an index_reduce assign, amax or amin call (index values checked)
 * with a slices geometry: out = x, then for every outer block and every
 * i < m in order, out's slice index[i] = (itself ⊕) updates' slice i, on
 * `threads` threads (the last of duplicates wins, as serially). Returns 1
 * when done, 0 having done nothing when the call does not qualify.
 */
int sl__index_slices(sl_call *c, int threads);

/*
 * The same for f16/bf16 sum, prod and mean, in float with the bits of the
 * line walk (reduce.c's wide line); 0 having done nothing when the call
 * does not qualify or memory is short (the line walk then runs).
 */
int sl__index_half_slices(sl_call *c, int threads);

#endif /* SL_INDEX_REDUCE_SLICES_H */
