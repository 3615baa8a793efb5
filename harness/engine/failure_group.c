/* Failure signatures (failure_group.h). */
#include "failure_group.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adjoint.h"
#include "alloc_faults.h"
#include "call_checks.h"
#include "casegen.h"
#include "clean_text.h"
#include "crash_state.h"
#include "defect_relation.h"
#include "runner.h"
#include "variant_call.h"
#include "worker.h"

static int sl__digit(char ch) { return ch >= '0' && ch <= '9'; }

void sl_failure_message_class(const char *m, char *out, size_t len) {
  size_t n = 0;
  if (!len) return;
  for (const char *p = m ? m : ""; *p && n + 1 < len;) {
    /* A number: [-+]digits[.digits][e[-+]digits], or .digits, or inf/nan
     * are left as words (they name a kind of mismatch). */
    const char *q = p;
    if ((*q == '-' || *q == '+') && (sl__digit(q[1]) || q[1] == '.')) ++q;
    if (sl__digit(*q) || (*q == '.' && sl__digit(q[1]))) {
      while (sl__digit(*q)) ++q;
      if (*q == '.' && sl__digit(q[1]))
        for (++q; sl__digit(*q);) ++q;
      if ((*q == 'e' || *q == 'E') &&
          (sl__digit(q[1]) ||
           ((q[1] == '-' || q[1] == '+') && sl__digit(q[2]))))
        for (q += 2; sl__digit(*q);) ++q;
      out[n++] = '#';
      p = q;
      /* A list of numbers (a position "3, 1, 2", a shape "4x3") is one
       * '#': its length is the case's rank, which names no bug. */
      const char *r = p;
      if (*r == ',' || *r == 'x') ++r;
      if (r > p && *r == ' ') ++r;
      if (r > p && (sl__digit(*r) || *r == '-')) p = r, --n;
      continue;
    }
    out[n++] = *p++;
  }
  out[n] = '\0';
}

/* The output a message of the runner names first ("out: ..."), when it
 * is one of the op's outputs: its length, else 0. */
static size_t sl__output_prefix(sl_op op, const char *m, char *out,
                                size_t len) {
  const sl_op_info *info = sl_op_get(op);
  for (int s = 0; info && s < info->n_out; ++s) {
    const char *name = info->arg_names[info->n_in + s];
    size_t n = strlen(name);
    if (strncmp(m, name, n) == 0 && m[n] == ':' && m[n + 1] == ' ') {
      snprintf(out, len, "%s", name);
      return n + 2;
    }
  }
  snprintf(out, len, "-");
  return 0;
}

/* What a value mismatch ("... mismatch at [i]: got G, expected E") says of
 * the kernel: NULL when m is not one. */
static const char *sl__mismatch_kind(sl_dtype dt, const char *m) {
  const char *got = strstr(m, " mismatch at ");
  got = got ? strstr(got, ": got ") : NULL;
  const char *want = got ? strstr(got, ", expected ") : NULL;
  if (!want) return NULL;
  char *end;
  double g = strtod(got + 6, &end), e = strtod(want + 11, NULL);
  if (end == got + 6) return NULL;
  if (isnan(e) && !isnan(g)) return "a NaN lost";
  if (isnan(g) && !isnan(e)) return "a NaN made";
  /* One byte of poison reads as an ordinary value (bool true, u8 165):
   * never-written is told only in wider dtypes. */
  int plain;
  const double p = sl_poison_value(dt, &plain);
  if (!plain && (g == p || fabs(g - p) <= 1e-6 * fabs(p)))
    return "an element never written";
  return "a value wrong";
}

/* The rest of a message that is no value mismatch: its class, up to the
 * first note ("; ..." or " (...)"), which tells cases apart, not bugs. */
static void sl__message_kind(const char *m, char *out, size_t len) {
  char cls[512];
  sl_failure_message_class(m, cls, sizeof cls);
  size_t n = strcspn(cls, ";");
  const char *paren = strstr(cls, " (");
  if (paren && (size_t)(paren - cls) < n) n = (size_t)(paren - cls);
  snprintf(out, len, "%.*s", (int)n, cls);
  /* A signature is one line: the jobs' lines and the corpus comment. */
  sl_text_one_line(out);
}

void sl_failure_kind(const sl_case *c, const char *message, char *output,
                     size_t output_len, char *kind, size_t kind_len) {
  const char *m = message ? message : "";
  m += sl__output_prefix(c->op, m, output, output_len);
  const char *k = sl__mismatch_kind(c->dt, m);
  if (k)
    snprintf(kind, kind_len, "%s", k);
  else
    sl__message_kind(m, kind, kind_len);
}

int sl_failure_variant_listed(const char *list, const char *name, size_t len) {
  for (const char *p = list; p && *p;) {
    if (strncmp(p, name, len) == 0 && (p[len] == ',' || p[len] == '\0'))
      return 1;
    p = strchr(p, ',');
    p = p ? p + 1 : NULL;
  }
  return 0;
}

void sl_failure_sig_name(sl_failure_sig *out) {
  uint64_t h = 1469598103934665603ull;
  for (const char *p = out->text; *p; ++p)
    h = (h ^ (unsigned char)*p) * 1099511628211ull;
  snprintf(out->id, sizeof out->id, "%016" PRIx64, h);
}

/* The kind of c's failure with `message`, bounded so that a signature
 * holds it (cut at a character's boundary: a cut inside one is no UTF-8
 * for the writers), its output, and the case's reduce ("-" for an op
 * without one). */
static const char *sl__kind_of(const sl_case *c, const char *message,
                               char *output, size_t output_len, char *kind,
                               size_t kind_len) {
  sl_failure_kind(c, message, output, output_len, kind, kind_len);
  kind[kind_len > 300 ? 300 : kind_len - 1] = '\0';
  sl_utf8_cut(kind);
  const sl_op_info *info = sl_op_get(c->op);
  return info && info->reduces ? sl_reduce_name(c->reduce) : "-";
}

void sl_failure_signature(const sl_case *c, const char *variant,
                          const char *verdict, const char *message,
                          sl_failure_sig *out) {
  char output[64], kind[400];
  const char *reduce =
      sl__kind_of(c, message, output, sizeof output, kind, sizeof kind);
  snprintf(out->text, sizeof out->text,
           "%.40s %.240s %.40s | %.16s %.60s | %.300s", sl_op_name(c->op),
           variant ? variant : "?", verdict ? verdict : "?", reduce, output,
           kind);
  sl_failure_sig_name(out);
}

int sl_failure_shared_check(const char *message) {
  static const char *const shared[] = {
      SL_CALL_CHECKS_PREFIX, SL_ALLOC_FAULTS_PREFIX, SL_ADJOINT_HELPER_PREFIX};
  for (size_t k = 0; message && k < sizeof shared / sizeof shared[0]; ++k)
    if (strncmp(message, shared[k], strlen(shared[k])) == 0) return 1;
  return sl_crash_state_in(message);
}

/* The class (casegen.h) of the invalid case c that a variant accepted
 * where LibTorch refused it: the check it lacks, which the ops of a
 * library share (core's checks.c bounds every op's index). A crash, a
 * hang or a write outside the output on such a case is the same check
 * missing, met by a kernel that then read or wrote where the case's bad
 * index pointed. NULL for any
 * other failure. */
static const char *sl__accepted_class(const sl_case *c, const char *verdict,
                                      const char *message) {
  const int accepted = message && strncmp(message, SL_ACCEPTED_PREFIX,
                                          strlen(SL_ACCEPTED_PREFIX)) == 0;
  const int died =
      verdict && (strcmp(verdict, sl_verdict_name(SL_VERDICT_CRASHED)) == 0 ||
                  strcmp(verdict, sl_verdict_name(SL_VERDICT_TIMEOUT)) == 0);
  const int outside = message && strncmp(message, SL_WROTE_OUTSIDE_PREFIX,
                                         strlen(SL_WROTE_OUTSIDE_PREFIX)) == 0;
  if (!accepted && !died && !outside) return NULL;
  const sl_fuzz_class k = sl_fuzz_classify(c);
  return k == SL_FUZZ_VALID ? NULL : sl_fuzz_class_name(k);
}

/* A death inside a shared check ("sl_run_variant given an output over an
 * input: worker killed by signal 11 in function F ...") is that check's
 * defect, like its other failures: where the kernel then died depends on
 * the op it ran, so the kind keeps the check's words only. A crash outside
 * any check keeps its function (crash_state.h). */
static void sl__cut_death(const char *message, char *kind) {
  static const char *const deaths[] = {": " SL_WORKER_DEATH_WORDS,
                                       ": " SL_WORKER_HANG_WORDS};
  if (!message || strncmp(message, SL_WORKER_DEATH_WORDS,
                          strlen(SL_WORKER_DEATH_WORDS)) == 0)
    return;
  for (size_t k = 0; k < sizeof deaths / sizeof *deaths; ++k) {
    char *at = strstr(kind, deaths[k]);
    if (at) *at = '\0';
  }
}

/* Whether the failure is LibTorch's (the variants key is the reference's
 * name): a reference that dies on an invalid case lacks a check of its
 * own, which no kernel shares. */
static int sl__reference_failed(const char *variants_key) {
  return variants_key && strcmp(variants_key, SL_WORKER_REFERENCE) == 0;
}

/* The relation a wrong adjoint helper's outputs hold (adjoint.h:
 * SL_ADJOINT_HELPER_RELATION) into rel: 1, or 0 when the message names
 * none. */
static int sl__helper_relation(const char *message, char *rel, size_t len) {
  if (!message || strncmp(message, SL_ADJOINT_HELPER_PREFIX,
                          strlen(SL_ADJOINT_HELPER_PREFIX)) != 0)
    return 0;
  const char *at = strstr(message, SL_ADJOINT_HELPER_RELATION);
  if (!at) return 0;
  at += strlen(SL_ADJOINT_HELPER_RELATION);
  const size_t n = strcspn(at, ")");
  snprintf(rel, len, "%.*s", (int)n, at);
  return 1;
}

size_t sl_defect_signature(const sl_case *c, const char *variants_key,
                           const char *verdict, const char *message,
                           const char *relation, const sl_failure_sig *group,
                           sl_failure_sig *out) {
  const char *accepted = sl__reference_failed(variants_key)
                             ? NULL
                             : sl__accepted_class(c, verdict, message);
  /* A wrong helper whose outputs hold a relation is the defect its own
   * op's failures show (a start value taken in, a swapped reduce), met
   * through the identity: keyed by that relation, as they are. */
  char helper_rel[32];
  const int helper =
      sl__helper_relation(message, helper_rel, sizeof helper_rel);
  if (helper) relation = helper_rel;
  const int shared = accepted || (!helper && sl_failure_shared_check(message));
  if ((!relation || !relation[0]) && !shared) {
    *out = *group;
    return 0;
  }
  char output[64], kind[400];
  const char *reduce =
      sl__kind_of(c, message, output, sizeof output, kind, sizeof kind);
  if (accepted) {
    snprintf(kind, sizeof kind, "accepted an invalid case (%s)", accepted);
    verdict = "accepted"; /* a crash after it is the same check missing */
  }
  /* The output's name is left out: a forward op's "out" and a backward
   * op's "grad_src" are one defect when the relation says so. So is the
   * reduce when the relation is include_self's: the start value a reduce
   * begins from is one code path for every reduce (reduce.c), and the
   * flipped call answering the whole output says it was ignored, whatever
   * the reduce; a reduce swapped (amin answering as amax) is one reduce's.
   * An input's strides ignored, and elements never written (a loop that
   * stops one short), are a walk's, which every reduce shares, and the
   * gathers that the backward ops lean on.
   * A shared check's code is the same for every reduce too. A relation
   * says what the output is, whole; the kind of its first wrong element
   * (a NaN lost, a value wrong) then only tells the cases' values apart. */
  if (shared) relation = "";
  if (shared) sl__cut_death(message, kind);
  if (shared || strncmp(relation, "= include_self", 14) == 0 ||
      strstr(relation, SL_RELATION_STRIDES_IGNORED) ||
      strcmp(relation, SL_RELATION_NEVER_WRITTEN) == 0)
    reduce = "any reduce";
  /* dynamic_scatter's "max" is amax by another name (one helper, one
   * NaN rule): one defect. */
  if (strcmp(reduce, "max") == 0) reduce = "amax";
  if (relation[0]) kind[0] = '\0';
  const char *key = variants_key ? variants_key : "?";
  const size_t klen = strlen(key) < 240 ? strlen(key) : 240;
  snprintf(out->text, sizeof out->text, "%.*s %.40s | %.16s | %.300s%.31s",
           (int)klen, key, verdict ? verdict : "?", reduce, kind, relation);
  sl_failure_sig_name(out);
  return klen;
}

/* A variant's name in a comma-separated list: where and how long. */
typedef struct sl__name {
  const char *at;
  size_t len;
} sl__name;

enum { SL__KEY_NAMES = 64 }; /* names a key holds: more than any op has */

static int sl__name_cmp(const void *a, const void *b) {
  const sl__name *x = a, *y = b;
  const int c = memcmp(x->at, y->at, x->len < y->len ? x->len : y->len);
  return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* The names of list (len bytes) appended to v[*n], up to max in all. */
static void sl__names_of(const char *list, size_t len, sl__name *v, int *n,
                         int max) {
  const char *end = list + len;
  for (const char *p = list; p < end && *n < max;) {
    const char *q = memchr(p, ',', (size_t)(end - p));
    if (!q) q = end;
    if (q > p) v[(*n)++] = (sl__name){p, (size_t)(q - p)};
    p = q + 1;
  }
}

/* v's names in byte order, each once, joined by commas into out: a key
 * that reads the same whichever order its variants were met in. */
static void sl__names_join(sl__name *v, int n, char *out, size_t len) {
  qsort(v, (size_t)n, sizeof *v, sl__name_cmp);
  size_t used = 0;
  out[0] = '\0';
  for (int i = 0; i < n; ++i) {
    if (i && sl__name_cmp(&v[i - 1], &v[i]) == 0) continue;
    if (used + v[i].len + 2 > len) break;
    used += (size_t)snprintf(out + used, len - used, "%s%.*s", used ? "," : "",
                             (int)v[i].len, v[i].at);
  }
}

static const char sl__every[] = "every variant";

static int sl__is_every(const char *key, size_t len) {
  return len == sizeof sl__every - 1 && memcmp(key, sl__every, len) == 0;
}

int sl_failure_variants_union(const char *a, size_t alen, const char *b,
                              size_t blen, char *out, size_t len) {
  if (sl__is_every(a, alen) || sl__is_every(b, blen)) {
    snprintf(out, len, "%s", sl__every);
    return 1;
  }
  sl__name v[2 * SL__KEY_NAMES];
  int n = 0, shared = 0;
  sl__names_of(a, alen, v, &n, SL__KEY_NAMES);
  const int in_a = n;
  sl__names_of(b, blen, v, &n, 2 * SL__KEY_NAMES);
  for (int i = 0; i < in_a && !shared; ++i)
    for (int j = in_a; j < n && !shared; ++j)
      shared = sl__name_cmp(&v[i], &v[j]) == 0;
  if (shared) sl__names_join(v, n, out, len);
  return shared;
}

void sl_failure_variants_key(const sl_case_result *res, const char *variants,
                             char *out, size_t len) {
  sl__name v[SL__KEY_NAMES];
  int n = 0, all = 1;
  for (int i = 0; i < res->n; ++i) {
    const sl_variant_result *r = &res->v[i];
    const size_t vlen = strlen(r->variant);
    if (sl_failure_variant_listed(variants, r->variant, vlen)) {
      if (n < SL__KEY_NAMES) v[n++] = (sl__name){r->variant, vlen};
      continue;
    }
    all &= r->verdict == SL_VERDICT_UNSUPPORTED ||
           r->verdict == SL_VERDICT_BOTH_REJECTED;
  }
  if (all)
    snprintf(out, len, "%s", sl__every);
  else
    sl__names_join(v, n, out, len);
}

/* Whether b fails c as a does (sl_failure_variant_set). */
static int sl__same_failure(const sl_case *c, const sl_variant_result *a,
                            const sl_variant_result *b) {
  if (a->verdict != b->verdict || !sl_verdict_is_failure(b->verdict)) return 0;
  if (!a->out_digest || !b->out_digest)
    return !a->out_digest && !b->out_digest &&
           strcmp(a->message, b->message) == 0;
  if (a->out_digest != b->out_digest) return 0;
  char oa[64], ob[64], ka[400], kb[400];
  sl_failure_kind(c, a->message, oa, sizeof oa, ka, sizeof ka);
  sl_failure_kind(c, b->message, ob, sizeof ob, kb, sizeof kb);
  return strcmp(oa, ob) == 0 && strcmp(ka, kb) == 0;
}

int sl_failure_variant_set(const sl_case *c, const sl_case_result *res,
                           int which, unsigned char *taken, char *out,
                           size_t len) {
  const sl_variant_result *a = &res->v[which];
  size_t used = (size_t)snprintf(out, len, "%s", a->variant);
  int n = 1;
  if (taken) taken[which] = 1;
  for (int i = 0; i < res->n; ++i) {
    if (i == which || (taken && taken[i]) ||
        !sl__same_failure(c, a, &res->v[i]))
      continue;
    if (used + strlen(res->v[i].variant) + 2 > len) break;
    used += (size_t)snprintf(out + used, len - used, ",%s", res->v[i].variant);
    if (taken) taken[i] = 1;
    ++n;
  }
  return n;
}
