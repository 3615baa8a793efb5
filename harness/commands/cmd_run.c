/* `scatterlab run`: run cases on every variant against LibTorch. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case.h"
#include "clean_text.h"
#include "commands.h"
#include "failure_report.h"
#include "interrupt.h"
#include "json_out.h"
#include "known_groups.h"
#include "options.h"
#include "runinfo.h"
#include "runner.h"
#include "sl_store.h"
#include "store_verdicts.h"
#include "text_lines.h"
#include "tolerance.h"
#include "worker.h"

static const char *const sl__run_help =
    "usage: scatterlab run [options] 'CASE' ['CASE' ...]\n"
    "       scatterlab run [options] --batch FILE\n"
    "       scatterlab run [options] --load DIR ['CASE']\n"
    "\n"
    "Runs each case on every available variant of its op, compares each with\n"
    "LibTorch and prints one verdict line per variant with its repro command.\n"
    "\n"
    "A case is one line: OP key=value ..., e.g.\n"
    "  gather dt=f32 it=i64 x=4x3 index=2x3 dim=0 seed=1\n"
    "  scatter dt=i32 it=i32 x=8x8:t index=4x8 src=4x8 dim=1 ip=dup50 seed=3\n"
    "  scatter dt=f32 it=i64 x=4x3 index=2x3 dim=0 val=2.5 seed=0\n"
    "  dynamic_scatter feats=17176x128 coors=17176x3 reduce=max voxels=13743\n"
    "  segment_reduce dt=f32 data=6x4 lengths=3 dim=0 reduce=mean val=0.5\n"
    "Keys: dt it <input>=SHAPE[:t|:b|:s<k>] dim dims reduce self at val\n"
    "voxels form ip dp seed (see cases/case.h for the grammar).\n";
static const char *const sl__run_help_after =
    "exit status: 0 all passed, 1 any failed, 2 usage error, 3 store or\n"
    "report failed (README.md, \"Exit statuses\")\n";

/* The case lines to run, each with where it came from ("b.txt line 12",
 * "cases.csv record 3"; NULL for a line given as an argument), so that one
 * that does not parse is named by its place. */
typedef struct sl__lines {
  char **v, **where;
  int n, cap;
  const char *path; /* the batch file being read */
} sl__lines;

static int sl__push(sl__lines *l, const char *s, const char *where) {
  if (l->n == l->cap) {
    int cap = l->cap ? 2 * l->cap : 16;
    char **v = realloc(l->v, sizeof(char *) * (size_t)cap);
    if (!v) return -1;
    l->v = v;
    char **w = realloc(l->where, sizeof(char *) * (size_t)cap);
    if (!w) return -1;
    l->where = w;
    l->cap = cap;
  }
  l->where[l->n] = where ? strdup(where) : NULL;
  l->v[l->n] = strdup(s);
  if (!l->v[l->n] || (where && !l->where[l->n])) {
    free(l->v[l->n]);
    free(l->where[l->n]);
    return -1;
  }
  ++l->n;
  return 0;
}

static void sl__lines_free(sl__lines *l) {
  for (int i = 0; i < l->n; ++i) free(l->v[i]), free(l->where[i]);
  free(l->v);
  free(l->where);
}

/* sl__push for sl_run_args_fn: 1 when out of memory. */
static int sl__push_line(void *lines, const char *line, const char *where) {
  return sl__push(lines, line, where) ? 1 : 0;
}

/* sl__push for sl_case_file_each: the place is the batch file's line. */
static int sl__push_batch_line(void *lines, const char *line, long line_no) {
  sl__lines *l = lines;
  char where[1100];
  snprintf(where, sizeof where, "%s line %ld", l->path, line_no);
  return sl__push(l, line, where) ? 1 : 0;
}

/* Reads case lines from a batch file: blank lines and # comments skipped. */
static int sl__read_batch(const char *path, sl__lines *out) {
  char err[1200];
  out->path = path;
  int rc = sl_case_file_each(path, sl__push_batch_line, out, err, sizeof err);
  if (rc < 0) return sl_cli_usage_error("run", "--batch %s", err);
  if (rc > 0)
    return sl_cli_usage_error("run", "--batch %s: out of memory", path);
  return 0;
}

static int sl__read_case_file(const char *dir, sl__lines *out) {
  char path[1024];
  snprintf(path, sizeof path, "%s/case.txt", dir);
  sl_text_reader r;
  char err[1200], *line = NULL;
  if (sl_text_open(&r, path, err, sizeof err))
    return sl_cli_usage_error("run",
                              "--load %s: expected %s with the case "
                              "line, found none",
                              dir, path);
  int got = sl_text_next(&r, &line, err, sizeof err);
  int rc = got > 0 ? sl__push(out, line, NULL)
           : got == 0
               ? sl_cli_usage_error("run", "--load %s: case.txt is empty", dir)
               : sl_cli_usage_error("run", "--load %s: %s", dir, err);
  sl_text_close(&r);
  return rc;
}

static void sl__print_result(const sl_case_result *res, int quiet) {
  for (int i = 0; i < res->n; ++i) {
    const sl_variant_result *r = &res->v[i];
    int ok = r->verdict == SL_VERDICT_PASSED ||
             r->verdict == SL_VERDICT_BOTH_REJECTED;
    if (quiet && ok) continue;
    char t[32] = "-";
    if (r->seconds >= 0) snprintf(t, sizeof t, "%.3f ms", r->seconds * 1e3);
    printf("%-15s %-12s %10s  %s\n", sl_verdict_name(r->verdict), r->variant, t,
           res->line);
    if (r->verdict != SL_VERDICT_PASSED && r->message[0]) {
      fputs("    ", stdout);
      sl_text_put(stdout, r->message); /* the kernel's words, neutralized */
      fputc('\n', stdout);
    }
    if (sl_verdict_is_failure(r->verdict)) {
      char repro[1400];
      sl_repro(res->line, r->variant, repro, sizeof repro);
      printf("    repro: %s\n", repro);
    }
  }
  int defect = res->ref_defect[0] ? sl_ref_defect_index(res->ref_defect) : -1;
  if (defect >= 0 && !quiet) sl_print_ref_defect(defect, -1, "");
}

/* A failing case's verdicts into the groups, from a run once more in the
 * worker that shows its tensors (show_tensors.h) and tells the variants
 * failing it alike (the same outputs) apart from the rest: a pasted repro
 * shows its bug, and a defect of code several variants share is one group.
 * Without a worker (or when the run fails), res's verdicts as they are. */
static int sl__group_failure(sl_worker *w, const sl_case *c,
                             const sl_case_result *res, double timeout_s,
                             sl_failure_groups *groups) {
  static sl_case_result shown_res;
  static char text[SL_WORKER_SHOWN_MAX];
  char err[512];
  if (!w || sl_worker_show(w, c, NULL, timeout_s, text, sizeof text, &shown_res,
                           err, sizeof err))
    return sl_failure_groups_add_result(groups, c, res);
  /* the verdicts counted are the first run's; the grouping, the second's */
  const sl_case_result *use = shown_res.failures ? &shown_res : res;
  int before = groups->n;
  if (sl_failure_groups_add_result(groups, c, use)) return -1;
  for (int i = before; i < groups->n; ++i)
    if (sl_failure_groups_show(groups, groups->v[i].id, text)) return -1;
  return 0;
}

static int sl__record(sl_store *st, int64_t run_id, const sl_case *c,
                      const sl_case_result *res) {
  int64_t case_id;
  return sl_store_verdicts(st, run_id, c->op, c->dt, res->line, c->seed, 0, 1,
                           res->v, res->n, &case_id) ||
         sl_store_verdict_signatures(st, case_id, c, res->v, res->n);
}

/* One run or import: its options, cases, store and tallies. */
typedef struct sl__run {
  const char *cmd; /* "run" or "import", also the run kind by default */
  sl_options opt;
  sl_run_opts o;
  const char *db, *kind, *junit;
  int no_db, unrecorded, quiet, json, isolate;
  double timeout_s;
  sl_tolerances tol;
  sl_triage_opts triage;
  sl__lines lines;
  sl_case *cases;
  sl_failure_groups groups;
  sl_store *st;
  int64_t run_id;
  sl_worker *worker;
  int counts[SL_VERDICT_COUNT], failed_cases, judged, recorded;
  int store_failed, usage_failed, report_failed;
  /* --format json: each case's verdicts are kept in memory as they come,
   * and written in one document at the end (it carries the exit status). */
  FILE *jout, *jcases;
  char *jbuf;
  size_t jlen;
  int jn;
} sl__run;

/* The option values into r (options.def holds their checks). */
static int sl__run_options(sl__run *r) {
  const sl_options *opt = &r->opt;
  r->o.variants = sl_opt_text(opt, SL_OPT_VARIANTS);
  r->o.save_dir = sl_opt_text(opt, SL_OPT_SAVE);
  r->o.save_force = sl_opt_on(opt, SL_OPT_FORCE);
  r->o.load_dir = sl_opt_text(opt, SL_OPT_LOAD);
  r->o.threads = (int)opt->v[SL_OPT_THREADS].n;
  r->o.max_case_bytes = opt->v[SL_OPT_MAX_CASE_BYTES].bytes;
  r->db = sl_opt_text(opt, SL_OPT_RUN_DB);
  r->kind =
      sl_opt_text(opt, SL_OPT_KIND) ? sl_opt_text(opt, SL_OPT_KIND) : r->cmd;
  r->junit = sl_opt_text(opt, SL_OPT_JUNIT);
  r->timeout_s = opt->v[SL_OPT_RUN_TIMEOUT].x;
  r->isolate = !sl_opt_on(opt, SL_OPT_NO_ISOLATE);
  r->no_db = sl_opt_on(opt, SL_OPT_NO_DB);
  r->quiet = sl_opt_on(opt, SL_OPT_QUIET);
  r->json = opt->v[SL_OPT_FORMAT].n == 1;
  r->triage.fail_on_new = opt->v[SL_OPT_FAIL_ON].n == 1;
  r->triage.known_path = sl_opt_text(opt, SL_OPT_KNOWN);
  const char *tol = sl_opt_text(opt, SL_OPT_TOLERANCE);
  return tol ? sl_tolerances_parse(&r->tol, r->cmd, tol) : 0;
}

/* The case lines: the words (or what args_fn makes of them), --batch and
 * --load's case.txt. 0, or SL_EXIT_USAGE after a message. */
static int sl__run_lines(sl__run *r, sl_run_args_fn args_fn) {
  for (int i = 0; i < r->opt.nwords; ++i)
    if (args_fn ? args_fn(r->opt.words[i], sl__push_line, &r->lines)
                : sl__push(&r->lines, r->opt.words[i], NULL))
      return SL_EXIT_USAGE;
  const char *batch = sl_opt_text(&r->opt, SL_OPT_BATCH);
  /* A pasted repro (`scatterlab run 'LINE' --variants V`) writes no store
   * unless asked: only a batch (and import) lands in the default one. */
  r->unrecorded =
      !r->opt.v[SL_OPT_RUN_DB].given && !batch && !args_fn && !r->no_db;
  if (r->unrecorded) r->no_db = 1;
  if (batch && sl__read_batch(batch, &r->lines)) return SL_EXIT_USAGE;
  if (r->o.load_dir) sl_repro_load(r->o.load_dir, r->lines.n > 0);
  if (r->lines.n == 0 && r->o.load_dir &&
      sl__read_case_file(r->o.load_dir, &r->lines))
    return SL_EXIT_USAGE;
  if (r->lines.n == 0)
    return sl_cli_usage_error(r->cmd, "expected a case line, --batch FILE or "
                                      "--load DIR; got none");
  if ((r->o.save_dir || r->o.load_dir) && r->lines.n != 1)
    return sl_cli_usage_error(r->cmd,
                              "--save/--load: expected exactly one case, "
                              "got %d",
                              r->lines.n);
  return 0;
}

/* Every line is parsed before anything runs: a typo on line 900 of a batch
 * should not cost the first 899 cases' time. */
static int sl__run_parse_cases(sl__run *r) {
  if (!(r->cases = calloc((size_t)r->lines.n, sizeof *r->cases)))
    return sl_cli_usage_error(r->cmd, "out of memory");
  for (int i = 0; i < r->lines.n; ++i) {
    char err[512];
    if (!sl_case_parse(r->lines.v[i], &r->cases[i], err, sizeof err)) continue;
    if (r->lines.where[i])
      return sl_cli_usage_error(r->cmd, "%s: %s", r->lines.where[i], err);
    return sl_cli_usage_error(r->cmd, "%s", err);
  }
  return 0;
}

/* The store and the run's row; 0 or an exit status. */
static int sl__run_begin(sl__run *r, int argc, char **argv) {
  if (r->no_db) return 0;
  int rc = sl_cli_open_store(r->cmd, r->db, 0, &r->st);
  if (rc) return rc;
  sl_runinfo_buf ri;
  sl_runinfo_fill(&ri, r->kind, argc, argv, r->o.threads);
  char config[600];
  sl_tolerances_config(&r->tol, config, sizeof config);
  if (sl_store_run_begin(r->st, &ri.info, &r->run_id) ||
      (config[0] && sl_store_set_run_config(r->st, r->run_id, config))) {
    fprintf(stderr, "scatterlab %s: %s\n", r->cmd, sl_store_errmsg(r->st));
    sl_store_close(r->st);
    r->st = NULL;
    return SL_EXIT_INCOMPLETE;
  }
  return 0;
}

/* One short transaction per case (cheap in WAL mode): the write lock is
 * never held while a kernel runs, so other writers of the store are not
 * kept waiting, and an interruption loses nothing. */
static void sl__run_commit(sl__run *r, const sl_case *c,
                           const sl_case_result *res) {
  if (!r->st || r->store_failed) return;
  if (sl_store_begin(r->st) || sl__record(r->st, r->run_id, c, res) ||
      sl_store_commit(r->st)) {
    fprintf(stderr, "scatterlab %s: store: %s\n", r->cmd,
            sl_store_errmsg(r->st));
    sl_store_rollback(r->st);
    r->store_failed = 1;
  } else {
    ++r->recorded;
  }
}

/* Case i: run, printed, tallied, grouped, committed. */
static void sl__run_case(sl__run *r, int i, sl_case_result *res) {
  char err[512];
  int prc = r->worker ? sl_worker_run(r->worker, &r->cases[i], r->timeout_s,
                                      res, err, sizeof err)
                      : sl_run_case(&r->cases[i], &r->o, res, err, sizeof err);
  if (prc) {
    fprintf(stderr, "scatterlab %s: %s\n  case: %s\n", r->cmd, err,
            r->lines.v[i]);
    r->usage_failed = 1;
    return;
  }
  sl__print_result(res, r->quiet);
  if (r->jcases) {
    fputs(r->jn++ ? ",\n  " : "\n  ", r->jcases);
    sl_json_case_result(r->jcases, res);
  }
  for (int k = 0; k < res->n; ++k) ++r->counts[res->v[k].verdict];
  r->failed_cases += res->failures > 0;
  if (res->failures &&
      sl__group_failure(r->worker, &r->cases[i], res, r->timeout_s, &r->groups))
    r->report_failed = 1; /* out of memory: the groups are incomplete */
  ++r->judged;
  sl__run_commit(r, &r->cases[i], res);
}

/* Every case, in the worker unless --no-isolate. */
static void sl__run_all(sl__run *r) {
  if (r->json && (!(r->jout = sl_json_begin(r->cmd)) ||
                  !(r->jcases = open_memstream(&r->jbuf, &r->jlen)))) {
    if (r->jout) fclose(r->jout);
    r->jout = NULL;
    r->store_failed = 1;
  }
  sl_case_result *res = malloc(sizeof *res);
  char err[512];
  if (res && r->isolate &&
      sl_worker_start(&r->worker, &r->o, err, sizeof err)) {
    fprintf(stderr, "scatterlab %s: %s\n", r->cmd, err);
    r->usage_failed = 1;
    free(res);
    res = NULL;
  }
  for (int i = 0; res && i < r->lines.n && !sl_interrupted(); ++i)
    sl__run_case(r, i, res);
  free(res);
  sl_worker_stop(r->worker);
  r->worker = NULL;
}

/* New or known (the runs before this one), then this run's groups added to
 * the store's memory (after a store failure it is only read); the run
 * closed. */
static void sl__run_finish(sl__run *r) {
  char gerr[1200];
  if (sl_failure_groups_triage(&r->groups, r->st,
                               r->store_failed ? 0 : r->run_id, &r->triage,
                               gerr, sizeof gerr)) {
    fprintf(stderr, "scatterlab %s: failure groups: %s\n", r->cmd, gerr);
    r->report_failed = 1;
  }
  if (!r->st) return;
  if (sl_store_run_finish(r->st, r->run_id,
                          sl_interrupt_run_status(r->store_failed)))
    fprintf(stderr, "scatterlab %s: store: %s\n", r->cmd,
            sl_store_errmsg(r->st));
  sl_store_close(r->st);
  r->st = NULL;
}

/* Counts of what ran, and of what the store holds when they differ: after
 * a store failure the verdicts are still shown, but only the cases before it
 * were committed (a summary of 3,000 over a store of 6 read as if all were
 * kept). */
static void sl__run_counts(const sl__run *r) {
  int total = 0;
  for (int k = 0; k < SL_VERDICT_COUNT; ++k) total += r->counts[k];
  printf("\n%d cases, %d verdicts:", r->judged, total);
  for (int k = 0; k < SL_VERDICT_COUNT; ++k)
    if (r->counts[k])
      printf(" %d %s", r->counts[k], sl_verdict_name((sl_verdict)k));
  if (r->judged < r->lines.n)
    printf(" (%d of the %d cases ran)", r->judged, r->lines.n);
  printf("\n");
}

/* The summary: counts, failure groups (text, GitHub, JUnit), the store. */
static void sl__run_summary(sl__run *r) {
  int sig = sl_interrupted();
  if (sig)
    printf("\ninterrupted by %s: the cases before it are recorded\n",
           strsignal(sig));
  sl__run_counts(r);
  const sl_failure_groups *g = &r->groups;
  if (g->n)
    printf("%d defect%s in %d failure group%s (%" PRId64
           " failing verdicts):\n",
           g->defects, g->defects == 1 ? "" : "s", g->n, g->n == 1 ? "" : "s",
           g->cases);
  sl_failure_groups_print_status(g, &r->triage, stdout);
  sl_failure_groups_print(g, stdout);
  char gerr[1200];
  if (sl_failure_groups_github(g, r->cmd, r->judged, stdout, gerr, sizeof gerr))
    fprintf(stderr, "scatterlab %s: %s\n", r->cmd, gerr);
  if (r->junit && sl_failure_groups_junit(g, r->cmd, r->judged, r->junit, gerr,
                                          sizeof gerr)) {
    fprintf(stderr, "scatterlab %s: --junit: %s\n", r->cmd, gerr);
    r->report_failed = 1;
  }
  if (!r->no_db && r->store_failed)
    printf("results: %s (run %lld, marked failed): only the first %d of "
           "the %d cases are recorded; the store failed (see above)\n",
           r->db, (long long)r->run_id, r->recorded, r->judged);
  else if (!r->no_db)
    printf("results: %s (run %lld)\n", r->db, (long long)r->run_id);
  else if (r->unrecorded)
    printf("results: not recorded (cases from the command line; --db PATH "
           "records them)\n");
}

/* A failure found is certain even when the store failed: it wins. Only the
 * groups that fail count (--fail-on new, --known); failing cases that
 * reached no group (out of memory) count as ever. */
static int sl__run_status(const sl__run *r) {
  const sl_failure_groups *g = &r->groups;
  const int fails =
      sl_failure_groups_failing(g) > 0 || (g->n == 0 && r->failed_cases);
  int rc = r->usage_failed                       ? SL_EXIT_USAGE
           : fails                               ? SL_EXIT_FAIL
           : r->store_failed || r->report_failed ? SL_EXIT_INCOMPLETE
                                                 : SL_EXIT_OK;
  return sl_interrupt_exit_status(rc);
}

/* --format json: the document, carrying the exit status. */
static void sl__run_json(sl__run *r, int rc) {
  FILE *j = r->jout;
  fclose(r->jcases);
  sl_json_head(j, r->cmd, rc);
  fputs(", \"db\": ", j);
  sl_json_str(j, r->no_db ? NULL : r->db);
  if (r->no_db)
    fputs(", \"run_id\": null", j);
  else
    fprintf(j, ", \"run_id\": %lld", (long long)r->run_id);
  fputs(", ", j);
  sl_tolerances_json(j);
  fprintf(j, ", \"cases\": %d, \"counts\": {", r->judged);
  for (int k = 0; k < SL_VERDICT_COUNT; ++k)
    fprintf(j, "%s\"%s\": %d", k ? ", " : "", sl_verdict_name((sl_verdict)k),
            r->counts[k]);
  fprintf(j,
          "}, \"defects\": %d, \"failure_groups\": %d, \"new_groups\": %d, "
          "\"fail_on\": \"%s\", \"results\": [%s\n]",
          r->groups.defects, r->groups.n, sl_failure_groups_new(&r->groups),
          r->triage.fail_on_new ? "new" : "any", r->jbuf ? r->jbuf : "");
  fputs(", \"groups\": [", j);
  sl_failure_groups_json(&r->groups, j);
  fputs("\n]", j);
  sl_json_end(j);
  fclose(j);
}

/* Options, lines and cases, each checked before any work: 0, or an exit
 * status (SL_OPTIONS_HELP after --help). */
static int sl__run_prepare(sl__run *r, const sl_command_help *h, int argc,
                           char **argv, sl_run_args_fn args_fn) {
  int rc = sl_options_parse(h, argc, argv, &r->opt);
  if (rc) return rc;
  if (sl__run_options(r) || sl__run_lines(r, args_fn) ||
      sl__run_parse_cases(r) ||
      sl_cli_output_check(r->cmd, "--junit", r->junit, r->no_db ? NULL : r->db,
                          argc, argv) ||
      sl_triage_load(r->cmd, &r->triage))
    return SL_EXIT_USAGE;
  return 0;
}

static void sl__run_free(sl__run *r) {
  free(r->jbuf);
  free(r->cases);
  sl_failure_groups_free(&r->groups);
  sl_triage_free(&r->triage);
  sl__lines_free(&r->lines);
  sl_options_free(&r->opt);
}

static const sl_command_help sl__run_cmd_help = {SL_CMD_RUN, sl__run_help,
                                                 sl__run_help_after, NULL};

int sl_cmd_run(int argc, char **argv) {
  return sl_cmd_run_with(argc, argv, &sl__run_cmd_help, NULL);
}

int sl_cmd_run_with(int argc, char **argv, const sl_command_help *h,
                    sl_run_args_fn args_fn) {
  sl__run r = {.cmd = sl_command_name(h->cmd)};
  r.o.rerun_every = 1; /* every passing variant runs twice (rerun.h) */
  int rc = sl__run_prepare(&r, h, argc, argv, args_fn);
  if (rc == SL_OPTIONS_HELP || (!rc && sl_cli_parse_only))
    rc = SL_EXIT_OK;
  else if (!rc) {
    sl_interrupt_install();
    sl_tolerances_install(&r.tol); /* before the worker is forked */
    if (!(rc = sl__run_begin(&r, argc, argv))) {
      sl__run_all(&r);
      sl__run_finish(&r);
      sl__run_summary(&r);
      rc = sl__run_status(&r);
      if (r.jout) sl__run_json(&r, rc);
    }
  }
  sl__run_free(&r);
  return rc;
}
