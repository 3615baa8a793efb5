/* The suspects history names at a change point (sl__hist_cause_of): the
 * commits on either side, whether one commit built both runs (and whether
 * that commit was clean), and the machines. One benchmark, 10 us in runs
 * 1-3 and 12 us in runs 4-6: one change point, at run 4. And --anchor:
 * a machine 1.2x slower from run 4 on cancels in the ratios to torch.cpu. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "history.h"
#include "sl_test.h"

/* A store whose run r (1-6) records commit[r - 1], round trip rtt_at_4 at
 * run 4 (90 ns elsewhere) and, when sha_from_4 is not NULL, the provider
 * "scatterlab" with SHA-256 "aaa..." in runs 1-3 and sha_from_4 after. */
static sl_store *make(const char *path, const char *const commit[6],
                      double rtt_at_4, const char *sha_from_4) {
  char err[512];
  sl_store *s = NULL;
  if (sl_store_open(path, SL_STORE_READWRITE, &s, err, sizeof err)) return NULL;
  static double v[8];
  for (int r = 1; r <= 6; ++r) {
    sl_run_info ri;
    memset(&ri, 0, sizeof ri);
    ri.kind = "bench";
    ri.git_commit = commit[r - 1];
    ri.threads = 2;
    ri.core_rtt_ns = r == 4 ? rtt_at_4 : 90;
    sl_provider_record p = {
        "scatterlab",
        "/x/libscatterlab_kernels.so.1",
        NULL,
        r <= 3 ? "aaaaaaaaaaaa1111111111111111111111111111111111111111111111111"
                 "111"
               : sha_from_4,
        1,
        65,
        1,
        NULL};
    ri.providers = sha_from_4 ? &p : NULL;
    ri.n_providers = sha_from_4 ? 1 : 0;
    const double t = r <= 3 ? 10e-6 : 12e-6;
    for (int i = 0; i < 8; ++i) v[i] = t;
    sl_timing_row row = {"cpu.omp", 2, 8, 0, t, 0, t, 1, -1, 100, v, 8};
    int64_t run, c;
    if (sl_store_run_begin(s, &ri, &run) || sl_store_begin(s) ||
        sl_store_add_case(s, run, "gather", "gather x=4 index=4", 1, 0, &c) ||
        sl_store_add_timing(s, c, &row, NULL) || sl_store_commit(s)) {
      sl_store_close(s);
      return NULL;
    }
  }
  return s;
}

/* The cause of the one change point of the store's one benchmark. */
static int cause(sl_store *s, sl__hist_cause *c) {
  char err[512];
  sl__hist_set set;
  if (sl__hist_build(s, NULL, 3, NULL, &set, err, sizeof err)) return -1;
  int rc = set.n == 1 && set.v[0].ncps == 1
               ? sl__hist_cause_of(s, &set.v[0], 1, c)
               : -1;
  sl__hist_set_free(&set);
  return rc;
}

/* --anchor: runs 1-6 time torch.cpu, cpu.omp and cpu.atomic on one case;
 * from run 4 the machine is 1.2x slower (every time x 1.2) and cpu.atomic
 * is itself 1.5x slower on top. On ratios to torch.cpu only cpu.atomic
 * moves (0.2 -> 0.3, +50%); on seconds both do. */
static sl_store *make_anchored(const char *path) {
  char err[512];
  sl_store *s = NULL;
  if (sl_store_open(path, SL_STORE_READWRITE, &s, err, sizeof err)) return NULL;
  static double v[3][8];
  static const char *const names[3] = {"torch.cpu", "cpu.omp", "cpu.atomic"};
  for (int r = 1; r <= 6; ++r) {
    sl_run_info ri;
    memset(&ri, 0, sizeof ri);
    ri.kind = "bench";
    ri.threads = 2;
    const double machine = r <= 3 ? 1.0 : 1.2;
    const double t[3] = {50e-6 * machine, 10e-6 * machine,
                         10e-6 * machine * (r <= 3 ? 1.0 : 1.5)};
    int64_t run, c;
    int bad =
        sl_store_run_begin(s, &ri, &run) || sl_store_begin(s) ||
        sl_store_add_case(s, run, "gather", "gather x=4 index=4", 1, 0, &c);
    for (int k = 0; k < 3 && !bad; ++k) {
      for (int i = 0; i < 8; ++i) v[k][i] = t[k];
      sl_timing_row row = {names[k], 2, 8,  0,   t[k], 0,
                           t[k],     1, -1, 100, v[k], 8};
      bad = sl_store_add_timing(s, c, &row, NULL);
    }
    if (bad || sl_store_commit(s)) {
      sl_store_close(s);
      return NULL;
    }
  }
  return s;
}

static const sl__hist *find(const sl__hist_set *set, const char *variant) {
  for (int i = 0; i < set->n; ++i)
    if (strcmp(set->v[i].variant, variant) == 0) return &set->v[i];
  return NULL;
}

static void check_anchor(const char *dir) {
  char path[96], err[512];
  snprintf(path, sizeof path, "%s/anchor.db", dir);
  sl_store *s = make_anchored(path);
  CHECK(s != NULL);
  if (!s) return;
  sl__hist_set set;
  /* Seconds: the machine's step is a change point of every series. */
  CHECK(sl__hist_build(s, NULL, 3, NULL, &set, err, sizeof err) == 0);
  const sl__hist *omp = find(&set, "cpu.omp");
  CHECK(set.n == 3 && omp && omp->ncps == 1);
  sl__hist_set_free(&set);
  /* Ratios to torch.cpu: the anchor's own series is left out, cpu.omp
   * stays at 0.2 throughout, cpu.atomic moves from 0.2 to 0.3. */
  CHECK(sl__hist_build(s, NULL, 3, "torch.cpu", &set, err, sizeof err) == 0);
  omp = find(&set, "cpu.omp");
  const sl__hist *atomic = find(&set, "cpu.atomic");
  CHECK(set.n == 2 && !find(&set, "torch.cpu"));
  CHECK(omp && omp->n == 6 && omp->ncps == 0 &&
        fabs(omp->median[5] - 0.2) < 1e-9);
  CHECK(atomic && atomic->ncps == 1 && atomic->run[atomic->cps[0]] == 4);
  if (atomic && atomic->ncps == 1) {
    CHECK(fabs(sl__hist_level(atomic, 0, 3) - 0.2) < 1e-9);
    CHECK(fabs(sl__hist_level(atomic, 3, 6) - 0.3) < 1e-9);
  }
  char level[64];
  sl__hist_fmt_level(&set, 0.3, level, sizeof level);
  CHECK_MSG(strcmp(level, "0.3x torch.cpu") == 0, "%s", level);
  sl__hist_set_free(&set);
  /* An anchor the store never timed is an error that names it. */
  CHECK(sl__hist_build(s, NULL, 3, "torch.cuda", &set, err, sizeof err) == -2);
  CHECK_CONTAINS(err, "--anchor torch.cuda: no timing of torch.cuda in");
  sl_store_close(s);
}

int main(void) {
  char dir[] = "/tmp/sl_history_XXXXXX";
  if (!mkdtemp(dir)) return 1;
  char path[96];
  const char *const two[6] = {"aaa", "aaa", "aaa", "bbb", "bbb", "bbb"};
  const char *const one[6] = {"aaa", "aaa", "aaa", "aaa", "aaa", "aaa"};
  const char *const dirty[6] = {"aaa-dirty", "aaa-dirty", "aaa-dirty",
                                "aaa-dirty", "aaa-dirty", "aaa-dirty"};
  const struct {
    const char *const *commit;
    double rtt;
    const char *before, *after;
    int same;
    const char *machines;
    const char *sha_from_4, *kernels;
  } cases[] = {
      {two, 90, "aaa", "bbb", 0, "", NULL, ""},
      {one, 90, "aaa", "aaa", SL__SAME_COMMIT, "", NULL, ""},
      {dirty, 90, "aaa-dirty", "aaa-dirty", SL__SAME_DIRTY, "", NULL, ""},
      {one, 400, "aaa", "aaa", SL__SAME_COMMIT,
       "core-to-core round trip 90 vs 400 ns: the threads ran on cores "
       "placed otherwise",
       NULL, ""},
      /* One dirty commit, the kernels library rebuilt in between. */
      {dirty, 90, "aaa-dirty", "aaa-dirty", SL__SAME_DIRTY, "",
       "bbbbbbbbbbbb2222222222222222222222222222222222222222222222222222",
       "provider scatterlab: sha256 aaaaaaaaaaaa vs bbbbbbbbbbbb"},
      /* The same library throughout: nothing to name. */
      {dirty, 90, "aaa-dirty", "aaa-dirty", SL__SAME_DIRTY, "",
       "aaaaaaaaaaaa1111111111111111111111111111111111111111111111111111", ""},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
    snprintf(path, sizeof path, "%s/h%zu.db", dir, k);
    sl_store *s =
        make(path, cases[k].commit, cases[k].rtt, cases[k].sha_from_4);
    CHECK_MSG(s != NULL, "case %zu: store", k);
    if (!s) continue;
    sl__hist_cause c;
    CHECK_MSG(cause(s, &c) == 0, "case %zu: %s", k, sl_store_errmsg(s));
    CHECK_MSG(c.before == 3 && c.after == 4, "case %zu: runs %lld, %lld", k,
              (long long)c.before, (long long)c.after);
    CHECK_MSG(strcmp(c.before_commit, cases[k].before) == 0 &&
                  strcmp(c.after_commit, cases[k].after) == 0,
              "case %zu: %s, %s", k, c.before_commit, c.after_commit);
    CHECK_MSG(c.same == cases[k].same, "case %zu: same %d", k, c.same);
    CHECK_MSG(strcmp(c.machines, cases[k].machines) == 0, "case %zu: %s", k,
              c.machines);
    CHECK_MSG(strcmp(c.kernels, cases[k].kernels) == 0, "case %zu: %s", k,
              c.kernels);
    sl_store_close(s);
  }
  check_anchor(dir);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
  return sl_test_finish("test_history");
}
