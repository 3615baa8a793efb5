/*
 * The pieces of `scatterlab fuzz` (cmd_fuzz.c): its options, config and
 * shard (campaign_options.c), and the parent's side of the jobs: forking them,
 * gathering their lines, the closing prints (campaign_parent.c).
 */
#ifndef SL_CAMPAIGN_CMD_H
#define SL_CAMPAIGN_CMD_H

#include <stdint.h>

#include "campaign.h"
#include "failure_report.h"
#include "runner.h"
#include "sl_store.h"

/* What the parent gathers from the jobs. */
typedef struct sl__gathered {
  sl_fuzz_cells cells;
  char **failures;
  int nfail;
  int64_t *done, *fails;
  long mem[4]; /* largest worker / job KiB after warm-up and at the end */
  int64_t ref_defects[SL_REF_DEFECTS_MAX]; /* cases per reference defect */
  double first_failure;
  sl_failure_groups groups; /* the failures by signature (failure_report.h) */
  /* Per variant (the "V" lines): .cases the valid cases outside its
   * capabilities, .failures those it was judged on. */
  sl_fuzz_cells met;
} sl__gathered;

/* campaign_options.c */
/* With --variants, fuzz only the ops that have a selected variant (a case of
 * another op would have nothing to run), and only the dtypes, index dtypes
 * and reduces that some selected variant takes (its capabilities): a
 * campaign on one provider spends no case on what it declares it cannot
 * do. Returns -1 when no op is left. */
int sl__restrict_ops(sl_fuzz_campaign *f);

void sl__defaults(sl_fuzz_campaign *f);

/* Parses argv[1..] into f. config_version is NULL for a command line, else
 * the words are a stored config (sl__config) and it receives the config's
 * format version (1 until a "--config-version" word says otherwise).
 * Returns 0, SL_EXIT_USAGE, or -1 after --help. */
int sl__parse(sl_fuzz_campaign *f, int argc, char **argv, int *config_version);

/* The options a resumed run needs, as command-line words. */
void sl__config(const sl_fuzz_campaign *f, char *buf, size_t len);

/* A campaign whose largest case could pass --max-case-bytes is refused
 * before it starts: a generated case refused mid-campaign would read as a
 * harness failure. With --huge, the cap is handed to the schedule, which
 * sizes its cases within it. Returns 0 or SL_EXIT_USAGE. */
int sl__settle_case_cap(sl_fuzz_campaign *f);

/* --resume: reads the run's config into f, then lets the command line
 * change what does not decide the schedule. */
int sl__load_resume(sl_fuzz_campaign *f, sl_store *st, int argc, char **argv,
                    char *config, size_t len);

/* Without --shard, takes the shard from the first CI convention whose index
 * variable is set (sl__shard_envs), and writes where it came from to
 * `from` ("" when unsharded). Returns 0 or SL_EXIT_USAGE. */
int sl__shard_from_env(sl_fuzz_campaign *f, char *from, size_t len);

/* campaign_parent.c */
int64_t sl__sum(const int64_t *v, int n);

int sl__stored_cell(void *user, const sl_coverage_view *v);

void sl__print_coverage(const sl_fuzz_cells *cells);

/* Prints each failure (and frees it); with json, writes it there too as
 * {"variant", "verdict", "minimal", "found_as", "message", "repro"}. */
void sl__print_failures(sl__gathered *g, FILE *json);

/* Names on stderr each selected variant that met no case it supports (its
 * capabilities, or --dtypes and the like, left it none): nothing of it was
 * tested. Returns how many. */
int sl__print_unmet(const sl__gathered *g);

/* Memory of the campaign: flat after warm-up is the target. */
void sl__print_memory(const sl__gathered *g);

/* Forks the jobs, follows their progress until all have ended. Returns 1 if
 * a job failed. */
int sl__run_jobs(sl_fuzz_campaign *f, sl__gathered *g);

#endif
