/*
 * The results of `scatterlab ab` as one structure, and its writers: the
 * markdown of a pull-request comment, the JSON of docs/ab-json.md, CSV and
 * an HTML page. The
 * text on stdout is printed as the rounds finish (cmd_ab.c).
 */
#ifndef SL_AB_WRITE_H
#define SL_AB_WRITE_H

#include <stdio.h>

#include "ab.h"
#include "case.h"
#include "providers.h"

/* One line of the outcome: a judged pair, or what kept one from it. */
typedef enum sl_ab_row_kind {
  SL_AB_ROW_JUDGED,  /* timed and judged: verdict and figures below */
  SL_AB_ROW_MISSING, /* a base variant the candidate lacks */
  SL_AB_ROW_FAILED,  /* a version failed the case (or could not run) */
  SL_AB_ROW_UNTIMED, /* not timed for another reason (device, layout) */
  SL_AB_ROW_DIED     /* a version's kernel crashed, hung or exited, in the
                        check or the timing */
} sl_ab_row_kind;

typedef struct sl_ab_row {
  sl_ab_row_kind kind;
  char case_line[SL_CASE_LINE_MAX];
  char variant[SL_VARIANT_NAME_LEN]; /* without the base:/cand: prefix */
  char note[512];                    /* why, for the kinds but judged */
  double base_s, cand_s;             /* medians of the per-round seconds */
  double ratio, lo, hi, p;
  int rounds, calls_per_turn;
  sl_ab_verdict verdict;
  const char *stopped;
  /* The rounds' dispersion, the rounds past the budget and the copy probe
   * after them (sl_ab_result). */
  double spread, probe_gbs;
  int extra_rounds;
  /* --torch: LibTorch's median seconds per call over the same rounds, and
   * each build's speed-up over it (sl_ab_result); NAN without --torch */
  double torch_s, base_speedup, cand_speedup;
  /* With counters: each build's median instructions per call over the
   * rounds, and cand/base of them (sl_ab_result's instr_ratio); NAN
   * without. ratio, lo and hi are of the metric judged (the set's). */
  double base_instr, cand_instr, instr_ratio;
  /* The run-wide checks (ab_gate.h). verdict above is the final one; first
   * the interval's own, before them. p_threshold: Holm's for this p;
   * rejected: the step-down rejected it. With again_done, the
   * confirmation's figures (rounds timed again with the set's
   * confirm_seed). */
  sl_ab_verdict first;
  double p_threshold;
  int rejected;
  int again_done, again_rounds;
  int again_processes; /* confirmations made, each in a new timing process;
                          the figures are the last one's */
  double again_ratio, again_lo, again_hi, again_p;
  sl_ab_verdict again;
  int case_index; /* the command's own index of the case, to time it again */
} sl_ab_row;

typedef struct sl_ab_set {
  char base[4200], cand[4200]; /* library paths; cand "" = the built-in */
  double threshold, budget_s, level;
  double alpha; /* family-wise error rate of the run (Holm, ab_gate.h) */
  double noisy_budget_s; /* more timed work a scattered benchmark may take */
  int judgements;        /* the p-values Holm's step-down ran over */
  unsigned long long seed, confirm_seed;
  int threads;
  int torch;           /* --torch: LibTorch was the third arm of every round */
  sl_ab_metric metric; /* what the verdicts judged */
  int counted;         /* the rounds read hardware counters */
  char counters[512];  /* what they counted, or why none (run_counters.h) */
  char omp[160];       /* the binding and wait policy (omp_env.h) */
  sl_ab_row *rows;
  int n, cap;
  int counts[SL_AB_VERDICT_COUNT], missing, failed, died;
  /* The copy probes after the judged rows' rounds: the run's best, and how
   * many of them fell below SL_AB_DISTURBED of it (sl_ab_set_probes). */
  double probe_best;
  int disturbed, probed;
  int exit_status; /* set by the command before writing */
} sl_ab_set;

/* Appends a row (copied); the new row, or NULL without memory. */
sl_ab_row *sl_ab_set_add(sl_ab_set *s, const sl_ab_row *r);
void sl_ab_set_free(sl_ab_set *s);

typedef enum sl_ab_format {
  SL_AB_MARKDOWN,
  SL_AB_JSON,
  SL_AB_CSV, /* one row per pair: docs/ab-json.md names the columns */
  SL_AB_HTML /* a self-contained page, as compare's */
} sl_ab_format;

/* "markdown", "json", "csv" or "html" -> *f; -1 for anything else. */
int sl_ab_format_parse(const char *name, sl_ab_format *f);

/* Writes s in format f; 0, or -1 on a write error. */
int sl_ab_write(const sl_ab_set *s, sl_ab_format f, FILE *out);

/* Writes s in format f to path, whole or not at all: into a new file
 * beside it (O_EXCL, O_NOFOLLOW), then renamed over path (a link at path
 * is replaced, never followed). 0, or -1 with err. */
int sl_ab_write_file(const sl_ab_set *s, sl_ab_format f, const char *path,
                     char *err, size_t errlen);

#endif
