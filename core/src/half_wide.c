/* f16/bf16 scatter-like calls through their f32 code (half_wide.h). */
#include "half_wide.h"

#include "half_blocks.h"

/* t's shape, contiguous, f32, at data. */
static sl_tensor sl__half_wide_tensor(const sl_tensor *t, float *data) {
  sl_tensor w = *t;
  w.dtype = SL_F32;
  w.data = data;
  sl_contiguous_strides(t->ndim, t->shape, w.strides);
  return w;
}

float *sl__half_wide_begin(sl_call *c, sl_call *f, int threads) {
  sl_tensor *out = &c->arg[3];
  const sl_tensor *src = &c->arg[2];
  if (!sl_tensor_is_contiguous(out) || !sl_tensor_is_contiguous(src))
    return NULL;
  const int64_t n = sl__numel(out), m = sl__numel(src);
  float *wide = sl__malloc((size_t)(n + m) * sizeof *wide + 1);
  if (!wide) return NULL;
  /* out := x happens in f32: x widened straight when it can be, else
   * through out (a strided x); out itself is written once, narrowed. */
  const sl_tensor *x = &c->arg[0];
  if (!sl_tensor_is_contiguous(x)) {
    sl__copy_strided(out, x, threads);
    x = out;
  }
  sl__half_widen_all(out->dtype, x->data, wide, n, threads);
  sl__half_widen_all(src->dtype, src->data, wide + n, m, threads);
  *f = *c;
  /* x is out: the f32 code's out := x is a copy onto itself, skipped */
  f->arg[0] = f->arg[3] = sl__half_wide_tensor(out, wide);
  f->arg[2] = sl__half_wide_tensor(src, wide + n);
  return wide;
}

void sl__half_wide_end(sl_call *c, float *wide, int threads) {
  sl_tensor *out = &c->arg[3];
  sl__half_narrow_all(out->dtype, wide, out->data, sl__numel(out), threads);
  sl__free(wide);
}
