/*
 * References of the segment ops (docs/spec.md §1): PyTorch's segment_reduce
 * and its backward.
 */
#include <cmath>

#include "ref_internal.h"

#include <torch/autograd.h>
#include <torch/types.h>
#include <torch/utils.h>

/* PyTorch's name of each reduce the op takes. */
static const char *slref_segment_reduce_name(sl_reduce r) {
  static const struct {
    sl_reduce r;
    const char *name;
  } names[] = {{SL_REDUCE_SUM, "sum"},
               {SL_REDUCE_MEAN, "mean"},
               {SL_REDUCE_PROD, "prod"},
               {SL_REDUCE_AMAX, "max"},
               {SL_REDUCE_AMIN, "min"}};
  for (const auto &n : names)
    if (n.r == r) return n.name;
  throw slref_reject(slref_fmt("reduce: expected sum, prod, mean, amax or "
                               "amin, got %s",
                               sl_reduce_name(r)));
}

/*
 * What LibTorch does not check and the contract wants (each found by the
 * fuzzer as a case LibTorch took and the kernels refused):
 * - lengths' extents before the axis must be data's: LibTorch took lengths
 *   [2,1,1] for data [1,1,1,1,1] along axis 2 (reading rows that data
 *   does not have);
 * - offsets must start at 0 and end at the axis's extent: [1,3,3,6,9]
 *   over 8 elements read past the data (NaN came back) and an end past the
 *   extent crashed its backward (abort);
 * - offsets must never decrease: LibTorch 2.11 took [0,3,2] over 2
 *   elements and read past the data (a fault since inputs end against a
 *   guard page: cases/guarded_mem.h).
 */
static void slref_check_segments(const at::Tensor &data,
                                 const at::Tensor &lengths, const sl_call &c) {
  const sl_params &p = c.p;
  const int64_t L = lengths.dim(), K = data.dim();
  if (L < 1 || K < L || p.dim < -K || p.dim >= K) return; /* LibTorch's */
  const int64_t a = p.dim < 0 ? p.dim + K : p.dim;
  if (a != L - 1) return; /* LibTorch's */
  for (int64_t d = 0; d < a; ++d)
    if (lengths.size(d) != data.size(d))
      throw slref_reject(slref_fmt(
          "lengths: expected extents %s before the axis (data's), got %s",
          slref_shape(data.sizes().slice(0, a)).c_str(),
          slref_shape(lengths).c_str()));
  if (!c.segment.offsets || lengths.size(-1) < 1 || lengths.numel() == 0 ||
      !at::isIntegralType(lengths.scalar_type(), /*includeBool=*/false))
    return;
  at::Tensor first = lengths.select(-1, 0), last = lengths.select(-1, -1);
  if (first.ne(0).any().item<bool>())
    throw slref_reject(slref_fmt(
        "offsets: expected every row to start at 0, got %lld",
        (long long)first.masked_select(first.ne(0))[0].item<int64_t>()));
  const int64_t n = data.size(a);
  if (last.ne(n).any().item<bool>())
    throw slref_reject(slref_fmt(
        "offsets: expected every row to end at the axis's extent %lld, got "
        "%lld",
        (long long)n,
        (long long)last.masked_select(last.ne(n))[0].item<int64_t>()));
  const int64_t S = lengths.size(-1) - 1;
  if (S < 1) return;
  at::Tensor step = lengths.narrow(-1, 1, S) - lengths.narrow(-1, 0, S);
  if (step.lt(0).any().item<bool>())
    throw slref_reject(slref_fmt(
        "offsets: expected entries that never decrease, got a step of %lld",
        (long long)step.masked_select(step.lt(0))[0].item<int64_t>()));
}

/*
 * The answer where no element of data takes part, by the definition (every
 * segment empty, or no segment, or no column): LibTorch refuses a lengths
 * tensor without elements (it takes min() of its values: "Expected
 * reduction dim to be specified for input.numel() == 0"), and 1.13 any
 * data without elements ("Expected data.numel() > 0"); the contract takes
 * both. The rules that need no data values are checked first (LibTorch's
 * dtype and reduce checks run on a one-element stand-in), then every
 * output is the start of its empty segment: initial, or sum's 0, prod's
 * 1, amax's -inf, amin's +inf, mean's NaN.
 */
static at::Tensor slref_segment_no_data(const at::Tensor &data,
                                        const at::Tensor &lengths,
                                        const sl_call &c) {
  const sl_params &p = c.p;
  std::vector<int64_t> one(lengths.sizes().begin(), lengths.sizes().end());
  if (one.empty() || data.dim() < (int64_t)one.size())
    throw slref_reject(
        slref_fmt("lengths: expected rank 1..%lld (data's), got %s",
                  (long long)data.dim(), slref_shape(lengths).c_str()));
  const int64_t a = c10::maybe_wrap_dim(p.dim, data.dim());
  if (a != (int64_t)one.size() - 1)
    throw slref_reject(slref_fmt("lengths: expected its last axis to be the "
                                 "axis %lld, got rank %zu",
                                 (long long)p.dim, one.size()));
  for (int64_t d = 0; d < a; ++d)
    if (one[d] != data.size(d))
      throw slref_reject(slref_fmt(
          "lengths: expected shape %s up to the axis (data's), got %s",
          slref_shape(data.sizes().slice(0, a)).c_str(),
          slref_shape(lengths).c_str()));
  const int64_t S = one[a] - (c.segment.offsets ? 1 : 0);
  if (S < 0)
    throw slref_reject("offsets: expected at least one entry per row, got 0");
  const int64_t rows = c10::multiply_integers(one.begin(), one.begin() + a);
  if (S == 0 && data.size(a) > 0 && rows > 0)
    throw slref_reject(slref_fmt("lengths: expected rows summing to %lld, "
                                 "got rows of no segments",
                                 (long long)data.size(a)));
  /* dtypes and the reduce's name, as LibTorch checks them */
  at::Tensor probe_data = at::zeros({1}, data.options());
  at::Tensor probe = at::ones({1}, lengths.options());
  (void)at::segment_reduce(probe_data, slref_segment_reduce_name(p.reduce),
                           probe, {}, {}, 0, false, {});
  std::vector<int64_t> out(data.sizes().begin(), data.sizes().end());
  out[a] = S;
  static const struct {
    sl_reduce r;
    double start;
  } starts[] = {{SL_REDUCE_SUM, 0.0},
                {SL_REDUCE_PROD, 1.0},
                {SL_REDUCE_AMAX, -INFINITY},
                {SL_REDUCE_AMIN, INFINITY},
                {SL_REDUCE_MEAN, NAN}};
  double start = p.value;
  for (const auto &st : starts)
    if (!p.has_value && st.r == p.reduce) start = st.start;
  return at::full(out, start, data.options());
}

/*
 * LibTorch skips its checks of the values when data has no elements (an
 * empty axis after the segments' one): offsets [0, 0] for an axis of 2
 * were taken. The contract checks them whatever the data holds.
 */
static void slref_check_empty_data(const at::Tensor &data,
                                   const at::Tensor &lengths,
                                   const sl_call &c) {
  if (data.numel() != 0 || lengths.numel() == 0 || lengths.dim() < 1 ||
      lengths.dim() > data.dim() ||
      !at::isIntegralType(lengths.scalar_type(), /*includeBool=*/false))
    return;
  const int64_t n = data.size(lengths.dim() - 1);
  at::Tensor len = c.segment.offsets ? lengths.diff(1, -1) : lengths;
  if (len.lt(0).any().item<bool>())
    throw slref_reject(c.segment.offsets
                           ? "offsets: expected values that never "
                             "decrease"
                           : "lengths: expected values >= 0");
  at::Tensor ends = c.segment.offsets ? lengths.select(-1, -1) : len.sum(-1);
  if (ends.ne(n).any().item<bool>())
    throw slref_reject(slref_fmt("lengths: expected every row to cover the "
                                 "axis's %lld elements",
                                 (long long)n));
}

/*
 * A row-major copy of t. LibTorch 2.11's segment_reduce misreads a tensor
 * whose size-1 axes carry other strides than the row-major ones (such a
 * tensor counts as contiguous, so its contiguous() is itself): data of
 * [4,1] with strides [1,4] summed to 0, 0, 1.5e-33, 1.8e+31 instead of
 * 0..3, and lengths so laid out crashed it (a segfault). The copy keeps
 * autograd's graph (copy_ is differentiable); a tensor already laid out
 * so is passed as it is (torch.cpu's timings hold no copy then).
 */
static at::Tensor slref_row_major(const at::Tensor &t) {
  int64_t want = 1;
  bool row_major = true;
  for (int64_t d = t.dim() - 1; d >= 0 && row_major; --d) {
    row_major = t.stride(d) == want;
    want *= t.size(d);
  }
  return row_major ? t : at::empty(t.sizes(), t.options()).copy_(t);
}

static at::Tensor slref_segment_forward(const at::Tensor &data_in,
                                        const at::Tensor &lengths_in,
                                        const sl_call &c) {
  const sl_params &p = c.p;
  const char *name = slref_segment_reduce_name(p.reduce);
  const at::Tensor data = slref_row_major(data_in);
  const at::Tensor lengths = slref_row_major(lengths_in);
  slref_check_segments(data, lengths, c);
  slref_check_empty_data(data, lengths, c);
  if (lengths.numel() == 0 || data.numel() == 0)
    return slref_segment_no_data(data, lengths, c);
  c10::optional<at::Scalar> initial;
  if (p.has_value) initial = at::Scalar(p.value);
  c10::optional<at::Tensor> by_lengths, by_offsets;
  if (c.segment.offsets) {
    by_offsets = lengths;
  } else {
    by_lengths = lengths;
  }
  return at::segment_reduce(data, name, by_lengths, {}, by_offsets, p.dim,
                            /*unsafe=*/false, initial);
}

slref_tensors slref_segment_reduce(const sl_call &call) {
  at::Tensor data = slref_arg(call, 0), lengths = slref_index_arg(call, 1);
  return {slref_segment_forward(data, lengths, call)};
}

/*
 * amax/amin's gradient by the definition, in LibTorch's tensor ops: the
 * positions equal to their segment's result share its gradient evenly.
 * LibTorch's own backward divides a tie's gradient only when it is
 * positive (a negative one reaches every tied position whole:
 * docs/reference-differences.md), so it is not the reference here.
 */
/* The segment of every position of data (of data's shape): along the axis
 * a (p's, normalized into *axis), the first segment whose end lies past
 * the position. */
static at::Tensor slref_segment_ids(const at::Tensor &data,
                                    const at::Tensor &lengths, const sl_call &c,
                                    int64_t *axis) {
  const sl_params &p = c.p;
  const int64_t a = *axis = c10::maybe_wrap_dim(p.dim, data.dim());
  at::Tensor ends = c.segment.offsets
                        ? lengths.narrow(-1, 1, lengths.size(-1) - 1)
                        : lengths.cumsum(-1);
  std::vector<int64_t> rows(data.sizes().begin(), data.sizes().begin() + a);
  rows.push_back(data.size(a));
  at::Tensor pos = at::arange(data.size(a), ends.options()).expand(rows);
  at::Tensor seg = at::searchsorted(ends.contiguous(), pos.contiguous(),
                                    /*out_int32=*/false, /*right=*/true);
  std::vector<int64_t> view = rows;
  for (int64_t k = a + 1; k < data.dim(); ++k) view.push_back(1);
  return seg.view(view).expand(data.sizes());
}

static at::Tensor slref_segment_tie_grad(const at::Tensor &grad,
                                         const at::Tensor &data,
                                         const at::Tensor &lengths,
                                         const at::Tensor &result,
                                         const sl_call &c) {
  int64_t a;
  at::Tensor at_seg = slref_segment_ids(data, lengths, c, &a);
  at::Tensor tie = data.eq(result.gather(a, at_seg));
  at::Tensor count = at::zeros_like(result).scatter_add(
      a, at_seg, tie.to(result.scalar_type()));
  return at::where(tie, grad.gather(a, at_seg) / count.gather(a, at_seg),
                   at::zeros_like(data));
}

/*
 * prod's gradient: LibTorch's own backward takes the product of the others
 * explicitly, one position at a time, wherever a value is 0 or NaN: a
 * segment of 655,448 values with -0.0 among them took longer than the
 * harness's 10 s (quadratic). The same product as a scatter_reduce over the
 * segments (data's positions to their segment, include_self with initial
 * or 1 as the start) has a linear backward in LibTorch with the rule of
 * docs/spec.md §1: grad * result / x where x is not 0, the product of the
 * rest for a single 0, nothing for two.
 */
static at::Tensor slref_segment_prod_grad(const at::Tensor &grad,
                                          const at::Tensor &data,
                                          const at::Tensor &lengths,
                                          const at::Tensor &result,
                                          const sl_call &c) {
  const sl_params &p = c.p;
  int64_t a;
  at::Tensor at_seg = slref_segment_ids(data, lengths, c, &a);
  at::Tensor start =
      at::full(result.sizes(), p.has_value ? p.value : 1.0, result.options());
  torch::AutoGradMode grad_mode(true);
  at::Tensor leaf = data.detach().requires_grad_(true);
  at::Tensor y = start.scatter_reduce(a, at_seg, leaf, "prod",
                                      /*include_self=*/true);
  std::vector<at::Tensor> g =
      torch::autograd::grad({y}, {leaf}, {grad}, /*retain_graph=*/false,
                            /*create_graph=*/false, /*allow_unused=*/true);
  return g[0].defined() ? g[0] : at::zeros_like(data);
}

slref_tensors slref_segment_reduce_backward(const sl_call &call) {
  /* grad_out data lengths result */
  at::Tensor grad = slref_arg(call, 0), data = slref_arg(call, 1);
  at::Tensor lengths = slref_index_arg(call, 2), result = slref_arg(call, 3);
  const sl_params &p = call.p;
  /* the forward checks data, lengths and the parameters */
  at::Tensor out = slref_segment_forward(data, lengths, call);
  if (!grad.sizes().equals(out.sizes()))
    throw slref_reject(slref_fmt("grad_out: expected shape %s (the forward's "
                                 "output), got %s",
                                 slref_shape(out).c_str(),
                                 slref_shape(grad).c_str()));
  if (!result.sizes().equals(out.sizes()))
    throw slref_reject(slref_fmt("result: expected shape %s (the forward's "
                                 "output), got %s",
                                 slref_shape(out).c_str(),
                                 slref_shape(result).c_str()));
  if (lengths.numel() == 0 || data.numel() == 0)
    return {at::zeros_like(data)}; /* no element takes part */
  if (p.reduce == SL_REDUCE_AMAX || p.reduce == SL_REDUCE_AMIN)
    return {slref_segment_tie_grad(grad, data, lengths, result, call)};
  if (p.reduce == SL_REDUCE_PROD)
    return {slref_segment_prod_grad(grad, data, lengths, result, call)};
  torch::AutoGradMode grad_mode(true);
  at::Tensor leaf = data.detach().requires_grad_(true);
  at::Tensor y = slref_segment_forward(leaf, lengths, call);
  std::vector<at::Tensor> g =
      torch::autograd::grad({y}, {leaf}, {grad}, /*retain_graph=*/false,
                            /*create_graph=*/false, /*allow_unused=*/true);
  return {g[0].defined() ? g[0] : at::zeros_like(data)};
}
