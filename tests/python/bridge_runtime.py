"""A module whose first call starts a thread of C's own that stays, as a
framework's runtime does (JAX's XLA pools): the worker's guard forgives
the first call of each Python module in a worker, so two such modules in
one run (bridge_runtime and bridge_runtime_b) both pass.
tests/python/bridge.sh."""
import ctypes

import scatterlab_bridge as sb

from bridge_pure import gather as _gather


def declare(table):
    """Adds this module's variant to table, with its own runtime: each
    module that calls it starts its thread on its own first call."""
    started = []

    @sb.variant(table, "gather", "cpu.runtime", dtypes=["f32"])
    def runtime(call):
        _gather(call)
        if started:
            return
        started.append(True)
        libc = ctypes.CDLL(None)
        tid = ctypes.c_ulong()
        libc.pthread_create(ctypes.byref(tid), None,
                            ctypes.cast(libc.pause, ctypes.c_void_p), None)


VARIANTS = []
declare(VARIANTS)
