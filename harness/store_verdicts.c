/* A judged case into the store (store_verdicts.h). */
#include "store_verdicts.h"

int sl_store_verdicts(sl_store *st, int64_t run_id, sl_op op, const char *line,
                      uint64_t seed, int64_t shrunk_from,
                      const sl_variant_result *v, int n, int64_t *case_id) {
  if (sl_store_add_case(st, run_id, sl_op_name(op), line, seed, shrunk_from,
                        case_id))
    return -1;
  for (int i = 0; i < n; ++i) {
    const sl_variant_result *r = &v[i];
    sl_result_row row = {r->variant, sl_verdict_name(r->verdict),
                         r->message, r->has_diffs,
                         r->diff1,   r->diff2,
                         r->diff3,   r->seconds};
    if (sl_store_add_result(st, *case_id, &row)) return -1;
  }
  return 0;
}
