/*
 * The timing tables of the HTML report: per benchmark case (case line,
 * threads, warm or cold) LibTorch first, then every variant, with median,
 * spread, GB/s of the op's useful bytes, % of the copy bandwidth measured
 * in the same run (mlu-ops' efficiency), and the speed-up over LibTorch.
 * The fastest variant of each case is marked (bench times only variants
 * that passed its correctness prelude, so every row here passed), and a
 * median with an IQR above SL__HIGH_IQR of it is flagged as noisy.
 */
#include <inttypes.h>
#include <string.h>

#include "html.h"
#include "html_sections.h"

static int sl__same_case(const sl__bench *a, const sl__bench *b) {
  return strcmp(a->case_line, b->case_line) == 0 && a->threads == b->threads &&
         a->cold == b->cold;
}

static void sl__timing_row(FILE *out, const sl__bench *b,
                           const sl__bench *torch, int winner) {
  char med[32];
  sl__fmt_seconds(med, sizeof med, b->median_s);
  int is_torch = strcmp(b->variant, SL__TORCH_VARIANT) == 0;
  fputs(winner ? "<tr class=\"win\"><td>" : "<tr><td>", out);
  sl__html_text(out, b->variant);
  if (winner) {
    fputs(" <span class=\"win\">&#9733; fastest", out);
    if (torch && !is_torch)
      fprintf(out, ", %.2fx", torch->median_s / b->median_s);
    fputs("</span>", out);
  }
  fprintf(out, "</td><td class=\"n\">%s</td>", med);
  if (b->median_s > 0 && b->iqr_s > SL__HIGH_IQR * b->median_s)
    fprintf(out,
            "<td class=\"n warn noisy\" title=\"IQR above %.0f%% of the "
            "median: noisy\">%.1f%% &#9888;</td>",
            100 * SL__HIGH_IQR, 100 * b->iqr_s / b->median_s);
  else if (b->median_s > 0)
    fprintf(out, "<td class=\"n\">%.1f%%</td>", 100 * b->iqr_s / b->median_s);
  else
    fputs("<td class=\"n\">-</td>", out);
  if (b->gbs >= 0)
    fprintf(out, "<td class=\"n\">%.2f</td>", b->gbs);
  else
    fputs("<td class=\"n\">-</td>", out);
  if (b->pct_peak >= 0)
    fprintf(out, "<td class=\"n\">%.1f%%</td>", b->pct_peak);
  else
    fputs("<td class=\"n\">-</td>", out);
  if (torch && !is_torch && b->median_s > 0) {
    double up = torch->median_s / b->median_s;
    fprintf(out, "<td class=\"n %s\">%.2fx</td>", up >= 1 ? "good" : "warn",
            up);
  } else {
    fputs("<td class=\"n\">-</td>", out);
  }
  fprintf(out, "<td class=\"n\">%d</td><td class=\"n\">%" PRId64 "</td></tr>\n",
          b->reps, b->run_id);
}

void sl__html_timings(const sl__bench_set *set, const int *idx, int n,
                      FILE *out) {
  fputs("<h2 id=\"timings\">Timings</h2>\n", out);
  if (n == 0) {
    fputs("<p class=\"note\">No timings recorded (<code>scatterlab "
          "bench</code> records them).</p>\n",
          out);
    return;
  }
  fprintf(out,
          "<p class=\"note\">The newest measurement of each benchmark. GB/s: "
          "useful bytes (each input read once, each output written once) per "
          "median time; %% of peak: of the copy bandwidth probed in the same "
          "run; speed-up: LibTorch's median over the variant's; &#9733;: the "
          "fastest variant of the case (every variant timed passed bench's "
          "correctness check); &#9888;: an IQR above %.0f%% of the median, "
          "a noisy timing.</p>\n"
          "<table class=\"timings\">\n<tr><th>variant</th><th>median</th>"
          "<th>IQR</th><th>GB/s</th><th>%% of peak</th>"
          "<th>speed-up vs torch.cpu</th><th>reps</th><th>run</th></tr>\n",
          100 * SL__HIGH_IQR);
  for (int i = 0; i < n;) {
    const sl__bench *first = &set->v[idx[i]];
    int j = i;
    while (j < n && sl__same_case(first, &set->v[idx[j]])) ++j;
    /* sl__bench_newest puts torch.cpu first in its group. */
    const sl__bench *torch =
        strcmp(first->variant, SL__TORCH_VARIANT) == 0 ? first : NULL;
    fputs("<tr><th colspan=\"8\"><code>", out);
    sl__html_text(out, first->case_line);
    fprintf(out, "</code> &mdash; %d thread%s, %s</th></tr>\n", first->threads,
            first->threads == 1 ? "" : "s",
            first->cold ? "cold caches" : "warm");
    /* The winner: the lowest positive median; none for a case timed once. */
    int win = -1;
    for (int k = i; k < j && j - i > 1; ++k) {
      double m = set->v[idx[k]].median_s;
      if (m > 0 && (win < 0 || m < set->v[idx[win]].median_s)) win = k;
    }
    for (int k = i; k < j; ++k)
      sl__timing_row(out, &set->v[idx[k]], torch, k == win);
    i = j;
  }
  fputs("</table>\n", out);
}
