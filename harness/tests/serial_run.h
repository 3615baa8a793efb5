/*
 * Tests' common start: a case line's inputs generated, its call inferred,
 * and cpu.serial's answer as produced (the `first` the checks without
 * LibTorch compare against). Header-only: each test is one executable.
 */
#ifndef SL_TEST_SERIAL_RUN_H
#define SL_TEST_SERIAL_RUN_H

#include "datagen.h"
#include "rerun.h"
#include "runner.h"
#include "sl_test.h"
#include "variant_call.h"

/* 0, with *inferred, *vc (free it and *b) and *v (cpu.serial's row); -1
 * after a failed CHECK naming the line. */
static inline int sl_test_serial_run(const char *line, sl_bundle *b,
                                     sl_call *inferred, sl_variant_call *vc,
                                     const sl_variant **v) {
  sl_case c0, c;
  char err[256];
  /* a backward op's inputs from its forward's run, as a campaign's */
  if (sl_case_parse(line, &c0, err, sizeof err) ||
      sl_prepare_case(&c0, NULL, 0, &c, b, err, sizeof err)) {
    CHECK_MSG(0, "%s: %s", line, err);
    return -1;
  }
  *inferred = b->call;
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  ctx.threads = 1;
  char note[64];
  *v = sl_variant_find(c.op, "cpu.serial");
  if (!*v || sl_infer(&ctx, inferred) ||
      sl_variant_call_prepare(vc, inferred, 0, note, sizeof note) ||
      sl_run_variant(&ctx, *v, &vc->call) != SL_STATUS_OK) {
    CHECK_MSG(0, "%s: cpu.serial: %s", line, sl_ctx_message(&ctx));
    return -1;
  }
  sl_outputs_as_produced(&vc->call);
  return 0;
}

#endif
