/*
 * Oracles: how a variant's output is judged against the reference's.
 *
 *   exact      values equal (NaN matches NaN, -0.0 matches 0.0); bitwise for
 *              pure data movement
 *   tolerance  float sum/prod/mean and the backward ops, where summation
 *              order may differ. For scatter_reduce, scatter_nd and
 *              index_reduce, judged per position from the call's inputs
 *              (writes.h): exact where at most one value is written (no
 *              order exists), else |got - want| within a bound derived from
 *              the contributions (sum: 2 gamma_n sum|terms|, mean: the same
 *              over the count with two more roundings, prod: 2 gamma_n
 *              |want|; oracles.c). Elsewhere (dynamic_scatter, the backward
 *              ops), and for a dtype with a --tolerance override, diff1 and
 *              diff2 within the dtype's threshold (sl_tolerance).
 *              (a position where some accumulation order overflows and
 *              another does not is not judged: it proves nothing)
 *   any_valid  assignment with duplicate targets: where the output differs
 *              from the reference it must hold one of the values written to
 *              that position
 */
#ifndef SL_ORACLES_H
#define SL_ORACLES_H

#include <stdint.h>

#include "case.h"
#include "sl/sl.h"

typedef enum sl_oracle {
  SL_ORACLE_EXACT,
  SL_ORACLE_BITWISE,
  SL_ORACLE_TOLERANCE,
  SL_ORACLE_ANY_VALID
} sl_oracle;

typedef struct sl_diff {
  double diff1, diff2, diff3; /* docs/spec.md §5, in f64 */
  int64_t mismatches;         /* elements judged wrong */
  int64_t first_bad;          /* row-major position of the first, or -1 */
  int64_t order_dependent;    /* positions whose value depends on the
                                 accumulation order (overflow), not judged */
  int64_t flushed;            /* positions passed as flushed subnormals
                                 (SL_CMP_FTZ_ADDS), not judged further */
  char msg[256];              /* what was wrong, for the verdict message */
} sl_diff;

/* The oracle for output slot `slot` of case c: its op's function
 * sl__oracle_<op> (op_facts.c), listed from the core's op list, so that an
 * op without an oracle does not build. */
sl_oracle sl_oracle_for(const sl_case *c, int slot);
const char *sl_oracle_name(sl_oracle o);

/* Threshold on diff1 and diff2 for dtype dt (one table, docs/spec.md §5; a
 * --tolerance override when one is installed: tolerance.h). Used where no
 * per-position bound is derived, or where an override is installed. */
double sl_tolerance(sl_dtype dt);

/*
 * Compares got with want (same shape required; any strides). `call` is the
 * call whose inputs produced them (or NULL): any_valid recomputes the
 * written values from it, tolerance the order-dependent positions. Returns 1
 * when got passes.
 */
int sl_compare(const sl_tensor *got, const sl_tensor *want, sl_oracle o,
               const sl_call *call, sl_diff *d);

/* What the variant's arithmetic may do that the reference's does not
 * (sl_compare_as's flags). */
enum {
  /* Its float atomic adds flush subnormal inputs and results to
   * sign-preserving zero: NVIDIA GPUs' atom.add.f32, which torch.cuda's
   * scatter_add, index_add and scatter_reduce sum/mean show too
   * (docs/reference-differences.md). Under the tolerance oracle a sum or
   * mean in f32, bf16 or f16 (f32 accumulators) then passes within one
   * smallest normal f32 per contribution. */
  SL_CMP_FTZ_ADDS = 1u
};

/* sl_compare for a variant whose arithmetic has the properties `flags`. */
int sl_compare_as(const sl_tensor *got, const sl_tensor *want, sl_oracle o,
                  const sl_call *call, unsigned flags, sl_diff *d);

#endif
