#!/usr/bin/env bash
# A CUDA provider's misbehaving kernels are `failed` verdicts: the harness's
# device checks (harness/engine/device.h) catch a write past the output (guard) and
# output elements never written (poison), and such a fault is a failure of
# the variant, not a refusal to compare with LibTorch's answer
# (reject_mismatch). Exits 77 (skipped) without a CUDA device.
#
# usage: broken_cuda.sh SCATTERLAB FIXTURE_DIR
set -u
BIN=$1
LIB=$2/libsltest_broken_cuda.so
. "$(dirname "$0")/../check.sh"
NAME=broken_cuda
. "$(dirname "$0")/skip_without_device.sh"
[ -f "$LIB" ] || { echo "FAIL: fixture $LIB not built"; exit 1; }
block() { awk -v v="$1" '/^[^ ]/ { on = ($2 == v) } on' "$tmp/out"; }
verdict_is() { # verdict_is VARIANT VERDICT
  local got
  got=$(block "$1" | awk 'NR == 1 { print $1 }')
  [ "$got" = "$2" ] && return
  echo "  $1: expected verdict $2, got '${got:-no verdict line}'"
  sed 's/^/  | /' "$tmp/out"
  return 1
}
message_has() { # message_has VARIANT TEXT
  block "$1" | tail -n +2 | grep -qF -- "$2" && return
  echo "  $1: expected a message containing '$2', got:"
  block "$1" | sed 's/^/  | /'
  return 1
}
"$BIN" run --no-db --provider "$LIB" --variants 'brokencuda:*' \
  'gather dt=f32 it=i64 x=1000 index=600 dim=0 seed=1' >"$tmp/out" 2>&1
rc=$?
check "run exits 1" test $rc -eq 1
check "brokencuda:cuda.ok passed" verdict_is brokencuda:cuda.ok passed
check "brokencuda:cuda.overrun failed" verdict_is brokencuda:cuda.overrun failed
check "... past its output" message_has brokencuda:cuda.overrun "wrote out of bounds"
check "brokencuda:cuda.unwritten failed" verdict_is brokencuda:cuda.unwritten failed
check "... leaving elements unwritten" message_has brokencuda:cuda.unwritten "never wrote"
echo "$((checks - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
