/*
 * The contention-stress schedule of the case generator (casegen.c): one
 * valid case in sl_fuzz_opts.stress of a reducing op is rewritten to few
 * destinations (1 to SL_FUZZ_STRESS_MAX_DESTS target elements) and many
 * updates, enough that every thread of a team of SL_FUZZ_STRESS_THREADS
 * gets its own slab in every parallel variant (the core's per-thread
 * thresholds, sl_threshold_at, times that team). Such a case is where a
 * dropped atomic or lock loses updates: tiny cases give the threads
 * nothing to race over, and large ones spread their updates over so many
 * targets that two threads rarely meet.
 */
#ifndef SL_FUZZ_STRESS_H
#define SL_FUZZ_STRESS_H

#include <stdint.h>

#include "case.h"

struct sl_fuzz_opts;

/* Most target elements of a stress case. */
#define SL_FUZZ_STRESS_MAX_DESTS 4

/* The team a stress case feeds: every one of these threads gets a slab
 * (more threads than cores on purpose: interleavings need no cores). */
#define SL_FUZZ_STRESS_THREADS 4

/* The default share: one valid case in 512 in a normal build, one in 8 in
 * a build with the small thresholds (where a stress case is tiny). A
 * stress case costs about as much as 100-300 small ones, so 512 takes about
 * a fifth of the campaign's throughput; it is the share at which the
 * planted races (an atomic and a lock dropped,
 * docs/notes/coverage-2026.md) were both found within the default minute,
 * where 8192 and 2048 missed them. */
int64_t sl_fuzz_stress_default(void);

/* The least updates of a stress case: the largest per-thread threshold of
 * the core (SL_TH_PER_THREAD rows of sl_threshold_at) times
 * SL_FUZZ_STRESS_THREADS. */
int64_t sl_fuzz_stress_updates(void);

/* Whether op (forward or backward) has stress cases: those that reduce
 * many updates into shared targets (scatter with duplicates, scatter_reduce,
 * scatter_nd, index_reduce, dynamic_scatter, and their backward ops). */
int sl_fuzz_stress_op(sl_op op);

/*
 * The schedule: on a stream of its own (so every other case stays as it
 * was), case i of campaign seed is picked with probability 1/o->stress;
 * a picked valid forward view fw of a stress op is rewritten in place (its
 * shapes, layouts, index pattern and dims). Returns 1 when it rewrote fw.
 */
int sl_fuzz_stress(const struct sl_fuzz_opts *o, uint64_t seed, uint64_t i,
                   sl_case *fw);

/* Whether a case (forward or backward) is a contention case: at most
 * SL_FUZZ_STRESS_MAX_DESTS targets and at least sl_fuzz_stress_updates()
 * updates; its coverage cell's shape reads "stress:contention". */
int sl_fuzz_stress_shape(const sl_case *c);

#endif
