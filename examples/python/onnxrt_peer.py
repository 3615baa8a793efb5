"""ONNX Runtime as a scatterlab peer (named onnxrt_peer: a provider name
has at most 15 characters): ONNX's scatter/gather operators, each
a one-node model run by ONNX Runtime's CPU execution provider, judged
against LibTorch by every scatterlab command.

    scatterlab list --provider py:onnxrt_peer
    scatterlab fuzz --provider py:onnxrt_peer \\
      --variants 'onnxrt_peer:*' --seconds 60 --no-corpus

Needs the PyPI packages onnx and onnxruntime where the bridge's Python
finds them: scripts/setup-peers.sh makes a venv, which the bridge reads through
VIRTUAL_ENV (docs/providers.md, "Kernels in Python").

Op mapping (scatterlab op and reduce, variant <- ONNX operator, opset 18;
every ScatterElements and GatherElements with axis=dim):

  gather               cpu.gather_elements       GatherElements(x, index)
  scatter (src, value) cpu.scatter_elements      ScatterElements(x, index,
                                                   src, reduction="none")
  scatter_reduce sum   cpu.scatter_elements_add  ScatterElements(...,
                                                   reduction="add")
  scatter_reduce prod  cpu.scatter_elements_mul  ... reduction="mul"
  scatter_reduce amax  cpu.scatter_elements_max  ... reduction="max"
  scatter_reduce amin  cpu.scatter_elements_min  ... reduction="min"
  gather_nd            cpu.gather_nd             GatherND(x, coordinates)
  scatter_nd none      cpu.scatter_nd            ScatterND(x, coordinates,
                                                   src, reduction="none")
  scatter_nd sum       cpu.scatter_nd_add        ... reduction="add"

Where the semantics differ:

* gather_nd / scatter_nd: scatterlab's form (CINN's) has an index of
  x's rank + 1 whose last column k replaces coordinate dims[k] of each
  position, the position itself giving the other coordinates. ONNX's
  GatherND/ScatterND (batch_dims=0) index the leading axes only, so this
  module hands them the full coordinate tuple of every position (last
  extent = x's rank, int64, built in numpy): the ONNX op then reads or
  writes one element per position. The index dtype ONNX sees is always
  int64 (GatherND and ScatterND take no int32).
* include_self: ScatterElements always combines with what data holds, so
  include_self=True hands it x. include_self=False has no ONNX form; this
  module emulates it as numpy_peer does: the targeted positions of a copy
  of x are set to the reduce's identity first. The emulation is this
  module's, not ONNX Runtime's.
* Duplicates: ONNX leaves the order of duplicate writes of reduction
  "none" undefined (ScatterElements, ScatterND); LibTorch leaves the
  winner unspecified too, and scatterlab's oracle accepts any written
  value. With a reduction every duplicate contributes, as in LibTorch.
* Negative indices: ONNX accepts [-s, s-1] and wraps (all four ops);
  LibTorch rejects negative indices. scatterlab validates the index before
  a variant without checks_index_values runs, so these variants never see
  one; they do not declare checks_index_values.
* Shapes: ScatterElements needs updates of index's shape exactly, where
  LibTorch reads only index.size(d) of src: src is cut to index's extent
  (a view). GatherElements gets x as it is: index may be shorter than x
  on the other axes in both definitions. A 0-d tensor is handed over as
  shape (1,), LibTorch's reading of dim 0 of a scalar.
* Scalars: scatter's value is broadcast to index's shape as updates, an
  integer wrapping into the dtype as LibTorch's cast does.
* Dtypes (ONNX Runtime 1.32's CPU kernels): bool, u8, i8, i16, i32, i64,
  f16, f32, f64 move; ScatterElements add/mul and ScatterND add refuse f16
  ("MLFloat16 data type is not supported ... when reduction is 'add'"),
  max/min refuse bool; complex types are not registered at all; bf16 has
  no numpy dtype. Each variant declares what its kernel takes: those
  refusals are ONNX Runtime's coverage, not a disagreement of values.

Every session runs on one thread (intra_op_num_threads=1, no spinning):
a pool started by a call is a thread left running, which fails the
variant. Sessions are kept per (operator, attributes, dtypes): the
model's shapes are left symbolic, so one session serves every shape.
"""
import functools

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper

import peer_arrays as pa
import scatterlab_bridge as sb

PROVIDER = "onnxrt_peer"
VERSION = "onnxruntime %s onnx %s" % (ort.__version__, onnx.__version__)
VARIANTS = []
OPSET = 18

MOVE = ["bool", "u8", "i8", "i16", "i32", "i64", "f16", "f32", "f64"]
ADD = ["u8", "i8", "i16", "i32", "i64", "f32", "f64"]  # no f16 kernels
MINMAX = ["u8", "i8", "i16", "i32", "i64", "f16", "f32", "f64"]
ANY_LAYOUT = ["strided", "broadcast"]
BOTH = [True, False]


def _options():
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    opts.log_severity_level = 4  # ORT's own log would repeat the error
    return opts


@functools.lru_cache(maxsize=None)
def _session(op_type, attrs, dtypes):
    """A session of the one-node model op_type(in0, in1, ...) -> out, the
    inputs of the numpy dtypes `dtypes` (names), out of dtypes[0], every
    shape symbolic."""
    names = ["in%d" % k for k in range(len(dtypes))]
    elem = [helper.np_dtype_to_tensor_dtype(np.dtype(d)) for d in dtypes]
    graph = helper.make_graph(
        [helper.make_node(op_type, names, ["out"], **dict(attrs))], "peer",
        [helper.make_tensor_value_info(n, e, None)
         for n, e in zip(names, elem)],
        [helper.make_tensor_value_info("out", elem[0], None)])
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", OPSET)])
    return ort.InferenceSession(model.SerializeToString(), _options(),
                                providers=["CPUExecutionProvider"])


def _run(op_type, out, *inputs, **attrs):
    """Runs op_type on the inputs (contiguous copies: ONNX Runtime takes
    dense buffers) and writes its result into out."""
    feeds = [np.ascontiguousarray(a) for a in inputs]
    sess = _session(op_type, tuple(sorted(attrs.items())),
                    tuple(a.dtype.name for a in feeds))
    got = sess.run(None, {"in%d" % k: a for k, a in enumerate(feeds)})[0]
    out[...] = got.reshape(out.shape)


@sb.variant(VARIANTS, "gather", "cpu.gather_elements", dtypes=MOVE,
            layouts=ANY_LAYOUT, deterministic=True)
def gather_elements(call):
    x, index, out = pa.arrays(call)
    _run("GatherElements", out, x, index, axis=call.dim)


@sb.variant(VARIANTS, "scatter", "cpu.scatter_elements", dtypes=MOVE,
            layouts=ANY_LAYOUT, deterministic=True)
def scatter_elements(call):
    x, index, src, out = pa.arrays(call)
    updates = (np.broadcast_to(pa.scalar(call, x.dtype), index.shape)
               if call.has_value else pa.cut(src, index))
    _run("ScatterElements", out, x, index, updates, axis=call.dim,
         reduction="none")


def _scatter_reduce(call, reduction):
    """ScatterElements with a reduction; include_self=False emulated."""
    x, index, src, out = pa.arrays(call)
    data = x
    if not call.include_self:
        data = np.array(x)
        data[pa.full_index(index, call.dim)] = pa.identity(call.reduce,
                                                           x.dtype)
    _run("ScatterElements", out, data, index, pa.cut(src, index),
         axis=call.dim, reduction=reduction)


# One variant per ONNX reduction: each kernel takes its own dtypes.
for _reduce, _onnx, _dtypes in [("sum", "add", ADD), ("prod", "mul", ADD),
                                ("amax", "max", MINMAX),
                                ("amin", "min", MINMAX)]:
    sb.variant(VARIANTS, "scatter_reduce", "cpu.scatter_elements_" + _onnx,
               dtypes=_dtypes, reduces=[_reduce], include_self=BOTH,
               layouts=ANY_LAYOUT, deterministic=True)(
        functools.partial(_scatter_reduce, reduction=_onnx))


@sb.variant(VARIANTS, "gather_nd", "cpu.gather_nd", dtypes=MOVE,
            layouts=ANY_LAYOUT, deterministic=True)
def gather_nd(call):
    x, index, out = sb.arrays(call)
    coords = pa.nd_coordinates(index, pa.nd_dims(call, index))
    _run("GatherND", out, x, coords)


def _scatter_nd(call, reduction):
    x, index, src, out = sb.arrays(call)
    coords = pa.nd_coordinates(index, pa.nd_dims(call, index))
    _run("ScatterND", out, x, coords, src, reduction=reduction)


sb.variant(VARIANTS, "scatter_nd", "cpu.scatter_nd", dtypes=MOVE,
           reduces=["none"], layouts=ANY_LAYOUT, deterministic=True)(
    functools.partial(_scatter_nd, reduction="none"))
sb.variant(VARIANTS, "scatter_nd", "cpu.scatter_nd_add", dtypes=ADD,
           reduces=["sum"], layouts=ANY_LAYOUT, deterministic=True)(
    functools.partial(_scatter_nd, reduction="add"))
