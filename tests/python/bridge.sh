#!/usr/bin/env bash
# The Python provider bridge (providers/python), tested with modules of its
# own in pure Python (no numpy needed): `--provider py:MODULE` loads,
# `list` shows the capabilities, correct variants pass through the buffer
# protocol, and each broken variant of bridge_broken.py gets its verdict
# (a Python exception or a Python thread left running: the call's failure
# with the Python message; a crash, sys.exit, os._exit or a hang: that case
# only) while the run goes on.
#
# usage: bridge.sh SCATTERLAB SOURCE_DIR
set -u
BIN=$1
export PYTHONPATH=$2/tests/python${PYTHONPATH:+:$PYTHONPATH}
. "$2/tests/check.sh"
# block VARIANT: its verdict line ("<verdict> <variant> <time> <case>") and
# the indented lines under it.
block() { awk -v v="$1" '/^[^ ]/ { on = ($2 == v) } on' "$tmp/out"; }
verdict_is() { # verdict_is VARIANT VERDICT [TEXT]: TEXT in its message
  local got
  got=$(block "$1" | awk 'NR == 1 { print $1 }')
  if [ "$got" != "$2" ]; then
    echo "  $1: expected verdict $2, got '${got:-no verdict line}'"
    block "$1" | sed 's/^/  | /'
    return 1
  fi
  [ -z "${3:-}" ] || block "$1" | tail -n +2 | grep -qF -- "$3" && return
  echo "  $1: expected a message containing '$3', got:"
  block "$1" | sed 's/^/  | /'
  return 1
}

# 1. list: the module's variants with their capabilities.
check "list py:bridge_pure" run 0 list --provider py:bridge_pure
check "list shows bridge_pure:cpu.memoryview" has 'bridge_pure:cpu\.memoryview'
check "list shows its dtypes" has 'i32,i64,f32,f64'

# 2. Correct variants pass: contiguous, strided (a transposed x reaches the
#    variant as it is: layouts strided), both index dtypes, scatter_reduce.
for c in 'gather dt=f32 it=i64 x=5x4 index=3x4 dim=0 seed=1' \
         'gather dt=f64 it=i32 x=5x4:t index=5x2 dim=1 seed=2' \
         'gather dt=i64 it=i64 x=3x4x2 index=3x4x5 dim=2 seed=3' \
         'scatter_reduce dt=i32 it=i64 x=4x3 index=6x3 src=6x3 dim=0 reduce=sum seed=4'; do
  check "run passes: $c" run 0 run --provider py:bridge_pure \
    --variants 'bridge_pure:*' "$c"
  check "  ...a bridge_pure verdict: passed" has '^passed +bridge_pure:cpu\.'
done

# 3. Broken variants: each its verdict, the run goes on past every one.
CASE='gather dt=f32 it=i64 x=4x3 index=2x3 dim=0 seed=1'
start=$(date +%s)
"$BIN" run --db "$tmp/s.db" --provider py:bridge_broken \
  --variants 'bridge_broken:*' --timeout 3 "$CASE" >"$tmp/out" 2>&1
rc=$?
took=$(($(date +%s) - start))
check "run of the broken variants exits 1 (got $rc)" test $rc = 1
p=bridge_broken:cpu
check "ok passes" verdict_is $p.ok passed
check "a C thread left running on a later call fails (the guard)" \
  verdict_is $p.c_thread failed 'running after it returned ('
check "a wrong value fails" verdict_is $p.wrong failed 'mismatch'
check "an exception is the call's failure, with the Python message" \
  verdict_is $p.raises reject_mismatch 'python ValueError: planted: café second line'
check "Unsupported refuses with its status" \
  verdict_is $p.refuses reject_mismatch 'unsupported_dtype: python Unsupported: planted refusal'
check "a returned value fails" verdict_is $p.returns reject_mismatch \
  'returned int, expected None'
check "os.abort() crashes that case" verdict_is $p.aborts crashed 'signal 6'
check "a segfault (ctypes) crashes that case" verdict_is $p.segv crashed 'signal 11'
check "sys.exit(0) is an exception, not an exit" \
  verdict_is $p.sys_exit reject_mismatch 'python SystemExit: 0'
check "os._exit(3) crashes that case" verdict_is $p.os_exit crashed 'status 3'
check "a hang is a timeout" verdict_is $p.hangs timeout
check "a Python thread left running fails the call, whichever call of the
  worker it is (the guard forgives a runtime's first call)" \
  verdict_is $p.thread reject_mismatch 'left 1 Python thread running'
check "the hang ended at --timeout (took ${took} s)" test "$took" -lt 40
check "the repro loads the module again" \
  grep -qF -- "--provider bridge_broken=py:bridge_broken" "$tmp/out"

# 3b. Two modules whose first call each starts a runtime's thread (as
#     JAX's does): the guard forgives each module's first call in a worker,
#     not only the worker's first Python call.
check "two runtimes' first calls both forgiven" run 0 run --provider \
  py:bridge_runtime --provider rtb=py:bridge_runtime_b \
  --variants 'bridge_runtime:*,rtb:*' "$CASE"
check "  ...the second module's variant passed" has '^passed +rtb:cpu\.runtime'

# 4. Loading errors: exit 2, the module named.
check "a missing module is refused" run 2 list --provider py:no_such_module
check "  ...naming it and Python's error" \
  has 'no_such_module.*ModuleNotFoundError|ModuleNotFoundError.*no_such_module'
check "a module name that is no provider name needs an alias" \
  run 2 list --provider py:Bad_Name
check "  ...saying so" has 'ALIAS=py:Bad_Name'
check "an alias renames it" run 0 list --provider mine=py:bridge_pure
check "  ...mine:cpu.memoryview listed" has 'mine:cpu\.memoryview'
check "two modules load side by side" \
  run 0 list --provider py:bridge_pure --provider py:bridge_broken
check "  ...both listed" has 'bridge_broken:cpu\.ok'

echo "$((checks - fails)) passed, $fails failed"
[ "$fails" = 0 ]
