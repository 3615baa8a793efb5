/*
 * The table of LibTorch defects that slref_run works around
 * (slref_defects.def): which calls each row selects, and whether the linked
 * LibTorch has it.
 */
#include <torch/version.h>

#include "ref_internal.h"

/* A row's ops and reduces, as masks (slref_defects.def). */
#define SLREF_OP(e) (1ull << SL_OP_##e)
#define SLREF_REDUCE(e) (1u << SL_REDUCE_##e)
#define SLREF_ARITH                                                            \
  (SLREF_REDUCE(SUM) | SLREF_REDUCE(PROD) | SLREF_REDUCE(MEAN))
#define SLREF_ANY_REDUCE (~0u)
static_assert(SL_OP_COUNT <= 64 && SL_REDUCE_COUNT <= 32,
              "a defect row's masks hold every op and reduce");

/* 1 when the linked LibTorch is older than major.minor; a row with 0.0 is
 * not fixed in any version measured. */
static constexpr int slref_before(int major, int minor) {
  return (major == 0 && minor == 0) || TORCH_VERSION_MAJOR < major ||
         (TORCH_VERSION_MAJOR == major && TORCH_VERSION_MINOR < minor);
}

namespace {
struct slref_defect_row {
  slref_defect pub;
  unsigned long long ops;
  unsigned reduces;
};

const slref_defect_row slref_defect_rows[] = {
#define SLREF_DEFECT(id, name, ops, reduces, fmaj, fmin, upstream, what)       \
  {{name, what, upstream, (fmaj || fmin) ? #fmaj "." #fmin : "",               \
    slref_before(fmaj, fmin)},                                                 \
   ops,                                                                        \
   reduces},
#include "slref_defects.def"
#undef SLREF_DEFECT
};
constexpr int slref_n_defects =
    (int)(sizeof slref_defect_rows / sizeof slref_defect_rows[0]);
} // namespace

/* Rows select calls whose floating inputs are all f16 or all bf16 (x,
 * src, a backward op's grad_out and result: a valid call's share one
 * dtype; a call that mixes them is LibTorch's to refuse). */
const slref_defect *slref_defect_for(const sl_call &c) {
  if ((unsigned)c.op >= SL_OP_COUNT || (unsigned)c.p.reduce >= SL_REDUCE_COUNT)
    return nullptr;
  const sl_dtype dt = c.arg[0].dtype;
  if (dt != SL_F16 && dt != SL_BF16) return nullptr;
  for (int i = 1; i < sl_op_get(c.op)->n_in; ++i)
    if (sl_dtype_is_float(c.arg[i].dtype) && c.arg[i].dtype != dt)
      return nullptr;
  for (const slref_defect_row &r : slref_defect_rows)
    if (r.pub.active && ((r.ops >> c.op) & 1u) &&
        ((r.reduces >> c.p.reduce) & 1u))
      return &r.pub;
  return nullptr;
}

extern "C" int slref_defect_count(void) { return slref_n_defects; }

extern "C" const slref_defect *slref_defect_at(int i) {
  return i >= 0 && i < slref_n_defects ? &slref_defect_rows[i].pub : nullptr;
}
