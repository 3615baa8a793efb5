/*
 * The table of LibTorch defects that slref_run works around
 * (slref_defects.def): which calls each row selects, and whether the linked
 * LibTorch has it.
 */
#include <torch/version.h>

#include "ref_internal.h"

static bool slref_is_arith(sl_reduce r) {
  return r == SL_REDUCE_SUM || r == SL_REDUCE_PROD || r == SL_REDUCE_MEAN;
}

static bool slref_is_scatter_sum_prod(const sl_call &c) {
  return c.op == SL_OP_SCATTER_REDUCE &&
         (c.p.reduce == SL_REDUCE_SUM || c.p.reduce == SL_REDUCE_PROD);
}

static bool slref_is_scatter_mean(const sl_call &c) {
  return c.op == SL_OP_SCATTER_REDUCE && c.p.reduce == SL_REDUCE_MEAN;
}

static bool slref_is_index_accumulate(const sl_call &c) {
  return (c.op == SL_OP_INDEX_REDUCE || c.op == SL_OP_SCATTER_ND) &&
         slref_is_arith(c.p.reduce);
}

static bool slref_is_backward(const sl_call &c) {
  return c.op == SL_OP_SCATTER_REDUCE_BACKWARD ||
         c.op == SL_OP_INDEX_REDUCE_BACKWARD ||
         c.op == SL_OP_SEGMENT_REDUCE_BACKWARD;
}

static bool slref_is_segment_arith(const sl_call &c) {
  return c.op == SL_OP_SEGMENT_REDUCE && slref_is_arith(c.p.reduce);
}

/* 1 when the linked LibTorch is older than major.minor; a row with 0.0 is
 * not fixed in any version measured. */
static constexpr int slref_before(int major, int minor) {
  return (major == 0 && minor == 0) || TORCH_VERSION_MAJOR < major ||
         (TORCH_VERSION_MAJOR == major && TORCH_VERSION_MINOR < minor);
}

namespace {
struct slref_defect_row {
  slref_defect pub;
  bool (*applies)(const sl_call &);
};

const slref_defect_row slref_defect_rows[] = {
#define SLREF_DEFECT(id, name, applies, fmaj, fmin, upstream, what)            \
  {{name, what, upstream, (fmaj || fmin) ? #fmaj "." #fmin : "",               \
    slref_before(fmaj, fmin)},                                                 \
   applies},
#include "slref_defects.def"
#undef SLREF_DEFECT
};
constexpr int slref_n_defects =
    (int)(sizeof slref_defect_rows / sizeof slref_defect_rows[0]);
} // namespace

const slref_defect *slref_defect_for(const sl_call &c) {
  sl_dtype dt = c.arg[slref_is_backward(c) ? 1 : 0].dtype;
  if (dt != SL_F16 && dt != SL_BF16) return nullptr;
  for (const slref_defect_row &r : slref_defect_rows)
    if (r.pub.active && r.applies(c)) return &r.pub;
  return nullptr;
}

extern "C" int slref_defect_count(void) { return slref_n_defects; }

extern "C" const slref_defect *slref_defect_at(int i) {
  return i >= 0 && i < slref_n_defects ? &slref_defect_rows[i].pub : nullptr;
}
