/*
 * Run-to-run comparison on synthetic samples: a real slowdown must be
 * called slower, noise must be called the same, and three samples must be
 * too few. Samples are drawn from a seeded generator, so every run of the
 * test sees the same numbers.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sl_report.h"
#include "sl_store.h"
#include "sl_test.h"

/* Normal deviates (Box-Muller over a 64-bit LCG). */
static double gauss(uint64_t *s) {
  double u[2];
  for (int i = 0; i < 2; ++i) {
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    u[i] = ((*s >> 11) + 0.5) / 9007199254740992.0;
  }
  return sqrt(-2 * log(u[0])) * cos(2 * M_PI * u[1]);
}

/* n times of mean `mean` with relative noise `rel` (standard deviation). */
static void draw(uint64_t seed, int n, double mean, double rel, double *out) {
  for (int i = 0; i < n; ++i) out[i] = mean * (1 + rel * gauss(&seed));
}

static void test_samples(void) {
  static double a[4000], b[4000];
  sl_cmp_opts o;
  sl_cmp_opts_init(&o);
  CHECK(o.threshold == 0.05 && o.alpha == 0.05 && o.min_samples == 5);
  sl_cmp_stat r;

  /* A 10% slowdown with 1% noise, 20 samples a side: ten standard
   * deviations apart, so every candidate sample is slower than every base
   * sample and U = 0 exactly: z = (200 - 0.5) / sqrt(400 * 41 / 12). */
  draw(1, 20, 1e-3, 0.01, a);
  draw(2, 20, 1.1e-3, 0.01, b);
  sl_cmp_samples(a, 20, b, 20, &o, &r);
  CHECK_MSG(r.verdict == SL_CMP_SLOWER, "%s: %s",
            sl_cmp_verdict_name(r.verdict), r.reason);
  double p = erfc(199.5 / sqrt(400 * 41 / 12.0) / sqrt(2.0));
  CHECK_MSG(fabs(r.p - p) <= 1e-12 * p, "p %g, expected %g", r.p, p);
  CHECK_MSG(r.ratio > 1.08 && r.ratio < 1.12 && r.ratio_lo > 1.05 &&
                r.ratio_hi < 1.15 && r.ratio_lo <= r.ratio &&
                r.ratio <= r.ratio_hi,
            "ratio %g [%g, %g]", r.ratio, r.ratio_lo, r.ratio_hi);
  CHECK(r.n_base == 20 && r.n_cand == 20 && r.noise < 0.03);
  CHECK(strstr(r.reason, "+") != NULL);

  /* The same the other way round: faster. */
  sl_cmp_samples(b, 20, a, 20, &o, &r);
  CHECK(r.verdict == SL_CMP_FASTER && r.ratio < 0.93);

  /* Noise only: both sides from one distribution with 3% noise. */
  draw(3, 30, 1e-3, 0.03, a);
  draw(4, 30, 1e-3, 0.03, b);
  sl_cmp_samples(a, 30, b, 30, &o, &r);
  CHECK_MSG(r.verdict == SL_CMP_SAME, "%s: %s", sl_cmp_verdict_name(r.verdict),
            r.reason);
  CHECK(fabs(r.ratio - 1) < 0.05 && r.ratio_lo < 1 && r.ratio_hi > 1);

  /* Three samples: too few, whatever they say. */
  const double a3[] = {1.0, 1.01, 0.99}, b3[] = {2.0, 2.01, 1.99};
  sl_cmp_samples(a3, 3, b3, 3, &o, &r);
  CHECK(r.verdict == SL_CMP_AMBIGUOUS && isnan(r.p));
  CHECK_CONTAINS(r.reason, "too few samples");
  CHECK(fabs(r.ratio - 2) < 1e-12); /* the ratio of the medians */

  /* A significant 2% change with 0.1% noise is below the threshold. */
  draw(5, 20, 1e-3, 0.001, a);
  draw(6, 20, 1.02e-3, 0.001, b);
  sl_cmp_samples(a, 20, b, 20, &o, &r);
  CHECK(r.verdict == SL_CMP_SAME && r.p < 1e-6);
  CHECK_CONTAINS(r.reason, "below the 5% threshold");
  /* ... and counts with a 1% threshold. */
  o.threshold = 0.01;
  sl_cmp_samples(a, 20, b, 20, &o, &r);
  CHECK(r.verdict == SL_CMP_SLOWER);
  o.threshold = 0.05;

  /* 8% slower but 30% noise: significant with 2000 samples, yet within
   * the noise (IQR of a normal is 1.35 sd, about 40% here). */
  draw(7, 2000, 1e-3, 0.3, a);
  draw(8, 2000, 1.08e-3, 0.3, b);
  sl_cmp_samples(a, 2000, b, 2000, &o, &r);
  CHECK_MSG(r.verdict == SL_CMP_AMBIGUOUS && r.p < 0.05, "%s: %s",
            sl_cmp_verdict_name(r.verdict), r.reason);
  CHECK_CONTAINS(r.reason, "within the noise");

  /* 10% slower with 20% noise and 5 samples: not significant. */
  draw(9, 5, 1e-3, 0.2, a);
  draw(10, 5, 1.1e-3, 0.2, b);
  sl_cmp_samples(a, 5, b, 5, &o, &r);
  CHECK_MSG(r.verdict == SL_CMP_AMBIGUOUS || r.verdict == SL_CMP_SAME, "%s: %s",
            sl_cmp_verdict_name(r.verdict), r.reason);
  CHECK(r.p > 0.05);
}

/* Two runs in one store: one benchmark 10% slower, one unchanged, one only
 * in the base run and one only in the candidate; rtt: the runs' core round
 * trips at their start (0: not probed); ref: their references (NULL: not
 * recorded). */
static int fill_refs(sl_store *s, int64_t *run1, int64_t *run2,
                     const double rtt[2], const char *const ref[2]) {
  sl_run_info ri;
  memset(&ri, 0, sizeof ri);
  ri.kind = "bench";
  static double v[64];
  int64_t runs[2], c;
  const char *line = "gather dt=f32 it=i64 x=64x8 index=64x8 dim=0 seed=1";
  for (int k = 0; k < 2; ++k) {
    ri.core_rtt_ns = rtt[k];
    ri.reference = ref[k];
    if (sl_store_run_begin(s, &ri, &runs[k]) || sl_store_begin(s) ||
        sl_store_add_case(s, runs[k], "gather", line, 1, 0, &c))
      return -1;
    draw(10 + k, 30, k ? 1.1e-3 : 1e-3, 0.005, v);
    sl_timing_row slow = {"cpu.omp", 2, 30, 0,   1e-3, 0,
                          1e-3,      1, -1, 100, v,    30};
    if (sl_store_add_timing(s, c, &slow, NULL)) return -1;
    draw(20 + k, 30, 2e-3, 0.005, v);
    sl_timing_row same = {"cpu.serial", 2, 30, 0,   2e-3, 0,
                          2e-3,         1, -1, 100, v,    30};
    if (sl_store_add_timing(s, c, &same, NULL)) return -1;
    sl_timing_row only = {
        k ? "cpu.new" : "cpu.old", 2, 30, 0, 2e-3, 0, 2e-3, 1, -1, 100, v, 30};
    if (sl_store_add_timing(s, c, &only, NULL) || sl_store_commit(s)) return -1;
  }
  *run1 = runs[0];
  *run2 = runs[1];
  return 0;
}

static int fill(sl_store *s, int64_t *run1, int64_t *run2,
                const double rtt[2]) {
  const char *const unrecorded[2] = {NULL, NULL};
  return fill_refs(s, run1, run2, rtt, unrecorded);
}

/* Compares base with cand, checks that the candidate's machine text ends
 * with `text` and that the warning is `warn` ("" for none). */
static void expect_machines(const sl_cmp_side *base, const sl_cmp_side *cand,
                            const char *text, const char *warn) {
  char err[512];
  sl_cmp_set set;
  CHECK(sl_cmp_runs(base, cand, NULL, &set, err, sizeof err) == 0);
  const size_t n = strlen(set.cand_machine), k = strlen(text);
  CHECK_MSG(n >= k && strcmp(set.cand_machine + n - k, text) == 0, "%s",
            set.cand_machine);
  CHECK_MSG(strcmp(set.machines_differ, warn) == 0, "%s", set.machines_differ);
  sl_cmp_set_free(&set);
}

static void test_runs(const char *path) {
  char err[512];
  sl_store *s = NULL;
  CHECK(sl_store_open(path, SL_STORE_READWRITE, &s, err, sizeof err) == 0);
  if (!s) return;
  int64_t r1 = 0, r2 = 0;
  const double unprobed[2] = {0, 0};
  CHECK_MSG(fill(s, &r1, &r2, unprobed) == 0, "%s", sl_store_errmsg(s));
  CHECK(sl_store_last_timed_run(s) == r2);
  sl_cmp_side base = {s, r1}, cand = {s, r2};
  sl_cmp_set set;
  CHECK_MSG(sl_cmp_runs(&base, &cand, NULL, &set, err, sizeof err) == 0, "%s",
            err);
  CHECK(set.n == 2 && set.only_base == 1 && set.only_cand == 1);
  CHECK(set.counts[SL_CMP_SLOWER] == 1 && set.counts[SL_CMP_SAME] == 1);
  /* Rows in variant order within the case: cpu.omp, cpu.serial. */
  if (set.n == 2) {
    CHECK(strcmp(set.rows[0].variant, "cpu.omp") == 0 &&
          set.rows[0].stat.verdict == SL_CMP_SLOWER);
    CHECK(strcmp(set.rows[1].variant, "cpu.serial") == 0 &&
          set.rows[1].stat.verdict == SL_CMP_SAME);
  }
  const sl_cmp_format fmts[] = {SL_CMP_TEXT, SL_CMP_MARKDOWN, SL_CMP_CSV,
                                SL_CMP_HTML};
  const char *want[] = {"1 slower, 0 faster, 1 same, 0 ambiguous",
                        "### scatterlab compare: **1 slower**",
                        "base_run,cand_run,case_line,variant,threads,cold,"
                        "n_base,n_cand,median_base_s,median_cand_s,ratio,"
                        "ratio_lo,ratio_hi,p_value,noise,verdict,reason\n",
                        "<td class=\"bad\">slower</td>"};
  for (int f = 0; f < 4; ++f) {
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    CHECK(sl_cmp_write(&set, NULL, fmts[f], m) == 0);
    fclose(m);
    CHECK_CONTAINS(buf, want[f]);
    if (fmts[f] == SL_CMP_TEXT)
      CHECK_CONTAINS(buf, "1 benchmark only in the base, 1 only in the "
                          "candidate");
    free(buf);
  }
  /* Text from a store in the markdown: a '|' escaped everywhere, HTML
   * outside code spans as entities (a variant or reason with a tag used to
   * be rendered by the pull-request page), unchanged inside them. */
  {
    char *saved_variant = set.rows[0].variant,
         *saved_line = set.rows[0].case_line;
    set.rows[0].variant = "my<b>lib</b>:cpu|x";
    set.rows[0].case_line = "gather x=<4> a|b";
    snprintf(set.rows[0].stat.reason, sizeof set.rows[0].stat.reason,
             "<img src=x onerror=alert(1)> & more");
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    CHECK(sl_cmp_write(&set, NULL, SL_CMP_MARKDOWN, m) == 0);
    fclose(m);
    CHECK_CONTAINS(buf, "| my&lt;b>lib&lt;/b>:cpu\\|x |");
    CHECK_CONTAINS(buf, "`gather x=<4> a\\|b`");
    CHECK_CONTAINS(buf, "&lt;img src=x onerror=alert(1)> &amp; more |");
    CHECK(buf && !strstr(buf, "<img") && !strstr(buf, "<b>"));
    free(buf);
    set.rows[0].variant = saved_variant;
    set.rows[0].case_line = saved_line;
  }
  /* Neither run recorded its machine: nothing to warn about. */
  CHECK(set.machines_differ[0] == '\0');
  CHECK_MSG(strcmp(set.base_machine, "?, ? cores, ? threads, copy ? GB/s, "
                                     "reference unknown") == 0,
            "%s", set.base_machine);
  sl_cmp_set_free(&set);
  /* Copy probes 1.8x apart (a shared VM's two levels), then 10% apart. */
  const double probes[2][2] = {{44.3, 79.8}, {44.3, 48.7}};
  for (int k = 0; k < 2; ++k) {
    CHECK(sl_store_set_copy_gbs(s, r1, probes[k][0]) == 0 &&
          sl_store_set_copy_gbs(s, r2, probes[k][1]) == 0);
    CHECK(sl_cmp_runs(&base, &cand, NULL, &set, err, sizeof err) == 0);
    CHECK_CONTAINS(set.cand_machine, k ? "copy 48.7 GB/s" : "copy 79.8 GB/s");
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    CHECK(sl_cmp_write(&set, NULL, SL_CMP_MARKDOWN, m) == 0);
    fclose(m);
    if (k == 0) {
      CHECK_MSG(
          strcmp(set.machines_differ, "copy bandwidth 44.3 vs 79.8 GB/s") == 0,
          "%s", set.machines_differ);
      CHECK_CONTAINS(buf, "> the two runs saw different machines (copy "
                          "bandwidth 44.3 vs 79.8 GB/s)");
    } else {
      CHECK(set.machines_differ[0] == '\0');
      CHECK(strstr(buf, "different machines") == NULL);
    }
    free(buf);
    sl_cmp_set_free(&set);
  }
  /* Probes close between the runs (44.3, 48.7) but the candidate's own
   * end probe 1.6x its start: the machine moved under it. Then 10%. */
  CHECK(sl_store_set_copy_gbs_end(s, r2, 79.0) == 0);
  expect_machines(&base, &cand, "copy 48.7 -> 79.0 GB/s, reference unknown",
                  "the candidate's copy bandwidth moved 48.7 -> 79.0 GB/s "
                  "during its run");
  CHECK(sl_store_set_copy_gbs_end(s, r2, 50.0) == 0);
  expect_machines(&base, &cand, "copy 48.7 -> 50.0 GB/s, reference unknown",
                  "");
  /* Round trips 4x apart between the runs (the threads' cores placed
   * otherwise), copy probes alike (none). */
  const double apart[2] = {90, 360};
  CHECK(fill(s, &base.run_id, &cand.run_id, apart) == 0);
  expect_machines(&base, &cand,
                  "?, ? cores, ? threads, copy ? GB/s, core round trip 360 ns, "
                  "reference unknown",
                  "core-to-core round trip 90 vs 360 ns: the threads ran on "
                  "cores placed otherwise");
  /* 1.3x apart: one placement. Then the candidate's own end 2.5x its start,
   * then 1.25x. */
  const double close[2] = {90, 120};
  CHECK(fill(s, &base.run_id, &cand.run_id, close) == 0);
  expect_machines(&base, &cand, "core round trip 120 ns, reference unknown",
                  "");
  CHECK(sl_store_set_core_rtt_end(s, cand.run_id, 300) == 0);
  expect_machines(&base, &cand,
                  "core round trip 120 -> 300 ns, reference unknown",
                  "the candidate's core-to-core round trip moved 120 -> 300 "
                  "ns during its run");
  CHECK(sl_store_set_core_rtt_end(s, cand.run_id, 150) == 0);
  expect_machines(&base, &cand,
                  "core round trip 120 -> 150 ns, reference unknown", "");
  /* Another LibTorch: named before the machine (round trips 90 vs 360 here
   * too), since every torch.cpu timing and ratio moves with it. Then one
   * run that recorded none. Then the same reference: nothing. */
  const char *const refs[2] = {
      "LibTorch 1.13.0 (Debian libtorch-dev 1.13.1+dfsg-4)",
      "LibTorch 2.11.0 (PyPI torch 2.11.0)"};
  CHECK(fill_refs(s, &base.run_id, &cand.run_id, apart, refs) == 0);
  expect_machines(&base, &cand,
                  "core round trip 360 ns, reference LibTorch 2.11.0 (PyPI "
                  "torch 2.11.0)",
                  "reference LibTorch 1.13.0 (Debian libtorch-dev "
                  "1.13.1+dfsg-4) vs LibTorch 2.11.0 (PyPI torch 2.11.0)");
  const char *const one_unknown[2] = {NULL, refs[1]};
  CHECK(fill_refs(s, &base.run_id, &cand.run_id, close, one_unknown) == 0);
  expect_machines(&base, &cand, "reference LibTorch 2.11.0 (PyPI torch 2.11.0)",
                  "reference unknown vs LibTorch 2.11.0 (PyPI torch 2.11.0)");
  const char *const same[2] = {refs[1], refs[1]};
  CHECK(fill_refs(s, &base.run_id, &cand.run_id, close, same) == 0);
  expect_machines(&base, &cand, "reference LibTorch 2.11.0 (PyPI torch 2.11.0)",
                  "");
  /* A run that does not exist. */
  cand.run_id = 99;
  CHECK(sl_cmp_runs(&base, &cand, NULL, &set, err, sizeof err) != 0);
  CHECK_CONTAINS(err, "no run 99");
  sl_store_close(s);
}

/* A bench run with one timing of the case every run shares, loading the
 * providers given (n of them). */
static int64_t run_with(sl_store *s, const sl_provider_record *p, int n) {
  sl_run_info ri;
  memset(&ri, 0, sizeof ri);
  ri.kind = "bench";
  ri.providers = p;
  ri.n_providers = n;
  static double v[30];
  int64_t run, c;
  draw(7, 30, 1e-3, 0.005, v);
  sl_timing_row t = {"cpu.omp", 2, 30, 0, 1e-3, 0, 1e-3, 1, -1, 100, v, 30};
  if (sl_store_run_begin(s, &ri, &run) || sl_store_begin(s) ||
      sl_store_add_case(s, run, "gather",
                        "gather dt=f32 it=i64 x=8 index=8 dim=0 seed=1", 1, 0,
                        &c) ||
      sl_store_add_timing(s, c, &t, NULL) || sl_store_commit(s))
    return -1;
  return run;
}

/* Compares runs a and b of s; returns the text output (caller frees). */
static char *compare_text(sl_store *s, int64_t a, int64_t b, sl_cmp_set *set) {
  char err[512];
  sl_cmp_side base = {s, a}, cand = {s, b};
  CHECK_MSG(sl_cmp_runs(&base, &cand, NULL, set, err, sizeof err) == 0, "%s",
            err);
  char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&buf, &len);
  CHECK(sl_cmp_write(set, NULL, SL_CMP_TEXT, m) == 0);
  fclose(m);
  return buf;
}

/*
 * compare names the kernels as a cause: the same providers by SHA-256 (a
 * change is not the kernels'), a rebuilt one, one loaded by one run only,
 * and nothing for a run that recorded none.
 */
static void test_kernels(const char *path) {
  char err[512];
  sl_store *s = NULL;
  CHECK(sl_store_open(path, SL_STORE_READWRITE, &s, err, sizeof err) == 0);
  if (!s) return;
  const char
      *A = "aaaaaaaaaaaa1111111111111111111111111111111111111111111111111111",
      *B = "bbbbbbbbbbbb2222222222222222222222222222222222222222222222222222";
  sl_provider_record own = {"scatterlab", "/x/libk.so.1", "0.1.0", A, 1, 65, 1,
                            NULL};
  sl_provider_record rebuilt = own,
                     mine = {"mylib", "/y/libmy.so", NULL, B, 1, 3, 0, NULL};
  rebuilt.sha256 = B;
  sl_provider_record two[2] = {own, mine};
  int64_t r1 = run_with(s, &own, 1), r2 = run_with(s, &own, 1),
          r3 = run_with(s, &rebuilt, 1), r4 = run_with(s, two, 2),
          r5 = run_with(s, NULL, 0);
  CHECK_MSG(r1 > 0 && r2 > 0 && r3 > 0 && r4 > 0 && r5 > 0, "%s",
            sl_store_errmsg(s));
  sl_cmp_set set;
  char *t = compare_text(s, r1, r2, &set);
  CHECK(set.kernels_same == 1 && set.kernels_differ[0] == '\0');
  CHECK_CONTAINS(t, "the same kernels ran in both runs");
  free(t), sl_cmp_set_free(&set);

  t = compare_text(s, r1, r3, &set);
  CHECK(set.kernels_same == 0);
  CHECK_MSG(strcmp(set.kernels_differ,
                   "provider scatterlab: sha256 aaaaaaaaaaaa vs "
                   "bbbbbbbbbbbb") == 0,
            "%s", set.kernels_differ);
  CHECK_CONTAINS(t, "the kernels differ: provider scatterlab: sha256");
  free(t), sl_cmp_set_free(&set);

  t = compare_text(s, r1, r4, &set);
  CHECK_MSG(strcmp(set.kernels_differ,
                   "provider mylib loaded by the candidate only") == 0,
            "%s", set.kernels_differ);
  free(t), sl_cmp_set_free(&set);
  t = compare_text(s, r4, r2, &set);
  CHECK_MSG(
      strcmp(set.kernels_differ, "provider mylib loaded by the base only") == 0,
      "%s", set.kernels_differ);
  free(t), sl_cmp_set_free(&set);

  t = compare_text(s, r1, r5, &set);
  CHECK(set.kernels_same == 0 && set.kernels_differ[0] == '\0');
  CHECK(strstr(t, "kernels") == NULL);
  free(t), sl_cmp_set_free(&set);
  sl_store_close(s);
}

/* compare --anchor: the candidate run's machine is 2x slower for every
 * kernel (torch.cpu, cpu.omp and cpu.serial all take twice as long) and
 * cpu.serial is 1.3x slower still on case 1; case 2 has no torch.cpu
 * timing. In seconds everything looks slower; against the anchor only
 * cpu.serial of case 1 is, and case 2 cannot be judged. */
static void test_anchor(const char *path) {
  char err[512];
  sl_store *s = NULL;
  CHECK(sl_store_open(path, SL_STORE_READWRITE, &s, err, sizeof err) == 0);
  if (!s) return;
  sl_run_info ri;
  memset(&ri, 0, sizeof ri);
  ri.kind = "bench";
  static double v[30];
  int64_t runs[2], c;
  const char *lines[2] = {
      "gather dt=f32 it=i64 x=64x8 index=64x8 dim=0 seed=1",
      "gather dt=f32 it=i64 x=64x8 index=64x8 dim=0 seed=2"};
  const char *variants[3] = {"torch.cpu", "cpu.omp", "cpu.serial"};
  for (int k = 0; k < 2; ++k) {
    CHECK(sl_store_run_begin(s, &ri, &runs[k]) == 0 && sl_store_begin(s) == 0);
    for (int l = 0; l < 2; ++l) {
      CHECK(sl_store_add_case(s, runs[k], "gather", lines[l], 1, 0, &c) == 0);
      for (int j = l; j < 3; ++j) { /* case 2: no torch.cpu */
        double t = 1e-3 * (k ? 2 : 1) * (k && l == 0 && j == 2 ? 1.3 : 1);
        draw((uint64_t)(100 + 10 * k + 3 * l + j), 30, t, 0.005, v);
        sl_timing_row row = {variants[j], 2, 30, 0, t, 0, t, 1, -1, 100, v, 30};
        CHECK(sl_store_add_timing(s, c, &row, NULL) == 0);
      }
    }
    CHECK(sl_store_commit(s) == 0);
  }
  sl_cmp_side base = {s, runs[0]}, cand = {s, runs[1]};
  sl_cmp_set set;
  sl_cmp_opts o;
  sl_cmp_opts_init(&o);
  /* In seconds: every one of the 5 benchmarks slower, torch.cpu too. */
  CHECK(sl_cmp_runs(&base, &cand, &o, &set, err, sizeof err) == 0);
  CHECK_MSG(set.n == 5 && set.counts[SL_CMP_SLOWER] == 5, "%d rows, %d slower",
            set.n, set.counts[SL_CMP_SLOWER]);
  sl_cmp_set_free(&set);
  o.anchor = "torch.cpu";
  CHECK_MSG(sl_cmp_runs(&base, &cand, &o, &set, err, sizeof err) == 0, "%s",
            err);
  CHECK(strcmp(set.anchor, "torch.cpu") == 0);
  /* The anchor's own row is not judged: 4 rows, none only on one side. */
  CHECK_MSG(set.n == 4 && set.only_base == 0 && set.only_cand == 0,
            "%d rows, %d/%d only", set.n, set.only_base, set.only_cand);
  for (int i = 0; i < set.n; ++i) {
    const sl_cmp_row *r = &set.rows[i];
    const int case1 = strstr(r->case_line, "seed=1") != NULL;
    const int serial = strcmp(r->variant, "cpu.serial") == 0;
    sl_cmp_verdict want = !case1   ? SL_CMP_AMBIGUOUS
                          : serial ? SL_CMP_SLOWER
                                   : SL_CMP_SAME;
    CHECK_MSG(r->stat.verdict == want, "%s %s: %s (%s)", r->variant,
              r->case_line, sl_cmp_verdict_name(r->stat.verdict),
              r->stat.reason);
    if (case1)
      CHECK_MSG(fabs(r->stat.ratio - (serial ? 1.3 : 1.0)) < 0.02, "ratio %g",
                r->stat.ratio);
    else
      CHECK_CONTAINS(r->stat.reason, "no torch.cpu timing of this case in "
                                     "the base run");
  }
  char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&buf, &len);
  CHECK(sl_cmp_write(&set, &o, SL_CMP_TEXT, m) == 0);
  fclose(m);
  CHECK_CONTAINS(buf, "times are ratios to torch.cpu's median");
  CHECK_CONTAINS(buf, "1.000x");
  free(buf);
  sl_cmp_set_free(&set);
  /* An anchor neither run timed is an error naming it. */
  o.anchor = "torch.cuda";
  CHECK(sl_cmp_runs(&base, &cand, &o, &set, err, sizeof err) != 0);
  CHECK_CONTAINS(err, "--anchor torch.cuda: expected timings of it in both "
                      "runs, the base run");
  sl_store_close(s);
}

int main(void) {
  test_samples();
  char dir[] = "/tmp/sl_compare_XXXXXX";
  if (!mkdtemp(dir)) return 1;
  char path[64];
  snprintf(path, sizeof path, "%s/c.db", dir);
  test_runs(path);
  snprintf(path, sizeof path, "%s/k.db", dir);
  test_kernels(path);
  snprintf(path, sizeof path, "%s/a.db", dir);
  test_anchor(path);
  sl_test_remove_dir(dir);
  return sl_test_finish("test_compare");
}
