/*
 * Golden tests of the reports: a small store built here, always the same
 * (fixed timestamps, fixed values), exported as CSV (every table), HTML,
 * a comparison and a history, each compared byte for byte with the files
 * in reports/tests/golden/. A deliberate change of a report is accepted by
 * running the test with SL_UPDATE_GOLDEN=1 and reviewing the diff.
 *
 * Besides the byte comparison, the properties a reader relies on are
 * checked directly, with values worked out by hand from the store below:
 * escaping, self-containment, the minimal repro line, speed-up, GB/s,
 * % of peak, the change point and the compare verdicts.
 *
 * The store:
 *   run 1 (run)   case 1 gather f32: cpu.serial passed, cpu.omp failed with
 *                 a message full of HTML specials; case 2 scatter_reduce
 *                 f64: cpu.serial passed, cpu.atomic crashed (in a failure
 *                 group; case 1's failure has none, as before schema 9);
 *                 case 3, shrunk from case 2: cpu.atomic crashed.
 *   run 2 (fuzz)  case 4 gather i32: cpu.serial passed, cpu.omp
 *                 mistrusted; coverage: two gather cells (one added twice,
 *                 10 + 2 cases, one of 4), a failing scatter_reduce cell
 *                 with HTML specials in its reduce field, and a name without
 *                 fields ("legacy/cell"). Left running.
 *   runs 3-7      index_reduce amin x=64x1 (N = 4096, 64 points per
 *   (bench)       destination): torch.cpu 50 us; cpu.atomic 10 us in runs
 *                 3-5 and 12 us in runs 6-7 (a 20% step at run 6).
 *   run 8 (bench) the contention sweep: M = 1, 64, 4096 rows of width
 *                 C = 1, 8 (points per destination 4096, 64, 1) for
 *                 torch.cpu (50 us x C'), cpu.atomic (100, 12, 10 us) and
 *                 cpu.sorted (30 us); C' = 1 for C = 1 and 4 for C = 8.
 * Every timing has 7 samples median x (1 + 0.001 k), k = -3..3; 100000
 * useful bytes; the runs' copy bandwidth is 10 GB/s.
 * Providers: run 1 recorded none (before schema 7); runs 2-7 the built-in
 * kernels library alone; run 8 also mylib 1.2 and fastk (no version text,
 * an '&' in its path).
 */
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sl_report.h"
#include "sl_store.h"
#include "sl_test.h"

#ifndef SL_REPORTS_TESTS_DIR
#define SL_REPORTS_TESTS_DIR "reports/tests"
#endif

/* Coverage cells in the fuzzer's form (fuzz/casegen.h). */
#define GATHER_I32 "gather|i32|-|-|i32|c|rank2|dup|rand|valid"
#define SR_ESCAPED "scatter_reduce|f64|<b>&|self1|i64|c|rank3|rand|nan|valid"
static const char msg_html[] =
    "out[1,2]=3, expected 4 <script>alert(\"x\")</script> & 'more'";
static const char line_big[] =
    "scatter_reduce dt=f64 it=i64 x=8x4 index=6x4 src=6x4 dim=0 reduce=sum "
    "seed=2";
/* A failure group signature as harness/engine/failure_group.c writes it. */
#define SIG_CRASH                                                              \
  "scatter_reduce cpu.atomic crashed | f64 [N,N] [N,N] [N,N] | signal # "      \
  "(SIGSEGV)"
static const char line_min[] = "scatter_reduce dt=f64 it=i64 x=1x1 index=1x1 "
                               "src=1x1 dim=0 reduce=sum seed=2";

#define SHA_BUILTIN                                                            \
  "5f4e3d2c1b0a99887766554433221100aabbccddeeff00112233445566778899"
#define SHA_MYLIB                                                              \
  "0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9"
#define SHA_FASTK                                                              \
  "ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100"
static const sl_provider_record providers[3] = {
    {"scatterlab", "/opt/sl/lib/libscatterlab_kernels.so", "0.1.0", SHA_BUILTIN,
     1u, 57, 1, NULL},
    {"mylib", "/home/u/mylib/libmylib.so", "1.2", SHA_MYLIB, 1u, 3, 0, NULL},
    {"fastk", "/opt/k&k/libfastk.so", NULL, SHA_FASTK, 1u, 1, 0, NULL}};
/* Run 8's cell, the widest: the text table's providers column is as wide. */
static const char run8_providers[] =
    "scatterlab (built-in); mylib 1.2 sha256:0a1b2c3d4e5f; fastk "
    "sha256:ffeeddccbbaa";

/* Runs 1-5 are built from one commit, runs 6 on from the next: the
 * history's change point at run 6 names both. Run 8 is built from that
 * commit with uncommitted changes ("-dirty"). */
static int run_begin(sl_store *s, const char *kind, int64_t *id) {
  static int runs;
  sl_run_info ri;
  memset(&ri, 0, sizeof ri);
  ri.kind = kind;
  ri.command_line = "scatterlab golden";
  ++runs;
  ri.git_commit = runs < 6   ? "0123456789abcdef0123"
                  : runs < 8 ? "fedcba9876543210fedc"
                             : "fedcba9876543210fedc-dirty";
  ri.host = "host-1";
  ri.cpu_model = "Example CPU @ 3.0GHz";
  ri.compiler = "GNU 12.2.0";
  ri.flags = "Release";
  ri.version = "0.1.0";
  ri.cores = 4;
  ri.threads = 2;
  ri.copy_gbs = 10;
  ri.core_rtt_ns = 90;
  /* Run 1 recorded no reference (before schema 6): "unknown". */
  ri.reference = runs == 1 ? NULL : "LibTorch 2.11.0 (PyPI torch <2.11.0>)";
  ri.providers = runs == 1 ? NULL : providers;
  ri.n_providers = runs == 1 ? 0 : runs < 8 ? 1 : 3;
  return sl_store_run_begin(s, &ri, id) || sl_store_begin(s);
}

static int result(sl_store *s, int64_t case_id, const char *variant,
                  const char *verdict, const char *msg) {
  sl_result_row r = {variant, verdict, msg, 0, 0, 0, 0, 1e-3};
  if (strcmp(verdict, "failed") == 0) {
    r.has_diffs = 1;
    r.diff1 = 0.1;
    r.diff2 = 0.2;
    r.diff3 = 3;
  }
  return sl_store_add_result(s, case_id, &r);
}

/* A timing of `median` seconds with the 7 samples of the header comment. */
static int timing(sl_store *s, int64_t case_id, const char *variant,
                  double median) {
  double v[7];
  for (int k = -3; k <= 3; ++k) v[k + 3] = median * (1 + 0.001 * k);
  double gbs = 100000 / median / 1e9;
  sl_timing_row t = {variant, 2,   7,        0,      median, 0.003 * median,
                     v[0],    gbs, 10 * gbs, 100000, v,      7};
  return sl_store_add_timing(s, case_id, &t, NULL);
}

static int contention_case(sl_store *s, int64_t run, int m, int c,
                           int64_t *id) {
  char line[256];
  snprintf(line, sizeof line,
           "index_reduce dt=f32 it=i64 x=%dx%d index=4096 updates=4096x%d "
           "dim=0 reduce=amin self=0 seed=%d",
           m, c, c, c);
  return sl_store_add_case(s, run, "index_reduce", line, (uint64_t)c, 0, id);
}

static int fill(sl_store *s) {
  int64_t run, c1, c2, c3, c4, c;
  int bad = run_begin(s, "run", &run);
  bad = bad ||
        sl_store_add_case(s, run, "gather",
                          "gather dt=f32 it=i64 x=4x3 index=2x3 dim=0 "
                          "seed=1",
                          1, 0, &c1) ||
        result(s, c1, "cpu.serial", "passed", "") ||
        result(s, c1, "cpu.omp", "failed", msg_html);
  bad = bad ||
        sl_store_add_case(s, run, "scatter_reduce", line_big, 2, 0, &c2) ||
        result(s, c2, "cpu.serial", "passed", "") ||
        result(s, c2, "cpu.atomic", "crashed", "signal 11 (SIGSEGV)") ||
        sl_store_set_signature(s, c2, "cpu.atomic", SIG_CRASH);
  bad = bad ||
        sl_store_add_case(s, run, "scatter_reduce", line_min, 2, c2, &c3) ||
        result(s, c3, "cpu.atomic", "crashed", "signal 11 (SIGSEGV)");
  bad = bad || sl_store_commit(s) || sl_store_run_finish(s, run, "finished");

  bad = bad || run_begin(s, "fuzz", &run);
  bad = bad ||
        sl_store_add_case(s, run, "gather",
                          "gather dt=i32 it=i32 x=5x5 index=5x5 dim=1 "
                          "ip=dup50 seed=3",
                          3, 0, &c4) ||
        result(s, c4, "cpu.serial", "passed", "") ||
        result(s, c4, "cpu.omp", "mistrusted", "indices never collide");
  bad = bad || sl_store_add_coverage(s, run, GATHER_I32, 10, 0) ||
        sl_store_add_coverage(
            s, run, "gather|f32|-|-|i64|t|rank2|rand|rand|valid", 4, 0) ||
        sl_store_add_coverage(s, run, SR_ESCAPED, 5, 1) ||
        sl_store_add_coverage(s, run, GATHER_I32, 2, 0) ||
        sl_store_add_coverage(s, run, "legacy/cell", 1, 0) ||
        sl_store_commit(s);

  for (int r = 3; r <= 7; ++r) {
    /* Run 6's threads moved to cores placed otherwise during the run. */
    bad = bad || run_begin(s, "bench", &run) ||
          (r == 6 && sl_store_set_core_rtt_end(s, run, 400)) ||
          contention_case(s, run, 64, 1, &c) ||
          result(s, c, "cpu.atomic", "passed", "") ||
          timing(s, c, "torch.cpu", 50e-6) ||
          timing(s, c, "cpu.atomic", r < 6 ? 10e-6 : 12e-6) ||
          sl_store_commit(s) || sl_store_run_finish(s, run, "finished");
  }
  bad = bad || run_begin(s, "bench", &run);
  static const int ms[] = {1, 64, 4096}, cs[] = {1, 8};
  static const double atomic_us[] = {100, 12, 10};
  for (int ci = 0; ci < 2; ++ci)
    for (int mi = 0; mi < 3; ++mi) {
      double scale = cs[ci] == 1 ? 1 : 4;
      bad = bad || contention_case(s, run, ms[mi], cs[ci], &c) ||
            result(s, c, "cpu.atomic", "passed", "") ||
            result(s, c, "cpu.sorted", "passed", "") ||
            timing(s, c, "torch.cpu", 50e-6 * scale) ||
            timing(s, c, "cpu.atomic", atomic_us[mi] * 1e-6 * scale) ||
            timing(s, c, "cpu.sorted", 30e-6 * scale);
    }
  bad = bad || sl_store_commit(s) || sl_store_run_finish(s, run, "finished");
  if (bad) fprintf(stderr, "fill: %s\n", sl_store_errmsg(s));
  return bad ? -1 : 0;
}

/* The store stamps runs with the current time; a golden file cannot. */
static int fix_timestamps(const char *path) {
  sqlite3 *db;
  if (sqlite3_open(path, &db) != SQLITE_OK) return -1;
  char *msg = NULL;
  int rc = sqlite3_exec(
      db,
      "UPDATE runs SET started_at = printf('2024-05-01T12:%02d:00.000Z', id),"
      " finished_at = CASE WHEN finished_at IS NULL THEN NULL ELSE"
      " printf('2024-05-01T12:%02d:30.000Z', id) END",
      NULL, NULL, &msg);
  if (rc != SQLITE_OK) fprintf(stderr, "fix_timestamps: %s\n", msg);
  sqlite3_free(msg);
  sqlite3_close(db);
  return rc == SQLITE_OK ? 0 : -1;
}

/* Compares text with golden/<name>, or rewrites it under SL_UPDATE_GOLDEN. */
static void golden(const char *name, const char *text) {
  char path[512];
  snprintf(path, sizeof path, "%s/golden/%s", SL_REPORTS_TESTS_DIR, name);
  if (getenv("SL_UPDATE_GOLDEN")) {
    FILE *f = fopen(path, "w");
    CHECK_MSG(f && fputs(text, f) >= 0 && fclose(f) == 0, "cannot write %s",
              path);
    printf("updated %s\n", path);
    return;
  }
  FILE *f = fopen(path, "r");
  CHECK_MSG(f != NULL, "%s missing (SL_UPDATE_GOLDEN=1 creates it)", path);
  if (!f) return;
  char *want = NULL;
  size_t cap = 0, n = 0;
  for (;;) {
    if (n + 4096 + 1 > cap) {
      cap = 2 * cap + 8192;
      char *p = realloc(want, cap);
      if (!p) break;
      want = p;
    }
    size_t got = fread(want + n, 1, 4096, f);
    n += got;
    if (got == 0) break;
  }
  fclose(f);
  if (!want) return;
  want[n] = '\0';
  size_t i = 0;
  while (want[i] && want[i] == text[i]) ++i;
  int same = want[i] == text[i];
  if (!same) {
    int line = 1;
    for (size_t k = 0; k < i; ++k) line += want[k] == '\n';
    char out[600];
    snprintf(out, sizeof out, "/tmp/sl_golden_%s", name);
    FILE *o = fopen(out, "w");
    if (o) {
      fputs(text, o);
      fclose(o);
    }
    CHECK_MSG(same, "%s differs from %s at line %d (output kept in %s)", name,
              path, line, out);
  }
  free(want);
}

typedef int (*table_fn)(sl_store *, int64_t, FILE *, char *, size_t);

static char *capture_table(table_fn fn, sl_store *s) {
  char *buf = NULL, err[512];
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  CHECK_MSG(fn(s, 0, f, err, sizeof err) == 0, "%s", err);
  fclose(f);
  return buf;
}

static void check_html(const char *html) {
  /* Every string from the store escaped; nothing loaded from elsewhere. */
  CHECK(strstr(html, "<script") == NULL);
  CHECK_CONTAINS(html, "expected 4 &lt;script&gt;alert(&quot;x&quot;)&lt;/"
                       "script&gt; &amp; &#39;more&#39;");
  CHECK_CONTAINS(html, "scatter_reduce|f64|&lt;b&gt;&amp;|self1|i64|c|"
                       "rank3|rand|nan|valid");
  CHECK(strstr(html, "http:") == NULL && strstr(html, "https:") == NULL);
  CHECK(strstr(html, "src=\"") == NULL && strstr(html, "<link") == NULL &&
        strstr(html, "@import") == NULL && strstr(html, "url(") == NULL);
  /* The crash's minimal repro is the shrunk case, not the original. */
  CHECK_CONTAINS(html, "<code>scatterlab run 'scatter_reduce dt=f64 it=i64 "
                       "x=1x1 index=1x1 src=1x1 dim=0 reduce=sum seed=2' "
                       "--variants cpu.atomic</code>");
  /* Failures by group, counted as report --failures counts them: the
   * crash's group (1 case: its shrunk copy is no extra failure), then
   * case 1's failure, stored without a signature, under its own heading. */
  CHECK_CONTAINS(html, "<span class=\"bad\">1 defect in 1 failure group, "
                       "1 failing case</span>");
  /* The group under its defect's row: its own signature, as none was
   * recorded for it. */
  CHECK_CONTAINS(html, "<tr class=\"defect\"><td colspan=\"7\">defect 1: "
                       "<code>scatter_reduce cpu.atomic crashed");
  CHECK_CONTAINS(html, "<tr title=\"scatter_reduce cpu.atomic crashed | f64 "
                       "[N,N] [N,N] [N,N] | signal # (SIGSEGV)\"><td "
                       "class=\"n\">1</td><td class=\"bad\">crashed</td>");
  CHECK_CONTAINS(html, "<td class=\"n\">1</td></tr>"); /* seen in run 1 */
  CHECK_CONTAINS(html, "shrunk from <code>scatter_reduce dt=f64 it=i64 x=8x4");
  CHECK_CONTAINS(html, "<h3>Failures stored without a group (before schema "
                       "9)</h3>");
  CHECK(strstr(html, "<tr title=\"scatter_reduce") <
        strstr(html, "Failures stored without a group"));
  /* Coverage by axis: gather's two cells, 12 + 4 cases, its dtype axis
   * i32 summed over the cell added twice (10 + 2); the failing cell's value
   * escaped and marked; the name without fields counted as an op of its
   * own; the failing cell listed by name. */
  CHECK_CONTAINS(html, "<tr><td>gather</td><td class=\"n\">2</td>"
                       "<td class=\"n\">16</td><td class=\"n\">0</td>"
                       "<td>f32&nbsp;4<br>i32&nbsp;12</td>");
  CHECK_CONTAINS(html, "<span class=\"bad\">&lt;b&gt;&amp;&nbsp;5 (1 "
                       "failed)</span>");
  CHECK_CONTAINS(html, "<tr><td>legacy/cell</td><td class=\"n\">1</td>");
  CHECK_CONTAINS(html, "<h3>Cells with failures (1)</h3>");
  CHECK_CONTAINS(html, "<tr class=\"bad\"><td>scatter_reduce|f64|&lt;b&gt;"
                       "&amp;|self1|i64|c|rank3|rand|nan|valid</td>"
                       "<td class=\"n\">5</td><td class=\"n\">1</td>");
  /* Run 8, x=64x1: torch.cpu 50 us over cpu.atomic 12 us is 4.17x; 1e5
   * bytes in 12 us is 8.33 GB/s, 83.3% of 10 GB/s. */
  CHECK_CONTAINS(html, "<tr class=\"win\"><td>cpu.atomic <span "
                       "class=\"win\">&#9733; fastest, 4.17x</span></td>"
                       "<td class=\"n\">12.0 us</td>"
                       "<td class=\"n\">0.3%</td><td class=\"n\">8.33</td>"
                       "<td class=\"n\">83.3%</td>"
                       "<td class=\"n good\">4.17x</td>");
  /* The contention figure with a panel per row width, and the history's
   * change point: run 6, 10 us -> 12 us. */
  CHECK_CONTAINS(html, "index_reduce reduce=amin dt=f32 ip=rand self=0, 2 "
                       "threads, warm");
  CHECK_CONTAINS(html, "row width C = 1");
  CHECK_CONTAINS(html, "row width C = 8");
  CHECK_CONTAINS(html, "<td class=\"n\">6</td><td class=\"n\">10.0 us</td>"
                       "<td class=\"n\">12.0 us</td>"
                       "<td class=\"n bad\">+20.0%</td>");
  /* The summary: cpu.omp on gather f32 failed once. */
  CHECK_CONTAINS(html, "<td>gather</td><td>f32</td><td>cpu.omp</td>");
  /* At a glance: the failing rows before the failures section; a row
   * without failures (gather i32 cpu.serial) only in the details. */
  const char *details = strstr(html, "<h2 id=\"details\">");
  const char *ok_row = strstr(html, "<td>gather</td><td>i32</td>"
                                    "<td>cpu.serial</td>");
  CHECK(details && ok_row && ok_row > details);
  CHECK(strstr(html, "<h2 id=\"summary\">") <
        strstr(html, "<h2 id=\"failures\">"));
  CHECK(strstr(html, "<h2 id=\"failures\">") <
        strstr(html, "<h2 id=\"timings\">"));
  /* IQR bars on the charts; the change point's size in its caption; the
   * bench summary and the contention grid (M = 1, 64, 4096 by C = 1, 8). */
  CHECK_CONTAINS(html, "<path class=\"errbar\"");
  CHECK_CONTAINS(html, "+20.0%</span> at run 6");
  CHECK_CONTAINS(html, "<h3 id=\"bench-summary\">");
  CHECK_CONTAINS(html, "geometric mean");
  CHECK_CONTAINS(html, "M \\ C");
}

int main(void) {
  char dir[] = "/tmp/sl_golden_XXXXXX";
  if (!mkdtemp(dir) || chdir(dir) != 0) {
    perror(dir);
    return 1;
  }
  /* A relative path: the reports name the store, and the name must not
   * depend on where the test ran. */
  const char *path = "golden.db";
  char err[512];
  sl_store *s = NULL;
  CHECK_MSG(sl_store_open(path, SL_STORE_READWRITE, &s, err, sizeof err) == 0,
            "%s", err);
  CHECK(s && fill(s) == 0);
  sl_store_close(s);
  CHECK(fix_timestamps(path) == 0);
  s = NULL;
  CHECK_MSG(sl_store_open(path, SL_STORE_READONLY, &s, err, sizeof err) == 0,
            "%s", err);
  if (s) {
    static const struct {
      const char *name;
      table_fn fn;
    } tables[] = {{"results.csv", sl_report_csv_results},
                  {"timings.csv", sl_report_csv_timings},
                  {"coverage.csv", sl_report_csv_coverage},
                  {"runs.csv", sl_report_csv_runs}};
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; ++i) {
      char *t = capture_table(tables[i].fn, s);
      if (t) golden(tables[i].name, t);
      free(t);
    }
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK_MSG(sl_report_html(s, NULL, f, err, sizeof err) == 0, "%s", err);
    fclose(f);
    if (buf) {
      golden("report.html", buf);
      check_html(buf);
      /* A table shortens the hash but keeps "-dirty": run 8's code is not
       * that commit's. */
      CHECK_CONTAINS(buf, "<td>fedcba987654</td>");
      CHECK_CONTAINS(buf, "<td>fedcba987654-dirty</td>");
      /* The reference, its HTML specials escaped; run 1's unknown. */
      CHECK_CONTAINS(buf,
                     "<td>LibTorch 2.11.0 (PyPI torch &lt;2.11.0&gt;)</td>");
      CHECK_CONTAINS(buf, "<td>unknown</td>");
      /* The providers: run 1 none; run 8 three, the brief form in the
       * cell, everything in its title (escaped, one line each: the line
       * breaks as &#10;, so that the row stays one line of the file). */
      CHECK_CONTAINS(buf, "<td>unknown</td><td>-</td><td>host-1</td>");
      CHECK_CONTAINS(
          buf, "<td title=\"scatterlab 0.1.0 (built-in): "
               "/opt/sl/lib/libscatterlab_kernels.so, ABI 1, 57 variants, "
               "sha256 " SHA_BUILTIN "\">scatterlab (built-in)</td>");
      CHECK_CONTAINS(
          buf,
          "<td title=\"scatterlab 0.1.0 (built-in): "
          "/opt/sl/lib/libscatterlab_kernels.so, ABI 1, 57 variants, "
          "sha256 " SHA_BUILTIN "&#10;mylib 1.2: /home/u/mylib/libmylib.so, "
          "ABI 1, 3 variants, sha256 " SHA_MYLIB
          "&#10;fastk: /opt/k&amp;k/libfastk.so, ABI 1, 1 variant, "
          "sha256 " SHA_FASTK "\">scatterlab (built-in); mylib 1.2 "
          "sha256:0a1b2c3d4e5f; fastk sha256:ffeeddccbbaa</td>");
    }
    free(buf);
    buf = NULL;
    f = open_memstream(&buf, &len);
    CHECK_MSG(sl_report_runs(s, 0, f, err, sizeof err) == 0, "%s", err);
    fclose(f);
    if (buf) {
      /* The providers column is as wide as run 8's cell; the commands line
       * up after it. */
      const int w = (int)strlen(run8_providers);
      char want[512];
      snprintf(want, sizeof want, "%-*s  command\n", w, "providers");
      CHECK_CONTAINS(buf, want);
      snprintf(want, sizeof want,
               "  0123456789ab        unknown           %-*s  "
               "scatterlab golden\n",
               w, "-");
      CHECK_CONTAINS(buf, want);
      snprintf(want, sizeof want,
               "  fedcba987654        LibTorch 2.11.0   %-*s  "
               "scatterlab golden\n",
               w, "scatterlab (built-in)");
      CHECK_CONTAINS(buf, want);
      snprintf(want, sizeof want,
               "  fedcba987654-dirty  LibTorch 2.11.0   %s  "
               "scatterlab golden\n",
               run8_providers);
      CHECK_CONTAINS(buf, want);
    }
    free(buf);

    /* Runs 5 and 6: cpu.atomic 10 us -> 12 us, seven samples each with no
     * overlap (U = 0: p = erfc(24 / sqrt(49 * 15 / 12) / sqrt 2) = 0.0022)
     * is slower; torch.cpu, the same samples on both sides, is the same. */
    sl_cmp_side b = {s, 5}, c = {s, 6};
    sl_cmp_set set;
    CHECK_MSG(sl_cmp_runs(&b, &c, NULL, &set, err, sizeof err) == 0, "%s", err);
    CHECK(set.n == 2 && set.counts[SL_CMP_SLOWER] == 1 &&
          set.counts[SL_CMP_SAME] == 1);
    buf = NULL;
    f = open_memstream(&buf, &len);
    CHECK(sl_cmp_write(&set, NULL, SL_CMP_MARKDOWN, f) == 0);
    fclose(f);
    if (buf) {
      golden("compare.md", buf);
      CHECK_CONTAINS(buf, "| **slower** | cpu.atomic | 2 | 10.0 us | 12.0 "
                          "us | 1.200 |");
      CHECK_CONTAINS(buf, "| 0.0022 |");
    }
    free(buf);
    sl_cmp_set_free(&set);

    buf = NULL;
    f = open_memstream(&buf, &len);
    sl_hist_opts ho;
    sl_hist_opts_init(&ho);
    ho.all = 1;
    CHECK(sl_report_history(s, &ho, f, err, sizeof err) == 1);
    fclose(f);
    if (buf) {
      golden("history.txt", buf);
      CHECK_CONTAINS(buf, "  runs 3-5 (3): 10.0 us\n"
                          "  runs 6-8 (3): 12.0 us  +20.0% from run 6 (commit "
                          "fedcba9876543210fedc; run 5: 0123456789abcdef0123)"
                          "\n      machines differ between runs 5 and 6: the "
                          "later run's core-to-core round trip moved 90 -> "
                          "400 ns during its run\n");
    }
    free(buf);
    sl_store_close(s);
  }
  if (chdir("/") == 0) {
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
  }
  return sl_test_finish("test_golden");
}
