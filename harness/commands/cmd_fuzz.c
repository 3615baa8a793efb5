/*
 * `scatterlab fuzz`: the command line of a campaign (campaign.h): the
 * run, the corpus replay, the summary, interruption and --resume. The
 * options are campaign_options.c, the parent's side of the jobs
 * campaign_parent.c, the jobs themselves campaign_job.c.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "byte_size.h"
#include "campaign.h"
#include "child_exit.h"
#include "commands.h"
#include "failure_report.h"
#include "interrupt.h"
#include "json_out.h"
#include "known_groups.h"
#include "providers.h"
#include "run_lock.h"
#include "runinfo.h"
#include "runner.h"
#include "sl_report.h"
#include "sl_store.h"
#include "text_lines.h"
#include "timing.h"
#include "worker.h"

#ifndef SL_SOURCE_DIR
#define SL_SOURCE_DIR "."
#endif
#include "campaign_cmd.h"

int sl_cmd_fuzz(int argc, char **argv) {
  sl_fuzz_campaign f;
  sl__defaults(&f);
  int rc = sl__parse(&f, argc, argv, NULL);
  if (rc) return rc < 0 ? SL_EXIT_OK : rc;
  if ((rc = sl_cli_output_check("fuzz", "--junit", f.junit, f.db, argc, argv)))
    return rc;
  /* --known's file is read (and refused, naming its line) before anything
   * runs; the triage options outlive every return below. */
  static sl_triage_opts triage;
  triage.fail_on_new = f.fail_on_new;
  triage.known_path = f.known;
  if ((rc = sl_triage_load("fuzz", &triage))) return rc;
  /* A resumed run keeps its stored shard; the environment of the job that
   * resumes it has no say. */
  char shard_from[256] = "";
  if (!f.resume && (rc = sl__shard_from_env(&f, shard_from, sizeof shard_from)))
    return rc;
  if (shard_from[0])
    fprintf(stderr, "scatterlab fuzz: shard %d/%d (counted from 1) from %s\n",
            f.shard_k + 1, f.shard_n, shard_from);
  if (sl_cli_parse_only) return SL_EXIT_OK;
  if ((rc = sl__settle_case_cap(&f))) return rc;
  if (f.variants && sl__restrict_ops(&f))
    return sl_cli_usage_error("fuzz",
                              "--variants %s: expected a filter that "
                              "selects a variant of the fuzzed ops, "
                              "got one that selects none",
                              f.variants);
  if (f.print) {
    if (f.json)
      return sl_cli_usage_error("fuzz", "--print: expected --format text (it "
                                        "prints case lines), got json");
    if (f.cases < 0)
      return sl_cli_usage_error("fuzz", "--print: expected --cases N as well");
    for (int64_t i = f.shard_k; i < f.cases; i += f.shard_n) {
      sl_case c;
      char line[SL_CASE_LINE_MAX];
      sl_fuzz_case(f.seed, (uint64_t)i, &f.gen, &c);
      sl_case_print(&c, line, sizeof line);
      printf("%s\n", line);
    }
    return SL_EXIT_OK;
  }
  if (f.resume && !f.db)
    return sl_cli_usage_error("fuzz", "--resume: expected a store (--db PATH), "
                                      "got --no-db");
  sl_interrupt_install();
  char err[512], config[16384];
  sl_store *st = NULL;
  if (f.db && (rc = sl_cli_open_store("fuzz", f.db, 0, &st))) return rc;
  /* Held from before the jobs are forked until the last job and worker has
   * ended (run_lock.h): a later --resume waits for all of them. */
  int run_lock = -1;
  if (f.resume) {
    if ((rc = sl__load_resume(&f, st, argc, argv, config, sizeof config))) {
      sl_store_close(st);
      return rc < 0 ? SL_EXIT_OK : rc;
    }
    f.run_id = f.resume;
    /* Before the run is reopened: its jobs and workers may outlive it. */
    if (sl_run_lock(f.db, f.run_id, &run_lock, err, sizeof err)) {
      sl_store_close(st);
      return sl_cli_usage_error("fuzz", "--resume: %s", err);
    }
    if (sl_store_run_reopen(st, f.run_id)) {
      fprintf(stderr, "scatterlab fuzz: %s\n", sl_store_errmsg(st));
      sl_store_close(st);
      return SL_EXIT_INCOMPLETE;
    }
    printf("resuming run %lld (%s)\n", (long long)f.run_id, config);
  } else if (st) {
    sl_runinfo_buf ri;
    sl_runinfo_fill(&ri, "fuzz", argc, argv, sl_fuzz_job_threads(&f));
    ri.info.keep = f.keep_all ? "all" : "failures";
    sl__config(&f, config, sizeof config);
    if (sl_store_run_begin(st, &ri.info, &f.run_id) ||
        sl_store_set_run_config(st, f.run_id, config)) {
      fprintf(stderr, "scatterlab fuzz: %s\n", sl_store_errmsg(st));
      sl_store_close(st);
      return SL_EXIT_INCOMPLETE;
    }
    if (sl_run_lock(f.db, f.run_id, &run_lock, err, sizeof err)) {
      fprintf(stderr, "scatterlab fuzz: %s\n", err);
      sl_store_run_finish(st, f.run_id, "failed");
      sl_store_close(st);
      return SL_EXIT_INCOMPLETE;
    }
  }
  /* --format json: the failures are kept in memory as they are printed,
   * and the document written at the end (it carries the exit status). */
  FILE *jout = NULL, *jfail = NULL;
  char *jbuf = NULL;
  size_t jlen = 0;
  sl_tolerances_install(&f.tol); /* before the corpus replay and the jobs */
  if (f.json && (jout = sl_json_begin("fuzz")) &&
      !(jfail = open_memstream(&jbuf, &jlen))) {
    fclose(jout);
    jout = NULL;
  }
  const int json_failed = f.json && !jout;
  sl__gathered g;
  memset(&g, 0, sizeof g);
  g.first_failure = -1;
  /* The corpus first: its failures join the campaign's groups. */
  sl_fuzz_corpus_tally corpus = {0, 0, 0, &g.groups};
  int corpus_store_failed = 0;
  if (!f.resume) {
    corpus_store_failed = sl_fuzz_replay_corpus(&f, st, &corpus) != 0;
    if (f.corpus)
      printf("corpus: %d cases replayed from %s, %d failing%s\n",
             corpus.replayed, f.corpus, corpus.failing,
             corpus.errors ? ", some entries unusable (above)" : "");
  }
  /* One shared word: the parent's request to stop, seen by every job. */
  f.stop = mmap(NULL, sizeof(int), PROT_READ | PROT_WRITE,
                MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (f.stop == MAP_FAILED) {
    fprintf(stderr, "scatterlab fuzz: cannot map shared memory: %s\n",
            strerror(errno));
    sl_store_close(st);
    return SL_EXIT_INCOMPLETE;
  }
  *f.stop = 0;
  g.done = calloc((size_t)f.jobs, sizeof(int64_t));
  g.fails = calloc((size_t)f.jobs, sizeof(int64_t));
  double start = sl_now();
  int job_failed = !g.done || !g.fails || sl__run_jobs(&f, &g);
  double elapsed = sl_now() - start;
  int64_t total = sl__sum(g.done, f.jobs), totfail = sl__sum(g.fails, f.jobs);
  if (st) { /* the jobs committed their coverage: the run's totals */
    sl_fuzz_cells_clear(&g.cells);
    if (sl_store_each_coverage(st, f.run_id, sl__stored_cell, &g.cells) < 0)
      fprintf(stderr, "scatterlab fuzz: %s\n", sl_store_errmsg(st));
  }
  sl__print_coverage(&g.cells);
  sl__print_memory(&g);
  for (int i = 0; i < SL_REF_DEFECTS_MAX; ++i)
    if (g.ref_defects[i]) sl_print_ref_defect(i, g.ref_defects[i], "");
  sl__print_failures(&g, jfail); /* groups them; printed below */
  /* New or known: what the store remembers from the runs before this one,
   * then this run's groups added to its memory. */
  const int groups_failed =
      sl_failure_groups_triage(&g.groups, st, f.run_id, &triage, err,
                               sizeof err) != 0;
  if (groups_failed)
    fprintf(stderr, "scatterlab fuzz: failure groups: %s\n", err);
  /* One count of failing cases: the jobs' and the corpus replay's, as
   * the groups, JSON, JUnit and the store count them. */
  const int64_t failing = totfail + corpus.failing;
  printf("\n%" PRId64 " cases in %.1f s (%.0f cases/s), %d failure group%s "
         "(%" PRId64 " failing cases), %d of them replayed from the corpus",
         total, elapsed, elapsed > 0 ? total / elapsed : 0.0, g.groups.n,
         g.groups.n == 1 ? "" : "s", failing, corpus.failing);
  if (corpus.errors)
    printf(", %d corpus entr%s unusable", corpus.errors,
           corpus.errors == 1 ? "y" : "ies");
  printf("\n");
  if (f.shard_n > 1)
    printf("shard %d/%d (counted from 1) from %s\n", f.shard_k + 1, f.shard_n,
           shard_from[0] ? shard_from : "the resumed run's config");
  if (g.first_failure >= 0)
    printf("first failure found after %.1f s (shrinking included)\n",
           g.first_failure);
  sl_failure_groups_print_status(&g.groups, &triage, stdout);
  sl_failure_groups_print(&g.groups, stdout);
  if (sl_failure_groups_github(&g.groups, "fuzz", total, stdout, err,
                               sizeof err))
    fprintf(stderr, "scatterlab fuzz: %s\n", err);
  int report_failed = 0;
  if (f.junit && sl_failure_groups_junit(&g.groups, "fuzz", total, f.junit, err,
                                         sizeof err)) {
    fprintf(stderr, "scatterlab fuzz: --junit: %s\n", err);
    report_failed = 1;
  }
  const int ncells = g.cells.n;
  const int unmet = sl_interrupted() ? 0 : sl__print_unmet(&g);
  sl_fuzz_cells_free(&g.met);
  free(g.failures), sl_fuzz_cells_free(&g.cells), free(g.done), free(g.fails);
  munmap((void *)f.stop, sizeof(int));
  int sig = sl_interrupted();
  const char *status = sl_interrupt_run_status(job_failed);
  if (st) {
    if (sl_store_run_finish(st, f.run_id, status)) {
      fprintf(stderr, "scatterlab fuzz: %s\n", sl_store_errmsg(st));
      job_failed = 1;
    }
    sl_store_close(st);
    printf("results: %s (run %lld, %s)\n", f.db, (long long)f.run_id, status);
    sl_run_unlock(f.db, f.run_id, run_lock); /* every job has ended */
  }
  if (job_failed)
    fprintf(stderr, "scatterlab fuzz: INCOMPLETE: a job stopped early (see "
                    "above); the counts cover what was committed\n");
  if (sig) {
    printf("interrupted by %s: every finished case is committed",
           strsignal(sig));
    char db[2100];
    if (f.db && sl_shell_word(f.db, db, sizeof db) == 0)
      printf("; go on with: scatterlab fuzz --resume %lld --db %s",
             (long long)f.run_id, db);
    printf("\n");
  }
  /* A failure found is certain even when a job stopped early: it wins.
   * Only the groups that fail count (--fail-on new, --known); failing
   * cases that reached no group at all (out of memory) count as ever. */
  const int fails = sl_failure_groups_failing(&g.groups) > 0 ||
                    (g.groups.n == 0 && failing > 0);
  rc = sl_interrupt_exit_status((fails || corpus.errors) ? SL_EXIT_FAIL
                                : job_failed || json_failed || report_failed ||
                                        groups_failed || corpus_store_failed
                                    ? SL_EXIT_INCOMPLETE
                                : unmet ? SL_EXIT_USAGE
                                        : SL_EXIT_OK);
  if (jout) {
    fclose(jfail);
    sl_json_head(jout, "fuzz", rc);
    fputs(", ", jout);
    sl_tolerances_json(jout);
    fputs(", \"db\": ", jout);
    sl_json_str(jout, f.db);
    if (st)
      fprintf(jout, ", \"run_id\": %lld, \"status\": \"%s\"",
              (long long)f.run_id, status);
    else
      fprintf(jout, ", \"run_id\": null, \"status\": \"%s\"", status);
    fprintf(jout,
            ", \"seed\": %" PRIu64 ", \"shard\": {\"index\": %d, "
            "\"total\": %d, \"source\": ",
            f.seed, f.shard_k + 1, f.shard_n);
    sl_json_str(jout, shard_from[0] ? shard_from
                      : f.resume    ? "the resumed run's config"
                                    : NULL);
    fprintf(jout,
            "}, \"cases\": %" PRId64 ", \"failing\": %" PRId64
            ", \"corpus_replayed\": %d, \"corpus_failures\": %d, "
            "\"corpus_errors\": %d, \"cells\": %d, \"failure_groups\": %d, "
            "\"new_groups\": %d, \"fail_on\": \"%s\", \"seconds\": ",
            total, failing, corpus.replayed, corpus.failing, corpus.errors,
            ncells, g.groups.n, sl_failure_groups_new(&g.groups),
            triage.fail_on_new ? "new" : "any");
    sl_json_num(jout, elapsed);
    fprintf(jout, ", \"failures\": [%s\n]", jbuf ? jbuf : "");
    fputs(", \"groups\": [", jout);
    sl_failure_groups_json(&g.groups, jout);
    fputs("\n]", jout);
    sl_json_end(jout);
    fclose(jout);
  }
  free(jbuf);
  sl_failure_groups_free(&g.groups);
  sl_triage_free(&triage);
  return rc;
}
