#!/usr/bin/env bash
# Kernels that attack the process they run in (hostile.c), issue 48: none
# may reach the store or the harness's descriptors, and what one leaves
# behind (a thread, a fork, closed descriptors) is blamed on it alone.
#
#   1. run and fuzz with a kernel that writes a log line to every descriptor
#      below 64, and one that fails if it can see a descriptor that is not
#      close-on-exec or belongs to a store: the store stays sound, earlier
#      runs included, and both pass; so does a kernel whose thread ends
#      just after the call returns (as a nested OpenMP team's do).
#   2. fuzz beside cpu.serial with a kernel that leaves a thread (crashing
#      500 ms later, or writing on), forks, or closes every descriptor: the
#      campaign finishes (exit 1), and every failing verdict is that
#      kernel's, with the reason; none is the reference's or cpu.serial's.
#   3. fuzz a kernel that crashes only after 20 calls in a process: the
#      message under its minimal repro says the repro passed alone in a
#      fresh worker (what pasting it gives), not only the crash.
#
# usage: hostile.sh SCATTERLAB FIXTURE_DIR
set -u
BIN=$1
LIB=$2/libsltest_hostile.so
. "$(dirname "$0")/../check.sh"
q() { # q DB SQL: rows as "a|b|c", read-only
  python3 -c 'import sqlite3, sys
db = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True)
for row in db.execute(sys.argv[2]):
    print("|".join("" if v is None else str(v) for v in row))' "$1" "$2"
}
status_is() { # status_is WANT GOT WHAT
  [ "$2" = "$1" ] && return
  echo "  $3: exit status $2, expected $1"
  grep -v '^sltest-hostile' "$tmp/out" | sed 's/^/  | /' | head -30
  return 1
}
[ -f "$LIB" ] || { echo "FAIL: fixture $LIB not built"; exit 1; }
CASE='gather dt=f32 it=i64 x=4x3 index=2x3 dim=0 seed=1'
DB=$tmp/s.db
sound() { # sound WHAT RUNS: integrity ok and RUNS runs, all finished
  local got
  got=$(q "$DB" 'PRAGMA integrity_check' 2>&1)
  check "$1: integrity_check says ok (got '$got')" test "$got" = ok
  got=$(q "$DB" "SELECT count(*) FROM runs WHERE status = 'finished'" 2>&1)
  check "$1: $2 finished runs in the store (got '$got')" test "$got" = "$2"
}

# 1. The store's descriptors are out of every kernel's reach.
"$BIN" run --db "$DB" --variants cpu.serial "$CASE" >"$tmp/out" 2>&1
check "run before: exits 0" status_is 0 $? "run --variants cpu.serial"
"$BIN" run --db "$DB" --provider "$LIB" \
  --variants 'hostile:cpu.fd_writer,hostile:cpu.fd_census,cpu.serial' \
  "$CASE" >"$tmp/out" 2>&1
check "run: exits 0" status_is 0 $? "run --variants hostile:cpu.fd_*"
sound "run" 2
for v in fd_writer fd_census; do
  got=$(q "$DB" "SELECT verdict || ' ' || message FROM results WHERE variant = 'hostile:cpu.$v'" 2>&1)
  check "run: hostile:cpu.$v passed (got '$got')" test "$got" = "passed "
done
got=$(q "$DB" "SELECT count(*) FROM results r JOIN cases c ON c.id = r.case_id WHERE c.run_id = 1" 2>&1)
check "run: the earlier run's verdict is still there (got '$got')" test "$got" = 1
timeout 300 "$BIN" fuzz --db "$DB" --provider "$LIB" --ops gather \
  --variants 'hostile:cpu.fd_writer,hostile:cpu.fd_census,hostile:cpu.thread_ending' \
  --seconds 2 --no-corpus >"$tmp/out" 2>&1
check "fuzz: exits 0" status_is 0 $? "fuzz --variants hostile:cpu.fd_*,hostile:cpu.thread_ending"
sound "fuzz" 3
got=$(q "$DB" "SELECT DISTINCT variant || ': ' || message FROM results WHERE verdict NOT IN ('passed', 'mistrusted', 'both_rejected')" 2>&1)
check "fuzz: no failing verdict (got '$got')" test -z "$got"

# 2. What a kernel leaves behind is its own failure, and no one else's.
declare -A WHY=([thread_crash]="thread running after it returned"
  [thread_write]="thread running after it returned"
  [fork]="forked a process" [close_all]="closed a descriptor of the worker")
for v in thread_crash thread_write fork close_all; do
  DB=$tmp/$v.db
  timeout 300 "$BIN" fuzz --db "$DB" --provider "$LIB" --ops gather \
    --variants "hostile:cpu.$v,cpu.serial" --seconds 3 --no-corpus \
    >"$tmp/out" 2>&1
  check "fuzz $v: exits 1" status_is 1 $? "fuzz --variants hostile:cpu.$v,cpu.serial"
  sound "fuzz $v" 1
  got=$(q "$DB" "SELECT variant || ' ' || verdict || ' ' || count(*) FROM results WHERE verdict NOT IN ('passed', 'mistrusted', 'both_rejected') AND variant != 'hostile:cpu.$v' GROUP BY variant, verdict" 2>&1)
  check "fuzz $v: no failure blamed on another (got '$got')" test -z "$got"
  got=$(q "$DB" "SELECT count(*) FROM results WHERE variant = 'hostile:cpu.$v' AND verdict = 'failed' AND instr(message, '${WHY[$v]}') > 0" 2>&1)
  check "fuzz $v: failed, '${WHY[$v]}' ($got times)" test "${got:-0}" -gt 0
  got=$(q "$DB" "SELECT DISTINCT verdict || ': ' || message FROM results WHERE variant = 'hostile:cpu.$v' AND verdict NOT IN ('both_rejected', 'failed')" 2>&1)
  check "fuzz $v: no other verdict (got '$got')" test -z "$got"
done

# 3. A failure that needs what earlier cases left says so under its repro.
timeout 300 "$BIN" fuzz --no-db --provider "$LIB" --ops gather \
  --variants hostile:cpu.segv_later --seconds 3 --no-corpus --format json \
  >"$tmp/out" 2>"$tmp/err"
check "fuzz segv_later: exits 1" status_is 1 $? "fuzz --variants hostile:cpu.segv_later"
got=$(python3 -c 'import json, sys
g = json.load(open(sys.argv[1]))["groups"]
print(" | ".join(x["verdict"] + ": " + x["message"] for x in g))' "$tmp/out" 2>&1)
# Under the sanitizers ASan catches the SIGSEGV and exits with status 1.
segv_why="crashed: worker killed by signal 11"
[ -n "${SL_SANITIZED:-}" ] && segv_why="crashed: worker (killed by signal 11|exited with status 1)"
check "fuzz segv_later: its group says the repro passed alone (got '$got')" \
  grep -Eq "$segv_why.*run alone as its repro line runs it, the minimal case passed: the failure does not recur" <<<"$got"

echo "$((checks - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
