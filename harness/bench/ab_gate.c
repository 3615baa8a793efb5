/* The run-wide checks of ab's verdicts (ab_gate.h). */
#include "ab_gate.h"

#include <math.h>
#include <stdlib.h>

typedef struct sl__ranked {
  double p;
  int at; /* index into the caller's p */
} sl__ranked;

/* Ascending p, NaN last, ties by index (a stable order). */
static int sl__by_p(const void *a, const void *b) {
  const sl__ranked *x = a, *y = b;
  const int xn = isnan(x->p), yn = isnan(y->p);
  if (xn != yn) return xn - yn;
  if (!xn && x->p != y->p) return x->p < y->p ? -1 : 1;
  return x->at - y->at;
}

int sl_ab_holm(const double *p, int m, double alpha, double *thresh,
               int *reject) {
  if (m < 0 || !(alpha > 0 && alpha < 1)) return -1;
  sl__ranked *order = malloc(sizeof *order * (size_t)(m > 0 ? m : 1));
  if (!order) return -1;
  for (int i = 0; i < m; ++i) order[i] = (sl__ranked){p[i], i};
  qsort(order, (size_t)m, sizeof *order, sl__by_p);
  int rejected = 0, stepping = 1;
  for (int k = 0; k < m; ++k) {
    const int i = order[k].at;
    thresh[i] = alpha / (m - k);
    /* Step-down: the first p above its threshold ends the rejections, for
     * it and every larger one. */
    stepping = stepping && p[i] <= thresh[i];
    reject[i] = stepping;
    rejected += stepping;
  }
  free(order);
  return rejected;
}

int sl_ab_rounds_for_p(double p) {
  int n = 1;
  while (n < 1000 && 2 / ldexp(1, n) > p) ++n;
  return n;
}

uint64_t sl_ab_confirm_seed(uint64_t seed) {
  return seed + 0x9E3779B97F4A7C15ull; /* the golden-ratio step */
}

static int sl__is_claim(sl_ab_verdict v) {
  return v == SL_AB_SLOWER || v == SL_AB_FASTER;
}

int sl_ab_set_holm(sl_ab_set *s, double alpha) {
  double *p = malloc(sizeof *p * (size_t)(s->n > 0 ? s->n : 1));
  double *thresh = malloc(sizeof *thresh * (size_t)(s->n > 0 ? s->n : 1));
  int *reject = malloc(sizeof *reject * (size_t)(s->n > 0 ? s->n : 1));
  int m = 0, rc = p && thresh && reject ? 0 : -1;
  for (int i = 0; !rc && i < s->n; ++i)
    if (s->rows[i].kind == SL_AB_ROW_JUDGED) p[m++] = s->rows[i].p;
  if (!rc && sl_ab_holm(p, m, alpha, thresh, reject) < 0) rc = -1;
  for (int i = 0, k = 0; !rc && i < s->n; ++i) {
    sl_ab_row *r = &s->rows[i];
    if (r->kind != SL_AB_ROW_JUDGED) continue;
    r->first = r->verdict;
    r->p_threshold = thresh[k];
    r->rejected = reject[k++];
    if (sl__is_claim(r->verdict) && !r->rejected) r->verdict = SL_AB_UNCLEAR;
  }
  if (!rc) s->alpha = alpha, s->judgements = m;
  free(p);
  free(thresh);
  free(reject);
  return rc;
}

sl_ab_verdict sl_ab_second_verdict(const sl_ab_result *again, double alpha) {
  if (sl__is_claim(again->verdict) && !(again->p <= alpha))
    return SL_AB_UNCLEAR;
  return again->verdict;
}

int sl_ab_row_to_confirm(const sl_ab_row *r) {
  return r->kind == SL_AB_ROW_JUDGED && sl__is_claim(r->verdict);
}

void sl_ab_row_confirm(sl_ab_row *r, const sl_ab_result *again, double alpha) {
  if (!again) {
    r->verdict = SL_AB_UNCLEAR; /* no second judgement: no claim */
    return;
  }
  r->again_done = 1;
  ++r->again_processes;
  r->again_ratio = again->ratio, r->again_lo = again->lo;
  r->again_hi = again->hi, r->again_p = again->p;
  r->again_rounds = again->rounds;
  r->again = sl_ab_second_verdict(again, alpha);
  if (r->again != r->verdict) r->verdict = SL_AB_UNCLEAR;
}

void sl_ab_set_recount(sl_ab_set *s) {
  for (int k = 0; k < SL_AB_VERDICT_COUNT; ++k) s->counts[k] = 0;
  for (int i = 0; i < s->n; ++i)
    if (s->rows[i].kind == SL_AB_ROW_JUDGED) ++s->counts[s->rows[i].verdict];
}

void sl_ab_gate_line(const sl_ab_row *r, FILE *out) {
  fprintf(out, "  %-16s first %.3f [%.3f, %.3f] p %.2g %s %.2g (Holm)",
          r->variant, r->ratio, r->lo, r->hi, r->p, r->rejected ? "<=" : ">",
          r->p_threshold);
  if (r->again_done)
    fprintf(out, ", again %.3f [%.3f, %.3f] p %.2g, %d rounds, %d %s: %s",
            r->again_ratio, r->again_lo, r->again_hi, r->again_p,
            r->again_rounds, r->again_processes,
            r->again_processes == 1 ? "process" : "processes",
            sl_ab_verdict_name(r->again));
  else if (r->rejected)
    fputs(", not timed again", out);
  fprintf(out, " => %s\n", sl_ab_verdict_name(r->verdict));
}

void sl_ab_set_probes(sl_ab_set *s) {
  s->probe_best = 0;
  s->disturbed = s->probed = 0;
  for (int i = 0; i < s->n; ++i)
    if (s->rows[i].kind == SL_AB_ROW_JUDGED &&
        s->rows[i].probe_gbs > s->probe_best)
      s->probe_best = s->rows[i].probe_gbs;
  for (int i = 0; i < s->n; ++i) {
    const sl_ab_row *r = &s->rows[i];
    if (r->kind != SL_AB_ROW_JUDGED || !(r->probe_gbs > 0)) continue;
    ++s->probed;
    s->disturbed += sl_ab_row_disturbed(s, r);
  }
}

int sl_ab_row_disturbed(const sl_ab_set *s, const sl_ab_row *r) {
  return r->probe_gbs > 0 && r->probe_gbs < SL_AB_DISTURBED * s->probe_best;
}
