/* `--format json` (json_out.h, docs/json.md). */
#include "json_out.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "clean_text.h"
#include "cli.h"
#include "history.h"
#include "runner.h"
#include "sl_report.h"

void sl_json_str(FILE *out, const char *s) {
  if (!s) {
    fputs("null", out);
    return;
  }
  fputc('"', out);
  /* Whole characters only: an invalid byte (a kernel's, or a cut a fixed
   * buffer made) is \ufffd, so the document stays UTF-8 (RFC 8259 §8.1). */
  for (int wide; *s; s += wide ? wide : 1) {
    if ((wide = sl_utf8_put_wide(out, s, "\\ufffd"))) continue;
    if (*s == '"' || *s == '\\')
      fprintf(out, "\\%c", *s);
    else if ((unsigned char)*s < 0x20)
      fprintf(out, "\\u%04x", (unsigned char)*s);
    else
      fputc(*s, out);
  }
  fputc('"', out);
}

void sl_json_num(FILE *out, double v) {
  if (isfinite(v))
    fprintf(out, "%.9g", v);
  else
    fputs("null", out);
}

FILE *sl_json_begin(const char *cmd) {
  fflush(stdout);
  int fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 0);
  FILE *out = fd >= 0 ? fdopen(fd, "w") : NULL;
  /* Everything else the command (and the processes it starts) prints to
   * stdout goes to stderr: stdout holds the document alone. */
  if (!out || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
    fprintf(stderr, "scatterlab %s: --format json: cannot set up stdout: %s\n",
            cmd, strerror(errno));
    if (out) fclose(out);
    return NULL;
  }
  return out;
}

void sl_json_head(FILE *out, const char *cmd, int exit_status) {
  fputs("{\"schema\": \"scatterlab/1\", \"command\": ", out);
  sl_json_str(out, cmd);
  fprintf(out, ", \"exit_status\": %d", exit_status);
}

void sl_json_end(FILE *out) { fputs("}\n", out); }

void sl_json_case_result(FILE *out, const sl_case_result *r) {
  fputs("{\"case\": ", out);
  sl_json_str(out, r->line);
  fprintf(out, ", \"failures\": %d, \"verdicts\": [", r->failures);
  for (int k = 0; k < r->n; ++k) {
    const sl_variant_result *v = &r->v[k];
    fputs(k ? ", {\"variant\": " : "{\"variant\": ", out);
    sl_json_str(out, v->variant);
    fputs(", \"verdict\": ", out);
    sl_json_str(out, sl_verdict_name(v->verdict));
    fputs(", \"message\": ", out);
    sl_json_str(out, v->message);
    if (sl_verdict_is_failure(v->verdict)) {
      char repro[1400];
      sl_repro(r->line, v->variant, repro, sizeof repro);
      fputs(", \"repro\": ", out);
      sl_json_str(out, repro);
    }
    fputc('}', out);
  }
  fputs("]}", out);
}

/* One benchmark: its series, and per level the runs and the level; from
 * the second level on, the change and what lies on either side of it. */
static int sl__json_hist(FILE *out, sl_store *s, const sl__hist *h) {
  fputs("{\"case\": ", out);
  sl_json_str(out, h->case_line);
  fputs(", \"variant\": ", out);
  sl_json_str(out, h->variant);
  fprintf(out, ", \"threads\": %d, \"cold\": %s, \"runs\": [", h->threads,
          h->cold ? "true" : "false");
  for (int r = 0; r < h->n; ++r)
    fprintf(out, "%s%lld", r ? ", " : "", (long long)h->run[r]);
  fputs("], \"medians_s\": [", out);
  for (int r = 0; r < h->n; ++r) {
    if (r) fputs(", ", out);
    sl_json_num(out, h->median[r]);
  }
  fputs("], \"levels\": [", out);
  double prev = 0;
  for (int k = 0; k <= h->ncps; ++k) {
    int from, to;
    sl__hist_segment(h, k, &from, &to);
    double level = sl__hist_level(h, from, to);
    fprintf(out, "%s{\"from_run\": %lld, \"to_run\": %lld, \"level_s\": ",
            k ? ", " : "", (long long)h->run[from], (long long)h->run[to - 1]);
    sl_json_num(out, level);
    if (k > 0) {
      sl__hist_cause c;
      if (sl__hist_cause_of(s, h, k, &c)) return -1;
      fputs(", \"change\": ", out);
      sl_json_num(out, level / prev - 1);
      fprintf(out, ", \"run_before\": %lld, \"commit_before\": ",
              (long long)c.before);
      sl_json_str(out, c.before_commit);
      fputs(", \"commit_after\": ", out);
      sl_json_str(out, c.after_commit);
      fputs(", \"machines_differ\": ", out);
      sl_json_str(out, c.machines);
      fputs(", \"kernels_differ\": ", out);
      sl_json_str(out, c.kernels);
    }
    fputc('}', out);
    prev = level;
  }
  fputs("]}", out);
  return 0;
}

int sl_json_history(FILE *out, sl_store *s, const sl_hist_opts *o, char *err,
                    size_t errlen) {
  sl__hist_set set;
  int built =
      sl__hist_build(s, o->match, o->min_segment, o->anchor, &set, err, errlen);
  if (built) return built;
  int changes = 0, multi = 0, n = 0;
  for (int i = 0; i < set.n; ++i) {
    changes += set.v[i].ncps;
    multi += set.v[i].n > 1;
  }
  fputs(", \"db\": ", out);
  sl_json_str(out, sl_store_path(s));
  fputs(", \"anchor\": ", out);
  sl_json_str(out, o->anchor);
  fprintf(out,
          ", \"min_segment\": %d, \"benchmarks\": %d, "
          "\"timed_in_several_runs\": %d, \"change_points\": %d, "
          "\"series\": [",
          o->min_segment, set.n, multi, changes);
  int bad = 0;
  for (int i = 0; i < set.n && !bad; ++i)
    if (set.v[i].ncps > 0 || (o->all && set.v[i].n > 1)) {
      fputs(n++ ? ",\n  " : "\n  ", out);
      bad = sl__json_hist(out, s, &set.v[i]);
    }
  fputs("\n]", out);
  sl__hist_set_free(&set);
  if (bad) snprintf(err, errlen, "%s", sl_store_errmsg(s));
  return bad ? -1 : 0;
}
