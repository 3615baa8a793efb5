/*
 * The scatter walks may take their rows along another axis than the last
 * (walk_order.h) when an operand is laid out column-major; every target
 * must still see its contributions in row-major order. Each call through a
 * column-major index and src is compared, bit for bit, with the same call
 * through contiguous ones (walked row-major), on every deterministic
 * variant: scatter_reduce sum and mean along the last axis, scatter with
 * duplicate targets, and scatter_nd sum and writes over two indexed axes
 * (whose positions may not be reordered), and writes through an index
 * broadcast along one of them (which may).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core_test.h"
#include "sl/sl.h"
#include "sl_test.h"

/* The positions [P0, P1, P2]; targets along an indexed axis lie in
 * [0, TARGETS), so that many positions share one. */
enum { P0 = 24, P1 = 20, P2 = 40, N = P0 * P1 * P2, TARGETS = 5 };

static uint32_t next(uint32_t *s) {
  *s = *s * 1103515245u + 12345u;
  return *s >> 8;
}

/* f32 of both signs over 30 binades: sums of them round differently in
 * another order. */
static void fill_f32(float *v, int64_t n, uint32_t *s) {
  for (int64_t i = 0; i < n; ++i)
    v[i] = ldexpf(1.0f + (float)(next(s) % 1000) / 1000.0f,
                  (int)(next(s) % 30) - 10) *
           (next(s) & 1 ? -1.0f : 1.0f);
}

/* A column-major view of the row-major tensor t's values, copied into
 * buf (room for numel(t) elements). */
static sl_tensor column_major(const sl_tensor *t, void *buf) {
  const size_t es = sl_dtype_size(t->dtype);
  sl_tensor v = *t;
  int64_t step = 1, numel = 1;
  for (int d = 0; d < t->ndim; ++d) {
    v.strides[d] = step;
    step *= t->shape[d];
    numel *= t->shape[d];
  }
  v.data = buf;
  for (int64_t i = 0; i < numel; ++i) {
    int64_t rest = i, at = 0;
    for (int d = t->ndim - 1; d >= 0; --d) {
      at += rest % t->shape[d] * v.strides[d];
      rest /= t->shape[d];
    }
    memcpy((char *)buf + at * es, (const char *)t->data + i * es, es);
  }
  return v;
}

/* Runs variant on c with out over `out`. */
static sl_status run(const char *variant, sl_call c, float *out) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  ctx.threads = 3;
  c.arg[3] = sl_tensor_make(SL_F32, c.arg[0].ndim, c.arg[0].shape, out);
  return sl_run(&ctx, variant, &c);
}

/* Every deterministic variant of c's op: c as given (contiguous index and
 * src) and through column-major copies of both write the same bits. */
static void check_layouts(const char *what, const sl_call *c) {
  const size_t index_bytes = (size_t)N * 2 * sizeof(int64_t);
  float *want = malloc(N * sizeof *want), *got = malloc(N * sizeof *got);
  float *src = malloc(N * sizeof *src);
  int64_t *index = malloc(index_bytes);
  CHECK(want && got && src && index);
  if (!(want && got && src && index)) goto done;
  sl_call t = *c;
  t.arg[1] = column_major(&c->arg[1], index);
  t.arg[2] = column_major(&c->arg[2], src);
  FOR_EACH_VARIANT(c->op, v) {
    if (!(v->flags & SL_DETERMINISTIC)) continue;
    CHECK(run(v->name, *c, want) == SL_STATUS_OK);
    CHECK(run(v->name, t, got) == SL_STATUS_OK);
    int bad = 0;
    for (int i = 0; i < N; ++i) bad += memcmp(&want[i], &got[i], 4) != 0;
    CHECK_MSG(bad == 0, "%s %s: %d of %d elements differ", what, v->name, bad,
              N);
  }
done:
  free(want);
  free(got);
  free(src);
  free(index);
}

/* scatter and scatter_reduce along the last axis of [P0, P1, P2]. */
static void check_scatter(sl_op op, sl_reduce r, const char *what) {
  float *x = malloc(N * sizeof *x), *src = malloc(N * sizeof *src);
  int64_t *index = malloc(N * sizeof *index);
  CHECK(x && src && index);
  if (!(x && src && index)) goto done;
  uint32_t s = 4242u + (uint32_t)r;
  fill_f32(x, N, &s);
  fill_f32(src, N, &s);
  for (int i = 0; i < N; ++i) index[i] = next(&s) % TARGETS;
  const int64_t shape[3] = {P0, P1, P2};
  sl_call c;
  sl_call_init(&c, op);
  c.arg[0] = sl_tensor_make(SL_F32, 3, shape, x);
  c.arg[1] = sl_tensor_make(SL_I64, 3, shape, index);
  c.arg[2] = sl_tensor_make(SL_F32, 3, shape, src);
  c.p.dim = 2;
  c.p.reduce = r;
  c.p.include_self = 1;
  check_layouts(what, &c);
done:
  free(x);
  free(src);
  free(index);
}

/* scatter_nd of src [P0, P1, P2] into x [P0, P1, P2] at (index[p, 0],
 * index[p, 1], p2), summed (r SUM) or written (NONE: the last writer
 * stays): the positions sharing p2 may share a target whatever their p0
 * and p1, so neither axis may take the rows. */
static void check_scatter_nd(sl_reduce r, const char *what) {
  float *x = malloc(N * sizeof *x), *src = malloc(N * sizeof *src);
  int64_t *index = malloc(N * 2 * sizeof *index);
  CHECK(x && src && index);
  if (!(x && src && index)) goto done;
  uint32_t s = 99u;
  fill_f32(x, N, &s);
  fill_f32(src, N, &s);
  for (int i = 0; i < N * 2; ++i) index[i] = next(&s) % TARGETS;
  sl_call c;
  sl_call_init(&c, SL_OP_SCATTER_ND);
  c.arg[0] = sl_tensor_make(SL_F32, 3, (int64_t[]){P0, P1, P2}, x);
  c.arg[1] = sl_tensor_make(SL_I64, 4, (int64_t[]){P0, P1, P2, 2}, index);
  c.arg[2] = sl_tensor_make(SL_F32, 3, (int64_t[]){P0, P1, P2}, src);
  c.p.reduce = r;
  c.p.ndims = 2;
  c.p.dims[0] = 0;
  c.p.dims[1] = 1;
  check_layouts(what, &c);
done:
  free(x);
  free(src);
  free(index);
}

/* scatter_nd's writes through an index broadcast along p0 (stride 0: one
 * tuple for every p0, so p0 changes no target and may take the rows) and
 * a column-major src: every target ends with its last writer in row-major
 * order, the bits of the same call through the index's contiguous copy. */
static void check_scatter_nd_broadcast(void) {
  float *x = malloc(N * sizeof *x), *src = malloc(N * sizeof *src);
  float *csrc = malloc(N * sizeof *csrc);
  float *want = malloc(N * sizeof *want), *got = malloc(N * sizeof *got);
  int64_t *index = malloc(N * 2 * sizeof *index);
  CHECK(x && src && csrc && want && got && index);
  if (!(x && src && csrc && want && got && index)) goto done;
  uint32_t s = 7u;
  fill_f32(x, N, &s);
  fill_f32(src, N, &s);
  const int64_t row = P1 * P2 * 2; /* one p0's tuples */
  for (int i = 0; i < row; ++i) index[i] = next(&s) % TARGETS;
  for (int i = row; i < N * 2; ++i) index[i] = index[i % row];
  sl_call c;
  sl_call_init(&c, SL_OP_SCATTER_ND);
  c.arg[0] = sl_tensor_make(SL_F32, 3, (int64_t[]){P0, P1, P2}, x);
  c.arg[1] = sl_tensor_make(SL_I64, 4, (int64_t[]){P0, P1, P2, 2}, index);
  c.arg[2] = sl_tensor_make(SL_F32, 3, (int64_t[]){P0, P1, P2}, src);
  c.p.ndims = 2;
  c.p.dims[0] = 0;
  c.p.dims[1] = 1;
  sl_call t = c;
  t.arg[1].strides[0] = 0;
  t.arg[2] = column_major(&c.arg[2], csrc);
  FOR_EACH_VARIANT(SL_OP_SCATTER_ND, v) {
    if (!(v->flags & SL_DETERMINISTIC)) continue;
    CHECK(run(v->name, c, want) == SL_STATUS_OK);
    CHECK(run(v->name, t, got) == SL_STATUS_OK);
    CHECK_MSG(memcmp(want, got, N * sizeof *got) == 0,
              "scatter_nd none, broadcast index: %s", v->name);
  }
done:
  free(x);
  free(src);
  free(csrc);
  free(want);
  free(got);
  free(index);
}

int main(void) {
  check_scatter(SL_OP_SCATTER_REDUCE, SL_REDUCE_SUM, "scatter_reduce sum");
  check_scatter(SL_OP_SCATTER_REDUCE, SL_REDUCE_MEAN, "scatter_reduce mean");
  check_scatter(SL_OP_SCATTER, SL_REDUCE_NONE, "scatter");
  check_scatter_nd(SL_REDUCE_SUM, "scatter_nd sum");
  check_scatter_nd(SL_REDUCE_NONE, "scatter_nd none");
  check_scatter_nd_broadcast();
  return sl_test_finish("test_scatter_order");
}
