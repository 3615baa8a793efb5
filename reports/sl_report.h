/*
 * scatterlab reports: what the results store holds, for people and for
 * spreadsheets. Reports only read the store (open it SL_STORE_READONLY).
 *
 * Every function returns 0 on success and non-zero on failure with a message
 * in err (naming the database file for store errors); err may be NULL.
 */
#ifndef SL_REPORT_H
#define SL_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sl_store.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A readable table of the runs in the store, oldest first, one line each:
 *
 *   id  kind   started (UTC)        status      cases  results  failed
 *   commit      command
 *
 * "failed" counts results whose verdict is failed, reject_mismatch, crashed
 * or timeout. An empty store prints a line that says so. */
int sl_report_runs(sl_store *s, FILE *out, char *err, size_t errlen);

/* The results of run_id (0: of every run) as CSV, one row per (case,
 * variant), ordered by run, case id, variant. The header is stable; columns
 * are only ever appended:
 *
 *   run_id,case_id,op,variant,verdict,diff1,diff2,diff3,seconds,seed,
 *   case_line,message
 *
 *   run_id     the run (runs.id)
 *   case_id    the case (cases.id)
 *   op         operator name, e.g. scatter_reduce
 *   variant    device.strategy, e.g. cpu.atomic
 *   verdict    passed failed both_rejected reject_mismatch crashed timeout
 *              unsupported mistrusted
 *   diff1      sum|a-b| / sum|b|        (empty: not compared)
 *   diff2      sqrt(sum(a-b)^2 / sum b^2) (empty: not compared)
 *   diff3      max|a-b|                 (empty: not compared)
 *   seconds    wall time of the kernel call (empty: not measured)
 *   seed       the case's data seed, unsigned decimal
 *   case_line  the case descriptor (pass it to `scatterlab run` to repeat)
 *   message    why, for anything but a pass; may be empty
 *
 * Format: RFC 4180 style with "\n" line ends. A field is quoted (by libcsv's
 * csv_fwrite, quotes doubled) when it holds a comma, a quote, a line break,
 * or leading or trailing blanks; otherwise it is written as is. NULL is an
 * empty field. Numbers use the shortest decimal form that reads back to the
 * same double. A run_id that does not exist is an error. */
int sl_report_csv_results(sl_store *s, int64_t run_id, FILE *out, char *err,
                          size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
