/*
 * A fuzz campaign as `scatterlab fuzz` runs it: the options, and the jobs
 * (forked processes) that run its cases and report to the parent.
 *
 * Case i of a campaign is sl_fuzz_case(seed, i): shard K/N takes the i with
 * i % N == K (shard_k counts from 0; the command line and the stored config
 * count from 1), and job j of J takes the shard's cases with (i / N) % J == j;
 * the k-th case of job j is i = (k * J + j) * N + K. A job commits its
 * results, its coverage and its cursor (the next k) in one transaction at
 * least twice a second, so `--resume` goes on exactly where the last commit
 * left off.
 *
 * Jobs report to the parent on a pipe, one line each:
 *   P <cases> <failures>                      every commit
 *   F <variant>\t<verdict>\t<minimal>\t<original>\t<group
 * id>\t<group>\t<message> (the group: failure_group.h) C
 * <cell>\t<cases>\t<failures>             at the end, without a store (with
 * one, the parent reads the coverage from it) M <worker KiB warm> <worker KiB
 * end> <job KiB warm> <job KiB end>
 *   V <variant>\t<refused>\t<judged>          at the end: the valid cases
 * outside the variant's capabilities (unsupported), and those it was judged
 * on
 */
#ifndef SL_CAMPAIGN_H
#define SL_CAMPAIGN_H

#include <stdint.h>
#include <stdio.h>

#include "casegen.h"
#include "runner.h"
#include "tolerance.h"

/* A campaign reruns the passing variants of one case in this many
 * (those whose seed is a multiple of it) with another thread count
 * (rerun.h): a variant flagged deterministic that gives other bits fails.
 * One in 32 keeps the cost near 3% of the variants' time. */
#define SL_FUZZ_RERUN_EVERY 32

/* A minimal case of at most this many elements per input is small enough;
 * a larger one gets a note naming the size threshold it stays past. */
#define SL_FUZZ_SMALL_REPRO 8

typedef struct sl_fuzz_campaign {
  sl_fuzz_opts gen;
  const char *variants; /* NULL: all */
  uint64_t seed;
  double seconds;
  int64_t cases; /* -1: by time */
  int jobs, shard_k, shard_n, shrink, print;
  int shard_set; /* --shard was given (else the environment may say) */
  int keep_all;  /* --keep all: every case and verdict, not only failures */
  int huge;      /* --huge: gen.huge_bytes is the case cap (huge.h) */
  int json;      /* --format json (the jobs print nothing but to the parent) */
  const char *junit; /* --junit FILE, or NULL */
  double timeout;
  uint64_t max_case_bytes; /* --max-case-bytes; 0: sl_case_bytes_cap() */
  sl_tolerances tol;       /* --tolerance: they decide verdicts (config) */
  const char *corpus;      /* NULL: none */
  const char *db;          /* NULL: no store */
  int64_t run_id;
  int64_t resume;     /* the run resumed, or 0 */
  volatile int *stop; /* shared with the jobs: the parent asks them to stop */
  /* --fail-on new and --known FILE (output/known_groups.h): the parent's
   * verdict on the groups; no job reads them, no config keeps them. */
  int fail_on_new;
  const char *known;
} sl_fuzz_campaign;

/* Threads each job gives the parallel variants: the cores shared among the
 * jobs (at least 1), so that jobs do not oversubscribe the machine (OpenMP
 * threads spin at barriers: 2 jobs x 2 threads on 2 cores ran 30x fewer
 * cases). --jobs 1 fuzzes the parallel variants on every core. */
int sl_fuzz_job_threads(const sl_fuzz_campaign *f);

/* Runs job `job`, reporting on `out`. Returns 0, or 1 when the job could not
 * go on (no worker, the store refused a write: message on stderr). */
int sl_fuzz_job(const sl_fuzz_campaign *f, int job, FILE *out);

/* The first variant of r with a failing verdict, or -1. */
int sl_fuzz_first_failure(const sl_case_result *r);

/* What the corpus replay met: cases replayed, failing (each counted into
 * groups), and entries that could not be read, parsed or run. */
struct sl_failure_groups;
struct sl_store;
typedef struct sl_fuzz_corpus_tally {
  int replayed, failing, errors;
  struct sl_failure_groups *groups; /* the campaign's groups: set by caller */
} sl_fuzz_corpus_tally;

/* Replays f->corpus (nothing when NULL or missing) before the campaign:
 * failing cases are printed, counted into t->groups and, with st, recorded
 * in run f->run_id with their signatures. 0, or -1 on a store error. */
int sl_fuzz_replay_corpus(const sl_fuzz_campaign *f, struct sl_store *st,
                          sl_fuzz_corpus_tally *t);

/* Coverage cells: name -> cases, failures (names as sl_fuzz_cell writes). */
typedef struct sl_fuzz_cell_count {
  char name[160];
  int64_t cases, failures;
} sl_fuzz_cell_count;

/* A campaign meets tens of thousands of cells: looked up by hash, in the
 * order first met. Zero-initialised is empty. */
typedef struct sl_fuzz_cells {
  sl_fuzz_cell_count *v;
  int n, cap;
  int *slots; /* open addressing: index into v, or -1 */
  int nslots; /* a power of two, at least twice n */
} sl_fuzz_cells;

/* The cell named `name`, added with zero counts if new; NULL: no memory. */
sl_fuzz_cell_count *sl_fuzz_cells_get(sl_fuzz_cells *t, const char *name);
/* Forgets every cell, keeping the memory. */
void sl_fuzz_cells_clear(sl_fuzz_cells *t);
void sl_fuzz_cells_free(sl_fuzz_cells *t);

#endif
