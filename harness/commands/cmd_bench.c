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
#include "bench_table.h"
#include "case.h"
#include "commands.h"
#include "cpu_round_trip.h"
#include "datagen.h"
#include "device.h"
#include "interrupt.h"
#include "json_out.h"
#include "omp_env.h"
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
    "suites (harness/batches/bench-NAME.txt): seed, standard, contention,\n"
    "large; or a FILE of case lines\n"
    "options:\n"
    "  --variants LIST  only these variants: names, globs or devices (cpu,\n"
    "                   cuda); torch.cpu is timed unless LIST selects cuda.*\n"
    "                   variants only\n"
    "  --provider [ALIAS=]PATH  load a kernel provider library (repeatable;\n"
    "                   also SCATTERLAB_PROVIDERS; docs/providers.md)\n"
    "  --threads N      threads for parallel variants and LibTorch (default:\n"
    "                   all cores); OpenMP threads are bound to cores\n"
    "  --max-case-bytes SIZE  most memory a case's tensors may take (512M,\n"
    "                   6G; default: a quarter of physical memory)\n"
    "  --tolerance DT=V[,DT=V...]  the correctness check's threshold on diff1\n"
    "                   and diff2 for float dtype DT (as `run --help` says);\n"
    "                   stored with the run\n"
    "  --budget SEC     timing budget per variant (default 1)\n"
    "  --timeout SEC    time limit of one call (and of building a case;\n"
    "                   default 60): a variant past it is 'timeout'\n"
    "  --min-reps N     at least N timed repetitions per variant (default 7;\n"
    "                   fewer keep suites of large cases short)\n"
    "  --cold           CPU: rotate through enough copies of the inputs to\n"
    "                   defeat the caches (outputs are reused, as an "
    "allocator\n"
    "                   hands LibTorch back the block it freed); CUDA: write "
    "a\n"
    "                   buffer of twice the L2 before every repetition\n"
    "  --no-torch       do not time LibTorch's CUDA op (torch.cuda); the cuda\n"
    "                   rows then have no speed-up\n"
    "  --db PATH        results database (default " SL_DEFAULT_DB ")\n"
    "  --no-db          record nothing\n"
    "  --no-counters    do not read the hardware counters (instructions,\n"
    "                   cycles, cache misses per call, beside each CPU\n"
    "                   timing where the machine has them; one line says\n"
    "                   which, or why there are none)\n"
    "  --format F       text (default) or json: one JSON document on stdout\n"
    "                   at the end (docs/json.md), the text on stderr\n"
    "\n"
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

int sl_cmd_bench(int argc, char **argv) {
  sl__bench_ctx b = {0};
  b.budget = 1.0;
  b.min_reps = 7;
  const char *db = SL_DEFAULT_DB, *suite = NULL;
  int no_db = 0, rc = SL_EXIT_USAGE, n = 0, json = 0, no_counters = 0;
  char **lines = NULL;
  sl_tolerances tol = {0};
  b.workers.timeout_s = 60;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      fputs(sl__bench_help, stdout);
      rc = SL_EXIT_OK;
      goto out;
    } else if (sl_cli_is(a, "--suite")) {
      if (!(suite = sl_cli_value("bench", argc, argv, &i))) goto out;
    } else if (sl_cli_skip_provider(argc, argv, &i)) {
    } else if (sl_cli_is(a, "--variants")) {
      if (!(b.variants = sl_cli_value("bench", argc, argv, &i))) goto out;
    } else if (sl_cli_is(a, "--threads")) { /* 0: all cores */
      if ((b.threads = (int)sl_cli_threads_option("bench", argc, argv, &i)) < 0)
        goto out;
    } else if (sl_cli_is(a, "--max-case-bytes")) {
      if (sl_cli_bytes_option("bench", argc, argv, &i, &b.max_case_bytes))
        goto out;
    } else if (sl_cli_is(a, "--tolerance")) {
      if (sl_tolerance_option("bench", argc, argv, &i, &tol)) goto out;
    } else if (sl_cli_is(a, "--budget")) {
      if ((b.budget = sl_cli_positive_option("bench", argc, argv, &i, 3600)) <
          0)
        goto out;
    } else if (sl_cli_is(a, "--timeout")) {
      if ((b.workers.timeout_s =
               sl_cli_positive_option("bench", argc, argv, &i, 1e6)) < 0)
        goto out;
    } else if (sl_cli_is(a, "--min-reps")) {
      if ((b.min_reps =
               (int)sl_cli_int_option("bench", argc, argv, &i, 1, 100)) < 0)
        goto out;
    } else if (strcmp(a, "--cold") == 0) {
      b.cold = 1;
    } else if (strcmp(a, "--no-torch") == 0) {
      b.no_torch = 1;
    } else if (sl_cli_is(a, "--db")) {
      if (!(db = sl_cli_value("bench", argc, argv, &i))) goto out;
    } else if (strcmp(a, "--no-db") == 0) {
      no_db = 1;
    } else if (strcmp(a, "--no-counters") == 0) {
      no_counters = 1;
    } else if (sl_cli_is(a, "--format")) {
      if (sl_json_format_option("bench", argc, argv, &i, &json)) goto out;
    } else if (a[0] == '-' && a[1] == '-') {
      sl_cli_usage_error("bench", "%s: unknown option", a);
      goto out;
    } else if (sl_bench_lines_push(&lines, &n, a)) {
      goto out;
    }
  }
  sl_case *cases = sl_bench_cases("bench", suite, &lines, &n);
  if (!cases) goto out;
  if (sl_cli_parse_only) {
    free(cases);
    rc = SL_EXIT_OK;
    goto out;
  }
  sl_cli_warn_small_thresholds("bench");
  /* A filter that selects no variant of a case's op is the command line's
   * mistake, said once and before the machine is probed (a cuda filter in
   * a build or machine without CUDA is reported as not timed instead). */
  if (!sl__names_cuda(b.variants))
    for (int i = 0; i < n; ++i) {
      char err[512];
      if (sl_variants_check(b.variants, cases[i].op, err, sizeof err)) {
        free(cases);
        sl_cli_usage_error("bench", "%s", err);
        goto out;
      }
    }
  /* --format json: from here on the text goes to stderr; the cases are
   * kept as they finish and the document written at the end. */
  FILE *jout = NULL;
  char *jbuf = NULL;
  size_t jlen = 0;
  if (json && (!(jout = sl_json_begin("bench")) ||
               !(b.jcases = open_memstream(&jbuf, &jlen)))) {
    free(cases);
    rc = SL_EXIT_INCOMPLETE;
    goto out;
  }
  /* Line by line even into a file: a run cut short by a time limit keeps
   * every table it printed. */
  setvbuf(stdout, NULL, _IOLBF, 0);
#ifdef _OPENMP
  int threads = b.threads > 0 ? b.threads : sl_default_threads();
#else
  int threads = 1;
#endif
  b.threads = threads;
  /* The sides the selection asks for: the CPU (torch.cpu, the CPU probes)
   * unless --variants names cuda.* variants and no other; the device when
   * a cuda.* variant is selected (by default too) and a device is here. */
  int sel_cuda = 0, sel_cpu = 0, cuda_missing = 0;
  for (size_t i = 0; i < sl_hvariant_count(); ++i) {
    const sl_hvariant *v = sl_hvariant_at(i);
    if (!sl_variant_selected(b.variants, v->name)) continue;
    if (sl_variant_device(&v->v) == SL_DEVICE_CUDA)
      sel_cuda = 1;
    else
      sel_cpu = 1;
  }
  const int cuda_asked = b.variants && (sel_cuda || sl__names_cuda(b.variants));
  b.cpu = !cuda_asked || sel_cpu;
  sl_interrupt_install();
  sl_tolerances_install(&tol);
  /* Counts are a CPU matter: a run of cuda.* variants only reads none. */
  sl_bw_info winfo;
  sl_run_opts ro = {0};
  ro.variants = b.variants;
  ro.threads = b.threads;
  ro.max_case_bytes = b.max_case_bytes;
  char werr[512];
  if (sl_bench_workers_start(&b.workers, &ro, b.cpu && !no_counters, &winfo,
                             werr, sizeof werr)) {
    fprintf(stderr, "scatterlab bench: %s\n", werr);
    free(cases);
    rc = SL_EXIT_INCOMPLETE;
    goto out;
  }
  b.counted = b.cpu && winfo.counted;
  if (b.cpu) printf("counters: %s\n", winfo.counters);
  char device[256] = "", no_device[512] = "";
  if ((sel_cuda || cuda_asked) &&
      sl_bw_device(b.workers.timing, device, sizeof device, &b.dev_gbs,
                   no_device, sizeof no_device) == 0)
    b.cuda = 1;
  const sl__probes none = {0, 0};
  const sl__probes start = b.cpu ? sl__probe(b.workers.timing, threads) : none;
  b.peak_gbs = start.gbs;
  char omp[160];
  if (b.cpu)
    printf("threads %d (%s), copy bandwidth %.2f GB/s (fastest 256 MiB "
           "memcpy, read+write)\n",
           threads, sl_omp_env_line(omp, sizeof omp), b.peak_gbs);
  if (start.rtt_ns > 0)
    printf("core-to-core round trip %.0f ns (a cache line between threads 0 "
           "and 1)\n",
           start.rtt_ns);
  if (b.cuda) {
    printf("device %s\ncopy bandwidth %.1f GB/s (256 MiB device-to-device, "
           "read+write)\n",
           device, b.dev_gbs);
  }
  if (cuda_asked && !b.cuda) {
    /* Asked for and not to be had: every cuda row says so, and the run
     * fails; the CPU variants are timed all the same. */
    printf("cuda.* variants: not timed: no device (%s)\n", no_device);
    cuda_missing = 1;
  }
  if (!no_db) {
    if ((rc = sl_cli_open_store("bench", db, 0, &b.st))) {
      free(cases);
      goto out;
    }
    sl_runinfo_buf ri;
    sl_runinfo_fill(&ri, "bench", argc, argv, b.cpu ? threads : 0);
    /* A run with a CPU side keeps the CPU's probe (its end probe is the
     * CPU's too); a cuda-only run the device's, as %peak of its rows. */
    ri.info.copy_gbs = b.cpu ? start.gbs : b.dev_gbs;
    ri.info.core_rtt_ns = start.rtt_ns;
    ri.info.device = b.cuda ? device : NULL;
    char config[600];
    sl_tolerances_config(&tol, config, sizeof config);
    if (sl_store_run_begin(b.st, &ri.info, &b.run_id) ||
        (config[0] && sl_store_set_run_config(b.st, b.run_id, config))) {
      fprintf(stderr, "scatterlab bench: %s\n", sl_store_errmsg(b.st));
      sl_store_close(b.st);
      free(cases);
      rc = SL_EXIT_INCOMPLETE;
      goto out;
    }
  }
  int failed = 0, finished = 0, dropped = 0, unbuilt = 0, store_failed = 0;
  for (int i = 0; cases && i < n && !sl_interrupted(); ++i) {
    /* One transaction per case: a long suite that is interrupted keeps every
     * case it finished, and drops the one in hand. */
    if (b.st) sl_store_begin(b.st);
    const int rows = b.table.n;
    const int case_rc = sl__bench_case(&b, &cases[i]);
    failed |= case_rc > 0;
    unbuilt |= case_rc < 0;
    if (sl_interrupted()) {
      if (b.st) sl_store_rollback(b.st);
      b.table.n = rows; /* its row, if it got one */
      dropped = 1;
      break;
    }
    ++finished;
    if (b.st && sl_store_commit(b.st)) {
      fprintf(stderr, "scatterlab bench: store: %s\n", sl_store_errmsg(b.st));
      store_failed = 1;
    }
  }
  sl_bench_summary_print(&b.table, stdout);
  sl_bench_crossover_print(&b.table, stdout);
  sl_bench_table_free(&b.table);
  failed |= cuda_missing | b.died;
  const int sig = sl_interrupted();
  const sl__probes end =
      !sig && finished > 0 && b.peak_gbs > 0
          ? sl__probe_again(b.workers.timing, &start, threads)
          : none;
  if (b.st) {
    if ((end.gbs > 0 && sl_store_set_copy_gbs_end(b.st, b.run_id, end.gbs)) ||
        (end.rtt_ns > 0 &&
         sl_store_set_core_rtt_end(b.st, b.run_id, end.rtt_ns)))
      fprintf(stderr, "scatterlab bench: store: %s\n", sl_store_errmsg(b.st));
    sl_store_run_finish(
        b.st, b.run_id,
        sl_interrupt_run_status(failed || store_failed || unbuilt));
    sl_store_close(b.st);
    printf("\nresults: %s (run %lld)\n", db, (long long)b.run_id);
  }
  if (sig)
    printf("interrupted by %s: %d of %d cases timed and %s%s\n", strsignal(sig),
           finished, n, b.st ? "recorded" : "shown",
           dropped ? "; the case in hand is dropped" : "");
  free(cases);
  /* As `run`: a case that cannot be built is a usage error (but for the
   * cuda.* variants asked for without a device: a case left with none of
   * them is that failure, 1); a failure found wins over a store that
   * failed. */
  rc = sl_interrupt_exit_status(unbuilt && !cuda_missing ? SL_EXIT_USAGE
                                : unbuilt                ? SL_EXIT_FAIL
                                : failed || b.failing    ? SL_EXIT_FAIL
                                : store_failed           ? SL_EXIT_INCOMPLETE
                                                         : SL_EXIT_OK);
  if (jout) {
    fclose(b.jcases);
    sl_json_head(jout, "bench", rc);
    fputs(", \"db\": ", jout);
    sl_json_str(jout, no_db ? NULL : db);
    if (!no_db)
      fprintf(jout, ", \"run_id\": %lld", (long long)b.run_id);
    else
      fputs(", \"run_id\": null", jout);
    fputs(", ", jout);
    sl_tolerances_json(jout);
    fprintf(jout, ", \"threads\": %d, \"copy_gbs\": ", threads);
    sl_json_num(jout, start.gbs > 0 ? start.gbs : NAN);
    fputs(", \"copy_gbs_end\": ", jout);
    sl_json_num(jout, end.gbs > 0 ? end.gbs : NAN);
    fputs(", \"core_rtt_ns\": ", jout);
    sl_json_num(jout, start.rtt_ns > 0 ? start.rtt_ns : NAN);
    fputs(", \"counters\": ", jout);
    sl_json_str(jout, b.cpu ? winfo.counters : NULL);
    fprintf(jout,
            ", \"cases\": %d, \"timed\": %d, \"failing\": %d, "
            "\"results\": [%s\n]",
            n, finished, b.failing, jbuf ? jbuf : "");
    sl_json_end(jout);
    fclose(jout);
  }
  free(jbuf);
out:
  sl_bench_workers_stop(&b.workers);
  for (int i = 0; i < n; ++i) free(lines[i]);
  free(lines);
  return rc;
}
