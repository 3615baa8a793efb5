/*
 * The harness's op table (op_facts.h) against the rules docs/spec.md states
 * for each op: every op has a row; the output starts as x exactly for the
 * ops that write into x (an output equal to x then proves little); the
 * backward ops of a linear reduce read only the gradient and the index (and
 * the counts of a mean); the results that cannot depend on the order of the
 * updates, and the axes reversed to show it; the oracle of each output.
 */
#include <string.h>

#include "op_facts.h"
#include "sl_test.h"

static void test_rows(void) {
  for (int op = 0; op < SL_OP_COUNT; ++op) {
    const sl_harness_op *h = sl_harness_op_of((sl_op)op);
    CHECK_MSG(h != NULL, "op %d has no row", op);
  }
  CHECK(sl_harness_op_of(SL_OP_COUNT) == NULL);
  CHECK(sl_harness_op_of((sl_op)-1) == NULL);
}

static void test_writes_into_x(void) {
  const sl_op into[] = {SL_OP_SCATTER,        SL_OP_SCATTER_REDUCE,
                        SL_OP_SCATTER_ND,     SL_OP_INDEX_REDUCE,
                        SL_OP_SELECT_SCATTER, SL_OP_MASKED_SCATTER};
  int n = 0;
  for (int op = 0; op < SL_OP_COUNT; ++op) {
    int want = 0;
    for (size_t k = 0; k < sizeof into / sizeof into[0]; ++k)
      want |= into[k] == (sl_op)op;
    CHECK_MSG(sl_harness_op_of((sl_op)op)->writes_into_x == want, "%s",
              sl_op_get((sl_op)op)->name);
    n += want;
  }
  CHECK(n == 6);
}

static void test_reads_input(void) {
  sl_call c;
  sl_call_init(&c, SL_OP_SCATTER_REDUCE_BACKWARD);
  const sl_harness_op *h = sl_harness_op_of(c.op);
  c.p.reduce = SL_REDUCE_SUM; /* grad_out x index src result */
  CHECK(h->reads_input(&c, 0) && h->reads_input(&c, 2));
  CHECK(!h->reads_input(&c, 1) && !h->reads_input(&c, 3) &&
        !h->reads_input(&c, 4));
  c.p.reduce = SL_REDUCE_AMAX;
  for (int s = 0; s < 5; ++s) CHECK(h->reads_input(&c, s));
  sl_call_init(&c, SL_OP_DYNAMIC_SCATTER_BACKWARD);
  h = sl_harness_op_of(c.op);
  c.p.reduce = SL_REDUCE_MEAN; /* grad feats voxel_feats map counts */
  CHECK(h->reads_input(&c, 0) && h->reads_input(&c, 3) &&
        h->reads_input(&c, 4));
  CHECK(!h->reads_input(&c, 1) && !h->reads_input(&c, 2));
  c.p.reduce = SL_REDUCE_SUM;
  CHECK(!h->reads_input(&c, 4));
  CHECK(sl_harness_op_of(SL_OP_GATHER)->reads_input == NULL);
}

/* A call of op with x of dtype dt and an index of rank `irank`. */
static sl_call call_of(sl_op op, sl_dtype dt, sl_reduce r, int irank) {
  static const int64_t shape[3] = {2, 3, 2};
  sl_call c;
  sl_call_init(&c, op);
  c.p.reduce = r;
  c.arg[0] = sl_tensor_make(dt, 2, shape, NULL);
  c.arg[1] = sl_tensor_make(SL_I64, irank, shape, NULL);
  c.arg[2] = sl_tensor_make(dt, 2, shape, NULL);
  return c;
}

static void test_reversal(void) {
  sl_reversal v;
  sl_call c = call_of(SL_OP_SCATTER_REDUCE, SL_F32, SL_REDUCE_AMAX, 2);
  c.p.dim = -1;
  const sl_harness_op *h = sl_harness_op_of(c.op);
  memset(&v, 0, sizeof v);
  CHECK(h->reversal(&c, &v) == 1);
  CHECK(v.imask == 2u && v.umask == 2u && v.uslot == 2 && v.cut == 1);
  c.p.reduce = SL_REDUCE_SUM; /* float sum: order changes the rounding */
  CHECK(h->reversal(&c, &v) == 0);
  c = call_of(SL_OP_SCATTER_REDUCE, SL_I32, SL_REDUCE_SUM, 2);
  CHECK(h->reversal(&c, &v) == 1);
  c = call_of(SL_OP_INDEX_REDUCE, SL_I64, SL_REDUCE_PROD, 1);
  c.p.dim = 1;
  h = sl_harness_op_of(c.op);
  memset(&v, 0, sizeof v);
  CHECK(h->reversal(&c, &v) == 1);
  CHECK(v.imask == 1u && v.umask == 2u && v.uslot == 2 && v.cut == 0);
  c.p.reduce = SL_REDUCE_ASSIGN; /* any writer may win */
  CHECK(h->reversal(&c, &v) == 0);
  /* scatter_nd: index [2,3,2] over x's 2 axes, dims (1): axis 1 named. */
  c = call_of(SL_OP_SCATTER_ND, SL_I32, SL_REDUCE_SUM, 3);
  c.arg[1].shape[2] = 1;
  c.p.ndims = 1;
  c.p.dims[0] = 1;
  h = sl_harness_op_of(c.op);
  memset(&v, 0, sizeof v);
  CHECK(h->reversal(&c, &v) == 1);
  CHECK(v.imask == 2u && v.umask == 2u);
  c = call_of(SL_OP_SCATTER_ND, SL_F32, SL_REDUCE_SUM, 3);
  CHECK(h->reversal(&c, &v) == 0);
  CHECK(sl_harness_op_of(SL_OP_GATHER)->reversal == NULL);
  CHECK(sl_harness_op_of(SL_OP_DYNAMIC_SCATTER)->reversal == NULL);
}

static void test_oracles(void) {
  sl_case c;
  sl_case_init(&c, SL_OP_GATHER);
  CHECK(sl_oracle_for(&c, 2) == SL_ORACLE_BITWISE);
  sl_case_init(&c, SL_OP_SCATTER);
  CHECK(sl_oracle_for(&c, 3) == SL_ORACLE_ANY_VALID);
  sl_case_init(&c, SL_OP_SCATTER_REDUCE);
  c.reduce = SL_REDUCE_SUM;
  CHECK(sl_oracle_for(&c, 3) == SL_ORACLE_TOLERANCE);
  c.reduce = SL_REDUCE_AMAX;
  CHECK(sl_oracle_for(&c, 3) == SL_ORACLE_EXACT);
  c.dt = SL_I32;
  c.reduce = SL_REDUCE_SUM;
  CHECK(sl_oracle_for(&c, 3) == SL_ORACLE_EXACT);
  sl_case_init(&c, SL_OP_INDEX_REDUCE);
  c.reduce = SL_REDUCE_ASSIGN;
  CHECK(sl_oracle_for(&c, 3) == SL_ORACLE_ANY_VALID);
  sl_case_init(&c, SL_OP_SCATTER_ND);
  c.reduce = SL_REDUCE_NONE;
  CHECK(sl_oracle_for(&c, 3) == SL_ORACLE_ANY_VALID);
  sl_case_init(&c, SL_OP_DYNAMIC_SCATTER);
  c.reduce = SL_REDUCE_MEAN;
  CHECK(sl_oracle_for(&c, 2) == SL_ORACLE_TOLERANCE);
  CHECK(sl_oracle_for(&c, 3) == SL_ORACLE_EXACT);
  c.reduce = SL_REDUCE_MAX;
  CHECK(sl_oracle_for(&c, 2) == SL_ORACLE_EXACT);
  sl_case_init(&c, SL_OP_DYNAMIC_SCATTER_BACKWARD);
  c.reduce = SL_REDUCE_MAX;
  CHECK(sl_oracle_for(&c, 5) == SL_ORACLE_EXACT);
}

/* Every backward op, and only those, builds its inputs from its forward's
 * run; the adjoint identity covers the adding scatters and every backward
 * op; only dynamic_scatter's voxel outputs are cut to out_rows; only
 * masked_scatter reads part of an input. */
static void test_hooks(void) {
  const sl_op adjoint[] = {SL_OP_SCATTER_REDUCE, SL_OP_SCATTER_ND,
                           SL_OP_INDEX_REDUCE};
  for (int op = 0; op < SL_OP_COUNT; ++op) {
    const sl_harness_op *h = sl_harness_op_of((sl_op)op);
    const char *name = sl_op_get((sl_op)op)->name;
    const int backward = sl_case_is_backward((sl_op)op);
    CHECK_MSG((h->backward_inputs != NULL) == backward, "%s", name);
    int want = backward;
    for (size_t k = 0; k < sizeof adjoint / sizeof adjoint[0]; ++k)
      want |= adjoint[k] == (sl_op)op;
    CHECK_MSG((h->adjoint != NULL) == want, "%s", name);
    CHECK_MSG(h->out_rows_slots == (op == SL_OP_DYNAMIC_SCATTER ? 0x2cu : 0u),
              "%s", name);
    CHECK_MSG((h->read_elems != NULL) == (op == SL_OP_MASKED_SCATTER), "%s",
              name);
  }
  /* masked_scatter reads as many source elements as the mask has true
   * positions over x; x and the mask are read whole */
  uint8_t mask[6] = {1, 0, 1, 1, 0, 0};
  float x[6] = {0}, src[6] = {0};
  const int64_t shape[2] = {2, 3};
  sl_call c;
  sl_call_init(&c, SL_OP_MASKED_SCATTER);
  c.arg[0] = sl_tensor_make(SL_F32, 2, shape, x);
  c.arg[1] = sl_tensor_make(SL_BOOL, 2, shape, mask);
  c.arg[2] = sl_tensor_make(SL_F32, 2, shape, src);
  const sl_harness_op *h = sl_harness_op_of(SL_OP_MASKED_SCATTER);
  CHECK(h->read_elems(&c, 2) == 3);
  CHECK(h->read_elems(&c, 0) == -1 && h->read_elems(&c, 1) == -1);
}

int main(void) {
  test_rows();
  test_hooks();
  test_writes_into_x();
  test_reads_input();
  test_reversal();
  test_oracles();
  return sl_test_finish("test_op_facts");
}
