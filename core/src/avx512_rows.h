/*
 * AVX-512 row loops of gather (and gather_nd) and scatter: eight positions
 * per step, their random loads or stores issued by one gather or scatter
 * instruction. A random access into a tensor beyond the L2 caches waits on
 * its miss; one instruction for eight keeps more misses in flight than
 * eight scalar loads or stores. On a tensor a cache holds the scalar loop
 * is as fast or faster, so the kernels take these loops past a size only.
 *
 * Each does the leading positions of its row, a multiple of 8, and returns
 * how many; the caller's scalar loop does the rest. It returns 0 for
 * elements other than 4 or 8 bytes and on a CPU without AVX-512 F/DQ/VL
 * (asked at run time: the build stays portable, and valgrind, which hides
 * AVX-512, checks the scalar loops). Index values (i64 when index64, else
 * i32) must already be checked; strides are in elements.
 */
#ifndef SL_AVX512_ROWS_H
#define SL_AVX512_ROWS_H

#include <stddef.h>
#include <stdint.h>

#include "thresholds.h"

/* Where the AVX-512 loops (these and masked_scatter's expand) are compiled:
 * x86-64 with GCC or clang, each function marked SL__AVX512. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define SL__HAVE_AVX512_LOOPS 1
#define SL__AVX512 __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl")))
#endif

/* Whether this CPU runs them: AVX-512 F, BW, DQ and VL (every AVX-512 CPU
 * but the Xeon Phi has all four); 0 where they are not compiled. */
int sl__avx512_ok(void);

/* gather's row: out[j] = x[j*xs + index[j]*xd]. */
int64_t sl__gather_avx512(size_t es, int index64, void *out, const void *index,
                          const void *x, int64_t xs, int64_t xd, int64_t n);

/* scatter's contiguous row: out[j + index[j]*d0] = src[j] in order of j.
 * Lanes of one step that name the same element are written lowest lane
 * first (the scatter instruction's own ordering), so the last writer in
 * order of j wins, as in the scalar loop. Each element is one aligned
 * store of its size when out is aligned to it, as a scalar store is. */
int64_t sl__scatter_avx512(size_t es, int index64, void *out, const void *index,
                           const void *src, int64_t d0, int64_t n);

/* The part of x a row reaches (one row of x, or all of it: gather_walk.c)
 * beyond which gather's and gather_nd's rows take their loop: past the L2
 * caches, where the loads miss (65536x64 f32 rows on 2 threads, a
 * hand-written pair of loops: a 16 MiB x 3.6 -> 2.4-3.1 ms; 2-6 MiB:
 * alike; 256 KiB: 20% slower). */
#define SL__GATHER_WIDE_MIN_BYTES ((int64_t)SL__TH_GATHER_WIDE)

/* The out beyond which scatter's rows take theirs (the same rows: 16 MiB
 * 3.7 -> 2.3-2.5 ms; 8 MiB 1.2-1.5 -> 0.95 ms; 4 MiB 0.70 -> 0.83 ms, 2
 * MiB 0.36 -> 0.42 ms). */
#define SL__SCATTER_WIDE_MIN_BYTES ((int64_t)SL__TH_SCATTER_WIDE)

#endif /* SL_AVX512_ROWS_H */
