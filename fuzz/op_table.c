/*
 * What the case generator knows of each op (sl__fuzz_op, casegen_internal.h):
 * its shape generator, the dtypes and reduces it refuses, and the schedules
 * it takes part in. One row per op; the table is built from the core's op
 * list, so an op added there without its row here does not compile. The
 * dtypes and reduces of a valid case are the core's catalogue
 * (sl_op_dtypes), read by sl__fuzz_dtypes and sl__fuzz_reduces below.
 */
#include "casegen_internal.h"

/* The data dtypes of any valid case of op: those it takes with some
 * reduce. */
unsigned sl__fuzz_dtypes(sl_op op) {
  unsigned d = 0;
  for (int r = 0; r < SL_REDUCE_COUNT; ++r) d |= sl_op_dtypes(op, (sl_reduce)r);
  return d;
}

/* The reduces op takes with data dtype dt (SL_REDUCE_NONE for an op without
 * reduces). */
unsigned sl__fuzz_reduces(sl_op op, sl_dtype dt) {
  unsigned rs = 0;
  for (int r = 0; r < SL_REDUCE_COUNT; ++r)
    if ((unsigned)dt < SL_DTYPE_COUNT &&
        (sl_op_dtypes(op, (sl_reduce)r) & SL__BIT(dt)))
      rs |= SL__BIT(r);
  return rs;
}

/* Reduces each op refuses, in the order the breaker draws them (pinned by
 * e2e.case_stream): the complement of the catalogue's reduces in
 * SL_REDUCE_MAP order, but for scatter_nd's, which leaves out amin. */
static const sl_reduce sl__bad_sr[] = {SL_REDUCE_NONE, SL_REDUCE_ASSIGN,
                                       SL_REDUCE_MAX};
static const sl_reduce sl__bad_nd[] = {SL_REDUCE_ASSIGN, SL_REDUCE_PROD,
                                       SL_REDUCE_MEAN, SL_REDUCE_AMAX,
                                       SL_REDUCE_MAX};
static const sl_reduce sl__bad_ir[] = {SL_REDUCE_NONE, SL_REDUCE_MAX};
static const sl_reduce sl__bad_dy[] = {SL_REDUCE_NONE, SL_REDUCE_ASSIGN,
                                       SL_REDUCE_PROD, SL_REDUCE_AMAX,
                                       SL_REDUCE_AMIN};
/* Invalid classes (sl__fuzz_op.classes). The value classes (oob, neg) and
 * the index dtype class apply to an op whose slot 1 holds values (index
 * positions, tuples, lengths), and so do the dim, rank and shape ones. */
#define SL__CL(k) (1u << SL_FUZZ_##k)
#define SL__INDEX_CLASSES                                                      \
  (SL__CL(OOB) | SL__CL(NEG) | SL__CL(ITYPE) | SL__CL(DIM) | SL__CL(RANK) |    \
   SL__CL(SHAPE))
#define SL__COUNT(a) (int)(sizeof a / sizeof a[0])

static const sl__fuzz_op sl__fuzz_gather = {
    .gen = sl__gen_gather,
    .break_dim = sl__break_dim_dimwise,
    .break_rank = sl__break_rank_dimwise,
    .break_shape = sl__break_shape_dimwise,
    .huge = sl__huge_dimwise,
    .repair = sl__repair_dimwise,
    .drop_axis = sl__drop_axis_dimwise,
    .classify = sl__classify_dimwise,
    .out_like_index = 1,
    .classes = SL__INDEX_CLASSES};
static const sl__fuzz_op sl__fuzz_gather_nd = {.gen = sl__gen_gather_nd,
                                               .break_dim = sl__break_dim_nd,
                                               .break_rank = sl__break_rank_nd,
                                               .break_shape =
                                                   sl__break_shape_nd,
                                               .huge = sl__huge_nd,
                                               .repair = sl__repair_nd,
                                               .drop_axis = sl__drop_axis_nd,
                                               .classify = sl__classify_nd,
                                               .out_like_index = 1,
                                               .classes = SL__INDEX_CLASSES};
static const sl__fuzz_op sl__fuzz_scatter = {
    .gen = sl__gen_scatter,
    .break_dim = sl__break_dim_dimwise,
    .break_rank = sl__break_rank_dimwise,
    .break_shape = sl__break_shape_dimwise,
    .huge = sl__huge_dimwise,
    .stress = 1,
    .repair = sl__repair_dimwise,
    .drop_axis = sl__drop_axis_dimwise,
    .classify = sl__classify_dimwise,
    .classes = SL__INDEX_CLASSES | SL__CL(SCALAR)};
static const sl__fuzz_op sl__fuzz_scatter_reduce = {
    .gen = sl__gen_scatter_reduce,
    .break_dtype = sl__break_dtype_reducing,
    .bad_reduces = sl__bad_sr,
    .n_bad_reduces = SL__COUNT(sl__bad_sr),
    .break_dim = sl__break_dim_dimwise,
    .break_rank = sl__break_rank_dimwise,
    .break_shape = sl__break_shape_dimwise,
    .huge = sl__huge_dimwise,
    .stress = 1,
    .repair = sl__repair_dimwise,
    .drop_axis = sl__drop_axis_dimwise,
    .classify = sl__classify_dimwise,
    .classes = SL__INDEX_CLASSES};
static const sl__fuzz_op sl__fuzz_scatter_reduce_backward = {
    .break_dtype = sl__break_dtype_reducing,
    .bad_reduces = sl__bad_sr,
    .n_bad_reduces = SL__COUNT(sl__bad_sr),
    .stress = 1,
    .classes = SL__INDEX_CLASSES};
static const sl__fuzz_op sl__fuzz_scatter_nd = {
    .gen = sl__gen_scatter_nd,
    .bad_reduces = sl__bad_nd,
    .n_bad_reduces = SL__COUNT(sl__bad_nd),
    .break_dim = sl__break_dim_nd,
    .break_rank = sl__break_rank_nd,
    .break_shape = sl__break_shape_nd,
    .huge = sl__huge_nd,
    .stress = 1,
    .repair = sl__repair_nd,
    .drop_axis = sl__drop_axis_nd,
    .classify = sl__classify_nd,
    .classes = SL__INDEX_CLASSES};
static const sl__fuzz_op sl__fuzz_index_reduce = {
    .gen = sl__gen_index_reduce,
    .break_dtype = sl__break_dtype_reducing,
    .bad_reduces = sl__bad_ir,
    .n_bad_reduces = SL__COUNT(sl__bad_ir),
    .break_dim = sl__break_dim_dimwise,
    .break_rank = sl__break_rank_index_reduce,
    .break_shape = sl__break_shape_index_reduce,
    .huge = sl__huge_index_reduce,
    .stress = 1,
    .repair = sl__repair_index_reduce,
    .drop_axis = sl__drop_axis_index_reduce,
    .classify = sl__classify_index_reduce,
    .classes = SL__INDEX_CLASSES};
static const sl__fuzz_op sl__fuzz_index_reduce_backward = {
    .break_dtype = sl__break_dtype_reducing,
    .bad_reduces = sl__bad_ir,
    .n_bad_reduces = SL__COUNT(sl__bad_ir),
    .stress = 1,
    .classes = SL__INDEX_CLASSES};
static const sl__fuzz_op sl__fuzz_select_scatter = {
    .gen = sl__gen_select,
    .break_dim = sl__break_dim_dimwise,
    .break_rank = sl__break_rank_select,
    .break_shape = sl__break_shape_select,
    .huge = sl__huge_select,
    .repair = sl__repair_select,
    .drop_axis = sl__drop_axis_select,
    .classify = sl__classify_select,
    .classes = SL__CL(OOB) | SL__CL(DIM) | SL__CL(RANK) | SL__CL(SHAPE)};
static const sl__fuzz_op sl__fuzz_masked_scatter = {
    .gen = sl__gen_masked,
    .repair = sl__repair_masked,
    .drop_axis = sl__drop_axis_masked,
    .classify = sl__classify_masked,
    .classes = SL__CL(MASK) | SL__CL(SHORT)};
static const sl__fuzz_op sl__fuzz_dynamic_scatter = {
    .gen = sl__gen_dynamic,
    .break_dtype = sl__break_dtype_dynamic,
    .bad_reduces = sl__bad_dy,
    .n_bad_reduces = SL__COUNT(sl__bad_dy),
    .break_rank = sl__break_rank_dynamic,
    .break_shape = sl__break_shape_dynamic,
    .stress = 1,
    .repair = sl__repair_dynamic,
    .classify = sl__classify_dynamic,
    .classes = SL__CL(RANK) | SL__CL(SHAPE)};
static const sl__fuzz_op sl__fuzz_dynamic_scatter_backward = {
    .break_dtype = sl__break_dtype_dynamic,
    .bad_reduces = sl__bad_dy,
    .n_bad_reduces = SL__COUNT(sl__bad_dy),
    .stress = 1,
    .classes = SL__CL(RANK)};

static const sl__fuzz_op sl__fuzz_segment_reduce = {
    .gen = sl__gen_segment,
    .break_dtype = sl__break_dtype_segment,
    .bad_reduces = sl__bad_sr,
    .n_bad_reduces = SL__COUNT(sl__bad_sr),
    .break_dim = sl__break_dim_segment,
    .break_rank = sl__break_rank_segment,
    .break_shape = sl__break_shape_segment,
    .repair = sl__repair_segment,
    .drop_axis = sl__drop_axis_segment,
    .classify = sl__classify_segment,
    .classes = SL__INDEX_CLASSES};
static const sl__fuzz_op sl__fuzz_segment_reduce_backward = {
    .break_dtype = sl__break_dtype_segment,
    .bad_reduces = sl__bad_sr,
    .n_bad_reduces = SL__COUNT(sl__bad_sr),
    .classes = SL__INDEX_CLASSES};

static const sl__fuzz_op *const sl__fuzz_ops[SL_OP_COUNT] = {
#define SL__FUZZ_ROW(e, name) [SL_OP_##e] = &sl__fuzz_##name,
    SL_OP_MAP(SL__FUZZ_ROW)
#undef SL__FUZZ_ROW
};

const sl__fuzz_op *sl__fuzz_op_of(sl_op op) {
  return (unsigned)op < SL_OP_COUNT ? sl__fuzz_ops[op] : NULL;
}
