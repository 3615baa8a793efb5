/*
 * scatter_nd's f16/bf16 sums through the f32 paths (the typed rows of
 * reduce_rows.h, the split by target): x and src widened once into f32
 * copies, the sums taken there in row-major order of index, as the half
 * path's f32 accumulators take them (scatter_nd_cpu.c), and every element
 * of out rounded to the half type once. An element whose f32 value is x's
 * bit for bit keeps x's bits: untouched, a NaN keeps its payload. The
 * generic walk loaded, converted and stored through a switch per element
 * (0.54x LibTorch on a 200,000-update f16 sum, issue 52).
 */
#include "scatter_nd_half.h"

#include <string.h>

#include "reduce.h"

/* The rows of t along its last axis, in row-major order: row r's first
 * element and the element step. */
static int64_t sl__row_len(const sl_tensor *t) {
  return t->ndim ? t->shape[t->ndim - 1] : 1;
}
static int64_t sl__row_step(const sl_tensor *t) {
  return t->ndim ? t->strides[t->ndim - 1] : 0;
}

SL__ALWAYS_INLINE void sl__widen_as(sl_dtype dt, const sl_tensor *t, float *to,
                                    int threads) {
  const int64_t len = sl__row_len(t), step = sl__row_step(t);
  const int64_t rows = len ? sl__numel(t) / len : 0;
  const int64_t es = (int64_t)sl__dtype_size(dt);
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1)
  for (int64_t r = 0; r < rows; ++r) {
    const char *p = sl__ptr(t, sl__offset_linear(t, r * len));
    for (int64_t j = 0; j < len; ++j)
      to[r * len + j] = (float)sl__load_f(dt, p + j * step * es);
  }
}

/* out := wide rounded to dt, or x's element where wide is wx bit for bit. */
SL__ALWAYS_INLINE void sl__narrow_as(sl_dtype dt, const sl_tensor *out,
                                     const sl_tensor *x, const float *wide,
                                     const float *wx, int threads) {
  const int64_t len = sl__row_len(out);
  const int64_t ostep = sl__row_step(out), xstep = sl__row_step(x);
  const int64_t rows = len ? sl__numel(out) / len : 0;
  const int64_t es = (int64_t)sl__dtype_size(dt);
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1)
  for (int64_t r = 0; r < rows; ++r) {
    char *o = sl__ptr(out, sl__offset_linear(out, r * len));
    const char *xp = sl__ptr(x, sl__offset_linear(x, r * len));
    for (int64_t j = 0; j < len; ++j) {
      const int64_t k = r * len + j;
      if (memcmp(&wide[k], &wx[k], sizeof(float)) == 0)
        memcpy(o + j * ostep * es, xp + j * xstep * es, (size_t)es);
      else
        sl__store_f(dt, o + j * ostep * es, wide[k]);
    }
  }
}

static void sl__widen(const sl_tensor *t, float *to, int threads) {
  if (t->dtype == SL_F16)
    sl__widen_as(SL_F16, t, to, threads);
  else
    sl__widen_as(SL_BF16, t, to, threads);
}

static void sl__narrow(const sl_tensor *out, const sl_tensor *x,
                       const float *wide, const float *wx, int threads) {
  if (out->dtype == SL_F16)
    sl__narrow_as(SL_F16, out, x, wide, wx, threads);
  else
    sl__narrow_as(SL_BF16, out, x, wide, wx, threads);
}

/* A contiguous f32 descriptor of t's shape over data. */
static sl_tensor sl__f32_like(const sl_tensor *t, float *data) {
  return sl_tensor_make(SL_F32, t->ndim, t->shape, data);
}

int sl__scatter_nd_half(sl_call *c, int threads, sl__nd_path_fn path) {
  const sl_dtype dt = c->arg[3].dtype;
  if (c->p.reduce != SL_REDUCE_SUM || (dt != SL_F16 && dt != SL_BF16)) return 0;
  const int64_t n = sl__numel(&c->arg[3]), m = sl__numel(&c->arg[2]);
  if (n == 0 || m == 0) return 0;
  float *wx = sl__malloc((size_t)n * sizeof(float));
  float *wout = sl__malloc((size_t)n * sizeof(float));
  float *wsrc = sl__malloc((size_t)m * sizeof(float));
  int done = 0;
  if (wx && wout && wsrc) {
    sl_call w = *c;
    w.arg[0] = sl__f32_like(&c->arg[0], wx);
    w.arg[2] = sl__f32_like(&c->arg[2], wsrc);
    w.arg[3] = sl__f32_like(&c->arg[3], wout);
    sl__widen(&c->arg[0], wx, threads);
    sl__widen(&c->arg[2], wsrc, threads);
    done = path(&w, threads);
    if (done > 0) sl__narrow(&c->arg[3], &c->arg[0], wout, wx, threads);
  }
  sl__free(wx);
  sl__free(wout);
  sl__free(wsrc);
  return done;
}
