/* `scatterlab ab`: two builds' kernels, one process, paired rounds (ab.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ab.h"
#include "ab_gate.h"
#include "ab_ref.h"
#include "ab_write.h"
#include "bench_case.h"
#include "bench_store.h"
#include "bench_table.h"
#include "case.h"
#include "commands.h"
#include "interrupt.h"
#include "omp_env.h"
#include "options.h"
#include "providers.h"
#include "runinfo.h"
#include "runner.h"
#include "sl_store.h"
#include "slref.h"
#include "variant_call.h"

static const char *const sl__ab_help =
    "usage: scatterlab ab (--base LIB|DIR|py:MODULE | --base-ref GITREF)\n"
    "                     [--cand LIB|DIR|py:MODULE] [options]\n"
    "                     (--suite NAME|FILE | 'CASE' ...)\n"
    "\n"
    "A/B of two builds' kernels in one process: for every case and every\n"
    "variant both builds have, the same inputs, the two versions timed\n"
    "alternately in rounds (random order each round, warm-up first), and a\n"
    "verdict on the paired per-round ratios cand/base (Hodges-Lehmann\n"
    "estimate and interval, Wilcoxon signed-rank p): drift of the machine\n"
    "hits both arms of a round and cancels. Rounds stop once the interval\n"
    "is narrow (about +-1%), or at the budget. Both versions must pass the\n"
    "case against LibTorch first.\n"
    "\n"
    "Every kernel runs in a forked worker: one that crashes, aborts,\n"
    "calls exit() or passes --timeout is 'died'.\n";

static const char *const sl__ab_help_after =
    "verdicts: slower (estimate above 1 + threshold, the whole interval\n"
    "above 1 + half of it), faster (the mirror image), same (interval\n"
    "within the threshold), unclear (neither: too noisy to tell; not a\n"
    "failure). A slower or faster claim stands only when Holm's step-down\n"
    "keeps its p and two more judgements, each in fresh rounds after all\n"
    "other benchmarks (another order seed) in a new timing process, agree;\n"
    "all are printed. Exit 1 when\n"
    "any benchmark is slower or\n"
    "a version fails a case; 2 on a usage error; 3 when nothing was compared\n"
    "or a base variant has no candidate (unless --allow-missing); 4 when a\n"
    "kernel of either build died (crashed, aborted, called exit() or passed\n"
    "--timeout, in its check or its timing): its row says 'died' and why,\n"
    "and every output is still written.\n"
    "The store gets a bench run with both arms' per-round samples.\n";

typedef struct sl__ab {
  sl_ab_opts o;
  const char *variants; /* filter on the names without prefix */
  int cand_given, threads, allow_missing;
  int torch;    /* --torch: LibTorch as the third arm of every round */
  double plant; /* --plant-slowdown as a fraction */
  sl_store *st;
  int64_t run_id;
  sl_ab_set set;            /* every outcome, for the summary and the files */
  sl_bench_workers workers; /* where the kernels run (bench_case.h) */
  int counted;              /* the timing worker counts every turn */
  int counters;             /* it was started with the counters asked */
  sl_bw_info winfo;         /* what it said when started */
  const char *case_line;    /* of the case in hand */
  const sl_case *cases;     /* every case, for the confirmation */
  int case_index;           /* of the case in hand */
  double alpha;             /* family-wise error rate of the run (Holm) */
  sl_kept_timings kept;     /* the case's timings, stored after it */
} sl__ab;

/* An outcome other than a judgement: printed as "  VARIANT note" and kept
 * (missing and failed ones also counted). */
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static void
sl__note(sl__ab *ab, sl_ab_row_kind kind, const char *plain, const char *fmt,
         ...) {
  static sl_ab_row row;
  memset(&row, 0, sizeof row);
  row.kind = kind;
  snprintf(row.case_line, sizeof row.case_line, "%s", ab->case_line);
  snprintf(row.variant, sizeof row.variant, "%s", plain);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(row.note, sizeof row.note, fmt, ap);
  va_end(ap);
  printf("  %-16s %s\n", plain, row.note);
  ab->set.missing += kind == SL_AB_ROW_MISSING;
  ab->set.failed += kind == SL_AB_ROW_FAILED;
  ab->set.died += kind == SL_AB_ROW_DIED;
  sl_ab_set_add(&ab->set, &row);
}

/* "DIR" -> "DIR/libscatterlab_kernels.so.N"; a file as it is; "py:MODULE"
 * (a Python module's variants, docs/providers.md §10) as the loader takes
 * it, which checks the module. */
static int sl__lib_path(const char *opt, const char *arg, char *out,
                        size_t len) {
  struct stat sb;
  if (!strncmp(arg, SL_PY_PREFIX, strlen(SL_PY_PREFIX))) {
    snprintf(out, len, "%s", arg);
    return 0;
  }
  if (stat(arg, &sb) != 0) {
    sl_cli_usage_error("ab",
                       "%s %s: expected a kernels library or a build "
                       "directory, found nothing there",
                       opt, arg);
    return -1;
  }
  if (S_ISDIR(sb.st_mode)) {
    snprintf(out, len, "%s/" SL_KERNELS_SONAME, arg);
    if (stat(out, &sb) != 0 || !S_ISREG(sb.st_mode)) {
      sl_cli_usage_error(
          "ab",
          "%s %s: expected a build directory holding " SL_KERNELS_SONAME
          ", found none",
          opt, arg);
      return -1;
    }
  } else {
    snprintf(out, len, "%s", arg);
  }
  return 0;
}

/* --variants as the other commands take it: an item "prov:name" names the
 * variant `name` of both builds when prov is either build's provider (its
 * own name, or base/cand); ab filters on the names without the prefix.
 * 0 with the filter in out, or a usage error naming an item whose provider
 * is neither. */
static int sl__ab_filter(const char *filter, char *out, size_t len) {
  size_t k = 0;
  out[0] = '\0';
  for (const char *p = filter; *p;) {
    size_t n = strcspn(p, ",");
    const char *colon = memchr(p, ':', n), *item = p;
    if (colon) {
      const size_t pn = (size_t)(colon - p);
      int ours = (pn == 4 && !strncmp(p, "base", 4)) ||
                 (pn == 4 && !strncmp(p, "cand", 4));
      for (size_t i = 0; i < sl_provider_count() && !ours; ++i) {
        const sl_provider_loaded *pl = sl_provider_at(i);
        ours = strlen(pl->own_name) == pn && !strncmp(pl->own_name, p, pn);
      }
      if (!ours)
        return sl_cli_usage_error("ab",
                                  "--variants %.*s: provider '%.*s' is not "
                                  "loaded; ab compares the variants of --base "
                                  "and --cand (name them as cpu.name, or by "
                                  "their own provider's name)",
                                  (int)n, p, (int)pn, p);
      n -= pn + 1;
      item = colon + 1;
    }
    if (k + n + 2 > len)
      return sl_cli_usage_error("ab", "--variants %s: too long", filter);
    k += (size_t)snprintf(out + k, len - k, "%s%.*s", k ? "," : "", (int)n,
                          item);
    p = item + n;
    if (*p == ',') ++p;
  }
  return 0;
}

/* Name of the candidate's version of plain variant `plain`. */
static void sl__cand_name(const sl__ab *ab, const char *plain, char *out,
                          size_t len) {
  snprintf(out, len, "%s%s", ab->cand_given ? "cand:" : "", plain);
}

/* The base variants of op whose candidate exists and passes the filter:
 * their indices into the registry go to idx; returns how many. */
static int sl__pairs_of(const sl__ab *ab, sl_op op, size_t *idx, int max) {
  int n = 0;
  for (size_t i = 0; i < sl_hvariant_count() && n < max; ++i) {
    const sl_hvariant *v = sl_hvariant_at(i);
    if (v->v.op != op || strncmp(v->name, "base:", 5) != 0) continue;
    const char *plain = v->name + 5;
    char cname[SL_VARIANT_NAME_LEN + 8];
    sl__cand_name(ab, plain, cname, sizeof cname);
    if (!sl_hvariant_find(op, cname)) continue;
    if (ab->variants && !sl_variant_selected(ab->variants, plain)) continue;
    idx[n++] = i;
  }
  return n;
}

/* Base variants of op (within the filter) that the candidate lacks: each
 * gets a line; they make the comparison incomplete. */
static void sl__report_missing(sl__ab *ab, sl_op op) {
  for (size_t i = 0; i < sl_hvariant_count(); ++i) {
    const sl_hvariant *v = sl_hvariant_at(i);
    if (v->v.op != op || strncmp(v->name, "base:", 5) != 0) continue;
    const char *plain = v->name + 5;
    char cname[SL_VARIANT_NAME_LEN + 8];
    sl__cand_name(ab, plain, cname, sizeof cname);
    if (sl_hvariant_find(op, cname) ||
        (ab->variants && !sl_variant_selected(ab->variants, plain)))
      continue;
    sl__note(ab, SL_AB_ROW_MISSING, plain, "missing: the candidate has no %s%s",
             cname, ab->allow_missing ? " (--allow-missing)" : "");
  }
}

static const sl_variant_result *sl__verdict_of(const sl_case_result *res,
                                               const char *name) {
  for (int i = 0; i < res->n; ++i)
    if (strcmp(res->v[i].variant, name) == 0) return &res->v[i];
  return NULL;
}

/* The median over rounds [0, n) of one count per call (a field of
 * sl_call_counts, `step` doubles apart), -1 where no round read it. */
static double sl__median_count(const double *first, int n, int step) {
  static double v[SL_AB_MAX_ROUNDS];
  int m = 0;
  for (int i = 0; i < n; ++i)
    if (first[(size_t)i * step] >= 0) v[m++] = first[(size_t)i * step];
  double q1, med = -1, q3;
  if (m > 0) sl_quartiles(v, m, &q1, &med, &q3);
  return med;
}

/* Keeps an arm's per-round samples as a timing row, with its counts'
 * medians when counts (its rounds' counts) is not NULL: stored with the
 * case once its pairs are timed (bench_store.h). */
static void sl__keep_arm(sl__ab *ab, const char *name, const double *samples,
                         int n, int64_t bytes, const sl_call_counts *counts) {
  if (!ab->st || n == 0) return;
  static sl_kept_timing k;
  memset(&k, 0, sizeof k);
  snprintf(k.variant, sizeof k.variant, "%s", name);
  k.bytes = bytes, k.threads = ab->threads;
  sl_timing *t = &k.t;
  memcpy(t->samples, samples, sizeof *samples * (size_t)n);
  t->reps = n;
  double q1, q3;
  sl_quartiles(samples, n, &q1, &t->median_s, &q3);
  t->iqr_s = q3 - q1;
  t->min_s = samples[0];
  for (int i = 1; i < n; ++i)
    if (samples[i] < t->min_s) t->min_s = samples[i];
  t->counts = (sl_call_counts){-1, -1, -1};
  if (counts) {
    t->counts.instructions =
        sl__median_count(&counts[0].instructions, n, SL_CALL_COUNTS_STEP);
    t->counts.cycles =
        sl__median_count(&counts[0].cycles, n, SL_CALL_COUNTS_STEP);
    t->counts.cache_misses =
        sl__median_count(&counts[0].cache_misses, n, SL_CALL_COUNTS_STEP);
  }
  if (sl_kept_timings_add(&ab->kept, &k))
    fprintf(stderr, "scatterlab ab: out of memory: %s's timing not stored\n",
            name);
}

/* LibTorch's arm of a pair: its CUDA op for cuda.* arms. */
static const char *sl__torch_name(const sl_hvariant *const arm_v[2]) {
  return sl_variant_device(&arm_v[0]->v) == SL_DEVICE_CUDA ? "torch.cuda"
                                                           : "torch.cpu";
}

/* Times the pair arm_v (base, cand) on the case's inputs under o, with
 * LibTorch as the third arm when torch, in the timing worker; 0, or
 * non-zero with why. When the timing lost an arm (its kernel killed the
 * worker, or wrote its inputs), *dead names it, its verdict in res (when
 * not NULL) becomes the timing's (bench_store.h) and *died says whether it
 * died (else it failed). */
static int sl__time_pair(const sl__ab *ab, const sl_hvariant *const arm_v[2],
                         const sl_ab_opts *o, int torch, sl_ab_result *r,
                         sl_case_result *res, char *why, size_t why_len,
                         const char **dead, int *died) {
  const sl_bw_pair p = {arm_v[0]->name, arm_v[1]->name, ab->threads,
                        torch,          ab->plant,      *o};
  int arm;
  sl_bw_lost death;
  const int rc =
      sl_bw_ab(ab->workers.timing, &p, r, why, why_len, &arm, &death);
  *dead = NULL;
  *died = death.verdict != SL_VERDICT_FAILED;
  if (death.lost) {
    *dead = arm == 0 || arm == 1 ? arm_v[arm]->name
            : arm == 2           ? sl__torch_name(arm_v)
                                 : "the timing worker";
    sl_bench_case_lost(res, *dead, &death, why, why_len);
  }
  return rc;
}

/* Whether both versions of the pair can be timed on the case: cpu
 * variants that passed it and take its inputs as they are; a note says why
 * not. */
static int sl__timeable(sl__ab *ab, const sl_bench_case *bc,
                        const sl_case_result *res,
                        const sl_hvariant *const arm_v[2], const char *plain) {
  for (int k = 0; k < 2; ++k) {
    const sl_variant_result *r = sl__verdict_of(res, arm_v[k]->name);
    const sl_device dev = sl_variant_device(&arm_v[k]->v);
    if (dev != sl_variant_device(&arm_v[0]->v)) {
      sl__note(ab, SL_AB_ROW_UNTIMED, plain,
               "not timed: base and candidate run on different devices");
      return 0;
    }
    if (dev != SL_DEVICE_CPU && ab->plant > 0) {
      sl__note(ab, SL_AB_ROW_UNTIMED, plain,
               "not timed: --plant-slowdown spins the CPU, not the device");
      return 0;
    }
    if (!r || (r->verdict != SL_VERDICT_PASSED &&
               r->verdict != SL_VERDICT_MISTRUSTED)) {
      const int died = r && (r->verdict == SL_VERDICT_CRASHED ||
                             r->verdict == SL_VERDICT_TIMEOUT);
      sl__note(ab,
               died                                     ? SL_AB_ROW_DIED
               : r && sl_verdict_is_failure(r->verdict) ? SL_AB_ROW_FAILED
                                                        : SL_AB_ROW_UNTIMED,
               plain, "not timed: %s %s%s%s", arm_v[k]->name,
               r ? sl_verdict_name(r->verdict) : "did not run",
               r && r->message[0] ? ": " : "", r ? r->message : "");
      return 0;
    }
    const unsigned lacks = bc->built.layouts & ~arm_v[k]->caps.layouts;
    if (lacks) {
      sl__note(ab, SL_AB_ROW_UNTIMED, plain,
               "not timed: %s takes %s inputs as contiguous copies",
               arm_v[k]->name,
               lacks & SL_LAYOUT_BROADCAST ? "broadcast" : "strided");
      return 0;
    }
  }
  return 1;
}

/* What a judged line says of its rounds' noise: the rounds taken past the
 * budget, and for a noisy verdict the figures it could not judge on. */
static void sl__noise_note(const sl_ab_opts *o, const sl_ab_result *r) {
  if (r->extra_rounds) printf("  (+%d rounds: scattered)", r->extra_rounds);
  if (r->verdict != SL_AB_NOISY) return;
  printf("  too noisy to judge: the rounds spread +-%.1f%%, the interval "
         "+-%.1f%% (judging needs +-%.1f%% at most); copy probe %.1f GB/s",
         r->spread * 100, expm1(log(r->hi / r->lo) / 2) * 100,
         expm1(log1p(o->threshold) / 2) * 100, r->probe_gbs);
}

/* A judged pair: its row, its line and its arms' timings in the store. */
static void sl__judged(sl__ab *ab, const sl_bench_case *bc,
                       const sl_hvariant *const arm_v[2], const char *plain,
                       const sl_ab_result *r) {
  static sl_ab_row row;
  memset(&row, 0, sizeof row);
  row.kind = SL_AB_ROW_JUDGED;
  snprintf(row.case_line, sizeof row.case_line, "%s", ab->case_line);
  snprintf(row.variant, sizeof row.variant, "%s", plain);
  double q1, q3;
  sl_quartiles(r->base_s, r->rounds, &q1, &row.base_s, &q3);
  sl_quartiles(r->cand_s, r->rounds, &q1, &row.cand_s, &q3);
  row.ratio = r->ratio, row.lo = r->lo, row.hi = r->hi, row.p = r->p;
  row.rounds = r->rounds, row.calls_per_turn = r->calls_per_turn;
  row.verdict = r->verdict, row.stopped = r->stopped;
  row.spread = r->spread, row.probe_gbs = r->probe_gbs;
  row.extra_rounds = r->extra_rounds;
  row.case_index = ab->case_index;
  row.torch_s = NAN;
  row.base_speedup = r->base_speedup, row.cand_speedup = r->cand_speedup;
  if (r->has_ref) sl_quartiles(r->ref_s, r->rounds, &q1, &row.torch_s, &q3);
  const int counted = ab->counted;
  row.base_instr = row.cand_instr = row.instr_ratio = NAN;
  if (counted) {
    const double b = sl__median_count(&r->base_n[0].instructions, r->rounds,
                                      SL_CALL_COUNTS_STEP),
                 c = sl__median_count(&r->cand_n[0].instructions, r->rounds,
                                      SL_CALL_COUNTS_STEP);
    row.base_instr = b >= 0 ? b : NAN;
    row.cand_instr = c >= 0 ? c : NAN;
    row.instr_ratio = r->instr_ratio;
  }
  sl_ab_set_add(&ab->set, &row);
  printf("  %-16s %10.4f %10.4f  %6.3f [%6.3f, %6.3f]  %8.2g %6d  %-7s", plain,
         row.base_s * 1e3, row.cand_s * 1e3, r->ratio, r->lo, r->hi, r->p,
         r->rounds, sl_ab_verdict_name(r->verdict));
  if (r->has_ref)
    printf("  torch %.4f ms: %.2fx -> %.2fx", row.torch_s * 1e3,
           r->base_speedup, r->cand_speedup);
  if (counted && ab->o.metric != SL_AB_METRIC_INSTRUCTIONS)
    printf("  instr %.4f", r->instr_ratio);
  else if (counted)
    printf("  time %.4f", row.cand_s / row.base_s);
  sl__noise_note(&ab->o, r);
  putchar('\n');
  sl__keep_arm(ab, arm_v[0]->name, r->base_s, r->rounds, bc->built.bytes,
               counted ? r->base_n : NULL);
  sl__keep_arm(ab, arm_v[1]->name, r->cand_s, r->rounds, bc->built.bytes,
               counted ? r->cand_n : NULL);
  /* The rounds where the clock read LibTorch's calls (all, in practice). */
  if (r->has_ref) {
    static double ts[SL_AB_MAX_ROUNDS];
    int m = 0;
    for (int i = 0; i < r->rounds; ++i)
      if (r->ref_s[i] > 0) ts[m++] = r->ref_s[i];
    sl__keep_arm(ab, sl__torch_name(arm_v), ts, m, bc->built.bytes, NULL);
  }
}

/* Times one pair on the case's inputs and prints its line. */
static void sl__pair(sl__ab *ab, const sl_bench_case *bc, sl_case_result *res,
                     const sl_hvariant *base) {
  const char *plain = base->name + 5;
  char cname[SL_VARIANT_NAME_LEN + 8];
  sl__cand_name(ab, plain, cname, sizeof cname);
  const sl_hvariant *arm_v[2] = {base, sl_hvariant_find(bc->c.op, cname)};
  if (!sl__timeable(ab, bc, res, arm_v, plain)) return;
  static sl_ab_result r;
  char why[600];
  const char *dead;
  int died;
  if (sl__time_pair(ab, arm_v, &ab->o, ab->torch, &r, res, why, sizeof why,
                    &dead, &died))
    sl__note(ab, dead && died ? SL_AB_ROW_DIED : SL_AB_ROW_FAILED, plain,
             "not timed: %s%s%s", dead ? dead : "", dead ? " " : "", why);
  else if (sl_interrupted())
    printf("  %-16s interrupted: not judged\n", plain);
  else
    sl__judged(ab, bc, arm_v, plain, &r);
}

/* Appends plain's base and candidate names to the variant list. */
static void sl__list_pair(const sl__ab *ab, const char *plain, char *list,
                          size_t len) {
  char cname[SL_VARIANT_NAME_LEN + 8];
  sl__cand_name(ab, plain, cname, sizeof cname);
  const size_t used = strlen(list);
  snprintf(list + used, len - used, "%sbase:%s,%s", used ? "," : "", plain,
           cname);
}

/* Checks the listed variants on case c against LibTorch and builds its
 * inputs; *res (until the next call) gets the check. */
static int sl__open_case(const sl__ab *ab, const sl_case *c, const char *list,
                         sl_bench_case *bc, sl_case_result **res, char *err,
                         size_t len) {
  static sl_case_result result; /* large: every variant's outcome */
  sl_run_opts ro = {0};
  ro.variants = list;
  ro.threads = ab->threads;
  *res = &result;
  return sl_bench_case_open(bc, c, &ro, &ab->workers, &result, err, len);
}

/* Confirmation k of a claim (ab_gate.h): the row's case built again (its
 * check against LibTorch not stored again) in a new timing worker, the pair
 * timed in fresh rounds under the confirmation seed plus k, without
 * LibTorch. A new process each time: a bias can last as long as the timing
 * worker (SL_AB_CONFIRMATIONS). */
static int sl__retime(sl__ab *ab, const sl_ab_row *row, int k,
                      sl_ab_result *again) {
  const sl_case *c = &ab->cases[row->case_index];
  char list[2 * SL_VARIANT_NAME_LEN + 32] = "";
  char cname[SL_VARIANT_NAME_LEN + 8], bname[sizeof cname];
  sl__list_pair(ab, row->variant, list, sizeof list);
  sl__cand_name(ab, row->variant, cname, sizeof cname);
  snprintf(bname, sizeof bname, "base:%s", row->variant);
  const sl_hvariant *arm_v[2] = {sl_hvariant_find(c->op, bname),
                                 sl_hvariant_find(c->op, cname)};
  sl_bench_case bc;
  sl_case_result *res;
  char err[512] = "";
  sl_run_opts ro = {0};
  ro.threads = ab->threads;
  if (!arm_v[0] || !arm_v[1] || sl_interrupted() ||
      sl_bench_workers_renew_timing(&ab->workers, &ro, ab->counters, &ab->winfo,
                                    err, sizeof err) ||
      sl__open_case(ab, c, list, &bc, &res, err, sizeof err)) {
    if (!sl_interrupted())
      fprintf(stderr, "scatterlab ab: %s: %s\n", row->variant, err);
    return -1;
  }
  sl_ab_opts o = ab->o;
  o.seed = sl_ab_confirm_seed(ab->o.seed) + (uint64_t)k;
  const char *dead;
  int died;
  const int rc = sl__time_pair(ab, arm_v, &o, 0, again, NULL, err, sizeof err,
                               &dead, &died);
  if (rc)
    fprintf(stderr, "scatterlab ab: %s: %s%s%s\n", row->variant,
            dead ? dead : "", dead ? " " : "", err);
  return rc || sl_interrupted();
}

static void sl__ab_case(sl__ab *ab, const sl_case *c) {
  static char line[SL_CASE_LINE_MAX];
  sl_case_print(c, line, sizeof line);
  ab->case_line = line;
  size_t idx[64];
  int n = sl__pairs_of(ab, c->op, idx, 64);
  if (n == 0) return;
  /* Correctness first: both versions of every pair against LibTorch. */
  char list[4096] = "";
  for (int i = 0; i < n; ++i)
    sl__list_pair(ab, sl_hvariant_at(idx[i])->name + 5, list, sizeof list);
  sl_bench_case bc;
  sl_case_result *res;
  char err[512];
  if (sl__open_case(ab, c, list, &bc, &res, err, sizeof err)) {
    fprintf(stderr, "scatterlab ab: %s\n", err);
    sl__note(ab, SL_AB_ROW_FAILED, "-", "the case could not be built: %s", err);
    return;
  }
  ab->case_line = res->line;
  printf("  %-16s %10s %10s  %-24s %8s %6s  %s\n", "variant", "base ms",
         "cand ms", "cand/base [interval]", "p", "rounds", "verdict");
  for (int i = 0; i < n && !sl_interrupted(); ++i)
    sl__pair(ab, &bc, res, sl_hvariant_at(idx[i]));
  sl__report_missing(ab, c->op);
  /* With the timing's verdicts: a kernel that passed its check, then died
   * or wrote its inputs while timed, is stored so. */
  if (ab->st && sl_bench_case_store(ab->st, ab->run_id, &bc, res, &ab->kept))
    fprintf(stderr, "scatterlab ab: store: %s\n", sl_store_errmsg(ab->st));
  ab->kept.n = 0;
}

/* Raises the fewest rounds to those in which a benchmark's p can reach
 * Holm's smallest threshold, alpha / judgements (`judgements` the pairs the
 * cases have at most): fewer could never be a claim. */
static void sl__rounds_for_alpha(sl__ab *ab, int judgements) {
  int need = sl_ab_rounds_for_p(ab->alpha / (judgements > 0 ? judgements : 1));
  if (need > ab->o.max_rounds) need = ab->o.max_rounds;
  if (need <= ab->o.min_rounds) return;
  printf("min rounds %d (not %d): the fewest in which a p can reach alpha / "
         "%d, Holm's smallest threshold\n",
         need, ab->o.min_rounds, judgements);
  ab->o.min_rounds = need;
}

/* The run-wide checks (ab_gate.h) over every judgement, with a line for
 * each claim (after its case line, which building the case again for the
 * confirmation prints); -1 when memory ran out (no verdict changed then). */
static int sl__run_wide(sl__ab *ab) {
  sl_ab_set *set = &ab->set;
  if (sl_ab_set_holm(set, ab->alpha)) {
    fprintf(stderr, "scatterlab ab: out of memory for the run-wide checks\n");
    sl_ab_set_recount(set);
    return -1;
  }
  static sl_ab_result again;
  int header = 0;
  for (int i = 0; i < set->n; ++i) {
    sl_ab_row *r = &set->rows[i];
    if (r->kind != SL_AB_ROW_JUDGED ||
        (r->first != SL_AB_SLOWER && r->first != SL_AB_FASTER))
      continue;
    if (!header++)
      printf("\nrun-wide: Holm's step-down over %d judgements at family-wise "
             "alpha %.3g; each claim it keeps timed again in fresh rounds, "
             "in %d new timing processes (seeds from %llu)\n",
             set->judgements, set->alpha, SL_AB_CONFIRMATIONS,
             set->confirm_seed);
    if (sl_ab_row_to_confirm(r))
      for (int k = 0; k < SL_AB_CONFIRMATIONS && r->verdict != SL_AB_UNCLEAR;
           ++k)
        sl_ab_row_confirm(r, sl__retime(ab, r, k, &again) ? NULL : &again,
                          set->alpha);
    else
      printf("\n%s\n", r->case_line);
    sl_ab_gate_line(r, stdout);
  }
  sl_ab_set_recount(set);
  return 0;
}

/* The paths and files of one ab command, beside its sl__ab. */
typedef struct sl__ab_cmd {
  sl_options opt;
  const char *db, *suite, *base, *cand, *base_ref;
  const char *files[4]; /* --json, --markdown, --csv, --html */
  int no_db, no_counters, store_failed, n, pairable;
  char **lines;
  sl_case *cases;
  char bpath[4096 + 40], cpath[4096 + 40];
  sl_bw_info winfo;
} sl__ab_cmd;

static const sl_option_id sl__ab_file_opts[4] = {SL_OPT_JSON, SL_OPT_MARKDOWN,
                                                 SL_OPT_CSV, SL_OPT_HTML};
static const sl_ab_format sl__ab_file_formats[4] = {SL_AB_JSON, SL_AB_MARKDOWN,
                                                    SL_AB_CSV, SL_AB_HTML};

/* The option values into ab and c (options.def holds their checks). */
static void sl__ab_options(sl__ab *ab, sl__ab_cmd *c) {
  const sl_options *o = &c->opt;
  c->base = sl_opt_text(o, SL_OPT_BASE);
  c->base_ref = sl_opt_text(o, SL_OPT_BASE_REF);
  c->cand = sl_opt_text(o, SL_OPT_CAND);
  c->suite = sl_opt_text(o, SL_OPT_SUITE);
  c->db = sl_opt_text(o, SL_OPT_DB);
  c->no_db = sl_opt_on(o, SL_OPT_NO_DB);
  c->no_counters = sl_opt_on(o, SL_OPT_NO_COUNTERS);
  for (int k = 0; k < 4; ++k) c->files[k] = sl_opt_text(o, sl__ab_file_opts[k]);
  ab->variants = sl_opt_text(o, SL_OPT_AB_VARIANTS);
  ab->threads = (int)o->v[SL_OPT_THREADS].n;
  ab->o.budget_s = o->v[SL_OPT_AB_BUDGET].x;
  ab->o.noisy_budget_s = o->v[SL_OPT_NOISY_BUDGET].x;
  ab->workers.timeout_s = o->v[SL_OPT_BENCH_TIMEOUT].x;
  ab->o.min_rounds = (int)o->v[SL_OPT_MIN_ROUNDS].n;
  ab->o.max_rounds = (int)o->v[SL_OPT_MAX_ROUNDS].n;
  ab->o.threshold = o->v[SL_OPT_THRESHOLD].x;
  ab->alpha = o->v[SL_OPT_AB_ALPHA].x;
  ab->o.seed = (uint64_t)o->v[SL_OPT_AB_SEED].n;
  ab->allow_missing = sl_opt_on(o, SL_OPT_ALLOW_MISSING);
  ab->torch = sl_opt_on(o, SL_OPT_TORCH);
  ab->o.metric =
      (sl_ab_metric)sl_ab_metric_parse(sl_opt_text(o, SL_OPT_METRIC));
  ab->plant = o->v[SL_OPT_PLANT_SLOWDOWN].x;
}

/* What the options say together; 0 or SL_EXIT_USAGE. */
static int sl__ab_check(const sl__ab *ab, const sl__ab_cmd *c) {
  if (!c->base == !c->base_ref)
    return sl_cli_usage_error("ab",
                              "expected one of --base LIB|DIR and --base-ref "
                              "GITREF (the build to compare against), got %s",
                              c->base ? "both" : "neither");
  if (ab->o.metric == SL_AB_METRIC_INSTRUCTIONS && c->no_counters)
    return sl_cli_usage_error("ab", "--metric instructions: expected the "
                                    "hardware counters, found --no-counters");
  if (ab->o.min_rounds > ab->o.max_rounds)
    return sl_cli_usage_error("ab",
                              "--min-rounds %d: expected at most --max-rounds "
                              "(%d)",
                              ab->o.min_rounds, ab->o.max_rounds);
  return 0;
}

/* Options, cases, libraries and outputs, each checked before any work: 0,
 * or an exit status (SL_OPTIONS_HELP after --help). */
static int sl__ab_prepare(sl__ab *ab, sl__ab_cmd *c, int argc, char **argv) {
  static const sl_command_help help = {SL_CMD_AB, sl__ab_help,
                                       sl__ab_help_after, NULL};
  int rc = sl_options_parse(&help, argc, argv, &c->opt);
  if (rc) return rc;
  sl__ab_options(ab, c);
  if (sl__ab_check(ab, c)) return SL_EXIT_USAGE;
  for (int i = 0; i < c->opt.nwords; ++i)
    if (sl_bench_lines_push(&c->lines, &c->n, c->opt.words[i]))
      return SL_EXIT_USAGE;
  if (!(c->cases = sl_bench_cases("ab", c->suite, &c->lines, &c->n)))
    return SL_EXIT_USAGE;
  if ((c->base && sl__lib_path("--base", c->base, c->bpath, sizeof c->bpath)) ||
      (c->cand && sl__lib_path("--cand", c->cand, c->cpath, sizeof c->cpath)))
    return SL_EXIT_USAGE;
  /* Outputs that would replace the store, a library or a link: refused. */
  for (int k = 0; k < 4; ++k)
    if (sl_cli_output_check("ab", sl_option_row(sl__ab_file_opts[k])->name,
                            c->files[k], c->no_db ? NULL : c->db, argc, argv))
      return SL_EXIT_USAGE;
  return 0;
}

/* Both builds' kernels loaded (the base built from git first when asked)
 * and the pairs counted; 0 or an exit status. */
static int sl__ab_load(sl__ab *ab, sl__ab_cmd *c) {
  char err[8192], bspec[4200], cspec[4200];
  if (c->base_ref && sl_ab_build_ref(c->base_ref, c->bpath, sizeof c->bpath,
                                     err, sizeof err)) {
    fprintf(stderr, "scatterlab ab: %s\n", err);
    return SL_EXIT_USAGE;
  }
  snprintf(bspec, sizeof bspec, "base=%s", c->bpath);
  snprintf(cspec, sizeof cspec, "cand=%s", c->cand ? c->cpath : "");
  const char *specs[2] = {bspec, cspec};
  if (sl_providers_load(specs, c->cand ? 2 : 1, err, sizeof err)) {
    fprintf(stderr, "scatterlab ab: %s\n", err);
    return SL_EXIT_USAGE;
  }
  ab->cand_given = c->cand != NULL;
  static char filter[4096];
  if (ab->variants && sl__ab_filter(ab->variants, filter, sizeof filter))
    return SL_EXIT_USAGE;
  if (ab->variants) ab->variants = filter;
  for (int i = 0; i < c->n; ++i) {
    size_t idx[64];
    c->pairable += sl__pairs_of(ab, c->cases[i].op, idx, 64);
  }
  if (c->pairable) return 0;
  char typo[1024] = "";
  if (ab->variants &&
      sl_variants_unmatched(ab->variants, 1, typo + 2, sizeof typo - 2))
    memcpy(typo, "; ", 2);
  fprintf(stderr,
          "scatterlab ab: expected a variant of these cases' ops in both "
          "builds%s%s, found none: nothing to compare%s\n",
          ab->variants ? " matching --variants " : "",
          ab->variants ? ab->variants : "", typo);
  return SL_EXIT_INCOMPLETE;
}

/* Every kernel and LibTorch call in the workers (bench_worker.h); the
 * counters are the timing worker's. 0 or SL_EXIT_INCOMPLETE. */
static int sl__ab_start(sl__ab *ab, sl__ab_cmd *c) {
  ab->threads = ab->threads > 0 ? ab->threads : sl_default_threads();
  sl_run_opts ro = {0};
  ro.threads = ab->threads;
  char werr[512];
  ab->counters = !c->no_counters;
  if (sl_bench_workers_start(&ab->workers, &ro, ab->counters, &c->winfo, werr,
                             sizeof werr)) {
    fprintf(stderr, "scatterlab ab: %s\n", werr);
    return SL_EXIT_INCOMPLETE;
  }
  printf("counters: %s\n", c->winfo.counters);
  if (ab->o.metric == SL_AB_METRIC_INSTRUCTIONS && !c->winfo.instructions) {
    fprintf(stderr,
            "scatterlab ab: --metric instructions: expected an instructions "
            "counter, found %s; judge on time (the default) here\n",
            c->winfo.counters);
    return SL_EXIT_INCOMPLETE;
  }
  ab->counted = c->winfo.counted;
  return 0;
}

/* The run's settings into the set its files are written from, and the
 * line that says them. */
static void sl__ab_settings(sl__ab *ab, const sl__ab_cmd *c) {
  sl_ab_set *set = &ab->set;
  set->metric = ab->o.metric;
  set->counted = ab->counted;
  snprintf(set->counters, sizeof set->counters, "%s", c->winfo.counters);
  snprintf(set->base, sizeof set->base, "%s", c->bpath);
  snprintf(set->cand, sizeof set->cand, "%s", c->cand ? c->cpath : "");
  set->threshold = ab->o.threshold;
  set->level = ab->o.level;
  set->budget_s = ab->o.budget_s;
  set->noisy_budget_s = ab->o.noisy_budget_s;
  set->seed = (unsigned long long)ab->o.seed;
  set->alpha = ab->alpha;
  set->confirm_seed = (unsigned long long)sl_ab_confirm_seed(ab->o.seed);
  set->threads = ab->threads;
  set->torch = ab->torch;
  const char *omp = sl_omp_env_line(set->omp, sizeof set->omp);
  printf("base %s\ncand %s\nthreads %d (%s), threshold %.3g%%, "
         "family-wise alpha %.3g (Holm), budget %.3g s per benchmark (+%.3g "
         "s when its rounds scatter), seed %llu, judged on %s\n",
         c->bpath, c->cand ? c->cpath : "(this scatterlab's kernels)",
         ab->threads, omp, ab->o.threshold * 100, ab->alpha, ab->o.budget_s,
         ab->o.noisy_budget_s, (unsigned long long)ab->o.seed,
         sl_ab_metric_name(ab->o.metric));
}

/* The store's run (a bench run with both arms' samples); 0 or a status. */
static int sl__ab_begin(sl__ab *ab, const sl__ab_cmd *c, int argc,
                        char **argv) {
  if (c->no_db) return 0;
  int rc = sl_cli_open_store("ab", c->db, 0, &ab->st);
  if (rc) return rc;
  sl_runinfo_buf ri;
  sl_runinfo_fill(&ri, "bench", argc, argv, ab->threads);
  if (!sl_store_run_begin(ab->st, &ri.info, &ab->run_id)) return 0;
  fprintf(stderr, "scatterlab ab: %s\n", sl_store_errmsg(ab->st));
  sl_store_close(ab->st);
  ab->st = NULL;
  return SL_EXIT_INCOMPLETE;
}

/* Every case, one transaction each; then the run-wide checks. */
static void sl__ab_all(sl__ab *ab, sl__ab_cmd *c) {
  ab->cases = c->cases;
  for (int i = 0; i < c->n && !sl_interrupted(); ++i) {
    if (ab->st) sl_store_begin(ab->st);
    ab->case_index = i;
    sl__ab_case(ab, &c->cases[i]);
    if (ab->st && (sl_interrupted() ? sl_store_rollback(ab->st)
                                    : sl_store_commit(ab->st))) {
      fprintf(stderr, "scatterlab ab: store: %s\n", sl_store_errmsg(ab->st));
      c->store_failed = 1;
    }
  }
  if (sl__run_wide(ab)) c->store_failed = 1;
  sl_ab_set_probes(&ab->set);
}

/* The summary line; returns the benchmarks judged. */
static int sl__ab_summary(const sl__ab *ab) {
  const sl_ab_set *set = &ab->set;
  int pairs = 0;
  for (int k = 0; k < SL_AB_VERDICT_COUNT; ++k) pairs += set->counts[k];
  printf("\n%d benchmarks judged:", pairs);
  for (int k = 0; k < SL_AB_VERDICT_COUNT; ++k)
    printf(" %d %s", set->counts[k], sl_ab_verdict_name((sl_ab_verdict)k));
  printf(" (family-wise alpha %.3g over %d, Holm; claims confirmed in fresh "
         "rounds)",
         set->alpha, set->judgements);
  if (set->missing)
    printf("; %d base variant%s missing from the candidate%s", set->missing,
           set->missing == 1 ? "" : "s",
           ab->allow_missing ? " (allowed)" : ": incomplete (exit 3)");
  if (set->failed) printf("; %d failed", set->failed);
  if (set->died)
    printf("; %d died (a kernel crashed, hung or exited: exit %d)", set->died,
           SL_EXIT_KERNEL_DIED);
  printf("\n");
  if (set->probed)
    printf("copy probe after each benchmark: best %.1f GB/s; %d of %d below "
           "%.0f%% of it%s\n",
           set->probe_best, set->disturbed, set->probed, SL_AB_DISTURBED * 100,
           set->disturbed ? " (a neighbour took memory or a core: verdicts "
                            "there took more rounds or say noisy)"
                          : "");
  return pairs;
}

/* The run closed, its exit status, and every file written (a file that
 * cannot be written makes a passing gate incomplete). */
static int sl__ab_finish(sl__ab *ab, const sl__ab_cmd *c) {
  const sl_ab_set *set = &ab->set;
  const int pairs = sl__ab_summary(ab);
  const int bad = set->failed || set->died || set->counts[SL_AB_SLOWER] > 0;
  const int incomplete =
      c->store_failed || pairs == 0 || (set->missing > 0 && !ab->allow_missing);
  if (ab->st) {
    sl_store_run_finish(ab->st, ab->run_id,
                        sl_interrupt_run_status(bad || c->store_failed));
    sl_store_close(ab->st);
    ab->st = NULL;
    printf("results: %s (run %lld)\n", c->db, (long long)ab->run_id);
  }
  int rc = sl_interrupt_exit_status(set->died    ? SL_EXIT_KERNEL_DIED
                                    : bad        ? SL_EXIT_FAIL
                                    : incomplete ? SL_EXIT_INCOMPLETE
                                                 : SL_EXIT_OK);
  ab->set.exit_status = rc;
  for (int k = 0; k < 4; ++k) {
    char err[4400];
    if (c->files[k] && sl_ab_write_file(set, sl__ab_file_formats[k],
                                        c->files[k], err, sizeof err)) {
      fprintf(stderr, "scatterlab ab: %s\n", err);
      if (rc == SL_EXIT_OK) rc = SL_EXIT_INCOMPLETE;
    }
  }
  return rc;
}

static int sl__ab_go(sl__ab *ab, sl__ab_cmd *c, int argc, char **argv) {
  sl_cli_warn_small_thresholds("ab");
  int rc = sl__ab_load(ab, c);
  if (!rc) rc = sl__ab_start(ab, c);
  if (rc) return rc;
  sl__ab_settings(ab, c);
  sl_interrupt_install();
  sl__rounds_for_alpha(ab, c->pairable);
  if ((rc = sl__ab_begin(ab, c, argc, argv))) return rc;
  sl__ab_all(ab, c);
  return sl__ab_finish(ab, c);
}

int sl_cmd_ab(int argc, char **argv) {
  static sl__ab ab;      /* large; one a process */
  static sl__ab_cmd cmd; /* the same */
  memset(&ab, 0, sizeof ab);
  memset(&cmd, 0, sizeof cmd);
  sl_ab_opts_init(&ab.o);
  int rc = sl__ab_prepare(&ab, &cmd, argc, argv);
  if (rc == SL_OPTIONS_HELP || (!rc && sl_cli_parse_only))
    rc = SL_EXIT_OK;
  else if (!rc)
    rc = sl__ab_go(&ab, &cmd, argc, argv);
  sl_bench_workers_stop(&ab.workers);
  sl_ab_set_free(&ab.set);
  sl_kept_timings_free(&ab.kept);
  free(cmd.cases);
  for (int i = 0; i < cmd.n; ++i) free(cmd.lines[i]);
  free(cmd.lines);
  sl_options_free(&cmd.opt);
  return rc;
}
