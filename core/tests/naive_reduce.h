/*
 * The naive reduce the core tests compute their expected values with, one
 * step at a time in double: the value a position starts from when x is
 * left out, and one combine step.
 */
#ifndef SL_NAIVE_REDUCE_H
#define SL_NAIVE_REDUCE_H

#include <math.h>

#include "sl/sl.h"

/* The same value: NaN for NaN, and zeros of the same sign (the kernels
 * must not turn -0 into +0 where the naive loop keeps it). */
static inline int same_f(double a, double b) {
  if (isnan(a) || isnan(b)) return isnan(a) && isnan(b);
  return a == b && signbit(a) == signbit(b);
}

/* What a targeted position starts from with include_self = false. */
static inline double naive_identity(sl_reduce r) {
  return r == SL_REDUCE_PROD   ? 1
         : r == SL_REDUCE_AMAX ? -INFINITY
         : r == SL_REDUCE_AMIN ? INFINITY
                               : 0;
}

/* a ⊕ b: assign overwrites; sum and mean add (mean divides at the end);
 * amax/amin propagate NaN and keep the accumulator on a tie. */
static inline double naive_combine(sl_reduce r, double a, double b) {
  switch (r) {
  case SL_REDUCE_ASSIGN:
    return b;
  case SL_REDUCE_PROD:
    return a * b;
  case SL_REDUCE_AMAX:
    return b != b ? b : a < b ? b : a;
  case SL_REDUCE_AMIN:
    return b != b ? b : b < a ? b : a;
  default:
    return a + b;
  }
}

#endif /* SL_NAIVE_REDUCE_H */
