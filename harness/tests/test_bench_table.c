/*
 * The summary and crossover tables of `scatterlab bench` from hand-made
 * timings: speed-ups over torch.cpu, the best CPU variant, its geometric
 * mean and the slower count, the ceiling (100 / torch's % of the copy
 * bandwidth), and the crossover winner with its margin.
 */
#include <stdio.h>

#include "bench_table.h"
#include "sl_test.h"

/* The tables of t as one string (caller frees). */
static char *print_tables(const sl_bench_table *t) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (!f) return NULL;
  sl_bench_summary_print(t, f);
  sl_bench_crossover_print(t, f);
  fclose(f);
  return buf;
}

static void add_case(sl_bench_table *t, const char *line, double torch_ms,
                     double torch_pct, const char *const *variants,
                     const double *ms, int n) {
  sl_case c;
  char err[256];
  CHECK_MSG(sl_case_parse(line, &c, err, sizeof err) == 0, "%s", err);
  sl_bench_row *r = sl_bench_table_add(t, &c, line);
  CHECK(r != NULL);
  if (!r) return;
  sl_bench_row_set(r, "torch.cpu", torch_ms * 1e-3, 1.0, torch_pct);
  for (int i = 0; i < n; ++i)
    sl_bench_row_set(r, variants[i], ms[i] * 1e-3, 1.0,
                     torch_pct * torch_ms / ms[i]);
}

static void test_summary_and_crossover(void) {
  sl_bench_table t = {0};
  const char *v[] = {"cpu.serial", "cpu.atomic", "cpu.lock", "cpu.sorted"};
  /* #1: best is lock at 2 ms vs torch 8 ms (4x); torch at 25% of the
   * bandwidth: ceiling 4x. #2: best is serial at 5 ms vs 4 ms: 0.8x,
   * slower; torch at 50%: ceiling 2x. Geometric means: sqrt(4 * 0.8) =
   * 1.79x, sqrt(4 * 2) = 2.83x. */
  add_case(&t,
           "scatter_reduce dt=f32 it=i64 x=16x8 index=1024x8 src=1024x8 "
           "dim=0 reduce=amin seed=1",
           8.0, 25.0, v, (const double[]){10.0, 3.0, 2.0, 6.0}, 4);
  add_case(&t,
           "scatter_reduce dt=f32 it=i64 x=256x8 index=1024x8 src=1024x8 "
           "dim=0 reduce=amin seed=1",
           4.0, 50.0, v, (const double[]){5.0, 6.0, 9.0, 12.0}, 4);
  char *out = print_tables(&t);
  CHECK(out != NULL);
  if (out) {
    CHECK_CONTAINS(out, "  4.00x lock");
    CHECK_CONTAINS(out, "  0.80x serial");
    CHECK_CONTAINS(out, "   4.00x\n");
    CHECK_CONTAINS(out, "   2.00x\n");
    CHECK_CONTAINS(out, "geometric mean 1.79x over 2 cases; slower than "
                        "torch.cpu on 1");
    CHECK_CONTAINS(out, "copy bandwidth vs torch.cpu): geometric mean 2.83x");
    /* Crossover grid: M=16 lock by 1.5x over atomic; M=256 atomic by 1.5x
     * over lock. */
    CHECK_CONTAINS(out, "lock 1.50x");
    CHECK_CONTAINS(out, "atomic 1.50x");
    free(out);
  }
  sl_bench_table_free(&t);
}

/* The seed suite's lone index_reduce case (4 updates into 3 rows) is no
 * M x C sweep: one crossover line, not a 1 x 1 grid. */
static void test_lone_case_is_no_grid(void) {
  sl_bench_table t = {0};
  const char *v[] = {"cpu.atomic", "cpu.lock"};
  add_case(&t,
           "index_reduce dt=f32 it=i64 x=3x2 index=4 updates=4x2 dim=0 "
           "reduce=sum self=0 seed=1",
           1.0, 10.0, v, (const double[]){2.0, 1.0}, 2);
  char *out = print_tables(&t);
  CHECK(out != NULL);
  if (out) {
    CHECK(strstr(out, "M \\ C") == NULL);
    CHECK_CONTAINS(out, "-> lock by 2.00x");
    free(out);
  }
  sl_bench_table_free(&t);
}

/* A speed-up read on scattered timings (bench --retime) is marked ~ and
 * counted under its op; the others are not. */
static void test_scattered_marked(void) {
  sl_bench_table t = {0};
  const char *v[] = {"cpu.serial", "cpu.omp"};
  add_case(&t, "gather dt=f32 it=i64 x=64x48 index=32x48 dim=0 seed=1", 2.0,
           10.0, v, (const double[]){4.0, 2.5}, 2);
  t.rows[0].scattered = 1;
  add_case(&t, "gather dt=f32 it=i64 x=64x48 index=32x48 dim=0 seed=2", 2.0,
           10.0, v, (const double[]){4.0, 1.0}, 2);
  char *out = print_tables(&t);
  CHECK(out != NULL);
  if (out) {
    CHECK_CONTAINS(out, "  0.80x~omp");
    CHECK_CONTAINS(out, "  2.00x omp");
    CHECK_CONTAINS(out, "  ~ 1 speed-up read on timings that scatter");
    free(out);
  }
  sl_bench_table_free(&t);
}

int main(void) {
  test_summary_and_crossover();
  test_lone_case_is_no_grid();
  test_scattered_marked();
  return sl_test_finish("test_bench_table");
}
