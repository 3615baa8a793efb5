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
    "voxels form ip dp seed (see cases/case.h for the grammar).\n"
    "\n"
    "options:\n"
    "  --variants LIST  only these variants (comma-separated; `cpu` = cpu.*,\n"
    "                   `mylib:*` = a provider's; globs)\n"
    "  --provider [ALIAS=]PATH  load a kernel provider library (repeatable;\n"
    "                   also SCATTERLAB_PROVIDERS=P1:P2; docs/providers.md):\n"
    "                   its variants run as `<provider>:<name>`\n"
    "  --batch FILE     cases from FILE, one per line (# starts a comment)\n"
    "  --save DIR       write case.txt, inputs <arg>.npy, ref.<out>.npy and\n"
    "                   <variant>.<out>.npy into DIR (one case only): a new\n"
    "                   or empty folder of yours, not a symbolic link\n"
    "  --force          --save into a folder that holds files already\n"
    "                   (not needed for the --load folder itself)\n"
    "  --load DIR       take inputs from DIR/<arg>.npy where present (and the\n"
    "                   case from DIR/case.txt when none is given), laid out\n"
    "                   as the case line says (x=4x3:t: the strides of the\n"
    "                   saved run); repro lines are `run --load DIR`\n"
    "  --threads N      threads for parallel variants (default: all cores)\n"
    "  --max-case-bytes SIZE  most memory a case's tensors may take (inputs\n"
    "                   and two copies of the outputs; 512M, 6G): a bigger\n"
    "                   case is refused before it is allocated (default: a\n"
    "                   quarter of physical memory)\n"
    "  --db PATH        results database (default " SL_DEFAULT_DB " for\n"
    "                   --batch; cases given as arguments or by --load, as\n"
    "                   a pasted repro is, are recorded only with --db)\n"
    "  --no-db          record nothing\n"
    "  --kind KIND      run kind recorded in the store: run (default) or demo\n"
    "  --quiet          print only verdicts that are not passed\n"
    "  --format F       text (default) or json: one JSON document on stdout\n"
    "                   (docs/json.md), the text on stderr\n"
    "  --junit FILE     also write JUnit XML: one test case per failure group\n"
    "                   (docs/fuzzing.md), one for what passed; under\n"
    "                   GitHub Actions the groups are also ::error lines and\n"
    "                   a table appended to $GITHUB_STEP_SUMMARY\n"
    "  --fail-on WHAT   any (default): every failure group makes the exit\n"
    "                   status 1; new: only groups the store (--db) has not\n"
    "                   met in an earlier run (each group is reported new or\n"
    "                   known: first seen in run N, at commit C)\n"
    "  --known FILE     failure groups accepted on purpose, one a line by\n"
    "                   signature id or signature text (# comments): they\n"
    "                   are reported known and never fail the run\n"
    "  --timeout SEC    per-variant time limit (default 60): a variant that\n"
    "                   takes longer gets `timeout`\n"
    "  --tolerance DT=V[,DT=V...]  the tolerance oracle's threshold on diff1\n"
    "                   and diff2 for float dtype DT (f16 bf16 f32 f64 c64\n"
    "                   c128), V in [0, 1]; defaults 1e-2 (f16, bf16), 1e-5\n"
    "                   (f32, c64), 1e-12 (f64, c128); stored with the run\n"
    "  --no-isolate     run kernels in this process instead of a forked\n"
    "                   worker (a crashing kernel then ends the run; for\n"
    "                   debuggers)\n"
    "exit status: 0 all passed, 1 any failed, 2 usage error\n";

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

int sl_cmd_run(int argc, char **argv) {
  return sl_cmd_run_with(argc, argv, "run", NULL);
}

int sl_cmd_run_with(int argc, char **argv, const char *default_kind,
                    sl_run_args_fn args_fn) {
  sl_run_opts o = {0};
  o.rerun_every = 1; /* every passing variant runs twice (rerun.h) */
  const char *db = SL_DEFAULT_DB, *batch = NULL, *kind = default_kind;
  const char *junit = NULL;
  sl_failure_groups groups = {0};
  sl_triage_opts triage = {0, NULL, {0}};
  int no_db = 0, quiet = 0, isolate = 1, json = 0, db_given = 0;
  double timeout_s = 60;
  sl__lines lines = {0};
  sl_tolerances tol = {0};
  int rc = SL_EXIT_USAGE;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      fputs(sl__run_help, stdout);
      sl__lines_free(&lines);
      return SL_EXIT_OK;
    } else if (sl_cli_skip_provider(argc, argv, &i)) {
    } else if (sl_cli_is(a, "--variants")) {
      if (!(o.variants = sl_cli_value("run", argc, argv, &i))) goto out;
    } else if (sl_cli_is(a, "--batch")) {
      if (!(batch = sl_cli_value("run", argc, argv, &i))) goto out;
    } else if (sl_cli_is(a, "--save")) {
      if (!(o.save_dir = sl_cli_value("run", argc, argv, &i))) goto out;
    } else if (strcmp(a, "--force") == 0) {
      o.save_force = 1;
    } else if (sl_cli_is(a, "--load")) {
      if (!(o.load_dir = sl_cli_value("run", argc, argv, &i))) goto out;
    } else if (sl_cli_is(a, "--db")) {
      if (!(db = sl_cli_value("run", argc, argv, &i))) goto out;
      db_given = 1;
    } else if (sl_cli_is(a, "--kind")) {
      if (!(kind = sl_cli_value("run", argc, argv, &i))) goto out;
      if (strcmp(kind, "run") && strcmp(kind, "demo")) {
        sl_cli_usage_error("run", "--kind: expected run or demo, got \"%s\"",
                           kind);
        goto out;
      }
    } else if (sl_cli_is(a, "--threads")) { /* 0: all cores */
      if ((o.threads = (int)sl_cli_threads_option("run", argc, argv, &i)) < 0)
        goto out;
    } else if (sl_cli_is(a, "--timeout")) {
      if ((timeout_s = sl_cli_positive_option("run", argc, argv, &i, 1e6)) < 0)
        goto out;
    } else if (sl_cli_is(a, "--max-case-bytes")) {
      if (sl_cli_bytes_option("run", argc, argv, &i, &o.max_case_bytes))
        goto out;
    } else if (sl_cli_is(a, "--tolerance")) {
      if (sl_tolerance_option("run", argc, argv, &i, &tol)) goto out;
    } else if (strcmp(a, "--no-isolate") == 0) {
      isolate = 0;
    } else if (strcmp(a, "--no-db") == 0) {
      no_db = 1;
    } else if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
      quiet = 1;
    } else if (sl_cli_is(a, "--format")) {
      if (sl_json_format_option("run", argc, argv, &i, &json)) goto out;
    } else if (sl_cli_is(a, "--junit")) {
      if (!(junit = sl_cli_value("run", argc, argv, &i))) goto out;
    } else if (sl_cli_is(a, "--fail-on") || sl_cli_is(a, "--known")) {
      if (sl_triage_option("run", argc, argv, &i, &triage) != 1) goto out;
    } else if (a[0] == '-' && a[1] == '-') {
      sl_cli_usage_error("run", "%s: unknown option", a);
      goto out;
    } else if (args_fn ? args_fn(a, sl__push_line, &lines)
                       : sl__push(&lines, a, NULL)) {
      goto out;
    }
  }
  /* A pasted repro (`scatterlab run 'LINE' --variants V`) writes no store
   * unless asked: only a batch (and import) lands in the default one. */
  const int unrecorded = !db_given && !batch && !args_fn && !no_db;
  if (unrecorded) no_db = 1;
  if (batch && sl__read_batch(batch, &lines)) goto out;
  if (o.load_dir) sl_repro_load(o.load_dir, lines.n > 0);
  if (lines.n == 0 && o.load_dir && sl__read_case_file(o.load_dir, &lines))
    goto out;
  if (lines.n == 0) {
    sl_cli_usage_error("run", "expected a case line, --batch FILE or --load "
                              "DIR; got none");
    goto out;
  }
  if ((o.save_dir || o.load_dir) && lines.n != 1) {
    sl_cli_usage_error("run",
                       "--save/--load: expected exactly one case, got "
                       "%d",
                       lines.n);
    goto out;
  }
  /* Every line is parsed before anything runs: a typo on line 900 of a batch
   * should not cost the first 899 cases' time. */
  sl_case *cases = calloc((size_t)lines.n, sizeof *cases);
  if (!cases) goto out;
  for (int i = 0; i < lines.n; ++i) {
    char err[512];
    if (sl_case_parse(lines.v[i], &cases[i], err, sizeof err)) {
      if (lines.where[i])
        sl_cli_usage_error(default_kind, "%s: %s", lines.where[i], err);
      else
        sl_cli_usage_error("run", "%s", err);
      free(cases);
      goto out;
    }
  }
  if (sl_cli_output_check("run", "--junit", junit, no_db ? NULL : db, argc,
                          argv) ||
      sl_triage_load("run", &triage)) {
    free(cases);
    goto out;
  }
  if (sl_cli_parse_only) {
    free(cases);
    rc = SL_EXIT_OK;
    goto out;
  }
  sl_interrupt_install();
  sl_tolerances_install(&tol); /* before the worker is forked */
  sl_store *st = NULL;
  int64_t run_id = 0;
  if (!no_db) {
    if ((rc = sl_cli_open_store("run", db, 0, &st))) {
      free(cases);
      goto out;
    }
    sl_runinfo_buf ri;
    sl_runinfo_fill(&ri, kind, argc, argv, o.threads);
    char config[600];
    sl_tolerances_config(&tol, config, sizeof config);
    if (sl_store_run_begin(st, &ri.info, &run_id) ||
        (config[0] && sl_store_set_run_config(st, run_id, config))) {
      fprintf(stderr, "scatterlab run: %s\n", sl_store_errmsg(st));
      sl_store_close(st);
      free(cases);
      rc = SL_EXIT_INCOMPLETE;
      goto out;
    }
  }
  int counts[SL_VERDICT_COUNT] = {0}, failed_cases = 0, store_failed = 0;
  int usage_failed = 0, report_failed = 0;
  int judged = 0, recorded = 0; /* cases that ran, and that were committed */
  /* --format json: each case's verdicts are kept in memory as they come,
   * and written in one document at the end (it carries the exit status). */
  FILE *jout = NULL, *jcases = NULL;
  char *jbuf = NULL;
  size_t jlen = 0;
  int jn = 0;
  if (json && (!(jout = sl_json_begin(default_kind)) ||
               !(jcases = open_memstream(&jbuf, &jlen)))) {
    if (jout) fclose(jout);
    jout = NULL;
    store_failed = 1;
  }
  sl_case_result *res = malloc(sizeof *res);
  sl_worker *worker = NULL;
  if (isolate) {
    char err[512];
    if (sl_worker_start(&worker, &o, err, sizeof err)) {
      fprintf(stderr, "scatterlab run: %s\n", err);
      free(res);
      res = NULL;
      usage_failed = 1;
    }
  }
  for (int i = 0; res && i < lines.n && !sl_interrupted(); ++i) {
    char err[512];
    int prc = worker ? sl_worker_run(worker, &cases[i], timeout_s, res, err,
                                     sizeof err)
                     : sl_run_case(&cases[i], &o, res, err, sizeof err);
    if (prc) {
      fprintf(stderr, "scatterlab run: %s\n  case: %s\n", err, lines.v[i]);
      usage_failed = 1;
      continue;
    }
    sl__print_result(res, quiet);
    if (jcases) {
      fputs(jn++ ? ",\n  " : "\n  ", jcases);
      sl_json_case_result(jcases, res);
    }
    for (int k = 0; k < res->n; ++k) ++counts[res->v[k].verdict];
    failed_cases += res->failures > 0;
    if (res->failures &&
        sl__group_failure(worker, &cases[i], res, timeout_s, &groups))
      report_failed = 1; /* out of memory: the groups are incomplete */
    ++judged;
    if (st && !store_failed) {
      /* One short transaction per case (cheap in WAL mode): the write lock
       * is never held while a kernel runs, so other writers of the store
       * are not kept waiting, and an interruption loses nothing. */
      if (sl_store_begin(st) || sl__record(st, run_id, &cases[i], res) ||
          sl_store_commit(st)) {
        fprintf(stderr, "scatterlab run: store: %s\n", sl_store_errmsg(st));
        sl_store_rollback(st);
        store_failed = 1;
      } else {
        ++recorded;
      }
    }
  }
  free(res);
  sl_worker_stop(worker);
  int sig = sl_interrupted();
  /* New or known (the runs before this one), then this run's groups added
   * to the store's memory; after a store failure it is only read. */
  char gerr[1200];
  if (sl_failure_groups_triage(&groups, st, store_failed ? 0 : run_id, &triage,
                               gerr, sizeof gerr)) {
    fprintf(stderr, "scatterlab run: failure groups: %s\n", gerr);
    report_failed = 1;
  }
  if (st) {
    if (sl_store_run_finish(st, run_id, sl_interrupt_run_status(store_failed)))
      fprintf(stderr, "scatterlab run: store: %s\n", sl_store_errmsg(st));
    sl_store_close(st);
  }
  if (sig)
    printf("\ninterrupted by %s: the cases before it are recorded\n",
           strsignal(sig));
  int total = 0;
  for (int k = 0; k < SL_VERDICT_COUNT; ++k) total += counts[k];
  /* Counts of what ran, and of what the store holds when they differ:
   * after a store failure the verdicts are still shown, but only the cases
   * before it were committed (a summary of 3,000 over a store of 6 read as
   * if all were kept). */
  printf("\n%d cases, %d verdicts:", judged, total);
  for (int k = 0; k < SL_VERDICT_COUNT; ++k)
    if (counts[k]) printf(" %d %s", counts[k], sl_verdict_name((sl_verdict)k));
  if (judged < lines.n) printf(" (%d of the %d cases ran)", judged, lines.n);
  printf("\n");
  if (groups.n)
    printf("%d failure group%s (%" PRId64 " failing verdicts):\n", groups.n,
           groups.n == 1 ? "" : "s", groups.cases);
  sl_failure_groups_print_status(&groups, &triage, stdout);
  sl_failure_groups_print(&groups, stdout);
  if (sl_failure_groups_github(&groups, "run", judged, stdout, gerr,
                               sizeof gerr))
    fprintf(stderr, "scatterlab run: %s\n", gerr);
  if (junit && sl_failure_groups_junit(&groups, "run", judged, junit, gerr,
                                       sizeof gerr)) {
    fprintf(stderr, "scatterlab run: --junit: %s\n", gerr);
    report_failed = 1;
  }
  if (!no_db && store_failed)
    printf("results: %s (run %lld, marked failed): only the first %d of "
           "the %d cases are recorded; the store failed (see above)\n",
           db, (long long)run_id, recorded, judged);
  else if (!no_db)
    printf("results: %s (run %lld)\n", db, (long long)run_id);
  else if (unrecorded)
    printf("results: not recorded (cases from the command line; --db PATH "
           "records them)\n");
  free(cases);
  /* A failure found is certain even when the store failed: it wins. Only
   * the groups that fail count (--fail-on new, --known); failing cases
   * that reached no group (out of memory) count as ever. */
  const int fails =
      sl_failure_groups_failing(&groups) > 0 || (groups.n == 0 && failed_cases);
  rc = usage_failed                    ? SL_EXIT_USAGE
       : fails                         ? SL_EXIT_FAIL
       : store_failed || report_failed ? SL_EXIT_INCOMPLETE
                                       : SL_EXIT_OK;
  rc = sl_interrupt_exit_status(rc);
  if (jout) {
    fclose(jcases);
    sl_json_head(jout, default_kind, rc);
    fputs(", \"db\": ", jout);
    sl_json_str(jout, no_db ? NULL : db);
    if (no_db)
      fputs(", \"run_id\": null", jout);
    else
      fprintf(jout, ", \"run_id\": %lld", (long long)run_id);
    fputs(", ", jout);
    sl_tolerances_json(jout);
    fprintf(jout, ", \"cases\": %d, \"counts\": {", judged);
    for (int k = 0; k < SL_VERDICT_COUNT; ++k)
      fprintf(jout, "%s\"%s\": %d", k ? ", " : "",
              sl_verdict_name((sl_verdict)k), counts[k]);
    fprintf(jout,
            "}, \"failure_groups\": %d, \"new_groups\": %d, \"fail_on\": "
            "\"%s\", \"results\": [%s\n]",
            groups.n, sl_failure_groups_new(&groups),
            triage.fail_on_new ? "new" : "any", jbuf ? jbuf : "");
    fputs(", \"groups\": [", jout);
    sl_failure_groups_json(&groups, jout);
    fputs("\n]", jout);
    sl_json_end(jout);
    fclose(jout);
  }
  free(jbuf);
out:
  sl_failure_groups_free(&groups);
  sl_triage_free(&triage);
  sl__lines_free(&lines);
  return rc;
}
