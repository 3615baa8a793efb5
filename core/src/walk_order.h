/*
 * Which axis a walk of an indexed op takes its rows along. A row-major walk
 * steps along the last axis; through a transposed operand that step moves
 * a line or more an element and the next row's lines lie far away, where
 * a row along another axis reads it in order. The model counts cache lines
 * per element (sl__row_axis_cost): gather and the scatter-like walks share
 * it, each naming its operands' roles.
 */
#ifndef SL_WALK_ORDER_H
#define SL_WALK_ORDER_H
#include "sl_internal.h"

/* Three operands: one that moves with the position, the index, and the one
 * the index looks up (gather's x, a scatter's out). */
typedef struct sl__row_order {
  int ndim;
  const int64_t *shape;
  /* bytes a step along each axis moves operand k, without sign; the
   * looked-up operand's on a named axis is the caller's estimate */
  int64_t step[3][SL_MAX_DIMS];
  int index, lookup;   /* which of the three they are */
  int64_t index_lines; /* lines of the index one position reads */
  unsigned named;      /* axes whose coordinate the index decides */
  /* named axes along which the looked-up operand's lookups share lines,
   * and how many lines they spread over (near_lines[d]): the next row
   * along such an axis reuses this row's lookups' lines while they all
   * stay in L1 */
  unsigned near;
  int64_t near_lines[SL_MAX_DIMS];
  unsigned movable; /* axes that may take the rows */
  /* what starting a row costs the caller's row loop, in the units of
   * sl__row_axis_cost (spread over the row's elements) */
  int64_t row_start;
} sl__row_order;

/* Fills o->step from the operands' element strides st (the index's
 * elements index_bytes wide, the others' elem_bytes); o->ndim and
 * o->index must be set. */
void sl__row_order_steps(sl__row_order *o, const int64_t *const st[3],
                         int64_t elem_bytes, int64_t index_bytes);

/* index_lines for m coordinates a position, column_bytes apart. */
int64_t sl__row_index_lines(int m, int64_t column_bytes);

/* What rows along axis r cost, in 64ths of a cache line an element, when
 * the walk's next row is one step along q (q < 0: none), with the start
 * of a row spread over its elements. */
int64_t sl__row_axis_cost(const sl__row_order *o, int r, int q);

/* The axis the rows should run along: the last one unless a movable axis
 * (extent > 1) costs under half as much. */
int sl__row_axis(const sl__row_order *o);

/* Copies v (ndim values, one per axis) to moved with axis r last, the
 * others in their order. */
void sl__move_axis_last(int ndim, int r, const int64_t *v, int64_t *moved);

#endif
