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
