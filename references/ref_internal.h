/*
 * Internals of the LibTorch shim: the conversion helpers that slref.cpp
 * defines and the per-op reference functions that ref_*.cpp define.
 *
 * Every op function takes a validated-enough call (slots wrapped on demand by
 * the helpers below) and returns the op's outputs in slot order as LibTorch
 * tensors. Rejections travel as exceptions: c10::Error from LibTorch itself,
 * slref_reject from the shim's own contract checks. slref.cpp turns both into
 * SLREF_REJECTED and everything else into SLREF_INTERNAL.
 */
#ifndef SLREF_INTERNAL_H
#define SLREF_INTERNAL_H

/* ATen alone, not <torch/torch.h>: the C++ frontend (nn, optim, data) is
 * not used, and its headers cost most of each file's compile time. The two
 * files that take gradients include torch/autograd.h themselves. */
#include <ATen/ATen.h>

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "slref.h"

using slref_tensors = std::vector<at::Tensor>;

/* The shim's own rejection of an invalid input (one LibTorch would accept). */
struct slref_reject : std::runtime_error {
  explicit slref_reject(const std::string &msg) : std::runtime_error(msg) {}
};

/* A failure of the shim itself (a descriptor it cannot represent). */
struct slref_internal : std::runtime_error {
  explicit slref_internal(const std::string &msg) : std::runtime_error(msg) {}
};

/* printf-style message builder for slref_reject. */
std::string slref_fmt(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* Wraps input slot `slot` of call without copying (read-only by contract). */
at::Tensor slref_arg(const sl_call &call, int slot);
/* As slref_arg for an index: int32 is widened to int64 (docs/spec.md §2); every
 * other dtype passes unchanged so that LibTorch answers for it. */
at::Tensor slref_index_arg(const sl_call &call, int slot);
/* "[4,3]" for a shape or a tensor's shape, for messages. */
std::string slref_shape(at::IntArrayRef sizes);
inline std::string slref_shape(const at::Tensor &t) {
  return slref_shape(t.sizes());
}
/* The short dtype name of a LibTorch tensor ("f32", ...), for messages. */
const char *slref_dtype_name(const at::Tensor &t);

/* slref_defects.cpp: the active defect (of the linked LibTorch) that call's
 * f16/bf16 computation meets, or NULL. */
const slref_defect *slref_defect_for(const sl_call &call);

/* The ops' references, one file per op (its backward with it):
 * ref_<op>.cpp, reached through slref.cpp's table of ops. */
#define SLREF__DECLARE(e, name) slref_tensors slref_##name(const sl_call &call);
SL_OP_MAP(SLREF__DECLARE)
#undef SLREF__DECLARE

/* ref_gather_nd.cpp: the advanced-index tuple (t_0..t_{K-1}) that
 * expresses gather_nd as x.index(t) and scatter_nd as x.index_put(t, src),
 * after the contract's checks of index and dims. */
c10::List<c10::optional<at::Tensor>> slref_nd_index(const sl_call &call,
                                                    const at::Tensor &x,
                                                    const at::Tensor &index);

/*
 * Gradients of y = forward(x_leaf, src_leaf) with respect to both leaves for
 * the upstream gradient grad_out, by LibTorch autograd. A leaf that receives
 * no gradient gets zeros. Shared by the two autograd-based backward ops.
 */
using slref_forward =
    std::function<at::Tensor(const at::Tensor &x, const at::Tensor &src)>;
slref_tensors slref_autograd(const at::Tensor &grad_out, const at::Tensor &x,
                             const at::Tensor &src,
                             const slref_forward &forward);

#endif /* SLREF_INTERNAL_H */
