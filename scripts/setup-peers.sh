#!/usr/bin/env bash
# The optional peers of the Python bridge (examples/python: onnxrt_peer,
# jax_peer) need packages from PyPI that `make demo` and the test suite do
# not: this makes a venv for them, .venv-peers in the source tree (or the
# folder given), from the Python the bridge embeds (the build's
# Python3_EXECUTABLE: a venv of another version is not seen). The peers'
# tests (CTest python.onnxrt_peer, python.jax_peer) and the bridge
# use it through VIRTUAL_ENV; the tests set that to .venv-peers when unset.
#
# usage: scripts/setup-peers.sh [VENV] [PYTHON]
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
venv=${1:-$src/.venv-peers}
python=${2:-python3}
"$python" -m venv "$venv"
"$venv/bin/pip" install --quiet numpy onnx onnxruntime jax jaxlib
"$venv/bin/python" -c 'import onnxruntime, jax; print("setup-peers:", "onnxruntime", onnxruntime.__version__, "jax", jax.__version__)'
echo "setup-peers: export VIRTUAL_ENV=$venv  # for scatterlab --provider py:onnxrt_peer / py:jax_peer"
