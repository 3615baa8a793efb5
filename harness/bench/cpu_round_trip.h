/* The round trip of a cache line between the cores of threads 0 and 1, the
 * other half of the machine's fingerprint beside the copy bandwidth: on a
 * shared VM the vCPUs move between host cores that share a cache and cores
 * that do not (the 2-core development VM: 85-140 ns, or 360 ns), and
 * multi-threaded timings, LibTorch's as well as ours, move with them (the
 * standard scatter_nd on 2 threads: 0.09 or 0.146 ms, one thread's time
 * unchanged) while the copy probe need not. */
#ifndef SL_CPU_ROUND_TRIP_H
#define SL_CPU_ROUND_TRIP_H

/* Nanoseconds for one round trip of a cache line between threads 0 and 1
 * of a team of `threads` (bound as the kernels' teams are: OMP_PROC_BIND),
 * the fastest of a few tries of a few thousand round trips each. 0 when
 * there is no pair to measure: threads < 2, a team of fewer than 2, or a
 * build without OpenMP. Each try stops after 20 ms: a pair sharing one
 * core hands over at the scheduler's pace, and its figure (milliseconds)
 * says so. */
double sl_cpu_round_trip_ns(int threads);

#endif
