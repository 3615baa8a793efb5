/*
 * Bad input on every op's public entry point: for each op, one generated
 * case of every docs/spec.md §4 class the generator makes for it (out-of-range
 * and negative index values, dim, rank, shape, index dtype, data dtype, reduce,
 * mask, short source) goes through sl_run (via the harness, beside LibTorch).
 * Every variant must refuse it (verdict both_rejected, LibTorch refusing
 * too) with a message that says what was expected. The same classes reach
 * the CLI in every fuzz campaign (about one case in ten is invalid).
 */
#include <stdio.h>
#include <string.h>

#include "casegen.h"
#include "runner.h"
#include "sl_test.h"

int main(void) {
  static sl_case_result res;
  int covered[SL_OP_COUNT][SL_FUZZ_CLASS_COUNT] = {{0}};
  int total = 0;
  char perr[512];
  /* The variants run as the CLI runs them: through the kernels library. */
  CHECK_MSG(sl_providers_load(NULL, 0, perr, sizeof perr) == 0, "%s", perr);
  CHECK(sl_hvariant_count() > 0);
  for (int op = 0; op < SL_OP_COUNT; ++op) {
    sl_fuzz_opts o;
    sl_fuzz_opts_init(&o);
    o.ops = 1u << op;
    o.invalid_pct = 60; /* find every class quickly */
    for (uint64_t i = 0; i < 20000; ++i) {
      sl_case c;
      if (!sl_fuzz_case(2026, i, &o, &c)) continue;
      sl_fuzz_class k = sl_fuzz_classify(&c);
      if (k == SL_FUZZ_VALID || covered[op][k]) continue;
      covered[op][k] = 1;
      ++total;
      char err[512], line[SL_CASE_LINE_MAX];
      sl_case_print(&c, line, sizeof line);
      sl_run_opts ro = {0};
      ro.variants = "cpu";
      if (sl_run_case(&c, &ro, &res, err, sizeof err)) {
        /* A case too large to build is refused before any allocation. */
        CHECK_CONTAINS(err, "expected");
        continue;
      }
      CHECK_MSG(res.n > 0, "%s: no verdicts", line);
      for (int v = 0; v < res.n; ++v) {
        CHECK_MSG(res.v[v].verdict == SL_VERDICT_BOTH_REJECTED,
                  "%s (%s) %s: %s: %s", sl_op_name((sl_op)op),
                  sl_fuzz_class_name(k), res.v[v].variant,
                  sl_verdict_name(res.v[v].verdict), line);
        /* "index[3]=7 out of range [0,5) for dim 1 of x [5,4]" states the
         * expected range too. */
        CHECK_MSG(strstr(res.v[v].message, "expected") ||
                      strstr(res.v[v].message, "out of range ["),
                  "%s %s: message does not say what was expected: %s", line,
                  res.v[v].variant, res.v[v].message);
      }
    }
  }
  /* Every op meets the classes that apply to it. */
  for (int op = 0; op < SL_OP_COUNT; ++op) {
    int n = 0;
    printf("%-26s", sl_op_name((sl_op)op));
    for (int k = 1; k < SL_FUZZ_CLASS_COUNT; ++k)
      if (covered[op][k]) {
        printf(" %s", sl_fuzz_class_name((sl_fuzz_class)k));
        ++n;
      }
    printf("\n");
    /* masked_scatter has two of its own (mask, short source). */
    CHECK_MSG(n >= 2, "%s: only %d invalid classes generated",
              sl_op_name((sl_op)op), n);
  }
  for (int k = 1; k < SL_FUZZ_CLASS_COUNT; ++k) {
    int any = 0;
    for (int op = 0; op < SL_OP_COUNT; ++op) any |= covered[op][k];
    CHECK_MSG(any, "class %s never generated",
              sl_fuzz_class_name((sl_fuzz_class)k));
  }
  printf("%d (op, class) pairs checked\n", total);
  return sl_test_finish("test_invalid_classes");
}
