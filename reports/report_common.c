/* Argument checks, the end-of-output check and the growing arrays of the
 * reports. */
#include "report_common.h"

#include <stdlib.h>
#include <string.h>

int sl__report_check(sl_store *s, FILE *out, int64_t run_id, const char *fn,
                     char *err, size_t errlen) {
  if (errlen) err[0] = '\0';
  if (!s || !out) {
    snprintf(err, errlen, "%s: %s is NULL", fn, !s ? "store" : "out");
    return -1;
  }
  if (run_id < 0) {
    snprintf(err, errlen, "%s: run %lld is not a run id", sl_store_path(s),
             (long long)run_id);
    return -1;
  }
  if (run_id == 0) return 0;
  int has = sl_store_has_run(s, run_id);
  if (has < 0) {
    snprintf(err, errlen, "%s", sl_store_errmsg(s));
    return -1;
  }
  if (!has) {
    snprintf(err, errlen, "%s: no run %lld", sl_store_path(s),
             (long long)run_id);
    return -1;
  }
  return 0;
}

int sl__report_finish(FILE *out, const char *what, const char *path, char *err,
                      size_t errlen) {
  if (fflush(out) != 0 || ferror(out)) {
    snprintf(err, errlen, "%s of %s: write error", what, path);
    return -1;
  }
  return 0;
}

int sl__grow(void **v, int n, int *cap, size_t size) {
  if (n < *cap) return 0;
  int c = *cap ? 2 * *cap : 16;
  void *p = realloc(*v, size * (size_t)c);
  if (!p) return -1;
  *v = p;
  *cap = c;
  return 0;
}

int sl__commit_dirty(const char *commit) {
  const size_t n = commit ? strlen(commit) : 0;
  return n > 6 && strcmp(commit + n - 6, "-dirty") == 0;
}

void sl__short_reference(const char *reference, char buf[SL__SHORT_REFERENCE]) {
  const char *paren = strstr(reference, " (");
  int n = paren ? (int)(paren - reference) : (int)strlen(reference);
  snprintf(buf, SL__SHORT_REFERENCE, "%.*s", n, reference);
}

void sl__short_commit(const char *commit, char buf[SL__SHORT_COMMIT]) {
  if (!commit || !*commit) {
    snprintf(buf, SL__SHORT_COMMIT, "-");
    return;
  }
  const int dirty = sl__commit_dirty(commit);
  const int hash = (int)strlen(commit) - (dirty ? 6 : 0);
  snprintf(buf, SL__SHORT_COMMIT, "%.*s%s", hash < 12 ? hash : 12, commit,
           dirty ? "-dirty" : "");
}

/* The state of one sl__providers_cell walk. */
typedef struct sl__providers_out {
  FILE *out;
  int n, full;
} sl__providers_out;

/* Writes v with control characters as '?': a version text with a newline
 * would otherwise break the text table's line. */
static void sl__put_clean(FILE *out, const char *v) {
  for (; *v; ++v) fputc((unsigned char)*v < 0x20 || *v == 0x7f ? '?' : *v, out);
}

static int sl__provider_part(void *user, const sl_provider_record *p) {
  sl__providers_out *o = user;
  if (o->n++) fputs(o->full ? "\n" : "; ", o->out);
  sl__put_clean(o->out, p->name);
  if (p->builtin && !o->full) {
    fputs(" (built-in)", o->out);
    return 0;
  }
  if (p->version) {
    fputc(' ', o->out);
    sl__put_clean(o->out, p->version);
  }
  if (!o->full) {
    /* Twelve hex digits tell builds apart as a short commit hash does. */
    fprintf(o->out, " sha256:%.12s", p->sha256);
    return 0;
  }
  fprintf(o->out, "%s: ", p->builtin ? " (built-in)" : "");
  sl__put_clean(o->out, p->path);
  fprintf(o->out, ", ABI %u, %d variant%s, sha256 %s", p->abi, p->n_variants,
          p->n_variants == 1 ? "" : "s", p->sha256);
  return 0;
}

char *sl__providers_cell(sl_store *s, int64_t run_id, int full, char *err,
                         size_t errlen) {
  char *buf = NULL;
  size_t len = 0;
  sl__providers_out o = {open_memstream(&buf, &len), 0, full};
  if (!o.out) {
    snprintf(err, errlen, "%s: run %lld's providers: out of memory",
             sl_store_path(s), (long long)run_id);
    return NULL;
  }
  int rc = sl_store_run_providers(s, run_id, sl__provider_part, &o);
  if (rc == 0 && o.n == 0) fputc('-', o.out);
  int bad = ferror(o.out);
  /* fclose sets buf (NULL when the stream never got memory). */
  if (fclose(o.out) != 0) bad = 1;
  if (rc != 0 || bad || !buf) {
    if (rc != 0)
      snprintf(err, errlen, "%s", sl_store_errmsg(s));
    else
      snprintf(err, errlen, "%s: run %lld's providers: out of memory",
               sl_store_path(s), (long long)run_id);
    free(buf);
    return NULL;
  }
  return buf;
}

int sl__defect_starts(sl__defect_walk *w, const char *d) {
  if (w->defects && strncmp(w->defect, d, sizeof w->defect - 1) == 0) return 0;
  snprintf(w->defect, sizeof w->defect, "%s", d);
  ++w->defects;
  return 1;
}
