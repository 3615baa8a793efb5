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

/* One fuzz command: its campaign, store, what the jobs sent back, and the
 * counts of its summary. */
typedef struct sl__fuzz_cmd {
  sl_fuzz_campaign f;
  sl_triage_opts triage;
  char shard_from[256], config[16384], err[512];
  sl_store *st;
  /* Held from before the jobs are forked until the last job and worker has
   * ended (run_lock.h): a later --resume waits for all of them. */
  int run_lock;
  sl__gathered g;
  sl_fuzz_corpus_tally corpus;
  int corpus_store_failed, job_failed, json_failed, groups_failed;
  int report_failed, unmet, ncells;
  int64_t total, failing;
  double elapsed;
  const char *status;
  /* --format json: the failures are kept in memory as they are printed,
   * and the document written at the end (it carries the exit status). */
  FILE *jout, *jfail;
  char *jbuf;
  size_t jlen;
} sl__fuzz_cmd;

/* Options, outputs, --known's file and the shard, each checked before
 * anything runs: 0, or an exit status (-1 after --help). */
static int sl__fuzz_prepare(sl__fuzz_cmd *c, int argc, char **argv) {
  sl_fuzz_campaign *f = &c->f;
  sl__defaults(f);
  int rc = sl__parse(f, argc, argv, NULL);
  if (rc) return rc;
  if ((rc =
           sl_cli_output_check("fuzz", "--junit", f->junit, f->db, argc, argv)))
    return rc;
  c->triage.fail_on_new = f->fail_on_new;
  c->triage.known_path = f->known;
  if ((rc = sl_triage_load("fuzz", &c->triage))) return rc;
  /* A resumed run keeps its stored shard; the environment of the job that
   * resumes it has no say. */
  if (!f->resume &&
      (rc = sl__shard_from_env(f, c->shard_from, sizeof c->shard_from)))
    return rc;
  if (c->shard_from[0])
    fprintf(stderr, "scatterlab fuzz: shard %d/%d (counted from 1) from %s\n",
            f->shard_k + 1, f->shard_n, c->shard_from);
  if (sl_cli_parse_only) return 0;
  if ((rc = sl__settle_case_cap(f))) return rc;
  if (f->variants && sl__restrict_ops(f))
    return sl_cli_usage_error("fuzz",
                              "--variants %s: expected a filter that "
                              "selects a variant of the fuzzed ops, "
                              "got one that selects none",
                              f->variants);
  if (f->resume && !f->db && !f->print)
    return sl_cli_usage_error("fuzz", "--resume: expected a store (--db PATH), "
                                      "got --no-db");
  return 0;
}

/* --print: this shard's case lines instead of running them. */
static int sl__fuzz_print(const sl_fuzz_campaign *f) {
  if (f->json)
    return sl_cli_usage_error("fuzz", "--print: expected --format text (it "
                                      "prints case lines), got json");
  if (f->cases < 0)
    return sl_cli_usage_error("fuzz", "--print: expected --cases N as well");
  for (int64_t i = f->shard_k; i < f->cases; i += f->shard_n) {
    sl_case k;
    char line[SL_CASE_LINE_MAX];
    sl_fuzz_case(f->seed, (uint64_t)i, &f->gen, &k);
    sl_case_print(&k, line, sizeof line);
    printf("%s\n", line);
  }
  return SL_EXIT_OK;
}

/* --resume: the run's config read back, the run locked (before it is
 * reopened: its jobs and workers may outlive it) and reopened. */
static int sl__fuzz_resume(sl__fuzz_cmd *c, int argc, char **argv) {
  sl_fuzz_campaign *f = &c->f;
  int rc = sl__load_resume(f, c->st, argc, argv, c->config, sizeof c->config);
  if (rc) return rc < 0 ? SL_EXIT_OK : rc;
  f->run_id = f->resume;
  if (sl_run_lock(f->db, f->run_id, &c->run_lock, c->err, sizeof c->err))
    return sl_cli_usage_error("fuzz", "--resume: %s", c->err);
  if (sl_store_run_reopen(c->st, f->run_id)) {
    fprintf(stderr, "scatterlab fuzz: %s\n", sl_store_errmsg(c->st));
    return SL_EXIT_INCOMPLETE;
  }
  printf("resuming run %lld (%s)\n", (long long)f->run_id, c->config);
  return 0;
}

/* A new run in the store, with its config, locked. */
static int sl__fuzz_begin(sl__fuzz_cmd *c, int argc, char **argv) {
  sl_fuzz_campaign *f = &c->f;
  sl_runinfo_buf ri;
  sl_runinfo_fill(&ri, "fuzz", argc, argv, sl_fuzz_job_threads(f));
  ri.info.keep = f->keep_all ? "all" : "failures";
  sl__config(f, c->config, sizeof c->config);
  if (sl_store_run_begin(c->st, &ri.info, &f->run_id) ||
      sl_store_set_run_config(c->st, f->run_id, c->config)) {
    fprintf(stderr, "scatterlab fuzz: %s\n", sl_store_errmsg(c->st));
    return SL_EXIT_INCOMPLETE;
  }
  if (sl_run_lock(f->db, f->run_id, &c->run_lock, c->err, sizeof c->err)) {
    fprintf(stderr, "scatterlab fuzz: %s\n", c->err);
    sl_store_run_finish(c->st, f->run_id, "failed");
    return SL_EXIT_INCOMPLETE;
  }
  return 0;
}

/* The store opened and the run begun or resumed; 0 or an exit status (the
 * store closed again). */
static int sl__fuzz_open(sl__fuzz_cmd *c, int argc, char **argv) {
  if (!c->f.db) return 0;
  int rc = sl_cli_open_store("fuzz", c->f.db, 0, &c->st);
  if (rc) return rc;
  rc = c->f.resume ? sl__fuzz_resume(c, argc, argv)
                   : sl__fuzz_begin(c, argc, argv);
  if (rc) {
    sl_store_close(c->st);
    c->st = NULL;
  }
  return rc;
}

/* The corpus replay (its failures join the campaign's groups), then the
 * jobs, sharing one word: the parent's request to stop. */
static int sl__fuzz_run(sl__fuzz_cmd *c) {
  sl_fuzz_campaign *f = &c->f;
  sl__gathered *g = &c->g;
  sl_tolerances_install(&f->tol); /* before the corpus replay and the jobs */
  if (f->json && (c->jout = sl_json_begin("fuzz")) &&
      !(c->jfail = open_memstream(&c->jbuf, &c->jlen))) {
    fclose(c->jout);
    c->jout = NULL;
  }
  c->json_failed = f->json && !c->jout;
  g->first_failure = -1;
  c->corpus.groups = &g->groups;
  if (!f->resume) {
    c->corpus_store_failed = sl_fuzz_replay_corpus(f, c->st, &c->corpus) != 0;
    if (f->corpus)
      printf("corpus: %d cases replayed from %s, %d failing%s\n",
             c->corpus.replayed, f->corpus, c->corpus.failing,
             c->corpus.errors ? ", some entries unusable (above)" : "");
  }
  f->stop = mmap(NULL, sizeof(int), PROT_READ | PROT_WRITE,
                 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (f->stop == MAP_FAILED) {
    fprintf(stderr, "scatterlab fuzz: cannot map shared memory: %s\n",
            strerror(errno));
    return SL_EXIT_INCOMPLETE;
  }
  *f->stop = 0;
  g->done = calloc((size_t)f->jobs, sizeof(int64_t));
  g->fails = calloc((size_t)f->jobs, sizeof(int64_t));
  const double start = sl_now();
  c->job_failed = !g->done || !g->fails || sl__run_jobs(f, g);
  c->elapsed = sl_now() - start;
  c->total = sl__sum(g->done, f->jobs);
  /* One count of failing cases: the jobs' and the corpus replay's, as the
   * groups, JSON, JUnit and the store count them. */
  c->failing = sl__sum(g->fails, f->jobs) + c->corpus.failing;
  return 0;
}

/* What the jobs found, before the summary: coverage, memory, reference
 * defects, the failures grouped and triaged (new or known: the store's
 * memory of the runs before this one, then this run's groups added). */
static void sl__fuzz_findings(sl__fuzz_cmd *c) {
  sl__gathered *g = &c->g;
  if (c->st) { /* the jobs committed their coverage: the run's totals */
    sl_fuzz_cells_clear(&g->cells);
    if (sl_store_each_coverage(c->st, c->f.run_id, sl__stored_cell, &g->cells) <
        0)
      fprintf(stderr, "scatterlab fuzz: %s\n", sl_store_errmsg(c->st));
  }
  sl__print_coverage(&g->cells);
  sl__print_memory(g);
  for (int i = 0; i < SL_REF_DEFECTS_MAX; ++i)
    if (g->ref_defects[i]) sl_print_ref_defect(i, g->ref_defects[i], "");
  sl__print_failures(g, c->jfail); /* groups them; printed below */
  c->groups_failed =
      sl_failure_groups_triage(&g->groups, c->st, c->f.run_id, &c->triage,
                               c->err, sizeof c->err) != 0;
  if (c->groups_failed)
    fprintf(stderr, "scatterlab fuzz: failure groups: %s\n", c->err);
}

/* The summary: counts, shard, the groups (text, GitHub, JUnit), the
 * variants that met no case. */
static void sl__fuzz_summary(sl__fuzz_cmd *c) {
  const sl_fuzz_campaign *f = &c->f;
  sl__gathered *g = &c->g;
  /* Defects first (failure_group.h: one defect, the ops' groups under
   * it), then the groups and the cases. */
  printf("\n%" PRId64 " cases in %.1f s (%.0f cases/s), %d defect%s in %d "
         "failure group%s (%" PRId64 " failing cases), %d of them replayed "
         "from the corpus",
         c->total, c->elapsed, c->elapsed > 0 ? c->total / c->elapsed : 0.0,
         g->groups.defects, g->groups.defects == 1 ? "" : "s", g->groups.n,
         g->groups.n == 1 ? "" : "s", c->failing, c->corpus.failing);
  if (c->corpus.errors)
    printf(", %d corpus entr%s unusable", c->corpus.errors,
           c->corpus.errors == 1 ? "y" : "ies");
  printf("\n");
  if (f->shard_n > 1)
    printf("shard %d/%d (counted from 1) from %s\n", f->shard_k + 1, f->shard_n,
           c->shard_from[0] ? c->shard_from : "the resumed run's config");
  if (g->first_failure >= 0)
    printf("first failure found after %.1f s (shrinking included)\n",
           g->first_failure);
  sl_failure_groups_print_status(&g->groups, &c->triage, stdout);
  sl_failure_groups_print(&g->groups, stdout);
  if (sl_failure_groups_github(&g->groups, "fuzz", c->total, stdout, c->err,
                               sizeof c->err))
    fprintf(stderr, "scatterlab fuzz: %s\n", c->err);
  if (f->junit && sl_failure_groups_junit(&g->groups, "fuzz", c->total,
                                          f->junit, c->err, sizeof c->err)) {
    fprintf(stderr, "scatterlab fuzz: --junit: %s\n", c->err);
    c->report_failed = 1;
  }
  c->ncells = g->cells.n;
  c->unmet = sl_interrupted() ? 0 : sl__print_unmet(g);
}

/* The run closed and unlocked (every job has ended), and what an
 * interruption leaves: the command that goes on. */
static void sl__fuzz_close(sl__fuzz_cmd *c) {
  sl_fuzz_campaign *f = &c->f;
  c->status = sl_interrupt_run_status(c->job_failed);
  if (c->st) {
    if (sl_store_run_finish(c->st, f->run_id, c->status)) {
      fprintf(stderr, "scatterlab fuzz: %s\n", sl_store_errmsg(c->st));
      c->job_failed = 1;
    }
    printf("results: %s (run %lld, %s)\n", f->db, (long long)f->run_id,
           c->status);
    sl_run_unlock(f->db, f->run_id, c->run_lock);
  }
  if (c->job_failed)
    fprintf(stderr, "scatterlab fuzz: INCOMPLETE: a job stopped early (see "
                    "above); the counts cover what was committed\n");
  const int sig = sl_interrupted();
  if (!sig) return;
  printf("interrupted by %s: every finished case is committed", strsignal(sig));
  char db[2100];
  if (f->db && sl_shell_word(f->db, db, sizeof db) == 0)
    printf("; go on with: scatterlab fuzz --resume %lld --db %s",
           (long long)f->run_id, db);
  printf("\n");
}

/* A failure found is certain even when a job stopped early: it wins. Only
 * the groups that fail count (--fail-on new, --known); failing cases that
 * reached no group at all (out of memory) count as ever. */
static int sl__fuzz_status(const sl__fuzz_cmd *c) {
  const sl_failure_groups *groups = &c->g.groups;
  const int fails = sl_failure_groups_failing(groups) > 0 ||
                    (groups->n == 0 && c->failing > 0);
  const int incomplete = c->job_failed || c->json_failed || c->report_failed ||
                         c->groups_failed || c->corpus_store_failed;
  return sl_interrupt_exit_status((fails || c->corpus.errors) ? SL_EXIT_FAIL
                                  : incomplete ? SL_EXIT_INCOMPLETE
                                  : c->unmet   ? SL_EXIT_USAGE
                                               : SL_EXIT_OK);
}

/* --format json: the document, carrying the exit status. */
static void sl__fuzz_json(sl__fuzz_cmd *c, int rc) {
  const sl_fuzz_campaign *f = &c->f;
  FILE *j = c->jout;
  fclose(c->jfail);
  sl_json_head(j, "fuzz", rc);
  fputs(", ", j);
  sl_tolerances_json(j);
  fputs(", \"db\": ", j);
  sl_json_str(j, f->db);
  if (c->st)
    fprintf(j, ", \"run_id\": %lld, \"status\": \"%s\"", (long long)f->run_id,
            c->status);
  else
    fprintf(j, ", \"run_id\": null, \"status\": \"%s\"", c->status);
  fprintf(j,
          ", \"seed\": %" PRIu64 ", \"shard\": {\"index\": %d, "
          "\"total\": %d, \"source\": ",
          f->seed, f->shard_k + 1, f->shard_n);
  sl_json_str(j, c->shard_from[0] ? c->shard_from
                 : f->resume      ? "the resumed run's config"
                                  : NULL);
  fprintf(j,
          "}, \"cases\": %" PRId64 ", \"failing\": %" PRId64
          ", \"corpus_replayed\": %d, \"corpus_failures\": %d, "
          "\"corpus_errors\": %d, \"cells\": %d, \"defects\": %d, "
          "\"failure_groups\": %d, \"new_groups\": %d, \"fail_on\": \"%s\", "
          "\"seconds\": ",
          c->total, c->failing, c->corpus.replayed, c->corpus.failing,
          c->corpus.errors, c->ncells, c->g.groups.defects, c->g.groups.n,
          sl_failure_groups_new(&c->g.groups),
          c->triage.fail_on_new ? "new" : "any");
  sl_json_num(j, c->elapsed);
  fprintf(j, ", \"failures\": [%s\n]", c->jbuf ? c->jbuf : "");
  fputs(", \"groups\": [", j);
  sl_failure_groups_json(&c->g.groups, j);
  fputs("\n]", j);
  sl_json_end(j);
  fclose(j);
}

/* The campaign, from the store's run to the exit status. */
static int sl__fuzz_go(sl__fuzz_cmd *c, int argc, char **argv) {
  sl_interrupt_install();
  int rc = sl__fuzz_open(c, argc, argv);
  if (rc) return rc;
  if ((rc = sl__fuzz_run(c))) {
    sl_store_close(c->st);
    return rc;
  }
  sl__fuzz_findings(c);
  sl__fuzz_summary(c);
  sl__fuzz_close(c);
  rc = sl__fuzz_status(c);
  if (c->jout) sl__fuzz_json(c, rc);
  sl_store_close(c->st);
  return rc;
}

int sl_cmd_fuzz(int argc, char **argv) {
  /* Static: the triage options and the campaign outlive every return of
   * the pieces, and the struct is large. */
  static sl__fuzz_cmd c;
  memset(&c, 0, sizeof c);
  c.run_lock = -1;
  int rc = sl__fuzz_prepare(&c, argc, argv);
  if (rc) return rc < 0 ? SL_EXIT_OK : rc;
  if (sl_cli_parse_only) return SL_EXIT_OK;
  rc = c.f.print ? sl__fuzz_print(&c.f) : sl__fuzz_go(&c, argc, argv);
  sl__gathered *g = &c.g;
  sl_fuzz_cells_free(&g->met);
  free(g->failures), sl_fuzz_cells_free(&g->cells), free(g->done);
  free(g->fails);
  if (c.f.stop && c.f.stop != MAP_FAILED) munmap((void *)c.f.stop, sizeof(int));
  free(c.jbuf);
  sl_failure_groups_free(&g->groups);
  sl_triage_free(&c.triage);
  return rc;
}
