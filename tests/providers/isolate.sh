#!/usr/bin/env bash
# bench and ab run every kernel outside their own process (issue 48 item 1):
# a kernel that calls exit(0), crashes or hangs, in its check or in the
# timing, is its own verdict; the other variants are still timed and every
# output promised is written.
#
#   1. ab, base libsltest_tame.so (correct kernels) against candidate
#      libsltest_hostile.so, one misbehaving variant beside cpu.ok each:
#      exit 4, the JSON and the markdown written, the variant's row `died`
#      with why, cpu.ok judged; the store's verdict of a kernel that passed
#      its check and died in the timing says so (crashed / timeout in the
#      timing), and the judged pair's timings are stored.
#   2. bench with the hostile provider: the misbehaving variants' rows say
#      crashed / timeout, cpu.ok and torch.cpu are timed, exit 1, the
#      store's run `failed` (closed, not `interrupted`) with each verdict
#      (a death in the timing included), the JSON written.
#   3. run and fuzz with a kernel that writes over its input x, then a
#      correct one (libsltest_tame.so, loaded after it, runs after it): the
#      writer fails by name ("wrote its input 'x' at element 0"), the
#      correct one passes (issue 48 item 4).
#   4. bench and ab with a kernel that writes its input in the timing only:
#      failed by name (bench: not timed; ab: the pair's row and the stored
#      verdict), the other contenders timed or judged.
#   5. bench times each case in a fresh worker, so that no case's times
#      depend on the cases before it (malloc's state among them): a kernel
#      logging its process id runs in three processes for two cases (the
#      check worker and one timing worker a case).
#
# usage: isolate.sh SCATTERLAB FIXTURE_DIR
set -u
BIN=$1
LIB=$2/libsltest_hostile.so
TAME=$2/libsltest_tame.so
. "$(dirname "$0")/../check.sh"
for f in "$LIB" "$TAME"; do
  [ -f "$f" ] || { echo "FAIL: fixture $f not built"; exit 1; }
done
q() { # q DB SQL: rows as "a|b|c", read-only
  python3 -c 'import sqlite3, sys
db = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True)
for row in db.execute(sys.argv[2]):
    print("|".join("" if v is None else str(v) for v in row))' "$1" "$2"
}
jq_() { # jq_ FILE EXPR: a Python expression over the document d
  python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(eval(sys.argv[2]))' "$1" "$2" 2>&1
}
status_is() { # status_is WANT GOT WHAT
  [ "$2" = "$1" ] && return
  echo "  $3: exit status $2, expected $1"
  grep -v '^sltest-hostile' "$tmp/out" | sed 's/^/  | /' | tail -30
  return 1
}
CASE='gather dt=f32 it=i64 x=64x8 index=64x8 dim=0 seed=1'
# A hang is found within the time limit: 2 s a call (8 in a sanitized
# build, whose fresh worker takes longer to start and build the case).
LIMIT=2
[ -n "${SL_SANITIZED:-}" ] && LIMIT=8

# 1. ab: a dead candidate fails the gate with its own status (4).
# Under UBSan (halt_on_error) the store through NULL is stopped before the
# signal, with exit status 1: still a crash in the timing, named so.
SEGV_WHY="crashed.*signal 11"
[ -n "${SL_SANITIZED:-}" ] && SEGV_WHY="crashed.*(signal 11|exited with status 1)"
declare -A WHY=([exit0]="crashed.*exited with status 0"
  [segv_later]="$SEGV_WHY" [hang_later]="timeout.*no answer within")
# The store's verdict of each: segv_later and hang_later pass their check
# and die in the timing (their 21st call), which the stored row must say.
declare -A STORED=([exit0]="^crashed " [segv_later]="^crashed crashed in the timing: "
  [hang_later]="^timeout timeout in the timing: ")
for v in exit0 segv_later hang_later; do
  start=$(date +%s)
  timeout 300 "$BIN" ab --base "$TAME" --cand "$LIB" \
    --variants "cpu.$v,cpu.ok" --budget 0.2 --max-rounds 40 \
    --timeout $LIMIT --db "$tmp/$v.db" --json "$tmp/$v.json" \
    --markdown "$tmp/$v.md" "$CASE" >"$tmp/out" 2>&1
  check "ab $v: exits 4" status_is 4 $? "ab --cand hostile --variants cpu.$v"
  took=$(($(date +%s) - start))
  check "ab $v: done in ${took}s (< 120)" test "$took" -lt 120
  got=$(jq_ "$tmp/$v.json" 'd["exit_status"]')
  check "ab $v: the JSON's exit_status is 4 (got '$got')" test "$got" = 4
  got=$(jq_ "$tmp/$v.json" '[r["kind"] + " " + r["note"] for r in d["rows"] if r["variant"] == "cpu.'$v'"]')
  check "ab $v: its row died: ${WHY[$v]} (got '$got')" \
    grep -qE "died .*cand:cpu.$v.*${WHY[$v]}" <<<"$got"
  got=$(jq_ "$tmp/$v.json" '[r["kind"] for r in d["rows"] if r["variant"] == "cpu.ok"]')
  check "ab $v: cpu.ok judged (got '$got')" test "$got" = "['judged']"
  got=$(jq_ "$tmp/$v.json" 'd["counts"]["died"]')
  check "ab $v: counts.died is 1 (got '$got')" test "$got" = 1
  check "ab $v: the markdown says it died" grep -q "1 died" "$tmp/$v.md"
  got=$(q "$tmp/$v.db" "SELECT verdict || ' ' || message FROM results WHERE variant = 'cand:cpu.$v'" 2>&1)
  check "ab $v: the store's verdict is '${STORED[$v]}' (got '$got')" \
    grep -qE "${STORED[$v]}" <<<"$got"
  got=$(q "$tmp/$v.db" "SELECT group_concat(variant || ' ' || verdict, ',') FROM (SELECT variant, verdict FROM results WHERE variant != 'cand:cpu.$v' ORDER BY variant)" 2>&1)
  check "ab $v: the other verdicts stored as passed (got '$got')" \
    test "$got" = "$(printf '%s\n' "base:cpu.$v passed" "base:cpu.ok passed" "cand:cpu.ok passed" | LC_ALL=C sort | paste -sd,)"
  got=$(q "$tmp/$v.db" "SELECT group_concat(DISTINCT variant) FROM timings" 2>&1)
  check "ab $v: timings stored for the judged pair only (got '$got')" \
    grep -qxE "(base|cand):cpu.ok,(base|cand):cpu.ok" <<<"$got"
done

# 2. bench: each dead variant's row says so; the others are timed.
DB=$tmp/bench.db
timeout 300 "$BIN" bench --db "$DB" --provider "$LIB" \
  --variants 'hostile:cpu.ok,hostile:cpu.exit0,hostile:cpu.segv_later,hostile:cpu.hang_later' \
  --budget 0.1 --min-reps 3 --timeout $LIMIT --format json "$CASE" \
  >"$tmp/bench.json" 2>"$tmp/out"
check "bench: exits 1" status_is 1 $? "bench --provider hostile"
for row in "hostile:cpu.exit0 +not timed: crashed" \
  "hostile:cpu.segv_later +not timed: crashed in the timing" \
  "hostile:cpu.hang_later +not timed: timeout in the timing" \
  "hostile:cpu.ok +[0-9.]+ ms" "torch.cpu +[0-9.]+ ms"; do
  check "bench: a row /$row/" grep -qE "^  $row" "$tmp/out"
done
got=$(q "$DB" "SELECT status FROM runs" 2>&1)
check "bench: the store's run is failed, not interrupted (got '$got')" \
  test "$got" = failed
got=$(q "$DB" "SELECT group_concat(variant, ',') FROM (SELECT DISTINCT variant FROM timings ORDER BY variant)" 2>&1)
check "bench: timings stored for hostile:cpu.ok and torch.cpu only (got '$got')" \
  test "$got" = "hostile:cpu.ok,torch.cpu"
got=$(q "$DB" "SELECT group_concat(variant || ' ' || verdict, ',') FROM (SELECT variant, verdict FROM results ORDER BY variant)" 2>&1)
check "bench: the store's verdicts, the timing's deaths included (got '$got')" \
  test "$got" = "hostile:cpu.exit0 crashed,hostile:cpu.hang_later timeout,hostile:cpu.ok passed,hostile:cpu.segv_later crashed"
got=$(jq_ "$tmp/bench.json" 'sorted(v["variant"] + " " + v["verdict"] for v in d["results"][0]["result"]["verdicts"])')
check "bench: the JSON has each verdict (got '$got')" \
  grep -q "hostile:cpu.exit0 crashed.*hostile:cpu.hang_later timeout.*hostile:cpu.ok passed.*hostile:cpu.segv_later crashed" <<<"$got"

# 3. A kernel that writes its input fails by name; the next is not blamed.
DB=$tmp/scribble.db
"$BIN" run --db "$DB" --provider "$LIB" --provider "$TAME" \
  --variants 'hostile:cpu.scribble,tame:cpu.ok' "$CASE" >"$tmp/out" 2>&1
check "run scribble: exits 1" status_is 1 $? "run --variants hostile:cpu.scribble,tame:cpu.ok"
got=$(q "$DB" "SELECT variant || ' ' || verdict || ' ' || message FROM results ORDER BY variant" 2>&1)
check "run scribble: the writer failed by name, tame:cpu.ok passed (got '$got')" \
  grep -qzE "hostile:cpu.scribble failed wrote its input 'x' at element 0 .*tame:cpu.ok passed" <<<"$got"
timeout 300 "$BIN" fuzz --db "$DB" --provider "$LIB" --provider "$TAME" \
  --ops gather --variants 'hostile:cpu.scribble,tame:cpu.ok' --seconds 3 \
  --no-corpus >"$tmp/out" 2>&1
check "fuzz scribble: exits 1" status_is 1 $? "fuzz --variants hostile:cpu.scribble,tame:cpu.ok"
got=$(q "$DB" "SELECT variant || ' ' || verdict || ' ' || count(*) FROM results r JOIN cases c ON c.id = r.case_id WHERE c.run_id = 2 AND verdict NOT IN ('passed', 'mistrusted', 'both_rejected') AND variant != 'hostile:cpu.scribble' GROUP BY variant, verdict" 2>&1)
check "fuzz scribble: no failure blamed on tame:cpu.ok (got '$got')" test -z "$got"
got=$(q "$DB" "SELECT count(*) FROM results r JOIN cases c ON c.id = r.case_id WHERE c.run_id = 2 AND variant = 'hostile:cpu.scribble' AND verdict = 'failed' AND instr(message, 'wrote its input') > 0" 2>&1)
check "fuzz scribble: the writer failed by name ($got times)" test "${got:-0}" -gt 0

# 4. A kernel that writes its input in the timing only (after its first 20
# calls, past its check) is failed by name there; the others are timed on
# the inputs as built.
DB=$tmp/later.db
timeout 300 "$BIN" bench --db "$DB" --provider "$LIB" \
  --variants 'hostile:cpu.scribble_later,hostile:cpu.ok' --budget 0.1 \
  --min-reps 3 --timeout $LIMIT "$CASE" >"$tmp/out" 2>&1
check "bench scribble_later: exits 1" status_is 1 $? "bench --variants hostile:cpu.scribble_later,hostile:cpu.ok"
for row in "hostile:cpu.scribble_later +not timed: failed in the timing: wrote its input 'x' at element 0 " \
  "hostile:cpu.ok +[0-9.]+ ms" "torch.cpu +[0-9.]+ ms"; do
  check "bench scribble_later: a row /$row/" grep -qE "^  $row" "$tmp/out"
done
got=$(q "$DB" "SELECT variant || ' ' || verdict || ' ' || message FROM results ORDER BY variant" 2>&1)
check "bench scribble_later: stored failed by name, cpu.ok passed (got '$got')" \
  grep -qzE "hostile:cpu.ok passed .*hostile:cpu.scribble_later failed failed in the timing: wrote its input 'x'" <<<"$got"
timeout 300 "$BIN" ab --base "$TAME" --cand "$LIB" \
  --variants "cpu.scribble_later,cpu.ok" --budget 0.2 --max-rounds 40 \
  --timeout $LIMIT --db "$DB" --json "$tmp/later.json" "$CASE" >"$tmp/out" 2>&1
check "ab scribble_later: exits 1" status_is 1 $? "ab --cand hostile --variants cpu.scribble_later,cpu.ok"
got=$(jq_ "$tmp/later.json" '[r["kind"] + " " + r["note"] for r in d["rows"] if r["variant"] == "cpu.scribble_later"]')
check "ab scribble_later: its row failed, by name (got '$got')" \
  grep -qE "failed .*cand:cpu.scribble_later failed in the timing: wrote its input 'x' at element 0" <<<"$got"
got=$(jq_ "$tmp/later.json" '[r["kind"] for r in d["rows"] if r["variant"] == "cpu.ok"]')
check "ab scribble_later: cpu.ok judged (got '$got')" test "$got" = "['judged']"
got=$(q "$DB" "SELECT verdict FROM results r JOIN cases c ON c.id = r.case_id WHERE c.run_id = 2 AND variant = 'cand:cpu.scribble_later'" 2>&1)
check "ab scribble_later: stored failed (got '$got')" test "$got" = failed

# 5. One timing worker a case.
CASE2='gather dt=f32 it=i64 x=64x8 index=32x8 dim=0 seed=2'
SLTEST_PID_LOG=$tmp/pids timeout 300 "$BIN" bench --no-db --provider "$LIB" \
  --variants 'hostile:cpu.pid_log' --budget 0.05 --min-reps 3 \
  "$CASE" "$CASE2" >"$tmp/out" 2>&1
check "bench pid_log: exits 0" status_is 0 $? "bench --variants hostile:cpu.pid_log"
got=$(sort -u "$tmp/pids" 2>/dev/null | wc -l)
check "bench pid_log: the kernel ran in 3 processes for 2 cases (got $got)" \
  test "$got" -eq 3

echo "$((checks - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
