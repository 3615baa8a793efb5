/* f16/bf16 scatter-like calls through their f32 code (half_wide.h). */
#include "half_wide.h"

#include "half_blocks.h"
#include "reduce_rows.h"

/* Whether t's elements fill its memory without gaps in some order of its
 * axes (contiguous, or transposed): then its memory widens as one run,
 * element for element. */
static int sl__half_wide_dense(const sl_tensor *t) {
  sl_tensor in_memory = *t;
  sl__memory_order(1, &in_memory);
  for (int d = 0; d < t->ndim; ++d)
    if (t->strides[d] < 0) return 0;
  return sl_tensor_is_contiguous(&in_memory);
}

/* t's shape and layout (dense), f32, at data. */
static sl_tensor sl__half_wide_tensor(const sl_tensor *t, float *data) {
  sl_tensor w = *t;
  w.dtype = SL_F32;
  w.data = data;
  return w;
}

/* Whether a and b lay their elements out alike. */
static int sl__half_wide_same_layout(const sl_tensor *a, const sl_tensor *b) {
  for (int d = 0; d < a->ndim; ++d)
    if (a->shape[d] > 1 && a->strides[d] != b->strides[d]) return 0;
  return 1;
}

/* src widened into wide as *w: laid out as src is when dense, else
 * contiguous, through a contiguous half copy (a stepped src took the
 * per-element lines: f16 amax with src stepped by 4, 0.54x LibTorch).
 * Returns 0 when that copy finds no memory. */
static int sl__half_wide_src(const sl_tensor *src, float *wide, int threads,
                             sl_tensor *w) {
  const int64_t m = sl__numel(src);
  *w = sl__half_wide_tensor(src, wide);
  if (sl__half_wide_dense(src)) {
    sl__half_widen_all(src->dtype, src->data, wide, m, threads);
    return 1;
  }
  sl_tensor dense = *src;
  sl_contiguous_strides(src->ndim, src->shape, dense.strides);
  dense.data = sl__malloc((size_t)m * sl_dtype_size(src->dtype) + 1);
  if (!dense.data) return 0;
  sl__copy_strided(&dense, src, threads);
  sl__half_widen_all(src->dtype, dense.data, wide, m, threads);
  sl__free(dense.data);
  sl_contiguous_strides(src->ndim, src->shape, w->strides);
  return 1;
}

float *sl__half_wide_begin(sl_call *c, sl_call *f, int threads) {
  sl_tensor *out = &c->arg[3];
  const sl_tensor *src = &c->arg[2];
  /* dense, not only contiguous: LibTorch lays a transposed x's out out
   * transposed, and an f16 scatter_nd sum into such an out took the
   * per-element path (bf16 into 4337x4337:t, 0.81x LibTorch) */
  if (!sl__half_wide_dense(out)) return NULL;
  const int64_t n = sl__numel(out), m = sl__numel(src);
  float *wide = sl__malloc((size_t)(n + m) * sizeof *wide + 1);
  if (!wide) return NULL;
  *f = *c;
  if (!sl__half_wide_src(src, wide + n, threads, &f->arg[2])) {
    sl__free(wide);
    return NULL;
  }
  /* out := x happens in f32: x widened straight when it is laid out as
   * out is, else through out; out itself is written once, narrowed. */
  const sl_tensor *x = &c->arg[0];
  if (!sl__half_wide_dense(x) || !sl__half_wide_same_layout(x, out)) {
    sl__copy_strided(out, x, threads);
    x = out;
  }
  sl__half_widen_all(out->dtype, x->data, wide, n, threads);
  /* x is out: the f32 code's out := x is a copy onto itself, skipped */
  f->arg[0] = f->arg[3] = sl__half_wide_tensor(out, wide);
  return wide;
}

void sl__half_wide_end(sl_call *c, float *wide, int threads) {
  sl_tensor *out = &c->arg[3];
  sl__half_narrow_all(out->dtype, wide, out->data, sl__numel(out), threads);
  sl__free(wide);
}

/* Whether the call has contributions enough to pay for widening x and
 * narrowing out, three passes over out. Lines that fit the caches beat
 * that below one contribution per 4 positions (f16 x=4M with 1,000
 * updates: 22.6x LibTorch by lines, 1.6x so; bf16 256x65536 with
 * 256x8192: 1.38x, 1.13x; with a quarter, 1.07x, 1.65x); a long line pays
 * a miss per contribution in its marks and another in its steps, and one
 * line runs on one thread (f16 x=4M with 300,000: lines 7.0 ms, so 2.2). */
static int sl__half_wide_pays(const sl_call *c) {
  const sl_tensor *index = &c->arg[1], *out = &c->arg[3];
  const int64_t line = out->ndim ? out->shape[c->p.dim] : 1;
  const int64_t per = line >= SL__TH_HALF_WIDE_LINE ? 32 : 4;
  return sl__numel(index) * per >= sl__numel(out);
}

/* The lines took a target's chain through a double and two conversions a
 * step (f16 sum and amin into 4 targets: 0.2-0.46x LibTorch). A mean sums
 * and counts as f32's does (sl__scatter_reduce_mean_rows), the lines'
 * numbers too. */
int sl__half_wide_rows(sl_call *c, int threads, int parted) {
  const sl_dtype dt = c->arg[3].dtype;
  const sl_reduce r = c->p.reduce;
  const int mean = r == SL_REDUCE_MEAN;
  if ((dt != SL_F16 && dt != SL_BF16) ||
      !sl__reduce_row_for(SL_F32, mean ? SL_REDUCE_SUM : r, c->arg[1].dtype,
                          1) ||
      r == SL_REDUCE_ASSIGN || r == SL_REDUCE_NONE || !sl__half_wide_pays(c))
    return 0;
  sl_call f;
  float *wide = sl__half_wide_begin(c, &f, threads);
  if (!wide) return 0;
  /* a mean's counts may find no memory: out then holds x, as the lines
   * expect it */
  const int done = mean ? sl__scatter_reduce_mean_rows(&f, threads, parted)
                        : (sl__scatter_reduce_rows(&f, threads, parted), 1);
  if (done)
    sl__half_wide_end(c, wide, threads);
  else
    sl__free(wide);
  return done;
}
