/*
 * The table of what the case generator knows of each op (sl__fuzz_op,
 * casegen_internal.h): the rows live in their families' files (families/),
 * the table is built from the core's op list, so an op added there without
 * its row does not compile. The dtypes and reduces of a valid case are the
 * core's catalogue (sl_op_dtypes), read by sl__fuzz_dtypes and
 * sl__fuzz_reduces below.
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

static const sl__fuzz_op *const sl__fuzz_ops[SL_OP_COUNT] = {
#define SL__FUZZ_ROW(e, name) [SL_OP_##e] = &sl__fuzz_##name,
    SL_OP_MAP(SL__FUZZ_ROW)
#undef SL__FUZZ_ROW
};

const sl__fuzz_op *sl__fuzz_op_of(sl_op op) {
  return (unsigned)op < SL_OP_COUNT ? sl__fuzz_ops[op] : NULL;
}
