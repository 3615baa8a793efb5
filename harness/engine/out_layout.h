/*
 * Outputs laid out as LibTorch lays out its result, for scatterlab's own
 * CPU variants (the core takes any output strides, docs/spec.md §2). Where
 * LibTorch's result starts as a copy of x that keeps x's layout, a
 * row-major out made a column-major x a transpose for our kernels and a
 * memcpy for LibTorch (select_scatter of a transposed x: 0.05x); so the
 * check and the timing hand our kernels the layout LibTorch's result has,
 * and both read out by its strides. Providers keep row-major outputs: the
 * provider ABI promises them nothing else.
 */
#ifndef SL_OUT_LAYOUT_H
#define SL_OUT_LAYOUT_H

#include "sl/sl.h"

/* How LibTorch 2.11 lays out an op's result (op_facts.h's out_layout). */
typedef enum sl_out_layout {
  SL_OUT_ROW_MAJOR = 0, /* a new tensor, row-major */
  /* x's strides when x is dense and does not overlap (select_scatter:
   * clone_preserve_strides; the reference copies any other x row-major
   * first), else row-major */
  SL_OUT_DENSE_X,
  /* dense strides in the order of x's whenever x does not overlap
   * (scatter_nd's reference, index_put: clone with the memory format
   * preserved), else row-major */
  SL_OUT_X_ORDER
} sl_out_layout;

/* Sets the strides of call's first output (its shape already inferred, as
 * x's) as LibTorch's result has them; leaves them as they are (row-major)
 * when the op's result is a new tensor or x does not qualify. Returns 1
 * when it changed them. */
int sl_outputs_like_reference(sl_call *call);

#endif /* SL_OUT_LAYOUT_H */
