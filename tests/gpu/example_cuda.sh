#!/usr/bin/env bash
# The CUDA example provider (examples/provider/cuda/minlib_cuda.cu, built
# in-tree as libminlib_cuda.so) on a GPU: `list` shows its variant
# available, and a short fuzz campaign of it against LibTorch, confined to
# its capabilities, finds nothing. Exits 77 (skipped) without a CUDA device.
#
# usage: example_cuda.sh SCATTERLAB FIXTURE_DIR
set -u
BIN=$1
LIB=$2/libminlib_cuda.so
. "$(dirname "$0")/../check.sh"
NAME=example_cuda
. "$(dirname "$0")/skip_without_device.sh"
[ -f "$LIB" ] || { echo "FAIL: fixture $LIB not built"; exit 1; }
"$BIN" list --provider "$LIB" >"$tmp/list" 2>&1
check "list shows minlibcuda:cuda.atomic_min available" \
  grep -qE 'minlibcuda:cuda\.atomic_min +- +yes' "$tmp/list"
"$BIN" fuzz --no-db --no-corpus --provider "$LIB" \
  --variants 'minlibcuda:*' --ops scatter_reduce --seconds 10 \
  >"$tmp/out" 2>&1
rc=$?
check "fuzz of minlibcuda:* exits 0" test $rc -eq 0
check "... and reports no failure" has ' 0 failure groups \(0 failing cases\)'
[ "$fails" -eq 0 ] || tail -30 "$tmp/out" | sed 's/^/  | /'
echo "$((checks - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
