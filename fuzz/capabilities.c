/* What each op takes, shape helpers and the forward view of a case
 * (casegen_internal.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "casegen_internal.h"
#include "datagen.h"
#include "stress.h"

/* ------------------------------------------------------------------------ */
/* What each op takes (docs/spec.md §3)                                     */
/* ------------------------------------------------------------------------ */

const unsigned sl__all_dtypes = SL__ALL_DTYPES;

/* Data dtypes of any valid case of op. */
static unsigned sl__op_dtypes(sl_op op) { return sl__fuzz_dtypes(op); }

/* Reduces that op takes with data dtype dt. */
unsigned sl__op_reduces(sl_op op, sl_dtype dt) {
  return sl__fuzz_reduces(op, dt);
}

/* The dtypes of op within dmask (0: all) that leave it a reduce in rmask
 * (0: all; ignored by an op without a reduce). */
unsigned sl__usable_dtypes(sl_op op, unsigned dmask, unsigned rmask) {
  unsigned d = sl__op_dtypes(op) & (dmask ? dmask : sl__all_dtypes), out = 0;
  if (!rmask || !sl_op_get(op)->reduces) return d;
  for (int dt = 0; dt < SL_DTYPE_COUNT; ++dt)
    if ((d & SL__BIT(dt)) && (sl__op_reduces(op, (sl_dtype)dt) & rmask))
      out |= SL__BIT(dt);
  return out;
}

/* Every reduce that op knows, with some dtype. */
unsigned sl__op_reduce_union(sl_op op) {
  unsigned u = 0;
  for (int dt = 0; dt < SL_DTYPE_COUNT; ++dt)
    if (sl__op_dtypes(op) & SL__BIT(dt)) u |= sl__op_reduces(op, (sl_dtype)dt);
  return u;
}

int sl_fuzz_dtype_ok(sl_op op, sl_dtype dt, sl_reduce r) {
  if ((unsigned)op >= SL_OP_COUNT || (unsigned)dt >= SL_DTYPE_COUNT ||
      (unsigned)r >= SL_REDUCE_COUNT)
    return 0;
  return (sl__op_dtypes(op) & SL__BIT(dt)) &&
         (sl__op_reduces(op, dt) & SL__BIT(r));
}

/* ------------------------------------------------------------------------ */
/* Shape helpers                                                             */
/* ------------------------------------------------------------------------ */

/* Product of extents, saturating at INT64_MAX. */
int64_t sl__prod(int nd, const int64_t *e) {
  int64_t n = 1;
  for (int d = 0; d < nd; ++d) {
    if (e[d] == 0) return 0;
  }
  for (int d = 0; d < nd; ++d) {
    if (n > INT64_MAX / e[d]) return INT64_MAX;
    n *= e[d];
  }
  return n;
}

int64_t sl__shape_numel(const sl_case_shape *s) {
  return sl__prod(s->ndim, s->shape);
}

void sl__shape_set(sl_case_shape *s, int nd, const int64_t *e) {
  memset(s, 0, sizeof *s);
  s->present = 1;
  s->ndim = nd;
  for (int d = 0; d < nd; ++d) s->shape[d] = e[d];
}

/*
 * Halves the extent with the most room above its floor (lo[d], or 1) until
 * the product is at most max. Returns 0 when it fits, -1 when the floors
 * themselves are too large.
 */
int sl__fit(int64_t *e, int nd, const int64_t *lo, int64_t max) {
  while (sl__prod(nd, e) > max) {
    int best = -1;
    for (int d = 0; d < nd; ++d) {
      int64_t floor = lo ? (lo[d] > 1 ? lo[d] : 1) : 1;
      if (e[d] > floor && (best < 0 || e[d] - floor > e[best])) best = d;
    }
    if (best < 0) return -1;
    int64_t floor = lo ? (lo[best] > 1 ? lo[best] : 1) : 1;
    e[best] = e[best] / 2 > floor ? e[best] / 2 : floor;
  }
  return 0;
}

/* Removes axis k of s (a no-op when s has no such axis). */
void sl__drop(sl_case_shape *s, int k) {
  if (!s->present || k < 0 || k >= s->ndim) return;
  for (int d = k; d + 1 < s->ndim; ++d) s->shape[d] = s->shape[d + 1];
  s->shape[--s->ndim] = 0;
}
