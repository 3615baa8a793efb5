/*
 * A run's machine as its record tells it (CPU, cores, threads, the copy and
 * round-trip probes), and whether two runs' machines differ in what moves
 * timings: shared by `compare` (base vs candidate) and `history` (the runs
 * on either side of a change point). Internal to reports/.
 */
#ifndef SL_MACHINES_H
#define SL_MACHINES_H

#include <stddef.h>
#include <stdint.h>

#include "sl_store.h"

/* "AMD EPYC, 2 cores, 2 threads, copy 44.3 -> 45.0 GB/s, core round trip
 * 90 -> 88 ns, reference LibTorch 2.11.0 (PyPI torch 2.11.0)": '?' for what
 * the run did not record, the round trip only where probed. */
void sl__machine_text(const sl_run_brief *m, char *buf, size_t len);

/*
 * Why runs a and b (named a_name and b_name in the message, e.g. "base"
 * and "candidate") ran on machines that differ in what moves timings:
 * another reference (LibTorch version or origin; "unknown", for a run stored
 * before it was recorded, differs from any named one), another CPU model, core
 * or thread count, copy probes more than 20% apart or round trips more than 2x
 * apart, between the runs or within either one. Returns 1 with the reason in
 * buf, or 0 with buf "" when they do not.
 */
int sl__machines_differ(const sl_run_brief *a, const sl_run_brief *b,
                        const char *a_name, const char *b_name, char *buf,
                        size_t len);

/*
 * Whether run a (of store sa) and run b (of sb) ran other kernels: a
 * provider (kernel library) loaded by one run and not the other (by name),
 * or one whose content differs (SHA-256). Returns 1 with the first such
 * difference in buf ("provider scatterlab: sha256 1a2b3c4d5e6f vs
 * 9f8e7d6c5b4a"), 0 with buf "" when every provider matches, 2 with buf ""
 * when either run recorded none (stored before schema 7), -1 or -2 when
 * sa or sb failed (the message on that store).
 */
int sl__kernels_differ(sl_store *sa, int64_t a, sl_store *sb, int64_t b,
                       const char *a_name, const char *b_name, char *buf,
                       size_t len);

#endif
