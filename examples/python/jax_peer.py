"""JAX on the CPU as a scatterlab peer: JAX's scatter/gather calls as
variants, judged against LibTorch by every scatterlab command.

    scatterlab list --provider py:jax_peer
    scatterlab fuzz --provider py:jax_peer --variants 'jax_peer:*' \\
      --seconds 60 --no-corpus

Needs the PyPI packages jax and jaxlib where the bridge's Python finds
them: scripts/setup-peers.sh makes a venv, which the bridge reads through
VIRTUAL_ENV (docs/providers.md, "Kernels in Python"). 64-bit types
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
  segment_reduce sum   cpu.segment_sums     jax.ops.segment_sum(row, ids, S)
  segment_reduce prod  cpu.segment_sums     jax.ops.segment_prod
  segment_reduce mean  cpu.segment_sums     segment_sum / lengths
  segment_reduce amax  cpu.segment_minmax   jax.ops.segment_max
  segment_reduce amin  cpu.segment_minmax   jax.ops.segment_min

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
* f16 sums and products (a difference of definition, docs/findings.md):
  XLA's scatter and segment_sum/prod add and multiply in the operand's
  type, rounding to f16 at every step, where LibTorch 2.11 accumulates
  f16 in f32 and rounds once: 19 f16 terms whose exact sum is 514.5 give
  515, a product whose f32 value is 30448 overflows to inf. at_add,
  at_mul and segment_sums therefore do not declare f16 (amax/amin do).
* Subnormals (a difference of definition, docs/findings.md): XLA's CPU
  computations flush them to zero, so max(-1.125, 5.1e-39) is 0 here and
  5.1e-39 in LibTorch; only the exact oracles (amax, amin) see it, about
  once in a few hundred cases. No capability can declare it away.
* Dtypes: bool, u8, i8, i16, i32, i64, f16, f32, f64, c64, c128 move
  (gather, scatter); the reductions declare the real types (f16 as
  above); bf16 is not declared (numpy, through which the arrays cross,
  has none). Arrays cross by copies: the numpy views go into one
  jax.jit-compiled function per variant, np.asarray of its result out.

JAX's runtime threads (15 of XLA's, 2 of LLVM's) all start on the first
call in each process (_warm), the one call whose threads the worker's
guard forgives.
"""
import functools
import os

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
REAL_NO_F16 = ["u8", "i8", "i16", "i32", "i64", "f32", "f64"]
ANY_LAYOUT = ["strided", "broadcast"]
BOTH = [True, False]


def _put(out, result):
    out[...] = np.asarray(result).reshape(out.shape)


_warm_pid = None


def _warm():
    """Starts every thread of JAX's CPU runtime in this process: XLA's
    client pools (15 threads here) on the first computation, LLVM's two
    codegen workers on the first compilation that splits its module (a
    gather's does, a scatter's does not). The worker's guard forgives the
    threads of the first Python call in a worker only (docs/providers.md,
    "A runtime's threads"): a pool started by a later call would read as a
    thread the variant left running. 40 shapes and dtypes of every
    variant's call start no more after this."""
    global _warm_pid
    if _warm_pid == os.getpid():
        return
    _warm_pid = os.getpid()
    x = np.zeros((3, 3, 3), np.int16).transpose()
    take_along(x[:2, :2], np.zeros((2, 2, 5), np.int64),
               axis=2).block_until_ready()


def _warmed(fn):
    """fn, which first warms the runtime up (_warm)."""
    @functools.wraps(fn)
    def call(*args, **kwargs):
        _warm()
        return fn(*args, **kwargs)
    return call


# Each variant's JAX work is one jitted function: JAX compiles every new
# shape, and one compilation of the whole call costs a third of the
# op-by-op ones that eager calls make (0.2 s against 0.57 s for a new
# shape of .at[].add here).
take_along = jax.jit(jnp.take_along_axis, static_argnames="axis")


@functools.partial(jax.jit, static_argnames=("method", "fresh"))
def _at(x, ix, values, start, method, fresh):
    """x.at[ix].<method>(values), the targets first set to start when
    fresh (include_self=False)."""
    target = x.at[ix]
    if fresh:
        target = target.set(start).at[ix]
    return getattr(target, method)(values)


@sb.variant(VARIANTS, "gather", "cpu.take_along_axis", dtypes=ALL,
            layouts=ANY_LAYOUT, deterministic=True)
@_warmed
def take_along_axis(call):
    x, index, out = pa.arrays(call)
    _put(out, take_along(pa.cut(x, index, call.dim), index, axis=call.dim))


@sb.variant(VARIANTS, "scatter", "cpu.at_set", dtypes=ALL,
            layouts=ANY_LAYOUT, deterministic=True)
@_warmed
def at_set(call):
    x, index, src, out = pa.arrays(call)
    values = (pa.scalar(call, x.dtype) if call.has_value
              else pa.cut(src, index))
    _put(out, _at(x, pa.full_index(index, call.dim), values, 0,
                  method="set", fresh=False))


@_warmed
def _at_reduce(call, method):
    """x.at[ix].<method>(src); include_self=False emulated."""
    x, index, src, out = pa.arrays(call)
    start = np.asarray(pa.identity(call.reduce, x.dtype)).astype(x.dtype)
    _put(out, _at(x, pa.full_index(index, call.dim), pa.cut(src, index),
                  start, method=method, fresh=not call.include_self))


# sum and prod without f16: XLA adds and multiplies f16 in f16, rounding
# at every step, where LibTorch accumulates in f32 (a difference of
# definition, docs/findings.md): declared away so that a campaign is
# clean of it.
for _reduce, _method, _dtypes in [("sum", "add", REAL_NO_F16),
                                  ("prod", "multiply", REAL_NO_F16),
                                  ("amax", "max", REAL),
                                  ("amin", "min", REAL)]:
    sb.variant(VARIANTS, "scatter_reduce", "cpu.at_" + _method[:3],
               dtypes=_dtypes, reduces=[_reduce], include_self=BOTH,
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


@functools.partial(jax.jit, static_argnames=("reduce", "segments",
                                             "with_initial"))
def _segments(rows, ids, lengths, initial, reduce, segments, with_initial):
    """segment_reduce of rows (Q, N, ...) by ids (Q, N): (Q, S, ...)."""
    fn = functools.partial(SEGMENT_OPS[reduce], num_segments=segments,
                           indices_are_sorted=True)
    got = jax.vmap(fn)(rows, ids)
    if with_initial:
        got = WITH_INITIAL[reduce](got, initial)
    if reduce == "mean":
        counts = lengths.reshape(lengths.shape + (1,) * (got.ndim - 2))
        got = got / counts.astype(got.dtype)
        if with_initial:
            got = jnp.where(counts == 0, initial, got)
    return got


# Two variants: segment_sum and segment_prod round f16 at every step as
# .at[].add does (docs/findings.md), so the sums take f32 and f64 only.
@sb.variant(VARIANTS, "segment_reduce", "cpu.segment_minmax",
            dtypes=["f16", "f32", "f64"], reduces=["amax", "amin"],
            layouts=ANY_LAYOUT, deterministic=True)
@sb.variant(VARIANTS, "segment_reduce", "cpu.segment_sums",
            dtypes=["f32", "f64"], reduces=["sum", "prod", "mean"],
            layouts=ANY_LAYOUT, deterministic=True)
@_warmed
def segment_ops(call):
    data, lengths, out = sb.arrays(call)
    axis = call.dim % data.ndim
    lead, n = data.shape[:axis], data.shape[axis]
    q = int(np.prod(lead, dtype=np.int64))
    if q == 0:  # no rows: out is empty too
        return
    ids, lengths = _segment_ids(
        np.asarray(lengths, np.int64).reshape(q, -1), call.offsets)
    rows = data.reshape((q, n) + data.shape[axis + 1:])
    initial = np.asarray(call.scalar).astype(data.dtype)
    _put(out, _segments(rows, ids.reshape(q, n), lengths, initial,
                        reduce=call.reduce, segments=lengths.shape[-1],
                        with_initial=bool(call.has_value)))
