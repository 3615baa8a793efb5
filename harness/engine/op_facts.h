/*
 * What the harness knows of each op (harness/engine/op_facts.c): the inputs the
 * op reads, the axes whose order cannot change its result, whether its output
 * starts as x, the writes each position gets, how a backward op's inputs
 * come from its forward, and its adjoint identity; beside the rows, the
 * oracle of each output (sl_oracle_for). One row per op of the core's list;
 * the harness tells ops apart through it only.
 */
#ifndef SL_HARNESS_OP_FACTS_H
#define SL_HARNESS_OP_FACTS_H

#include "case.h"
#include "datagen.h"
#include "oracles.h"
#include "out_layout.h"
#include "sl/sl.h"

/* Axes to reverse to check that a result is order-free (rerun.h): of index
 * (imask) and of the updates tensor in slot uslot (umask); cut: the
 * updates are read over index's shape (scatter_reduce's src may be
 * larger). */
typedef struct sl_reversal {
  unsigned imask, umask;
  int uslot, cut;
} sl_reversal;

struct sl_writes; /* writes.h */

typedef struct sl_harness_op {
  /* Whether the op reads input `slot` (a benchmark's useful bytes); NULL:
   * every input. */
  int (*reads_input)(const sl_call *c, int slot);
  /* Whether the call's result cannot depend on the order of its updates,
   * and *v the axes to reverse to show it; NULL: it may. */
  int (*reversal)(const sl_call *c, sl_reversal *v);
  /* The output starts as x and the op's writes change it: an output equal
   * to x proves little (runner.c's mistrust). */
  int writes_into_x;
  /* How LibTorch lays out the op's result (out_layout.h); 0: row-major. */
  sl_out_layout out_layout;
  /* Where each element the op writes or reduces goes (writes.h): the
   * any-valid oracle's writers, the tolerance's terms per position; NULL:
   * not known (the per-dtype tolerance table judges). */
  int (*writes)(const sl_call *c, struct sl_writes *out);
  /* Elements of input `slot` that the op reads when not all of them
   * (masked_scatter's source: the mask's true positions), else -1; NULL:
   * all of every input it reads. */
  int64_t (*read_elems)(const sl_call *c, int slot);
  /* Outputs (bit 1u << slot) whose rows past call->out_rows the kernel
   * leaves alone (dynamic_scatter's voxel outputs). */
  unsigned out_rows_slots;
  /* A backward op's inputs from its forward's run (backward_inputs.c);
   * NULL for a forward op. */
  int (*backward_inputs)(const sl_case *c, sl_bundle *fwd, sl_tensor *outs,
                         sl_bundle *b, char *err, size_t errlen);
  /* The adjoint identity for the op's calls (adjoint.h); NULL: none. */
  int (*adjoint)(const sl_call *c, const sl_call *first, uint64_t seed,
                 int *applied, char *msg, size_t len);
} sl_harness_op;

/* backward_inputs.c: autograd's inputs (grad_out, the forward's inputs,
 * its result), and dynamic_scatter_backward's. outs: LibTorch's forward
 * outputs, or NULL when it refused the forward. */
int sl_backward_inputs_autograd(const sl_case *c, sl_bundle *fwd,
                                sl_tensor *outs, sl_bundle *b, char *err,
                                size_t errlen);
int sl_backward_inputs_voxels(const sl_case *c, sl_bundle *fwd, sl_tensor *outs,
                              sl_bundle *b, char *err, size_t errlen);

const sl_harness_op *sl_harness_op_of(sl_op op);

#endif /* SL_HARNESS_OP_FACTS_H */
