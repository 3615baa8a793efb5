#!/usr/bin/env bash
# --tolerance (issue 29): per-dtype thresholds of the tolerance oracle on
# run, fuzz and bench, validated (exit 2 naming the item), applied by the
# oracle in the forked worker, stored with the run (runs.config, the runs
# CSV's config column; --format json's "tolerances"), and part of a fuzz
# run's schedule: --resume keeps them and refuses different ones. The buggy
# provider's scatter_reduce cpu.scaled is 1e-4 off relative: wrong by
# default (judged per position: exact where one value is written, oracles.h),
# within --tolerance f32=1e-3 (an override restores the diff1/diff2 table).
set -u
BIN=$1
SRC=${2:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$SRC/tests/check.sh"
BUG=$(dirname "$BIN")/tests/libsl_buggy.so
[ -f "$BUG" ] || { echo "FAIL: $BUG missing"; exit 1; }
V=(--provider "buggy=$BUG" --variants buggy:cpu.scaled)
C32='scatter_reduce dt=f32 it=i64 x=6x4 index=5x4 src=5x4 dim=0 reduce=sum seed=1'
C64='scatter_reduce dt=f64 it=i64 x=6x4 index=5x4 src=5x4 dim=0 reduce=sum seed=1'

check "f32, default: failed" run 1 run --no-db "${V[@]}" "$C32"
check "f32, default: names the rule" has "exact: one value written, order cannot matter"
check "f32=1e-3: passed" run 0 run --no-db "${V[@]}" --tolerance f32=1e-3 "$C32"
check "f16=1e-3 leaves f32 alone" run 1 run --no-db "${V[@]}" --tolerance f16=1e-3 "$C32"
check "f64, default 1e-12: failed" run 1 run --no-db "${V[@]}" "$C64"
check "f64 in a list, repeated option: passed" \
  run 0 run --no-db "${V[@]}" --tolerance f16=1e-3 --tolerance f32=1e-2,f64=1e-3 "$C64"

# Validation, on every command that takes it: exit 2, naming the item.
for cmd in run fuzz bench; do
  args=("$cmd" --no-db)
  [ "$cmd" = run ] || [ "$cmd" = bench ] && args+=("$C32")
  [ "$cmd" = fuzz ] && args+=(--cases 1 --no-corpus)
  check "$cmd: unknown dtype" run 2 "${args[@]}" --tolerance f17=1e-3
  check "$cmd: unknown dtype named" has "--tolerance f17=1e-3: expected a dtype of f16 bf16 f32 f64 c64 c128, got \"f17\""
  check "$cmd: integer dtype" run 2 "${args[@]}" --tolerance i32=1
  check "$cmd: integer dtype named" has 'got "i32": i32 outputs are compared exactly'
  check "$cmd: negative" run 2 "${args[@]}" --tolerance f32=-1e-3
  check "$cmd: negative named" has 'expected a number in \[0, 1\] for f32 .*got "-1e-3"'
  check "$cmd: not a number" run 2 "${args[@]}" --tolerance f16=small
  check "$cmd: not a number named" has 'for f16 .*got "small"'
  check "$cmd: no value" run 2 "${args[@]}" --tolerance
done

# Recorded with the run, and shown by report and --format json.
db=$tmp/t.db
check "run into a store" run 0 run --db "$db" "${V[@]}" --tolerance f32=1e-3 "$C32"
check "runs csv" run 0 report --db "$db" --format csv --table runs
check "runs csv: the config column holds the tolerances" has ',--tolerance f32=0.001$'
"$BIN" run --no-db "${V[@]}" --tolerance f32=1e-3 --format json "$C32" >"$tmp/j" 2>/dev/null
jtol() { python3 -c "import json,sys; t=json.load(open('$tmp/j'))['tolerances']; sys.exit(0 if t['f32'] == 1e-3 and t['f16'] == 1e-2 and t['f64'] == 1e-12 else 1)"; }
check "run --format json: the tolerances in force" jtol
"$BIN" bench --no-db "${V[@]}" --budget 0.02 --min-reps 3 --tolerance f32=1e-3 --format json "$C32" >"$tmp/j" 2>/dev/null
check "bench --format json: the tolerances in force" jtol
check "bench: the correctness check passes with it" \
  python3 -c "import json,sys; sys.exit(json.load(open('$tmp/j'))['exit_status'])"

# fuzz: in the run's config; --resume keeps it and refuses another.
F=(fuzz --db "$db" --ops scatter_reduce --dtypes f32 --reduces sum "${V[@]}" --cases 6 --no-corpus --no-shrink --seed 3)
check "fuzz with f32=1e-3" run 0 "${F[@]}" --tolerance f32=1e-3
id=$(python3 -c "import sqlite3; print(sqlite3.connect('$db').execute('select max(id) from runs').fetchone()[0])")
check "fuzz: the config holds it" run 0 report --db "$db" --format csv --table runs
check "fuzz: the config holds it (2)" has " --tolerance f32=0.001 "
check "fuzz --resume, another tolerance: refused" run 2 fuzz --db "$db" --resume "$id" --tolerance f32=1e-4
check "fuzz --resume, another tolerance: named" has '--resume: --tolerance f32=1e-4 differs from the run.s own options'
check "fuzz --resume, the same tolerance: accepted" run 0 fuzz --db "$db" --resume "$id" --tolerance f32=0.001
check "fuzz without it: the scaled variant fails" run 1 "${F[@]}"

echo "tolerance: $((checks - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
