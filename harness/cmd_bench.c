/* `scatterlab bench`: time the variants that pass, beside LibTorch. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "bandwidth.h"
#include "bench_table.h"
#include "case.h"
#include "cli.h"
#include "datagen.h"
#include "runinfo.h"
#include "runner.h"
#include "sl_store.h"
#include "slref.h"
#include "timing.h"

#ifndef SL_SOURCE_DIR
#define SL_SOURCE_DIR "."
#endif

static const char *const sl__bench_help =
    "usage: scatterlab bench [options] [--suite NAME|FILE] ['CASE' ...]\n"
    "\n"
    "Times every variant that passes the case (correct before fast) and\n"
    "LibTorch (torch.cpu) on the same inputs with the same threads: warm-up,\n"
    "then repetitions until IQR/median < 2% or the budget is spent. Reports\n"
    "median, IQR, GB/s of the op's useful bytes (each input read once, each\n"
    "output written once), %% of the copy bandwidth measured in the same run,\n"
    "and the speed-up over LibTorch. Raw samples go to the store.\n"
    "\n"
    "suites (harness/batches/bench-NAME.txt): seed, standard, contention,\n"
    "large; or a FILE of case lines\n"
    "options:\n"
    "  --variants LIST  only these variants (torch.cpu is always timed)\n"
    "  --threads N      threads for parallel variants and LibTorch (default:\n"
    "                   all cores); OpenMP threads are bound to cores\n"
    "  --budget SEC     timing budget per variant (default 1)\n"
    "  --min-reps N     at least N timed repetitions per variant (default 7;\n"
    "                   fewer keep suites of large cases short)\n"
    "  --cold           rotate through enough copies of the inputs to defeat\n"
    "                   the caches\n"
    "  --db PATH        results database (default " SL_DEFAULT_DB ")\n"
    "  --no-db          record nothing\n";

typedef struct sl__timed {
  sl_ctx ctx;
  const char *variant;
  sl_call *calls;
  int ncalls;
} sl__timed;

static int sl__run_once(void *user, int rep) {
  sl__timed *t = user;
  sl_call c = t->calls[rep < 0 ? 0 : rep % t->ncalls];
  return sl_run(&t->ctx, t->variant, &c) != SL_STATUS_OK;
}

static int64_t sl__bytes_of(const sl_tensor *t) {
  int64_t n = 1;
  for (int d = 0; d < t->ndim; ++d) n *= t->shape[d];
  return n * (int64_t)sl_dtype_size(t->dtype);
}

/* Useful bytes: each input read once, each output (as the reference shapes
 * it: dynamic_scatter's M rows) written once. */
static int64_t sl__useful_bytes(const sl_call *call, const sl_tensor *ref) {
  const sl_op_info *info = sl_op_get(call->op);
  int64_t b = 0;
  for (int s = 0; s < info->n_in; ++s)
    if (call->arg[s].data) b += sl__bytes_of(&call->arg[s]);
  for (int s = 0; s < info->n_out; ++s) b += sl__bytes_of(&ref[s]);
  return b;
}

/* Output buffers for one call (shapes from sl_infer); 0 or -1. */
static int sl__alloc_outputs(sl_call *c, void **mem) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  if (sl_infer(&ctx, c)) return -1;
  const sl_op_info *info = sl_op_get(c->op);
  for (int s = info->n_in; s < info->n_in + info->n_out; ++s) {
    int64_t bytes = sl__bytes_of(&c->arg[s]);
    mem[s] = calloc(1, bytes > 0 ? (size_t)bytes : 16);
    if (!mem[s]) return -1;
    c->arg[s].data = mem[s];
  }
  return 0;
}

typedef struct sl__bench_ctx {
  sl_store *st;
  int64_t run_id;
  int threads, cold, min_reps;
  double budget, peak_gbs;
  const char *variants;
  sl_bench_table table; /* every timing, for the closing tables */
} sl__bench_ctx;

static void sl__print_row(const char *variant, const sl_timing *t,
                          int64_t bytes, double peak, double torch_median) {
  double gbs = (double)bytes / t->median_s / 1e9;
  char vs[32] = "-";
  if (torch_median > 0)
    snprintf(vs, sizeof vs, "%.2fx", torch_median / t->median_s);
  printf("  %-12s %11.4f ms %6.1f%% %9.2f %7.1f%% %9s %5d\n", variant,
         t->median_s * 1e3, 100.0 * t->iqr_s / t->median_s, gbs,
         peak > 0 ? 100.0 * gbs / peak : 0.0, vs, t->reps);
}

static int sl__store_timing(sl__bench_ctx *b, int64_t case_id,
                            const char *variant, const sl_timing *t,
                            int64_t bytes) {
  if (!b->st) return 0;
  double gbs = (double)bytes / t->median_s / 1e9;
  sl_timing_row row = {
      variant,  b->threads,  t->reps,
      b->cold,  t->median_s, t->iqr_s,
      t->min_s, gbs,         b->peak_gbs > 0 ? 100.0 * gbs / b->peak_gbs : -1,
      bytes,    t->samples,  t->reps};
  int64_t id;
  return sl_store_add_timing(b->st, case_id, &row, &id);
}

/* Keeps a timing for the closing tables (row may be NULL: out of memory). */
static void sl__table_set(sl__bench_ctx *b, sl_bench_row *row,
                          const char *variant, const sl_timing *t,
                          int64_t bytes) {
  if (!row) return;
  double gbs = (double)bytes / t->median_s / 1e9;
  sl_bench_row_set(row, variant, t->median_s, gbs,
                   b->peak_gbs > 0 ? 100.0 * gbs / b->peak_gbs : -1);
}

/* Correctness first (every variant through the reference), then timings of
 * the variants that passed, then LibTorch. */
static int sl__bench_case(sl__bench_ctx *b, const sl_case *c0) {
  char err[512];
  static sl_case_result res;
  sl_run_opts ro = {0};
  ro.variants = b->variants;
  ro.threads = b->threads;
  if (sl_run_case(c0, &ro, &res, err, sizeof err)) {
    fprintf(stderr, "scatterlab bench: %s\n", err);
    return -1;
  }
  sl_case c;
  sl_bundle in;
  if (sl_prepare_case(c0, NULL, &c, &in, err, sizeof err)) {
    fprintf(stderr, "scatterlab bench: %s\n", err);
    return -1;
  }
  sl_tensor ref[SL_MAX_ARGS];
  memset(ref, 0, sizeof ref);
  char msg[512];
  int rrc = slref_run(&in.call, ref, msg, sizeof msg);
  int64_t bytes = rrc == 0 ? sl__useful_bytes(&in.call, ref) : 0;
  for (int s = 0; s < SL_MAX_ARGS; ++s) free(ref[s].data);
  printf("\n%s\n  useful bytes %.3f MB\n", res.line, (double)bytes / 1e6);
  sl_bench_row *row = sl_bench_table_add(&b->table, &c, res.line);
  int64_t case_id = 0;
  if (b->st) {
    sl_store_add_case(b->st, b->run_id, sl_op_name(c.op), res.line, c.seed, 0,
                      &case_id);
    for (int i = 0; i < res.n; ++i) {
      const sl_variant_result *r = &res.v[i];
      sl_result_row row = {r->variant, sl_verdict_name(r->verdict),
                           r->message, r->has_diffs,
                           r->diff1,   r->diff2,
                           r->diff3,   r->seconds};
      sl_store_add_result(b->st, case_id, &row);
    }
  }
  if (rrc != 0) {
    printf("  LibTorch rejects this case (%s): nothing to time\n", msg);
    sl_bundle_free(&in);
    return 0;
  }
  /* LibTorch first, so every row can show its speed-up. */
  static sl_timing torch;
  int reps = 0;
  /* One warm-up run, discarded, as the variants get theirs (LibTorch's
   * thread pool and allocator start on the first call). */
  int torch_ok =
      slref_time(&in.call, b->threads, 1, torch.samples, msg, sizeof msg) == 0;
  if (!torch_ok) printf("  torch.cpu: %s\n", msg);
  double t0 = sl_now();
  while (torch_ok && reps < SL_TIMING_MAX_SAMPLES &&
         (reps < b->min_reps || sl_now() - t0 < b->budget)) {
    int k = reps < b->min_reps ? b->min_reps - reps : 8;
    if (slref_time(&in.call, b->threads, k, torch.samples + reps, msg,
                   sizeof msg)) {
      printf("  torch.cpu: %s\n", msg);
      break;
    }
    reps += k;
    if (reps + 8 > SL_TIMING_MAX_SAMPLES) break;
  }
  double torch_median = 0;
  if (reps > 0) {
    double q1, q3;
    torch.reps = reps;
    sl_quartiles(torch.samples, reps, &q1, &torch.median_s, &q3);
    torch.iqr_s = q3 - q1;
    torch.min_s = torch.samples[0];
    for (int i = 1; i < reps; ++i)
      if (torch.samples[i] < torch.min_s) torch.min_s = torch.samples[i];
    torch_median = torch.median_s;
  }
  printf("  %-12s %14s %7s %9s %8s %9s %5s\n", "variant", "median", "IQR",
         "GB/s", "%peak", "vs torch", "reps");
  if (reps > 0) {
    sl__print_row("torch.cpu", &torch, bytes, b->peak_gbs, torch_median);
    sl__store_timing(b, case_id, "torch.cpu", &torch, bytes);
    sl__table_set(b, row, "torch.cpu", &torch, bytes);
  }
  /* --cold: enough copies of inputs and outputs to exceed any cache. */
  int copies = 1;
  if (b->cold && bytes > 0) {
    int64_t want = (int64_t)512 << 20;
    copies = (int)(want / bytes) + 1;
    if (copies > 64) copies = 64;
  }
  for (int i = 0; i < res.n; ++i) {
    const sl_variant_result *r = &res.v[i];
    if (r->verdict != SL_VERDICT_PASSED &&
        r->verdict != SL_VERDICT_MISTRUSTED) {
      printf("  %-12s not timed: %s\n", r->variant,
             sl_verdict_name(r->verdict));
      continue;
    }
    sl__timed t;
    sl_ctx_init(&t.ctx);
    t.ctx.threads = b->threads;
    t.variant = r->variant;
    t.ncalls = copies;
    t.calls = calloc((size_t)copies, sizeof(sl_call));
    void **mem = calloc((size_t)copies * SL_MAX_ARGS, sizeof(void *));
    int ok = t.calls && mem;
    for (int k = 0; ok && k < copies; ++k) {
      t.calls[k] = in.call;
      const sl_op_info *info = sl_op_get(in.call.op);
      for (int s = 0; k > 0 && s < info->n_in; ++s) {
        /* Cold copies of the inputs: same values, other addresses. */
        if (!in.call.arg[s].data || !in.bytes[s]) continue;
        mem[k * SL_MAX_ARGS + s] = malloc(in.bytes[s]);
        if (!mem[k * SL_MAX_ARGS + s]) {
          ok = 0;
          break;
        }
        memcpy(mem[k * SL_MAX_ARGS + s], in.mem[s], in.bytes[s]);
        t.calls[k].arg[s].data = mem[k * SL_MAX_ARGS + s];
      }
      if (ok) ok = sl__alloc_outputs(&t.calls[k], mem + k * SL_MAX_ARGS) == 0;
    }
    static sl_timing tm;
    sl_timing_opts o;
    sl_timing_opts_init(&o);
    o.budget_s = b->budget;
    o.min_reps = b->min_reps;
    if (!ok)
      printf("  %-12s not timed: out of memory\n", r->variant);
    else if (sl_time(sl__run_once, &t, &o, &tm))
      printf("  %-12s not timed: %s\n", r->variant, sl_ctx_message(&t.ctx));
    else {
      sl__print_row(r->variant, &tm, bytes, b->peak_gbs, torch_median);
      sl__store_timing(b, case_id, r->variant, &tm, bytes);
      sl__table_set(b, row, r->variant, &tm, bytes);
    }
    for (int k = 0; mem && k < copies * SL_MAX_ARGS; ++k) free(mem[k]);
    free(mem);
    free(t.calls);
  }
  sl_bundle_free(&in);
  return 0;
}

int sl_cmd_bench(int argc, char **argv) {
  sl__bench_ctx b = {0};
  b.budget = 1.0;
  b.min_reps = 7;
  const char *db = SL_DEFAULT_DB, *suite = NULL, *v;
  int no_db = 0, rc = SL_EXIT_USAGE, n = 0;
  char **lines = NULL;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      fputs(sl__bench_help, stdout);
      rc = SL_EXIT_OK;
      goto out;
    } else if (sl_cli_is(a, "--suite")) {
      if (!(suite = sl_cli_value("bench", argc, argv, &i))) goto out;
    } else if (sl_cli_is(a, "--variants")) {
      if (!(b.variants = sl_cli_value("bench", argc, argv, &i))) goto out;
    } else if (sl_cli_is(a, "--threads")) {
      if (!(v = sl_cli_value("bench", argc, argv, &i))) goto out;
      long long t = sl_cli_int("bench", "--threads", v);
      if (t < 0) goto out;
      if (t > 4096) {
        sl_cli_usage_error("bench",
                           "--threads: expected 0 (all cores) to "
                           "4096, got %lld",
                           t);
        goto out;
      }
      b.threads = (int)t;
    } else if (sl_cli_is(a, "--budget")) {
      if (!(v = sl_cli_value("bench", argc, argv, &i))) goto out;
      char *end;
      b.budget = strtod(v, &end);
      if (!*v || *end || !(b.budget > 0) || b.budget > 3600) {
        sl_cli_usage_error("bench",
                           "--budget: expected seconds in (0,3600], "
                           "got \"%s\"",
                           v);
        goto out;
      }
    } else if (sl_cli_is(a, "--min-reps")) {
      if (!(v = sl_cli_value("bench", argc, argv, &i))) goto out;
      long long k = sl_cli_int("bench", "--min-reps", v);
      if (k < 0) goto out;
      if (k < 1 || k > 100) {
        sl_cli_usage_error("bench", "--min-reps: expected 1..100, got %s", v);
        goto out;
      }
      b.min_reps = (int)k;
    } else if (strcmp(a, "--cold") == 0) {
      b.cold = 1;
    } else if (sl_cli_is(a, "--db")) {
      if (!(db = sl_cli_value("bench", argc, argv, &i))) goto out;
    } else if (strcmp(a, "--no-db") == 0) {
      no_db = 1;
    } else if (a[0] == '-' && a[1] == '-') {
      sl_cli_usage_error("bench", "%s: unknown option", a);
      goto out;
    } else {
      char **nv = realloc(lines, sizeof(char *) * (size_t)(n + 1));
      if (!nv) goto out;
      lines = nv;
      lines[n++] = strdup(a);
    }
  }
  if (suite && sl_bench_read_suite(suite, &lines, &n)) {
    sl_cli_usage_error("bench",
                       "--suite %s: expected a suite name (seed, "
                       "standard, contention, large) or a file, "
                       "found neither",
                       suite);
    goto out;
  }
  if (n == 0) {
    sl_cli_usage_error("bench", "expected --suite or case lines, got none");
    goto out;
  }
  sl_case *cases = calloc((size_t)n, sizeof *cases);
  for (int i = 0; cases && i < n; ++i) {
    char err[512];
    if (sl_case_parse(lines[i], &cases[i], err, sizeof err)) {
      sl_cli_usage_error("bench", "case %d: %s", i + 1, err);
      free(cases);
      goto out;
    }
  }
  if (sl_cli_parse_only) {
    free(cases);
    rc = SL_EXIT_OK;
    goto out;
  }
#ifdef _OPENMP
  int threads = b.threads > 0 ? b.threads : omp_get_max_threads();
#else
  int threads = 1;
#endif
  b.threads = threads;
  b.peak_gbs = sl_copy_bandwidth_gbs((size_t)256 << 20, threads);
  const char *bind = getenv("OMP_PROC_BIND");
  printf("threads %d (OMP_PROC_BIND=%s), copy bandwidth %.2f GB/s (256 MiB "
         "memcpy, read+write)\n",
         threads, bind ? bind : "unset", b.peak_gbs);
  if (!no_db) {
    char err[512];
    if (sl_store_open(db, SL_STORE_READWRITE, &b.st, err, sizeof err)) {
      fprintf(stderr, "scatterlab bench: %s\n", err);
      free(cases);
      rc = SL_EXIT_FAIL;
      goto out;
    }
    sl_runinfo_buf ri;
    sl_runinfo_fill(&ri, "bench", argc, argv, threads);
    ri.info.copy_gbs = b.peak_gbs;
    if (sl_store_run_begin(b.st, &ri.info, &b.run_id)) {
      fprintf(stderr, "scatterlab bench: %s\n", sl_store_errmsg(b.st));
      sl_store_close(b.st);
      free(cases);
      rc = SL_EXIT_FAIL;
      goto out;
    }
  }
  int failed = 0;
  for (int i = 0; cases && i < n; ++i) {
    /* One transaction per case: a long suite that is interrupted keeps every
     * case it finished. */
    if (b.st) sl_store_begin(b.st);
    failed |= sl__bench_case(&b, &cases[i]) != 0;
    if (b.st && sl_store_commit(b.st)) {
      fprintf(stderr, "scatterlab bench: store: %s\n", sl_store_errmsg(b.st));
      failed = 1;
    }
  }
  sl_bench_summary_print(&b.table, stdout);
  sl_bench_crossover_print(&b.table, stdout);
  sl_bench_table_free(&b.table);
  if (b.st) {
    sl_store_run_finish(b.st, b.run_id, failed ? "failed" : "finished");
    sl_store_close(b.st);
    printf("\nresults: %s (run %lld)\n", db, (long long)b.run_id);
  }
  free(cases);
  rc = failed ? SL_EXIT_FAIL : SL_EXIT_OK;
out:
  for (int i = 0; i < n; ++i) free(lines[i]);
  free(lines);
  return rc;
}
