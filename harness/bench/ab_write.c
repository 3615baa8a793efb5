/* Writers of `scatterlab ab`'s results (ab_write.h). */
#include "ab_write.h"

#include <stdlib.h>
#include <string.h>

#include "ab_gate.h"
#include "csv_fields.h"
#include "html.h"
#include "json_out.h"
#include "safe_file.h"
#include "sl_report.h"

static const char *const sl__kind_names[] = {"judged", "missing", "failed",
                                             "untimed", "died"};

sl_ab_row *sl_ab_set_add(sl_ab_set *s, const sl_ab_row *r) {
  if (s->n == s->cap) {
    int cap = s->cap ? 2 * s->cap : 32;
    sl_ab_row *rows = realloc(s->rows, sizeof *rows * (size_t)cap);
    if (!rows) return NULL;
    s->rows = rows;
    s->cap = cap;
  }
  s->rows[s->n] = *r;
  return &s->rows[s->n++];
}

void sl_ab_set_free(sl_ab_set *s) {
  free(s->rows);
  s->rows = NULL;
  s->n = s->cap = 0;
}

int sl_ab_format_parse(const char *name, sl_ab_format *f) {
  if (strcmp(name, "markdown") == 0)
    *f = SL_AB_MARKDOWN;
  else if (strcmp(name, "json") == 0)
    *f = SL_AB_JSON;
  else if (strcmp(name, "csv") == 0)
    *f = SL_AB_CSV;
  else if (strcmp(name, "html") == 0)
    *f = SL_AB_HTML;
  else
    return -1;
  return 0;
}

/* A judged row's run-wide checks (ab_gate.h): its first verdict, Holm's
 * threshold and decision, and the confirmation (null where none was
 * timed). */
static void sl__json_checks(const sl_ab_row *r, FILE *out) {
  fprintf(out, ", \"first_verdict\": \"%s\", \"p_threshold\": ",
          sl_ab_verdict_name(r->first));
  sl_json_num(out, r->p_threshold);
  fprintf(out,
          ", \"holm_kept\": %s, \"again\": ", r->rejected ? "true" : "false");
  if (!r->again_done) {
    fputs("null", out);
    return;
  }
  fprintf(out,
          "{\"verdict\": \"%s\", \"ratio\": ", sl_ab_verdict_name(r->again));
  sl_json_num(out, r->again_ratio);
  fputs(", \"lo\": ", out);
  sl_json_num(out, r->again_lo);
  fputs(", \"hi\": ", out);
  sl_json_num(out, r->again_hi);
  fputs(", \"p\": ", out);
  sl_json_num(out, r->again_p);
  fprintf(out, ", \"rounds\": %d, \"processes\": %d}", r->again_rounds,
          r->again_processes);
}

/* A judged row's noise (ab.h, ab_gate.h): the rounds' spread, the rounds
 * past the budget, the copy probe after them and whether it was low. */
static void sl__json_noise(const sl_ab_set *s, const sl_ab_row *r, FILE *out) {
  fputs(", \"spread\": ", out);
  sl_json_num(out, r->spread);
  fprintf(out, ", \"extra_rounds\": %d, \"probe_gbs\": ", r->extra_rounds);
  sl_json_num(out, r->probe_gbs);
  fprintf(out, ", \"disturbed\": %s",
          sl_ab_row_disturbed(s, r) ? "true" : "false");
}

/* A judged row's checks in words, for the markdown and the page: Holm's
 * threshold, and the second judgement where one was timed. */
static const char *sl__checks_text(const sl_ab_set *s, const sl_ab_row *r,
                                   char *buf, size_t len) {
  int n =
      snprintf(buf, len, "p %s %.2g", r->rejected ? "<=" : ">", r->p_threshold);
  if (r->again_done && n >= 0 && (size_t)n < len)
    n += snprintf(buf + n, len - (size_t)n,
                  "; again %.3f [%.3f, %.3f] p %.2g, %d rounds, %d "
                  "processes: %s",
                  r->again_ratio, r->again_lo, r->again_hi, r->again_p,
                  r->again_rounds, r->again_processes,
                  sl_ab_verdict_name(r->again));
  const int disturbed = sl_ab_row_disturbed(s, r);
  if ((r->extra_rounds || disturbed || r->verdict == SL_AB_NOISY) && n >= 0 &&
      (size_t)n < len)
    snprintf(buf + n, len - (size_t)n,
             "; rounds spread +-%.1f%%, %d past the budget; copy probe %.1f "
             "GB/s%s",
             r->spread * 100, r->extra_rounds, r->probe_gbs,
             disturbed ? " (disturbed)" : "");
  return buf;
}

static void sl__json(const sl_ab_set *s, FILE *out) {
  fputs("{\"schema\": \"scatterlab-ab/1\", \"base\": ", out);
  sl_json_str(out, s->base);
  fputs(", \"cand\": ", out);
  sl_json_str(out, s->cand);
  fputs(", \"threshold\": ", out);
  sl_json_num(out, s->threshold);
  fputs(", \"level\": ", out);
  sl_json_num(out, s->level);
  fputs(", \"budget_s\": ", out);
  sl_json_num(out, s->budget_s);
  fprintf(out,
          ", \"seed\": %llu, \"threads\": %d, \"torch\": %s, "
          "\"metric\": \"%s\", \"exit_status\": %d",
          s->seed, s->threads, s->torch ? "true" : "false",
          sl_ab_metric_name(s->metric), s->exit_status);
  fputs(", \"counters\": ", out);
  sl_json_str(out, s->counters);
  fputs(", \"omp\": ", out);
  sl_json_str(out, s->omp);
  fputs(", \"correction\": \"holm\", \"alpha\": ", out);
  sl_json_num(out, s->alpha);
  fprintf(out, ", \"judgements\": %d, \"confirm_seed\": %llu", s->judgements,
          s->confirm_seed);
  fputs(", \"noisy_budget_s\": ", out);
  sl_json_num(out, s->noisy_budget_s);
  fputs(", \"probe_best_gbs\": ", out);
  sl_json_num(out, s->probe_best);
  fprintf(out, ", \"disturbed\": %d", s->disturbed);
  fputs(", \"counts\": {", out);
  for (int k = 0; k < SL_AB_VERDICT_COUNT; ++k)
    fprintf(out, "%s\"%s\": %d", k ? ", " : "",
            sl_ab_verdict_name((sl_ab_verdict)k), s->counts[k]);
  fprintf(out, ", \"missing\": %d, \"failed\": %d, \"died\": %d}, \"rows\": [",
          s->missing, s->failed, s->died);
  for (int i = 0; i < s->n; ++i) {
    const sl_ab_row *r = &s->rows[i];
    fprintf(out, "%s\n  {\"kind\": \"%s\", \"case\": ", i ? "," : "",
            sl__kind_names[r->kind]);
    sl_json_str(out, r->case_line);
    fputs(", \"variant\": ", out);
    sl_json_str(out, r->variant);
    if (r->kind != SL_AB_ROW_JUDGED) {
      fputs(", \"note\": ", out);
      sl_json_str(out, r->note);
      fputc('}', out);
      continue;
    }
    fprintf(out, ", \"verdict\": \"%s\", \"base_s\": ",
            sl_ab_verdict_name(r->verdict));
    sl_json_num(out, r->base_s);
    fputs(", \"cand_s\": ", out);
    sl_json_num(out, r->cand_s);
    fputs(", \"ratio\": ", out);
    sl_json_num(out, r->ratio);
    fputs(", \"lo\": ", out);
    sl_json_num(out, r->lo);
    fputs(", \"hi\": ", out);
    sl_json_num(out, r->hi);
    fputs(", \"p\": ", out);
    sl_json_num(out, r->p);
    fprintf(out,
            ", \"rounds\": %d, \"calls_per_turn\": %d, \"stopped\": \"%s\"",
            r->rounds, r->calls_per_turn, r->stopped ? r->stopped : "");
    fputs(", \"torch_s\": ", out);
    sl_json_num(out, r->torch_s);
    fputs(", \"base_speedup\": ", out);
    sl_json_num(out, r->base_speedup);
    fputs(", \"cand_speedup\": ", out);
    sl_json_num(out, r->cand_speedup);
    fputs(", \"base_instructions\": ", out);
    sl_json_num(out, r->base_instr);
    fputs(", \"cand_instructions\": ", out);
    sl_json_num(out, r->cand_instr);
    fputs(", \"instructions_ratio\": ", out);
    sl_json_num(out, r->instr_ratio);
    sl__json_checks(r, out);
    sl__json_noise(s, r, out);
    fputc('}', out);
  }
  fputs("\n]}\n", out);
}

static void sl__markdown(const sl_ab_set *s, FILE *out) {
  int slower = s->counts[SL_AB_SLOWER];
  fprintf(out,
          "### scatterlab ab: %s%d slower%s, %d faster, %d same, "
          "%d unclear, %d noisy",
          slower ? "**" : "", slower, slower ? "**" : "",
          s->counts[SL_AB_FASTER], s->counts[SL_AB_SAME],
          s->counts[SL_AB_UNCLEAR], s->counts[SL_AB_NOISY]);
  if (s->missing) fprintf(out, ", %d missing", s->missing);
  if (s->failed) fprintf(out, ", **%d failed**", s->failed);
  if (s->died)
    fprintf(out, ", **%d died** (a kernel crashed, hung or exited)", s->died);
  fputs("\n\nbase `", out);
  sl_md_text(out, s->base, 1);
  fputs("`, candidate `", out);
  sl_md_text(out, s->cand[0] ? s->cand : "(built-in kernels)", 1);
  fprintf(out,
          "`; threshold %.3g%%, %.0f%% intervals, budget %.3g s per "
          "benchmark, seed %llu, %d threads. Paired rounds: each ratio is "
          "cand/base within one round, so the machine's drift cancels. "
          "Judged on %s per call; hardware counters: ",
          s->threshold * 100, s->level * 100, s->budget_s, s->seed, s->threads,
          sl_ab_metric_name(s->metric));
  sl_md_text(out, s->counters, 0);
  fprintf(out,
          ". Family-wise alpha %.3g over the run's %d judgements (Holm's "
          "step-down); each claim kept timed again in fresh rounds (seed "
          "%llu) and standing only when that agrees. OpenMP: ",
          s->alpha, s->judgements, s->confirm_seed);
  sl_md_text(out, s->omp, 0);
  fputs(".\n\n", out);
  if (s->torch)
    fputs("LibTorch (torch.cpu; torch.cuda beside cuda.* pairs) was timed in "
          "the same rounds: `vs torch` is each build's speed-up over it, base "
          "-> cand.\n\n",
          out);
  fprintf(out,
          "| verdict | variant | base ms | cand ms | cand/base | interval | p "
          "| rounds | run-wide checks |%s%s case |\n| --- | --- | ---: | "
          "---: | ---: | --- | ---: | ---: | --- |%s%s --- |\n",
          s->torch ? " vs torch |" : "", s->counted ? " instr cand/base |" : "",
          s->torch ? " ---: |" : "", s->counted ? " ---: |" : "");
  for (int i = 0; i < s->n; ++i) {
    const sl_ab_row *r = &s->rows[i];
    if (r->kind == SL_AB_ROW_JUDGED) {
      char checks[320];
      fprintf(out, "| %s%s%s%s%s%s | ", r->verdict == SL_AB_SLOWER ? "**" : "",
              sl_ab_verdict_name(r->verdict),
              r->verdict == SL_AB_SLOWER ? "**" : "",
              r->first != r->verdict ? " (first " : "",
              r->first != r->verdict ? sl_ab_verdict_name(r->first) : "",
              r->first != r->verdict ? ")" : "");
      sl_md_text(out, r->variant, 0);
      fprintf(out, " | %.4f | %.4f | %.3f | [%.3f, %.3f] | %.2g | %d | %s | ",
              r->base_s * 1e3, r->cand_s * 1e3, r->ratio, r->lo, r->hi, r->p,
              r->rounds, sl__checks_text(s, r, checks, sizeof checks));
      if (s->torch)
        fprintf(out, "%.2fx -> %.2fx | ", r->base_speedup, r->cand_speedup);
      if (s->counted) fprintf(out, "%.4f | ", r->instr_ratio);
      fputc('`', out);
    } else {
      fprintf(out, "| %s | ", sl__kind_names[r->kind]);
      sl_md_text(out, r->variant, 0);
      fputs(" | | | | ", out);
      sl_md_text(out, r->note, 0);
      fputs(" | | | | ", out);
      if (s->torch) fputs("| ", out);
      if (s->counted) fputs("| ", out);
      fputc('`', out);
    }
    sl_md_text(out, r->case_line, 1);
    fputs("` |\n", out);
  }
}

/* A row's run-wide checks as CSV fields (the again_ ones empty where no
 * confirmation was timed), then the run's alpha, seed and OpenMP line. */
static void sl__csv_checks(const sl_ab_set *s, const sl_ab_row *r, FILE *out) {
  const int judged = r->kind == SL_AB_ROW_JUDGED;
  const int again = judged && r->again_done;
  fputc(',', out);
  sl__csv_real(out, s->alpha);
  fprintf(out, ",%s,", judged ? sl_ab_verdict_name(r->first) : "");
  if (judged) sl__csv_real(out, r->p_threshold);
  fprintf(out, ",%s,%s", judged ? (r->rejected ? "1" : "0") : "",
          again ? sl_ab_verdict_name(r->again) : "");
  const double a[] = {r->again_ratio, r->again_lo, r->again_hi, r->again_p};
  for (size_t k = 0; k < sizeof a / sizeof a[0]; ++k) {
    fputc(',', out);
    if (again) sl__csv_real(out, a[k]);
  }
  if (again)
    fprintf(out, ",%d", r->again_rounds);
  else
    fputc(',', out);
  fprintf(out, ",%llu,", s->confirm_seed);
  sl__csv_text(out, s->omp);
}

/* One row per judged pair or reason it was not judged, the run's settings
 * on every row (a CSV is read one row at a time); the columns are only ever
 * appended to. */
static void sl__csv(const sl_ab_set *s, FILE *out) {
  fputs("kind,verdict,variant,case_line,base_s,cand_s,ratio,ratio_lo,"
        "ratio_hi,p_value,rounds,calls_per_turn,stopped,note,base,cand,"
        "threshold,level,budget_s,seed,threads,torch_s,base_speedup,"
        "cand_speedup,metric,base_instructions,cand_instructions,"
        "instructions_ratio,alpha,first_verdict,p_threshold,holm_kept,"
        "again_verdict,again_ratio,again_lo,again_hi,again_p,again_rounds,"
        "confirm_seed,omp,spread,extra_rounds,probe_gbs\n",
        out);
  for (int i = 0; i < s->n; ++i) {
    const sl_ab_row *r = &s->rows[i];
    const int judged = r->kind == SL_AB_ROW_JUDGED;
    fprintf(out, "%s,%s,", sl__kind_names[r->kind],
            judged ? sl_ab_verdict_name(r->verdict) : "");
    sl__csv_text(out, r->variant);
    fputc(',', out);
    sl__csv_text(out, r->case_line);
    const double v[] = {r->base_s, r->cand_s, r->ratio, r->lo, r->hi, r->p};
    for (size_t k = 0; k < sizeof v / sizeof v[0]; ++k) {
      fputc(',', out);
      if (judged) sl__csv_real(out, v[k]);
    }
    if (judged)
      fprintf(out, ",%d,%d,", r->rounds, r->calls_per_turn);
    else
      fputs(",,,", out);
    sl__csv_text(out, r->stopped ? r->stopped : "");
    fputc(',', out);
    sl__csv_text(out, judged ? "" : r->note);
    fputc(',', out);
    sl__csv_text(out, s->base);
    fputc(',', out);
    sl__csv_text(out, s->cand);
    fputc(',', out);
    const double o[] = {s->threshold, s->level, s->budget_s};
    for (size_t k = 0; k < sizeof o / sizeof o[0]; ++k) {
      sl__csv_real(out, o[k]);
      fputc(',', out);
    }
    fprintf(out, "%llu,%d", s->seed, s->threads);
    const double t[] = {r->torch_s, r->base_speedup, r->cand_speedup};
    for (size_t k = 0; k < sizeof t / sizeof t[0]; ++k) {
      fputc(',', out);
      if (judged && s->torch) sl__csv_real(out, t[k]);
    }
    fprintf(out, ",%s", sl_ab_metric_name(s->metric));
    const double c[] = {r->base_instr, r->cand_instr, r->instr_ratio};
    for (size_t k = 0; k < sizeof c / sizeof c[0]; ++k) {
      fputc(',', out);
      if (judged && c[k] == c[k]) sl__csv_real(out, c[k]); /* NaN: empty */
    }
    sl__csv_checks(s, r, out);
    if (judged) {
      fputc(',', out);
      sl__csv_real(out, r->spread);
      fprintf(out, ",%d,", r->extra_rounds);
      sl__csv_real(out, r->probe_gbs);
    } else {
      fputs(",,,", out);
    }
    fputc('\n', out);
  }
}

/* The page: the same table as the markdown, a slower row marked. */
static void sl__html(const sl_ab_set *s, FILE *out) {
  sl__html_begin(out, "scatterlab ab");
  int slower = s->counts[SL_AB_SLOWER];
  fprintf(out,
          "<h1>scatterlab ab</h1>\n<p class=\"%s\">%d slower, %d faster, "
          "%d same, %d unclear, %d noisy, %d missing, %d failed, %d "
          "died</p>\n<p class=\"note\">base <code>",
          slower || s->failed || s->died ? "bad" : "good", slower,
          s->counts[SL_AB_FASTER], s->counts[SL_AB_SAME],
          s->counts[SL_AB_UNCLEAR], s->counts[SL_AB_NOISY], s->missing,
          s->failed, s->died);
  sl__html_text(out, s->base);
  fputs("</code>, candidate <code>", out);
  sl__html_text(out, s->cand[0] ? s->cand : "(built-in kernels)");
  fprintf(out,
          "</code>; threshold %.3g%%, %.0f%% intervals, budget %.3g s per "
          "benchmark, seed %llu, %d threads. Paired rounds: each ratio is "
          "cand/base within one round, so the machine's drift cancels. "
          "Judged on %s per call; hardware counters: ",
          s->threshold * 100, s->level * 100, s->budget_s, s->seed, s->threads,
          sl_ab_metric_name(s->metric));
  sl__html_text(out, s->counters);
  fprintf(out,
          ". Family-wise alpha %.3g over %d judgements (Holm); claims "
          "confirmed in fresh rounds (seed %llu). OpenMP: ",
          s->alpha, s->judgements, s->confirm_seed);
  sl__html_text(out, s->omp);
  fprintf(out,
          ".</p>\n"
          "<table class=\"compare\">\n<tr><th>verdict</th><th>variant</th>"
          "<th>base ms</th><th>cand ms</th><th>cand/base</th>"
          "<th>interval</th><th>p</th><th>rounds</th><th>run-wide "
          "checks</th>%s%s<th>case</th>"
          "<th>note</th></tr>\n",
          s->torch ? "<th>vs torch (base &rarr; cand)</th>" : "",
          s->counted ? "<th>instr cand/base</th>" : "");
  for (int i = 0; i < s->n; ++i) {
    const sl_ab_row *r = &s->rows[i];
    const int judged = r->kind == SL_AB_ROW_JUDGED;
    const int bad = (judged && r->verdict == SL_AB_SLOWER) ||
                    r->kind == SL_AB_ROW_FAILED || r->kind == SL_AB_ROW_DIED;
    fprintf(
        out, "<tr%s><td class=\"%s\">%s</td><td>", bad ? " class=\"bad\"" : "",
        bad                                    ? "bad"
        : judged && r->verdict == SL_AB_FASTER ? "good"
        : !judged || r->verdict == SL_AB_UNCLEAR || r->verdict == SL_AB_NOISY
            ? "warn"
            : "",
        judged ? sl_ab_verdict_name(r->verdict) : sl__kind_names[r->kind]);
    sl__html_text(out, r->variant);
    char checks[320];
    if (judged) {
      fprintf(out,
              "</td><td class=\"n\">%.4f</td><td class=\"n\">%.4f</td>"
              "<td class=\"n\">%.3f</td><td>[%.3f, %.3f]</td>"
              "<td class=\"n\">%.2g</td><td class=\"n\">%d</td><td>",
              r->base_s * 1e3, r->cand_s * 1e3, r->ratio, r->lo, r->hi, r->p,
              r->rounds);
      sl__html_text(out, sl__checks_text(s, r, checks, sizeof checks));
      fputs("</td>", out);
    } else
      fputs("</td><td></td><td></td><td></td><td></td><td></td><td></td>"
            "<td></td>",
            out);
    if (s->torch && judged)
      fprintf(out, "<td class=\"n\">%.2fx &rarr; %.2fx</td>", r->base_speedup,
              r->cand_speedup);
    else if (s->torch)
      fputs("<td></td>", out);
    if (s->counted && judged)
      fprintf(out, "<td class=\"n\">%.4f</td>", r->instr_ratio);
    else if (s->counted)
      fputs("<td></td>", out);
    fputs("<td><code>", out);
    sl__html_text(out, r->case_line);
    fputs("</code></td><td>", out);
    sl__html_text(out, judged ? "" : r->note);
    fputs("</td></tr>\n", out);
  }
  fputs("</table>\n", out);
  sl__html_end(out);
}

int sl_ab_write(const sl_ab_set *s, sl_ab_format f, FILE *out) {
  switch (f) {
  case SL_AB_JSON:
    sl__json(s, out);
    break;
  case SL_AB_CSV:
    sl__csv(s, out);
    break;
  case SL_AB_HTML:
    sl__html(s, out);
    break;
  default:
    sl__markdown(s, out);
  }
  return fflush(out) != 0 || ferror(out) ? -1 : 0;
}

int sl_ab_write_file(const sl_ab_set *s, sl_ab_format f, const char *path,
                     char *err, size_t errlen) {
  sl_safe_file sf;
  if (sl_safe_open(&sf, path, err, errlen)) return -1;
  if (sl_ab_write(s, f, sf.f)) {
    sl_safe_abort(&sf);
    snprintf(err, errlen, "%s: write error", path);
    return -1;
  }
  return sl_safe_commit(&sf, err, errlen);
}
