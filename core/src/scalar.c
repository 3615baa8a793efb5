/*
 * scatter's scalar: which values each dtype takes (refuse what x's dtype
 * cannot hold, as LibTorch does), one table for the core's check and for the
 * fuzzer's boundary values.
 *
 * The rule is LibTorch's (c10::checked_convert, which at::scatter applies
 * to its Scalar when index has an element), so that kernel and reference
 * refuse the same cases:
 *   bool     any value, stored as value != 0: c10 never checks a
 *            conversion to bool.
 *   integers ivalue in [min, max], except u8, which takes [-255, 255]: c10
 *            lets a negative integer wrap modulo 256 ("a - b as
 *            a + 255 * b"), so -1 stores 255. Odd, but deliberate in c10
 *            and the same answer on both sides; a value outside is refused.
 *   floats   a finite value in [-max, max] for the dtype's largest finite
 *            max, or inf, or NaN. A value that would round to max is
 *            refused too (f16 65505): c10 compares before rounding.
 *   complex  as the float of its parts (c64: f32, c128: f64).
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "sl_internal.h"

/* X(dtype, kind, lowest integer, highest integer, largest finite) */
#define SL__SCALAR_MAP(X)                                                      \
  X(BOOL, SL_SCALAR_ANY, 0, 0, 0.0)                                            \
  X(U8, SL_SCALAR_INT, -255, 255, 0.0)                                         \
  X(I8, SL_SCALAR_INT, INT8_MIN, INT8_MAX, 0.0)                                \
  X(I16, SL_SCALAR_INT, INT16_MIN, INT16_MAX, 0.0)                             \
  X(I32, SL_SCALAR_INT, INT32_MIN, INT32_MAX, 0.0)                             \
  X(I64, SL_SCALAR_INT, INT64_MIN, INT64_MAX, 0.0)                             \
  X(F16, SL_SCALAR_FLOAT, 0, 0, 65504.0)                                       \
  X(BF16, SL_SCALAR_FLOAT, 0, 0, 0x1.fep127)                                   \
  X(F32, SL_SCALAR_FLOAT, 0, 0, (double)FLT_MAX)                               \
  X(F64, SL_SCALAR_FLOAT, 0, 0, DBL_MAX)                                       \
  X(C64, SL_SCALAR_FLOAT, 0, 0, (double)FLT_MAX)                               \
  X(C128, SL_SCALAR_FLOAT, 0, 0, DBL_MAX)

#define SL__SCALAR_ROW(e, kind, lo, hi, max) [SL_##e] = {kind, lo, hi, max},
static const sl_scalar_range sl__scalar_ranges[SL_DTYPE_COUNT] = {
    SL__SCALAR_MAP(SL__SCALAR_ROW)};
#undef SL__SCALAR_ROW

#define SL__SCALAR_ONE(e, kind, lo, hi, max) +1
_Static_assert(0 SL__SCALAR_MAP(SL__SCALAR_ONE) == SL_DTYPE_COUNT,
               "one scalar range per dtype");
#undef SL__SCALAR_ONE

const sl_scalar_range *sl_scalar_range_of(sl_dtype dt) {
  return (unsigned)dt < SL_DTYPE_COUNT ? &sl__scalar_ranges[dt] : NULL;
}

/* The shortest of %.15g and %.17g that reads back as v: 1e+39, not
 * 1.0000000000000001e+39. */
static const char *sl__num(double v, char *buf, size_t len) {
  snprintf(buf, len, "%.15g", v);
  if (strtod(buf, NULL) != v) snprintf(buf, len, "%.17g", v);
  return buf;
}

int sl_scalar_fits(sl_dtype dt, double value, int64_t ivalue) {
  const sl_scalar_range *r = sl_scalar_range_of(dt);
  if (!r || r->kind == SL_SCALAR_ANY) return 1;
  if (r->kind == SL_SCALAR_INT) return ivalue >= r->lo && ivalue <= r->hi;
  /* NaN fails neither comparison: it is taken, as inf is. */
  return !(value < -r->max || value > r->max) || isinf(value);
}

sl_status sl__check_scalar(sl_ctx *ctx, const char *what, sl_dtype dt,
                           const sl_params *p) {
  if (sl_scalar_fits(dt, p->value, p->ivalue)) return SL_STATUS_OK;
  const sl_scalar_range *r = sl_scalar_range_of(dt);
  if (r->kind == SL_SCALAR_INT)
    return sl_ctx_fail(ctx, SL_STATUS_INVALID_ARGUMENT,
                       "%s: expected a value representable in %s [%lld, "
                       "%lld], got %lld",
                       what, sl_dtype_name(dt), (long long)r->lo,
                       (long long)r->hi, (long long)p->ivalue);
  char max[32], got[32];
  sl__num(r->max, max, sizeof max);
  return sl_ctx_fail(ctx, SL_STATUS_INVALID_ARGUMENT,
                     "%s: expected a value representable in %s [-%s, %s] "
                     "(or inf or nan), got %s",
                     what, sl_dtype_name(dt), max, max,
                     sl__num(p->value, got, sizeof got));
}
