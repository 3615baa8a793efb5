/* The catalogue of ops and reduces: names, argument slots, reduces and
 * the data dtypes each takes (docs/spec.md §3; sl.h's sl_op_info). */
#include "reduce.h"
#include "sl_internal.h"

/* Data dtype sets, bit 1u << dtype. */
#define SL__DT(e) (1u << SL_##e)
#define SL__DTYPES_ALL ((1u << SL_DTYPE_COUNT) - 1u)
/* The reductions' dtypes: LibTorch also reduces bool, the small integers
 * and complex; the spec leaves them out (docs/spec.md §3). */
#define SL__DTYPES_REDUCING                                                    \
  (SL__DT(I32) | SL__DT(I64) | SL__DT(F16) | SL__DT(BF16) | SL__DT(F32) |      \
   SL__DT(F64))
#define SL__DTYPES_FLOAT                                                       \
  (SL__DT(F16) | SL__DT(BF16) | SL__DT(F32) | SL__DT(F64))
#define SL__DTYPES_F32_F64 (SL__DT(F32) | SL__DT(F64))
/* data_dtypes of an op whose set does not depend on the reduce. */
#define SL__SAME(set)                                                          \
  { set, set }

static const char sl__grad_note[] = "gradients need a floating dtype";
static const char sl__segment_note[] =
    "PyTorch's segment_reduce takes no integers";
static const char sl__dynamic_note[] =
    "mmcv's dynamic_scatter takes float and double only";

static const sl_op_info sl__op_gather = {SL_OP_GATHER,
                                         "gather",
                                         2,
                                         1,
                                         {"x", "index", "out"},
                                         0,
                                         0,
                                         0,
                                         SL__SAME(SL__DTYPES_ALL),
                                         NULL};
static const sl_op_info sl__op_gather_nd = {
    SL_OP_GATHER_ND,          "gather_nd", 2, 1, {"x", "index", "out"}, 0, 0, 0,
    SL__SAME(SL__DTYPES_ALL), NULL};
static const sl_op_info sl__op_scatter = {SL_OP_SCATTER,
                                          "scatter",
                                          3,
                                          1,
                                          {"x", "index", "src", "out"},
                                          0,
                                          0,
                                          0,
                                          SL__SAME(SL__DTYPES_ALL),
                                          NULL};
static const sl_op_info sl__op_scatter_reduce = {SL_OP_SCATTER_REDUCE,
                                                 "scatter_reduce",
                                                 3,
                                                 1,
                                                 {"x", "index", "src", "out"},
                                                 SL__REDUCES_SCATTER,
                                                 1,
                                                 0,
                                                 SL__SAME(SL__DTYPES_REDUCING),
                                                 NULL};
static const sl_op_info sl__op_scatter_reduce_backward = {
    SL_OP_SCATTER_REDUCE_BACKWARD,
    "scatter_reduce_backward",
    5,
    2,
    {"grad_out", "x", "index", "src", "result", "grad_x", "grad_src"},
    SL__REDUCES_SCATTER,
    1,
    1,
    SL__SAME(SL__DTYPES_FLOAT),
    sl__grad_note};
static const sl_op_info sl__op_scatter_nd = {
    SL_OP_SCATTER_ND,
    "scatter_nd",
    3,
    1,
    {"x", "index", "src", "out"},
    SL__REDUCES_ND,
    0,
    0,
    {SL__DTYPES_ALL, SL__DTYPES_REDUCING},
    NULL};
static const sl_op_info sl__op_index_reduce = {
    SL_OP_INDEX_REDUCE,
    "index_reduce",
    3,
    1,
    {"x", "index", "updates", "out"},
    SL__REDUCES_INDEX,
    1,
    0,
    {SL__DTYPES_ALL, SL__DTYPES_REDUCING},
    NULL};
static const sl_op_info sl__op_index_reduce_backward = {
    SL_OP_INDEX_REDUCE_BACKWARD,
    "index_reduce_backward",
    5,
    2,
    {"grad_out", "x", "index", "updates", "result", "grad_x", "grad_updates"},
    SL__REDUCES_INDEX,
    1,
    1,
    SL__SAME(SL__DTYPES_FLOAT),
    sl__grad_note};
static const sl_op_info sl__op_select_scatter = {SL_OP_SELECT_SCATTER,
                                                 "select_scatter",
                                                 2,
                                                 1,
                                                 {"x", "value", "out"},
                                                 0,
                                                 0,
                                                 0,
                                                 SL__SAME(SL__DTYPES_ALL),
                                                 NULL};
static const sl_op_info sl__op_masked_scatter = {SL_OP_MASKED_SCATTER,
                                                 "masked_scatter",
                                                 3,
                                                 1,
                                                 {"x", "mask", "source", "out"},
                                                 0,
                                                 0,
                                                 0,
                                                 SL__SAME(SL__DTYPES_ALL),
                                                 NULL};
static const sl_op_info sl__op_dynamic_scatter = {
    SL_OP_DYNAMIC_SCATTER,
    "dynamic_scatter",
    2,
    4,
    {"feats", "coors", "voxel_feats", "voxel_coors", "point2voxel_map",
     "voxel_points_count"},
    SL__REDUCES_DYNAMIC,
    0,
    0,
    SL__SAME(SL__DTYPES_F32_F64),
    sl__dynamic_note};
static const sl_op_info sl__op_dynamic_scatter_backward = {
    SL_OP_DYNAMIC_SCATTER_BACKWARD,
    "dynamic_scatter_backward",
    5,
    1,
    {"grad_voxel_feats", "feats", "voxel_feats", "point2voxel_map",
     "voxel_points_count", "grad_feats"},
    SL__REDUCES_DYNAMIC,
    0,
    0,
    SL__SAME(SL__DTYPES_F32_F64),
    sl__dynamic_note};
static const sl_op_info sl__op_segment_reduce = {
    SL_OP_SEGMENT_REDUCE,       "segment_reduce",    2, 1,
    {"data", "lengths", "out"}, SL__REDUCES_SEGMENT, 0, 0,
    SL__SAME(SL__DTYPES_FLOAT), sl__segment_note};
static const sl_op_info sl__op_segment_reduce_backward = {
    SL_OP_SEGMENT_REDUCE_BACKWARD,
    "segment_reduce_backward",
    4,
    1,
    {"grad_out", "data", "lengths", "result", "grad_data"},
    SL__REDUCES_SEGMENT,
    0,
    1,
    SL__SAME(SL__DTYPES_FLOAT),
    sl__segment_note};

/* One row per op of SL_OP_MAP, by name: an op without its row does not
 * compile. */
static const sl_op_info *const sl__ops[SL_OP_COUNT] = {
#define SL__ROW(e, name) [SL_OP_##e] = &sl__op_##name,
    SL_OP_MAP(SL__ROW)
#undef SL__ROW
};

static const char *const sl__reduce_names[] = {
#define SL__REDUCE_NAME(e, name) #name,
    SL_REDUCE_MAP(SL__REDUCE_NAME)
#undef SL__REDUCE_NAME
};

const sl_op_info *sl_op_get(sl_op op) {
  return (unsigned)op < SL_OP_COUNT ? sl__ops[op] : NULL;
}

unsigned sl_op_dtypes(sl_op op, sl_reduce r) {
  const sl_op_info *info = sl_op_get(op);
  if (!info || (unsigned)r >= SL_REDUCE_COUNT) return 0;
  unsigned takes = info->reduces ? info->reduces : 1u << SL_REDUCE_NONE;
  return takes & (1u << r) ? sl__op_dtype_set(info, r) : 0;
}

unsigned sl__op_dtype_set(const sl_op_info *info, sl_reduce r) {
  return info
      ->data_dtypes[r == SL_REDUCE_NONE || r == SL_REDUCE_ASSIGN ? 0 : 1];
}

const char *sl_op_name(sl_op op) {
  return (unsigned)op < SL_OP_COUNT ? sl__ops[op]->name : "?";
}

int sl_op_from_name(const char *name) {
  if (!name) return -1;
  for (int i = 0; i < SL_OP_COUNT; ++i)
    if (strcmp(name, sl__ops[i]->name) == 0) return i;
  return -1;
}

int sl_op_arg(sl_op op, const char *arg_name) {
  const sl_op_info *info = sl_op_get(op);
  if (!info || !arg_name) return -1;
  for (int i = 0; i < info->n_in + info->n_out; ++i)
    if (strcmp(info->arg_names[i], arg_name) == 0) return i;
  return -1;
}

const char *sl_reduce_name(sl_reduce r) {
  return (unsigned)r < SL_REDUCE_COUNT ? sl__reduce_names[r] : "?";
}

int sl_reduce_from_name(const char *name) {
  if (!name) return -1;
  for (int i = 0; i < SL_REDUCE_COUNT; ++i)
    if (strcmp(name, sl__reduce_names[i]) == 0) return i;
  return -1;
}

void sl_call_init(sl_call *call, sl_op op) {
  if (!call) return;
  memset(call, 0, sizeof *call);
  call->op = op;
  call->p.reduce = SL_REDUCE_NONE;
  call->p.include_self = 1;
}
