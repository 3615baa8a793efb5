"""numpy as a scatterlab peer: numpy's own scatter/gather routines as
variants, judged against LibTorch by every scatterlab command.

    scatterlab list --provider py:numpy_peer
    scatterlab fuzz --provider py:numpy_peer --variants 'numpy_peer:*' --seconds 60

(The working folder and PYTHONPATH are searched for the module; an
installed scatterlab also finds this copy in <prefix>/share/scatterlab/
python.)

Op mapping (scatterlab op and reduce <- numpy call):

  gather                       out[...] = np.take_along_axis(x, index, dim)
  scatter (assign, src)        out[...] = x; np.put_along_axis(out, index, src, dim)
  scatter (assign, value)      the same with the scalar value
  scatter_reduce sum           out[...] = x; np.add.at(out, ix, src)
  scatter_reduce prod          out[...] = x; np.multiply.at(out, ix, src)
  scatter_reduce amax          out[...] = x; np.maximum.at(out, ix, src)
  scatter_reduce amin          out[...] = x; np.minimum.at(out, ix, src)

where ix is the full fancy index of `src`'s positions: index along dim, the
position itself along every other axis (scatter_reduce's definition,
out[..., index[i,j], ...] op= src[i,j]).

Where the semantics differ:

* include_self: numpy's ufunc.at always combines with what `out` holds, so
  include_self=True is "copy x into out first". include_self=False has no
  numpy form; this module emulates it: the positions that receive at least
  one value are first set to the reduce's identity (0 for sum, 1 for prod,
  -inf / the dtype's lowest for amax, +inf / highest for amin), then the
  ufunc runs. The emulation is this module's, not numpy's.
* Duplicates: put_along_axis (scatter) writes in index order, the last
  write wins; LibTorch leaves the winner unspecified (scatterlab's oracle
  for scatter accepts any of the written values). ufunc.at is unbuffered:
  every duplicate contributes, as in LibTorch's scatter_reduce.
* Negative indices: numpy wraps them (index -1 is the last element);
  LibTorch rejects them. scatterlab validates the index before a variant
  without checks_index_values runs, so the variants never see one; they
  do not declare checks_index_values.
* f16 sums and products (a finding of `fuzz`, numpy 2.4.6 and 1.24.2 vs
  LibTorch 2.11): np.add.at / np.multiply.at compute in the array's dtype,
  rounding to f16 at every step, where LibTorch accumulates f16 in f32 and
  rounds once. Large terms then absorb small ones or overflow: 8 f16 terms
  whose sum is exact in f32 give 0 instead of 3.5; a product whose f32
  value is -60576 gives -inf; inf * 0 on the way gives NaN where LibTorch
  gets 0. scatterlab judges these `failed` (the sum is exact in the
  accumulator, or beyond what the order can explain); they are numpy's
  definition, not declared away here:
      scatterlab run 'scatter_reduce dt=f16 it=i64 x=1 index=8 src=8 dim=0
        reduce=sum self=1 dp=ext seed=617349396' --provider py:numpy_peer
* Shapes: LibTorch reads only index.size(d) of x, src and out along each
  axis d (gather: x along the others; scatter: src along all), where numpy
  would broadcast a smaller index (writing more elements) or refuse a
  larger src; and LibTorch takes dim 0 of a 0-d tensor. This module cuts
  the arrays to index's extent (views) and reshapes 0-d ones to (1,).
* Scalars: scatter's integer value wraps into the dtype as in LibTorch;
  numpy >= 2 refuses out-of-range Python ints (NEP 50), so the module
  casts through int64.
* NaN in amax/amin: np.maximum / np.minimum propagate NaN, as LibTorch's
  amax/amin do.
* Dtypes: bool, u8, i8, i16, i32, i64, f16, f32, f64, c64, c128 cross
  through DLPack; bf16 has no numpy dtype (not declared). The reduces
  declare the dtypes on which numpy's ufunc is defined as LibTorch's
  (amax/amin: not on complex; LibTorch rejects those cases anyway).
"""
import numpy as np

import peer_arrays as pa
import scatterlab_bridge as sb

PROVIDER = "numpy_peer"
VERSION = "numpy " + np.__version__
VARIANTS = []

ALL = ["bool", "u8", "i8", "i16", "i32", "i64", "f16", "f32", "f64", "c64",
       "c128"]
REAL = ["u8", "i8", "i16", "i32", "i64", "f16", "f32", "f64"]
ANY_LAYOUT = ["strided", "broadcast"]

UFUNCS = {"sum": np.add, "prod": np.multiply, "amax": np.maximum,
          "amin": np.minimum}


@sb.variant(VARIANTS, "gather", "cpu.take_along_axis", dtypes=ALL,
            layouts=ANY_LAYOUT, deterministic=True)
def take_along_axis(call):
    x, index, out = pa.arrays(call)
    out[...] = np.take_along_axis(pa.cut(x, index, call.dim), index,
                                  axis=call.dim)


@sb.variant(VARIANTS, "scatter", "cpu.put_along_axis", dtypes=ALL,
            layouts=ANY_LAYOUT, deterministic=True)
def put_along_axis(call):
    x, index, src, out = pa.arrays(call)
    out[...] = x
    values = (pa.scalar(call, out.dtype) if call.has_value
              else pa.cut(src, index))
    np.put_along_axis(pa.cut(out, index, call.dim), index, values,
                      axis=call.dim)


@sb.variant(VARIANTS, "scatter_reduce", "cpu.ufunc_at", dtypes=REAL,
            reduces=["sum", "prod", "amax", "amin"],
            include_self=[True, False], layouts=ANY_LAYOUT,
            deterministic=True)
def ufunc_at(call):
    x, index, src, out = pa.arrays(call)
    out[...] = x
    ix = pa.full_index(index, call.dim)
    if not call.include_self:
        out[ix] = pa.identity(call.reduce, out.dtype)
    UFUNCS[call.reduce].at(out, ix, pa.cut(src, index))
