/* bench --shrink (bench_run.h): each slowdown shrunk to its cliff. */
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_run.h"
#include "interrupt.h"
#include "json_out.h"
#include "shrink.h"

/* One slowdown being shrunk: the variant slower than torch.cpu, and the
 * speed-up of the last case it was still slower on. */
typedef struct sl__slowdown {
  sl__bench_ctx *b;
  char variant[SL_BENCH_VARIANT_LEN];
  double speedup;
} sl__slowdown;

/* Case c checked and timed (torch.cpu and s's variant only) with the
 * run's budget, its rows and tables not printed nor stored: the variant's
 * speed-up over torch.cpu, or -1 when either was not timed (a candidate
 * the variant rejects or fails is not this slowdown). */
static double sl__speedup_of(sl__slowdown *s, const sl_case *c) {
  sl__bench_ctx *b = s->b;
  const sl__bench_ctx saved = *b;
  b->st = NULL;
  b->jcases = NULL;
  b->table = (sl_bench_table){0};
  b->variants = s->variant;
  fflush(stdout);
  const int out = dup(STDOUT_FILENO), null = open("/dev/null", O_WRONLY);
  if (out >= 0 && null >= 0) dup2(null, STDOUT_FILENO);
  sl__bench_case(b, c);
  fflush(stdout);
  if (out >= 0) dup2(out, STDOUT_FILENO), close(out);
  if (null >= 0) close(null);
  double speedup = -1;
  const sl_bench_row *r = b->table.n ? &b->table.rows[0] : NULL;
  for (int k = 0; r && r->torch_s > 0 && k < r->n; ++k)
    if (strcmp(r->cell[k].variant, s->variant) == 0 && r->cell[k].median_s > 0)
      speedup = r->torch_s / r->cell[k].median_s;
  sl_bench_table_free(&b->table);
  /* What the timing learnt about the worker stays; the run's own state
   * (its store, JSON, table, filter and tallies) comes back. */
  const sl_bench_workers workers = b->workers;
  *b = saved;
  b->workers = workers;
  return speedup;
}

static int sl__still_slower(void *user, const sl_case *c) {
  sl__slowdown *s = user;
  if (sl_interrupted()) return -1;
  const double v = sl__speedup_of(s, c);
  if (v < 0 || v >= 1) return 0;
  s->speedup = v;
  return 1;
}

/* Three more timings of the shrunk case: a cliff found on one noisy
 * timing is said as such. Returns their median; speedups[3] gets them. */
static double sl__confirm(sl__slowdown *s, const sl_case *c,
                          double speedups[3]) {
  for (int k = 0; k < 3; ++k) speedups[k] = sl__speedup_of(s, c);
  double lo = fmin(speedups[0], speedups[1]),
         hi = fmax(speedups[0], speedups[1]);
  return fmax(lo, fmin(hi, speedups[2]));
}

/* One slow row shrunk and said: its line, the shrunk one, the steps. */
static void sl__shrink_row(sl__bench_ctx *b, const sl_bench_ranked *r,
                           FILE *json, int first) {
  sl__slowdown s = {b, "", r->speedup};
  snprintf(s.variant, sizeof s.variant, "%s", r->cell->variant);
  sl_case c = r->row->c;
  const int steps = sl_shrink(&c, sl__still_slower, &s);
  char line[SL_CASE_LINE_MAX];
  sl_case_print(&c, line, sizeof line);
  double again[3];
  const double median = sl__confirm(&s, &c, again);
  printf("  %6.2fx %-16s %s\n", r->speedup, s.variant, r->row->line);
  printf("    -> %6.2fx after %d step%s: %s\n", s.speedup, steps,
         steps == 1 ? "" : "s", line);
  printf("       timed again: %.2fx %.2fx %.2fx (median %.2fx%s)\n", again[0],
         again[1], again[2], median,
         median < 1 ? "" : ": not slower again, a cliff of one noisy timing");
  if (!json) return;
  fprintf(json, "%s{\"case\": ", first ? "\n  " : ",\n  ");
  sl_json_str(json, r->row->line);
  fputs(", \"variant\": ", json);
  sl_json_str(json, s.variant);
  fprintf(json, ", \"speedup\": %.6g, \"shrunk\": ", r->speedup);
  sl_json_str(json, line);
  fprintf(json,
          ", \"steps\": %d, \"shrunk_speedup\": %.6g, \"again\": [%.6g, "
          "%.6g, %.6g]}",
          steps, s.speedup, again[0], again[1], again[2]);
}

void sl__bench_shrink(sl__bench_ctx *b, FILE *json) {
  int n;
  sl_bench_ranked *v = sl_bench_rank(&b->table, NULL, &n);
  int slow = 0;
  while (v && slow < n && v[slow].speedup < 1) ++slow;
  printf("\nshrinking %d slowdown%s (--shrink): each to the smallest case "
         "the fuzz shrinker reaches where the same variant is still slower "
         "than torch.cpu\n",
         slow, slow == 1 ? "" : "s");
  if (json) fputs(", \"shrunk\": [", json);
  for (int i = 0; i < slow && !sl_interrupted(); ++i)
    sl__shrink_row(b, &v[i], json, i == 0);
  if (json) fputs(slow ? "\n]" : "]", json);
  free(v);
}
