/*
 * The adjoint identity, an oracle that does not lean on LibTorch: a
 * scatter-add S is the transpose of the gather G by the same index, so for
 * any y of x's shape
 *
 *     < out - x, y >  =  < S(src), y >  =  < src, G(y) >
 *
 * where out = x + S(src) (scatter_reduce sum with include_self, index_reduce
 * sum with include_self, scatter_nd sum). The right side is computed with
 * the core's cpu.serial gather (gather_nd for scatter_nd; for index_reduce
 * a gather by the index spread along its axis): another kernel than the
 * one judged, and no reference. A variant that sends an update to the
 * wrong place, drops one or adds one twice breaks it, whatever LibTorch
 * says. Floats are judged within the bound the roundings explain:
 *
 *   (gamma_N(u_acc) + u_out) * (<|x|, |y|> + <|src|, G(|y|)>)
 *
 * plus the f64 roundings of the two sums (N: one more than the updates, a
 * bound on the terms any position adds; u_acc the accumulator's unit
 * roundoff, f32 for the half types; u_out the output's). A --tolerance
 * override for the dtype replaces the first factor (tolerance.h).
 *
 * The backward ops are held to their forward the same way: for a forward F
 * positively homogeneous of degree 1 in its inputs v (sum, mean; amax and
 * amin with include_self; dynamic_scatter's max), Euler's identity gives
 *
 *     < F(v), grad_out >  =  sum over v of < v, grad_v >
 *
 * with F the core's cpu.serial scatter_reduce or index_reduce, and for
 * dynamic_scatter_backward its voxel_feats input (the call carries no
 * coordinates to run the forward on). A gradient sent to the wrong input,
 * dropped, or of another reduce than the forward's breaks it.
 */
#ifndef SL_ADJOINT_H
#define SL_ADJOINT_H

#include <stddef.h>
#include <stdint.h>

#include "sl/sl.h"

/* How a broken identity's message begins when its helper (the core's
 * cpu.serial gather or forward) is what differs from LibTorch: the defect
 * is the helper's, shared by every op the identity leans on it for
 * (failure_group.h). */
#define SL_ADJOINT_HELPER_PREFIX                                               \
  "the adjoint identity's helper, the cpu.serial "
/* Before the relation of the helper's outputs to LibTorch's
 * (defect_relation.h), when one holds: "(...; its outputs = include_self=1)":
 * the helper's defect is then the one its own op's failures show. */
#define SL_ADJOINT_HELPER_RELATION "; its outputs "

/*
 * Checks the identity on the first run's outputs (first, as produced) of
 * the call inferred, with y drawn from seed. Returns 1 when it holds or
 * does not apply (*applied 0: another op or reduce, include_self off, a
 * non-finite value, too many updates for the bound to mean anything); 0
 * when it is broken, msg giving both sides, their difference and the
 * bound; -1 when it could not be computed (no memory, the gather failed:
 * msg says why).
 */
int sl_adjoint_agrees(const sl_call *inferred, const sl_call *first,
                      uint64_t seed, int *applied, char *msg, size_t len);

/* The op's own checks (sl_harness_op.adjoint), each with
 * sl_adjoint_agrees's contract: the adding scatters (scatter_reduce,
 * index_reduce, scatter_nd), the backward ops whose forward the core runs
 * (scatter_reduce's, index_reduce's), dynamic_scatter_backward and
 * segment_reduce_backward. */
int sl_adjoint_scatter(const sl_call *c, const sl_call *first, uint64_t seed,
                       int *applied, char *msg, size_t len);
int sl_adjoint_backward(const sl_call *c, const sl_call *first, uint64_t seed,
                        int *applied, char *msg, size_t len);
int sl_adjoint_dynamic_backward(const sl_call *c, const sl_call *first,
                                uint64_t seed, int *applied, char *msg,
                                size_t len);
int sl_adjoint_segment_backward(const sl_call *c, const sl_call *first,
                                uint64_t seed, int *applied, char *msg,
                                size_t len);

#endif
