"""Gather variants that pass their check and break later, in bench's or
ab's timing (tests/python/bridge_bench.sh): each counts its calls in its
process and breaks on the LATE-th, past the few calls of a check. Each
must cost its own row only."""
import os
import sys

import scatterlab_bridge as sb

from bridge_pure import gather as _gather

VARIANTS = []
LATE = 40


def late(name, breaks):
    calls = [0]

    def fn(call):
        calls[0] += 1
        if calls[0] >= LATE:
            breaks()
        _gather(call)
    sb.variant(VARIANTS, "gather", name, dtypes=["f32"])(fn)


def _hang():
    while True:
        pass


late("cpu.late_ok", lambda: None)
late("cpu.late_abort", os.abort)
late("cpu.late_hang", _hang)
late("cpu.late_exit", lambda: sys.exit(0))
late("cpu.late_raise", lambda: 1 / 0)
