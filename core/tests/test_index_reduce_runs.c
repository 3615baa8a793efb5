/*
 * index_reduce by whole slices where updates' axes after dim collapse to
 * two, not one (padded rows, a transposed pair): the slices path then
 * takes a slice's columns a row at a time (sl__slices_run). Each call with
 * a contiguous out (the slices path, or an earlier one that takes it) is
 * compared, bit for bit, with the same call into a spaced out (the line
 * walk, which takes any strides), on every deterministic variant.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core_test.h"
#include "sl/sl.h"
#include "sl_test.h"

/* x [A, N, R, C] reduced along axis 1 from updates [A, M, R, C]. */
enum { A = 2, N = 6, M = 9, R = 5, C = 37, NX = A * N * R * C };

/* The layouts of updates under test: contiguous (adjacent columns, the
 * typed rows of amax and amin), every other element (one group at step
 * 2), rows of C padded to 2C (the generator's stepped layout: two groups,
 * adjacent columns) and the last two axes transposed (two groups). */
enum { CONTIGUOUS, EVERY_OTHER, PADDED, TRANSPOSED, LAYOUTS };
static const char *const layout_names[LAYOUTS] = {"contiguous", "every-other",
                                                  "padded", "transposed"};

/* updates over buf (room for 2 * A * M * R * C elements of dt). */
static sl_tensor updates_view(sl_dtype dt, int layout, void *buf) {
  sl_tensor u = sl_tensor_make(dt, 4, (int64_t[]){A, M, R, C}, buf);
  if (layout == CONTIGUOUS) return u;
  if (layout == TRANSPOSED) {
    u.strides[2] = 1;
    u.strides[3] = R;
    return u;
  }
  u.strides[0] *= 2, u.strides[1] *= 2, u.strides[2] *= 2;
  if (layout == EVERY_OTHER) u.strides[3] = 2;
  return u;
}

/* Runs the call into out: contiguous, or each row of C one element apart
 * (spaced: room for A * N * R * (C + 1) elements). */
static sl_status run_into(const char *variant, const sl_tensor *x,
                          const sl_tensor *index, const sl_tensor *updates,
                          sl_reduce r, int self, void *out, int spaced) {
  sl_tensor o = sl_tensor_make(x->dtype, 4, (int64_t[]){A, N, R, C}, out);
  if (spaced) {
    o.strides[2] = C + 1;
    o.strides[1] = R * (C + 1);
    o.strides[0] = (int64_t)N * R * (C + 1);
  }
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  return run_index_reduce(&ctx, variant, x, 1, index, updates, r, self, &o);
}

/* Random elements of dt: any bits for integers, finite nonzero halves of
 * either sign (so that no tie of -0 and +0 depends on order). */
static void fill(sl_dtype dt, void *buf, size_t n, uint32_t *s) {
  for (size_t i = 0; i < n; ++i) {
    *s = *s * 1103515245u + 12345u;
    const uint16_t bits =
        (uint16_t)((*s >> 16) % 97 + 0x3c00 + ((*s >> 9) & 1 ? 0x8000 : 0));
    if (sl_dtype_size(dt) == 1)
      ((uint8_t *)buf)[i] = (uint8_t)(*s >> 16);
    else
      ((uint16_t *)buf)[i] = dt == SL_I16 ? (uint16_t)(*s >> 16) : bits;
  }
}

/* Every deterministic variant, every layout, with and without x: the
 * contiguous out equals the spaced one, element by element. */
static void check_runs(sl_dtype dt, sl_reduce r) {
  const size_t es = sl_dtype_size(dt), nu = 2 * (size_t)A * M * R * C;
  const size_t spaced_n = (size_t)A * N * R * (C + 1);
  char *x = malloc(NX * es), *u = malloc(nu * es);
  char *got = malloc(NX * es), *line = malloc(spaced_n * es);
  CHECK(x && u && got && line);
  if (!(x && u && got && line)) goto done;
  uint32_t s = 777u + (uint32_t)dt * 31u + (uint32_t)r;
  fill(dt, x, NX, &s);
  fill(dt, u, nu, &s);
  int64_t idx[M];
  for (int i = 0; i < M; ++i)
    idx[i] = (int64_t)((s = s * 69069u + 1u) >> 16) % N;
  sl_tensor tx = sl_tensor_make(dt, 4, (int64_t[]){A, N, R, C}, x);
  sl_tensor ti = sl_tensor_make(SL_I64, 1, (int64_t[]){M}, idx);
  for (int layout = 0; layout < LAYOUTS; ++layout)
    for (int self = 0; self < 2; ++self)
      FOR_EACH_VARIANT(SL_OP_INDEX_REDUCE, v) {
        if (!(v->flags & SL_DETERMINISTIC)) continue;
        sl_tensor tu = updates_view(dt, layout, u);
        CHECK(run_into(v->name, &tx, &ti, &tu, r, self, got, 0) ==
              SL_STATUS_OK);
        CHECK(run_into(v->name, &tx, &ti, &tu, r, self, line, 1) ==
              SL_STATUS_OK);
        int bad = 0;
        for (size_t i = 0; i < NX; ++i)
          bad += memcmp(got + i * es, line + (i + i / C) * es, es) != 0;
        CHECK_MSG(bad == 0, "%s %s %s self=%d: %d of %d elements differ",
                  sl_dtype_name(dt), sl_reduce_name(r), layout_names[layout],
                  self, bad, NX);
      }
done:
  free(x);
  free(u);
  free(got);
  free(line);
}

int main(void) {
  check_runs(SL_U8, SL_REDUCE_ASSIGN);
  check_runs(SL_I16, SL_REDUCE_ASSIGN);
  check_runs(SL_BF16, SL_REDUCE_AMIN);
  check_runs(SL_F16, SL_REDUCE_AMIN);
  check_runs(SL_BF16, SL_REDUCE_AMAX);
  check_runs(SL_F16, SL_REDUCE_SUM);
  check_runs(SL_BF16, SL_REDUCE_MEAN);
  check_runs(SL_F16, SL_REDUCE_PROD);
  return sl_test_finish("test_index_reduce_runs");
}
