/*
 * index_reduce f16/bf16 sum, prod and mean into more targets than one
 * pass of the slices path holds at a row's width: the slots then go one
 * at a time (index_reduce_half.c, by target), each over its contributions
 * in index order. Each call with a contiguous out is compared, bit for
 * bit, with the same call into a spaced out (the line walk, which takes
 * any strides), on every deterministic variant, with and without x.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core_test.h"
#include "sl/sl.h"
#include "sl_test.h"

/* x [N, C] reduced along axis 0 from updates [M, C]: about 1,300 distinct
 * targets of N, so that a pass would take 48 of the C columns. */
enum { N = 1500, M = 3000, C = 96, NX = N * C, NU = M * C };

/* Runs the call into out: contiguous, or rows C + 1 apart (spaced: room
 * for N * (C + 1) elements). */
static sl_status run_into(const char *variant, const sl_tensor *x,
                          const sl_tensor *index, const sl_tensor *updates,
                          sl_reduce r, int self, void *out, int spaced) {
  sl_tensor o = sl_tensor_make(x->dtype, 2, (int64_t[]){N, C}, out);
  if (spaced) o.strides[0] = C + 1;
  sl_ctx ctx;
  sl_ctx_init(&ctx);
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

static void check_targets(sl_dtype dt, sl_reduce r) {
  uint16_t *x = malloc(NX * 2), *u = malloc(NU * 2), *got = malloc(NX * 2);
  uint16_t *line = malloc((size_t)N * (C + 1) * 2);
  int64_t *idx = malloc(M * sizeof *idx);
  CHECK(x && u && got && line && idx);
  if (!(x && u && got && line && idx)) goto done;
  uint32_t s = 31u * (uint32_t)dt + (uint32_t)r;
  fill(dt, x, NX, &s);
  fill(dt, u, NU, &s);
  for (int i = 0; i < M; ++i)
    idx[i] = (int64_t)((s = s * 69069u + 1u) >> 8) % N;
  sl_tensor tx = sl_tensor_make(dt, 2, (int64_t[]){N, C}, x);
  sl_tensor ti = sl_tensor_make(SL_I64, 1, (int64_t[]){M}, idx);
  sl_tensor tu = sl_tensor_make(dt, 2, (int64_t[]){M, C}, u);
  for (int self = 0; self < 2; ++self) FOR_EACH_VARIANT(SL_OP_INDEX_REDUCE, v) {
      if (!(v->flags & SL_DETERMINISTIC)) continue;
      CHECK(run_into(v->name, &tx, &ti, &tu, r, self, got, 0) == SL_STATUS_OK);
      CHECK(run_into(v->name, &tx, &ti, &tu, r, self, line, 1) == SL_STATUS_OK);
      int bad = 0;
      for (int i = 0; i < NX; ++i) bad += got[i] != line[i + i / C];
      CHECK_MSG(bad == 0, "%s %s %s self=%d: %d of %d elements differ",
                sl_dtype_name(dt), sl_reduce_name(r), v->name, self, bad, NX);
    }
done:
  free(x);
  free(u);
  free(got);
  free(line);
  free(idx);
}

int main(void) {
  check_targets(SL_F16, SL_REDUCE_SUM);
  check_targets(SL_BF16, SL_REDUCE_SUM);
  check_targets(SL_F16, SL_REDUCE_PROD);
  check_targets(SL_BF16, SL_REDUCE_MEAN);
  return sl_test_finish("test_index_reduce_targets");
}
