/* Row-major walks over strided tensors (see walk.h). */
#include "walk.h"

void sl__walk_init(sl__walk *w, int ndim, const int64_t *shape, int nt,
                   const int64_t *const *strides, int64_t start) {
  int n = 0;
  w->nt = nt;
  for (int d = 0; d < ndim; ++d) {
    if (shape[d] == 1) continue; /* an axis of extent 1 never moves */
    int merge = n > 0 && shape[d] != 0 && w->shape[n - 1] != 0;
    for (int t = 0; merge && t < nt; ++t)
      merge = w->st[t][n - 1] == strides[t][d] * shape[d];
    if (merge) {
      w->shape[n - 1] *= shape[d];
      for (int t = 0; t < nt; ++t) w->st[t][n - 1] = strides[t][d];
      continue;
    }
    w->shape[n] = shape[d];
    for (int t = 0; t < nt; ++t) w->st[t][n] = strides[t][d];
    ++n;
  }
  if (n == 0) { /* a scalar, or every axis of extent 1 */
    w->shape[0] = 1;
    for (int t = 0; t < nt; ++t) w->st[t][0] = 0;
    n = 1;
  }
  w->ndim = n;
  w->len = w->shape[n - 1];
  w->j = w->len ? start % w->len : 0;
  int64_t row = w->len ? start / w->len : 0;
  for (int t = 0; t < nt; ++t) w->off[t] = 0;
  w->idx[n - 1] = 0;
  for (int d = n - 2; d >= 0; --d) {
    int64_t e = w->shape[d];
    w->idx[d] = e ? row % e : 0;
    row = e ? row / e : 0;
    for (int t = 0; t < nt; ++t) w->off[t] += w->idx[d] * w->st[t][d];
  }
}

int64_t sl__walk_slab(sl__walk *w, int ndim, const int64_t *shape, int nt,
                      const int64_t *const *strides, int axis, int64_t a0,
                      int64_t a1, int64_t *base) {
  int64_t sub[SL_MAX_DIMS], n = 1;
  for (int d = 0; d < ndim; ++d) sub[d] = shape[d];
  for (int t = 0; t < nt; ++t) base[t] = 0;
  if (axis >= 0) {
    sub[axis] = a1 - a0;
    for (int t = 0; t < nt; ++t) base[t] = a0 * strides[t][axis];
  }
  for (int d = 0; d < ndim; ++d) n *= sub[d];
  sl__walk_init(w, ndim, sub, nt, strides, 0);
  return n;
}

void sl__slabs_plan(sl__slabs *s, int ndim, const int64_t *shape,
                    const sl_tensor *out, unsigned fixed, int threads) {
  s->axis = -1;
  s->team = 1;
  s->cut[0] = s->cut[1] = 0;
  int64_t n = 1;
  for (int d = 0; d < ndim; ++d) n *= shape[d];
  for (int d = 0; d < ndim; ++d) {
    if ((fixed >> d & 1u) || shape[d] < 2) continue;
    if (s->axis < 0 || shape[d] > shape[s->axis]) s->axis = d;
    if (shape[d] >= threads) {
      s->axis = d;
      break;
    }
  }
  if (s->axis < 0) return;
  int64_t len = shape[s->axis];
  int team = sl__team(threads < SL__MAX_TEAM ? threads : SL__MAX_TEAM, n);
  if (team > len) team = (int)len;
  /* Elements of out per 64-byte line, and where along the axis lines
   * start, when the axis is out's unit-stride axis. */
  int64_t es = (int64_t)sl_dtype_size(out->dtype), line = 1, skew = 0;
  if (out->strides[s->axis] == 1 && es > 0 && es < 64 && 64 % es == 0) {
    line = 64 / es;
    skew = (int64_t)(((uintptr_t)out->data / (uintptr_t)es) % (uintptr_t)line);
  }
  int k = 0;
  s->cut[0] = 0;
  for (int t = 1; t < team; ++t) {
    int64_t b, e;
    sl__chunk(len, team, t, &b, &e);
    b = (b + skew + line / 2) / line * line - skew; /* nearest line start */
    if (b > s->cut[k] && b < len) s->cut[++k] = b;
  }
  s->cut[++k] = len;
  s->team = k;
}

void sl__for_chunks(int threads, int64_t n,
                    void (*fn)(void *user, int64_t begin, int64_t end),
                    void *user) {
  sl__for_units(threads, n, n, fn, user);
}

void sl__for_units(int threads, int64_t elements, int64_t n,
                   void (*fn)(void *user, int64_t begin, int64_t end),
                   void *user) {
  int team = sl__team(threads, elements);
  if (team > n) team = n > 1 ? (int)n : 1;
#pragma omp parallel for num_threads(team) schedule(static) if (team > 1)
  for (int t = 0; t < team; ++t) {
    int64_t b, e;
    sl__chunk(n, team, t, &b, &e);
    if (b < e) fn(user, b, e);
  }
}

void sl__for_panels(int threads, int64_t n, int64_t cols, int64_t panel,
                    size_t es, void (*fn)(void *user, int64_t a0, int64_t a1),
                    void *user) {
  const int64_t line = es > 0 && es < 64 && 64 % es == 0 ? 64 / (int64_t)es : 1;
  int team = sl__team(threads, n);
  if (team > cols / line) team = cols / line > 1 ? (int)(cols / line) : 1;
#pragma omp parallel for num_threads(team) schedule(static) if (team > 1)
  for (int t = 0; t < team; ++t) {
    int64_t b, e;
    sl__chunk(cols / line, team, t, &b, &e);
    b *= line; /* whole lines per thread; the last takes the tail */
    e = t + 1 < team ? e * line : cols;
    const int64_t count = sl__panel_count(b, e, panel);
    for (int64_t k = 0; k < count; ++k) {
      int64_t p0, p1;
      sl__panel_at(b, e, count, k, &p0, &p1);
      fn(user, p0, p1);
    }
  }
}

void sl__for_blocks(int threads, int64_t outer, int64_t inner, int64_t work,
                    sl__blocks_fn fn, const void *user) {
  if (threads <= 1 || work < 32768 ||
      (outer < threads && inner < 64 * threads)) {
    fn(user, 0, outer, 0, inner);
    return;
  }
  const int by_block = outer >= threads;
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int t = 0; t < threads; ++t) {
    if (by_block)
      fn(user, outer * t / threads, outer * (t + 1) / threads, 0, inner);
    else
      fn(user, 0, outer, inner * t / threads, inner * (t + 1) / threads);
  }
}
