/*
 * `scatterlab history` as text: for each benchmark with a change point, the
 * levels between the change points and how much each one moved.
 */
#include <inttypes.h>
#include <string.h>

#include "history.h"
#include "html.h"
#include "sl_report.h"

void sl_hist_opts_init(sl_hist_opts *o) {
  memset(o, 0, sizeof *o);
  o->min_segment = 3;
}

/* After a change's line: the commits on either side (the suspects when the
 * machine stayed the same) and, when the machine did not, why. */
static int sl__cause_text(FILE *out, sl_store *s, const sl__hist *h, int k) {
  sl__hist_cause c;
  if (sl__hist_cause_of(s, h, k, &c)) return -1;
  if (c.same)
    fprintf(out, " (commit %s, as run %" PRId64 "%s)", c.after_commit, c.before,
            c.same == SL__SAME_DIRTY ? "; both dirty: their changes may differ"
                                     : "");
  else if (c.after_commit[0] || c.before_commit[0])
    fprintf(out, " (commit %s; run %" PRId64 ": %s)",
            c.after_commit[0] ? c.after_commit : "?", c.before,
            c.before_commit[0] ? c.before_commit : "?");
  if (c.machines[0])
    fprintf(out,
            "\n      machines differ between runs %" PRId64 " and %" PRId64
            ": %s",
            c.before, c.after, c.machines);
  if (c.kernels[0])
    fprintf(out,
            "\n      kernels differ between runs %" PRId64 " and %" PRId64
            ": %s",
            c.before, c.after, c.kernels);
  return 0;
}

static int sl__hist_text(FILE *out, sl_store *s, const sl__hist_set *set,
                         const sl__hist *h) {
  fprintf(out, "\n%s\n  %s, %d thread%s, %s: %d run%s\n", h->case_line,
          h->variant, h->threads, h->threads == 1 ? "" : "s",
          h->cold ? "cold" : "warm", h->n, h->n == 1 ? "" : "s");
  double prev = 0;
  for (int k = 0; k <= h->ncps; ++k) {
    int from, to;
    sl__hist_segment(h, k, &from, &to);
    double level = sl__hist_level(h, from, to);
    char t[32];
    sl__hist_fmt_level(set, level, t, sizeof t);
    fprintf(out, "  runs %" PRId64 "-%" PRId64 " (%d): %s", h->run[from],
            h->run[to - 1], to - from, t);
    if (k > 0) {
      fprintf(out, "  %+.1f%% from run %" PRId64, 100 * (level / prev - 1),
              h->run[from]);
      if (sl__cause_text(out, s, h, k)) return -1;
    }
    fputc('\n', out);
    prev = level;
  }
  return 0;
}

int sl_report_history(sl_store *s, const sl_hist_opts *o, FILE *out, char *err,
                      size_t errlen) {
  if (!err) errlen = 0;
  if (errlen) err[0] = '\0';
  if (!s || !out) {
    snprintf(err, errlen, "sl_report_history: %s is NULL",
             !s ? "store" : "out");
    return -1;
  }
  sl_hist_opts def;
  sl_hist_opts_init(&def);
  if (!o) o = &def;
  sl__hist_set set;
  int built =
      sl__hist_build(s, o->match, o->min_segment, o->anchor, &set, err, errlen);
  if (built) return built;
  /* A benchmark timed once has no history to speak of. */
  int changes = 0, with = 0, multi = 0;
  for (int i = 0; i < set.n; ++i) {
    changes += set.v[i].ncps;
    with += set.v[i].ncps > 0;
    multi += set.v[i].n > 1;
  }
  fprintf(out,
          "history of %d benchmark%s timed in more than one run (of %d in "
          "%s): %d with change points, %d change point%s\n(PELT on log "
          "median times, segments of at least %d runs)\n",
          multi, multi == 1 ? "" : "s", set.n, sl_store_path(s), with, changes,
          changes == 1 ? "" : "s", o->min_segment);
  if (o->anchor)
    fprintf(out,
            "each median over %s's on the same case in the same run "
            "(--anchor); runs without a %s timing of a case left out\n",
            o->anchor, o->anchor);
  int bad = 0;
  for (int i = 0; i < set.n && !bad; ++i)
    if (set.v[i].ncps > 0 || (o->all && set.v[i].n > 1))
      bad = sl__hist_text(out, s, &set, &set.v[i]);
  if (bad) {
    snprintf(err, errlen, "%s", sl_store_errmsg(s));
    sl__hist_set_free(&set);
    return -1;
  }
  if (!o->all && multi > with)
    fprintf(out, "\n%d benchmark%s without change points (--all lists them)\n",
            multi - with, multi - with == 1 ? "" : "s");
  sl__hist_set_free(&set);
  if (fflush(out) != 0 || ferror(out)) {
    snprintf(err, errlen, "history of %s: write error", sl_store_path(s));
    return -1;
  }
  return changes;
}
