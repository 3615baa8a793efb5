/*
 * The size thresholds of the CPU kernels as compile-time constants
 * SL__TH_<ID>, from thresholds.def: the normal values, or the small ones in
 * a build configured with -DSL_SMALL_THRESHOLDS=ON (the test build in which
 * small cases take the big-case paths). sl_threshold_at (sl.h) exports the
 * same table.
 */
#ifndef SL_THRESHOLDS_H
#define SL_THRESHOLDS_H

#ifdef SL_SMALL_THRESHOLDS
#define SL__TH_PICK(normal, small) (small)
#else
#define SL__TH_PICK(normal, small) (normal)
#endif

enum {
#define SL_THRESHOLD(id, name, normal, small, unit, path, ops)                      \
  SL__TH_##id = SL__TH_PICK(normal, small),
#include "thresholds.def"
#undef SL_THRESHOLD
  SL__TH_COUNT_END
};

#endif /* SL_THRESHOLDS_H */
