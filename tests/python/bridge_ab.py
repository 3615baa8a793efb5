"""Candidates for `scatterlab ab --cand py:bridge_ab` (tests/python/
bridge_bench.sh): ab pairs the variants of two builds by name, so these
carry the names of scatterlab's own kernels. cpu.serial is a correct
gather in pure Python (the bridge's whole cost, and Python's, in its
time); cpu.omp exits the process on its
first call, which must cost that pair only."""
import os

import scatterlab_bridge as sb

from bridge_pure import gather as _gather

VARIANTS = []
sb.variant(VARIANTS, "gather", "cpu.serial", dtypes=["f32"],
           layouts=["strided"], deterministic=True)(_gather)


@sb.variant(VARIANTS, "gather", "cpu.omp", dtypes=["f32"])
def dies(call):
    os._exit(3)
