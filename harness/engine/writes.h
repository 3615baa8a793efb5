/*
 * The writes that an assignment op makes: (output position, source element)
 * pairs, sorted by position. The any-valid-answer oracle uses them to accept
 * any of the values written to a position that has several writers.
 * Computed from the op's definition, independently of every kernel.
 */
#ifndef SL_WRITES_H
#define SL_WRITES_H

#include <stdint.h>

#include "sl/sl.h"

typedef struct sl_write {
  int64_t target;  /* row-major position in the output */
  const void *src; /* the element written there */
} sl_write;

/* A target's own term in a reduction: none (include_self off), x's
 * element there (include_self, scatter_nd's sum), or the scalar
 * (segment_reduce's initial). */
typedef enum { SL_SELF_NONE, SL_SELF_X, SL_SELF_SCALAR } sl_self_term;

typedef struct sl_writes {
  sl_write *w;
  int64_t n;
  /* scatter's value, or segment_reduce's initial, encoded in the data's
   * dtype */
  unsigned char scalar[16];
  sl_self_term self;
} sl_writes;

/* Builds the writes of call (for the reducing forms: where each source
 * element goes) through its op's row (harness/engine/op_facts.c). Returns 0, or
 * -1 for an op without writes or no memory. */
int sl_writes_build(const sl_call *call, sl_writes *out);
/* The builders of the ops' rows: scatter and scatter_reduce, scatter_nd,
 * index_reduce, segment_reduce, dynamic_scatter. Same returns. */
int sl_writes_scatter(const sl_call *call, sl_writes *out);
int sl_writes_nd(const sl_call *call, sl_writes *out);
int sl_writes_index(const sl_call *call, sl_writes *out);
int sl_writes_segment(const sl_call *call, sl_writes *out);
int sl_writes_dynamic(const sl_call *call, sl_writes *out);
void sl_writes_free(sl_writes *w);
/* Whether two writes share a target (the case has contention). */
int sl_writes_collide(const sl_writes *w);
/* Whether `value` (element bytes of size es) was written at target. */
int sl_writes_has(const sl_writes *w, int64_t target, const void *value,
                  size_t es);

/*
 * Whether the float sum/mean/prod at `target` depends on the order in which
 * its contributions (the written values, and x's own element where it takes
 * part) are accumulated: some order overflows (or, for prod, underflows) the
 * accumulator where another does not. Such a position proves nothing about
 * a kernel, so the tolerance oracle does not judge it.
 */
int sl_writes_order_dependent(const sl_writes *w, const sl_call *call,
                              int64_t target);

/* The contributions to a reducing op's output at `target`: n terms, the
 * written values and x's own element where it takes part (include_self, or
 * scatter_nd), `writes` of them written. With at most one written value
 * the result is one rounding of a fixed expression (x untouched, the
 * value, x op value, their mean: a sum of two f16, bf16 or f32 values
 * rounded once more from a wider accumulator is still correctly rounded,
 * as the wider type has at least 2p + 2 bits), so no order can change it;
 * abs_sum (sum of |term|) bounds what reordering can do otherwise. grain
 * is the largest power of two of which every term is a multiple (0 when a
 * term is not finite; every term 0: inf): a sum whose abs_sum is below
 * 2^p grains is exact in a p-bit accumulator, in any order. */
typedef struct sl_contrib {
  int64_t n, writes;
  int64_t count; /* a mean's divisor: n, or writes where the initial value
                    of segment_reduce is summed in but not counted */
  double abs_sum, grain;
} sl_contrib;
void sl_writes_contributions(const sl_writes *w, const sl_call *call,
                             int64_t target, sl_contrib *out);

#endif
