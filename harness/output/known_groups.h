/*
 * Known and new failure groups (issue 51): each group of a campaign or a
 * run is new, known to the store (first seen in an earlier run, schema 12:
 * results/store_groups.c), or accepted on purpose by a --known file; and
 * whether it makes the exit status a failure (--fail-on).
 *
 * A --known file lists groups as a sanitizer suppressions file lists
 * reports: one a line, by signature id (16 hex digits, as `group ID` of a
 * FAIL block) or by signature text (as a FAIL block's group line and the
 * JUnit test case name give it: "OP VARIANT VERDICT | REDUCE OUTPUT |
 * KIND"); blank lines and lines whose first non-blank character is '#' are
 * comments ('#' inside a line is text: signatures hold it).
 */
#ifndef SL_KNOWN_GROUPS_H
#define SL_KNOWN_GROUPS_H

#include <stddef.h>
#include <stdint.h>

#include "failure_report.h"
#include "sl_store.h"

typedef struct sl_known_entry {
  char *text; /* a signature id or a signature text */
  long line;
} sl_known_entry;

typedef struct sl_known_list {
  const char *path; /* as given */
  sl_known_entry *v;
  int n;
} sl_known_list;

/* --fail-on and --known of `fuzz` and `run`. */
typedef struct sl_triage_opts {
  int fail_on_new;        /* --fail-on new: only new groups fail */
  const char *known_path; /* --known FILE, or NULL */
  sl_known_list known;    /* its entries, after sl_triage_load */
} sl_triage_opts;

/* Reads --known's file into o->known (nothing without one). 0, or
 * SL_EXIT_USAGE after a message naming the file and the line: a file that
 * cannot be read, a line that is neither a signature id nor a signature. */
int sl_triage_load(const char *cmd, sl_triage_opts *o);
void sl_triage_free(sl_triage_opts *o);

/* Parses the file at path into k. 0, or -1 with "PATH:LINE: ..." (or
 * "PATH: ...") in err. */
int sl_known_load(const char *path, sl_known_list *k, char *err, size_t errlen);
void sl_known_free(sl_known_list *k);

/* Sets each group's status and whether it fails: accepted when o's list
 * names it, else known when st remembers it from a run before run_id,
 * else new; then, when st is given, brings the store's memory of the
 * groups up to date with run_id's results (sl_store_refresh_groups) and
 * records the defect each was reported under (sl_store_set_group_defect). 0, or
 * -1 with err when the store could not be read or written (the statuses
 * are set as far as it could tell). */
int sl_failure_groups_triage(sl_failure_groups *g, sl_store *st, int64_t run_id,
                             const sl_triage_opts *o, char *err, size_t errlen);

/* The groups that fail the run, and the new ones. */
int sl_failure_groups_failing(const sl_failure_groups *g);
int sl_failure_groups_new(const sl_failure_groups *g);

/* One line after a campaign's or run's summary, when it has groups:
 * "failure groups: 2 new, 1 known, 1 accepted (--known); ..." and what
 * --fail-on made of them. */
void sl_failure_groups_print_status(const sl_failure_groups *g,
                                    const sl_triage_opts *o, FILE *out);

#endif
