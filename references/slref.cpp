/*
 * The LibTorch shim's entry points: descriptor <-> tensor conversion, error
 * capture and the dispatch from sl_op to the per-op reference functions
 * (ref_<op>.cpp, one file per op and its backward).
 */
#include <torch/cuda.h>
#include <torch/version.h>

#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "ref_internal.h"

#include <torch/autograd.h>
#include <torch/types.h>
#include <torch/utils.h>

#include <c10/util/Logging.h>

namespace {
/* LibTorch puts a symbolized C++ backtrace into every c10::Error. A fuzz
 * campaign has LibTorch reject about one case in ten, and symbolizing
 * (dladdr) took 60% of the campaign's time; we report the message alone. */
const bool slref_no_backtraces = [] {
  c10::SetStackTraceFetcher([] { return std::string(); });
  return true;
}();
} // namespace

/* ------------------------------------------------------------------------ */
/* Messages                                                                  */
/* ------------------------------------------------------------------------ */

std::string slref_fmt(const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return buf;
}

/* Copies the first line of msg into err (LibTorch appends context lines and,
 * in what(), a backtrace; the first line is the message proper). */
static void slref_set_err(char *err, size_t errlen, const char *msg) {
  if (!err || errlen == 0) return;
  size_t n = strcspn(msg, "\n");
  if (n >= errlen) n = errlen - 1;
  memcpy(err, msg, n);
  err[n] = '\0';
}

/* LibTorch reports some conditions with TORCH_WARN (deprecated uint8 masks,
 * "scatter_reduce() is in beta"). They would clutter the harness's stderr on
 * every case, and none of them changes the answer, so they are dropped. */
namespace {
struct slref_quiet_warnings : c10::WarningHandler {
#if TORCH_VERSION_MAJOR >= 2
  void process(const c10::Warning &) override {}
#else /* 1.13: the handler took the warning's parts */
  void process(const c10::SourceLocation &, const std::string &,
               const bool) override {}
#endif
};
#if TORCH_VERSION_MAJOR >= 2
using slref_warning_guard = c10::WarningUtils::WarningHandlerGuard;
#else
using slref_warning_guard = c10::Warning::WarningHandlerGuard;
#endif
} // namespace

/* ------------------------------------------------------------------------ */
/* dtypes                                                                    */
/* ------------------------------------------------------------------------ */

/* Each sl_dtype and the LibTorch scalar type it wraps as (both ways). */
static const struct {
  sl_dtype sl;
  at::ScalarType at;
} slref_dtypes[] = {
    {SL_BOOL, at::kBool},        {SL_U8, at::kByte},
    {SL_I8, at::kChar},          {SL_I16, at::kShort},
    {SL_I32, at::kInt},          {SL_I64, at::kLong},
    {SL_F16, at::kHalf},         {SL_BF16, at::kBFloat16},
    {SL_F32, at::kFloat},        {SL_F64, at::kDouble},
    {SL_C64, at::kComplexFloat}, {SL_C128, at::kComplexDouble},
};
static_assert(sizeof slref_dtypes / sizeof slref_dtypes[0] == SL_DTYPE_COUNT,
              "every sl_dtype needs a LibTorch scalar type");

static bool slref_to_scalar_type(sl_dtype dt, at::ScalarType *st) {
  for (const auto &d : slref_dtypes)
    if (d.sl == dt) {
      *st = d.at;
      return true;
    }
  return false;
}

static bool slref_from_scalar_type(at::ScalarType st, sl_dtype *dt) {
  for (const auto &d : slref_dtypes)
    if (d.at == st) {
      *dt = d.sl;
      return true;
    }
  return false;
}

const char *slref_dtype_name(const at::Tensor &t) {
  sl_dtype dt;
  return slref_from_scalar_type(t.scalar_type(), &dt) ? sl_dtype_name(dt) : "?";
}

std::string slref_shape(at::IntArrayRef sizes) {
  std::string s = "[";
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (d) s += ",";
    s += std::to_string(sizes[d]);
  }
  return s + "]";
}

/* ------------------------------------------------------------------------ */
/* Inputs: descriptors wrapped without copying                               */
/* ------------------------------------------------------------------------ */

/*
 * Wraps t for LibTorch. The descriptor is checked first, because LibTorch
 * trusts from_blob's sizes and strides blindly: a NULL data pointer or an
 * element count that overflows would make it read wild memory instead of
 * rejecting. These are the same conditions on which sl_tensor_check rejects.
 */
/* Set by slref_run_device: the inputs are CUDA tensors. */
static thread_local bool slref_on_device = false;

static at::Tensor slref_wrap(const sl_tensor &t, const char *name) {
  const sl_device want = slref_on_device ? SL_DEVICE_CUDA : SL_DEVICE_CPU;
  if (t.device != want)
    throw slref_internal(
        slref_fmt("%s: expected a %s tensor here, got a %s one", name,
                  want == SL_DEVICE_CUDA ? "cuda" : "cpu",
                  t.device == SL_DEVICE_CUDA ? "cuda" : "cpu"));
  at::ScalarType st;
  if (!slref_to_scalar_type(t.dtype, &st))
    throw slref_reject(slref_fmt("%s: invalid dtype %d", name, (int)t.dtype));
  if (t.ndim < 0 || t.ndim > SL_MAX_DIMS)
    throw slref_reject(
        slref_fmt("%s: ndim %d outside 0..%d", name, t.ndim, SL_MAX_DIMS));
  /* numel and the largest element offset, both bounded so that byte counts
   * fit int64 (LibTorch's size type). */
  const int64_t limit = INT64_MAX / 16;
  int64_t numel = 1, span = 0;
  for (int d = 0; d < t.ndim; ++d) {
    if (t.shape[d] < 0)
      throw slref_reject(slref_fmt("%s: negative extent %lld in dim %d", name,
                                   (long long)t.shape[d], d));
    if (t.strides[d] < 0)
      throw slref_reject(slref_fmt("%s: negative stride %lld in dim %d", name,
                                   (long long)t.strides[d], d));
  }
  for (int d = 0; d < t.ndim; ++d) {
    if (t.shape[d] == 0) {
      numel = 0;
      break;
    }
    if (numel > limit / t.shape[d])
      throw slref_reject(
          slref_fmt("%s: element count overflows (extent %lld in dim %d)", name,
                    (long long)t.shape[d], d));
    numel *= t.shape[d];
    if (t.strides[d] && (t.shape[d] - 1) > (limit - span) / t.strides[d])
      throw slref_reject(
          slref_fmt("%s: element offsets overflow (stride %lld in dim %d)",
                    name, (long long)t.strides[d], d));
    span += (t.shape[d] - 1) * t.strides[d];
  }
  static int64_t dummy[2]; /* a valid address for an empty tensor */
  void *data = t.data;
  if (!data) {
    if (numel != 0) throw slref_reject(slref_fmt("%s: data is NULL", name));
    data = dummy;
  }
  at::TensorOptions opts = at::TensorOptions().dtype(st);
  if (t.device == SL_DEVICE_CUDA) opts = opts.device(at::kCUDA);
  return torch::from_blob(data, at::IntArrayRef(t.shape, t.ndim),
                          at::IntArrayRef(t.strides, t.ndim), opts);
}

/* Set by slref_run while it computes a call that an active LibTorch defect
 * touches (slref_defects.def): f16/bf16 inputs are widened to f32 exactly,
 * and the outputs rounded back once (docs/spec.md §3 accumulates in f32). */
static thread_local bool slref_upcast_halves = false;
/* What slref_last_defect reports. */
static thread_local const slref_defect *slref_defect_met = nullptr;

at::Tensor slref_arg(const sl_call &call, int slot) {
  const sl_op_info *info = sl_op_get(call.op);
  if (!info || slot >= info->n_in)
    throw slref_internal(
        slref_fmt("%s has no input slot %d", sl_op_name(call.op), slot));
  at::Tensor t = slref_wrap(call.arg[slot], info->arg_names[slot]);
  if (slref_upcast_halves &&
      (t.scalar_type() == at::kHalf || t.scalar_type() == at::kBFloat16))
    return t.to(at::kFloat);
  return t;
}

at::Tensor slref_index_arg(const sl_call &call, int slot) {
  at::Tensor t = slref_arg(call, slot);
  /* LibTorch 1.13 takes only int64 indices in gather/scatter/index_*; int32
   * is our extension (docs/spec.md §2), so widen it. Other dtypes pass
   * unchanged for LibTorch to judge. */
  return t.scalar_type() == at::kInt ? t.to(at::kLong) : t;
}

/* ------------------------------------------------------------------------ */
/* Outputs: contiguous copies in malloc'd memory                             */
/* ------------------------------------------------------------------------ */

static void slref_export(const at::Tensor &result, sl_tensor *out) {
  /* contiguous() keeps LibTorch's lazy conjugate/negative bits; resolve them
   * so that the bytes are the values. */
  at::Tensor t = result.resolve_conj().resolve_neg().contiguous();
  sl_dtype dt;
  if (!slref_from_scalar_type(t.scalar_type(), &dt))
    throw slref_internal(slref_fmt("output dtype %s has no sl_dtype",
                                   c10::toString(t.scalar_type())));
  if (t.dim() > SL_MAX_DIMS)
    throw slref_internal(slref_fmt("output rank %lld exceeds %d",
                                   (long long)t.dim(), SL_MAX_DIMS));
  sl_tensor o;
  memset(&o, 0, sizeof o);
  o.dtype = dt;
  o.ndim = (int)t.dim();
  o.device = SL_DEVICE_CPU;
  for (int d = 0; d < o.ndim; ++d) o.shape[d] = t.size(d);
  sl_contiguous_strides(o.ndim, o.shape, o.strides);
  size_t bytes = t.nbytes();
  if (bytes) {
    o.data = malloc(bytes);
    if (!o.data)
      throw slref_internal(slref_fmt("out of memory (%zu bytes)", bytes));
    memcpy(o.data, t.data_ptr(), bytes);
  }
  *out = o;
}

/* ------------------------------------------------------------------------ */
/* Autograd (shared by the backward ops)                                     */
/* ------------------------------------------------------------------------ */

slref_tensors slref_autograd(const at::Tensor &grad_out, const at::Tensor &x,
                             const at::Tensor &src,
                             const slref_forward &forward) {
  /* detach() gives fresh leaves over the same (read-only) memory; autograd
   * never writes into leaves, it allocates the gradients. requires_grad_
   * is where LibTorch rejects integer dtypes. */
  torch::AutoGradMode grad_mode(true);
  at::Tensor xl = x.detach().requires_grad_(true);
  at::Tensor sl = src.detach().requires_grad_(true);
  /* autograd silently casts an upstream gradient of another dtype (even an
   * integer one); the op's contract wants grad_out in x's dtype. Its shape
   * is checked by autograd itself. */
  if (grad_out.scalar_type() != x.scalar_type())
    throw slref_reject(slref_fmt("grad_out: expected dtype %s (x's), got %s",
                                 slref_dtype_name(x),
                                 slref_dtype_name(grad_out)));
  at::Tensor y = forward(xl, sl);
  std::vector<at::Tensor> g =
      torch::autograd::grad({y}, {xl, sl}, {grad_out}, /*retain_graph=*/false,
                            /*create_graph=*/false, /*allow_unused=*/true);
  at::Tensor gx = g[0].defined() ? g[0] : at::zeros_like(x);
  at::Tensor gs = g[1].defined() ? g[1] : at::zeros_like(src);
  return {gx, gs};
}

/* ------------------------------------------------------------------------ */
/* Dispatch                                                                  */
/* ------------------------------------------------------------------------ */

using slref_op_fn = slref_tensors (*)(const sl_call &);

/* What the reference knows of each op: the function that runs it
 * (slref_<op>, in ref_*.cpp). One row per op of the core's list, in its
 * order, so that an op added there without its reference does not
 * compile. */
struct slref_op_row {
  slref_op_fn run;
};

static const slref_op_row slref_ops[] = {
#define SLREF_ROW(e, name) {slref_##name},
    SL_OP_MAP(SLREF_ROW)
#undef SLREF_ROW
};
static_assert(sizeof slref_ops / sizeof slref_ops[0] == SL_OP_COUNT,
              "one reference row per op");

static const slref_op_row *slref_row(sl_op op) {
  return (unsigned)op < SL_OP_COUNT ? &slref_ops[op] : nullptr;
}

/*
 * Runs body() and maps what it throws to a return code and a message:
 * LibTorch's c10::Error and the shim's slref_reject are rejections of the
 * input; slref_internal and out-of-memory are the shim's own failures; any
 * other std::exception comes from LibTorch's checks (some throw std::
 * exceptions directly) and counts as a rejection.
 */
template <typename Body>
static int slref_guarded(Body body, char *err, size_t errlen) {
  slref_quiet_warnings quiet;
  slref_warning_guard guard(&quiet);
  try {
    body();
    return SLREF_OK;
  } catch (const c10::Error &e) {
    slref_set_err(err, errlen, e.what_without_backtrace());
    return SLREF_REJECTED;
  } catch (const slref_reject &e) {
    slref_set_err(err, errlen, e.what());
    return SLREF_REJECTED;
  } catch (const slref_internal &e) {
    slref_set_err(err, errlen, e.what());
    return SLREF_INTERNAL;
  } catch (const std::bad_alloc &) {
    slref_set_err(err, errlen, "out of memory");
    return SLREF_INTERNAL;
  } catch (const std::exception &e) {
    slref_set_err(err, errlen, e.what());
    return SLREF_REJECTED;
  } catch (...) {
    slref_set_err(err, errlen, "unknown C++ exception");
    return SLREF_INTERNAL;
  }
}

/* The op's function, or throws slref_internal for an unknown op. */
static slref_op_fn slref_checked_lookup(const sl_call *call) {
  if (!call) throw slref_internal("call is NULL");
  const slref_op_row *row = slref_row(call->op);
  slref_op_fn fn = row ? row->run : nullptr;
  if (!fn) throw slref_internal(slref_fmt("unknown op %d", (int)call->op));
  return fn;
}

/*
 * docs/spec.md §3 limits the reductions (scatter_reduce, scatter_nd sum,
 * index_reduce other than assign) to i32, i64, f16, bf16, f32 and f64, and
 * the backward ops, segment_reduce and dynamic_scatter further, where
 * LibTorch (or mmcv) takes more or refuses with its own words: the
 * reference states the spec's answer for those, as the core's catalogue
 * has it (sl_op_dtypes; a reduce the op does not take is left to the op's
 * own refusal). The data inputs must share x's dtype, checked here because
 * the f32 widening below would otherwise hide a f16/bf16 mix from
 * LibTorch's own check.
 */
static void slref_check_spec_dtypes(const sl_call &c, int xslot) {
  const sl_op_info *info = sl_op_get(c.op);
  if (!info) return;
  sl_dtype dt = c.arg[xslot].dtype;
  unsigned set = sl_op_dtypes(c.op, c.p.reduce);
  if (set && ((unsigned)dt >= SL_DTYPE_COUNT || !(set & (1u << dt)))) {
    std::string list;
    for (int i = 0; i < SL_DTYPE_COUNT; ++i)
      if (set & (1u << i))
        list +=
            std::string(list.empty() ? "" : ", ") + sl_dtype_name((sl_dtype)i);
    throw slref_reject(slref_fmt("%s: expected one of %s for %s %s "
                                 "(docs/spec.md §3), got %s",
                                 info->arg_names[xslot], list.c_str(),
                                 sl_op_name(c.op), sl_reduce_name(c.p.reduce),
                                 sl_dtype_name(dt)));
  }
  for (int s = 0; s < info->n_in; ++s) {
    const char *name = info->arg_names[s];
    bool data = strcmp(name, "src") == 0 || strcmp(name, "updates") == 0 ||
                strcmp(name, "grad_out") == 0 || strcmp(name, "result") == 0;
    if (data && c.arg[s].data && c.arg[s].dtype != dt)
      throw slref_reject(slref_fmt("%s: expected dtype %s (x's), got %s", name,
                                   sl_dtype_name(dt),
                                   sl_dtype_name(c.arg[s].dtype)));
  }
}

/* Whether LibTorch's own answer to call (fn run on the inputs as they are)
 * has the bits of expected, any NaN matching any NaN. A call LibTorch
 * rejects this way counts as differing. */
static bool slref_same_answers(const slref_tensors &expected,
                               const sl_call &call, slref_op_fn fn) {
  slref_tensors own;
  try {
    own = fn(call);
  } catch (const std::exception &) {
    return false;
  }
  if (own.size() != expected.size()) return false;
  for (size_t i = 0; i < own.size(); ++i) {
    const at::Tensor &a = own[i], &b = expected[i];
    if (a.scalar_type() != b.scalar_type() || !a.sizes().equals(b.sizes()))
      return false;
    if (a.numel() == 0) continue;
    if (!at::is_floating_point(a)) {
      if (!at::equal(a, b)) return false;
      continue;
    }
    at::Tensor same = (a == b).logical_or(a.isnan().logical_and(b.isnan()));
    if (!same.all().item<bool>()) return false;
  }
  return true;
}

extern "C" const slref_defect *slref_last_defect(void) {
  return slref_defect_met;
}

extern "C" int slref_run(const sl_call *call, sl_tensor *outs, char *err,
                         size_t errlen) {
  slref_defect_met = nullptr;
  if (err && errlen) err[0] = '\0';
  const sl_op_info *info = call ? sl_op_get(call->op) : nullptr;
  if (info && outs) memset(outs, 0, sizeof *outs * (size_t)info->n_out);
  int n_out = info ? info->n_out : 0;
  int rc = slref_guarded(
      [&] {
        slref_op_fn fn = slref_checked_lookup(call);
        if (!outs) throw slref_internal("outs is NULL");
        /* The data dtype: the catalogue's data argument (x, data, feats;
         * slot 1 in the backward ops that take grad_out first). */
        int xslot = info->data_arg;
        sl_dtype dt = call->arg[xslot].dtype;
        slref_check_spec_dtypes(*call, xslot);
        const slref_defect *defect = slref_defect_for(*call);
        slref_upcast_halves = defect != nullptr;
        struct reset {
          ~reset() { slref_upcast_halves = false; }
        } reset_flag;
        slref_tensors result = fn(*call);
        if (defect) {
          for (auto &t : result)
            if (t.scalar_type() == at::kFloat)
              t = t.to(dt == SL_F16 ? at::kHalf : at::kBFloat16);
          slref_upcast_halves = false;
          if (!slref_same_answers(result, *call, fn)) slref_defect_met = defect;
        }
        if ((int)result.size() != n_out)
          throw slref_internal(slref_fmt("%s returned %zu outputs, not %d",
                                         info->name, result.size(), n_out));
        for (int i = 0; i < n_out; ++i) slref_export(result[i], &outs[i]);
      },
      err, errlen);
  if (rc != SLREF_OK && info && outs)
    for (int i = 0; i < n_out; ++i) {
      free(outs[i].data);
      memset(&outs[i], 0, sizeof outs[i]);
    }
  return rc;
}

extern "C" const char *slref_version(void) { return "LibTorch " TORCH_VERSION; }

extern "C" const char *slref_origin(void) { return SLREF_ORIGIN; }

extern "C" void slref_set_threads(int threads) {
  if (threads > 0 && at::get_num_threads() != threads)
    at::set_num_threads(threads);
}

extern "C" int slref_time(const sl_call *call, int threads, int reps,
                          double *samples, char *err, size_t errlen) {
  if (err && errlen) err[0] = '\0';
  int rc = slref_guarded(
      [&] {
        slref_op_fn fn = slref_checked_lookup(call);
        if (reps < 0 || (reps > 0 && !samples))
          throw slref_internal("reps < 0 or samples is NULL");
        /* Set once and left: LibTorch rebuilds its OpenMP team on every
         * change, and its first calls after one ran 2-3x slower (34, 22,
         * then 14 ms for a 200 MB scatter_reduce) when this put the old
         * count back after every batch. The core's variants are unaffected:
         * the harness gives them their thread count explicitly. */
        slref_set_threads(threads);
        for (int r = 0; r < reps; ++r) {
          auto t0 = std::chrono::steady_clock::now();
          slref_tensors result = fn(*call);
          auto t1 = std::chrono::steady_clock::now();
          samples[r] = std::chrono::duration<double>(t1 - t0).count();
        }
      },
      err, errlen);
  return rc;
}

extern "C" int slref_run_device(const sl_call *call, char *err, size_t errlen) {
  if (err && errlen) err[0] = '\0';
  return slref_guarded(
      [&] {
        slref_op_fn fn = slref_checked_lookup(call);
        if (!torch::cuda::is_available())
          throw slref_reject(slref_fmt("%s has no CUDA backend (or sees no "
                                       "CUDA device)",
                                       SLREF_ORIGIN));
        slref_on_device = true;
        struct reset {
          ~reset() { slref_on_device = false; }
        } reset_flag;
        slref_tensors result = fn(*call);
        (void)result;
      },
      err, errlen);
}
