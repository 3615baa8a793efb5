"""Helpers for scatterlab variants written in Python.

A module of variants (loaded with ``scatterlab --provider py:MODULE``)
declares them in a list named ``VARIANTS``; the ``variant`` decorator adds
one row to it::

    import scatterlab_bridge as sb
    VARIANTS = []

    @sb.variant(VARIANTS, "gather", "cpu.take", dtypes=["f32", "f64"])
    def take(call):
        x, index, out = sb.arrays(call)        # numpy views, no copies
        out[...] = np.take_along_axis(x, index, axis=call.dim)

Each variant receives one ``call``: a namespace holding one Tensor per slot
of the op (gather: x, index, out; scatter and scatter_reduce: x, index,
src, out; segment_reduce: data, lengths, out; ...), ``inputs`` and
``outputs`` tuples of them, and the parameters ``dim``, ``reduce`` (a
name: "sum", "amax", ...), ``include_self``, ``dims``, ``select_index``
(select_scatter's), ``has_value``, ``scalar``, ``iscalar`` (scatter's
scalar, float and integer; segment_reduce's initial) and ``offsets``
(segment_reduce: lengths holds offsets).
A Tensor has ``shape``, ``strides`` (in elements), ``dtype`` (a scatterlab
name: "f32"), ``writable``, and speaks DLPack (``__dlpack__``) and the
buffer protocol (``memoryview(t)``); inputs are read-only, outputs
writable. Tensors live for the call only: do not keep them or arrays made
from them.

The variant returns None after writing every output. Raising
``Unsupported`` refuses the call with a status (an sl_status name); any
other exception fails it with the exception's text.
"""

__all__ = ["Unsupported", "variant", "arrays", "array"]


class Unsupported(Exception):
    """Refuses a call: the variant's status is ``status`` (sl/sl.h's names:
    "invalid_argument", "unsupported_dtype", ...) with the message."""

    def __init__(self, message, status="invalid_argument"):
        super().__init__(message)
        self.status = status


_KEYS = {"dtypes", "index_dtypes", "reduces", "include_self", "max_rank",
         "layouts", "deterministic", "checks_index_values"}


def variant(table, op, name, **caps):
    """Decorator: appends {op, name, fn, **caps} to ``table`` (the module's
    VARIANTS). The capability keys are those of docs/providers.md,
    "Kernels in Python"; the bridge refuses a key it does not know."""
    unknown = set(caps) - _KEYS
    if unknown:
        raise TypeError("variant %s: unknown capability %s (expected %s)"
                        % (name, sorted(unknown), sorted(_KEYS)))

    def add(fn):
        table.append(dict(op=op, name=name, fn=fn, **caps))
        return fn
    return add


def array(tensor):
    """A numpy array over the tensor's buffer, no copy: an input through
    DLPack (numpy.from_dlpack), read-only, or the buffer protocol where
    numpy's DLPack lacks the dtype (bool before numpy 1.25); an output through the buffer
    protocol (a writable memoryview), because numpy >= 2 makes the array of
    an unversioned "dltensor" capsule read-only, and the unversioned capsule
    is what the bridge produces at this version."""
    import numpy as np
    if tensor.writable:
        return np.asarray(memoryview(tensor))
    try:
        a = np.from_dlpack(tensor)
    except (RuntimeError, BufferError, TypeError):
        # numpy < 1.25 knows no kDLBool: the buffer protocol (read-only).
        return np.asarray(memoryview(tensor))
    a.flags.writeable = False
    return a


def arrays(call):
    """numpy arrays of every input then every output of the call."""
    return [array(t) for t in call.inputs + call.outputs]
