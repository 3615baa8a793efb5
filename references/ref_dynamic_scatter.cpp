/*
 * References of mmcv's dynamic_scatter (dynamic_point_to_voxel, seed 004)
 * and its backward, composed from LibTorch ops.
 *
 * LibTorch has no such op, so nothing in LibTorch checks the contract: the
 * shapes and dtypes are checked here, and rejected with the shim's own
 * messages, so that an invalid case is refused by both sides (docs/spec.md §4).
 */
#include "ref_internal.h"

/* feats-like tensors: 2-D f32 or f64 (docs/spec.md §3). */
static void slref_check_feats(const at::Tensor &t, const char *op,
                              const char *name) {
  if (t.dim() != 2)
    throw slref_reject(slref_fmt("%s: %s must be 2-D [rows,C], got %s", op,
                                 name, slref_shape(t).c_str()));
  if (t.scalar_type() != at::kFloat && t.scalar_type() != at::kDouble)
    throw slref_reject(slref_fmt("%s: %s must be f32 or f64, got %s", op, name,
                                 slref_dtype_name(t)));
}

/* An int32 tensor of rank `ndim` whose first extent is `rows`. */
static void slref_check_i32(const at::Tensor &t, const char *op,
                            const char *name, int64_t ndim, int64_t rows) {
  if (t.scalar_type() != at::kInt)
    throw slref_reject(
        slref_fmt("%s: %s must be i32, got %s", op, name, slref_dtype_name(t)));
  if (t.dim() != ndim || t.size(0) != rows)
    throw slref_reject(slref_fmt("%s: %s must be %lld-D with %lld rows, got "
                                 "%s",
                                 op, name, (long long)ndim, (long long)rows,
                                 slref_shape(t).c_str()));
}

static void slref_check_dynamic_reduce(sl_reduce r, const char *op) {
  if (r != SL_REDUCE_SUM && r != SL_REDUCE_MEAN && r != SL_REDUCE_MAX)
    throw slref_reject(slref_fmt("%s: reduce must be sum, mean or max, got %s",
                                 op, sl_reduce_name(r)));
}

/*
 * Forward. Rows of coors with a negative entry are dropped; the distinct
 * remaining rows, sorted lexicographically (unique_dim), are the voxels. The
 * reduction starts from zeros with include_self = false, so each voxel holds
 * exactly the sum / mean / max of its points.
 */
slref_tensors slref_dynamic_scatter(const sl_call &call) {
  const char *op = "dynamic_scatter";
  at::Tensor feats = slref_arg(call, 0), coors = slref_arg(call, 1);
  slref_check_feats(feats, op, "feats");
  const int64_t N = feats.size(0), C = feats.size(1);
  slref_check_i32(coors, op, "coors", 2, N);
  slref_check_dynamic_reduce(call.p.reduce, op);
  const int64_t D = coors.size(1);
  /* unique_dim refuses rows of width 0 only when there are rows; refuse
   * them always, so that the answer does not depend on N. */
  if (D == 0)
    throw slref_reject("dynamic_scatter: coors must have at least one column");

  at::Tensor valid = coors.ge(0).all(1);
  at::Tensor rows = valid.nonzero().select(1, 0);
  /* Factories take the inputs' device: slref_run_device runs on CUDA. */
  at::Tensor map = at::full({N}, -1, coors.options().dtype(at::kInt));
  if (rows.numel() == 0)
    return {at::zeros({0, C}, feats.options()),
            at::zeros({0, D}, coors.options()), map,
            at::zeros({0}, coors.options().dtype(at::kInt))};

  at::Tensor voxel_coors, inverse, counts;
  std::tie(voxel_coors, inverse, counts) =
      at::unique_dim(coors.index_select(0, rows), 0, /*sorted=*/true,
                     /*return_inverse=*/true, /*return_counts=*/true);
  const int64_t M = voxel_coors.size(0);
  at::Tensor point_feats = feats.index_select(0, rows);
  at::Tensor zeros = at::zeros({M, C}, feats.options());
  at::Tensor voxel_feats;
  switch (call.p.reduce) {
  case SL_REDUCE_SUM:
    voxel_feats = zeros.index_add(0, inverse, point_feats);
    break;
  case SL_REDUCE_MEAN:
    voxel_feats = zeros.index_reduce(0, inverse, point_feats, "mean",
                                     /*include_self=*/false);
    break;
  default: /* max, checked above */
    voxel_feats = zeros.index_reduce(0, inverse, point_feats, "amax",
                                     /*include_self=*/false);
    break;
  }
  map.index_copy_(0, rows, inverse.to(at::kInt));
  return {voxel_feats, voxel_coors.to(at::kInt), map, counts.to(at::kInt)};
}

/*
 * Backward. sum copies the voxel's gradient to each of its points, mean
 * divides it by the voxel's count, max gives it, per channel, to the
 * smallest point index whose feature equals the voxel's maximum: candidates
 * are that index where feats == voxel_feats[map] and N elsewhere, their
 * per-voxel minimum comes from scatter_reduce("amin"), and the gradient is
 * scattered to those rows of an (N+1)-row buffer whose row N absorbs the
 * channels without a match.
 */
slref_tensors slref_dynamic_scatter_backward(const sl_call &call) {
  const char *op = "dynamic_scatter_backward";
  at::Tensor grad = slref_arg(call, 0), feats = slref_arg(call, 1);
  at::Tensor voxel_feats = slref_arg(call, 2), map = slref_arg(call, 3);
  at::Tensor counts = slref_arg(call, 4);
  slref_check_feats(grad, op, "grad_voxel_feats");
  slref_check_feats(feats, op, "feats");
  slref_check_feats(voxel_feats, op, "voxel_feats");
  const int64_t M = grad.size(0), C = grad.size(1), N = feats.size(0);
  if (feats.scalar_type() != grad.scalar_type() ||
      voxel_feats.scalar_type() != grad.scalar_type())
    throw slref_reject(slref_fmt("%s: feats (%s) and voxel_feats (%s) must "
                                 "have grad_voxel_feats's dtype %s",
                                 op, slref_dtype_name(feats),
                                 slref_dtype_name(voxel_feats),
                                 slref_dtype_name(grad)));
  if (feats.size(1) != C || voxel_feats.sizes() != grad.sizes())
    throw slref_reject(slref_fmt("%s: feats %s and voxel_feats %s must match "
                                 "grad_voxel_feats %s in C (and M)",
                                 op, slref_shape(feats).c_str(),
                                 slref_shape(voxel_feats).c_str(),
                                 slref_shape(grad).c_str()));
  slref_check_i32(map, op, "point2voxel_map", 1, N);
  slref_check_i32(counts, op, "voxel_points_count", 1, M);
  slref_check_dynamic_reduce(call.p.reduce, op);

  at::Tensor map64 = map.to(at::kLong);
  if (N > 0) {
    at::Tensor bad = map64.lt(-1).logical_or(map64.ge(M));
    if (bad.any().item<bool>()) {
      int64_t n = bad.nonzero()[0][0].item<int64_t>();
      throw slref_reject(slref_fmt(
          "%s: point2voxel_map[%lld] = %lld out of range [-1,%lld)", op,
          (long long)n, (long long)map64[n].item<int64_t>(), (long long)M));
    }
  }
  /* A voxel exists because points fell into it: a count of 0 or less is
   * not something the forward can produce (the core rejects it too). */
  if (M > 0) {
    at::Tensor nonpos = counts.le(0);
    if (nonpos.any().item<bool>()) {
      int64_t m = nonpos.nonzero()[0][0].item<int64_t>();
      throw slref_reject(
          slref_fmt("%s: voxel_points_count[%lld] = %lld, expected > 0", op,
                    (long long)m, (long long)counts[m].item<int64_t>()));
    }
  }
  if (M == 0 || N == 0 || C == 0) return {at::zeros({N, C}, feats.options())};

  at::Tensor valid = map64.ge(0).unsqueeze(1);         /* [N,1] */
  at::Tensor voxel = map64.clamp_min(0);               /* [N], -1 -> voxel 0 */
  at::Tensor point_grad = grad.index_select(0, voxel); /* [N,C] */
  at::Tensor zero = at::zeros({}, feats.options());
  switch (call.p.reduce) {
  case SL_REDUCE_SUM:
    return {at::where(valid, point_grad, zero)};
  case SL_REDUCE_MEAN: {
    at::Tensor n = counts.index_select(0, voxel).to(feats.scalar_type());
    return {at::where(valid, point_grad / n.unsqueeze(1), zero)};
  }
  default: { /* max */
    at::Tensor hit =
        feats.eq(voxel_feats.index_select(0, voxel)).logical_and(valid);
    at::Tensor point =
        at::arange(N, map64.options()).unsqueeze(1).expand({N, C});
    at::Tensor candidate = at::where(hit, point, N);
    at::Tensor first = at::full({M, C}, N, map64.options())
                           .scatter_reduce(0, voxel.unsqueeze(1).expand({N, C}),
                                           candidate, "amin");
    at::Tensor out = at::zeros({N + 1, C}, feats.options());
    return {out.scatter(0, first, grad).narrow(0, 0, N)};
  }
  }
}
