/*
 * Runs one variant on one case in a loop and prints its best and median
 * time: a target for `perf record` without the harness's checks, reference
 * and copy probe around the kernel (a bench run's profile is mostly those).
 *
 *   case_loop VARIANT REPS 'CASE' [THREADS]
 *   perf record -g build-nocuda/tests/case_loop cpu.omp 50 'scatter_nd ...'
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "datagen.h"
#include "runinfo.h"
#include "runner.h"
#include "variant_call.h"

static double sl__seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int sl__cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static int sl__usage(const char *why, const char *got) {
  fprintf(stderr,
          "case_loop: %s, got %s\nusage: case_loop VARIANT REPS 'CASE' "
          "[THREADS]\n",
          why, got);
  return 2;
}

/* argv[i] as an integer in [lo, hi], or -1 after a usage message naming
 * it. */
static long sl__count_arg(char **argv, int i, const char *name, long lo,
                          long hi) {
  char *end, why[64];
  const long v = strtol(argv[i], &end, 10);
  if (*argv[i] && !*end && v >= lo && v <= hi) return v;
  snprintf(why, sizeof why, "%s: expected an integer in %ld..%ld", name, lo,
           hi);
  sl__usage(why, argv[i]);
  return -1;
}

int main(int argc, char **argv) {
  if (argc < 4 || argc > 5) {
    char got[32];
    snprintf(got, sizeof got, "%d", argc - 1);
    return sl__usage("expected 3 or 4 arguments", got);
  }
  const long reps = sl__count_arg(argv, 2, "REPS", 1, 100000);
  const long threads =
      argc == 5 ? sl__count_arg(argv, 4, "THREADS", 1, 1024) : 0;
  if (reps < 0 || threads < 0) return 2;
  sl_case c0, c;
  sl_bundle b;
  char err[512];
  if (sl_case_parse(argv[3], &c0, err, sizeof err) ||
      sl_prepare_case(&c0, NULL, 0, &c, &b, err, sizeof err)) {
    fprintf(stderr, "case_loop: CASE: %s\n", err);
    return 2;
  }
  const sl_variant *v = sl_variant_find(c.op, argv[1]);
  if (!v)
    return sl__usage("VARIANT: expected a variant of the case's op", argv[1]);
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  ctx.threads = threads ? (int)threads : sl_default_threads();
  sl_call inferred = b.call;
  sl_variant_call vc;
  char note[256];
  if (sl_infer(&ctx, &inferred) ||
      sl_variant_call_prepare(&vc, &inferred, 0, note, sizeof note)) {
    fprintf(stderr, "case_loop: %s\n", sl_ctx_message(&ctx));
    return 1;
  }
  double *t = malloc((size_t)reps * sizeof *t);
  for (int r = 0; t && r < reps; ++r) {
    double t0 = sl__seconds();
    if (sl_run_variant(&ctx, v, &vc.call) != SL_STATUS_OK) {
      fprintf(stderr, "case_loop: %s: %s\n", argv[1], sl_ctx_message(&ctx));
      return 1;
    }
    t[r] = sl__seconds() - t0;
  }
  if (!t) return 1;
  qsort(t, (size_t)reps, sizeof *t, sl__cmp_double);
  printf("%s threads %d: best %.3f ms, median %.3f ms over %ld\n", argv[1],
         ctx.threads, 1e3 * t[0], 1e3 * t[reps / 2], reps);
  free(t);
  sl_variant_call_free(&vc);
  sl_bundle_free(&b);
  return 0;
}
