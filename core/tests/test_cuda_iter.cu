/*
 * The strided iteration and the fast division of the cuda.* kernels
 * (cuda/cuda_common.cuh), checked on the host: they are __host__
 * __device__, so this runs on a machine without a GPU (CI). Every kernel
 * addresses memory through them, so a wrong merge of dims or a wrong
 * quotient would send every variant astray.
 *
 * - sl__div against '/' for divisors and dividends in the fast range (up to
 *   2^31 - 1) and beyond it;
 * - sl__it_make + sl__it_at against a naive row-major unravel and dot
 *   product, on random shapes (extents 0..5, runs of 1), 1 to 4 tensors of
 *   random strides (0, contiguous, transposed, gapped), with and without a
 *   kept dim;
 * - the addressing of the backward of scatter_reduce and index_reduce
 *   (cuda/reduce_backward.cuh: each contribution's position in x and its
 *   elements, each position's elements) against the ops' definitions, on
 *   random calls with strided tensors, i32 and i64 indices.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/reduce_backward.cuh"
#include "sl_test.h"

/* Deterministic generator (splitmix64). */
static uint64_t sl__rng = 0x2545f4914f6cdd1dull;
static uint64_t next_u64(void) {
  uint64_t z = (sl__rng += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
static int64_t uniform(int64_t lo, int64_t hi) { /* [lo, hi] */
  return lo + (int64_t)(next_u64() % (uint64_t)(hi - lo + 1));
}

static void test_div(void) {
  const int64_t special[] = {
      1,          2,         3,     7,       641,
      65535,      65536,     65537, 1 << 20, (1 << 20) + 1,
      2147483646, 2147483647};
  int bad = 0;
  for (size_t k = 0; k < sizeof special / sizeof special[0]; ++k) {
    const int64_t d = special[k];
    sl__divmod v = sl__divmod_make(d, INT32_MAX);
    CHECK(v.fast);
    const int64_t ns[] = {0,     1,     d - 1,         d,
                          d + 1, 2 * d, INT32_MAX - 1, INT32_MAX};
    for (size_t j = 0; j < sizeof ns / sizeof ns[0]; ++j)
      if (ns[j] >= 0 && ns[j] <= INT32_MAX && sl__div(v, ns[j]) != ns[j] / d)
        ++bad;
    for (int t = 0; t < 20000; ++t) {
      const int64_t n = uniform(0, INT32_MAX);
      if (sl__div(v, n) != n / d) ++bad;
    }
  }
  for (int t = 0; t < 2000; ++t) {
    const int64_t d = uniform(1, INT32_MAX);
    sl__divmod v = sl__divmod_make(d, INT32_MAX);
    for (int u = 0; u < 100; ++u) {
      const int64_t n = uniform(0, INT32_MAX);
      if (sl__div(v, n) != n / d) ++bad;
    }
  }
  /* Beyond 31 bits: the plain division. */
  sl__divmod big = sl__divmod_make(3, (int64_t)1 << 40);
  CHECK(!big.fast);
  CHECK(sl__div(big, ((int64_t)1 << 40) + 1) == (((int64_t)1 << 40) + 1) / 3);
  CHECK_MSG(bad == 0, "%d wrong quotients", bad);
}

static void test_iteration(void) {
  int bad = 0, cases = 0;
  for (int t = 0; t < 3000; ++t) {
    const int ndim = (int)uniform(0, 6);
    int64_t shape[SL_MAX_DIMS];
    for (int d = 0; d < ndim; ++d) {
      const int64_t r = uniform(0, 9);
      shape[d] = r < 3 ? 1 : (r == 3 && t % 7 == 0 ? 0 : uniform(2, 5));
    }
    const int nt = (int)uniform(1, SL__IT_MAX);
    int64_t st[SL__IT_MAX][SL_MAX_DIMS];
    for (int k = 0; k < nt; ++k) {
      const int64_t kind = uniform(0, 3);
      int64_t s = 1;
      for (int d = ndim - 1; d >= 0; --d) {
        if (kind == 0) { /* contiguous */
          st[k][d] = s;
          s *= shape[d] ? shape[d] : 1;
        } else if (kind == 1) { /* gapped */
          st[k][d] = s * 2;
          s *= 2 * (shape[d] ? shape[d] : 1) + 1;
        } else { /* random, with broadcast zeros */
          st[k][d] = uniform(0, 4) == 0 ? 0 : uniform(1, 50);
        }
      }
      if (kind == 3 && ndim >= 2) { /* transposed */
        int64_t tmp = st[k][0];
        st[k][0] = st[k][ndim - 1];
        st[k][ndim - 1] = tmp;
      }
    }
    const int keep = ndim && uniform(0, 1) ? (int)uniform(0, ndim - 1) : -1;
    const int64_t *sp[SL__IT_MAX] = {st[0], st[1], st[2], st[3]};
    sl__it it = sl__it_make(ndim, shape, nt, sp, keep);
    int64_t numel = 1;
    for (int d = 0; d < ndim; ++d) numel *= shape[d];
    if (it.numel != numel) ++bad;
    ++cases;
    for (int64_t i = 0; i < numel; ++i) {
      int64_t idx[SL_MAX_DIMS], r = i;
      for (int d = ndim - 1; d >= 0; --d) {
        idx[d] = r % shape[d];
        r /= shape[d];
      }
      int64_t off[SL__IT_MAX], kc = -1;
      sl__it_at<SL__IT_MAX>(it, i, off, &kc);
      for (int k = 0; k < nt; ++k) {
        int64_t want = 0;
        for (int d = 0; d < ndim; ++d) want += idx[d] * st[k][d];
        if (off[k] != want) ++bad;
      }
      if (keep >= 0 && kc != idx[keep]) ++bad;
      /* The 32-bit walk gives the same offsets (these spans all fit). */
      int32_t off32[SL__IT_MAX];
      sl__it_at<SL__IT_MAX>(it, i, off32);
      for (int k = 0; k < nt; ++k)
        if (off32[k] != off[k]) ++bad;
    }
    /* The span is the largest offset reached. */
    for (int k = 0; k < nt && numel > 0; ++k) {
      int64_t span = 0;
      for (int d = 0; d < ndim; ++d) span += (shape[d] - 1) * st[k][d];
      if (sl__it_span(it, k) != span) ++bad;
    }
  }
  CHECK_MSG(bad == 0, "%d wrong offsets or coordinates in %d walks", bad,
            cases);
  /* Contiguous tensors collapse to one dim. */
  int64_t shape[3] = {4, 5, 6}, s0[3] = {30, 6, 1}, s1[3] = {30, 6, 1};
  const int64_t *sp[2] = {s0, s1};
  sl__it it = sl__it_make(3, shape, 2, sp, -1);
  CHECK(it.ndim == 1 && it.shape[0] == 120);
  /* A kept dim is never merged. */
  it = sl__it_make(3, shape, 2, sp, 1);
  CHECK(it.ndim == 3 && it.keep == 1);
}

/* Random strides for shape (contiguous, gapped, or a transposed
 * contiguous layout). */
static void random_strides(int ndim, const int64_t *shape, int64_t *st) {
  const int64_t kind = uniform(0, 2);
  int64_t s = 1;
  for (int d = ndim - 1; d >= 0; --d) {
    st[d] = kind == 1 ? 2 * s : s;
    s *= (kind == 1 ? 2 : 1) * (shape[d] ? shape[d] : 1) + (kind == 1);
  }
  if (kind == 2 && ndim >= 2) {
    int64_t tmp = st[0];
    st[0] = st[ndim - 1];
    st[ndim - 1] = tmp;
  }
}

static int64_t dot(int ndim, const int64_t *idx, const int64_t *st) {
  int64_t o = 0;
  for (int d = 0; d < ndim; ++d) o += idx[d] * st[d];
  return o;
}

static void unravel(int64_t i, int ndim, const int64_t *shape, int64_t *idx) {
  for (int d = ndim - 1; d >= 0; --d) {
    idx[d] = i % shape[d];
    i /= shape[d];
  }
}

/* A tensor of `shape` with random strides (no data). */
static void make_tensor(sl_tensor *t, int ndim, const int64_t *shape) {
  memset(t, 0, sizeof *t);
  t->ndim = ndim;
  t->dtype = SL_F32;
  for (int d = 0; d < ndim; ++d) t->shape[d] = shape[d];
  random_strides(ndim, shape, t->strides);
}

/* The index tensor's values, written through its strides into buf. */
static void fill_index(sl_tensor *t, int64_t bound, void *buf, int is64) {
  t->dtype = is64 ? SL_I64 : SL_I32;
  t->data = buf;
  int64_t n = 1, idx[SL_MAX_DIMS];
  for (int d = 0; d < t->ndim; ++d) n *= t->shape[d];
  for (int64_t i = 0; i < n; ++i) {
    unravel(i, t->ndim, t->shape, idx);
    const int64_t off = dot(t->ndim, idx, t->strides),
                  v = uniform(0, bound - 1);
    if (is64)
      ((int64_t *)buf)[off] = v;
    else
      ((int32_t *)buf)[off] = (int32_t)v;
  }
}

static int64_t index_at(const sl_tensor *t, int64_t off) {
  return t->dtype == SL_I64 ? ((const int64_t *)t->data)[off]
                            : ((const int32_t *)t->data)[off];
}

/* Every position's four offsets (grad_out x result grad_x: slots 0 1 4 5)
 * and every contribution's position and offsets (src and grad_src: slots 3
 * and 6) against `want_pos`, which maps a contribution's coordinates to x's. */
static int check_addr(const sl_call *c, const sl__rb_addr &a, int per_slice) {
  const sl_tensor *x = &c->arg[1], *cs = &c->arg[3], *ix = &c->arg[2];
  int bad = 0;
  int64_t idx[SL_MAX_DIMS], n = 1;
  for (int d = 0; d < x->ndim; ++d) n *= x->shape[d];
  if (a.npos != n) ++bad;
  const int slots[4] = {0, 1, 4, 5};
  for (int64_t p = 0; p < n; ++p) {
    unravel(p, x->ndim, x->shape, idx);
    int64_t o[4];
    a.pos(p, o);
    for (int k = 0; k < 4; ++k)
      bad += o[k] != dot(x->ndim, idx, c->arg[slots[k]].strides);
  }
  n = 1;
  for (int d = 0; d < cs->ndim; ++d) n *= cs->shape[d];
  if (a.ncon != n) ++bad;
  const int dim = (int)c->p.dim;
  for (int64_t e = 0; e < n; ++e) {
    unravel(e, cs->ndim, cs->shape, idx);
    int64_t xi[SL_MAX_DIMS], so, gso;
    memcpy(xi, idx, sizeof xi);
    xi[dim] = per_slice ? index_at(ix, idx[dim] * ix->strides[0])
                        : index_at(ix, dot(ix->ndim, idx, ix->strides));
    int64_t want = 0;
    for (int d = 0; d < x->ndim; ++d) want = want * x->shape[d] + xi[d];
    bad += a.con(e, &so, &gso) != want;
    bad += so != dot(cs->ndim, idx, cs->strides);
    bad += gso != dot(cs->ndim, idx, c->arg[6].strides);
  }
  return bad;
}

static void test_backward_addr(void) {
  static int64_t buf[1 << 16];
  int bad = 0;
  for (int t = 0; t < 2000; ++t) {
    const int per_slice = t % 2; /* index_reduce_backward, else scatter_ */
    const int ndim = (int)uniform(1, 4), dim = (int)uniform(0, ndim - 1);
    int64_t xs[SL_MAX_DIMS], cs[SL_MAX_DIMS];
    for (int d = 0; d < ndim; ++d) {
      xs[d] = uniform(1, 5);
      /* scatter_reduce: index no larger than x off dim */
      cs[d] = per_slice ? xs[d] : uniform(1, xs[d]);
    }
    cs[dim] = uniform(0, 6);
    sl_call c;
    sl_call_init(&c, per_slice ? SL_OP_INDEX_REDUCE_BACKWARD
                               : SL_OP_SCATTER_REDUCE_BACKWARD);
    c.p.dim = dim;
    const int xslots[4] = {0, 1, 4, 5};
    for (int k = 0; k < 4; ++k) make_tensor(&c.arg[xslots[k]], ndim, xs);
    make_tensor(&c.arg[3], ndim, cs);
    make_tensor(&c.arg[6], ndim, cs);
    if (per_slice) {
      const int64_t m = cs[dim];
      make_tensor(&c.arg[2], 1, &m);
      c.arg[2].strides[0] = uniform(1, 3);
    } else {
      make_tensor(&c.arg[2], ndim, cs);
    }
    fill_index(&c.arg[2], xs[dim], buf, (int)uniform(0, 1));
    const sl__rb_addr a = per_slice ? sl__index_reduce_backward_addr(&c)
                                    : sl__scatter_reduce_backward_addr(&c);
    bad += check_addr(&c, a, per_slice);
  }
  CHECK_MSG(bad == 0, "%d wrong positions or offsets", bad);
}

int main(void) {
  test_div();
  test_iteration();
  test_backward_addr();
  return sl_test_finish("test_cuda_iter");
}
