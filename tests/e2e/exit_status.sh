#!/usr/bin/env bash
# One exit-status table for every command (README, "Exit statuses"): 0
# nothing failed, 1 failures found, 2 usage or input error, 3 environment or
# store error (or an incomplete gate). Each command is driven into every
# class it can reach. On the code before the table, 18 of these checks fail
# (bench --variants nope probed the machine, printed the error per case and
# exited 1; a failing bench prelude exited 0; a missing store exited 1 from
# report and history; a damaged store exited 1 from the commands that write
# or read it).
set -u
BIN=$1
SRC=${2:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$SRC/tests/check.sh"
BUG=$(dirname "$BIN")/tests/libsl_buggy.so
KLIB=$(readlink -f "$(dirname "$BIN")/libscatterlab_kernels.so") # the .so.N of this ABI
[ -f "$BUG" ] || { echo "FAIL: $BUG missing"; exit 1; }
G='gather x=4x3 index=2x3 dim=0'
BADCASE='gather x=4x3'
printf 'not a database, not at all' >"$tmp/bad.db" # a damaged store
MISSING=$tmp/missing.db
BUGGY=(--provider "buggy=$BUG" --variants buggy:cpu.off_by_one)
QB=(--budget 0.01 --min-reps 3)
# status NAME CODE ARGS...: the command exits CODE.
status() {
  local name=$1 code=$2
  shift 2
  check "$name: exit $code" run "$code" "$@"
}

# run
status "run, a passing case" 0 run --no-db "$G"
status "run, a failing variant" 1 run --no-db "${BUGGY[@]}" "$G"
status "run, a malformed case" 2 run --no-db "$BADCASE"
status "run, a damaged store" 3 run --db "$tmp/bad.db" "$G"
check "run, the damaged store is named" has "bad.db"

# fuzz
F=(fuzz --cases 20 --no-corpus --seed 3)
status "fuzz, nothing fails" 0 "${F[@]}" --no-db --variants cpu.serial
status "fuzz, a failing variant" 1 "${F[@]}" --no-db --no-shrink --ops gather "${BUGGY[@]}"
status "fuzz, a bad --shard" 2 "${F[@]}" --no-db --shard 0/3
status "fuzz, a damaged store" 3 "${F[@]}" --db "$tmp/bad.db"

# bench (two runs of one case into a store, for compare and history)
status "bench, a passing case" 0 bench "${QB[@]}" --variants cpu.serial --db "$tmp/b.db" "$G"
"$BIN" bench "${QB[@]}" --variants cpu.serial --db "$tmp/b.db" "$G" >/dev/null 2>&1
status "bench, a variant fails its check (not timed: failed)" 1 bench --no-db "${QB[@]}" "${BUGGY[@]}" "$G"
check "bench, the failure is shown" has "not timed: failed"
status "bench, --variants selects nothing" 2 bench --no-db "${QB[@]}" --variants nope "$G" "$G"
check "bench, --variants: the error once" test "$(grep -c 'matched none' "$tmp/out")" = 1
check "bench, --variants: before any probing" hasnt "copy bandwidth"
status "bench, a damaged store" 3 bench "${QB[@]}" --variants cpu.serial --db "$tmp/bad.db" "$G"

# compare: run 2 made 3x slower is a regression.
cp "$tmp/b.db" "$tmp/slow.db"
sqlite3 "$tmp/slow.db" "update samples set seconds = seconds * 3 where timing_id in
  (select t.id from timings t join cases c on c.id = t.case_id where c.run_id = 2);
  update timings set median_s = median_s * 3, min_s = min_s * 3 where case_id in
  (select id from cases where run_id = 2)"
status "compare, a run with itself" 0 compare 1 1 --db "$tmp/b.db"
status "compare, 3x slower" 1 compare 1 2 --db "$tmp/slow.db"
status "compare, a missing store" 2 compare "$MISSING" "$tmp/b.db"
status "compare, a damaged store" 3 compare "$tmp/bad.db" "$tmp/b.db"

# ab (the kernels library against itself, and with a planted slowdown)
C='gather dt=f32 x=4000x8 index=10000x8 dim=0 seed=3'
A=(ab --base "$KLIB" --cand "$KLIB" --threads 1 --budget 0.5 --variants cpu.serial)
status "ab, A/A" 0 "${A[@]}" --no-db "$C"
status "ab, 200% slower" 1 "${A[@]}" --no-db --plant-slowdown 200 "$C"
status "ab, an unknown option" 2 "${A[@]}" --frob "$C"
status "ab, a damaged store" 3 "${A[@]}" --db "$tmp/bad.db" "$C"

# history, report, list
status "history" 0 history --db "$tmp/b.db"
status "history, a missing store" 2 history --db "$MISSING"
status "history, a damaged store" 3 history --db "$tmp/bad.db"
status "report" 0 report --db "$tmp/b.db"
status "report, a missing store" 2 report --db "$MISSING"
check "report, the missing store is named" has "missing.db"
status "report, an unknown format" 2 report --db "$tmp/b.db" --format nope
status "report, a damaged store" 3 report --db "$tmp/bad.db"
status "list" 0 list
status "list, an unknown option" 2 list --frob

# merge
status "merge" 0 merge "$tmp/b.db" -o "$tmp/m.db"
status "merge, a missing input" 2 merge "$MISSING" -o "$tmp/m2.db"
check "merge, a missing input: the output untouched" test ! -e "$tmp/m2.db"
status "merge, a damaged input" 3 merge "$tmp/bad.db" -o "$tmp/m3.db"

# import (a CSV of case lines)
printf 'case_line\n"%s"\n' "$G" >"$tmp/ok.csv"
status "import" 0 import --no-db "$tmp/ok.csv"
status "import, a failing variant" 1 import --no-db "${BUGGY[@]}" "$tmp/ok.csv"
status "import, a missing file" 2 import --no-db "$tmp/missing.csv"
status "import, a damaged store" 3 import --db "$tmp/bad.db" "$tmp/ok.csv"

# check: what it finds is damage (1)
status "check" 0 check --db "$tmp/b.db"
status "check, a damaged store" 1 check --db "$tmp/bad.db"
status "check, a missing store" 2 check --db "$MISSING"

status "an unknown command" 2 frobnicate

echo "$((checks - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
