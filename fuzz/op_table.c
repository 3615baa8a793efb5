/*
 * What the case generator knows of each op (sl__fuzz_op, casegen_internal.h):
 * its shape generator, dtypes, reduces, the dtypes and reduces it refuses,
 * and the schedules it takes part in. One row per op; the table is built
 * from the core's op list, so an op added there without its row here does
 * not compile.
 */
#include "casegen_internal.h"

/* Data dtypes. */
static const unsigned sl__reduction_dtypes =
    SL__BIT(SL_I32) | SL__BIT(SL_I64) | SL__BIT(SL_F16) | SL__BIT(SL_BF16) |
    SL__BIT(SL_F32) | SL__BIT(SL_F64);
/* Autograd needs floating point: the backward ops take float dtypes only. */
static const unsigned sl__float_dtypes =
    SL__BIT(SL_F16) | SL__BIT(SL_BF16) | SL__BIT(SL_F32) | SL__BIT(SL_F64);
static const unsigned sl__dynamic_dtypes = SL__BIT(SL_F32) | SL__BIT(SL_F64);

/* Reduces by data dtype. */
static const unsigned sl__sr_reduces =
    SL__BIT(SL_REDUCE_SUM) | SL__BIT(SL_REDUCE_PROD) | SL__BIT(SL_REDUCE_MEAN) |
    SL__BIT(SL_REDUCE_AMAX) | SL__BIT(SL_REDUCE_AMIN);

static int sl__reducible(sl_dtype dt) {
  return (sl__reduction_dtypes & SL__BIT(dt)) != 0;
}

static unsigned sl__no_reduce(sl_dtype dt) {
  (void)dt;
  return SL__BIT(SL_REDUCE_NONE);
}

static unsigned sl__scatter_reduce_reduces(sl_dtype dt) {
  return sl__reducible(dt) ? sl__sr_reduces : 0;
}

static unsigned sl__scatter_nd_reduces(sl_dtype dt) {
  return SL__BIT(SL_REDUCE_NONE) |
         (sl__reducible(dt) ? SL__BIT(SL_REDUCE_SUM) : 0);
}

static unsigned sl__index_reduce_reduces(sl_dtype dt) {
  return SL__BIT(SL_REDUCE_ASSIGN) | (sl__reducible(dt) ? sl__sr_reduces : 0);
}

static unsigned sl__dynamic_reduces(sl_dtype dt) {
  (void)dt;
  return SL__BIT(SL_REDUCE_SUM) | SL__BIT(SL_REDUCE_MEAN) |
         SL__BIT(SL_REDUCE_MAX);
}

/* Reduces each op refuses. */
static const sl_reduce sl__bad_sr[] = {SL_REDUCE_NONE, SL_REDUCE_ASSIGN,
                                       SL_REDUCE_MAX};
static const sl_reduce sl__bad_nd[] = {SL_REDUCE_ASSIGN, SL_REDUCE_PROD,
                                       SL_REDUCE_MEAN, SL_REDUCE_AMAX,
                                       SL_REDUCE_MAX};
static const sl_reduce sl__bad_ir[] = {SL_REDUCE_NONE, SL_REDUCE_MAX};
static const sl_reduce sl__bad_dy[] = {SL_REDUCE_NONE, SL_REDUCE_ASSIGN,
                                       SL_REDUCE_PROD, SL_REDUCE_AMAX,
                                       SL_REDUCE_AMIN};
#define SL__BAD(a) a, (int)(sizeof a / sizeof a[0])

/* gen, dtypes, reduces, break_dtype, bad_reduces, n, huge, stress */
static const sl__fuzz_op sl__fuzz_gather = {
    sl__gen_gather, SL__ALL_DTYPES, sl__no_reduce, NULL, NULL, 0, 1, 0};
static const sl__fuzz_op sl__fuzz_gather_nd = {
    sl__gen_gather_nd, SL__ALL_DTYPES, sl__no_reduce, NULL, NULL, 0, 1, 0};
static const sl__fuzz_op sl__fuzz_scatter = {
    sl__gen_scatter, SL__ALL_DTYPES, sl__no_reduce, NULL, NULL, 0, 1, 1};
static const sl__fuzz_op sl__fuzz_scatter_reduce = {sl__gen_scatter_reduce,
                                                    sl__reduction_dtypes,
                                                    sl__scatter_reduce_reduces,
                                                    sl__break_dtype_reducing,
                                                    SL__BAD(sl__bad_sr),
                                                    1,
                                                    1};
static const sl__fuzz_op sl__fuzz_scatter_reduce_backward = {
    NULL,
    sl__float_dtypes,
    sl__scatter_reduce_reduces,
    sl__break_dtype_reducing,
    SL__BAD(sl__bad_sr),
    0,
    1};
static const sl__fuzz_op sl__fuzz_scatter_nd = {sl__gen_scatter_nd,
                                                SL__ALL_DTYPES,
                                                sl__scatter_nd_reduces,
                                                NULL,
                                                SL__BAD(sl__bad_nd),
                                                1,
                                                1};
static const sl__fuzz_op sl__fuzz_index_reduce = {sl__gen_index_reduce,
                                                  SL__ALL_DTYPES,
                                                  sl__index_reduce_reduces,
                                                  sl__break_dtype_reducing,
                                                  SL__BAD(sl__bad_ir),
                                                  1,
                                                  1};
static const sl__fuzz_op sl__fuzz_index_reduce_backward = {
    NULL,
    sl__float_dtypes,
    sl__index_reduce_reduces,
    sl__break_dtype_reducing,
    SL__BAD(sl__bad_ir),
    0,
    1};
static const sl__fuzz_op sl__fuzz_select_scatter = {
    sl__gen_select, SL__ALL_DTYPES, sl__no_reduce, NULL, NULL, 0, 1, 0};
static const sl__fuzz_op sl__fuzz_masked_scatter = {
    sl__gen_masked, SL__ALL_DTYPES, sl__no_reduce, NULL, NULL, 0, 0, 0};
static const sl__fuzz_op sl__fuzz_dynamic_scatter = {sl__gen_dynamic,
                                                     sl__dynamic_dtypes,
                                                     sl__dynamic_reduces,
                                                     sl__break_dtype_dynamic,
                                                     SL__BAD(sl__bad_dy),
                                                     0,
                                                     1};
static const sl__fuzz_op sl__fuzz_dynamic_scatter_backward = {
    NULL,
    sl__dynamic_dtypes,
    sl__dynamic_reduces,
    sl__break_dtype_dynamic,
    SL__BAD(sl__bad_dy),
    0,
    1};

static const sl__fuzz_op *const sl__fuzz_ops[SL_OP_COUNT] = {
#define SL__FUZZ_ROW(e, name) [SL_OP_##e] = &sl__fuzz_##name,
    SL_OP_MAP(SL__FUZZ_ROW)
#undef SL__FUZZ_ROW
};

const sl__fuzz_op *sl__fuzz_op_of(sl_op op) {
  return (unsigned)op < SL_OP_COUNT ? sl__fuzz_ops[op] : NULL;
}
