/*
 * What every report function starts and ends with: the argument checks and
 * the check that the whole output was written; and the growing arrays the
 * reports gather rows into. Internal to reports/.
 */
#ifndef SL_REPORT_COMMON_H
#define SL_REPORT_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sl_store.h"

/* The argument checks every export starts with: store and stream not
 * NULL, run_id 0 or an existing run. 0, or -1 with a message in err ("fn:
 * store is NULL", "<path>: no run 7"). err may be NULL when errlen is 0. */
int sl__report_check(sl_store *s, FILE *out, int64_t run_id, const char *fn,
                     char *err, size_t errlen);

/* Flushes out and checks it for errors: 0, or -1 with "<what> of <path>:
 * write error" in err. */
int sl__report_finish(FILE *out, const char *what, const char *path, char *err,
                      size_t errlen);

/* Makes room for one more item in the array *v of n items of `size`
 * bytes (capacity *cap, doubled as it fills): 0, or -1 out of memory with
 * *v left as it was. */
int sl__grow(void **v, int n, int *cap, size_t size);

/* Whether a run's commit says it was built from uncommitted changes
 * (git_commit.cmake's "<hash>-dirty"). */
int sl__commit_dirty(const char *commit);

/* A run's commit as a table shows it: twelve hex digits identify a
 * commit, the rest of the hash is noise, but a "-dirty" suffix (built
 * from uncommitted changes) is kept: such a run's code is not that
 * commit's. "-" for none. buf holds SL__SHORT_COMMIT bytes. */
#define SL__SHORT_COMMIT 20

/* A run's reference without its origin, for narrow columns: "LibTorch
 * 2.11.0" of "LibTorch 2.11.0 (PyPI torch 2.11.0)". buf holds
 * SL__SHORT_REFERENCE bytes. */
#define SL__SHORT_REFERENCE 32
void sl__short_reference(const char *reference, char buf[SL__SHORT_REFERENCE]);
void sl__short_commit(const char *commit, char buf[SL__SHORT_COMMIT]);

/* A run's providers (the kernel libraries it loaded) as the runs tables
 * show them, in load order: the built-in one as "scatterlab (built-in)",
 * any other by its name, its version text when it gave one and the first
 * 12 hex digits of its library's SHA-256: "scatterlab (built-in); mylib
 * 1.2 sha256:0a1b2c3d4e5f". "-" for a run that recorded none (stored
 * before schema 7). With `full`, everything the store holds instead, one
 * line per provider, for an HTML title: "mylib 1.2: /abs/libmylib.so, ABI
 * 1, 3 variants, sha256 <64 hex digits>". Control characters read '?'.
 * A malloc'd string (the caller frees it), or NULL with a message in err. */
char *sl__providers_cell(sl_store *s, int64_t run_id, int full, char *err,
                         size_t errlen);

/* The defects of a walk of failure groups (the store walks them defect by
 * defect): how many met, and the last group's. */
typedef struct sl__defect_walk {
  int64_t defects;
  char defect[1024];
} sl__defect_walk;

/* Whether the group of defect d starts a defect: then it is counted. */
int sl__defect_starts(sl__defect_walk *w, const char *d);

#endif
