/* Writers of `scatterlab ab`'s results (ab_write.h). */
#include "ab_write.h"

#include <stdlib.h>
#include <string.h>

#include "json_out.h"
#include "safe_file.h"

static const char *const sl__kind_names[] = {"judged", "missing", "failed",
                                             "untimed"};

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
  else
    return -1;
  return 0;
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
  fprintf(out, ", \"seed\": %llu, \"threads\": %d, \"exit_status\": %d",
          s->seed, s->threads, s->exit_status);
  fputs(", \"counts\": {", out);
  for (int k = 0; k < SL_AB_VERDICT_COUNT; ++k)
    fprintf(out, "%s\"%s\": %d", k ? ", " : "",
            sl_ab_verdict_name((sl_ab_verdict)k), s->counts[k]);
  fprintf(out, ", \"missing\": %d, \"failed\": %d}, \"rows\": [", s->missing,
          s->failed);
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
            ", \"rounds\": %d, \"calls_per_turn\": %d, \"stopped\": \"%s\"}",
            r->rounds, r->calls_per_turn, r->stopped ? r->stopped : "");
  }
  fputs("\n]}\n", out);
}

/* Markdown table cells may not hold '|' or a line break. */
static void sl__md_cell(FILE *out, const char *s) {
  for (; *s; ++s) {
    if (*s == '|')
      fputs("\\|", out);
    else if (*s == '\n' || *s == '\r')
      fputc(' ', out);
    else
      fputc(*s, out);
  }
}

static void sl__markdown(const sl_ab_set *s, FILE *out) {
  int slower = s->counts[SL_AB_SLOWER];
  fprintf(out,
          "### scatterlab ab: %s%d slower%s, %d faster, %d same, "
          "%d unclear",
          slower ? "**" : "", slower, slower ? "**" : "",
          s->counts[SL_AB_FASTER], s->counts[SL_AB_SAME],
          s->counts[SL_AB_UNCLEAR]);
  if (s->missing) fprintf(out, ", %d missing", s->missing);
  if (s->failed) fprintf(out, ", **%d failed**", s->failed);
  fprintf(out,
          "\n\nbase `%s`, candidate `%s`; threshold %.3g%%, %.0f%% "
          "intervals, budget %.3g s per benchmark, seed %llu, %d "
          "threads. Paired rounds: each ratio is cand/base within one "
          "round, so the machine's drift cancels.\n\n",
          s->base, s->cand[0] ? s->cand : "(built-in kernels)",
          s->threshold * 100, s->level * 100, s->budget_s, s->seed, s->threads);
  fputs("| verdict | variant | base ms | cand ms | cand/base | interval | p "
        "| rounds | case |\n| --- | --- | ---: | ---: | ---: | --- | ---: | "
        "---: | --- |\n",
        out);
  for (int i = 0; i < s->n; ++i) {
    const sl_ab_row *r = &s->rows[i];
    if (r->kind == SL_AB_ROW_JUDGED)
      fprintf(out,
              "| %s%s%s | %s | %.4f | %.4f | %.3f | [%.3f, %.3f] | "
              "%.2g | %d | `",
              r->verdict == SL_AB_SLOWER ? "**" : "",
              sl_ab_verdict_name(r->verdict),
              r->verdict == SL_AB_SLOWER ? "**" : "", r->variant,
              r->base_s * 1e3, r->cand_s * 1e3, r->ratio, r->lo, r->hi, r->p,
              r->rounds);
    else {
      fprintf(out, "| %s | %s | | | | ", sl__kind_names[r->kind], r->variant);
      sl__md_cell(out, r->note);
      fputs(" | | | `", out);
    }
    sl__md_cell(out, r->case_line);
    fputs("` |\n", out);
  }
}

int sl_ab_write(const sl_ab_set *s, sl_ab_format f, FILE *out) {
  if (f == SL_AB_JSON)
    sl__json(s, out);
  else
    sl__markdown(s, out);
  return ferror(out) ? -1 : 0;
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
