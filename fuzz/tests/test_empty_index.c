/*
 * Empty indexes reach every op that takes one, in both index dtypes and at
 * every index rank the op's cases take (PyTorch #70662: an empty index
 * left the output uninitialised): counted over the valid cases of the
 * default campaign, as (op, index dtype, index rank) with no index
 * element.
 */
#include <stdint.h>
#include <stdio.h>

#include "case.h"
#include "casegen.h"
#include "datagen.h"
#include "sl_test.h"

#define RANKS (SL_MAX_DIMS + 2)

int main(void) {
  static int seen[SL_OP_COUNT][2][RANKS], any[SL_OP_COUNT][2][RANKS];
  for (uint64_t i = 0; i < 400000; ++i) {
    sl_case c;
    if (sl_fuzz_case(1, i, NULL, &c)) continue; /* valid cases only */
    if (!(sl_case_spec_of(c.op)->keys & SL_KEY_IT)) continue;
    sl_case fw;
    sl_case_forward(&c, &fw);
    if (fw.op == SL_OP_DYNAMIC_SCATTER) continue; /* coors, not an index */
    const sl_case_shape *index = &fw.arg[1];
    if (!index->present || index->ndim >= RANKS) continue;
    int64_t n = 1;
    for (int d = 0; d < index->ndim; ++d) n *= index->shape[d];
    const int it = c.it == SL_I64;
    any[c.op][it][index->ndim] = 1;
    if (n == 0) ++seen[c.op][it][index->ndim];
  }
  int combos = 0, missing = 0;
  for (int op = 0; op < SL_OP_COUNT; ++op)
    for (int it = 0; it < 2; ++it)
      for (int r = 1; r < RANKS; ++r) {
        /* the ranks the op's cases take at all; a rank-0 index holds one
         * element, never none */
        if (!any[op][it][r]) continue;
        ++combos;
        if (seen[op][it][r]) continue;
        ++missing;
        CHECK_MSG(0, "%s: no empty %s index of rank %d in 400,000 cases",
                  sl_op_name((sl_op)op), it ? "i64" : "i32", r);
      }
  printf("  %d (op, index dtype, rank) combinations, %d without an empty "
         "index\n",
         combos, missing);
  CHECK(combos > 50);
  return sl_test_finish("test_empty_index");
}
