/*
 * f16 and bf16 elements converted a block at a time, for loops that do
 * their arithmetic in float (half_blocks.c). One conversion per element
 * in software is some ten instructions and a branch; F16C converts eight
 * in one, and a bf16 block is shifts the compiler vectorizes.
 */
#ifndef SL_HALF_BLOCKS_H
#define SL_HALF_BLOCKS_H

#include "sl_internal.h"

/* Elements a loop converts at a time: four blocks of floats on the stack
 * stay in L1. */
enum { SL__HALF_BLOCK = 256 };

/* Elements of the block from element a on, of n in all. */
static inline int64_t sl__half_block_len(int64_t n, int64_t a) {
  return n - a < SL__HALF_BLOCK ? n - a : SL__HALF_BLOCK;
}

/* dst[i] = src[i] as float, i < n, for dt f16 or bf16: exact. */
void sl__half_load_block(sl_dtype dt, const void *src, float *dst, int64_t n);

/* dst[i] = src[i] rounded to dt (f16 or bf16), to nearest even: the values
 * sl__store_f stores; a NaN stays a NaN (its payload may differ). */
void sl__half_store_block(sl_dtype dt, const float *src, void *dst, int64_t n);

/* The same for elements `step` elements apart (step 1: the blocks above),
 * n <= SL__HALF_BLOCK. */
void sl__half_load_steps(sl_dtype dt, const void *src, int64_t step, float *dst,
                         int64_t n);
void sl__half_store_steps(sl_dtype dt, const float *src, void *dst,
                          int64_t step, int64_t n);

/* The same for the elements at base + off[i] (in elements), i < n <=
 * SL__HALF_BLOCK: strided columns of several axes. */
void sl__half_load_at(sl_dtype dt, const void *base, const int64_t *off,
                      float *dst, int64_t n);
void sl__half_store_at(sl_dtype dt, const float *src, void *base,
                       const int64_t *off, int64_t n);

/* The same over n elements on `threads` threads (sl__for_chunks): wide :=
 * half widened, or half := wide rounded. */
void sl__half_widen_all(sl_dtype dt, const void *half, float *wide, int64_t n,
                        int threads);
void sl__half_narrow_all(sl_dtype dt, const float *wide, void *half, int64_t n,
                         int threads);

#endif /* SL_HALF_BLOCKS_H */
