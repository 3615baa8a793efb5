/* Failure signatures (failure_group.h). */
#include "failure_group.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clean_text.h"
#include "runner.h"

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

/* The bytes every output starts as (variant_call.h: poisoned 0xA5), read
 * as the case's dtype: an element that still reads so was never written. */
static double sl__poison_value(sl_dtype dt) {
  unsigned char bytes[16];
  memset(bytes, 0xA5, sizeof bytes);
  return sl_elem_get_f(dt, bytes);
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
  const double p = sl__poison_value(dt);
  if (sl_dtype_size(dt) > 1 && !isnan(p) &&
      (g == p || fabs(g - p) <= 1e-6 * fabs(p)))
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

/* out->id from out->text: FNV-1a 64. */
static void sl__sig_id(sl_failure_sig *out) {
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
  sl__sig_id(out);
}

void sl_defect_signature(const sl_case *c, const char *variants_key,
                         const char *verdict, const char *message,
                         const char *relation, const sl_failure_sig *group,
                         sl_failure_sig *out) {
  if (!relation || !relation[0]) {
    *out = *group;
    return;
  }
  char output[64], kind[400];
  const char *reduce =
      sl__kind_of(c, message, output, sizeof output, kind, sizeof kind);
  /* The output's name is left out: a forward op's "out" and a backward
   * op's "grad_src" are one defect when the relation says so. So is the
   * reduce when the relation is include_self's: the start value a reduce
   * begins from is one code path for every reduce (reduce.c), and the
   * flipped call answering the whole output says it was ignored, whatever
   * the reduce; a reduce swapped (amin answering as amax) is one reduce's. */
  if (strncmp(relation, "= include_self", 14) == 0) reduce = "any reduce";
  snprintf(out->text, sizeof out->text, "%.240s %.40s | %.16s | %.300s %.31s",
           variants_key ? variants_key : "?", verdict ? verdict : "?", reduce,
           kind, relation);
  sl__sig_id(out);
}

void sl_failure_variants_key(const sl_case_result *res, const char *variants,
                             char *out, size_t len) {
  size_t used = 0;
  int all = 1;
  out[0] = '\0';
  for (int i = 0; i < res->n; ++i) {
    const sl_variant_result *r = &res->v[i];
    const int listed =
        sl_failure_variant_listed(variants, r->variant, strlen(r->variant));
    if (!listed) {
      all &= r->verdict == SL_VERDICT_UNSUPPORTED ||
             r->verdict == SL_VERDICT_BOTH_REJECTED;
      continue;
    }
    if (used + strlen(r->variant) + 2 > len) break;
    used += (size_t)snprintf(out + used, len - used, "%s%s", used ? "," : "",
                             r->variant);
  }
  if (all) snprintf(out, len, "every variant");
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
