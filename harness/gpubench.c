/*
 * scatterlab-gpubench: the bench of the cuda.* variants. For every case:
 * correctness first (the variants through the reference, with the device
 * checks of device.h), then the variants that passed are timed with CUDA
 * events (device.h: warm-up, repetitions until IQR/median < 2% or the
 * budget is spent, --cold writes a buffer of twice the L2 between
 * repetitions), against the device-to-device copy bandwidth measured in the
 * same run. Verdicts, timings and raw samples go to the store as a `bench`
 * run whose device column names the GPU.
 *
 * The same suites as `scatterlab bench` (harness/batches/bench-NAME.txt).
 * Before the variants, LibTorch's CUDA op on the same device inputs
 * (torch.cuda: slref_run_device, timed with the same events), and every
 * variant's row gives its speed-up over it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_case.h"
#include "bench_table.h"
#include "case.h"
#include "cli.h"
#include "datagen.h"
#include "device.h"
#include "interrupt.h"
#include "providers.h"
#include "runinfo.h"
#include "runner.h"
#include "sl_store.h"
#include "timing.h"

#ifndef SL_SOURCE_DIR
#define SL_SOURCE_DIR "."
#endif

static const char *const sl__help =
    "usage: scatterlab-gpubench [options] [--suite NAME|FILE] ['CASE' ...]\n"
    "\n"
    "Checks and times the cuda.* variants (CUDA events on the device).\n"
    "suites (harness/batches/bench-NAME.txt): seed, standard, contention,\n"
    "large; or a FILE of case lines\n"
    "options:\n"
    "  --variants LIST  variants to check and time (default: cuda)\n"
    "  --budget SEC     timing budget per variant (default 1)\n"
    "  --min-reps N     at least N timed runs (default 7; 3 suits the\n"
    "                   contention suite, where a lock variant at full\n"
    "                   contention takes seconds a run)\n"
    "  --no-torch       do not time LibTorch's CUDA op (torch.cuda)\n"
    "  --cold           flush the L2 before every repetition\n"
    "  --db PATH        results database (default " SL_DEFAULT_DB ")\n"
    "  --no-db          record nothing\n";

typedef struct sl__gb {
  sl_store *st;
  int64_t run_id;
  int cold, min_reps, no_torch;
  double budget, peak_gbs;
  const char *variants;
} sl__gb;

/* Prints and stores one timed row; torch_s > 0 adds the speed-up over
 * torch.cuda (its median over this row's). */
static void sl__row(sl__gb *g, const sl_bench_case *bc, const char *variant,
                    const sl_timing *tm, double torch_s) {
  double gbs = tm->median_s > 0 ? (double)bc->bytes / tm->median_s / 1e9 : 0;
  double pct = g->peak_gbs > 0 ? 100.0 * gbs / g->peak_gbs : -1;
  char vs[32] = "";
  if (torch_s > 0 && tm->median_s > 0)
    snprintf(vs, sizeof vs, "%.2fx", torch_s / tm->median_s);
  printf("  %-12s %11.4f ms %6.1f%% %9.2f %7.1f%% %5d %9s\n", variant,
         tm->median_s * 1e3,
         tm->median_s > 0 ? 100.0 * tm->iqr_s / tm->median_s : 0.0, gbs,
         pct > 0 ? pct : 0.0, tm->reps, vs);
  if (!g->st) return;
  sl_timing_row row = {variant,      0,         tm->reps,    g->cold,
                       tm->median_s, tm->iqr_s, tm->min_s,   gbs,
                       pct,          bc->bytes, tm->samples, tm->reps};
  int64_t id;
  if (sl_store_add_timing(g->st, bc->case_id, &row, &id))
    fprintf(stderr, "scatterlab-gpubench: store: %s\n", sl_store_errmsg(g->st));
}

static int sl__case(sl__gb *g, const sl_case *c0) {
  char err[512];
  static sl_case_result res;
  int any = 0;
  for (size_t i = 0; i < sl_hvariant_count() && !any; ++i) {
    const sl_hvariant *v = sl_hvariant_at(i);
    any = v->v.op == c0->op && sl_variant_selected(g->variants, v->name);
  }
  if (!any) {
    printf("\n%s: no variant matches --variants %s: skipped\n",
           sl_op_name(c0->op), g->variants);
    return 0;
  }
  sl_run_opts ro;
  memset(&ro, 0, sizeof ro);
  ro.variants = g->variants;
  sl_bench_case bc;
  if (sl_bench_case_open(&bc, c0, &ro, g->st, g->run_id, &res, err,
                         sizeof err)) {
    fprintf(stderr, "scatterlab-gpubench: %s\n", err);
    return -1;
  }
  int failed = res.failures > 0;
  printf("  %-12s %14s %7s %9s %8s %5s %9s\n", "variant", "median", "IQR",
         "GB/s", "%peak", "reps", "vs torch");
  sl_timing_opts o;
  sl_timing_opts_init(&o);
  o.budget_s = g->budget;
  if (g->min_reps > 0) o.min_reps = g->min_reps;
  /* LibTorch's CUDA op first, on the same inputs: the peer of every row. */
  double torch_s = 0;
  if (!g->no_torch) {
    static sl_timing tt;
    sl_ctx tctx;
    sl_ctx_init(&tctx);
    if (sl_device_time_torch(&tctx, &bc.in.call, g->cold, &o, &tt))
      printf("  %-12s not timed: %s\n", "torch.cuda", sl_ctx_message(&tctx));
    else
      torch_s = tt.median_s;
    if (torch_s > 0) sl__row(g, &bc, "torch.cuda", &tt, 0);
  }
  for (int i = 0; i < res.n; ++i) {
    const sl_variant_result *r = &res.v[i];
    if (r->verdict != SL_VERDICT_PASSED &&
        r->verdict != SL_VERDICT_MISTRUSTED) {
      sl_print_untimed(r);
      continue;
    }
    const sl_hvariant *hv = sl_hvariant_find(c0->op, r->variant);
    if (!hv || sl_variant_device(&hv->v) != SL_DEVICE_CUDA) continue;
    static sl_timing tm;
    sl_ctx ctx;
    sl_ctx_init(&ctx);
    if (sl_device_time_variant(&ctx, &hv->v, &bc.in.call, g->cold, &o, &tm)) {
      printf("  %-12s not timed: %s\n", r->variant, sl_ctx_message(&ctx));
      failed = 1;
      continue;
    }
    sl__row(g, &bc, r->variant, &tm, torch_s);
  }
  sl_bench_case_close(&bc);
  sl_device_release();
  return failed ? 1 : 0;
}

int main(int argc, char **argv) {
  /* Line by line even into a file: a run cut short by a time limit keeps
   * every table it printed. */
  setvbuf(stdout, NULL, _IOLBF, 0);
  sl__gb g;
  memset(&g, 0, sizeof g);
  g.budget = 1.0;
  g.variants = "cuda";
  const char *db = SL_DEFAULT_DB;
  int no_db = 0, n = 0, rc = SL_EXIT_USAGE;
  char **lines = NULL;
  char perr[512];
  if (sl_providers_load(NULL, 0, perr, sizeof perr)) {
    fprintf(stderr, "scatterlab-gpubench: %s\n", perr);
    return SL_EXIT_USAGE;
  }
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      fputs(sl__help, stdout);
      rc = SL_EXIT_OK;
      goto out;
    } else if (strcmp(a, "--suite") == 0 && i + 1 < argc) {
      char serr[1200];
      if (sl_bench_read_suite(argv[++i], &lines, &n, serr, sizeof serr)) {
        fprintf(stderr, "scatterlab-gpubench: --suite %s\n", serr);
        goto out;
      }
    } else if (strcmp(a, "--variants") == 0 && i + 1 < argc) {
      g.variants = argv[++i];
    } else if (strcmp(a, "--budget") == 0 && i + 1 < argc) {
      char *end;
      g.budget = strtod(argv[++i], &end);
      if (*end || !(g.budget > 0) || g.budget > 3600) {
        fprintf(stderr,
                "scatterlab-gpubench: --budget: expected seconds in "
                "(0,3600], got \"%s\"\n",
                argv[i]);
        goto out;
      }
    } else if (strcmp(a, "--min-reps") == 0 && i + 1 < argc) {
      char *end;
      long k = strtol(argv[++i], &end, 10);
      if (*end || k < 1 || k > SL_TIMING_MAX_SAMPLES) {
        fprintf(stderr,
                "scatterlab-gpubench: --min-reps: expected a count in "
                "[1,%d], got \"%s\"\n",
                SL_TIMING_MAX_SAMPLES, argv[i]);
        goto out;
      }
      g.min_reps = (int)k;
    } else if (strcmp(a, "--no-torch") == 0) {
      g.no_torch = 1;
    } else if (strcmp(a, "--cold") == 0) {
      g.cold = 1;
    } else if (strcmp(a, "--db") == 0 && i + 1 < argc) {
      db = argv[++i];
    } else if (strcmp(a, "--no-db") == 0) {
      no_db = 1;
    } else if (a[0] == '-') {
      fprintf(stderr, "scatterlab-gpubench: %s: unknown option (see --help)\n",
              a);
      goto out;
    } else {
      char **v = realloc(lines, sizeof(char *) * (size_t)(n + 1));
      if (!v) goto out;
      lines = v;
      lines[n++] = strdup(a);
    }
  }
  if (n == 0) {
    fprintf(stderr, "scatterlab-gpubench: expected --suite or case lines, got "
                    "none\n");
    goto out;
  }
  if (sl_cuda_device_count() == 0) {
    fprintf(stderr, "scatterlab-gpubench: no CUDA device (%s)\n",
            sl_cuda_built() ? "built with CUDA" : "built without CUDA");
    rc = SL_EXIT_FAIL;
    goto out;
  }
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  char device[256] = "";
  size_t l2 = 0;
  if (sl_device_describe(&ctx, device, sizeof device, &l2)) {
    fprintf(stderr, "scatterlab-gpubench: %s\n", sl_ctx_message(&ctx));
    rc = SL_EXIT_FAIL;
    goto out;
  }
  g.peak_gbs = sl_device_copy_bandwidth_gbs((size_t)256 << 20);
  printf("device %s\ncopy bandwidth %.1f GB/s (256 MiB device-to-device, "
         "read+write)\n",
         device, g.peak_gbs);
  if (!no_db) {
    char err[512];
    if (sl_store_open(db, SL_STORE_READWRITE, &g.st, err, sizeof err)) {
      fprintf(stderr, "scatterlab-gpubench: %s\n", err);
      rc = SL_EXIT_FAIL;
      goto out;
    }
    sl_runinfo_buf ri;
    sl_runinfo_fill(&ri, "bench", argc, argv, 0);
    ri.info.device = device;
    ri.info.copy_gbs = g.peak_gbs;
    if (sl_store_run_begin(g.st, &ri.info, &g.run_id)) {
      fprintf(stderr, "scatterlab-gpubench: %s\n", sl_store_errmsg(g.st));
      sl_store_close(g.st);
      rc = SL_EXIT_FAIL;
      goto out;
    }
  }
  /* A signal lets the case in hand finish (GPU cases take milliseconds),
   * commits it and stops. */
  sl_interrupt_install();
  int failed = 0, finished = 0;
  for (int i = 0; i < n && !sl_interrupted(); ++i, ++finished) {
    sl_case c;
    char err[512];
    if (sl_case_parse(lines[i], &c, err, sizeof err)) {
      fprintf(stderr, "scatterlab-gpubench: case %d: %s\n", i + 1, err);
      failed = 1;
      continue;
    }
    printf("\n[%d/%d] checking the variants, then timing", i + 1, n);
    if (g.st) sl_store_begin(g.st);
    failed |= sl__case(&g, &c) != 0;
    if (g.st && sl_store_commit(g.st)) {
      fprintf(stderr, "scatterlab-gpubench: store: %s\n",
              sl_store_errmsg(g.st));
      failed = 1;
    }
  }
  const int sig = sl_interrupted();
  if (g.st) {
    sl_store_run_finish(g.st, g.run_id, sl_interrupt_run_status(failed));
    sl_store_close(g.st);
    printf("\nresults: %s (run %lld)\n", db, (long long)g.run_id);
  }
  if (sig)
    printf("interrupted by %s after %d of %d cases\n", strsignal(sig), finished,
           n);
  rc = sl_interrupt_exit_status(failed ? SL_EXIT_FAIL : SL_EXIT_OK);
out:
  for (int i = 0; i < n; ++i) free(lines[i]);
  free(lines);
  return rc;
}
