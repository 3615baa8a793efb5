/* Failure groups and their outputs (failure_report.h). */
#include "failure_report.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clean_text.h"
#include "failure_group.h"
#include "json_out.h"
#include "runner.h"
#include "safe_file.h"
#include "sl_report.h"

static char *sl__dup(const char *s) { return strdup(s ? s : ""); }

/* The group named id, or NULL. */
static sl_failure_group *sl__group(const sl_failure_groups *g, const char *id) {
  for (int i = 0; i < g->n; ++i)
    if (strcmp(g->v[i].id, id) == 0) return &g->v[i];
  return NULL;
}

/* Whether a group before index n is of defect id. */
static int sl__defect_met(const sl_failure_groups *g, int n, const char *id) {
  for (int i = 0; i < n; ++i)
    if (strcmp(g->v[i].defect_id, id) == 0) return 1;
  return 0;
}

int sl_failure_groups_same_defect(const sl_failure_groups *g, int i, int j) {
  return strcmp(g->v[i].defect_id, g->v[j].defect_id) == 0;
}

int sl_failure_groups_next_defect(const sl_failure_groups *g, int *at) {
  for (++*at; *at < g->n; ++*at)
    if (!sl__defect_met(g, *at, g->v[*at].defect_id)) return *at;
  return -1;
}

/* Whether op is in the ", "-separated list. */
static int sl__op_listed(const char *list, const char *op) {
  const size_t n = strlen(op);
  for (const char *p = list; (p = strstr(p, op)); p += n)
    if ((p == list || p[-1] == ' ') && (p[n] == ',' || p[n] == '\0')) return 1;
  return 0;
}

void sl_failure_groups_tally(const sl_failure_groups *g, int i,
                             sl_defect_tally *t) {
  memset(t, 0, sizeof *t);
  size_t used = 0;
  for (int j = i; j < g->n; ++j) {
    const sl_failure_group *e = &g->v[j];
    if (!sl_failure_groups_same_defect(g, i, j)) continue;
    ++t->groups, t->cases += e->count;
    t->failing += e->fails != 0, t->fresh += e->status == SL_GROUP_NEW;
    /* the op: the signature's first word (failure_group.h), once */
    const int len = (int)strcspn(e->sig, " ");
    char op[64];
    snprintf(op, sizeof op, "%.*s", len, e->sig);
    if (!sl__op_listed(t->ops, op) && used + (size_t)len + 3 < sizeof t->ops)
      used += (size_t)snprintf(t->ops + used, sizeof t->ops - used, "%s%.*s",
                               used ? ", " : "", len, e->sig);
  }
}

/* Whether the defects of a and b differ only in variants that overlap:
 * joined then gets the defect of their union. */
static int sl__defects_join(const sl_failure_group *a,
                            const sl_failure_group *b, sl_failure_sig *joined,
                            size_t *key_len) {
  const size_t an = a->defect_variants_len, bn = b->defect_variants_len;
  char key[1024];
  if (!an || !bn || strcmp(a->defect + an, b->defect + bn) != 0 ||
      !sl_failure_variants_union(a->defect, an, b->defect, bn, key, sizeof key))
    return 0;
  *key_len = strlen(key) < 240 ? strlen(key) : 240;
  snprintf(joined->text, sizeof joined->text, "%.*s%s", (int)*key_len, key,
           a->defect + an);
  sl_failure_sig_name(joined);
  return 1;
}

/* Every group of defect `id` renamed to `to`. -1 without memory. */
static int sl__defect_rename(sl_failure_groups *g, const char *id,
                             const sl_failure_sig *to, size_t key_len) {
  char was[17];
  snprintf(was, sizeof was, "%s", id); /* id may be a group's own field */
  for (int i = 0; i < g->n; ++i) {
    sl_failure_group *e = &g->v[i];
    if (strcmp(e->defect_id, was) != 0) continue;
    free(e->defect);
    if (!(e->defect = sl__dup(to->text))) return -1;
    snprintf(e->defect_id, sizeof e->defect_id, "%s", to->id);
    e->defect_variants_len = key_len;
  }
  return 0;
}

/* Group n's defect joined with every other that it joins, the union
 * again with the rest until none does. -1 without memory. */
static int sl__defect_joins(sl_failure_groups *g, int n) {
  for (int i = 0; i < g->n; ++i) {
    sl_failure_sig joined;
    size_t key_len;
    if (sl_failure_groups_same_defect(g, n, i) ||
        !sl__defects_join(&g->v[n], &g->v[i], &joined, &key_len))
      continue;
    if (sl__defect_rename(g, g->v[i].defect_id, &joined, key_len) ||
        sl__defect_rename(g, g->v[n].defect_id, &joined, key_len))
      return -1;
    i = -1; /* the union may overlap a defect it did not before */
  }
  return 0;
}

int sl_failure_groups_add(sl_failure_groups *g, const char *id, const char *sig,
                          const char *variant, const char *verdict,
                          const char *minimal, const char *found_as,
                          const char *message,
                          const sl_failure_defect *defect) {
  ++g->cases;
  sl_failure_group *known = sl__group(g, id);
  if (known) {
    ++known->count;
    return 0;
  }
  if (g->n == g->cap) {
    int cap = g->cap ? 2 * g->cap : 16;
    sl_failure_group *v = realloc(g->v, sizeof *v * (size_t)cap);
    if (!v) return -1;
    g->v = v;
    g->cap = cap;
  }
  sl_failure_group *e = &g->v[g->n];
  memset(e, 0, sizeof *e);
  snprintf(e->id, sizeof e->id, "%s", id);
  char repro[1400];
  sl_repro(minimal ? minimal : "", variant ? variant : "", repro, sizeof repro);
  e->sig = sl__dup(sig), e->variant = sl__dup(variant);
  e->verdict = sl__dup(verdict), e->minimal = sl__dup(minimal);
  e->found_as = sl__dup(found_as), e->message = sl__dup(message);
  e->repro = sl__dup(repro);
  snprintf(e->defect_id, sizeof e->defect_id, "%s", defect ? defect->id : id);
  e->defect = sl__dup(defect ? defect->text : sig);
  e->defect_variants_len = defect ? defect->variants_len : 0;
  e->count = 1;
  e->fails = 1; /* until triaged (known_groups.h) */
  if (!e->sig || !e->variant || !e->verdict || !e->minimal || !e->found_as ||
      !e->message || !e->repro || !e->defect)
    return -1;
  ++g->n;
  if (sl__defect_joins(g, g->n - 1)) return -1;
  g->defects = 0;
  for (int i = 0; i < g->n; ++i)
    g->defects += !sl__defect_met(g, i, g->v[i].defect_id);
  return 0;
}

/* tensors without the "got (<variant>) ..." lines of variants that are
 * not the group's (they failed the case another way). */
static char *sl__group_lines(const sl_failure_group *e, const char *tensors) {
  char *out = malloc(strlen(tensors) + 1), *w = out;
  for (const char *p = tensors; out && *p;) {
    const char *nl = strchr(p, '\n');
    const size_t n = nl ? (size_t)(nl - p) + 1 : strlen(p);
    const char *close = strncmp(p, "got (", 5) == 0 ? strstr(p, ") ") : NULL;
    if (!close ||
        sl_failure_variant_listed(e->variant, p + 5, (size_t)(close - p - 5))) {
      memcpy(w, p, n);
      w += n;
    }
    p += n;
  }
  if (out) *w = '\0';
  return out;
}

int sl_failure_groups_show(sl_failure_groups *g, const char *id,
                           const char *tensors) {
  sl_failure_group *e = sl__group(g, id);
  if (!tensors || !tensors[0] || !e || e->tensors) return 0;
  return (e->tensors = sl__group_lines(e, tensors)) ? 0 : -1;
}

int sl_failure_groups_add_result(sl_failure_groups *g, const sl_case *c,
                                 const sl_case_result *res) {
  unsigned char taken[SL_MAX_VERDICTS] = {0};
  for (int i = 0; i < res->n; ++i) {
    const sl_variant_result *r = &res->v[i];
    if (taken[i] || !sl_verdict_is_failure(r->verdict)) continue;
    /* the variants failing it alike are one defect (failure_group.h) */
    char variants[1024], key[1024];
    const int n =
        sl_failure_variant_set(c, res, i, taken, variants, sizeof variants);
    sl_failure_variants_key(res, variants, key, sizeof key);
    sl_failure_sig sig, dsig;
    const char *verdict = sl_verdict_name(r->verdict);
    sl_failure_signature(c, variants, verdict, r->message, &sig);
    const size_t key_len = sl_defect_signature(c, key, verdict, r->message,
                                               r->relation, &sig, &dsig);
    const sl_failure_defect defect = {dsig.id, dsig.text, key_len};
    if (sl_failure_groups_add(g, sig.id, sig.text, variants, verdict, res->line,
                              res->line, r->message, &defect))
      return -1;
    /* every failing verdict counted, the merged ones too */
    g->cases += n - 1;
    sl__group(g, sig.id)->count += n - 1;
  }
  return 0;
}

void sl_failure_groups_free(sl_failure_groups *g) {
  for (int i = 0; i < g->n; ++i) {
    sl_failure_group *e = &g->v[i];
    free(e->sig), free(e->variant), free(e->verdict), free(e->minimal);
    free(e->found_as), free(e->message), free(e->repro), free(e->tensors);
    free(e->accepted), free(e->defect);
  }
  free(g->v);
  memset(g, 0, sizeof *g);
}

/* The minimal case's tensors under its FAIL block, one indented line each
 * (neutralized like every text a kernel may have shaped). */
static void sl__print_tensors(FILE *out, const char *tensors) {
  for (const char *p = tensors; p && *p;) {
    const char *nl = strchr(p, '\n');
    size_t n = nl ? (size_t)(nl - p) : strlen(p);
    char line[1024];
    snprintf(line, sizeof line, "%.*s", (int)(n < 1000 ? n : 1000), p);
    fputs("      ", out);
    sl_text_put(out, line);
    fputc('\n', out);
    p += n + (nl != NULL);
  }
}

void sl_failure_group_status(const sl_failure_group *e, char *buf, size_t len) {
  if (e->status == SL_GROUP_ACCEPTED)
    snprintf(buf, len, "known (accepted in %s)",
             e->accepted ? e->accepted : "--known");
  else if (e->status == SL_GROUP_KNOWN)
    snprintf(buf, len, "known (first seen in run %" PRId64 "%s%.40s)",
             e->first_run, e->first_commit[0] ? ", at commit " : "",
             e->first_commit);
  else
    snprintf(buf, len, "new");
}

/* "DEFECT <id>: <ops>; G groups, C cases\n    <signature>". */
static void sl__print_defect(const sl_failure_groups *g, int i, FILE *out) {
  sl_defect_tally t;
  sl_failure_groups_tally(g, i, &t);
  fprintf(out, "DEFECT %s: ", g->v[i].defect_id);
  sl_text_put(out, t.ops);
  fprintf(out, "; %d group%s, %" PRId64 " case%s\n    ", t.groups,
          t.groups == 1 ? "" : "s", t.cases, t.cases == 1 ? "" : "s");
  sl_text_put(out, g->v[i].defect);
  fputc('\n', out);
}

/* "FAIL <verdict> <variant>" stays a line of its own: scripts match it. */
static void sl__print_group(const sl_failure_group *e, FILE *out) {
  /* The texts a kernel wrote (or a store from elsewhere holds) are
   * neutralized for the CI log reading this (clean_text.h). */
  fprintf(out, "FAIL %s %s\n    ", e->verdict, e->variant);
  sl_text_put(out, e->message);
  fputs("\n    minimal: ", out);
  sl_text_put(out, e->repro);
  fputs("\n    found as: ", out);
  sl_text_put(out, e->found_as);
  fprintf(out, "\n    group %s, %" PRId64 " case%s: ", e->id, e->count,
          e->count == 1 ? "" : "s");
  sl_text_put(out, e->sig);
  char status[1400];
  sl_failure_group_status(e, status, sizeof status);
  fputs("\n    status: ", out);
  sl_text_put(out, status);
  fprintf(out, "%s\n", e->fails ? "" : "; does not fail the run");
  sl__print_tensors(out, e->tensors);
}

void sl_failure_groups_print(const sl_failure_groups *g, FILE *out) {
  for (int at = -1, d; (d = sl_failure_groups_next_defect(g, &at)) >= 0;) {
    sl__print_defect(g, d, out);
    for (int i = d; i < g->n; ++i)
      if (sl_failure_groups_same_defect(g, d, i))
        sl__print_group(&g->v[i], out);
  }
}

/* One group's JSON object; first: no comma before it. */
static void sl__json_group(const sl_failure_group *e, int first, FILE *out) {
  {
    const char *keys[] = {"defect_id", "defect",  "signature", "signature_id",
                          "variant",   "verdict", "minimal",   "found_as",
                          "message",   "repro",   "tensors"};
    const char *vals[] = {e->defect_id,
                          e->defect,
                          e->sig,
                          e->id,
                          e->variant,
                          e->verdict,
                          e->minimal,
                          e->found_as,
                          e->message,
                          e->repro,
                          e->tensors ? e->tensors : ""};
    fputs(first ? "\n  {" : ",\n  {", out);
    fprintf(out, "\"cases\": %" PRId64, e->count);
    for (size_t k = 0; k < sizeof keys / sizeof *keys; ++k) {
      fprintf(out, ", \"%s\": ", keys[k]);
      sl_json_str(out, vals[k]);
    }
    static const char *const status[] = {"new", "known", "accepted"};
    fprintf(out, ", \"status\": \"%s\", \"first_run\": ", status[e->status]);
    if (e->status == SL_GROUP_KNOWN)
      fprintf(out, "%" PRId64 ", \"first_commit\": ", e->first_run);
    else
      fputs("null, \"first_commit\": ", out);
    sl_json_str(out, e->status == SL_GROUP_KNOWN ? e->first_commit : NULL);
    fputs(", \"accepted_in\": ", out);
    sl_json_str(out, e->status == SL_GROUP_ACCEPTED ? e->accepted : NULL);
    fprintf(out, ", \"fails\": %s}", e->fails ? "true" : "false");
  }
}

void sl_failure_groups_json(const sl_failure_groups *g, FILE *out) {
  int first = 1;
  for (int at = -1, d; (d = sl_failure_groups_next_defect(g, &at)) >= 0;)
    for (int i = d; i < g->n; ++i)
      if (sl_failure_groups_same_defect(g, d, i))
        sl__json_group(&g->v[i], first, out), first = 0;
}

/* XML text or attribute value: the five markup characters escaped, the
 * control characters XML 1.0 cannot hold dropped (tab and newline kept),
 * and an invalid byte (not UTF-8: a kernel's, or a cut) U+FFFD. */
static void sl__xml(FILE *out, const char *s) {
  for (int wide; s && *s; s += wide ? wide : 1) {
    if ((wide = sl_utf8_put_wide(out, s, SL_UTF8_REPLACEMENT))) continue;
    unsigned char ch = (unsigned char)*s;
    switch (ch) {
    case '&':
      fputs("&amp;", out);
      break;
    case '<':
      fputs("&lt;", out);
      break;
    case '>':
      fputs("&gt;", out);
      break;
    case '"':
      fputs("&quot;", out);
      break;
    case '\'':
      fputs("&apos;", out);
      break;
    case '\n':
      fputs("&#10;", out);
      break;
    case '\t':
      fputs("&#9;", out);
      break;
    default:
      if (ch >= 0x20) fputc(ch, out);
    }
  }
}

/* A group in its defect's JUnit test case: a paragraph of the text. */
static void sl__junit_group(FILE *o, const sl_failure_group *e) {
  char status[1400];
  sl_failure_group_status(e, status, sizeof status);
  fputs("\n\ngroup: ", o);
  sl__xml(o, e->sig);
  fputs("\nstatus: ", o);
  sl__xml(o, status);
  fprintf(o, "%s\ncases in group: %" PRId64 "\nrepro: ",
          e->fails ? "" : "; does not fail the run", e->count);
  sl__xml(o, e->repro);
  fputs("\nminimal case: ", o);
  sl__xml(o, e->minimal);
  fputs("\nfound as: ", o);
  sl__xml(o, e->found_as);
  fputs("\nmessage: ", o);
  sl__xml(o, e->message);
  if (e->tensors) {
    fputs("\ntensors of the minimal case:\n", o);
    sl__xml(o, e->tensors);
  }
}

/* The test case of the defect of group d: named by its signature (no path,
 * count, seed or op in it: failure_group.h), each op's group in it. */
static void sl__junit_defect(FILE *o, const sl_failure_groups *g, int d,
                             const char *cmd) {
  const sl_failure_group *e = &g->v[d];
  sl_defect_tally t;
  sl_failure_groups_tally(g, d, &t);
  fprintf(o, "  <testcase classname=\"scatterlab.%s\" name=\"", cmd);
  sl__xml(o, e->defect);
  if (t.failing) {
    fputs("\">\n    <failure type=\"", o);
    sl__xml(o, e->verdict);
    fputs("\" message=\"", o);
    sl__xml(o, e->message);
    fputs("\">", o);
  } else {
    char status[1400];
    sl_failure_group_status(e, status, sizeof status);
    fputs("\">\n    <skipped message=\"", o);
    sl__xml(o, status);
    fputs("; does not fail the run\"/>\n    <system-out>", o);
  }
  fprintf(o, "defect %s in %d op%s (", e->defect_id, t.groups,
          t.groups == 1 ? "" : "s");
  sl__xml(o, t.ops);
  fprintf(o, "), %" PRId64 " case%s", t.cases, t.cases == 1 ? "" : "s");
  for (int i = d; i < g->n; ++i)
    if (sl_failure_groups_same_defect(g, d, i)) sl__junit_group(o, &g->v[i]);
  fputs(t.failing ? "</failure>\n  </testcase>\n"
                  : "</system-out>\n  </testcase>\n",
        o);
}

int sl_failure_groups_junit(const sl_failure_groups *g, const char *cmd,
                            int64_t total, const char *path, char *err,
                            size_t errlen) {
  sl_safe_file sf;
  if (sl_safe_open(&sf, path, err, errlen)) return -1;
  FILE *o = sf.f;
  /* A defect none of whose groups fails the run (known under --fail-on
   * new, or accepted by --known) is a skipped test case: the CI shows it,
   * green. */
  int failing = 0;
  for (int at = -1, d; (d = sl_failure_groups_next_defect(g, &at)) >= 0;) {
    sl_defect_tally t;
    sl_failure_groups_tally(g, d, &t);
    failing += t.failing != 0;
  }
  const int tests = g->defects + 1;
  fprintf(o,
          "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
          "<testsuites name=\"scatterlab %s\" tests=\"%d\" failures=\"%d\">\n"
          "<testsuite name=\"scatterlab %s\" tests=\"%d\" failures=\"%d\" "
          "errors=\"0\" skipped=\"%d\">\n",
          cmd, tests, failing, cmd, tests, failing, g->defects - failing);
  /* The counts move from run to run: properties and output, never a test
   * case's name, which a CI tracks across runs. */
  fprintf(o,
          "  <properties>\n"
          "    <property name=\"cases\" value=\"%" PRId64 "\"/>\n"
          "    <property name=\"defects\" value=\"%d\"/>\n"
          "    <property name=\"failing_cases\" value=\"%" PRId64 "\"/>\n"
          "    <property name=\"failure_groups\" value=\"%d\"/>\n"
          "  </properties>\n",
          total, g->defects, g->cases, g->n);
  /* The cases that passed are one test case: a CI shows a green line
   * beside the defects, and a run without failures is not an empty suite.
   * Its name is fixed. */
  fprintf(o,
          "  <testcase classname=\"scatterlab.%s\" name=\"" SL_JUNIT_PASSING
          "\">\n    <system-out>%" PRId64 " cases judged, %d defect%s, %" PRId64
          " failing cases in %d group%s</system-out>\n  </testcase>\n",
          cmd, total, g->defects, g->defects == 1 ? "" : "s", g->cases, g->n,
          g->n == 1 ? "" : "s");
  for (int at = -1, d; (d = sl_failure_groups_next_defect(g, &at)) >= 0;)
    sl__junit_defect(o, g, d, cmd);
  fputs("</testsuite>\n</testsuites>\n", o);
  return sl_safe_commit(&sf, err, errlen);
}

/* A workflow command's message: %, CR and LF escaped (GitHub's rules);
 * properties also escape ':' and ','. */
static void sl__gh(FILE *out, const char *s, int property) {
  for (int wide; s && *s; s += wide ? wide : 1) {
    if ((wide = sl_utf8_put_wide(out, s, SL_UTF8_REPLACEMENT))) continue;
    switch (*s) {
    case '%':
      fputs("%25", out);
      break;
    case '\r':
      fputs("%0D", out);
      break;
    case '\n':
      fputs("%0A", out);
      break;
    case ':':
      fputs(property ? "%3A" : ":", out);
      break;
    case ',':
      fputs(property ? "%2C" : ",", out);
      break;
    default:
      fputc(*s, out);
    }
  }
}

/* The ::error (or ::notice) line of the defect of group d: its groups'
 * messages and repros in the message, one op after another. */
static void sl__gh_defect(const sl_failure_groups *g, int d, const char *cmd,
                          FILE *out) {
  const sl_failure_group *e = &g->v[d];
  sl_defect_tally t;
  sl_failure_groups_tally(g, d, &t);
  char title[2048], msg[8192];
  snprintf(title, sizeof title,
           "scatterlab %s: %s %s in %s (%" PRId64 " case%s, %s)", cmd,
           e->verdict, e->variant, t.ops, t.cases, t.cases == 1 ? "" : "s",
           t.fresh ? "new" : "known");
  /* A defect none of whose groups fails the run is a notice. */
  fputs(t.failing ? "::error title=" : "::notice title=", out);
  sl__gh(out, title, 1);
  fputs("::", out);
  size_t used = (size_t)snprintf(msg, sizeof msg, "defect: %s", e->defect);
  for (int i = d; i < g->n && used < sizeof msg; ++i) {
    const sl_failure_group *m = &g->v[i];
    if (!sl_failure_groups_same_defect(g, d, i)) continue;
    char status[1400];
    sl_failure_group_status(m, status, sizeof status);
    used += (size_t)snprintf(msg + used, sizeof msg - used,
                             "\n%s\nrepro: %s\ngroup: %s\nstatus: %s%s",
                             m->message, m->repro, m->sig, status,
                             m->fails ? "" : "; does not fail the run");
  }
  sl__gh(out, msg, 0);
  fputc('\n', out);
}

/* The step summary's row of group e, its defect first. */
static void sl__md_group(FILE *f, const sl_failure_group *e) {
  fputs("| ", f);
  sl_md_text(f, e->defect_id, 0);
  fputs(" | ", f);
  sl_md_text(f, e->verdict, 0);
  fputs(" | ", f);
  sl_md_text(f, e->variant, 0);
  fprintf(f, " | %" PRId64 " | ", e->count);
  sl_md_text(f, e->sig, 0);
  fputs(" | `", f);
  sl_md_text(f, e->repro, 1);
  char status[1400];
  sl_failure_group_status(e, status, sizeof status);
  fputs("` | ", f);
  sl_md_text(f, status, 0);
  fputs(e->fails ? " |\n" : "; does not fail the run |\n", f);
}

/* The step summary: the counts, defects first, then one row per group,
 * defect by defect. */
static void sl__md_summary(const sl_failure_groups *g, const char *cmd,
                           int64_t total, FILE *f) {
  int fresh = 0;
  for (int at = -1, d; (d = sl_failure_groups_next_defect(g, &at)) >= 0;) {
    sl_defect_tally t;
    sl_failure_groups_tally(g, d, &t);
    fresh += t.fresh != 0;
  }
  fprintf(f,
          "### scatterlab %s: %" PRId64 " cases, %d defect%s (%d new) in %d "
          "failure group%s, %" PRId64 " failing cases\n\n",
          cmd, total, g->defects, g->defects == 1 ? "" : "s", fresh, g->n,
          g->n == 1 ? "" : "s", g->cases);
  if (!g->n) return;
  fputs("| defect | verdict | variant | cases | group | repro | status |\n"
        "| --- | --- | --- | ---: | --- | --- | --- |\n",
        f);
  for (int at = -1, d; (d = sl_failure_groups_next_defect(g, &at)) >= 0;)
    for (int i = d; i < g->n; ++i)
      if (sl_failure_groups_same_defect(g, d, i)) sl__md_group(f, &g->v[i]);
  fputc('\n', f);
}

int sl_failure_groups_github(const sl_failure_groups *g, const char *cmd,
                             int64_t total, FILE *out, char *err,
                             size_t errlen) {
  const char *gha = getenv("GITHUB_ACTIONS");
  if (!gha || strcmp(gha, "true") != 0) return 0;
  for (int at = -1, d; (d = sl_failure_groups_next_defect(g, &at)) >= 0;)
    sl__gh_defect(g, d, cmd, out);
  fflush(out);
  const char *path = getenv("GITHUB_STEP_SUMMARY");
  if (!path || !path[0]) return 0;
  /* Appended, as every step does; a symbolic link planted at the path is
   * refused rather than followed. */
  int fd =
      open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666);
  FILE *f = fd >= 0 ? fdopen(fd, "a") : NULL;
  if (!f) {
    snprintf(err, errlen, "GITHUB_STEP_SUMMARY %s: %s", path, strerror(errno));
    if (fd >= 0) close(fd);
    return -1;
  }
  sl__md_summary(g, cmd, total, f);
  if (fclose(f)) {
    snprintf(err, errlen, "GITHUB_STEP_SUMMARY %s: %s", path, strerror(errno));
    return -1;
  }
  return 0;
}
