/* The exported size-threshold table (sl_threshold_at): one row per
 * threshold, names unique, the value of this build's kind, a small value
 * below the normal one (else the small-thresholds build would not take a
 * path earlier than the normal one). */
#include <string.h>

#include "sl/sl.h"
#include "sl_test.h"

int main(void) {
  const int n = sl_threshold_count();
  CHECK(n >= 14);
  CHECK(sl_threshold_at(-1) == NULL && sl_threshold_at(n) == NULL);
  int bad = 0;
  for (int i = 0; i < n; ++i) {
    const sl_threshold *t = sl_threshold_at(i);
    CHECK_MSG(t && t->name && t->name[0] && t->path && t->path[0],
              "row %d incomplete", i);
    if (!t) continue;
    const long long want = sl_thresholds_small() ? t->small : t->normal;
    if (t->value != want || t->small < 1 || t->small >= t->normal ||
        (t->unit != SL_TH_ELEMENTS && t->unit != SL_TH_PER_THREAD &&
         t->unit != SL_TH_BYTES)) {
      ++bad;
      fprintf(stderr, "threshold %s: value %lld, normal %lld, small %lld\n",
              t->name, t->value, t->normal, t->small);
    }
    for (int j = 0; j < i; ++j)
      if (strcmp(sl_threshold_at(j)->name, t->name) == 0) ++bad;
  }
  CHECK_MSG(bad == 0, "%d bad rows", bad);
  return sl_test_finish("test_thresholds");
}
