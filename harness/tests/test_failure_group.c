/*
 * The failure signature (failure_group.h): a group is a defect. Failures
 * that differ in numbers, shapes, ranks, dtypes or notes group together;
 * another verdict, variant, reduce, output or kind of wrongness does not.
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
  const char *m1 = "out: exact mismatch at [1,2]: got 3, expected 4 (2 "
                   "elements wrong)";
  sl_failure_sig a = sig(g1, "b:cpu.x", "failed", m1);
  CHECK(strlen(a.id) == 16);
  CHECK_MSG(strcmp(a.text, "gather b:cpu.x failed | - out | a value wrong") ==
                0,
            "signature: %s", a.text);
  /* One defect, whatever the case: other numbers, shape, rank, dtype,
   * layout note. */
  const char *same_bug[][2] = {
      {"gather dt=f32 it=i64 x=7x9 index=5x2 dim=0 seed=9",
       "out: exact mismatch at [4,0]: got 8, expected -1 (9 elements wrong)"},
      {"gather dt=f64 it=i32 x=4x3x2 index=2x3x2 dim=1 seed=1",
       "out: exact mismatch at [1,2,0]: got 3, expected 5 (1 elements "
       "wrong); index (strided)"},
      {"gather dt=i32 it=i64 x=1 index=1 dim=0 seed=1",
       "out: exact mismatch at [0]: got 2, expected 7 (1 elements wrong)"},
  };
  for (size_t k = 0; k < sizeof same_bug / sizeof same_bug[0]; ++k) {
    sl_failure_sig b = sig(same_bug[k][0], "b:cpu.x", "failed", same_bug[k][1]);
    CHECK_MSG(same(a, b), "one bug, two groups:\n  %s\n  %s", a.text, b.text);
  }
  /* Another verdict, variant or message kind: another group. */
  CHECK(!same(a, sig(g1, "b:cpu.x", "crashed", m1)));
  CHECK(!same(a, sig(g1, "b:cpu.y", "failed", m1)));
  CHECK(!same(a, sig(g1, "b:cpu.x", "failed", "rejected: bad index 3")));
  /* The kinds of a value mismatch. */
  const struct {
    const char *message, *kind;
  } kinds[] = {
      {"out: exact mismatch at [0]: got 1.5, expected nan", "a NaN lost"},
      {"out: exact mismatch at [0]: got nan, expected 1.5", "a NaN made"},
      {"out: exact mismatch at [0]: got -2.87351825e-16, expected 1",
       "an element never written"},
      {"out: tolerance mismatch at [0,2]: got -1.5, expected -inf",
       "a value wrong"},
      {"wrote outside its output out: byte 3 after its end (guard 64)",
       "wrote outside its output out: byte # after its end"},
  };
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; ++k) {
    sl_failure_sig s = sig(g1, "b:cpu.x", "failed", kinds[k].message);
    const char *bar = strrchr(s.text, '|');
    CHECK_MSG(bar && strcmp(bar + 2, kinds[k].kind) == 0,
              "%s: kind '%s', expected '%s'", kinds[k].message,
              bar ? bar + 2 : s.text, kinds[k].kind);
  }
  /* In a one-byte dtype the poison is an ordinary value: no kind from it. */
  sl_failure_sig u8 =
      sig("gather dt=u8 it=i64 x=4x3 index=2x3 dim=0 seed=1", "b:cpu.x",
          "failed", "out: exact mismatch at [0]: got 165, expected 1");
  CHECK_CONTAINS(u8.text, "| a value wrong");
  /* The reduce and the output name the defect too. */
  const char *sr = "scatter_reduce dt=f32 it=i64 x=4 index=3 src=3 dim=0 "
                   "reduce=amax seed=1";
  const char *sr_sum = "scatter_reduce dt=f32 it=i64 x=4 index=3 src=3 "
                       "dim=0 reduce=sum seed=1";
  sl_failure_sig amax = sig(sr, "b:cpu.x", "failed", m1);
  CHECK_CONTAINS(amax.text, "| amax out |");
  CHECK(!same(amax, sig(sr_sum, "b:cpu.x", "failed", m1)));
  const char *sn = "segment_reduce dt=f32 it=i64 data=4 lengths=2 dim=0 "
                   "reduce=sum seed=1";
  sl_failure_sig seg = sig(sn, "b:cpu.x", "failed", m1);
  CHECK_CONTAINS(seg.text, "| sum out |");
  /* A message with a tab or newline stays one line. */
  sl_failure_sig t = sig(g1, "v", "failed", "a\tb\nc");
  CHECK(!strchr(t.text, '\t') && !strchr(t.text, '\n'));
  return sl_test_finish("test_failure_group");
}
