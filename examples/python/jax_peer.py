"""JAX on the CPU as a scatterlab peer: JAX's scatter/gather calls as
variants, judged against LibTorch by every scatterlab command.

    scatterlab list --provider py:jax_peer
    scatterlab fuzz --provider py:jax_peer --variants 'jax_peer:*' \\
      --seconds 60 --no-corpus

Needs the PyPI packages jax and jaxlib where the bridge's Python finds
them (PYTHONPATH: docs/providers.md, "Kernels in Python"). 64-bit types
are turned on (jax_enable_x64), the CPU platform only.

Op mapping (scatterlab op and reduce <- JAX call; ix is the full fancy
index of src's positions, index along dim and each position's own
coordinate along the others, as in numpy_peer):

  gather               cpu.take_along_axis  jnp.take_along_axis(x, index, dim)
  scatter (src, value) cpu.at_set           x.at[ix].set(src)
  scatter_reduce sum   cpu.at_add           x.at[ix].add(src)
  scatter_reduce prod  cpu.at_mul           x.at[ix].multiply(src)
  scatter_reduce amax  cpu.at_max           x.at[ix].max(src)
  scatter_reduce amin  cpu.at_min           x.at[ix].min(src)
  segment_reduce sum   cpu.segment_ops      jax.ops.segment_sum(row, ids, S)
  segment_reduce prod                       jax.ops.segment_prod
  segment_reduce amax                       jax.ops.segment_max
  segment_reduce amin                       jax.ops.segment_min
  segment_reduce mean                       segment_sum / lengths

where segment_reduce's lengths (or offsets) become the segment ids of
each position along the axis (np.repeat(arange(S), lengths)), sorted, so
the calls get indices_are_sorted=True; the leading axes before the axis
are batched with jax.vmap.

Where the semantics differ:

* include_self: .at[] always combines with x, so include_self=True is
  x.at[ix].op(src). include_self=False has no JAX form; this module
  emulates it: x.at[ix].set(identity) first (the reduce's identity, as in
  numpy_peer). The emulation is this module's, not JAX's.
* Duplicates: JAX leaves the winner of duplicate .at[].set writes
  unspecified, as LibTorch does (scatterlab's oracle accepts any written
  value); the reductions combine every duplicate.
* Negative indices: .at[] and take_along_axis wrap them (numpy's rule);
  out-of-range ones are dropped by .at[] updates and clamped or filled by
  gathers (mode=None). LibTorch rejects both; scatterlab validates the
  index before a variant without checks_index_values runs, so these
  variants never see one.
* segment_reduce's initial: jax.ops.segment_* take none. This module
  combines the segment's result with initial afterwards (sum: + initial,
  prod: * initial, amax/amin: max/min with it; mean: (sum + initial) /
  length, initial for an empty segment), where LibTorch starts each
  segment from it: a float sum may round differently (the oracle's
  tolerance covers the order). An empty segment without initial gets the
  reduce's identity from JAX as from LibTorch (0, 1, -inf, +inf), and
  mean's 0/0 is NaN in both.
* Shapes: as numpy_peer, arrays are cut to index's extent and 0-d ones
  reshaped to (1,) (LibTorch's reading of dim 0 of a scalar).
* Dtypes: bool, u8, i8, i16, i32, i64, f16, f32, f64, c64, c128 move
  (gather, scatter); the reductions declare the real types; bf16 is not
  declared (numpy, through which the arrays cross, has none). Arrays
  cross by copies: jnp.asarray of the numpy views in, np.asarray of the
  result out.
"""
import functools

import jax

jax.config.update("jax_platforms", "cpu")
jax.config.update("jax_enable_x64", True)

import jax.numpy as jnp  # noqa: E402 (after the config)
import numpy as np  # noqa: E402

import peer_arrays as pa  # noqa: E402
import scatterlab_bridge as sb  # noqa: E402

PROVIDER = "jax_peer"
VERSION = "jax %s jaxlib %s" % (jax.__version__, jax.lib.__version__)
VARIANTS = []

ALL = ["bool", "u8", "i8", "i16", "i32", "i64", "f16", "f32", "f64", "c64",
       "c128"]
REAL = ["u8", "i8", "i16", "i32", "i64", "f16", "f32", "f64"]
FLOAT = ["f16", "f32", "f64"]
ANY_LAYOUT = ["strided", "broadcast"]
BOTH = [True, False]


def _put(out, result):
    out[...] = np.asarray(result).reshape(out.shape)


@sb.variant(VARIANTS, "gather", "cpu.take_along_axis", dtypes=ALL,
            layouts=ANY_LAYOUT, deterministic=True)
def take_along_axis(call):
    x, index, out = pa.arrays(call)
    _put(out, jnp.take_along_axis(jnp.asarray(pa.cut(x, index, call.dim)),
                                  jnp.asarray(index), axis=call.dim))


@sb.variant(VARIANTS, "scatter", "cpu.at_set", dtypes=ALL,
            layouts=ANY_LAYOUT, deterministic=True)
def at_set(call):
    x, index, src, out = pa.arrays(call)
    values = (pa.scalar(call, x.dtype) if call.has_value
              else pa.cut(src, index))
    ix = pa.full_index(index, call.dim)
    _put(out, jnp.asarray(x).at[ix].set(jnp.asarray(values)))


def _at_reduce(call, method):
    """x.at[ix].<method>(src); include_self=False emulated."""
    x, index, src, out = pa.arrays(call)
    ix = pa.full_index(index, call.dim)
    target = jnp.asarray(x).at[ix]
    if not call.include_self:
        target = target.set(pa.identity(call.reduce, x.dtype)).at[ix]
    _put(out, getattr(target, method)(jnp.asarray(pa.cut(src, index))))


for _reduce, _method in [("sum", "add"), ("prod", "multiply"),
                         ("amax", "max"), ("amin", "min")]:
    sb.variant(VARIANTS, "scatter_reduce", "cpu.at_" + _method[:3],
               dtypes=REAL, reduces=[_reduce], include_self=BOTH,
               layouts=ANY_LAYOUT, deterministic=True)(
        functools.partial(_at_reduce, method=_method))

SEGMENT_OPS = {"sum": jax.ops.segment_sum, "mean": jax.ops.segment_sum,
               "prod": jax.ops.segment_prod, "amax": jax.ops.segment_max,
               "amin": jax.ops.segment_min}
WITH_INITIAL = {"sum": jnp.add, "mean": jnp.add, "prod": jnp.multiply,
                "amax": jnp.maximum, "amin": jnp.minimum}


def _segment_ids(lengths, offsets):
    """Rows of segment ids (Q, N) from lengths (Q, S), or offsets (Q, S+1),
    and the lengths (Q, S)."""
    lengths = np.diff(lengths, axis=-1) if offsets else lengths
    rows = [np.repeat(np.arange(lengths.shape[-1]), row) for row in lengths]
    return np.stack(rows).astype(np.int64), lengths


@sb.variant(VARIANTS, "segment_reduce", "cpu.segment_ops", dtypes=FLOAT,
            reduces=["sum", "prod", "mean", "amax", "amin"],
            layouts=ANY_LAYOUT, deterministic=True)
def segment_ops(call):
    data, lengths, out = sb.arrays(call)
    axis = call.dim % data.ndim
    lead, n = data.shape[:axis], data.shape[axis]
    q = int(np.prod(lead, dtype=np.int64))
    ids, lengths = _segment_ids(
        np.asarray(lengths, np.int64).reshape(q, -1), call.offsets)
    segments = lengths.shape[-1]
    rows = jnp.asarray(data).reshape((q, n) + data.shape[axis + 1:])
    fn = functools.partial(SEGMENT_OPS[call.reduce], num_segments=segments,
                           indices_are_sorted=True)
    got = jax.vmap(fn)(rows, jnp.asarray(ids.reshape(q, n)))
    if call.has_value:
        got = WITH_INITIAL[call.reduce](got, jnp.asarray(call.scalar,
                                                         got.dtype))
    if call.reduce == "mean":
        counts = lengths.reshape((q, segments) + (1,) * (got.ndim - 2))
        got = got / jnp.asarray(counts, got.dtype)
        if call.has_value:
            got = jnp.where(counts == 0, jnp.asarray(call.scalar, got.dtype),
                            got)
    _put(out, got)
