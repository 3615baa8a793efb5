/* The size-threshold table (thresholds.def), exported through sl.h so that
 * the fuzzer sizes cases from it instead of restating it. */
#include "thresholds.h"
#include "sl/sl.h"

/* thresholds.def's ops column: a mask of sl_op bits. */
#define SL__TH_OP(op) (1u << SL_OP_##op)
#define SL__TH_OPS1(a) SL__TH_OP(a)
#define SL__TH_OPS2(a, b) (SL__TH_OP(a) | SL__TH_OP(b))
#define SL__TH_OPS3(a, b, c) (SL__TH_OP(a) | SL__TH_OP(b) | SL__TH_OP(c))

static const sl_threshold sl__thresholds[] = {
#define SL_THRESHOLD(id, name, normal, small, unit, path, ops)                 \
  {name, SL__TH_##id, normal, small, unit, path, ops},
#include "thresholds.def"
#undef SL_THRESHOLD
};

int sl_threshold_count(void) {
  return (int)(sizeof sl__thresholds / sizeof sl__thresholds[0]);
}

const sl_threshold *sl_threshold_at(int i) {
  return i >= 0 && i < sl_threshold_count() ? &sl__thresholds[i] : NULL;
}

int sl_thresholds_small(void) {
#ifdef SL_SMALL_THRESHOLDS
  return 1;
#else
  return 0;
#endif
}
