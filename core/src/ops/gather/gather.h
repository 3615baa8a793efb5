/*
 * gather's AVX-512 row loop, shared by its CPU kernels (gather_cpu.c).
 */
#ifndef SL_GATHER_H
#define SL_GATHER_H

#include <stddef.h>
#include <stdint.h>

/*
 * out[j] = x[j*xs + index[j]*xd] (element strides) for the leading
 * positions of a row of n, eight per step by the hardware's gather, for
 * elements of es bytes (4 or 8) and an i64 (index64) or i32 index whose
 * values are already checked. Returns how many it did (a multiple of 8):
 * 0 for another element size or a CPU without AVX-512 F/DQ/VL (asked at
 * run time: the build stays portable, and valgrind, which hides AVX-512,
 * checks the scalar loop). The caller's scalar loop does the rest.
 */
int64_t sl__gather_avx512(size_t es, int index64, void *out, const void *index,
                          const void *x, int64_t xs, int64_t xd, int64_t n);

/* The x beyond which gather's and gather_nd's rows take that loop: past
 * the L2 caches, where the loads miss (a 2 MiB x: both loops alike;
 * 16 MiB: 25-35% faster; 256 KiB: 20% slower). */
#define SL__GATHER_WIDE_MIN_BYTES ((int64_t)4 << 20)

#endif /* SL_GATHER_H */
