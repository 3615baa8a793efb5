/* Known and new failure groups (known_groups.h). */
#include "known_groups.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "sl/sl.h"
#include "sl_verdict.h"
#include "text_lines.h"

int sl_triage_load(const char *cmd, sl_triage_opts *o) {
  if (!o->known_path) return 0;
  char err[1400];
  sl_known_free(&o->known);
  if (sl_known_load(o->known_path, &o->known, err, sizeof err))
    return sl_cli_usage_error(cmd, "--known %s", err);
  return 0;
}

void sl_triage_free(sl_triage_opts *o) { sl_known_free(&o->known); }

void sl_known_free(sl_known_list *k) {
  for (int i = 0; i < k->n; ++i) free(k->v[i].text);
  free(k->v);
  memset(k, 0, sizeof *k);
}

static int sl__blank(char ch) {
  return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\f' || ch == '\v';
}

/* s without its leading and trailing blanks, in place. */
static char *sl__trim(char *s) {
  while (sl__blank(*s)) ++s;
  size_t n = strlen(s);
  while (n && sl__blank(s[n - 1])) s[--n] = '\0';
  return s;
}

/* 16 hex digits: a signature id (lower-cased in place). */
static int sl__is_id(char *s) {
  if (strlen(s) != 16) return 0;
  for (char *p = s; *p; ++p) {
    if (*p >= 'A' && *p <= 'F') *p = (char)(*p - 'A' + 'a');
    if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f'))) return 0;
  }
  return 1;
}

/* A signature's text (failure_group.h): "OP VARIANT VERDICT | REDUCE
 * OUTPUT | KIND" with a known op and a failing verdict. */
static int sl__is_signature(const char *s) {
  const char *bar = strstr(s, " | ");
  if (!bar || !strstr(bar + 3, " | ")) return 0;
  char head[256], op[64], variant[128], verdict[64], extra[8];
  size_t n = (size_t)(bar - s);
  if (n >= sizeof head) return 0;
  memcpy(head, s, n);
  head[n] = '\0';
  if (sscanf(head, "%63s %127s %63s %7s", op, variant, verdict, extra) != 3)
    return 0;
  return sl_op_from_name(op) >= 0 && sl_verdict_name_is_failure(verdict) == 1;
}

int sl_known_load(const char *path, sl_known_list *k, char *err,
                  size_t errlen) {
  memset(k, 0, sizeof *k);
  k->path = path;
  sl_text_reader r;
  if (sl_text_open(&r, path, err, errlen)) return -1;
  char *line;
  int got, cap = 0;
  while ((got = sl_text_next(&r, &line, err, errlen)) > 0) {
    char *t = sl__trim(line);
    if (!*t || *t == '#') continue;
    if (!sl__is_id(t) && !sl__is_signature(t)) {
      snprintf(err, errlen,
               "%s:%ld: expected a failure group's signature id (16 hex "
               "digits) or its signature (\"OP VARIANT VERDICT | REDUCE "
               "OUTPUT | KIND\", as a FAIL block's group line or a JUnit "
               "test case names it), got \"%.200s\"",
               path, r.line_no, t);
      got = -1;
      break;
    }
    if (k->n == cap) {
      cap = cap ? 2 * cap : 16;
      sl_known_entry *v = realloc(k->v, sizeof *v * (size_t)cap);
      if (!v) {
        snprintf(err, errlen, "%s: out of memory", path);
        got = -1;
        break;
      }
      k->v = v;
    }
    if (!(k->v[k->n].text = strdup(t))) {
      snprintf(err, errlen, "%s: out of memory", path);
      got = -1;
      break;
    }
    k->v[k->n++].line = r.line_no;
  }
  sl_text_close(&r);
  if (got < 0) {
    sl_known_free(k);
    return -1;
  }
  k->path = path;
  return 0;
}

/* The entry of k that names group e, or NULL. */
static const sl_known_entry *sl__accepted(const sl_known_list *k,
                                          const sl_failure_group *e) {
  char sig[1024];
  snprintf(sig, sizeof sig, "%s", e->sig ? e->sig : "");
  const char *t = sl__trim(sig);
  for (int i = 0; i < k->n; ++i)
    if (strcmp(k->v[i].text, e->id) == 0 || strcmp(k->v[i].text, t) == 0)
      return &k->v[i];
  return NULL;
}

/* Each group's defect, as this run named it, into the store (schema 13):
 * "" for a group that is its own. */
static int sl__store_defects(const sl_failure_groups *g, sl_store *st) {
  for (int i = 0; i < g->n; ++i) {
    const sl_failure_group *e = &g->v[i];
    const int own = strcmp(e->defect, e->sig) == 0;
    if (sl_store_set_group_defect(st, e->id, own ? "" : e->defect)) return -1;
  }
  return 0;
}

int sl_failure_groups_triage(sl_failure_groups *g, sl_store *st, int64_t run_id,
                             const sl_triage_opts *o, char *err,
                             size_t errlen) {
  int rc = 0;
  for (int i = 0; i < g->n; ++i) {
    sl_failure_group *e = &g->v[i];
    const sl_known_entry *a = o ? sl__accepted(&o->known, e) : NULL;
    e->status = SL_GROUP_NEW;
    if (a) {
      char at[1200];
      snprintf(at, sizeof at, "%s:%ld", o->known.path, a->line);
      free(e->accepted);
      e->accepted = strdup(at);
      e->status = SL_GROUP_ACCEPTED;
    } else if (st && !rc) {
      /* Its memory before this run: a resumed run's own groups are new. */
      sl_known_group k;
      int found = sl_store_known_group(st, e->id, &k);
      if (found < 0) {
        snprintf(err, errlen, "%s", sl_store_errmsg(st));
        rc = -1;
      } else if (found && k.first_run != run_id) {
        e->status = SL_GROUP_KNOWN;
        e->first_run = k.first_run;
        snprintf(e->first_commit, sizeof e->first_commit, "%s", k.first_commit);
      }
    }
    e->fails = e->status == SL_GROUP_NEW ||
               (e->status == SL_GROUP_KNOWN && !(o && o->fail_on_new));
  }
  if (st && !rc && run_id > 0 &&
      (sl_store_refresh_groups(st, run_id) || sl__store_defects(g, st))) {
    snprintf(err, errlen, "%s", sl_store_errmsg(st));
    rc = -1;
  }
  return rc;
}

int sl_failure_groups_failing(const sl_failure_groups *g) {
  int n = 0;
  for (int i = 0; i < g->n; ++i) n += g->v[i].fails != 0;
  return n;
}

int sl_failure_groups_new(const sl_failure_groups *g) {
  int n = 0;
  for (int i = 0; i < g->n; ++i) n += g->v[i].status == SL_GROUP_NEW;
  return n;
}

void sl_failure_groups_print_status(const sl_failure_groups *g,
                                    const sl_triage_opts *o, FILE *out) {
  if (!g->n) return;
  int n[3] = {0, 0, 0};
  for (int i = 0; i < g->n; ++i) ++n[g->v[i].status];
  fprintf(out, "failure groups: %d new, %d known", n[SL_GROUP_NEW],
          n[SL_GROUP_KNOWN]);
  if (o && o->known_path)
    fprintf(out, ", %d accepted (--known %s)", n[SL_GROUP_ACCEPTED],
            o->known_path);
  const int failing = sl_failure_groups_failing(g);
  fprintf(out, "; %d fail%s the run%s\n", failing, failing == 1 ? "s" : "",
          o && o->fail_on_new ? " (--fail-on new: the new ones)" : "");
}
