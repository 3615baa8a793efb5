/*
 * What a kernel may leave behind in the worker that ran it, checked after
 * each variant: a thread still running after the call, a process it forked,
 * a descriptor of the worker's it closed (its pipes, its stdin, stdout or
 * stderr). Any of them and the worker is
 * not to be trusted with another call: the variant is failed with the
 * reason, and the worker ends so that a fresh one runs what comes next
 * (worker.c). A misbehaviour of what was left behind (a write, a crash
 * 20 ms later) then falls on the kernel that left it, never on the next
 * variant or the next case's reference.
 *
 * Threads are counted from /proc/self/task (its link count grows with the
 * threads) against the count before the call, after the worker has started
 * the OpenMP pool it lends the kernels and after each reference (LibTorch
 * starts its own): pools that exist before the call are not the kernel's.
 * Forks are seen by pthread_atfork handlers, which cost nothing until a
 * fork happens; a copy of the worker made by a kernel's fork() that
 * returns into the harness leaves at once.
 */
#ifndef SL_WORKER_GUARD_H
#define SL_WORKER_GUARD_H

#include <stddef.h>

typedef struct sl_worker_guard {
  int fds[3];   /* the worker's own descriptors: request and answer pipes,
                   /proc/self/task (-1 without /proc) */
  long threads; /* the count before the next call (-1: not counted) */
  int pool;     /* the OpenMP threads kept started for the kernels */
} sl_worker_guard;

/* In the worker, once: records its pipes, opens /proc/self/task, registers
 * the fork handlers and starts `threads` OpenMP threads, the most the
 * harness asks a kernel to use. */
void sl_worker_guard_init(sl_worker_guard *g, int in, int out, int threads);

/* Counts the threads now and forgets any fork: the baseline for the next
 * check (after trusted code that may start a pool, such as LibTorch's
 * reference, or a device runtime's first call). A pool that shrank since
 * the last count is started again first. */
void sl_worker_guard_mark(sl_worker_guard *g);

/* The number of this process's threads now: the entries of
 * /proc/self/task (its link count, which the guard compares, is that plus
 * 2); -1 without /proc. For messages and tests. */
long sl_worker_guard_threads_listed(void);

/* Whether this process is a copy of the worker made by a kernel's fork():
 * it must leave without a word. */
int sl_worker_guard_is_copy(void);

/* After a variant: 1 and why (for the variant's message) when it left the
 * worker damaged, else 0 (and the count is the next baseline). */
int sl_worker_guard_check(sl_worker_guard *g, char *why, size_t len);

#endif
