/* The machine's own copy bandwidth, measured in the same run as the kernels
 * so that "% of peak" compares like with like. */
#ifndef SL_BANDWIDTH_H
#define SL_BANDWIDTH_H

#include <stddef.h>

/* GB/s of a parallel memcpy over `bytes` (counting bytes read plus bytes
 * written), with `threads` threads: the fastest of repeated copies, since
 * a peak is what the machine can do (on a shared machine the median of
 * the same probe moved between 39 and 79 GB/s from run to run). Returns a
 * value <= 0 when the buffers cannot be allocated. */
double sl_copy_bandwidth_gbs(size_t bytes, int threads);

/* GB/s of a short probe: the fastest of 3 copies of 64 MiB (more than the
 * last-level cache) with `threads` threads, its buffers kept from one call
 * to the next. Three copies take a few milliseconds: the fastest tells a
 * neighbour that holds the memory or a core for that long, which `ab`
 * reports beside each benchmark, and not a blip of one copy (a median
 * flagged a third of a quiet run's benchmarks). <= 0 when the buffers
 * cannot be had. */
double sl_copy_probe_gbs(int threads);

#endif
