/*
 * Hardware counters beside a timing: retired instructions, cycles and cache
 * misses of the calling process over a start/stop window, read with Linux's
 * perf_event_open(2). A time says how long a kernel took; the counts say
 * why (more instructions, or the same instructions waiting on memory).
 *
 * Counting is user-space only (exclude_kernel, exclude_hv), which is what
 * perf_event_paranoid 2, the usual default, allows an unprivileged process;
 * page faults and system calls inside the window are therefore not counted.
 *
 * The counters are opened with inherit=1: threads and child processes the
 * process creates *after* sl_counters_open are counted too (a thread's
 * counts join the total as it runs, and stay in it when it exits), but
 * threads that already exist are not, and nothing reports that they were
 * missed. Open the counters before the process starts its worker threads,
 * that is, before its first OpenMP parallel region creates the pool, or a
 * parallel kernel's counts will be those of the calling thread alone.
 *
 * Each counter is its own file descriptor, not one group: PERF_FORMAT_GROUP
 * cannot be combined with inherit on many kernels. When the PMU has fewer
 * slots than the events asked for, the kernel time-shares (multiplexes) them;
 * each count is then scaled by time_enabled/time_running and `scaled` says so.
 */
#ifndef SL_PERF_COUNTERS_H
#define SL_PERF_COUNTERS_H

#include <stddef.h>
#include <stdint.h>

typedef struct sl_counter_values {
  int64_t instructions; /* retired instructions, user space; -1: unavailable */
  int64_t cycles;       /* CPU cycles, user space; -1: unavailable */
  int64_t cache_misses; /* PERF_COUNT_HW_CACHE_MISSES (usually last-level
                           misses; the CPU decides which); -1: unavailable */
  int scaled;           /* 1: some count was multiplexed and is an estimate,
                           scaled by time_enabled/time_running; 0: exact */
} sl_counter_values;

/* A counter is "unavailable" (-1) when it did not open, when a read failed,
 * or when the kernel never scheduled it during the window (time_running 0:
 * the PMU's slots were all taken), since no count can be scaled from that. */

typedef struct sl_counters sl_counters;

/*
 * Opens instructions, cycles and cache misses for the calling process (and,
 * through inherit, the threads and children it creates later; see above),
 * disabled until sl_counters_start. Returns 0 when at least one counter
 * opened: *out is then set, and why gets "" when all three opened or one
 * line naming those that did not and why. Returns -1 when none opened (or on
 * a NULL out): *out is NULL and why gets one line naming the cause (no
 * hardware PMU on this (virtual) machine, perf_event_paranoid forbidding it,
 * a seccomp filter, no such system call, ...). why may be NULL (whylen 0);
 * the line is truncated to whylen.
 */
int sl_counters_open(sl_counters **out, char *why, size_t whylen);

/* Resets and enables every counter that opened: the window starts here.
 * Returns 0, or -1 on a NULL c or a failed ioctl (errno says which). */
int sl_counters_start(sl_counters *c);

/*
 * Disables the counters and writes the counts of the window since the last
 * sl_counters_start into *v (-1 for each unavailable counter). Returns 0
 * when every counter that opened was read; -1 on a NULL argument, without a
 * started window, or when a read or ioctl failed. *v (when not NULL) is
 * always written, all -1 where nothing could be read.
 */
int sl_counters_stop(sl_counters *c, sl_counter_values *v);

/* 1 when c's instructions counter opened (what `ab --metric instructions`
 * judges on), else 0 (NULL included). */
int sl_counters_counts_instructions(const sl_counters *c);

/* Closes the counters and frees c; NULL does nothing. */
void sl_counters_close(sl_counters *c);

/*
 * The estimate of a count that ran `running` of `enabled` nanoseconds:
 * count * enabled / running, rounded; *scaled (when not NULL) is set to 1
 * when running < enabled, else 0. -1 when running is 0 (never scheduled).
 * Exposed so that the scaling is testable on a machine without a PMU.
 */
int64_t sl_counter_scale(uint64_t count, uint64_t enabled, uint64_t running,
                         int *scaled);

#endif
