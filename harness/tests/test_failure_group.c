/*
 * The failure signature (failure_group.h): failures that differ only in
 * numbers group together; another verdict, variant, op or shape class does
 * not.
 */
#include <string.h>

#include "failure_group.h"
#include "sl_test.h"

static sl_failure_sig sig(const char *line, const char *variant,
                          const char *verdict, const char *message) {
  sl_case c;
  char err[256];
  sl_failure_sig s;
  memset(&s, 0, sizeof s);
  if (sl_case_parse(line, &c, err, sizeof err)) {
    CHECK_MSG(0, "%s: %s", line, err);
    return s;
  }
  sl_failure_signature(&c, variant, verdict, message, &s);
  return s;
}

static int same(sl_failure_sig a, sl_failure_sig b) {
  return strcmp(a.id, b.id) == 0 && strcmp(a.text, b.text) == 0;
}

int main(void) {
  char out[128];
  sl_failure_message_class("value mismatch at [3, 17]: got -1.5e-07, "
                           "expected 2.25 (4x3)",
                           out, sizeof out);
  CHECK_MSG(strcmp(out, "value mismatch at [#]: got #, expected # (#)") == 0,
            "message class: %s", out);

  const char *g1 = "gather dt=f32 it=i64 x=4x3 index=2x3 dim=0 seed=1";
  const char *g2 = "gather dt=f32 it=i64 x=7x9 index=5x2 dim=0 seed=9";
  sl_failure_sig a = sig(g1, "b:cpu.x", "failed", "mismatch at [1, 2]: got 3");
  sl_failure_sig b = sig(g2, "b:cpu.x", "failed", "mismatch at [4, 0]: got 8");
  CHECK_MSG(same(a, b), "numbers only differ, yet:\n  %s\n  %s", a.text,
            b.text);
  CHECK(strlen(a.id) == 16);
  CHECK_CONTAINS(a.text, "gather b:cpu.x failed");
  /* Another verdict, variant, message kind or shape class: another group. */
  CHECK(!same(a, sig(g1, "b:cpu.x", "crashed", "mismatch at [1, 2]: got 3")));
  CHECK(!same(a, sig(g1, "b:cpu.y", "failed", "mismatch at [1, 2]: got 3")));
  CHECK(!same(a, sig(g1, "b:cpu.x", "failed", "rejected: bad index 3")));
  CHECK(!same(a, sig("gather dt=f32 it=i64 x=4x1 index=2x1 dim=0 seed=1",
                     "b:cpu.x", "failed", "mismatch at [1, 2]: got 3")));
  /* The dtype's kind: f32 and f64 agree, i32 does not. */
  CHECK(same(a, sig("gather dt=f64 it=i64 x=4x3 index=2x3 dim=0 seed=1",
                    "b:cpu.x", "failed", "mismatch at [1, 2]: got 3")));
  CHECK(!same(a, sig("gather dt=i32 it=i64 x=4x3 index=2x3 dim=0 seed=1",
                     "b:cpu.x", "failed", "mismatch at [1, 2]: got 3")));
  /* Another rank, another group. */
  CHECK(!same(a, sig("gather dt=f32 it=i64 x=4x3x2 index=2x3x2 dim=0 seed=1",
                     "b:cpu.x", "failed", "mismatch at [1, 2, 0]: got 3")));
  /* A message with a tab or newline stays one line. */
  sl_failure_sig t = sig(g1, "v", "failed", "a\tb\nc");
  CHECK(!strchr(t.text, '\t') && !strchr(t.text, '\n'));
  return sl_test_finish("test_failure_group");
}
