/*
 * scatter_reduce and index_reduce in the form that the atomic, lock and
 * sorted variants work on: L lines of out along the reduced dim (extent n),
 * each taking m contributions. Contribution i of line l reads the target
 * t = index(l, i) and the element src(l, i), and combines it into out(l, t).
 *
 *   scatter_reduce: every line has its own index line (iline[l]); the
 *                   destination of a contribution is one element, e = l*n + t.
 *   index_reduce:   one index serves every line (rows = 1): contribution i
 *                   moves a whole row, the L elements out(., t) — the unit
 *                   that a lock covers and that a bucket sorts.
 *
 * Unlike cpu.omp (parallel over lines, which never conflict), these
 * variants split the contributions themselves among the threads, so they
 * stay parallel when there are fewer lines than threads (a single line of
 * 2^20 contributions into M destinations: the contention benchmark).
 */
#ifndef SL_CONFLICT_LINES_H
#define SL_CONFLICT_LINES_H

#include "conflict.h"

typedef struct sl__clines {
  const char *what; /* the op, for messages */
  sl_dtype dt;
  sl_reduce reduce;
  int self; /* include_self */
  int rows; /* 1: one index for every line (index_reduce) */
  int64_t L, n, m, es;
  int64_t *oline, *sline, *iline; /* [L] line starts; iline NULL when rows */
  int dense; /* oline[l] = l*olstep and sline[l] = l*slstep */
  int64_t olstep, slstep, ilstep; /* (set by sl__clines_seal) */
  int elinear; /* destination e lies at element e*eunit of out */
  int64_t eunit;
  int64_t ostep, sstep, istep; /* element steps along the dim */
  char *out;                   /* already holds x */
  const char *src;
  const sl_tensor *index;
} sl__clines;

/* Allocates the line starts of L lines (and iline unless p->rows, which
 * must be set first). */
sl_status sl__clines_alloc(sl_ctx *ctx, sl__clines *p, int64_t L);
void sl__clines_free(sl__clines *p);
/* To be called once the line starts are filled: notes whether the lines are
 * evenly spaced (a row of index_reduce is then a strided vector). */
void sl__clines_seal(sl__clines *p);

/* The three strategies (conflict.h). Each expects out to hold x already. */
sl_status sl__clines_atomic(sl_ctx *ctx, const sl__clines *p, int threads);
sl_status sl__clines_lock(sl_ctx *ctx, const sl__clines *p, int threads);
sl_status sl__clines_sorted(sl_ctx *ctx, const sl__clines *p, int threads);

/* One of the three, for the ops' thin entry points. */
typedef sl_status (*sl__cl_strategy)(sl_ctx *, const sl__clines *, int);

#endif /* SL_CONFLICT_LINES_H */
