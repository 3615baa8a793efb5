/*
 * A judged case into the store: the case row, then one results row per
 * variant verdict. Shared by `run`, `fuzz` and the benches, which all
 * record what the reference said of every variant.
 */
#ifndef SL_STORE_VERDICTS_H
#define SL_STORE_VERDICTS_H

#include <stdint.h>

#include "runner.h"
#include "sl_store.h"

/* Stores case `line` of op (seed kept bit for bit; shrunk_from: the case
 * it was shrunk from, or 0) in run run_id and the n verdicts v; *case_id
 * gets the case row. 0, or -1 on a store error (sl_store_errmsg). */
int sl_store_verdicts(sl_store *st, int64_t run_id, sl_op op, const char *line,
                      uint64_t seed, int64_t shrunk_from,
                      const sl_variant_result *v, int n, int64_t *case_id);

#endif /* SL_STORE_VERDICTS_H */
