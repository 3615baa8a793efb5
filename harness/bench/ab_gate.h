/*
 * The run-wide checks of `scatterlab ab`'s verdicts, after every benchmark
 * was judged on its own (ab.h):
 *
 * 1. Error control over the run: Holm's step-down over every judgement's
 *    p-value holds the family-wise error rate at alpha: on an unchanged
 *    commit the chance that any benchmark of the run is claimed changed is
 *    at most alpha, not alpha per benchmark (66 judgements at 5% each gave
 *    a false "slower" one run in three under a CI runner's load). Holm, not
 *    Benjamini-Hochberg: a gate fails its CI job on one "slower", so what
 *    must be bounded is the chance of any false claim, which the
 *    false-discovery rate does not bound. A claim (slower or faster) whose
 *    p the step-down does not reject becomes unclear. The correction is
 *    applied once, at the end, over the final p-values: the rounds stop on
 *    the interval's width (or the budget), never on the p-value or the
 *    verdict.
 * 2. Confirmation: each claim that survives is timed again in fresh rounds
 *    (new order seeds, after all other benchmarks, in SL_AB_CONFIRMATIONS
 *    new timing processes: cmd_ab.c's sl__retime) and counts only when
 *    every later judgement agrees (its interval's verdict, and its own p at
 *    most alpha); otherwise it is unclear, the judgements kept. This only
 *    removes claims, so the family-wise bound holds; what it adds is a
 *    guard against a disturbance of the first rounds that the test's
 *    assumptions (independent rounds) do not cover.
 * 3. Noise said: a benchmark whose rounds scatter too much to judge is
 *    "noisy" (ab.h), and the copy probe after each benchmark's rounds,
 *    against the run's best, names the disturbed stretches of the run.
 */
#ifndef SL_AB_GATE_H
#define SL_AB_GATE_H

#include "ab.h"
#include "ab_write.h"

#define SL_AB_DEFAULT_ALPHA 0.05

/*
 * Holm's step-down over p[0..m): sorted ascending, the k-th smallest
 * (k = 0, 1, ...) is rejected when it and every smaller one lie at or below
 * alpha / (m - k). thresh[i] gets p[i]'s threshold alpha / (m - k), reject[i]
 * whether it was rejected. A p that is not a number sorts last and is never
 * rejected. Returns how many were rejected; -1 when alpha is not in (0, 1),
 * m < 0 or memory runs out.
 */
int sl_ab_holm(const double *p, int m, double alpha, double *thresh,
               int *reject);

/* The fewest rounds in which the exact two-sided signed-rank test can
 * reach p (its smallest p over n rounds is 2 / 2^n); 1 for p >= 1. */
int sl_ab_rounds_for_p(double p);

/* The order seed of the confirmation rounds: another sequence than seed's. */
uint64_t sl_ab_confirm_seed(uint64_t seed);

/* Applies Holm at alpha over the judged rows of s (their p): each gets its
 * threshold and whether it was rejected; a claim not rejected becomes
 * unclear. Sets s->alpha and s->judgements. 0, or -1 (memory, alpha). */
int sl_ab_set_holm(sl_ab_set *s, double alpha);

/* Whether row is a claim the confirmation times again: judged, and still
 * slower or faster after Holm's step-down. */
int sl_ab_row_to_confirm(const sl_ab_row *r);

/* Timing processes that confirm a claim, one after the other, each with
 * the case built anew. Beside a busy neighbour, for half an hour, 5 of 12
 * timing processes of an A/A pair (a library and its copy) read every
 * parallel benchmark 1.2-1.65x slower or faster, and a confirmation in the
 * same process agreed; a bias that lasts as long as a process needs other
 * processes to show (docs/notes/benchmarks-2026.md). */
enum { SL_AB_CONFIRMATIONS = 2 };

/* One confirmation of row's claim by again, its pair timed in fresh rounds
 * (NULL: it could not be): the claim stands only when this judgement
 * (sl_ab_second_verdict) agrees, else unclear; again's figures are kept in
 * the row, and again_processes counts the confirmations. */
void sl_ab_row_confirm(sl_ab_row *r, const sl_ab_result *again, double alpha);

/* The verdict of a confirmation: the interval's, where its p is at most
 * alpha; unclear for a claim whose p is above. */
sl_ab_verdict sl_ab_second_verdict(const sl_ab_result *again, double alpha);

/* A probe below this share of the run's best tells a disturbed stretch:
 * a neighbour took memory bandwidth or a core. */
#define SL_AB_DISTURBED 0.75

/* Sets s's probe figures from its judged rows. */
void sl_ab_set_probes(sl_ab_set *s);

/* Whether row's probe fell below SL_AB_DISTURBED of the set's best. */
int sl_ab_row_disturbed(const sl_ab_set *s, const sl_ab_row *r);

/* Recounts s->counts from the judged rows' final verdicts. */
void sl_ab_set_recount(sl_ab_set *s);

/* One line for a row the run-wide checks looked at (its first verdict a
 * claim): the first judgement, its p against Holm's threshold, the second
 * judgement, and the final verdict after "=> ". */
void sl_ab_gate_line(const sl_ab_row *r, FILE *out);

#endif
