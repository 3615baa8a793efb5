/*
 * A judged case into the store: counted, then (as the run keeps it) the
 * case row and one results row per variant verdict. Shared by `run`,
 * `fuzz` and the benches, which all record what the reference said of
 * every variant.
 */
#ifndef SL_STORE_VERDICTS_H
#define SL_STORE_VERDICTS_H

#include <stdint.h>

#include "runner.h"
#include "sl_store.h"

/* Records case `line` of op and dtype (seed kept bit for bit; shrunk_from:
 * the kept case it was shrunk from, or 0) judged in run run_id with the n
 * verdicts v: the case
 * and every verdict are counted (runs.ncases, tallies); the case row and
 * its results rows are stored when keep_all, when a verdict is failing
 * (sl_verdict_is_failure) or when it is a shrunk case.
 * *case_id gets the case row, 0 when it was not kept. 0, or -1 on a store
 * error (sl_store_errmsg). */
int sl_store_verdicts(sl_store *st, int64_t run_id, sl_op op, sl_dtype dtype,
                      const char *line, uint64_t seed, int64_t shrunk_from,
                      int keep_all, const sl_variant_result *v, int n,
                      int64_t *case_id);

/* Records with each failing verdict of v on the kept case case_id (of
 * case c, run as given) its failure group signature (failure_group.h), for
 * `scatterlab report --failures`. 0, or -1 on a store error. */
int sl_store_verdict_signatures(sl_store *st, int64_t case_id, const sl_case *c,
                                const sl_variant_result *v, int n);

#endif /* SL_STORE_VERDICTS_H */
