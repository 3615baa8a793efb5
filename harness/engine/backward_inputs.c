/*
 * A backward op's inputs from its forward's run (sl_harness_op
 * .backward_inputs, op_facts.h): the forward's inputs moved from fwd, and
 * LibTorch's forward outputs `outs` adopted into their slots, or (outs NULL:
 * LibTorch refused the forward) zero tensors of the shapes they would have.
 * Slot 0, the upstream gradient, is allocated here and filled by the
 * caller.
 */
#include <stdlib.h>

#include "op_facts.h"

/* Moves forward input `from` of fwd into slot `to` of b. */
static void sl__move_input(sl_bundle *fwd, int from, sl_bundle *b, int to) {
  b->call.arg[to] = fwd->call.arg[from];
  b->mem[to] = fwd->mem[from];
  fwd->mem[from] = NULL;
}

/* grad_out, the forward's inputs, its result: scatter_reduce's and
 * index_reduce's (grad_out x index src|updates result), segment_reduce's
 * (grad_out data lengths result). */
int sl_backward_inputs_autograd(const sl_case *c, sl_bundle *fwd,
                                sl_tensor *outs, sl_bundle *b, char *err,
                                size_t errlen) {
  const int n_fw = sl_op_get(sl_case_spec_of(c->op)->forward)->n_in;
  for (int s = 0; s < n_fw; ++s) sl__move_input(fwd, s, b, s + 1);
  const sl_tensor *x = &b->call.arg[1];
  if (outs) {
    if (sl_bundle_adopt(b, n_fw + 1, outs[0], err, errlen)) return -1;
  } else if (sl_bundle_zeros(b, n_fw + 1, x->dtype, x->ndim, x->shape, err,
                             errlen))
    return -1;
  const sl_tensor *res = &b->call.arg[n_fw + 1];
  return sl_bundle_zeros(b, 0, c->dt, res->ndim, res->shape, err, errlen);
}

/* dynamic_scatter_backward: grad_voxel_feats feats voxel_feats
 * point2voxel_map voxel_points_count, from the forward's feats and its
 * outputs but voxel_coors. A refused forward maps every point nowhere. */
int sl_backward_inputs_voxels(const sl_case *c, sl_bundle *fwd, sl_tensor *outs,
                              sl_bundle *b, char *err, size_t errlen) {
  const sl_tensor *feats = &fwd->call.arg[0];
  int64_t n = feats->ndim == 2 ? feats->shape[0] : 0;
  int64_t ch = feats->ndim == 2 ? feats->shape[1] : 0;
  sl__move_input(fwd, 0, b, 1);
  int64_t m = outs ? outs[0].shape[0] : 0;
  int64_t mc[2] = {m, ch}, nn[1] = {n}, mm[1] = {m};
  if (outs) {
    free(outs[1].data); /* voxel_coors: not an input of the backward */
    /* each adopt frees its tensor, failing or not */
    int rc = sl_bundle_adopt(b, 2, outs[0], err, errlen);
    rc |= sl_bundle_adopt(b, 3, outs[2], err, errlen);
    rc |= sl_bundle_adopt(b, 4, outs[3], err, errlen);
    if (rc) return -1;
  } else if (sl_bundle_zeros(b, 2, c->dt, 2, mc, err, errlen) ||
             sl_bundle_zeros(b, 3, SL_I32, 1, nn, err, errlen) ||
             sl_bundle_zeros(b, 4, SL_I32, 1, mm, err, errlen)) {
    return -1;
  } else {
    for (int64_t i = 0; i < n; ++i) ((int32_t *)b->mem[3])[i] = -1;
  }
  return sl_bundle_zeros(b, 0, c->dt, 2, mc, err, errlen);
}
