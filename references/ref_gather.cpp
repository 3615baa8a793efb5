/*
 * References of the dim-wise and N-d gathers and scatters (docs/spec.md §1):
 * gather, gather_nd, scatter, scatter_reduce (+ backward), scatter_nd.
 */
#include "ref_internal.h"

slref_tensors slref_gather(const sl_call &call) {
  at::Tensor x = slref_arg(call, 0), index = slref_index_arg(call, 1);
  return {at::gather(x, call.p.dim, index)};
}

/* ------------------------------------------------------------------------ */
/* gather_nd / scatter_nd: the shared index tuple                            */
/* ------------------------------------------------------------------------ */

/* "1,0,2" for a flat position in a tensor of shape `shape`. */
static std::string slref_position(int64_t flat, at::IntArrayRef shape) {
  std::vector<int64_t> coord(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    coord[d] = flat % shape[d];
    flat /= shape[d];
  }
  std::string s;
  for (size_t d = 0; d < coord.size(); ++d) s += std::to_string(coord[d]) + ",";
  return s;
}

/*
 * The advanced-index tuple (t_0..t_{K-1}) that expresses gather_nd and
 * scatter_nd with LibTorch's indexing: x.index(t) is gather_nd and
 * x.index_put(t, src) is scatter_nd. For the M indexed axes, t_{dims[k]} =
 * index[..., k]; every other axis d gets arange(index.size(d)) shaped to
 * broadcast along d, so that position i of index.shape[:-1] reads x at i with
 * only the indexed coordinates replaced.
 *
 * LibTorch's indexing accepts what the op's contract rejects, so the
 * contract is checked here: index must be an integer tensor of rank K+1 (a
 * uint8/bool index would be taken as a mask), dims must be M distinct axes,
 * and index values must lie in [0, x.size(d)) (indexing wraps negative
 * values instead of rejecting them). Non-indexed extents larger than x's are
 * left to LibTorch, which rejects the arange's out-of-bounds value.
 */
static c10::List<c10::optional<at::Tensor>>
slref_nd_index(const sl_call &call, const at::Tensor &x,
               const at::Tensor &index) {
  const char *op = sl_op_name(call.op);
  const int64_t K = x.dim();
  if (index.scalar_type() != at::kLong)
    throw slref_reject(slref_fmt("%s: index must be int32 or int64, got %s", op,
                                 slref_dtype_name(index)));
  if (index.dim() != K + 1)
    throw slref_reject(slref_fmt(
        "%s: index must have rank %lld (x's rank %lld plus one), got %s", op,
        (long long)(K + 1), (long long)K, slref_shape(index).c_str()));
  const int64_t M = index.size(-1);
  if (M > K)
    throw slref_reject(
        slref_fmt("%s: index.shape[-1] = %lld exceeds x's rank %lld", op,
                  (long long)M, (long long)K));
  const sl_params &p = call.p;
  if (p.ndims != 0 && p.ndims != M)
    throw slref_reject(slref_fmt("%s: %d dims given for index.shape[-1] = %lld",
                                 op, p.ndims, (long long)M));
  std::vector<int64_t> dims(M);
  std::vector<bool> indexed(K, false);
  for (int64_t k = 0; k < M; ++k) {
    int64_t d = p.ndims ? p.dims[k] : k;
    if (d < -K || d >= K)
      throw slref_reject(slref_fmt("%s: dims[%lld] = %lld out of range [%lld,"
                                   "%lld)",
                                   op, (long long)k, (long long)d,
                                   (long long)-K, (long long)K));
    if (d < 0) d += K;
    if (indexed[d])
      throw slref_reject(slref_fmt("%s: dims[%lld] = %lld repeats an axis", op,
                                   (long long)k, (long long)p.dims[k]));
    indexed[d] = true;
    dims[k] = d;
  }

  c10::List<c10::optional<at::Tensor>> tuple;
  for (int64_t d = 0; d < K; ++d) tuple.push_back(c10::nullopt);
  for (int64_t k = 0; k < M; ++k) {
    const int64_t d = dims[k];
    at::Tensor t = index.select(-1, k);
    if (t.numel() > 0) {
      at::Tensor bad = t.lt(0).logical_or(t.ge(x.size(d))).reshape(-1);
      if (bad.any().item<bool>()) {
        int64_t flat = bad.nonzero()[0][0].item<int64_t>();
        int64_t v = t.reshape(-1)[flat].item<int64_t>();
        std::string pos = slref_position(flat, t.sizes());
        throw slref_reject(slref_fmt(
            "%s: index[%s%lld] = %lld out of range [0,%lld) for dim %lld of x "
            "%s",
            op, pos.c_str(), (long long)k, (long long)v, (long long)x.size(d),
            (long long)d, slref_shape(x).c_str()));
      }
    }
    tuple.set(d, t);
  }
  for (int64_t d = 0; d < K; ++d) {
    if (indexed[d]) continue;
    std::vector<int64_t> shape(K, 1);
    shape[d] = index.size(d);
    tuple.set(d, at::arange(index.size(d), index.options().dtype(at::kLong))
                     .reshape(shape));
  }
  return tuple;
}

slref_tensors slref_gather_nd(const sl_call &call) {
  at::Tensor x = slref_arg(call, 0), index = slref_index_arg(call, 1);
  c10::List<c10::optional<at::Tensor>> tuple = slref_nd_index(call, x, index);
  /* A rank-0 x has no axis to index: out = x (index is [0]). */
  if (x.dim() == 0) return {x.clone()};
  return {at::index(x, tuple)};
}

slref_tensors slref_scatter_nd(const sl_call &call) {
  at::Tensor x = slref_arg(call, 0), index = slref_index_arg(call, 1);
  at::Tensor src = slref_arg(call, 2);
  c10::List<c10::optional<at::Tensor>> tuple = slref_nd_index(call, x, index);
  /* index_put broadcasts src; the contract wants src's shape exactly. */
  at::IntArrayRef want = index.sizes().slice(0, index.dim() - 1);
  if (src.sizes() != want)
    throw slref_reject(slref_fmt(
        "scatter_nd: src must have shape index.shape[:-1] = %s, got %s",
        slref_shape(want).c_str(), slref_shape(src).c_str()));
  bool accumulate;
  switch (call.p.reduce) {
  case SL_REDUCE_NONE:
    accumulate = false;
    break;
  case SL_REDUCE_SUM:
    accumulate = true;
    break;
  default:
    throw slref_reject(slref_fmt("scatter_nd: reduce must be none or sum, "
                                 "got %s",
                                 sl_reduce_name(call.p.reduce)));
  }
  if (x.dim() == 0) {
    if (src.scalar_type() != x.scalar_type())
      throw slref_reject(slref_fmt("scatter_nd: src dtype %s differs from "
                                   "x's %s",
                                   slref_dtype_name(src), slref_dtype_name(x)));
    return {accumulate ? x + src : src.clone()};
  }
  return {at::index_put(x, tuple, src, accumulate)};
}

/* ------------------------------------------------------------------------ */
/* scatter, scatter_reduce                                                   */
/* ------------------------------------------------------------------------ */

/* scatter's scalar in x's kind: integers take the exact int64 ivalue, bool
 * takes value != 0, floats and complex take value. */
static at::Scalar slref_scatter_value(const at::Tensor &x, const sl_params &p) {
  if (x.scalar_type() == at::kBool) return at::Scalar(p.value != 0);
  if (at::isIntegralType(x.scalar_type(), /*includeBool=*/false))
    return at::Scalar(p.ivalue);
  return at::Scalar(p.value);
}

slref_tensors slref_scatter(const sl_call &call) {
  at::Tensor x = slref_arg(call, 0), index = slref_index_arg(call, 1);
  if (call.p.has_value)
    return {at::scatter(x, call.p.dim, index, slref_scatter_value(x, call.p))};
  return {at::scatter(x, call.p.dim, index, slref_arg(call, 2))};
}

/*
 * The reduce goes by its name, so that LibTorch's own check rejects what it
 * does not know ("none"). LibTorch 2.11 also takes "max" (as amax), which
 * neither its documentation nor the op's contract (sum, prod, mean, amax,
 * amin) lists and 1.13 refused; the shim refuses every name outside the
 * contract itself, in 1.13's words (docs/reference-differences.md).
 */
static const char *slref_scatter_reduce_name(sl_reduce r) {
  switch (r) {
  case SL_REDUCE_SUM:
  case SL_REDUCE_PROD:
  case SL_REDUCE_MEAN:
  case SL_REDUCE_AMAX:
  case SL_REDUCE_AMIN:
  case SL_REDUCE_NONE:
    return sl_reduce_name(r);
  default:
    throw slref_reject(slref_fmt("reduce argument must be either sum, prod, "
                                 "mean, amax or amin, got %s",
                                 sl_reduce_name(r)));
  }
}

slref_tensors slref_scatter_reduce(const sl_call &call) {
  at::Tensor x = slref_arg(call, 0), index = slref_index_arg(call, 1);
  at::Tensor src = slref_arg(call, 2);
  return {x.scatter_reduce(call.p.dim, index, src,
                           slref_scatter_reduce_name(call.p.reduce),
                           call.p.include_self != 0)};
}

slref_tensors slref_scatter_reduce_backward(const sl_call &call) {
  /* grad_out x index src result: result is not needed, autograd recomputes
   * the forward. */
  at::Tensor grad_out = slref_arg(call, 0), x = slref_arg(call, 1);
  at::Tensor index = slref_index_arg(call, 2), src = slref_arg(call, 3);
  const sl_params &p = call.p;
  return slref_autograd(
      grad_out, x, src, [&](const at::Tensor &xl, const at::Tensor &sl) {
        return xl.scatter_reduce(p.dim, index, sl,
                                 slref_scatter_reduce_name(p.reduce),
                                 p.include_self != 0);
      });
}
