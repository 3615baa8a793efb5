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

#endif /* SL_HALF_WIDE_H */
