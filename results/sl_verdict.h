/*
 * The verdicts of scatterlab, from the one table results/verdicts.def: the
 * enum the harness judges with, the names the store keeps, whether each
 * counts as a failure, and the SQL list of the failing ones. In results/
 * (below the harness and the reports, above core/, which knows nothing of
 * verdicts) so that every layer that needs the list includes this header
 * and none restates it. No SQLite here: the SQL list is text.
 */
#ifndef SL_VERDICT_H
#define SL_VERDICT_H

#include <stddef.h>

typedef enum sl_verdict {
#define SL_VERDICT(e, name, fails, description) SL_VERDICT_##e,
#include "verdicts.def"
#undef SL_VERDICT
  SL_VERDICT_COUNT
} sl_verdict;

/* The stored name ("passed"), or "?" for a value outside the table. */
const char *sl_verdict_name(sl_verdict v);
/* One line for people, or "" outside the table. */
const char *sl_verdict_description(sl_verdict v);
/* Whether v counts as a failure (exit status 1; the table's `fails`); 0
 * outside the table. */
int sl_verdict_is_failure(sl_verdict v);
/* The verdict stored as `name`, or -1 (NULL, or a name this build does not
 * know: a store written by a newer scatterlab). */
int sl_verdict_from_name(const char *name);
/* Whether the stored name counts as a failure; 0 for an unknown name. */
int sl_verdict_name_is_failure(const char *name);

/* The names of the failing verdicts (failing = 1) or of every verdict
 * (failing = 0) as an SQL list in table order, "('failed', 'crashed')",
 * into buf: the only place such a list is written. Returns the length, or
 * -1 when len is too small (buf then holds ""). */
int sl_verdict_sql_list(int failing, char *buf, size_t len);

/* The verdict names separated by sep ("passed, failed, ..."), for help
 * texts and messages; same return as sl_verdict_sql_list. */
int sl_verdict_names_joined(const char *sep, char *buf, size_t len);

#endif /* SL_VERDICT_H */
