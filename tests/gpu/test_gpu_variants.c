/*
 * GPU test of every cuda.* variant against LibTorch (and cpu.serial beside
 * it) on the ops batch (harness/batches/ops.txt: every op, valid and
 * invalid cases, strided and broadcast layouts, NaN/inf/-0.0 data). The
 * cuda.* variants go through the harness's device checks (device.h: inputs
 * copied to the device, guarded and poisoned outputs, two runs). Fails on
 * any failing verdict, or a cuda.* variant that does not run. Exits 77
 * (skipped) without a CUDA device.
 *
 * usage: test_gpu_variants [--quick] [BATCH_FILE]
 *   --quick  every 8th case (for compute-sanitizer, which is slow)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "case.h"
#include "runner.h"
#include "sl/sl.h"
#include "sl_test.h"

#ifndef SL_SOURCE_DIR
#define SL_SOURCE_DIR "."
#endif

int main(int argc, char **argv) {
  if (sl_cuda_device_count() == 0) {
    printf("test_gpu_variants: no CUDA device (%s): skipped\n",
           sl_cuda_built() ? "CUDA built" : "built without CUDA");
    return SL_TEST_SKIP_CODE;
  }
  char perr[512];
  if (sl_providers_load(NULL, 0, perr, sizeof perr)) {
    fprintf(stderr, "test_gpu_variants: %s\n", perr);
    return 1;
  }
  const char *batch = SL_SOURCE_DIR "/harness/batches/ops.txt";
  int quick = 0;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--quick") == 0)
      quick = 1;
    else
      batch = argv[i];
  }
  FILE *f = fopen(batch, "r");
  if (!f) {
    fprintf(stderr, "test_gpu_variants: cannot open %s\n", batch);
    return 1;
  }
  static char line[SL_CASE_LINE_MAX];
  static sl_case_result res;
  int cases = 0, ran = 0, k = 0;
  while (fgets(line, sizeof line, f)) {
    char *h = strchr(line, '#');
    if (h) *h = '\0';
    line[strcspn(line, "\r\n")] = '\0';
    if (!line[0] || (quick && k++ % 8 != 0)) continue;
    sl_case c;
    char err[512];
    if (sl_case_parse(line, &c, err, sizeof err)) {
      CHECK_MSG(0, "%s: %s", line, err);
      continue;
    }
    sl_run_opts o;
    memset(&o, 0, sizeof o);
    o.variants = "cpu.serial,cuda";
    if (sl_run_case(&c, &o, &res, err, sizeof err)) {
      CHECK_MSG(0, "%s: %s", line, err);
      continue;
    }
    ++cases;
    for (int i = 0; i < res.n; ++i) {
      const sl_variant_result *r = &res.v[i];
      int cuda = strncmp(r->variant, "cuda.", 5) == 0;
      ran += cuda && r->verdict != SL_VERDICT_UNSUPPORTED;
      CHECK_MSG(!sl_verdict_is_failure(r->verdict) &&
                    !(cuda && r->verdict == SL_VERDICT_UNSUPPORTED),
                "%s: %s: %s", r->variant, sl_verdict_name(r->verdict),
                r->message);
      if (sl_verdict_is_failure(r->verdict)) {
        char repro[SL_CASE_LINE_MAX + 128];
        sl_repro(res.line, r->variant, repro, sizeof repro);
        fprintf(stderr, "  repro: %s\n", repro);
      }
    }
  }
  fclose(f);
  printf("test_gpu_variants: %d cases, %d cuda.* runs\n", cases, ran);
  CHECK(cases > 0 && ran > 0);
  return sl_test_finish("test_gpu_variants");
}
