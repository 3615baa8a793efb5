/*
 * Runs one case: builds its inputs, asks LibTorch for the expected answer,
 * runs every selected variant on the same inputs and judges each one.
 */
#ifndef SL_RUNNER_H
#define SL_RUNNER_H

#include <stddef.h>
#include <stdint.h>

#include "case.h"
#include "providers.h"
#include "sl/sl.h"
#include "sl_verdict.h"

#define SL_MAX_VERDICTS 32
/* How the message of a variant that accepted a case LibTorch refused
 * begins (reject_mismatch): failure_group.h keys such failures by the
 * case's class. */
#define SL_ACCEPTED_PREFIX "kernel accepted, LibTorch rejected"

/* What the variant runs for now besides its own call (a check's broken
 * call, a run under allocation faults), in the words that check's failure
 * message begins with (call_checks.h, alloc_faults.h); "" for its call. A
 * worker whose kernel dies there says so first in the crash's message
 * (worker.c), so that the crash is that check's defect in every op. Goes
 * nowhere until sl_runner_phase_to names a place (the worker's page). */
void sl_runner_phase(const char *what);
void sl_runner_phase_to(char *slot, size_t len);

/* The verdicts (sl_verdict, sl_verdict_name, sl_verdict_is_failure) are
 * the table of results/verdicts.def, shared with the store and the
 * reports. */

typedef struct sl_variant_result {
  char variant[SL_VARIANT_NAME_LEN]; /* "cpu.serial", "mylib:cpu.min" */
  sl_verdict verdict;
  int has_diffs;
  double diff1, diff2, diff3;
  double seconds; /* wall time of the kernel call; < 0 when not run */
  char message[512];
  /* A digest of the outputs it wrote (show_tensors.h), when the run was
   * asked to show them (sl_run_opts.shown); 0 otherwise */
  uint64_t out_digest;
  /* For a failure so shown, its outputs' relation to the right ones
   * (defect_relation.h: "= reduce=amax"), "" when none holds */
  char relation[32];
} sl_variant_result;

/* Prints, for a variant that did not pass, why the benchmarks leave it
 * untimed: "  cuda.lock    not timed: unsupported: no device" (the
 * verdict, then the first line of its message when it has one). */
void sl_print_untimed(const sl_variant_result *r);

/* The most rows of the reference's defect table that the harness counts. */
#define SL_REF_DEFECTS_MAX 16
/* The row of the reference's defect table named `name`, or -1. */
int sl_ref_defect_index(const char *name);
/* Prints "reference: LibTorch 1.13.0 has defect half-scatter-accumulate
 * (...)" and what the harness did about it, with `cases` when >= 0; `indent`
 * starts the line. */
void sl_print_ref_defect(int row, int64_t cases, const char *indent);

typedef struct sl_case_result {
  char line[SL_CASE_LINE_MAX]; /* the case as run (--load updates shapes) */
  int n;
  sl_variant_result v[SL_MAX_VERDICTS];
  int failures;
  char ref_message[512]; /* LibTorch's rejection, if any */
  /* A known LibTorch defect that showed on this case, its expected answer
   * computed by the op's definition instead (references/slref_defects.def):
   * the defect's name, or "" */
  char ref_defect[48];
} sl_case_result;

/* Progress events of sl_run_case, for a caller that must know where a
 * crash happened (the worker process of worker.c). */
typedef enum sl_run_event {
  SL_EVENT_REFERENCE_DONE, /* inputs built, LibTorch has answered */
  SL_EVENT_VARIANT_START,  /* `name` is about to run */
  SL_EVENT_VARIANT_DONE    /* `r` is its verdict */
} sl_run_event;

typedef struct sl_run_opts {
  const char *variants; /* comma-separated filter, NULL = all of the op */
  const char *save_dir; /* --save: write the bundle here */
  int save_force;       /* --force: save_dir may hold files already */
  const char *load_dir; /* --load: read inputs from here */
  /* When set, the case's tensors as text (show_tensors.h): the inputs,
   * LibTorch's outputs ("expected ...") and each variant's ("got ...") */
  char *shown;
  size_t shown_len;
  int threads; /* 0 = all */
  int skip;    /* skip the first `skip` selected variants */
  /* --max-case-bytes: most memory a case's tensors may take (its inputs
   * and two copies of its outputs, LibTorch's and a variant's), refused
   * before they are allocated; 0: sl_case_bytes_cap() */
  uint64_t max_case_bytes;
  /* Determinism, measured (rerun.h): a variant that passed is run again
   * with another thread count on cases whose seed is a multiple of this
   * (1: every case; 0: none) */
  int rerun_every;
  /* the second run's threads: 0 for another count than the first's (1
   * after a parallel run, 2 after a serial one); a campaign asks for 1
   * (its one-thread jobs then check run-to-run determinism only) */
  int rerun_threads;
  void (*on_event)(void *user, sl_run_event ev, const char *name,
                   const sl_variant_result *r);
  void *user;
} sl_run_opts;

/* Whether variant `name` is selected by a --variants filter: NULL = all;
 * comma-separated items, each a name ("cpu.serial", "mylib:cpu.min"), a
 * glob ("mylib:*") or a device ("cpu" selects every cpu.* variant of every
 * provider, "mylib:cpu" those of mylib). */
int sl_variant_selected(const char *filter, const char *name);
/* 0 when `filter` selects a variant of op (every op has one when it is
 * NULL); else -1 with err naming the filter and the op. */
int sl_variants_check(const char *filter, int op, char *err, size_t errlen);

/*
 * Runs case c. Returns 0 with res filled (verdicts), or -1 when the case
 * could not be prepared (err says why: an allocation refused, a bad --load
 * file); that is a usage error, not a verdict.
 */
int sl_run_case(const sl_case *c, const sl_run_opts *o, sl_case_result *res,
                char *err, size_t errlen);

/* Builds the inputs of case c0 (generated from its seed; for a backward op
 * derived through LibTorch's forward; --load files replace tensors). *c gets
 * the case as built (loaded shapes), *out owns the tensors. 0 or -1 + err. */
struct sl_bundle;
int sl_prepare_case(const sl_case *c0, const char *load_dir,
                    uint64_t max_case_bytes, sl_case *c, struct sl_bundle *out,
                    char *err, size_t errlen);

/* The repro command of one verdict: `scatterlab run 'LINE' --variants V`,
 * or after sl_repro_load `scatterlab run --load DIR ['LINE'] --variants V`. */
void sl_repro(const char *line, const char *variant, char *buf, size_t len);
/* From now on repro commands run the bundle in dir (NULL: the line again);
 * line_given: the case line came from the command line, not dir/case.txt,
 * so the repro carries it. */
void sl_repro_load(const char *dir, int line_given);

#endif
