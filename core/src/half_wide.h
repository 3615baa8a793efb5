/*
 * An f16/bf16 scatter-like call (slots 0 x, 2 src, 3 out) run by its f32
 * code (half_wide.c): x (through out when it is strided) and src widened
 * to f32 in one buffer, the f32 kernel reducing in place, out written once,
 * rounded back.
 */
#ifndef SL_HALF_WIDE_H
#define SL_HALF_WIDE_H

#include "sl_internal.h"

/* Fills *f, c with f32 x = out (in place) and src, out laid out as the half
 * tensor is, src too when it fills its memory densely (else contiguous);
 * returns their buffer, or NULL having done nothing when out does not fill
 * its memory densely (contiguous in some order of its axes) or there is no
 * memory. */
float *sl__half_wide_begin(sl_call *c, sl_call *f, int threads);

/* out := the f32 buffer rounded to out's dtype; frees it. */
void sl__half_wide_end(sl_call *c, float *wide, int threads);

/*
 * scatter_reduce's f16/bf16 sum, prod, mean, amax and amin with a dense
 * out (an index_reduce too, as scatter_reduce with its index broadcast):
 * out := x and src widened to f32, reduced in place by the f32 row path
 * (sl__scatter_reduce_rows, sl__scatter_reduce_mean_rows), rounded back
 * once. That is the lines' arithmetic (reduce.c: every step an f32
 * operation, one rounding to the half type at the end; cpu.omp's private
 * copies add a sum in part order, as for f32), with the f32 path's plans.
 * Returns 1 when done, 0 having done nothing but out := x when the call
 * does not qualify, has too few contributions (fewer than a quarter of
 * out's elements, or than a 32nd along lines of at least
 * half_wide_long_line), or the f32 copies find no memory.
 */
int sl__half_wide_rows(sl_call *c, int threads, int parted);

#endif /* SL_HALF_WIDE_H */
