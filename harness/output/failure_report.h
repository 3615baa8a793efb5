/*
 * The failures of a fuzz campaign or a run, grouped by signature
 * (failure_group.h), and what each output makes of the groups: the text
 * summary, the JSON array, the JUnit XML file (--junit), and under GitHub
 * Actions the ::error annotations and the step summary. One list, so that
 * every output counts the same groups.
 */
#ifndef SL_FAILURE_REPORT_H
#define SL_FAILURE_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* What the store and --known say of a group (known_groups.h). */
typedef enum sl_group_status {
  SL_GROUP_NEW,     /* not met before this run (or no store to tell) */
  SL_GROUP_KNOWN,   /* the store met it in an earlier run */
  SL_GROUP_ACCEPTED /* named by the --known file */
} sl_group_status;

typedef struct sl_failure_group {
  char id[17];
  char *sig, *variant, *verdict, *minimal, *found_as, *message, *repro;
  /* The minimal case's tensors, one per line (show_tensors.h), or NULL */
  char *tensors;
  int64_t count; /* failing cases in the group */
  sl_group_status status;
  int64_t first_run;     /* SL_GROUP_KNOWN: the run that met it first */
  char first_commit[64]; /* and its commit ("" unknown) */
  char *accepted;        /* SL_GROUP_ACCEPTED: "FILE:LINE" of --known */
  int fails;             /* it makes the exit status 1 (--fail-on) */
} sl_failure_group;

/* "new", "known (first seen in run 3, at commit 8e91f58)" or "known
 * (accepted in known.txt:4)". */
void sl_failure_group_status(const sl_failure_group *e, char *buf, size_t len);

typedef struct sl_failure_groups {
  sl_failure_group *v; /* in the order first met */
  int n, cap;
  int64_t cases; /* failing cases over all groups */
} sl_failure_groups;

/* Counts a failure into its group (a new one when id is new): the first
 * member's fields are kept. 0, or -1 without memory. */
int sl_failure_groups_add(sl_failure_groups *g, const char *id, const char *sig,
                          const char *variant, const char *verdict,
                          const char *minimal, const char *found_as,
                          const char *message);
/* Gives group id the tensors of its minimal case (show_tensors.h: one per
 * line), unless it has them already. 0, or -1 without memory. */
int sl_failure_groups_show(sl_failure_groups *g, const char *id,
                           const char *tensors);
/* Counts every failing verdict of res (a case run as given, not shrunk:
 * its line is both the minimal case and the case found) into its group. */
struct sl_case;
struct sl_case_result;
int sl_failure_groups_add_result(sl_failure_groups *g, const struct sl_case *c,
                                 const struct sl_case_result *res);
void sl_failure_groups_free(sl_failure_groups *g);

/* One FAIL block per group on out. */
void sl_failure_groups_print(const sl_failure_groups *g, FILE *out);

/* The groups as the elements of a JSON array (no brackets): per group
 * {"signature", "signature_id", "cases", "variant", "verdict", "minimal",
 * "found_as", "message", "repro", "status" ("new", "known", "accepted"),
 * "first_run", "first_commit" (known; else null), "accepted_in" (accepted:
 * "FILE:LINE"; else null), "fails"}. */
void sl_failure_groups_json(const sl_failure_groups *g, FILE *out);

/* The name of --junit's passing test case: fixed, so that a CI tracks it
 * across runs (the counts are in its output and the suite's properties). */
#define SL_JUNIT_PASSING "cases without failures"

/* --junit FILE: one testsuite "scatterlab CMD" of one passing test case
 * (SL_JUNIT_PASSING: the `total` cases judged) and one test case per
 * group, named by its signature: failing when the group fails the run,
 * skipped when it does not (known under --fail-on new, or accepted by
 * --known), its status in the message. Written safely (safe_file.h). 0, or
 * -1 with err naming the file. */
int sl_failure_groups_junit(const sl_failure_groups *g, const char *cmd,
                            int64_t total, const char *path, char *err,
                            size_t errlen);

/* Under GitHub Actions (GITHUB_ACTIONS=true): one ::error line per group on
 * out, and a markdown table of the groups appended to $GITHUB_STEP_SUMMARY
 * (opened for append, never through a symbolic link). Does nothing
 * elsewhere. 0, or -1 with err naming the summary file. */
int sl_failure_groups_github(const sl_failure_groups *g, const char *cmd,
                             int64_t total, FILE *out, char *err,
                             size_t errlen);

#endif
