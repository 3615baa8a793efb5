/*
 * The lengths tensor of a segment case (segment_reduce and its backward):
 * each row of the data's axis cut into S segments by the case's pattern
 * (ip=): rand (S - 1 uniform cuts: empty segments included), one (one
 * segment takes the row), unique (lengths as even as they come); with
 * form=offsets the running sums from 0 instead (S + 1 per row). ip=oob
 * makes row 0 sum past the axis (its last offset past it), ip=neg gives
 * row 0 a negative length (an offset above the next): the two invalid
 * classes of a lengths tensor.
 */
#ifndef SL_SEGMENTS_H
#define SL_SEGMENTS_H

#include <stdint.h>

#include "case.h"
#include "rng.h"

/* Fills v (rows x m values, row-major; m = the lengths' last extent) for
 * rows of an axis of extent n. */
void sl_segment_values(const sl_case *c, int64_t rows, int64_t m, int64_t n,
                       int64_t *v);

/* Whether sl_segment_values spoils the values of such a case (ip=oob or
 * ip=neg with a row to spoil): the case is then invalid whatever its
 * shapes. */
int sl_segment_spoiled(const sl_case *c, int64_t rows, int64_t m);

#endif
