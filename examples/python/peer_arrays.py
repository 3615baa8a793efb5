"""What the example peers (numpy_peer, onnxruntime_peer, jax_peer) share:
LibTorch's reading of shapes and scalars, turned into numpy arrays that a
peer's own call accepts. Each function's docstring says which LibTorch
rule it carries; the peers' headers say where they use them."""
import numpy as np

import scatterlab_bridge as sb


def identity(reduce, dtype):
    """The value a position starts from when x is not included
    (include_self=False): 0 for sum, 1 for prod, -inf / the dtype's lowest
    for amax, +inf / highest for amin."""
    if reduce == "sum":
        return 0
    if reduce == "prod":
        return 1
    if np.issubdtype(dtype, np.floating):
        return -np.inf if reduce == "amax" else np.inf
    info = np.iinfo(dtype)
    return info.min if reduce == "amax" else info.max


def scalar(call, dtype):
    """scatter's scalar in out's dtype. An integer wraps as in C, as
    LibTorch's cast does: numpy >= 2 refuses a Python int out of the
    dtype's range (NEP 50: np.uint8(-255) raises OverflowError)."""
    if dtype.kind in "fcb":
        return np.asarray(call.scalar).astype(dtype)
    return np.asarray(call.iscalar, dtype=np.int64).astype(dtype)


def full_index(index, dim):
    """index along dim, each position's own coordinate along the others:
    the element-wise ops' target of every index position
    (out[..., index[i,j], ...])."""
    grids = list(np.indices(index.shape, sparse=True))
    grids[dim] = index
    return tuple(grids)


def nd_coordinates(index, dims):
    """gather_nd / scatter_nd's (CINN form) target of each position i of
    index.shape[:-1] as a full coordinate tuple, shape index.shape[:-1] +
    (K,): i itself on the axes dims does not name, index[i, k] on axis
    dims[k]. int64."""
    lead = index.shape[:-1]
    coords = np.indices(lead, dtype=np.int64)
    coords = np.moveaxis(coords, 0, -1).copy()
    for k, axis in enumerate(dims):
        coords[..., axis] = index[..., k]
    return coords


def nd_dims(call, index):
    """The call's dims, 0..M-1 when it names none."""
    return tuple(call.dims) if call.dims else tuple(range(index.shape[-1]))


def arrays(call):
    """The call's arrays, a 0-d one as shape (1,): LibTorch takes dim 0 of
    a scalar, numpy has no axis 0 there. Views: writes reach out."""
    return [a.reshape(1) if a.ndim == 0 else a for a in sb.arrays(call)]


def cut(a, index, dim=None):
    """a cut to index's extent along every axis but dim (every axis when
    dim is None: src): LibTorch reads only index.size(d) of x, src and out
    there, where numpy would broadcast a smaller index or refuse a larger
    src. A view."""
    return a[tuple(slice(None) if d == dim else slice(0, n)
                   for d, n in enumerate(index.shape))]
