/*
 * Acceptance: seed 000's example through `scatterlab run --load`.
 * A = arange(12) as 4x3 float32, index [[0,1,1],[3,2,0]]:
 *   gather dim 0  -> [[0,4,5],[9,7,2]] on every variant;
 *   scatter of that into zeros(4,3) on dim 0 -> [[0,0,2],[0,4,5],[0,7,0],
 *   [9,0,0]] (out[index[i][j]][j] = src[i][j]) on every variant;
 *   gather dim 1 uses index 3 on a dimension of size 3: both_rejected.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "npy.h"
#include "providers.h"
#include "sl/sl.h"
#include "sl_test.h"

static char dir[] = "/tmp/sl_seed000_XXXXXX";
static const char *bin;

static void put(const char *sub, const char *name, sl_dtype dt, int nd,
                const int64_t *shape, void *data) {
  char path[512], err[256];
  snprintf(path, sizeof path, "%s/%s/%s.npy", dir, sub, name);
  sl_tensor t = sl_tensor_make(dt, nd, shape, data);
  CHECK_MSG(sl_npy_save(path, &t, err, sizeof err) == 0, "%s", err);
}

static int run(const char *args) {
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "%s run --no-db %s > %s/log.txt 2>&1", bin, args,
           dir);
  int st = system(cmd);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void case_file(const char *sub, const char *line) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, sub);
  mkdir(path, 0777);
  snprintf(path, sizeof path, "%s/%s/case.txt", dir, sub);
  FILE *f = fopen(path, "w");
  fprintf(f, "%s\n", line);
  fclose(f);
}

/* Every variant's saved output equals `want` (12 or 6 floats). */
static void check_outputs(const char *sub, const float *want, int64_t n) {
  int seen = 0;
  for (size_t i = 0; i < sl_hvariant_count(); ++i) {
    const sl_hvariant *v = sl_hvariant_at(i);
    if (v->v.op != SL_OP_GATHER && v->v.op != SL_OP_SCATTER) continue;
    char path[512], err[256];
    snprintf(path, sizeof path, "%s/%s/%s.out.npy", dir, sub, v->name);
    sl_tensor t;
    if (access(path, R_OK) != 0) continue;
    CHECK_MSG(sl_npy_load(path, SL_F32, &t, err, sizeof err) == 0, "%s", err);
    int64_t numel = 1;
    for (int d = 0; d < t.ndim; ++d) numel *= t.shape[d];
    CHECK(numel == n);
    for (int64_t k = 0; k < n && numel == n; ++k)
      CHECK_MSG(((float *)t.data)[k] == want[k], "%s %s[%lld] = %g, want %g",
                sub, v->name, (long long)k, ((float *)t.data)[k], want[k]);
    free(t.data);
    ++seen;
  }
  CHECK_MSG(seen >= 2, "%s: only %d variant outputs", sub, seen);
}

int main(int argc, char **argv) {
  if (argc < 2) return 2;
  bin = argv[1];
  if (!mkdtemp(dir)) return 2;
  char err[512];
  /* The variants whose outputs to look for: the ones the CLI runs. */
  if (sl_providers_load(NULL, 0, err, sizeof err)) {
    fprintf(stderr, "%s\n", err);
    return 2;
  }
  float a[12];
  for (int i = 0; i < 12; ++i) a[i] = (float)i;
  int64_t index[6] = {0, 1, 1, 3, 2, 0};
  int64_t s43[2] = {4, 3}, s23[2] = {2, 3};

  case_file("g0", "gather dt=f32 it=i64 x=4x3 index=2x3 dim=0 seed=0");
  put("g0", "x", SL_F32, 2, s43, a);
  put("g0", "index", SL_I64, 2, s23, index);
  char args[1024];
  snprintf(args, sizeof args, "--load %s/g0 --save %s/g0", dir, dir);
  CHECK(run(args) == 0);
  const float g0[6] = {0, 4, 5, 9, 7, 2};
  check_outputs("g0", g0, 6);

  float zeros[12] = {0};
  case_file("s0", "scatter dt=f32 it=i64 x=4x3 index=2x3 src=2x3 dim=0 seed=0");
  put("s0", "x", SL_F32, 2, s43, zeros);
  put("s0", "index", SL_I64, 2, s23, index);
  put("s0", "src", SL_F32, 2, s23, (void *)g0);
  snprintf(args, sizeof args, "--load %s/s0 --save %s/s0", dir, dir);
  CHECK(run(args) == 0);
  const float s0[12] = {0, 0, 2, 0, 4, 5, 0, 7, 0, 9, 0, 0};
  check_outputs("s0", s0, 12);

  /* The seed prints an output for gather on dim 1, but index 3 is out of
   * range for a dimension of size 3: every variant and LibTorch reject. */
  case_file("g1", "gather dt=f32 it=i64 x=4x3 index=2x3 dim=1 seed=0");
  put("g1", "x", SL_F32, 2, s43, a);
  put("g1", "index", SL_I64, 2, s23, index);
  snprintf(args, sizeof args, "--load %s/g1", dir);
  CHECK(run(args) == 0);
  char path[512], log[8192] = {0};
  snprintf(path, sizeof path, "%s/log.txt", dir);
  FILE *f = fopen(path, "r");
  size_t got = f ? fread(log, 1, sizeof log - 1, f) : 0;
  if (f) fclose(f);
  CHECK(got > 0);
  CHECK_CONTAINS(log, "both_rejected   cpu.serial");
  CHECK_CONTAINS(log, "both_rejected   cpu.omp");
  CHECK_CONTAINS(log, "index[1,0]=3 out of range [0,3) for dim 1 of x [4,3]");
  CHECK(strstr(log, "passed") == NULL);
  snprintf(path, sizeof path, "rm -rf %s", dir);
  if (!sl_test_failures) (void)system(path);
  return sl_test_finish("e2e.seed000");
}
