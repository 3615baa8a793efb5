"""The Python bridge's own test module: variants in pure Python (no numpy),
reading and writing through the buffer protocol (memoryview), so that the
bridge is tested where no peer is installed. tests/python/bridge.sh."""
import itertools

import scatterlab_bridge as sb

VARIANTS = []


def _positions(shape):
    return itertools.product(*(range(n) for n in shape))


@sb.variant(VARIANTS, "gather", "cpu.memoryview",
            dtypes=["i32", "i64", "f32", "f64"], layouts=["strided"],
            deterministic=True)
def gather(call):
    x, index, out = (memoryview(t) for t in (call.x, call.index, call.out))
    for pos in _positions(call.out.shape):
        src = list(pos)
        src[call.dim] = index[pos]
        out[pos] = x[tuple(src)]


@sb.variant(VARIANTS, "scatter_reduce", "cpu.memoryview_sum",
            dtypes=["i32", "i64"], reduces=["sum"], include_self=[True],
            deterministic=True)
def scatter_sum(call):
    x, index, src, out = (memoryview(t) for t in
                          (call.x, call.index, call.src, call.out))
    for pos in _positions(call.out.shape):
        out[pos] = x[pos]
    for pos in _positions(call.index.shape):
        dst = list(pos)
        dst[call.dim] = index[pos]
        out[tuple(dst)] = out[tuple(dst)] + src[pos]
