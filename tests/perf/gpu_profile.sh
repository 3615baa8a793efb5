#!/usr/bin/env bash
# Where the GPU time of one case goes, kernel by kernel: Nsight Compute's
# duration of every kernel that `scatterlab run CASE --variants VARIANTS`
# launches (our variants; caches are flushed before each kernel, so the
# figures are cold-cache), summed per kernel name. For a call of the device
# tool after `scripts/gpu-run.sh prebuilt`, which leaves the carried build
# and the libraries in place; the H100 machine has ncu (not nsys).
#
#   bash tests/perf/gpu_profile.sh BUILD 'CASE LINE' VARIANTS
#
# Exits 77 when the machine has no ncu.
set -u
BUILD=$1 CASE=$2 VARIANTS=$3
export PATH=/usr/local/cuda/bin:$PATH
command -v ncu >/dev/null || { echo "gpu_profile: no ncu on this machine"; exit 77; }
LIB=/tmp/sl-deps/usr/lib/x86_64-linux-gnu
TORCH=$(python3 -c 'import os, torch; print(os.path.dirname(torch.__file__))')
export LD_LIBRARY_PATH=$LIB:$TORCH/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
ncu --print-summary per-kernel --metrics gpu__time_duration.sum \
  "$BUILD/scatterlab" run "$CASE" --variants "$VARIANTS" --no-db 2>&1 |
  grep -E '^  [a-zA-Z_].*\(|gpu__time_duration|passed|failed' | cut -c1-160
