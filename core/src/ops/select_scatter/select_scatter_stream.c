/*
 * select_scatter's copy past the caches when the slice lies inside x's
 * memory order (dim not outermost). Streaming all of x and then writing
 * the slice over it brought every line the slice touches back from
 * memory (a streamed line has left the caches): i8 x=298x298x300 along
 * dim -1 took 0.81 ms, 0.78x LibTorch, where the same copy along dim 0
 * (two parts, no line written twice) takes 0.58. Here each line of out is
 * read from x, the slice's bytes put in (blended in the registers where
 * they are one element of up to 8 bytes, else through a line buffer), and
 * streamed: out is written once, never read (0.61 ms). A staging buffer
 * of 8 or 32 KB, filled and then streamed, left reads and writes in turns
 * (0.79 ms without the slice); a call to memcpy for each element put in
 * cost more than the lines it saved (0.92 ms).
 *
 * In memory order out (dense, laid out as x) repeats a period of S * sd
 * elements (S: dim's size, sd: its stride): at * sd of x, sd of the
 * slice, the rest of x. The slice is first copied compact (value laid out
 * as out's slice is, without the gaps), so that period k's part of it is
 * compact[k * sd, (k + 1) * sd).
 */
#include "select_scatter_stream.h"

#include "stream_line.h"
#include "walk.h"

typedef struct sl__ss_stream {
  const char *x, *compact;
  char *out;
  int64_t pb, before, run; /* bytes: a period, x's part before the slice's
                              run in it, that run */
  int blend; /* runs of one element of 1, 2, 4 or 8 bytes, aligned */
} sl__ss_stream;

/* Where the next slice run starts (byte r0 of out, period k's). */
typedef struct sl__ss_cursor {
  int64_t k, r0;
} sl__ss_cursor;

/* Whether t fills its memory densely from t->data (no gaps, no negative
 * strides, no broadcast axis). */
static int sl__ss_dense(const sl_tensor *t) {
  sl_tensor in_memory = *t;
  sl__memory_order(1, &in_memory);
  for (int d = 0; d < t->ndim; ++d)
    if (t->strides[d] <= 0 && t->shape[d] > 1) return 0;
  return sl_tensor_is_contiguous(&in_memory);
}

/* d[0, n) := c[0, n): an element's worth without a call (most runs are
 * one element: the slice across the innermost axis). */
static inline void sl__ss_bytes(char *d, const char *c, int64_t n) {
  if (n == 1)
    *d = *c;
  else if (n == 2)
    memcpy(d, c, 2);
  else if (n == 4)
    memcpy(d, c, 4);
  else if (n == 8)
    memcpy(d, c, 8);
  else
    memcpy(d, c, (size_t)n);
}

/* dst (out's bytes [lo, hi)) gets the slice's bytes among them, the
 * cursor moved past every run that ends by hi. */
static void sl__ss_put(const sl__ss_stream *s, char *dst, int64_t lo,
                       int64_t hi, sl__ss_cursor *at) {
  while (at->r0 < hi) {
    const int64_t a = at->r0 > lo ? at->r0 : lo, end = at->r0 + s->run,
                  b = end < hi ? end : hi;
    sl__ss_bytes(dst + (a - lo), s->compact + at->k * s->run + (a - at->r0),
                 b - a);
    if (end > hi) return;
    ++at->k;
    at->r0 += s->pb;
  }
}

/* out's bytes [lo, hi): x's with the slice's put in, line by line in
 * registers and streamed; the partial lines at either end by plain
 * stores. */
static void sl__ss_stream_range(const sl__ss_stream *s, int64_t lo,
                                int64_t hi) {
  sl__ss_cursor at = {lo / s->pb, lo / s->pb * s->pb + s->before};
  if (at.r0 + s->run <= lo) ++at.k, at.r0 += s->pb;
  int64_t i = lo + (int64_t)(-(uintptr_t)(s->out + lo) & 63);
  if (i > hi) i = hi;
  memcpy(s->out + lo, s->x + lo, (size_t)(i - lo));
  sl__ss_put(s, s->out + lo, lo, i, &at);
  for (; i + 64 <= hi; i += 64) {
    if (at.r0 >= i + 64) { /* no slice byte in this line */
      sl__stream_line(s->out + i, s->x + i);
      continue;
    }
#ifdef SL__STREAM_SSE
    if (s->blend) { /* runs of one element: put in the registers */
      for (int64_t c = i; c < i + 64; c += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(s->x + c));
        for (; at.r0 < c + 16; ++at.k, at.r0 += s->pb)
          v = sl__chunk_put(v, (int)(at.r0 - c), s->compact + at.k * s->run,
                            s->run);
        _mm_stream_si128((__m128i *)(s->out + c), v);
      }
      continue;
    }
#endif
    _Alignas(64) char line[64];
    memcpy(line, s->x + i, 64);
    sl__ss_put(s, line, i, i + 64, &at);
    sl__stream_line(s->out + i, line);
  }
  memcpy(s->out + i, s->x + i, (size_t)(hi - i));
  sl__ss_put(s, s->out + i, i, hi, &at);
  sl__stream_fence();
}

int sl__select_scatter_streamed(sl_call *c, int threads) {
  const sl_tensor *x = &c->arg[0], *value = &c->arg[1], *out = &c->arg[2];
  const int dim = (int)c->p.dim;
  for (int d = 0; d < x->ndim; ++d)
    if (x->shape[d] > 1 && x->strides[d] != out->strides[d]) return 0;
  if (!sl__ss_dense(out) || !sl__ss_dense(x)) return 0;
  const int64_t S = out->shape[dim], sd = out->strides[dim];
  const int64_t es = (int64_t)sl_dtype_size(x->dtype);
  sl__ss_stream s = {.x = x->data,
                     .out = out->data,
                     .pb = S * sd * es,
                     .before = c->p.index * sd * es,
                     .run = sd * es};
  s.blend = sd == 1 && es <= 8 && (uintptr_t)out->data % (uintptr_t)es == 0;
  /* value laid out as out's slice is, the axes outside dim closed up */
  sl_tensor compact = *value;
  for (int d = 0, j = 0; d < out->ndim; ++d)
    if (d != dim) {
      const int64_t st = out->strides[d];
      compact.strides[j++] = st > sd ? st / S : st;
    }
  const int64_t n = sl__numel(value);
  if (!(compact.data = sl__malloc((size_t)(n * es) + 1))) return 0;
  sl__copy_strided(&compact, value, threads);
  s.compact = compact.data;
  /* the team by elements, as every copy's; each thread a run of bytes */
  const int64_t bytes = sl__numel(out) * es;
  const int team = sl__team(threads, sl__numel(out));
#pragma omp parallel for num_threads(team) schedule(static) if (team > 1)
  for (int t = 0; t < team; ++t) {
    int64_t b, e;
    sl__chunk(bytes, team, t, &b, &e);
    sl__ss_stream_range(&s, b, e);
  }
  sl__free(compact.data);
  return 1;
}
