/*
 * --tolerance: what parses and what is refused (naming the item, the
 * expected and the actual), the canonical form a run stores, and that an
 * installed override is what the oracle judges by, tighter or looser than
 * the default.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "oracles.h"
#include "sl_test.h"
#include "tolerance.h"

/* Parses value into a fresh table; the usage error goes to stderr. */
static int parse(const char *value, sl_tolerances *t) {
  memset(t, 0, sizeof *t);
  return sl_tolerances_parse(t, "run", value);
}

/* Whether the f32 pair (1, 1 + rel) passes the tolerance oracle. */
static int passes(double rel) {
  float want[2] = {1.0f, 1.0f}, got[2] = {1.0f, (float)(1.0 + rel)};
  int64_t shape[1] = {2};
  sl_tensor w = sl_tensor_make(SL_F32, 1, shape, want);
  sl_tensor g = sl_tensor_make(SL_F32, 1, shape, got);
  sl_diff d;
  return sl_compare(&g, &w, SL_ORACLE_TOLERANCE, NULL, &d);
}

int main(void) {
  sl_tolerances t;
  char buf[256];
  CHECK(parse("f16=1e-3", &t) == 0);
  CHECK(parse("f16=1e-3,f32=0,c128=1", &t) == 0);
  sl_tolerances_format(&t, buf, sizeof buf);
  CHECK_MSG(strcmp(buf, "f16=0.001,f32=0,c128=1") == 0, "%s", buf);
  sl_tolerances_config(&t, buf, sizeof buf);
  CHECK_MSG(strcmp(buf, "--tolerance f16=0.001,f32=0,c128=1") == 0, "%s", buf);
  /* A repeated dtype: the later value wins; the text reads back as t. */
  CHECK(parse("f32=1e-3", &t) == 0 &&
        sl_tolerances_parse(&t, "run", "f32=2e-3") == 0);
  sl_tolerances_format(&t, buf, sizeof buf);
  CHECK_MSG(strcmp(buf, "f32=0.002") == 0, "%s", buf);
  sl_tolerances none = {0};
  sl_tolerances_config(&none, buf, sizeof buf);
  CHECK(buf[0] == '\0');

  /* Refused: unknown dtype, integer dtype, negative, above 1, not a
   * number, NaN, no '=', an empty item. */
  const char *bad[] = {"f17=1e-3", "i32=1e-3",  "bool=0", "f32=-1e-3",
                       "f32=2",    "f32=abc",   "f32=",   "f32=nan",
                       "f32",      "f16=1e-3,", "=1e-3",  "f32=1e-3x"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i)
    CHECK_MSG(parse(bad[i], &t) == SL_EXIT_USAGE, "accepted \"%s\"", bad[i]);

  /* The oracle judges by what is installed. f32's default is 1e-5. */
  CHECK(sl_tolerance(SL_F32) == 1e-5 && sl_tolerance(SL_F16) == 1e-2);
  CHECK(passes(1e-6) && !passes(1e-3));
  CHECK(parse("f32=1e-2", &t) == 0);
  sl_tolerances_install(&t);
  CHECK(sl_tolerance(SL_F32) == 1e-2 && sl_tolerance(SL_F16) == 1e-2);
  CHECK_MSG(passes(1e-3), "looser: 1e-3 should pass under 1e-2");
  CHECK(parse("f32=1e-8", &t) == 0);
  sl_tolerances_install(&t);
  CHECK_MSG(!passes(1e-6), "tighter: 1e-6 should fail under 1e-8");
  sl_tolerances_install(&none);
  CHECK(sl_tolerance(SL_F32) == 1e-5 && passes(1e-6));
  return sl_test_finish("test_tolerance");
}
