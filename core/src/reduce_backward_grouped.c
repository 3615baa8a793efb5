/*
 * The backward line of prod when its scratch outgrows the caches
 * (reduce.h): the contributions grouped by target instead of scratch per
 * position. The dense lines (reduce_backward.c) keep four doubles per
 * position and visit them once per contribution pass, in index order: on
 * a line of 638,441 positions that is 20 MB read and written at random
 * three times, a cache miss a contribution, and scatter_reduce_backward
 * f16 prod ran at 0.28x LibTorch. Here a counting sort (stable, 32-bit)
 * lists each position's contributions in index order, and each position
 * keeps its four values in registers: the misses are left to the small
 * arrays of the sort and to src and grad_src themselves. Every element
 * sees the same operations in the same order, so the results are the
 * dense path's, bit for bit.
 */
#include <omp.h>
#include <stdint.h>
#include <string.h>

#include "reduce.h"
#include "walk.h"

/* Worth it while the grouped path's data at random (src and grad_src, the
 * sort's 4 bytes a contribution) stays below the dense path's (32 bytes a
 * position, less what the sort's first[] takes): with 100 contributions a
 * position, f32, the dense path ran 2x faster, with one a position 1.5x
 * slower (bench, lines of 40,000 and 400,000 positions). */
int sl__rb_grouped_fits(const sl__rbline *b, int64_t m) {
  const int64_t es = (int64_t)sl_dtype_size(b->dt);
  return b->reduce == SL_REDUCE_PROD && m > 0 && m < INT32_MAX &&
         b->n < INT32_MAX && 4 * b->n > (int64_t)SL__TH_BACKWARD_SCRATCH &&
         m * (2 * es + 4) < 28 * b->n;
}

/* first[j]..first[j + 1]: the contributions to position j, listed in
 * order[] in index order (a stable counting sort). Thread t of the team
 * counts and places the contributions to its range of positions only,
 * reading the whole index twice: the random counts and places, the sort's
 * cost, split with nothing shared. */
static void sl__rb_group(const sl__rbline *b, const sl__rbptr *p,
                         int32_t *first, int32_t *order, int threads) {
  const int64_t n = b->n, m = p->m;
  int64_t total[SL__MAX_TEAM];
  if (threads > SL__MAX_TEAM) threads = SL__MAX_TEAM;
  first[0] = 0;
#pragma omp parallel num_threads(threads) if (threads > 1)
  {
    const int team = omp_get_num_threads(), t = omp_get_thread_num();
    int64_t t0, t1, run = 0;
    sl__chunk(n, team, t, &t0, &t1);
    int32_t *count = first + 1; /* count[j]: first[j + 1] */
    memset(count + t0, 0, (size_t)(t1 - t0) * sizeof *count);
    for (int64_t i = 0; i < m; ++i) {
      const int64_t v = sl__target(b->index, p->ioff, b->istep, i);
      if (v >= t0 && v < t1) ++count[v];
    }
    total[t] = 0;
    for (int64_t j = t0; j < t1; ++j) total[t] += count[j];
#pragma omp barrier
    for (int u = 0; u < t; ++u) run += total[u];
    for (int64_t j = t0; j < t1; ++j) { /* count[j]: where j's list starts */
      const int32_t c = count[j];
      count[j] = (int32_t)run;
      run += c;
    }
    for (int64_t i = 0; i < m; ++i) { /* count[j] moves to j's end */
      const int64_t v = sl__target(b->index, p->ioff, b->istep, i);
      if (v >= t0 && v < t1) order[count[v]++] = (int32_t)i;
    }
  }
}

/* Positions [j0, j1): each writes its own grad_x and its own
 * contributions' grad_src, so ranges can go to threads apart. */
SL__ALWAYS_INLINE void sl__rb_grouped_as(sl_dtype dt, const sl__rbline *b,
                                         const sl__rbptr *p,
                                         const int32_t *first,
                                         const int32_t *order, int64_t j0,
                                         int64_t j1) {
  const int64_t es = (int64_t)sl__dtype_size(dt);
  const int wide = sl__acc_dtype(dt) != dt;
#define SRC(i) sl__load_f(dt, SL__AT(p->src, i, b->sstep))
#define RD(v) sl__round_to(sl__acc_dtype(dt), v)
  for (int64_t j = j0; j < j1; ++j) {
    const int32_t *q0 = order + first[j], *q1 = order + first[j + 1];
    const double xv = sl__load_f(dt, SL__AT(p->x, j, b->xstep));
    const double g = sl__load_f(dt, SL__AT(p->g, j, b->gstep));
    /* reduce_backward.c's A, B, Z and R of position j */
    const int fresh = !b->include_self && q0 < q1;
    double a = fresh ? 1.0 : xv == 0.0 ? 1.0 : xv, r = fresh ? 1.0 : xv;
    double bb = r, z = 0.0;
    for (const int32_t *q = q0; q < q1; ++q) {
      const double s = SRC(*q);
      a = RD(a * s);
      r = RD(r * s);
      if (s == 0.0) z += 1.0;
    }
    for (const int32_t *q = q0; q < q1; ++q) {
      const double s = SRC(*q);
      bb = RD(bb * (s == 0.0 && z == 1.0 ? 1.0 : s));
    }
    sl__store_f(dt, SL__AT(p->gx, j, b->gxstep),
                fresh ? 0.0 : RD(g * a) / (xv == 0.0 ? 1.0 : xv));
    const double rr = wide ? r : sl__load_f(dt, SL__AT(p->res, j, b->rstep));
    for (const int32_t *q = q0; q < q1; ++q) {
      const double s = SRC(*q);
      char *gs = SL__AT(p->gs, *q, b->gsstep);
      if (s == 0.0 && z == 1.0)
        sl__store_f(dt, gs, g * bb);
      else
        sl__store_f(dt, gs, RD(g * rr) / (s == 0.0 ? 1.0 : s));
    }
  }
#undef SRC
#undef RD
}

#define SL__RB_GROUPED_FN(D)                                                   \
  static void sl__rb_grouped_##D(const sl__rbline *b, const sl__rbptr *p,      \
                                 const int32_t *first, const int32_t *order,   \
                                 int64_t j0, int64_t j1) {                     \
    sl__rb_grouped_as(SL_##D, b, p, first, order, j0, j1);                     \
  }
SL__RB_DTYPES(SL__RB_GROUPED_FN)
#undef SL__RB_GROUPED_FN

int sl__rb_grouped_line(const sl__rbline *b, const sl__rbptr *p, int threads) {
  int32_t *first = sl__malloc((size_t)(b->n + 1 + p->m) * sizeof *first);
  if (!first) return 0;
  int32_t *order = first + b->n + 1;
  sl__rb_group(b, p, first, order, threads);
#pragma omp parallel num_threads(threads) if (threads > 1)
  {
    int64_t j0, j1;
    sl__chunk(b->n, omp_get_num_threads(), omp_get_thread_num(), &j0, &j1);
#define SL__RB_GROUPED_IS(D)                                                   \
  if (b->dt == SL_##D) sl__rb_grouped_##D(b, p, first, order, j0, j1);
    SL__RB_DTYPES(SL__RB_GROUPED_IS)
#undef SL__RB_GROUPED_IS
  }
  sl__free(first);
  return 1;
}
