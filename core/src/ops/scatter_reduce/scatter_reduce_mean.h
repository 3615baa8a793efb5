/*
 * scatter_reduce's mean by the typed row path (scatter_reduce_mean.c).
 */
#ifndef SL_SCATTER_REDUCE_MEAN_H
#define SL_SCATTER_REDUCE_MEAN_H

#include "sl_internal.h"

/* A mean call (laid out as scatter_reduce's; f32 f64 i32 i64, its index
 * values checked) reduced on `threads` threads: out := x, then each
 * element's sum over x (include_self) and its terms, divided by their
 * count. `parted` lets an integer sum go by private copies (exact in any
 * grouping). Returns 0, having done nothing, for any other call or when
 * the counts find no memory. */
int sl__scatter_reduce_mean_rows(sl_call *c, int threads, int parted);

#endif /* SL_SCATTER_REDUCE_MEAN_H */
