/*
 * SL_DETERMINISTIC holds across thread counts: every CPU variant flagged so
 * gives the same bits with 1, 2, 3 and 4 threads on float sums and
 * products whose terms round, sized to take the big-case plans (private
 * copies of out for a 1-D index, slabs or copies for a 2-D one), for
 * scatter_reduce and index_reduce. A campaign once found cpu.omp's
 * private copies cut one part per thread: other bits with 4 threads than
 * with 1.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core_test.h"
#include "sl/sl.h"
#include "sl_test.h"

/* A 1-D index of 40,000 positions into 37 elements (about 1,000
 * contributions each: the private copies, 2 or more parts past the team
 * threshold), and a 2-D one of 6 x 9,000 into 6 x 40 along the last axis. */
enum { N1 = 40000, M1 = 37, R2 = 6, N2 = 9000, M2 = 40 };

static uint32_t lcg(uint32_t *s) {
  *s = *s * 1103515245u + 12345u;
  return *s >> 8;
}

/* Terms whose sum and product round in any grouping: near 1 for the
 * product (so it neither overflows nor vanishes), spread out for the sum. */
static void fill_terms(sl_dtype dt, sl_reduce r, void *data, int64_t n,
                       uint32_t seed) {
  for (int64_t i = 0; i < n; ++i) {
    const double u = (double)lcg(&seed) / (double)(1u << 24);
    const double v = r == SL_REDUCE_PROD ? 1.0 + (u - 0.5) * 1e-3 : u * 1e3;
    if (dt == SL_F32)
      ((float *)data)[i] = (float)v;
    else
      ((double *)data)[i] = v;
  }
}

static void fill_index(int64_t *idx, int64_t n, int64_t m, uint32_t seed) {
  for (int64_t i = 0; i < n; ++i) idx[i] = (int64_t)(lcg(&seed) % (uint32_t)m);
}

typedef struct inv_case {
  sl_op op;
  int ndim;
  int64_t x_shape[2], i_shape[2], s_shape[2];
  int64_t dim;
} inv_case;

static sl_status run(const sl_variant *v, const inv_case *k, sl_reduce r,
                     int self, sl_tensor *x, sl_tensor *i, sl_tensor *s,
                     sl_tensor *out, int threads) {
  sl_ctx ctx;
  sl_ctx_init(&ctx);
  ctx.threads = threads;
  if (k->op == SL_OP_SCATTER_REDUCE)
    return sl_scatter_reduce(&ctx, v->name, x, k->dim, i, s, r, self, out);
  return sl_index_reduce(&ctx, v->name, x, k->dim, i, s, r, self, out);
}

static void check_case(const inv_case *k, sl_dtype dt, sl_reduce r, int self) {
  const size_t es = sl_dtype_size(dt);
  int64_t xn = 1, sn = 1, in = 1;
  for (int d = 0; d < k->ndim; ++d) xn *= k->x_shape[d], sn *= k->s_shape[d];
  const int index_rank = k->op == SL_OP_INDEX_REDUCE ? 1 : k->ndim;
  for (int d = 0; d < index_rank; ++d) in *= k->i_shape[d];
  void *x = malloc(xn * es), *src = malloc(sn * es);
  void *first = malloc(xn * es), *got = malloc(xn * es);
  int64_t *idx = malloc(in * sizeof *idx);
  if (!x || !src || !first || !got || !idx) {
    CHECK_MSG(0, "out of memory");
    return;
  }
  fill_terms(dt, r, x, xn, 7);
  fill_terms(dt, r, src, sn, 11);
  fill_index(idx, in, k->x_shape[k->dim], 13);
  sl_tensor tx = sl_tensor_make(dt, k->ndim, k->x_shape, x);
  sl_tensor ti = sl_tensor_make(SL_I64, index_rank, k->i_shape, idx);
  sl_tensor ts = sl_tensor_make(dt, k->ndim, k->s_shape, src);
  sl_tensor tf = sl_tensor_make(dt, k->ndim, k->x_shape, first);
  sl_tensor tg = sl_tensor_make(dt, k->ndim, k->x_shape, got);
  FOR_EACH_VARIANT(k->op, v) {
    if (!(v->flags & SL_DETERMINISTIC)) continue;
    if (run(v, k, r, self, &tx, &ti, &ts, &tf, 1) != SL_STATUS_OK) {
      CHECK_MSG(0, "%s %s: refused the call", sl_op_name(k->op), v->name);
      continue;
    }
    for (int threads = 2; threads <= 4; ++threads) {
      memset(got, 0x5a, xn * es);
      CHECK(run(v, k, r, self, &tx, &ti, &ts, &tg, threads) == SL_STATUS_OK);
      int64_t differ = 0;
      for (int64_t e = 0; e < xn; ++e)
        differ += memcmp((char *)got + e * es, (char *)first + e * es, es) != 0;
      CHECK_MSG(differ == 0,
                "%s %s %s %s self=%d, %d-D index: %lld of %lld elements "
                "differ between 1 and %d threads",
                sl_op_name(k->op), v->name, sl_dtype_name(dt),
                sl_reduce_name(r), self, index_rank, (long long)differ,
                (long long)xn, threads);
    }
  }
  free(x), free(src), free(first), free(got), free(idx);
}

int main(void) {
  const inv_case cases[] = {
      /* a 1-D index: no slab owns a target, the private copies */
      {SL_OP_SCATTER_REDUCE, 1, {M1}, {N1}, {N1}, 0},
      /* along the last axis of a 2-D index: slabs of rows */
      {SL_OP_SCATTER_REDUCE, 2, {R2, M2}, {R2, N2}, {R2, N2}, 1},
      /* along the first axis of a 2-D index: columns share every target */
      {SL_OP_SCATTER_REDUCE, 2, {M2, R2}, {N2, R2}, {N2, R2}, 0},
      /* index_reduce: the index along dim only, updates N1 long */
      {SL_OP_INDEX_REDUCE, 1, {M1}, {N1}, {N1}, 0},
      {SL_OP_INDEX_REDUCE, 2, {M2, R2}, {N2}, {N2, R2}, 0},
  };
  const sl_dtype dts[] = {SL_F32, SL_F64};
  const sl_reduce rs[] = {SL_REDUCE_SUM, SL_REDUCE_PROD};
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k)
    for (size_t d = 0; d < 2; ++d)
      for (size_t r = 0; r < 2; ++r)
        for (int self = 0; self <= 1; ++self)
          check_case(&cases[k], dts[d], rs[r], self);
  return sl_test_finish("test_thread_invariance");
}
