/* A judged case into the store (store_verdicts.h). */
#include "store_verdicts.h"

#include "failure_group.h"

int sl_store_verdicts(sl_store *st, int64_t run_id, sl_op op_code,
                      sl_dtype dtype, const char *line, uint64_t seed,
                      int64_t shrunk_from, int keep_all,
                      const sl_variant_result *v, int n, int64_t *case_id) {
  const char *op = sl_op_name(op_code), *dt = sl_dtype_name(dtype);
  int keep = keep_all || shrunk_from > 0;
  for (int i = 0; i < n; ++i) keep |= sl_verdict_is_failure(v[i].verdict);
  *case_id = 0;
  if (!keep) { /* counted only */
    if (sl_store_count_case(st, run_id)) return -1;
    for (int i = 0; i < n; ++i)
      if (sl_store_tally(st, run_id, op, dt, v[i].variant,
                         sl_verdict_name(v[i].verdict)))
        return -1;
    return 0;
  }
  /* Stored, and counted by the store as it adds the rows. */
  if (sl_store_add_case(st, run_id, op, line, seed, shrunk_from, case_id))
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

int sl_store_verdict_signatures(sl_store *st, int64_t case_id, const sl_case *c,
                                const sl_variant_result *v, int n) {
  for (int i = 0; i < n && case_id; ++i) {
    if (!sl_verdict_is_failure(v[i].verdict)) continue;
    sl_failure_sig sig;
    sl_failure_signature(c, v[i].variant, sl_verdict_name(v[i].verdict),
                         v[i].message, &sig);
    if (sl_store_set_signature(st, case_id, v[i].variant, sig.text)) return -1;
  }
  return 0;
}
