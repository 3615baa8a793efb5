#!/usr/bin/env bash
# A campaign killed with -9 takes its jobs and workers with it, and
# --resume refuses while any process of the run is alive (issue 28, point
# 1). On the code before run_lock.c the jobs went on writing for minutes
# after the kill, the resume was accepted beside them, and thousands of
# cases ran twice.
set -u
BIN=$1
SRC=${2:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$SRC/tests/check.sh"
db=$tmp/orphans.db
N=60000
"$BIN" fuzz --db "$db" --cases $N --seed 7 --jobs 2 --no-corpus --keep all >"$tmp/f1.out" 2>&1 &
pid=$!
# Until the jobs have committed something (up to 60 s).
for _ in $(seq 300); do
  n=$(sqlite3 "$db" "SELECT count(*) FROM cases" 2>/dev/null)
  [ "${n:-0}" -gt 0 ] && break
  sleep 0.2
done
check "the campaign committed cases before the kill (${n:-0})" [ "${n:-0}" -gt 0 ]
kill -9 "$pid"
wait "$pid" 2>/dev/null
# The jobs and workers die of their parent-death signal: on a busy machine
# that can take a moment, so wait for it (up to 20 s) rather than a guess.
for _ in $(seq 200); do
  left=$(pgrep -f -- "--db $db" | wc -l)
  [ "$left" -eq 0 ] && break
  sleep 0.1
done
check "no job or worker outlives the killed campaign ($left left)" [ "$left" -eq 0 ]
pkill -9 -f -- "--db $db" 2>/dev/null # the old code's orphans, if any

# A process of the run still alive (here: one holding the run's lock, as an
# orphaned job would): --resume refuses.
# The holder says when it has the lock, and keeps it until it is told.
flock "$db.run1.lock" sh -c 'touch "$0.held"; exec sleep 120' "$db" &
holder=$!
for _ in $(seq 300); do [ -e "$db.held" ] && break; sleep 0.1; done
"$BIN" fuzz --resume 1 --db "$db" >"$tmp/f2.out" 2>&1
rc=$?
check "--resume beside a live process of the run: exit 2 (got $rc)" [ $rc -eq 2 ]
check "... says the run is still being written" grep -q "still being written" "$tmp/f2.out"
pkill -P "$holder" 2>/dev/null # its sleep: flock then lets go and exits
wait "$holder" 2>/dev/null

"$BIN" fuzz --resume 1 --db "$db" >"$tmp/f3.out" 2>&1
rc=$?
check "--resume once all have ended: exit 0 (got $rc)" [ $rc -eq 0 ]
counts=$(sqlite3 "$db" "SELECT count(*) || ' ' || count(DISTINCT case_line) FROM cases WHERE run_id = 1 AND shrunk_from IS NULL")
check "every case once: $N cases, none twice (got total distinct: $counts)" [ "$counts" = "$N $N" ]
check "the lock file is gone after the run" [ ! -e "$db.run1.lock" ]

echo "$((checks - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
