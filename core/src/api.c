/* Typed entry points: each sets the parameters its op reads, hands its
 * tensors to sl__run_slots in the op's slot order (sl_op_info) and goes
 * through sl_run, which does every check. */
#include "sl_internal.h"

/* Copies t[s] into call slot s for every slot of c->op (inputs, then
 * outputs) and runs the call. A NULL tensor fails naming its slot, except
 * `optional` (a slot the op may leave unused, or -1). */
static sl_status sl__run_slots(sl_ctx *ctx, const char *variant, sl_call *c,
                               const sl_tensor *const *t, int optional) {
  const sl_op_info *info = sl_op_get(c->op);
  for (int s = 0; s < info->n_in + info->n_out; ++s) {
    if (t[s])
      c->arg[s] = *t[s];
    else if (s != optional)
      return sl_ctx_fail(ctx, SL_STATUS_NULL_POINTER,
                         "%s: expected a tensor, got NULL", info->arg_names[s]);
  }
  return sl_run(ctx, variant, c);
}

/* The dims of the nd ops: ndims values (0: the leading axes), copied into
 * the call's fixed array, so their count is bounded here. */
static sl_status sl__set_dims(sl_ctx *ctx, sl_call *c, int ndims,
                              const int64_t *dims) {
  if (ndims < 0 || ndims > SL_MAX_DIMS)
    return sl_ctx_fail(ctx, SL_STATUS_INVALID_ARGUMENT,
                       "ndims: expected a count in [0,%d], got %d", SL_MAX_DIMS,
                       ndims);
  if (ndims > 0 && !dims)
    return sl_ctx_fail(ctx, SL_STATUS_NULL_POINTER,
                       "dims: expected %d values, got NULL", ndims);
  c->p.ndims = ndims;
  for (int k = 0; k < ndims; ++k) c->p.dims[k] = dims[k];
  return SL_STATUS_OK;
}

sl_status sl_gather(sl_ctx *ctx, const char *variant, const sl_tensor *x,
                    int64_t dim, const sl_tensor *index, sl_tensor *out) {
  sl_call c;
  sl_call_init(&c, SL_OP_GATHER);
  c.p.dim = dim;
  return sl__run_slots(ctx, variant, &c,
                       (const sl_tensor *const[]){x, index, out}, -1);
}

sl_status sl_gather_nd(sl_ctx *ctx, const char *variant, const sl_tensor *x,
                       const sl_tensor *index, int ndims, const int64_t *dims,
                       sl_tensor *out) {
  sl_call c;
  sl_call_init(&c, SL_OP_GATHER_ND);
  sl_status st = sl__set_dims(ctx, &c, ndims, dims);
  if (st) return st;
  return sl__run_slots(ctx, variant, &c,
                       (const sl_tensor *const[]){x, index, out}, -1);
}

sl_status sl_scatter(sl_ctx *ctx, const char *variant, const sl_tensor *x,
                     int64_t dim, const sl_tensor *index, const sl_tensor *src,
                     sl_tensor *out) {
  sl_call c;
  sl_call_init(&c, SL_OP_SCATTER);
  c.p.dim = dim;
  return sl__run_slots(ctx, variant, &c,
                       (const sl_tensor *const[]){x, index, src, out}, -1);
}

sl_status sl_scatter_value(sl_ctx *ctx, const char *variant, const sl_tensor *x,
                           int64_t dim, const sl_tensor *index, double value,
                           sl_tensor *out) {
  sl_call c;
  sl_call_init(&c, SL_OP_SCATTER);
  c.p.dim = dim;
  c.p.has_value = 1;
  c.p.value = value;
  /* NaN and values beyond int64 have no integer meaning: store 0. */
  c.p.ivalue = (value > -9.2e18 && value < 9.2e18) ? (int64_t)value : 0;
  return sl__run_slots(ctx, variant, &c,
                       (const sl_tensor *const[]){x, index, NULL, out}, 2);
}

sl_status sl_scatter_reduce(sl_ctx *ctx, const char *variant,
                            const sl_tensor *x, int64_t dim,
                            const sl_tensor *index, const sl_tensor *src,
                            sl_reduce reduce, int include_self,
                            sl_tensor *out) {
  sl_call c;
  sl_call_init(&c, SL_OP_SCATTER_REDUCE);
  c.p.dim = dim;
  c.p.reduce = reduce;
  c.p.include_self = include_self;
  return sl__run_slots(ctx, variant, &c,
                       (const sl_tensor *const[]){x, index, src, out}, -1);
}

sl_status sl_scatter_reduce_backward(
    sl_ctx *ctx, const char *variant, const sl_tensor *grad_out,
    const sl_tensor *x, int64_t dim, const sl_tensor *index,
    const sl_tensor *src, const sl_tensor *result, sl_reduce reduce,
    int include_self, sl_tensor *grad_x, sl_tensor *grad_src) {
  sl_call c;
  sl_call_init(&c, SL_OP_SCATTER_REDUCE_BACKWARD);
  c.p.dim = dim;
  c.p.reduce = reduce;
  c.p.include_self = include_self;
  return sl__run_slots(ctx, variant, &c,
                       (const sl_tensor *const[]){grad_out, x, index, src,
                                                  result, grad_x, grad_src},
                       -1);
}

sl_status sl_scatter_nd(sl_ctx *ctx, const char *variant, const sl_tensor *x,
                        const sl_tensor *index, const sl_tensor *src, int ndims,
                        const int64_t *dims, sl_reduce reduce, sl_tensor *out) {
  sl_call c;
  sl_call_init(&c, SL_OP_SCATTER_ND);
  c.p.reduce = reduce;
  sl_status st = sl__set_dims(ctx, &c, ndims, dims);
  if (st) return st;
  return sl__run_slots(ctx, variant, &c,
                       (const sl_tensor *const[]){x, index, src, out}, -1);
}

sl_status sl_index_reduce(sl_ctx *ctx, const char *variant, const sl_tensor *x,
                          int64_t dim, const sl_tensor *index,
                          const sl_tensor *updates, sl_reduce reduce,
                          int include_self, sl_tensor *out) {
  sl_call c;
  sl_call_init(&c, SL_OP_INDEX_REDUCE);
  c.p.dim = dim;
  c.p.reduce = reduce;
  c.p.include_self = include_self;
  return sl__run_slots(ctx, variant, &c,
                       (const sl_tensor *const[]){x, index, updates, out}, -1);
}

sl_status sl_index_reduce_backward(
    sl_ctx *ctx, const char *variant, const sl_tensor *grad_out,
    const sl_tensor *x, int64_t dim, const sl_tensor *index,
    const sl_tensor *updates, const sl_tensor *result, sl_reduce reduce,
    int include_self, sl_tensor *grad_x, sl_tensor *grad_updates) {
  sl_call c;
  sl_call_init(&c, SL_OP_INDEX_REDUCE_BACKWARD);
  c.p.dim = dim;
  c.p.reduce = reduce;
  c.p.include_self = include_self;
  return sl__run_slots(ctx, variant, &c,
                       (const sl_tensor *const[]){grad_out, x, index, updates,
                                                  result, grad_x, grad_updates},
                       -1);
}

sl_status sl_select_scatter(sl_ctx *ctx, const char *variant,
                            const sl_tensor *x, const sl_tensor *value,
                            int64_t dim, int64_t index, sl_tensor *out) {
  sl_call c;
  sl_call_init(&c, SL_OP_SELECT_SCATTER);
  c.p.dim = dim;
  c.p.index = index;
  return sl__run_slots(ctx, variant, &c,
                       (const sl_tensor *const[]){x, value, out}, -1);
}

sl_status sl_masked_scatter(sl_ctx *ctx, const char *variant,
                            const sl_tensor *x, const sl_tensor *mask,
                            const sl_tensor *source, sl_tensor *out) {
  sl_call c;
  sl_call_init(&c, SL_OP_MASKED_SCATTER);
  return sl__run_slots(ctx, variant, &c,
                       (const sl_tensor *const[]){x, mask, source, out}, -1);
}

sl_status sl_dynamic_scatter(sl_ctx *ctx, const char *variant,
                             const sl_tensor *feats, const sl_tensor *coors,
                             sl_reduce reduce, sl_tensor *voxel_feats,
                             sl_tensor *voxel_coors, sl_tensor *point2voxel_map,
                             sl_tensor *voxel_points_count, int64_t *voxels) {
  sl_call c;
  sl_call_init(&c, SL_OP_DYNAMIC_SCATTER);
  c.p.reduce = reduce;
  sl_status st = sl__run_slots(
      ctx, variant, &c,
      (const sl_tensor *const[]){feats, coors, voxel_feats, voxel_coors,
                                 point2voxel_map, voxel_points_count},
      -1);
  if (voxels) *voxels = st ? 0 : c.out_rows;
  return st;
}

sl_status sl_dynamic_scatter_backward(sl_ctx *ctx, const char *variant,
                                      const sl_tensor *grad_voxel_feats,
                                      const sl_tensor *feats,
                                      const sl_tensor *voxel_feats,
                                      const sl_tensor *point2voxel_map,
                                      const sl_tensor *voxel_points_count,
                                      sl_reduce reduce, sl_tensor *grad_feats) {
  sl_call c;
  sl_call_init(&c, SL_OP_DYNAMIC_SCATTER_BACKWARD);
  c.p.reduce = reduce;
  return sl__run_slots(ctx, variant, &c,
                       (const sl_tensor *const[]){
                           grad_voxel_feats, feats, voxel_feats,
                           point2voxel_map, voxel_points_count, grad_feats},
                       -1);
}

sl_status sl_segment_reduce(sl_ctx *ctx, const char *variant,
                            const sl_tensor *data, int64_t dim,
                            const sl_tensor *lengths, int offsets,
                            sl_reduce reduce, int has_initial, double initial,
                            sl_tensor *out) {
  sl_call c;
  sl_call_init(&c, SL_OP_SEGMENT_REDUCE);
  c.p.dim = dim;
  c.segment.offsets = offsets;
  c.p.reduce = reduce;
  c.p.has_value = has_initial;
  c.p.value = initial;
  return sl__run_slots(ctx, variant, &c,
                       (const sl_tensor *const[]){data, lengths, out}, -1);
}

sl_status sl_segment_reduce_backward(sl_ctx *ctx, const char *variant,
                                     const sl_tensor *grad_out,
                                     const sl_tensor *data, int64_t dim,
                                     const sl_tensor *lengths, int offsets,
                                     const sl_tensor *result, sl_reduce reduce,
                                     int has_initial, double initial,
                                     sl_tensor *grad_data) {
  sl_call c;
  sl_call_init(&c, SL_OP_SEGMENT_REDUCE_BACKWARD);
  c.p.dim = dim;
  c.segment.offsets = offsets;
  c.p.reduce = reduce;
  c.p.has_value = has_initial;
  c.p.value = initial;
  return sl__run_slots(
      ctx, variant, &c,
      (const sl_tensor *const[]){grad_out, data, lengths, result, grad_data},
      -1);
}
