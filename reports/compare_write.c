/*
 * The four forms of a comparison: text for a terminal, markdown for a CI
 * comment, CSV for a spreadsheet (header in sl_report.h) and a
 * self-contained HTML page.
 */
#include <math.h>
#include <string.h>

#include "csv_fields.h"
#include "html.h"
#include "sl_report.h"

static void sl__summary_line(FILE *out, const sl_cmp_set *set) {
  fprintf(out, "%d slower, %d faster, %d same, %d ambiguous",
          set->counts[SL_CMP_SLOWER], set->counts[SL_CMP_FASTER],
          set->counts[SL_CMP_SAME], set->counts[SL_CMP_AMBIGUOUS]);
}

static void sl__only_line(FILE *out, const sl_cmp_set *set) {
  if (set->only_base || set->only_cand)
    fprintf(out, "%d benchmark%s only in the base, %d only in the candidate\n",
            set->only_base, set->only_base == 1 ? "" : "s", set->only_cand);
}

/* "1.102" / "[1.095, 1.110]" / "1.2e-07" with "-" for what is unknown. */
static void sl__fmt(char *buf, size_t len, const char *fmt, double v) {
  if (isnan(v))
    snprintf(buf, len, "-");
  else
    snprintf(buf, len, fmt, v);
}

typedef struct sl__cells {
  char ratio[24], ci[48], p[24], noise[24], base[24], cand[24], n[24],
      threads[24];
} sl__cells;

static void sl__cells_of(const sl_cmp_row *r, int anchored, sl__cells *c) {
  const sl_cmp_stat *s = &r->stat;
  sl__fmt(c->ratio, sizeof c->ratio, "%.3f", s->ratio);
  if (isnan(s->ratio_lo))
    snprintf(c->ci, sizeof c->ci, "-");
  else
    snprintf(c->ci, sizeof c->ci, "[%.3f, %.3f]", s->ratio_lo, s->ratio_hi);
  if (isnan(s->p))
    snprintf(c->p, sizeof c->p, "too few samples");
  else
    snprintf(c->p, sizeof c->p, "%.2g", s->p);
  sl__fmt(c->noise, sizeof c->noise, "%.1f%%", 100 * s->noise);
  if (anchored) { /* ratios to the anchor, not seconds */
    sl__fmt(c->base, sizeof c->base, "%.3fx", s->median_base);
    sl__fmt(c->cand, sizeof c->cand, "%.3fx", s->median_cand);
  } else {
    sl__fmt_seconds(c->base, sizeof c->base, s->median_base);
    sl__fmt_seconds(c->cand, sizeof c->cand, s->median_cand);
  }
  snprintf(c->n, sizeof c->n, "%d/%d", s->n_base, s->n_cand);
  snprintf(c->threads, sizeof c->threads, "%d%s", r->threads,
           r->cold ? " cold" : "");
}

/* The warning when the two runs ran on different machines, one text for
 * every format; 0 (buf "") when they did not. */
static int sl__machines_warning(const sl_cmp_set *set, char *buf, size_t len) {
  buf[0] = '\0';
  if (!set->machines_differ[0]) return 0;
  snprintf(buf, len,
           "the two runs saw different machines (%s): a change may be the "
           "machine's, not the code's",
           set->machines_differ);
  return 1;
}

/* What the runs' recorded providers say of the kernels: other kernels ran
 * (a cause to name beside the code), or the very same (then a change is
 * not the kernels'); 0 (buf "") when a run recorded none. */
static int sl__kernels_note(const sl_cmp_set *set, char *buf, size_t len) {
  buf[0] = '\0';
  if (set->kernels_differ[0])
    snprintf(buf, len, "the kernels differ: %s", set->kernels_differ);
  else if (set->kernels_same)
    snprintf(buf, len,
             "the same kernels ran in both runs (every provider's SHA-256 "
             "matches): a change is the machine's or the harness's, not the "
             "kernels'");
  /* --anchor: what the base and candidate columns hold. */
  size_t n = strlen(buf);
  if (set->anchor[0])
    snprintf(buf + n, len - n,
             "%stimes are ratios to %s's median on the same case in the same "
             "run (--anchor): a machine that moved between the runs moved "
             "both",
             n ? "; " : "", set->anchor);
  return buf[0] != '\0';
}

static void sl__text(const sl_cmp_set *set, const sl_cmp_opts *o, FILE *out) {
  fprintf(out, "base:      %s (%s)\ncandidate: %s (%s)\n", set->base_name,
          set->base_machine, set->cand_name, set->cand_machine);
  char warn[512];
  if (sl__machines_warning(set, warn, sizeof warn)) fprintf(out, "%s\n", warn);
  if (sl__kernels_note(set, warn, sizeof warn)) fprintf(out, "%s\n", warn);
  fprintf(out,
          "a change counts when p < %g, |ratio - 1| >= %.0f%% and beyond "
          "the noise; at least %d samples per side\n\n",
          o->alpha, 100 * o->threshold, o->min_samples);
  fprintf(out, "%-10s %-12s %-8s %10s %10s %7s %-16s %-15s %6s %-9s %s\n",
          "verdict", "variant", "threads", "base", "candidate", "ratio",
          "95% interval", "p", "noise", "samples", "benchmark");
  for (int i = 0; i < set->n; ++i) {
    const sl_cmp_row *r = &set->rows[i];
    sl__cells c;
    sl__cells_of(r, set->anchor[0] != 0, &c);
    fprintf(out, "%-10s %-12s %-8s %10s %10s %7s %-16s %-15s %6s %-9s %s\n",
            sl_cmp_verdict_name(r->stat.verdict), r->variant, c.threads, c.base,
            c.cand, c.ratio, c.ci, c.p, c.noise, c.n, r->case_line);
    if (r->stat.verdict != SL_CMP_SAME)
      fprintf(out, "%-10s %s\n", "", r->stat.reason);
  }
  fputs("\n", out);
  sl__summary_line(out, set);
  fputs("\n", out);
  sl__only_line(out, set);
}

static void sl__markdown(const sl_cmp_set *set, const sl_cmp_opts *o,
                         FILE *out) {
  fputs("### scatterlab compare: ", out);
  if (set->counts[SL_CMP_SLOWER])
    fprintf(out, "**%d slower**", set->counts[SL_CMP_SLOWER]);
  else
    fputs("no regression", out);
  fputs("\n\n", out);
  sl__summary_line(out, set);
  fputs(" &mdash; base `", out);
  sl_md_text(out, set->base_name, 1);
  fputs("`, candidate `", out);
  sl_md_text(out, set->cand_name, 1);
  fprintf(out, "`, threshold %.0f%%, alpha %g\n\n", 100 * o->threshold,
          o->alpha);
  char warn[512];
  if (sl__machines_warning(set, warn, sizeof warn)) {
    fputs("> ", out);
    sl_md_text(out, warn, 0); /* a CPU model's newline would end it */
    fputs("\n\n", out);
  }
  if (sl__kernels_note(set, warn, sizeof warn)) {
    sl_md_text(out, warn, 0);
    fputs("\n\n", out);
  }
  if (set->only_base || set->only_cand) {
    sl__only_line(out, set);
    fputs("\n", out);
  }
  fputs("| verdict | variant | threads | base | candidate | ratio | 95% "
        "interval | p | noise | samples | benchmark | reason |\n"
        "|---|---|---:|---:|---:|---:|---|---:|---:|---:|---|---|\n",
        out);
  for (int i = 0; i < set->n; ++i) {
    const sl_cmp_row *r = &set->rows[i];
    sl__cells c;
    sl__cells_of(r, set->anchor[0] != 0, &c);
    const char *v = sl_cmp_verdict_name(r->stat.verdict);
    fprintf(out, r->stat.verdict == SL_CMP_SLOWER ? "| **%s** | " : "| %s | ",
            v);
    sl_md_text(out, r->variant, 0);
    fprintf(out, " | %s | %s | %s | %s | %s | %s | %s | %s | `", c.threads,
            c.base, c.cand, c.ratio, c.ci, c.p, c.noise, c.n);
    sl_md_text(out, r->case_line, 1);
    fputs("` | ", out);
    sl_md_text(out, r->stat.reason, 0);
    fputs(" |\n", out);
  }
}

static void sl__csv(const sl_cmp_set *set, FILE *out) {
  fputs("base_run,cand_run,case_line,variant,threads,cold,n_base,n_cand,"
        "median_base_s,median_cand_s,ratio,ratio_lo,ratio_hi,p_value,noise,"
        "verdict,reason\n",
        out);
  for (int i = 0; i < set->n; ++i) {
    const sl_cmp_row *r = &set->rows[i];
    const sl_cmp_stat *s = &r->stat;
    fprintf(out, "%lld,%lld,", (long long)set->base_run,
            (long long)set->cand_run);
    sl__csv_text(out, r->case_line);
    fputc(',', out);
    sl__csv_text(out, r->variant);
    fprintf(out, ",%d,%d,%d,%d", r->threads, r->cold, s->n_base, s->n_cand);
    const double v[] = {s->median_base, s->median_cand, s->ratio, s->ratio_lo,
                        s->ratio_hi,    s->p,           s->noise};
    for (size_t k = 0; k < sizeof v / sizeof v[0]; ++k) {
      fputc(',', out);
      sl__csv_real(out, v[k]);
    }
    fputc(',', out);
    sl__csv_text(out, sl_cmp_verdict_name(s->verdict));
    fputc(',', out);
    sl__csv_text(out, s->reason);
    fputc('\n', out);
  }
}

static void sl__html(const sl_cmp_set *set, const sl_cmp_opts *o, FILE *out) {
  sl__html_begin(out, "scatterlab compare");
  fputs("<p>Base <code>", out);
  sl__html_text(out, set->base_name);
  fputs("</code>, candidate <code>", out);
  sl__html_text(out, set->cand_name);
  fprintf(out,
          "</code>. A change counts when p &lt; %g, |ratio &minus; 1| &ge; "
          "%.0f%% and it is beyond the noise.</p>\n<p class=\"%s\">",
          o->alpha, 100 * o->threshold,
          set->counts[SL_CMP_SLOWER] ? "bad" : "good");
  sl__summary_line(out, set);
  fputs("</p>\n<p class=\"note\">", out);
  sl__html_text(out, set->base_machine);
  fputs(" (base); ", out);
  sl__html_text(out, set->cand_machine);
  fputs(" (candidate)</p>\n", out);
  char warn[512];
  if (sl__machines_warning(set, warn, sizeof warn)) {
    fputs("<p class=\"warn\">", out);
    sl__html_text(out, warn);
    fputs("</p>\n", out);
  }
  if (sl__kernels_note(set, warn, sizeof warn)) {
    fputs("<p class=\"note\">", out);
    sl__html_text(out, warn);
    fputs("</p>\n", out);
  }
  fputs("<p class=\"note\">", out);
  sl__only_line(out, set);
  fputs("</p>\n<table class=\"compare\">\n<tr><th>verdict</th><th>variant</th>"
        "<th>threads</th><th>base</th><th>candidate</th><th>ratio</th>"
        "<th>95% interval</th><th>p</th><th>noise</th><th>samples</th>"
        "<th>benchmark</th><th>reason</th></tr>\n",
        out);
  for (int i = 0; i < set->n; ++i) {
    const sl_cmp_row *r = &set->rows[i];
    sl__cells c;
    sl__cells_of(r, set->anchor[0] != 0, &c);
    sl_cmp_verdict v = r->stat.verdict;
    fprintf(out, "<tr%s><td class=\"%s\">%s</td><td>",
            v == SL_CMP_SLOWER ? " class=\"bad\"" : "",
            v == SL_CMP_SLOWER      ? "bad"
            : v == SL_CMP_FASTER    ? "good"
            : v == SL_CMP_AMBIGUOUS ? "warn"
                                    : "",
            sl_cmp_verdict_name(v));
    sl__html_text(out, r->variant);
    fprintf(out,
            "</td><td class=\"n\">%s</td><td class=\"n\">%s</td>"
            "<td class=\"n\">%s</td><td class=\"n\">%s</td><td>%s</td>"
            "<td class=\"n\">%s</td><td class=\"n\">%s</td>"
            "<td class=\"n\">%s</td><td><code>",
            c.threads, c.base, c.cand, c.ratio, c.ci, c.p, c.noise, c.n);
    sl__html_text(out, r->case_line);
    fputs("</code></td><td>", out);
    sl__html_text(out, r->stat.reason);
    fputs("</td></tr>\n", out);
  }
  fputs("</table>\n", out);
  sl__html_end(out);
}

int sl_cmp_write(const sl_cmp_set *set, const sl_cmp_opts *o, sl_cmp_format fmt,
                 FILE *out) {
  sl_cmp_opts def;
  sl_cmp_opts_init(&def);
  if (!o) o = &def;
  if (!set || !out) return -1;
  switch (fmt) {
  case SL_CMP_TEXT:
    sl__text(set, o, out);
    break;
  case SL_CMP_MARKDOWN:
    sl__markdown(set, o, out);
    break;
  case SL_CMP_CSV:
    sl__csv(set, out);
    break;
  case SL_CMP_HTML:
    sl__html(set, o, out);
    break;
  default:
    return -1;
  }
  return fflush(out) != 0 || ferror(out) ? -1 : 0;
}
