/*
 * index_reduce f16/bf16 sum, prod and mean by slices (index_reduce_half.c)
 * into more targets than one pass holds at a row's width: the slots then
 * go one at a time (by target), each over its contributions in index
 * order, on threads that split the slots; and into a few of many long
 * slices: out := x then copies the others only and the targeted ones
 * start from x, on threads that split the columns. Between them, rows of
 * 300 with a third of them untargeted: the untargeted copied by a team
 * over their hundreds of runs. Each call with a contiguous out is
 * compared, bit for bit, with the same call into a spaced out (the line
 * walk, which takes any strides), on every deterministic variant, with
 * and without x. Also amax and amin of updates broadcast along the
 * columns (one value a row, column stride 0), which the slices combine
 * by a loop of their own.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core_test.h"
#include "sl/sl.h"
#include "sl_test.h"

/* x [n, c] reduced along axis 0 from updates [m, c]. */
typedef struct shape {
  int64_t n, m, c;
} shape;

/* About 1,300 distinct targets of n, so that a pass would take 48 of the
 * c columns. */
static const shape many_targets = {1500, 3000, 96};
/* At most 5 of 12 slices, rows long enough for cpu.omp to split them. */
static const shape few_targets = {12, 5, 20000};
/* About 550 untargeted slices in some 350 runs of 600 bytes a row: more
 * runs than one call each, long enough for a team over the slices. */
static const shape long_rows = {1500, 1500, 300};

/* Runs the call into out: contiguous, or rows c + 1 apart (spaced: room
 * for n * (c + 1) elements). */
static sl_status run_into(const char *variant, const sl_tensor *x,
                          const sl_tensor *index, const sl_tensor *updates,
                          sl_reduce r, int self, void *out, int spaced) {
  sl_tensor o = sl_tensor_make(x->dtype, 2, x->shape, out);
  if (spaced) o.strides[0] = x->shape[1] + 1;
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  ctx.threads = 2; /* the team splits, on any machine */
  return run_index_reduce(&ctx, variant, x, 0, index, updates, r, self, &o);
}

/* Halves of either sign between 2^-10 and 2^10: sums of a few in f32
 * round, differently in another order, and products stay finite in f32. */
static void fill(sl_dtype dt, uint16_t *v, size_t n, uint32_t *s) {
  const int f16 = dt == SL_F16, shift = f16 ? 10 : 7, bias = f16 ? 15 : 127;
  for (size_t i = 0; i < n; ++i) {
    *s = *s * 1103515245u + 12345u;
    const uint32_t e = (uint32_t)bias - 10u + (*s >> 8) % 21u;
    const uint32_t mant = (*s >> 16) & ((1u << shift) - 1u);
    v[i] = (uint16_t)((*s >> 31) << 15 | e << shift | mant);
  }
}

/* Slices against the line walk; tu's columns may be broadcast. */
static void compare_walks(sl_dtype dt, sl_reduce r, shape sh,
                          const sl_tensor *tx, const sl_tensor *ti,
                          const sl_tensor *tu, uint16_t *got, uint16_t *line) {
  const int64_t nx = sh.n * sh.c;
  for (int self = 0; self < 2; ++self) FOR_EACH_VARIANT(SL_OP_INDEX_REDUCE, v) {
      if (!(v->flags & SL_DETERMINISTIC)) continue;
      /* NaN bits where the call writes nothing: not the last call's */
      memset(got, 0xff, (size_t)nx * 2);
      CHECK(run_into(v->name, tx, ti, tu, r, self, got, 0) == SL_STATUS_OK);
      CHECK(run_into(v->name, tx, ti, tu, r, self, line, 1) == SL_STATUS_OK);
      int64_t bad = 0;
      for (int64_t i = 0; i < nx; ++i) bad += got[i] != line[i + i / sh.c];
      CHECK_MSG(bad == 0,
                "%s %s %s self=%d n=%lld c=%lld%s: %lld of %lld elements "
                "differ",
                sl_dtype_name(dt), sl_reduce_name(r), v->name, self,
                (long long)sh.n, (long long)sh.c,
                tu->strides[1] == 0 ? " broadcast" : "", (long long)bad,
                (long long)nx);
    }
}

static void check_targets(sl_dtype dt, sl_reduce r, shape sh) {
  const int64_t nx = sh.n * sh.c, nu = sh.m * sh.c;
  uint16_t *x = malloc((size_t)nx * 2), *u = malloc((size_t)nu * 2);
  uint16_t *got = malloc((size_t)nx * 2);
  uint16_t *line = malloc((size_t)(sh.n * (sh.c + 1)) * 2);
  int64_t *idx = malloc((size_t)sh.m * sizeof *idx);
  CHECK(x && u && got && line && idx);
  if (!(x && u && got && line && idx)) goto done;
  uint32_t s = 31u * (uint32_t)dt + (uint32_t)r;
  fill(dt, x, (size_t)nx, &s);
  fill(dt, u, (size_t)nu, &s);
  for (int64_t i = 0; i < sh.m; ++i)
    idx[i] = (int64_t)((s = s * 69069u + 1u) >> 8) % sh.n;
  sl_tensor tx = sl_tensor_make(dt, 2, (int64_t[]){sh.n, sh.c}, x);
  sl_tensor ti = sl_tensor_make(SL_I64, 1, (int64_t[]){sh.m}, idx);
  sl_tensor tu = sl_tensor_make(dt, 2, (int64_t[]){sh.m, sh.c}, u);
  compare_walks(dt, r, sh, &tx, &ti, &tu, got, line);
  /* One update a row, broadcast along the columns. */
  tu.strides[0] = 1;
  tu.strides[1] = 0;
  compare_walks(dt, r, sh, &tx, &ti, &tu, got, line);
done:
  free(x);
  free(u);
  free(got);
  free(line);
  free(idx);
}

int main(void) {
  check_targets(SL_F16, SL_REDUCE_SUM, many_targets);
  check_targets(SL_BF16, SL_REDUCE_SUM, many_targets);
  check_targets(SL_F16, SL_REDUCE_PROD, many_targets);
  check_targets(SL_BF16, SL_REDUCE_MEAN, many_targets);
  check_targets(SL_F16, SL_REDUCE_PROD, few_targets);
  check_targets(SL_BF16, SL_REDUCE_SUM, few_targets);
  check_targets(SL_F16, SL_REDUCE_MEAN, few_targets);
  check_targets(SL_BF16, SL_REDUCE_SUM, long_rows);
  check_targets(SL_F16, SL_REDUCE_PROD, long_rows);
  check_targets(SL_F16, SL_REDUCE_AMIN, many_targets);
  check_targets(SL_BF16, SL_REDUCE_AMAX, few_targets);
  return sl_test_finish("test_index_reduce_targets");
}
