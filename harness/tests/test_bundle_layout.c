/*
 * Bundles keep layouts: a case of each layout kind (contiguous, t, s<k>,
 * b; a backward op whose forward inputs are strided) is saved by the
 * runner's --save, loaded back with --load from its own case.txt, and the
 * loaded inputs must be the generated ones: the same shapes, strides (what
 * the kernel receives), values and bytes between the strided elements. A
 * broadcast bundle whose rows were edited apart is refused, naming the file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "case.h"
#include "datagen.h"
#include "npy.h"
#include "runner.h"
#include "sl_test.h"
#include "text_lines.h"

static char dir[] = "/tmp/sl_test_bundle_XXXXXX";

/* The bytes behind t from its first to its last element. */
static size_t span_bytes(const sl_tensor *t) {
  size_t span = 1;
  for (int d = 0; d < t->ndim; ++d) {
    if (t->shape[d] == 0) return 0;
    span += (size_t)((t->shape[d] - 1) * t->strides[d]);
  }
  return span * sl_dtype_size(t->dtype);
}

static void first_line(const char *path, char *out, size_t len) {
  sl_text_reader r;
  char err[512], *line = NULL;
  out[0] = '\0';
  CHECK_MSG(sl_text_open(&r, path, err, sizeof err) == 0, "%s", err);
  if (sl_text_next(&r, &line, err, sizeof err) > 0)
    snprintf(out, len, "%s", line);
  sl_text_close(&r);
}

static void round_trip(const char *line, int k) {
  sl_case c0, cg, cl, cf;
  sl_bundle g, l;
  char err[1024], sub[128], saved[SL_CASE_LINE_MAX];
  char pg[SL_CASE_LINE_MAX], pl[SL_CASE_LINE_MAX];
  CHECK_MSG(sl_case_parse(line, &c0, err, sizeof err) == 0, "%s: %s", line,
            err);
  snprintf(sub, sizeof sub, "%s/b%d", dir, k);
  /* --save through the runner; no variant is selected (-1, after the
   * bundle's inputs are written): the writer is the one run uses. */
  sl_run_opts o;
  memset(&o, 0, sizeof o);
  o.save_dir = sub;
  o.variants = "no-such-variant";
  sl_case_result *res = malloc(sizeof *res);
  sl_run_case(&c0, &o, res, err, sizeof err);
  free(res);
  char path[256];
  snprintf(path, sizeof path, "%s/case.txt", sub);
  first_line(path, saved, sizeof saved);
  CHECK_MSG(sl_case_parse(saved, &cf, err, sizeof err) == 0,
            "case.txt \"%s\" does not parse: %s", saved, err);
  CHECK_MSG(sl_prepare_case(&c0, NULL, 0, &cg, &g, err, sizeof err) == 0, "%s",
            err);
  CHECK_MSG(sl_prepare_case(&cf, sub, 0, &cl, &l, err, sizeof err) == 0,
            "--load %s: %s", sub, err);
  sl_case_print(&cg, pg, sizeof pg);
  sl_case_print(&cl, pl, sizeof pl);
  CHECK_MSG(strcmp(pg, pl) == 0, "loaded line \"%s\", generated \"%s\"", pl,
            pg);
  const sl_op_info *info = sl_op_get(c0.op);
  for (int s = 0; s < info->n_in; ++s) {
    const sl_tensor *a = &g.call.arg[s], *b = &l.call.arg[s];
    if (!a->data) continue;
    CHECK_MSG(a->ndim == b->ndim && a->dtype == b->dtype, "%s %s", line,
              info->arg_names[s]);
    for (int d = 0; d < a->ndim && d < b->ndim; ++d)
      CHECK_MSG(a->shape[d] == b->shape[d] && a->strides[d] == b->strides[d],
                "%s: %s dim %d: loaded shape %lld stride %lld, generated "
                "%lld stride %lld",
                line, info->arg_names[s], d, (long long)b->shape[d],
                (long long)b->strides[d], (long long)a->shape[d],
                (long long)a->strides[d]);
    size_t n = span_bytes(a);
    CHECK_MSG(n == span_bytes(b) && memcmp(a->data, b->data, n) == 0,
              "%s: %s: loaded bytes differ from the generated ones", line,
              info->arg_names[s]);
  }
  sl_bundle_free(&g);
  sl_bundle_free(&l);
}

int main(void) {
  CHECK(mkdtemp(dir) != NULL);
  static const char *const lines[] = {
      "gather dt=f32 it=i64 x=4x3 index=2x3 dim=0 seed=1",
      "gather dt=f32 it=i64 x=4x3:t index=2x3:t dim=1 seed=2",
      "gather dt=c64 it=i64 x=7x5x3 index=7x9x3:b dim=1 seed=2",
      "scatter_reduce dt=f32 it=i32 x=5x4:s3 index=3x4 src=3x4:t dim=0 "
      "reduce=sum seed=3",
      "scatter dt=u8 it=i64 x=3x4x5:t index=3x4x5:b src=3x4x5:s2 dim=2 ip=one "
      "seed=9",
      "scatter_reduce_backward dt=f32 it=i64 x=6x4:t index=3x4:s2 src=3x4:t "
      "dim=0 reduce=amax seed=7",
  };
  int n = (int)(sizeof lines / sizeof lines[0]);
  for (int k = 0; k < n; ++k) round_trip(lines[k], k);

  /* Layout b with rows that differ: refused, naming the file. */
  char path[256], err[1024];
  snprintf(path, sizeof path, "%s/b2/index.npy", dir);
  int64_t shape[3] = {7, 9, 3};
  int64_t *v = calloc(7 * 9 * 3, sizeof *v);
  v[9 * 3] = 1; /* row 1 differs from row 0 */
  sl_tensor t = sl_tensor_make(SL_I64, 3, shape, v);
  CHECK_MSG(sl_npy_save(path, &t, err, sizeof err) == 0, "%s", err);
  free(v);
  sl_case c0, cl;
  sl_bundle l;
  CHECK(sl_case_parse(lines[2], &c0, err, sizeof err) == 0);
  snprintf(path, sizeof path, "%s/b2", dir);
  CHECK(sl_prepare_case(&c0, path, 0, &cl, &l, err, sizeof err) == -1);
  CHECK_CONTAINS(err, "index.npy: expected every row along dim 0 equal");

  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  CHECK(system(cmd) == 0);
  return sl_test_finish("test_bundle_layout");
}
