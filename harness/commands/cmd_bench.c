/*
 * `scatterlab bench`: time the variants that pass, beside LibTorch. The
 * cpu.* variants (and provider variants of the CPU) in interleaved rounds
 * of wall-clock samples against torch.cpu; the cuda.* variants with CUDA
 * events on the device (device.h) against LibTorch's CUDA op (torch.cuda)
 * and the device-to-device copy bandwidth. One bench for both: what was
 * scatterlab-gpubench is `scatterlab bench --variants cuda`.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "bandwidth.h"
#include "bench_case.h"
#include "bench_generate.h"
#include "bench_table.h"
#include "case.h"
#include "commands.h"
#include "cpu_round_trip.h"
#include "datagen.h"
#include "device.h"
#include "interrupt.h"
#include "json_out.h"
#include "omp_env.h"
#include "options.h"
#include "providers.h"
#include "run_counters.h"
#include "runinfo.h"
#include "runner.h"
#include "sl_report.h"
#include "sl_store.h"
#include "slref.h"
#include "timing.h"
#include "tolerance.h"
#include "variant_call.h"
#include "worker.h"

#ifndef SL_SOURCE_DIR
#define SL_SOURCE_DIR "."
#endif
#include "bench_run.h"

static const char *const sl__bench_help =
    "usage: scatterlab bench [options] [--suite NAME|FILE] ['CASE' ...]\n"
    "\n"
    "Times every variant that passes the case (correct before fast) and\n"
    "LibTorch (torch.cpu) on the same inputs with the same threads: warm-up,\n"
    "then repetitions until IQR/median < 2% or the budget is spent, taken in\n"
    "interleaved rounds so that every contender samples the same stretch of\n"
    "a machine whose load drifts. Reports\n"
    "median, IQR, GB/s of the op's useful bytes (each input read once, each\n"
    "output written once), % of the copy bandwidth measured in the same run,\n"
    "and the speed-up over LibTorch. Raw samples go to the store. A variant\n"
    "that fails its check is 'not timed: failed' and the exit status is 1\n"
    "(README, \"Exit statuses\"). Every kernel and LibTorch call runs in\n"
    "a forked worker: a variant that crashes, aborts, calls exit() or\n"
    "passes --timeout, in its check or in the timing, is 'not timed:\n"
    "crashed' (or timeout), the other variants are timed all the same, and\n"
    "the exit status is 1.\n"
    "\n"
    "cuda.* variants (selected by default where a device is, or with\n"
    "--variants cuda, cpu,cuda, cuda.atomic, ...) are timed on the device\n"
    "with CUDA events, after LibTorch's CUDA op on the same inputs\n"
    "(torch.cuda): their 'vs torch' is the speed-up over torch.cuda, their\n"
    "%peak is against the device-to-device copy bandwidth, probed once and\n"
    "printed with the device's name. A --variants list that selects cuda.*\n"
    "variants only times no CPU contender (not torch.cpu either). When\n"
    "--variants names cuda.* variants and there is no CUDA device (or the\n"
    "build has no CUDA), they are reported 'not timed: ... no device', any\n"
    "CPU variants are timed as usual, and the exit status is 1.\n"
    "\n"
    "The cases: the case lines given as arguments, then those of --suite.\n";

static const char *const sl__bench_help_after =
    "SIGINT / SIGTERM stop the timing at the next call (cuda.*: the next\n"
    "variant), drop the case in hand\n"
    "(its samples stop short), print the summary of the cases before it,\n"
    "which the store keeps, mark the run interrupted and exit 130 / 143.\n";

/* Whether a --variants filter names the cuda device ("cuda", "cuda.lock",
 * "cuda.*", "mylib:cuda.min"), whether or not this build has such
 * variants. */
static int sl__names_cuda(const char *filter) {
  for (const char *p = filter; p && *p;) {
    size_t k = strcspn(p, ",");
    const char *colon = memchr(p, ':', k);
    const char *item = colon ? colon + 1 : p;
    size_t m = k - (size_t)(item - p);
    if (m >= 4 && strncmp(item, "cuda", 4) == 0 && (m == 4 || item[4] == '.'))
      return 1;
    p += k;
    if (*p == ',') ++p;
  }
  return 0;
}

/* One bench command: its options, cases, sides, probes and tallies. */
typedef struct sl__bench_cmd {
  sl__bench_ctx b;
  sl_options opt;
  const char *db;
  int no_db, json, no_counters, n;
  char **lines;
  sl_case *cases;
  sl_tolerances tol;
  int sel_cuda, cuda_asked, cuda_missing;
  sl_bw_info winfo;
  char device[256], no_device[512];
  sl__probes start, end;
  int failed, finished, dropped, unbuilt, store_failed;
  int generated; /* --generate: the cases are the generator's */
  char *jshrunk; /* --shrink with --format json: its part of the document */
  size_t jshrunk_len;
  /* --format json: the document's stream and the cases' text */
  FILE *jout;
  char *jbuf;
  size_t jlen;
} sl__bench_cmd;

/* --generate N: the generator's case lines. The default --sizes, 1 MiB to
 * 64 MiB: past the level-2 caches of most machines and far above the
 * timer's resolution, and a few seconds a case for the slowest variants on
 * two cores. 0 or SL_EXIT_USAGE. */
static int sl__bench_generated(sl__bench_cmd *c) {
  const sl_options *o = &c->opt;
  sl_bench_gen g = {0};
  g.n = o->v[SL_OPT_GENERATE].n;
  g.seed = (uint64_t)o->v[SL_OPT_BENCH_SEED].n;
  g.variants = c->b.variants;
  char err[512];
  if (sl_bench_gen_sizes(&g, sl_opt_text(o, SL_OPT_SIZES), err, sizeof err))
    return sl_cli_usage_error("bench", "--sizes: %s", err);
  if (sl_bench_generate(&g, &c->lines, &c->n, err, sizeof err))
    return sl_cli_usage_error("bench", "--generate: %s", err);
  fprintf(stderr,
          "bench: %lld generated cases (seed %llu, inputs of %s; %lld "
          "drawn)\n",
          (long long)g.kept, (unsigned long long)g.seed,
          sl_opt_text(o, SL_OPT_SIZES), (long long)g.drawn);
  c->generated = 1;
  return 0;
}

/* --stop-slower X|off into b->outpaced (0: off). By default 3 with
 * --generate, whose hundreds of cases draw contenders 10-100x apart (the
 * lock-based variants beside the atomic ones, LibTorch beside a best
 * variant 20x faster), else off: a suite's rows keep every repetition.
 * 0 or SL_EXIT_USAGE. */
static int sl__bench_outpaced(sl__bench_cmd *c) {
  const char *text = sl_opt_text(&c->opt, SL_OPT_STOP_SLOWER);
  c->b.outpaced = c->generated && !text ? 3 : 0;
  if (!text || !strcmp(text, "off")) return 0;
  char *end;
  const double x = strtod(text, &end);
  if (end != text && !*end && x > 1 && x <= 1e6) {
    c->b.outpaced = x;
    return 0;
  }
  return sl_cli_usage_error("bench",
                            "--stop-slower: expected a factor in (1, 1e6] or "
                            "off, got \"%s\"",
                            text);
}

/* --shard K/N: cases K, K+N, ... of the list kept (their lines and parsed
 * cases), the others' lines freed. 0 or SL_EXIT_USAGE. */
static int sl__bench_shard(sl__bench_cmd *c) {
  const char *text = sl_opt_text(&c->opt, SL_OPT_BENCH_SHARD);
  int k, n, kept = 0;
  if (!text) return 0;
  if (sl_cli_shard("bench", text, 1, &k, &n)) return SL_EXIT_USAGE;
  for (int i = 0; i < c->n; ++i) {
    if (i % n != k) {
      free(c->lines[i]);
      continue;
    }
    c->lines[kept] = c->lines[i];
    c->cases[kept++] = c->cases[i];
  }
  const int all = c->n;
  c->n = kept;
  if (!kept)
    return sl_cli_usage_error("bench",
                              "--shard %s: expected a shard with cases, got "
                              "none of the %d cases",
                              text, all);
  fprintf(stderr,
          "bench: shard %s: %d of the %d cases (from case %d, one in %d)\n",
          text, kept, all, k + 1, n);
  return 0;
}

/* The option values into c and the cases; 0 or SL_EXIT_USAGE. */
static int sl__bench_options(sl__bench_cmd *c) {
  const sl_options *o = &c->opt;
  sl__bench_ctx *b = &c->b;
  b->variants = sl_opt_text(o, SL_OPT_VARIANTS);
  b->threads = (int)o->v[SL_OPT_THREADS].n;
  b->max_case_bytes = o->v[SL_OPT_MAX_CASE_BYTES].bytes;
  b->budget = o->v[SL_OPT_BENCH_BUDGET].x;
  b->workers.timeout_s = o->v[SL_OPT_BENCH_TIMEOUT].x;
  b->min_reps = (int)o->v[SL_OPT_MIN_REPS].n;
  b->retime = (int)o->v[SL_OPT_RETIME].n;
  b->cold = sl_opt_on(o, SL_OPT_COLD);
  b->no_torch = sl_opt_on(o, SL_OPT_NO_TORCH);
  c->db = sl_opt_text(o, SL_OPT_DB);
  c->no_db = sl_opt_on(o, SL_OPT_NO_DB);
  c->no_counters = sl_opt_on(o, SL_OPT_NO_COUNTERS);
  c->json = o->v[SL_OPT_FORMAT].n == 1;
  const char *tol = sl_opt_text(o, SL_OPT_TOLERANCE);
  if (tol && sl_tolerances_parse(&c->tol, "bench", tol)) return SL_EXIT_USAGE;
  for (int i = 0; i < o->nwords; ++i)
    if (sl_bench_lines_push(&c->lines, &c->n, o->words[i]))
      return SL_EXIT_USAGE;
  if (o->v[SL_OPT_GENERATE].given && sl__bench_generated(c))
    return SL_EXIT_USAGE;
  c->cases =
      sl_bench_cases("bench", sl_opt_text(o, SL_OPT_SUITE), &c->lines, &c->n);
  if (!c->cases || sl__bench_outpaced(c) || sl__bench_shard(c))
    return SL_EXIT_USAGE;
  return 0;
}

/* A filter that selects no variant of a case's op is the command line's
 * mistake, said once and before the machine is probed (a cuda filter in a
 * build or machine without CUDA is reported as not timed instead). */
static int sl__bench_check_variants(const sl__bench_cmd *c) {
  if (sl__names_cuda(c->b.variants)) return 0;
  for (int i = 0; i < c->n; ++i) {
    char err[512];
    if (sl_variants_check(c->b.variants, c->cases[i].op, err, sizeof err))
      return sl_cli_usage_error("bench", "%s", err);
  }
  return 0;
}

/* The sides the selection asks for: the CPU (torch.cpu, the CPU probes)
 * unless --variants names cuda.* variants and no other; the device when a
 * cuda.* variant is selected (by default too) and a device is here. */
static void sl__bench_sides(sl__bench_cmd *c) {
  int sel_cpu = 0;
  for (size_t i = 0; i < sl_hvariant_count(); ++i) {
    const sl_hvariant *v = sl_hvariant_at(i);
    if (!sl_variant_selected(c->b.variants, v->name)) continue;
    if (sl_variant_device(&v->v) == SL_DEVICE_CUDA)
      c->sel_cuda = 1;
    else
      sel_cpu = 1;
  }
  c->cuda_asked =
      c->b.variants && (c->sel_cuda || sl__names_cuda(c->b.variants));
  c->b.cpu = !c->cuda_asked || sel_cpu;
#ifdef _OPENMP
  c->b.threads = c->b.threads > 0 ? c->b.threads : sl_default_threads();
#else
  c->b.threads = 1;
#endif
}

/* The probes' lines: threads and copy bandwidth, round trip, device. */
static void sl__bench_print_probes(const sl__bench_cmd *c) {
  const sl__bench_ctx *b = &c->b;
  char omp[160];
  if (b->cpu)
    printf("threads %d (%s), copy bandwidth %.2f GB/s (fastest 256 MiB "
           "memcpy, read+write)\n",
           b->threads, sl_omp_env_line(omp, sizeof omp), b->peak_gbs);
  if (c->start.rtt_ns > 0)
    printf("core-to-core round trip %.0f ns (a cache line between threads 0 "
           "and 1)\n",
           c->start.rtt_ns);
  if (b->cuda)
    printf("device %s\ncopy bandwidth %.1f GB/s (256 MiB device-to-device, "
           "read+write)\n",
           c->device, b->dev_gbs);
}

/* The timing worker started and the machine probed; 0 or
 * SL_EXIT_INCOMPLETE. Counts are a CPU matter: a run of cuda.* variants
 * only reads none. */
static int sl__bench_start(sl__bench_cmd *c) {
  sl__bench_ctx *b = &c->b;
  sl_run_opts ro = {0};
  ro.variants = b->variants;
  ro.threads = b->threads;
  ro.max_case_bytes = b->max_case_bytes;
  char werr[512];
  if (sl_bench_workers_start(&b->workers, &ro, b->cpu && !c->no_counters,
                             &c->winfo, werr, sizeof werr)) {
    fprintf(stderr, "scatterlab bench: %s\n", werr);
    return SL_EXIT_INCOMPLETE;
  }
  b->counted = b->cpu && c->winfo.counted;
  if (b->cpu) printf("counters: %s\n", c->winfo.counters);
  if ((c->sel_cuda || c->cuda_asked) &&
      sl_bw_device(b->workers.timing, c->device, sizeof c->device, &b->dev_gbs,
                   c->no_device, sizeof c->no_device) == 0)
    b->cuda = 1;
  if (b->cpu) c->start = sl__probe(b->workers.timing, b->threads);
  b->peak_gbs = c->start.gbs;
  sl__bench_print_probes(c);
  if (c->cuda_asked && !b->cuda) {
    /* Asked for and not to be had: every cuda row says so, and the run
     * fails; the CPU variants are timed all the same. */
    printf("cuda.* variants: not timed: no device (%s)\n", c->no_device);
    c->cuda_missing = 1;
  }
  return 0;
}

/* The store's run, with the probes: a run with a CPU side keeps the CPU's
 * probe (its end probe is the CPU's too); a cuda-only run the device's, as
 * %peak of its rows. 0 or an exit status. */
static int sl__bench_begin(sl__bench_cmd *c, int argc, char **argv) {
  sl__bench_ctx *b = &c->b;
  if (c->no_db) return 0;
  int rc = sl_cli_open_store("bench", c->db, 0, &b->st);
  if (rc) return rc;
  sl_runinfo_buf ri;
  sl_runinfo_fill(&ri, "bench", argc, argv, b->cpu ? b->threads : 0);
  ri.info.copy_gbs = b->cpu ? c->start.gbs : b->dev_gbs;
  ri.info.core_rtt_ns = c->start.rtt_ns;
  ri.info.device = b->cuda ? c->device : NULL;
  char config[600];
  sl_tolerances_config(&c->tol, config, sizeof config);
  if (sl_store_run_begin(b->st, &ri.info, &b->run_id) ||
      (config[0] && sl_store_set_run_config(b->st, b->run_id, config))) {
    fprintf(stderr, "scatterlab bench: %s\n", sl_store_errmsg(b->st));
    sl_store_close(b->st);
    b->st = NULL;
    return SL_EXIT_INCOMPLETE;
  }
  return 0;
}

/* Every case, one transaction each: a long suite that is interrupted keeps
 * every case it finished, and drops the one in hand. */
static void sl__bench_all(sl__bench_cmd *c) {
  sl__bench_ctx *b = &c->b;
  for (int i = 0; i < c->n && !sl_interrupted(); ++i) {
    if (b->st) sl_store_begin(b->st);
    const int rows = b->table.n;
    const int case_rc = sl__bench_case(b, &c->cases[i]);
    c->failed |= case_rc > 0;
    c->unbuilt |= case_rc < 0;
    if (sl_interrupted()) {
      if (b->st) sl_store_rollback(b->st);
      b->table.n = rows; /* its row, if it got one */
      c->dropped = 1;
      break;
    }
    ++c->finished;
    if (b->st && sl_store_commit(b->st)) {
      fprintf(stderr, "scatterlab bench: store: %s\n", sl_store_errmsg(b->st));
      c->store_failed = 1;
    }
  }
}

/* The closing tables, the probes again, the run closed. */
static void sl__bench_finish(sl__bench_cmd *c) {
  sl__bench_ctx *b = &c->b;
  sl_bench_summary_print(&b->table, stdout);
  sl_bench_crossover_print(&b->table, stdout);
  if (c->generated) sl_bench_ranking_print(&b->table, stdout);
  if (b->outpaced_n)
    printf("\n%d row%s with reps N* stopped short: the contender's fastest "
           "repetition was more than %g times the fastest contender's median "
           "(--stop-slower)\n",
           b->outpaced_n, b->outpaced_n == 1 ? "" : "s", b->outpaced);
  if (b->retimed_n)
    printf("\n%d case%s timed again: the speed-up's timings scattered, an "
           "IQR above half its median (--retime)\n",
           b->retimed_n, b->retimed_n == 1 ? "" : "s");
  if (sl_opt_on(&c->opt, SL_OPT_SHRINK) && !sl_interrupted()) {
    FILE *j = c->jout ? open_memstream(&c->jshrunk, &c->jshrunk_len) : NULL;
    sl__bench_shrink(b, j);
    if (j) fclose(j);
  }
  c->failed |= c->cuda_missing | b->died;
  const int sig = sl_interrupted();
  if (!sig && c->finished > 0 && b->peak_gbs > 0)
    c->end = sl__probe_again(b->workers.timing, &c->start, b->threads);
  if (b->st) {
    if ((c->end.gbs > 0 &&
         sl_store_set_copy_gbs_end(b->st, b->run_id, c->end.gbs)) ||
        (c->end.rtt_ns > 0 &&
         sl_store_set_core_rtt_end(b->st, b->run_id, c->end.rtt_ns)))
      fprintf(stderr, "scatterlab bench: store: %s\n", sl_store_errmsg(b->st));
    sl_store_run_finish(
        b->st, b->run_id,
        sl_interrupt_run_status(c->failed || c->store_failed || c->unbuilt));
    sl_store_close(b->st);
    printf("\nresults: %s (run %lld)\n", c->db, (long long)b->run_id);
  }
  if (sig)
    printf("interrupted by %s: %d of %d cases timed and %s%s\n", strsignal(sig),
           c->finished, c->n, b->st ? "recorded" : "shown",
           c->dropped ? "; the case in hand is dropped" : "");
}

/* As `run`: a case that cannot be built is a usage error (but for the
 * cuda.* variants asked for without a device: a case left with none of
 * them is that failure, 1); a failure found wins over a store that
 * failed. */
static int sl__bench_status(const sl__bench_cmd *c) {
  return sl_interrupt_exit_status(c->unbuilt && !c->cuda_missing ? SL_EXIT_USAGE
                                  : c->unbuilt                   ? SL_EXIT_FAIL
                                  : c->failed || c->b.failing    ? SL_EXIT_FAIL
                                  : c->store_failed ? SL_EXIT_INCOMPLETE
                                                    : SL_EXIT_OK);
}

/* --generate's ranking in the JSON document: every case with its best CPU
 * variant's speed-up over torch.cpu, worst first. */
static void sl__bench_ranking_json(const sl_bench_table *t, FILE *j) {
  int n;
  sl_bench_ranked *v = sl_bench_rank(t, NULL, &n);
  fputs(", \"ranking\": [", j);
  for (int i = 0; v && i < n; ++i) {
    fputs(i ? ",\n  {\"case\": " : "\n  {\"case\": ", j);
    sl_json_str(j, v[i].row->line);
    fputs(", \"best\": ", j);
    sl_json_str(j, v[i].cell->variant);
    fputs(", \"speedup\": ", j);
    sl_json_num(j, v[i].speedup);
    fputs("}", j);
  }
  fputs(v ? "\n]" : "]", j);
  free(v);
}

/* --format json: the document, carrying the exit status. */
static void sl__bench_json(sl__bench_cmd *c, int rc) {
  FILE *j = c->jout;
  fclose(c->b.jcases);
  sl_json_head(j, "bench", rc);
  fputs(", \"db\": ", j);
  sl_json_str(j, c->no_db ? NULL : c->db);
  if (!c->no_db)
    fprintf(j, ", \"run_id\": %lld", (long long)c->b.run_id);
  else
    fputs(", \"run_id\": null", j);
  fputs(", ", j);
  sl_tolerances_json(j);
  fprintf(j, ", \"threads\": %d, \"copy_gbs\": ", c->b.threads);
  sl_json_num(j, c->start.gbs > 0 ? c->start.gbs : NAN);
  fputs(", \"copy_gbs_end\": ", j);
  sl_json_num(j, c->end.gbs > 0 ? c->end.gbs : NAN);
  fputs(", \"core_rtt_ns\": ", j);
  sl_json_num(j, c->start.rtt_ns > 0 ? c->start.rtt_ns : NAN);
  fputs(", \"counters\": ", j);
  sl_json_str(j, c->b.cpu ? c->winfo.counters : NULL);
  fprintf(j,
          ", \"cases\": %d, \"timed\": %d, \"failing\": %d, "
          "\"results\": [%s\n]",
          c->n, c->finished, c->b.failing, c->jbuf ? c->jbuf : "");
  if (c->generated) sl__bench_ranking_json(&c->b.table, j);
  if (c->jshrunk) fputs(c->jshrunk, j);
  sl_json_end(j);
  fclose(j);
}

/* Probes, store, cases, summary; returns the exit status. --format json:
 * from here on the text goes to stderr; the cases are kept as they finish
 * and the document written at the end. */
static int sl__bench_go(sl__bench_cmd *c, int argc, char **argv) {
  sl_cli_warn_small_thresholds("bench");
  if (c->json && (!(c->jout = sl_json_begin("bench")) ||
                  !(c->b.jcases = open_memstream(&c->jbuf, &c->jlen))))
    return SL_EXIT_INCOMPLETE;
  /* Line by line even into a file: a run cut short by a time limit keeps
   * every table it printed. */
  setvbuf(stdout, NULL, _IOLBF, 0);
  sl__bench_sides(c);
  sl_interrupt_install();
  sl_tolerances_install(&c->tol);
  int rc = sl__bench_start(c);
  if (!rc) rc = sl__bench_begin(c, argc, argv);
  if (rc) return rc;
  sl__bench_all(c);
  sl__bench_finish(c);
  rc = sl__bench_status(c);
  if (c->jout) sl__bench_json(c, rc);
  return rc;
}

int sl_cmd_bench(int argc, char **argv) {
  static const sl_command_help help = {SL_CMD_BENCH, sl__bench_help,
                                       sl__bench_help_after, NULL};
  static sl__bench_cmd c; /* large; one a process */
  memset(&c, 0, sizeof c);
  int rc = sl_options_parse(&help, argc, argv, &c.opt);
  if (!rc && (sl__bench_options(&c) || sl__bench_check_variants(&c)))
    rc = SL_EXIT_USAGE;
  if (rc == SL_OPTIONS_HELP || (!rc && sl_cli_parse_only))
    rc = SL_EXIT_OK;
  else if (!rc)
    rc = sl__bench_go(&c, argc, argv);
  sl_bench_table_free(&c.b.table);
  free(c.jbuf);
  free(c.jshrunk);
  free(c.cases);
  sl_bench_workers_stop(&c.b.workers);
  for (int i = 0; i < c.n; ++i) free(c.lines[i]);
  free(c.lines);
  sl_options_free(&c.opt);
  return rc;
}
