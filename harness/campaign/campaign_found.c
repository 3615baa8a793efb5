/* A failing case shrunk, run again alone, grouped (campaign_found.h). */
#include "campaign_found.h"

#include <string.h>

#include "clean_text.h"
#include "huge.h"
#include "shrink.h"
#include "timing.h"

static const sl_variant_result *sl__find(const sl_case_result *r,
                                         const char *variant) {
  for (int i = 0; i < r->n; ++i)
    if (strcmp(r->v[i].variant, variant) == 0) return &r->v[i];
  return NULL;
}

/* What a candidate of sl_shrink must do to count as failing the same
 * way: `variant` keeps `verdict`. The budget (400 candidates, 30 s) stops
 * it; res gets the result of the last case that failed. */
typedef struct sl__shrink_probe {
  const sl_fuzz_campaign *f;
  sl_worker *w;
  const char *variant;
  sl_verdict verdict;
  int tried;
  double deadline;
  sl_case_result *res;
} sl__shrink_probe;

static int sl__still_fails(void *user, const sl_case *c) {
  sl__shrink_probe *p = user;
  if (p->tried >= 400 || sl_now() >= p->deadline) return -1;
  ++p->tried;
  static sl_case_result r; /* large: not on the stack */
  char err[512];
  if (sl_worker_run_variants(p->w, c, p->variant, p->f->timeout, &r, err,
                             sizeof err))
    return 0;
  const sl_variant_result *v = sl__find(&r, p->variant);
  if (!v || v->verdict != p->verdict) return 0;
  *p->res = r;
  return 1;
}

/* Shrinks c (fuzz/shrink.h) while `variant` keeps the verdict `verdict`.
 * *out gets the minimal case and res its result (left alone when no
 * candidate failed). */
static void sl__shrink(const sl_fuzz_campaign *f, sl_worker *w,
                       const sl_case *c, const char *variant,
                       sl_verdict verdict, sl_case *out, sl_case_result *res) {
  *out = *c;
  sl__shrink_probe p = {f, w, variant, verdict, 0, sl_now() + 30, res};
  sl_shrink(out, sl__still_fails, &p);
}

int sl_found_ids_has(const sl_found_ids *g, const char *id) {
  for (int i = 0; i < g->n; ++i)
    if (strcmp(g->id[i], id) == 0) return 1;
  return 0;
}

int sl_found_ids_add(sl_found_ids *g, const char *id) {
  if (sl_found_ids_has(g, id)) return 0;
  if (g->n == (int)(sizeof g->id / sizeof g->id[0])) return 0;
  snprintf(g->id[g->n++], sizeof g->id[0], "%s", id);
  return 1;
}

/* The worker a minimal case runs alone in, fresh, with the options of
 * `scatterlab run` (cmd_run.c: every passing variant rerun and checked;
 * its threads, the machine's); NULL when it cannot start. */
static sl_worker *sl__alone_worker(const sl_fuzz_campaign *f,
                                   sl_found_memory *m) {
  if (m->alone) {
    sl_worker_renew(m->alone);
    return m->alone;
  }
  sl_run_opts o = {0};
  char err[256];
  o.variants = f->variants;
  o.max_case_bytes = f->max_case_bytes;
  o.rerun_every = 1;
  if (sl_worker_start(&m->alone, &o, err, sizeof err)) {
    fprintf(stderr, "scatterlab fuzz: a minimal case alone: %s\n", err);
    m->alone = NULL;
  }
  return m->alone;
}

void sl_found_memory_end(sl_found_memory *m) {
  sl_worker_stop(m->alone);
  m->alone = NULL;
}

/* The minimal case with every selected variant, its tensors shown into
 * text (worker.h: sl_worker_show): alone in a fresh worker when `fresh`
 * (sl__alone_worker), as its repro line runs, else in the job's worker w.
 * After a crash, which would show nothing: first's variant only, and only
 * alone. A hang is not run again: that costs the time limit once more,
 * and a hang is not shrunk (the case is the one found). res gets the
 * verdicts; 0, or -1 when it was not run. */
static int sl__run_minimal(const sl_fuzz_campaign *f, sl_worker *w,
                           sl_found_memory *m, int fresh, const sl_case *c,
                           const sl_variant_result *first, sl_case_result *res,
                           char *text, size_t len) {
  char err[256];
  text[0] = '\0';
  const int crashed = first->verdict == SL_VERDICT_CRASHED;
  if (first->verdict == SL_VERDICT_TIMEOUT || (crashed && !fresh)) return -1;
  if (fresh && !(w = sl__alone_worker(f, m))) return -1;
  if (crashed)
    return sl_worker_run_variants(w, c, first->variant, f->timeout, res, err,
                                  sizeof err);
  return sl_worker_show(w, c, NULL, f->timeout, text, len, res, err,
                        sizeof err);
}

/* What first's variant said of the minimal case in the job's worker (the
 * found case's message when no smaller case failed). */
static const char *sl__said_in_job(const sl_found *x) {
  const sl_variant_result *mv = sl__find(&x->mres, x->first.variant);
  return mv ? mv->message : x->first.message;
}

/* What is reported of the minimal case: what it said alone when it failed
 * there (another way too: a kernel that corrupted the heap crashed in the
 * job's worker and hung alone), else what it said in the job's worker,
 * with a word that alone it did not fail. Returns 1 when alone it failed
 * as in the job's worker. */
static int sl__settle(sl_found *x, const sl_case_result *alone) {
  const sl_variant_result *a = alone ? sl__find(alone, x->first.variant) : 0;
  x->recurs[0] = '\0';
  if (a && sl_verdict_is_failure(a->verdict)) {
    const int same = a->verdict == x->first.verdict;
    x->first.verdict = a->verdict;
    memcpy(x->first.message, a->message, sizeof x->first.message);
    x->own = x->first.message;
    return same;
  }
  x->own = sl__said_in_job(x);
  if (a)
    snprintf(x->recurs, sizeof x->recurs,
             "; run alone as its repro line runs it, the minimal case %s: "
             "the failure does not recur (a race, or state an earlier case "
             "left)",
             sl_verdict_name(a->verdict));
  return 0;
}

/* Group id as the job's worker saw the minimal case: first's variant,
 * verdict and message there. */
static void sl__seen_as(const sl_found *x, sl_failure_sig *seen) {
  sl_failure_signature(&x->minimal, x->first.variant,
                       sl_verdict_name(x->first.verdict), sl__said_in_job(x),
                       seen);
}

/* From the minimal case's run alone with every variant (res, its shown
 * text): out gets the variants failing it as `first` does (failure_group.h:
 * one defect of code they share, one group), those as a defect names them
 * and the relation of first's outputs to the right ones
 * (defect_relation.h), and tensors the text as one field of the F line,
 * its lines joined by the two characters '\\' 'n'. */
static void sl__confirm(const sl_case *c, const sl_variant_result *first,
                        const sl_case_result *res, const char *text,
                        sl_found_confirmed *out, char *tensors, size_t tlen) {
  snprintf(out->variants, sizeof out->variants, "%s", first->variant);
  out->relation[0] = tensors[0] = '\0';
  snprintf(out->variants_key, sizeof out->variants_key, "%s", first->variant);
  for (int i = 0; res && i < res->n; ++i)
    if (strcmp(res->v[i].variant, first->variant) == 0 &&
        res->v[i].verdict == first->verdict) {
      sl_failure_variant_set(c, res, i, NULL, out->variants,
                             sizeof out->variants);
      snprintf(out->relation, sizeof out->relation, "%s", res->v[i].relation);
      sl_failure_variants_key(res, out->variants, out->variants_key,
                              sizeof out->variants_key);
    }
  size_t n = 0;
  for (const char *p = text; *p && n + 3 < tlen; ++p) {
    if (*p == '\n') {
      if (p[1]) tensors[n++] = '\\', tensors[n++] = 'n';
    } else if (*p != '\t' && *p != '\r') {
      tensors[n++] = *p;
    }
  }
  tensors[n] = '\0';
}

void sl_found_make(const sl_fuzz_campaign *f, sl_worker *w, const sl_case *c,
                   const sl_case_result *res, int which, sl_found_memory *m,
                   sl_found *x) {
  static sl_case_result alone; /* large: not on the stack */
  static char text[SL_WORKER_SHOWN_MAX];
  x->first = res->v[which];
  x->minimal = *c;
  x->mres = *res;
  /* A huge case is kept as found: every candidate would take seconds to
   * generate, and a smaller one leaves the offsets past 2^31 it is about. */
  x->huge = sl_fuzz_huge_shape(c);
  if (f->shrink && x->first.verdict != SL_VERDICT_TIMEOUT && !x->huge)
    sl__shrink(f, w, c, x->first.variant, x->first.verdict, &x->minimal,
               &x->mres);
  sl_case_print(&x->minimal, x->line, sizeof x->line);
  /* What the minimal case says of itself: the repro's own message, not
   * the found-as case's (another place, another count), alone in a fresh
   * worker once a group: a later member of a group whose first recurred
   * alone runs in the job's worker (a fresh worker for every failing case
   * left a 60 s campaign of a last-row bug 7,075 cases, 1,883 failing,
   * against 25,531 without alone runs and 26,267 with this rule). */
  sl_failure_sig seen;
  sl__seen_as(x, &seen);
  const int fresh = !sl_found_ids_has(&m->recurring, seen.id);
  const int ran = !sl__run_minimal(f, w, m, fresh, &x->minimal, &x->first,
                                   &alone, text, sizeof text);
  const sl_case_result *said = ran ? &alone : NULL;
  if (sl__settle(x, fresh ? said : NULL) && fresh)
    sl_found_ids_add(&m->recurring, seen.id);
  sl__confirm(&x->minimal, &x->first, said, text, &x->conf, x->tensors,
              sizeof x->tensors);
  const char *verdict = sl_verdict_name(x->first.verdict);
  sl_failure_signature(&x->minimal, x->conf.variants, verdict, x->own, &x->sig);
  x->defect_key_len =
      sl_defect_signature(&x->minimal, x->conf.variants_key, verdict, x->own,
                          x->conf.relation, &x->sig, &x->defect);
}

/* The F line to the parent: variants, verdict, minimal, found as, group
 * id, group, message, defect id, defect, the defect's variants key length,
 * tensors (sent once per group and job). */
void sl_found_send(const sl_fuzz_campaign *f, sl_found_ids *shown,
                   const char *found_as, const sl_found *x, FILE *out) {
  /* A minimal case still larger than a few elements: say which size
   * threshold it stays past, the likely reason (docs: shrinking). */
  char message[sizeof x->first.message + sizeof x->recurs + 200];
  int64_t largest = 0;
  const sl_threshold *past =
      f->shrink ? sl_fuzz_case_past(&x->minimal, &largest) : NULL;
  if (x->huge)
    snprintf(message, sizeof message,
             "%s; a huge case (x past 2^%d elements), not shrunk", x->own,
             x->huge);
  else if (past && largest > SL_FUZZ_SMALL_REPRO)
    snprintf(message, sizeof message,
             "%s; the minimal case keeps %lld elements, past %s (%lld: %s), "
             "where smaller cases take another path",
             x->own, (long long)largest, past->name, (long long)past->value,
             past->path);
  else
    snprintf(message, sizeof message, "%s", x->own);
  const size_t k = strlen(message);
  snprintf(message + k, sizeof message - k, "%s", x->recurs);
  sl_text_one_line(message); /* a kernel's newline would forge a line */
  fprintf(out, "F %s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%zu\t%s\n",
          x->conf.variants, sl_verdict_name(x->first.verdict), x->line,
          found_as, x->sig.id, x->sig.text, message, x->defect.id,
          x->defect.text, x->defect_key_len,
          sl_found_ids_add(shown, x->sig.id) ? x->tensors : "");
  fflush(out);
}