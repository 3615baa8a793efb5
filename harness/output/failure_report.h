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
  /* The defect it is of, across ops (failure_group.h: sl_defect_signature;
   * its own id and signature when nothing merges it) */
  char defect_id[17];
  char *defect;
  /* defect starts with its variants key, this long, and a space; 0 when
   * the defect is the group's own (sl_defect_signature's return) */
  size_t defect_variants_len;
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
  int defects;   /* distinct defect ids over the groups */
  int64_t cases; /* failing cases over all groups */
} sl_failure_groups;

/* The defect of a failure (failure_group.h): id, signature and the length
 * of the variants key the signature starts with (0: the group's own). */
typedef struct sl_failure_defect {
  const char *id, *text;
  size_t variants_len;
} sl_failure_defect;

/* Counts a failure into its group (a new one when id is new): the first
 * member's fields are kept. defect: the defect the group is of, NULL when
 * it is its own. A new group's defect joins every defect met that differs
 * from it only in variants that overlap (failure_group.h:
 * sl_failure_variants_union): their groups then name the union. 0, or -1
 * without memory. */
int sl_failure_groups_add(sl_failure_groups *g, const char *id, const char *sig,
                          const char *variant, const char *verdict,
                          const char *minimal, const char *found_as,
                          const char *message, const sl_failure_defect *defect);

/* The next defect's groups after group index *at (start with *at = -1):
 * the index of the first group of the next defect in the order first met,
 * or -1 after the last. Every output walks the groups so, defect by
 * defect: a defect is shown once, the groups (one per op) under it. */
int sl_failure_groups_next_defect(const sl_failure_groups *g, int *at);

/* Whether group j is of the defect of group i. */
int sl_failure_groups_same_defect(const sl_failure_groups *g, int i, int j);

/* Of the defect of group i: its groups, its cases, the groups that fail the
 * run, and its ops ("scatter_reduce, index_reduce", at most len bytes). */
typedef struct sl_defect_tally {
  int groups, failing, fresh;
  int64_t cases;
  char ops[512];
} sl_defect_tally;
void sl_failure_groups_tally(const sl_failure_groups *g, int i,
                             sl_defect_tally *t);
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

/* Per defect a DEFECT line (its signature, ops, groups and cases), then
 * one FAIL block per group of it, on out. */
void sl_failure_groups_print(const sl_failure_groups *g, FILE *out);

/* The groups as the elements of a JSON array (no brackets), defect by
 * defect: per group {"defect_id", "defect", "signature", "signature_id",
 * "cases", "variant", "verdict", "minimal",
 * "found_as", "message", "repro", "status" ("new", "known", "accepted"),
 * "first_run", "first_commit" (known; else null), "accepted_in" (accepted:
 * "FILE:LINE"; else null), "fails"}. */
void sl_failure_groups_json(const sl_failure_groups *g, FILE *out);

/* The name of --junit's passing test case: fixed, so that a CI tracks it
 * across runs (the counts are in its output and the suite's properties). */
#define SL_JUNIT_PASSING "cases without failures"

/* --junit FILE: one testsuite "scatterlab CMD" of one passing test case
 * (SL_JUNIT_PASSING: the `total` cases judged) and one test case per
 * defect, named by its signature, each of its groups (one per op: the
 * repro, the message, the tensors) in its text: failing when a group of it
 * fails the run, skipped when none does (known under --fail-on new, or
 * accepted by --known), the status in the message. Written safely
 * (safe_file.h). 0, or -1 with err naming the file. */
int sl_failure_groups_junit(const sl_failure_groups *g, const char *cmd,
                            int64_t total, const char *path, char *err,
                            size_t errlen);

/* Under GitHub Actions (GITHUB_ACTIONS=true): one ::error line per defect
 * on out (its groups' repros in the message), and a markdown table of the
 * groups, defect by defect, appended to $GITHUB_STEP_SUMMARY
 * (opened for append, never through a symbolic link). Does nothing
 * elsewhere. 0, or -1 with err naming the summary file. */
int sl_failure_groups_github(const sl_failure_groups *g, const char *cmd,
                             int64_t total, FILE *out, char *err,
                             size_t errlen);

#endif
