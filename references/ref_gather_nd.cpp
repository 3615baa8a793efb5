/*
 * The reference of gather_nd (docs/spec.md §1) through LibTorch's advanced
 * indexing, and the index tuple it shares with scatter_nd.
 */
#include "ref_internal.h"

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
c10::List<c10::optional<at::Tensor>> slref_nd_index(const sl_call &call,
                                                    const at::Tensor &x,
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
