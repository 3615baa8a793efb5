#!/usr/bin/env bash
# `bench` and `ab` through the Python bridge, with the bridge's own
# pure-Python modules (no numpy, no peer: runs everywhere the bridge is
# built). bench times a Python variant beside torch.cpu and cpu.serial
# once it passes its check; a Python variant that aborts, hangs, calls
# sys.exit or raises in the timed calls (bridge_late.py: past its check)
# costs its own row only. ab takes a Python module as its candidate
# (--cand py:MODULE, paired by variant name: bridge_ab.py), and a
# candidate that exits the process is that pair's 'died' (exit 4).
# Asserts rows and verdicts, never a speed.
#
# usage: bridge_bench.sh SCATTERLAB SOURCE_DIR
set -u
BIN=$1
export PYTHONPATH=$2/tests/python${PYTHONPATH:+:$PYTHONPATH}
. "$2/tests/check.sh"
CASE='gather dt=f32 it=i64 x=16x4 index=8x4 dim=0 seed=1'
# row VARIANT: bench's or ab's line of that variant.
row() { grep -E "^  $1( |$)" "$tmp/out"; }
timed() { # timed VARIANT: a row with a median in ms
  row "$1" | grep -qE ' [0-9.]+ ms ' && return
  echo "  $1: expected a timed row, got '$(row "$1")'"
  return 1
}
not_timed() { # not_timed VARIANT TEXT
  row "$1" | grep -qF -- "not timed: $2" && return
  echo "  $1: expected 'not timed: $2', got '$(row "$1")'"
  return 1
}

# 1. bench: the Python variants timed beside torch.cpu and cpu.serial.
check "bench through py:bridge_pure" run 0 bench --no-db --budget 0.1 \
  --threads 1 --provider py:bridge_pure \
  --variants 'bridge_pure:*,cpu.serial' "$CASE" \
  'scatter_reduce dt=i32 it=i64 x=4x3 index=6x3 src=6x3 dim=0 reduce=sum seed=4'
check "  ...torch.cpu timed" timed torch.cpu
check "  ...cpu.serial timed" timed cpu.serial
check "  ...the gather's Python variant timed" timed 'bridge_pure:cpu\.memoryview'
check "  ...the scatter_reduce's too" timed 'bridge_pure:cpu\.memoryview_sum'

# 2. bench: breaking in the timed calls costs that variant's row only.
start=$(date +%s)
check "bench of variants that break late exits 1" run 1 bench --no-db \
  --budget 0.1 --timeout 3 --threads 1 --provider py:bridge_late \
  --variants 'bridge_late:*,cpu.serial' "$CASE"
took=$(($(date +%s) - start))
L=bridge_late:cpu
check "  ...late_ok timed" timed "$L\.late_ok"
check "  ...cpu.serial timed after them all" timed cpu.serial
check "  ...os.abort() in the timing: crashed" \
  not_timed "$L.late_abort" 'crashed in the timing: worker killed by signal 6'
check "  ...a hang in the timing: timeout" \
  not_timed "$L.late_hang" 'timeout in the timing'
check "  ...sys.exit() in the timing: its Python message" \
  not_timed "$L.late_exit" 'python SystemExit: 0'
check "  ...an exception in the timing: its Python message" \
  not_timed "$L.late_raise" 'python ZeroDivisionError'
check "  ...the hang ended at --timeout (took ${took} s)" test "$took" -lt 40

run_ab() { # run_ab LOWEST HIGHEST [ARGS...]: an exit status in that range
  local lo=$1 hi=$2
  shift 2
  "$BIN" ab --no-db --base "$(dirname "$BIN")" --cand py:bridge_ab \
    --budget 0.2 --threads 1 "$@" "$CASE" >"$tmp/out" 2>&1
  local got=$?
  [ "$got" -ge "$lo" ] && [ "$got" -le "$hi" ] && return
  echo "exit status $got, expected $lo..$hi: ab $*"
  cat "$tmp/out"
  return 1
}

# 3. ab: a Python module as the candidate, paired by name with the base's.
check "ab --cand py:bridge_ab (cpu.serial only) runs" run_ab 0 1 \
  --variants cpu.serial
check "  ...cpu.serial judged" \
  has '^  cpu\.serial +[0-9.]+ +[0-9.]+ .*(same|slower|faster|unclear) *$'
check "  ...the candidate named" has '^cand py:bridge_ab$'
check "a candidate that exits the process: that pair died, exit 4" run_ab 4 4
check "  ...cpu.omp's row says so" \
  has '^  cpu\.omp +not timed: cand:cpu\.omp crashed: worker exited with status 3'
check "  ...cpu.serial still judged" \
  has '^  cpu\.serial +[0-9.]+ +[0-9.]+ '
check "a module that does not load is a usage error" \
  run 2 ab --no-db --base "$(dirname "$BIN")" --cand py:no_such_module "$CASE"
check "  ...naming it" has 'no_such_module'

echo "$((checks - fails)) passed, $fails failed"
[ "$fails" = 0 ]
