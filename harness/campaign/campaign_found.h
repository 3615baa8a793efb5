/*
 * A failing case as a fuzz job reports it (campaign_job.c): shrunk in the
 * job's worker, then its minimal case run again alone in a fresh worker,
 * as its repro line will run, so that the verdict and message printed
 * under the repro are the ones pasting it gives; its group and defect
 * named (failure_group.h).
 */
#ifndef SL_CAMPAIGN_FOUND_H
#define SL_CAMPAIGN_FOUND_H

#include <stdio.h>

#include "campaign.h"
#include "failure_group.h"
#include "worker.h"

/* A set of group ids, a job's memory: the groups whose tensors it has sent
 * (a group shows its minimal case once, not with every member), and those
 * whose first minimal case failed alone as in the job's worker. */
typedef struct sl_found_ids {
  char id[256][17];
  int n;
} sl_found_ids;

/* A job's two sets, and the worker its minimal cases run alone in:
 * started on the first failure with the options `scatterlab run` gives a
 * case (every check on every case: a campaign reruns one case in 32), so
 * that what it says is what the repro line says. */
typedef struct sl_found_memory {
  sl_found_ids shown, recurring;
  sl_worker *alone;
} sl_found_memory;

/* Stops the memory's worker. */
void sl_found_memory_end(sl_found_memory *m);

int sl_found_ids_has(const sl_found_ids *g, const char *id);
/* Adds id; 1 when it was not there (and the set had room). */
int sl_found_ids_add(sl_found_ids *g, const char *id);

/* What the minimal case's run with every variant says of the defect. */
typedef struct sl_found_confirmed {
  char variants[1024]; /* failing the minimal case alike (failure_group.h) */
  char variants_key[1024]; /* those as a defect names them */
  char relation[32];       /* defect_relation.h, "" when none */
} sl_found_confirmed;

/* A failure as a job reports it: shrunk, confirmed, grouped. */
typedef struct sl_found {
  /* the failing verdict as reported: the found case's, or the minimal
   * case's alone when that failed another way */
  sl_variant_result first;
  sl_case minimal;
  sl_case_result mres; /* the minimal case's result in the job's worker */
  const char *own;     /* the minimal case's own message */
  /* "" or why the repro may not fail as reported: it passed alone */
  char recurs[160];
  int huge; /* x past 2^huge elements: kept as found */
  char line[SL_CASE_LINE_MAX];
  sl_found_confirmed conf;
  sl_failure_sig sig;    /* the group: this op's */
  sl_failure_sig defect; /* across ops (failure_group.h) */
  size_t defect_key_len; /* its variants key's length, 0: the group's own */
  char tensors[SL_WORKER_SHOWN_MAX + 512];
} sl_found;

/* Shrinks the failure of c's variant `which` (res: c's result) in worker
 * w, runs the minimal case again with every variant, alone in a fresh
 * worker as its repro line runs it (m->alone renewed) unless its group is
 * in m->recurring (then in w), and names its group; a group whose minimal
 * case failed alone as in w joins m->recurring. */
void sl_found_make(const sl_fuzz_campaign *f, sl_worker *w, const sl_case *c,
                   const sl_case_result *res, int which, sl_found_memory *m,
                   sl_found *x);

/* The F line of x to the parent (found_as: the case as found); the
 * minimal case's tensors once per group of shown. */
void sl_found_send(const sl_fuzz_campaign *f, sl_found_ids *shown,
                   const char *found_as, const sl_found *x, FILE *out);

#endif
