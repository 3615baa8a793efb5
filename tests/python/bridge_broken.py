"""Gather variants that each break one rule, in Python (pure: no numpy):
tests/python/bridge.sh asserts the verdict of each. The run must go on
past every one."""
import ctypes
import os
import sys
import threading
import time

import scatterlab_bridge as sb

from bridge_pure import gather as _gather

VARIANTS = []


def broken(name):
    return sb.variant(VARIANTS, "gather", name, dtypes=["f32"])


@broken("cpu.ok")
def ok(call):
    _gather(call)


@broken("cpu.c_thread")
def c_thread(call):
    """A thread of C's own (no Python thread state: the bridge cannot see
    it) left running. It runs after cpu.ok, so it is not the worker's
    first Python call, whose runtime threads the guard forgives: the
    worker's guard fails it."""
    _gather(call)
    libc = ctypes.CDLL(None)
    tid = ctypes.c_ulong()
    libc.pthread_create(ctypes.byref(tid), None,
                        ctypes.cast(libc.sleep, ctypes.c_void_p),
                        ctypes.c_void_p(30))


@broken("cpu.wrong")
def wrong(call):
    _gather(call)
    out = memoryview(call.out)
    first = (0,) * len(call.out.shape)
    out[first] = out[first] + 1.0


@broken("cpu.raises")
def raises(call):
    raise ValueError("planted: caf\u00e9\nsecond line")


@broken("cpu.refuses")
def refuses(call):
    raise sb.Unsupported("planted refusal", status="unsupported_dtype")


@broken("cpu.returns")
def returns(call):
    _gather(call)
    return 1


@broken("cpu.writes_input")
def writes_input(call):
    memoryview(call.x)[(0,) * len(call.x.shape)] = 1.0


@broken("cpu.aborts")
def aborts(call):
    os.abort()


@broken("cpu.segv")
def segv(call):
    ctypes.string_at(0)


@broken("cpu.sys_exit")
def sys_exit(call):
    sys.exit(0)


@broken("cpu.os_exit")
def os_exit(call):
    os._exit(3)


@broken("cpu.hangs")
def hangs(call):
    while True:
        pass


@broken("cpu.thread")
def thread(call):
    _gather(call)
    threading.Thread(target=time.sleep, args=(30,), daemon=True).start()
