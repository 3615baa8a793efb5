#!/usr/bin/env bash
# An external provider's broken kernels are verdicts, not the end of the run:
# libsltest_broken.so (broken.c) has one gather variant per fault. `run` and
# `fuzz` must judge each (crashed, timeout, failed with the reason), go on,
# exit 1, and leave a sound store holding the same verdicts.
#
# usage: broken.sh SCATTERLAB FIXTURE_DIR
set -u
BIN=$1
LIB=$2/libsltest_broken.so
. "$(dirname "$0")/../check.sh"
# q DB SQL: rows as "a|b|c", with the sqlite3 shell or Python's module;
# read-only, so that asking about a store that was never written does not
# create one.
q() {
  if command -v sqlite3 >/dev/null; then
    sqlite3 -readonly "$1" "$2"
  else
    python3 -c 'import sqlite3, sys
db = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True)
for row in db.execute(sys.argv[2]):
    print("|".join("" if v is None else str(v) for v in row))' "$1" "$2"
  fi
}
# block VARIANT: the verdict line of VARIANT in $tmp/out and the indented
# lines under it (message, repro). Verdict lines read
# "<verdict> <variant> <time> <case>".
# A variant's verdict line and the lines under it; what a worker printed
# ("scatterlab: VARIANT printed: ...", a sanitizer's report under ASan) is
# not a verdict.
block() {
  awk -v v="$1" '/^scatterlab: / { next } /^[^ ]/ { on = ($2 == v) } on' "$tmp/out"
}
verdict_is() { # verdict_is VARIANT VERDICT
  local got
  got=$(block "$1" | awk 'NR == 1 { print $1 }')
  [ "$got" = "$2" ] && return
  echo "  $1: expected verdict $2, got '${got:-no verdict line}'"
  return 1
}
message_has() { # message_has VARIANT TEXT: in the lines under its verdict
  block "$1" | tail -n +2 | grep -qF -- "$2" && return
  echo "  $1: expected a message containing '$2', got:"
  block "$1" | sed 's/^/  | /'
  return 1
}
status_is() { # status_is WANT GOT WHAT
  [ "$2" = "$1" ] && return
  echo "  $3: exit status $2, expected $1"
  sed 's/^/  | /' "$tmp/out" | head -40
  return 1
}
[ -f "$LIB" ] || { echo "FAIL: fixture $LIB not built"; exit 1; }

# The variant -> verdict table this file asserts, and the message each
# non-passing verdict must carry (empty: any).
VARIANTS="ok segv hang overrun underrun bad_status exit"
declare -A WANT=([ok]=passed [segv]=crashed [hang]=timeout [overrun]=failed
  [underrun]=failed [bad_status]=failed [exit]=crashed)
declare -A MSG=([overrun]=outside [underrun]=outside
  [bad_status]="undefined status code 12345")

# 1. run: every variant judged, the run goes on past each fault. Under ASan
# a crashing worker runs LeakSanitizer over the whole process before it
# dies (see part 2): beside the suite's other tests that took over 2 s and
# read as a timeout, so a sanitized build gives it 8.
CASE='gather dt=f32 it=i64 x=4x3 index=2x3 dim=0 seed=1'
rtimeout=2
[ -n "${SL_SANITIZED:-}" ] && rtimeout=8
start=$(date +%s)
"$BIN" run --db "$tmp/s.db" --provider "$LIB" --variants 'broken:*' \
  --timeout "$rtimeout" "$CASE" >"$tmp/out" 2>&1
rc=$?
took=$(($(date +%s) - start))
check "run exits 1" status_is 1 $rc "scatterlab run --variants 'broken:*'"
for v in $VARIANTS; do
  check "run: broken:cpu.$v is ${WANT[$v]}" verdict_is "broken:cpu.$v" "${WANT[$v]}"
  if [ -n "${MSG[$v]:-}" ]; then
    check "run: broken:cpu.$v says '${MSG[$v]}'" message_has "broken:cpu.$v" "${MSG[$v]}"
  fi
done
# Only the provider's variants were selected: no built-in variant ran.
check "run: 'broken:*' selects only broken's variants" \
  test "$(grep -cE '^[a-z_]+ +cpu\.(serial|omp) ' "$tmp/out")" -eq 0
# The hang cost its 2 s, not the default 60.
check "run: the hang ended at --timeout (took ${took} s)" test "$took" -lt 30

# The store: sound, and the same verdicts (table results, schema.sql).
check "run: store file written" test -f "$tmp/s.db"
integrity=$(q "$tmp/s.db" 'PRAGMA integrity_check' 2>&1)
check "run: integrity_check says ok (got '$integrity')" test "$integrity" = ok
for v in $VARIANTS; do
  stored=$(q "$tmp/s.db" "SELECT verdict FROM results WHERE variant = 'broken:cpu.$v'" 2>&1)
  check "run: store has broken:cpu.$v ${WANT[$v]} (got '$stored')" \
    test "$stored" = "${WANT[$v]}"
  if [ -n "${MSG[$v]:-}" ]; then
    n=$(q "$tmp/s.db" "SELECT count(*) FROM results WHERE variant = 'broken:cpu.$v' AND instr(message, '${MSG[$v]}') > 0" 2>&1)
    check "run: stored message of broken:cpu.$v says '${MSG[$v]}'" test "$n" = 1
  fi
done
n=$(q "$tmp/s.db" "SELECT count(*) FROM results WHERE variant NOT LIKE 'broken:%'" 2>&1)
check "run: store holds no other variant (got $n rows)" test "$n" = 0
# The HTML report's repro of a provider variant loads the provider, by a
# path from the working folder (one that pastes on another machine).
"$BIN" report --db "$tmp/s.db" --format html -o "$tmp/r.html" >/dev/null 2>&1
named=$(grep -o -- "--variants broken:cpu.segv --provider broken=[^ <]*" "$tmp/r.html" | head -1)
named=${named##*=}
check "report: HTML repro of broken:cpu.segv names --provider broken=$LIB (as '$named')" \
  test -n "$named" -a "$(realpath "$named" 2>/dev/null)" = "$(realpath "$LIB")"
status=$(q "$tmp/s.db" 'SELECT status FROM runs' 2>&1)
check "run: the run is finished (got '$status')" test "$status" = finished

# 2. fuzz: a short campaign over all of broken's variants ends, exits 1,
#    reports the faults and leaves a sound store. Every variant runs on
#    every case, but fuzz prints only the first failing variant of a case,
#    so the store is where all the verdicts show.
# Under ASan a worker that calls exit() runs LeakSanitizer's check of the
# whole process (LibTorch included) before it dies: over a second on a
# loaded 2-core machine, where it was once judged a timeout.
ftimeout=1
[ -n "${SL_SANITIZED:-}" ] && ftimeout=4
start=$(date +%s)
timeout 300 "$BIN" fuzz --db "$tmp/f.db" --provider "$LIB" --variants 'broken:*' \
  --seconds 5 --timeout "$ftimeout" --no-corpus --ops gather >"$tmp/out" 2>&1
rc=$?
took=$(($(date +%s) - start))
check "fuzz ended (took ${took} s)" test $rc -ne 124
check "fuzz exits 1" status_is 1 $rc "scatterlab fuzz --variants 'broken:*'"
fuzz_reports() {
  grep -qE '^FAIL (crashed|timeout|failed) broken:cpu\.' "$tmp/out" && return
  echo "  no 'FAIL <crashed|timeout|failed> broken:cpu.*' line:"
  tail -20 "$tmp/out" | sed 's/^/  | /'
  return 1
}
check "fuzz reports a failing broken variant" fuzz_reports
integrity=$(q "$tmp/f.db" 'PRAGMA integrity_check' 2>&1)
check "fuzz: integrity_check says ok (got '$integrity')" test "$integrity" = ok
# Per variant, the distinct verdicts of its runs, but both_rejected (an
# invalid case the harness refused before calling the kernel: a pass for
# every variant).
verdicts() {
  q "$tmp/f.db" "SELECT DISTINCT verdict FROM results WHERE variant = 'broken:cpu.$1' AND verdict != 'both_rejected' ORDER BY 1" 2>&1 | tr '\n' ' '
}
# mistrusted: a pass on a case that proves little (an all-zero reference).
got=$(verdicts ok)
check "fuzz: broken:cpu.ok only passed or mistrusted (got '$got')" \
  test "$got" = "passed " -o "$got" = "mistrusted passed "
for v in segv hang exit bad_status; do
  got=$(verdicts $v)
  check "fuzz: broken:cpu.$v only ${WANT[$v]} (got '$got')" test "$got" = "${WANT[$v]} "
done
# An empty output gets no stray write (broken.c), so the guard variants
# pass the cases whose index (the output's shape) has a zero extent, and
# fail all others.
empty_index() { # empty_index CASE_LINE
  echo "$1" | grep -qE '(^| )index=([0-9]+x)*0([x: ]|$)'
}
only_empty_pass() { # only_empty_pass VARIANT
  local line bad=0
  while IFS= read -r line; do
    [ -n "$line" ] || continue
    empty_index "$line" && continue
    echo "  $1 did not fail a non-empty case: $line"
    bad=1
  done < <(q "$tmp/f.db" "SELECT c.case_line FROM results r JOIN cases c ON c.id = r.case_id WHERE r.variant = '$1' AND r.verdict NOT IN ('failed', 'both_rejected')" 2>&1)
  return $bad
}
for v in overrun underrun; do
  got=$(verdicts $v)
  check "fuzz: broken:cpu.$v failed (got '$got')" grep -qw failed <<<"$got"
  check "fuzz: broken:cpu.$v passed only empty cases" only_empty_pass "broken:cpu.$v"
  bad=$(q "$tmp/f.db" "SELECT count(*) FROM results WHERE variant = 'broken:cpu.$v' AND verdict = 'failed' AND instr(message, 'outside') = 0" 2>&1)
  check "fuzz: every failed broken:cpu.$v says 'outside' ($bad do not)" test "$bad" = 0
done
bad=$(q "$tmp/f.db" "SELECT count(*) FROM results WHERE variant = 'broken:cpu.bad_status' AND instr(message, 'undefined status code 12345') = 0" 2>&1)
check "fuzz: every broken:cpu.bad_status says 'undefined status code 12345' ($bad do not)" test "$bad" = 0
status=$(q "$tmp/f.db" 'SELECT status FROM runs' 2>&1)
check "fuzz: the run is finished (got '$status')" test "$status" = finished

# 3. The correct kernel survives a campaign of its own: every dtype, index
#    dtype, rank and layout the generator draws.
"$BIN" fuzz --no-db --provider "$LIB" --variants broken:cpu.ok --seconds 3 \
  --no-corpus --ops gather >"$tmp/out" 2>&1
rc=$?
check "fuzz of broken:cpu.ok alone exits 0" status_is 0 $rc "scatterlab fuzz --variants broken:cpu.ok"

# 4. SL_CHECKS_INDEX_VALUES: the harness leaves the index values to a
#    variant that declares it, so a case with a bad value reaches the kernel
#    and its own check is judged: refused as LibTorch refuses (both_rejected,
#    with the kernel's own message), or accepted (reject_mismatch). A
#    variant without the flag never sees such a case.
for ip in oob neg; do
  "$BIN" run --no-db --provider "$LIB" \
    --variants 'broken:cpu.checks,broken:cpu.trusts,cpu.serial' \
    "gather dt=f32 it=i64 x=4x3 index=2x3 dim=0 ip=$ip seed=1" >"$tmp/out" 2>&1
  rc=$?
  check "run ip=$ip: exits 1 (broken:cpu.trusts accepts)" status_is 1 $rc "run ip=$ip"
  check "run ip=$ip: broken:cpu.checks is both_rejected" verdict_is broken:cpu.checks both_rejected
  check "run ip=$ip: by its own check" message_has broken:cpu.checks "broken:cpu.checks' own check"
  check "run ip=$ip: broken:cpu.trusts is reject_mismatch" verdict_is broken:cpu.trusts reject_mismatch
  check "run ip=$ip: it accepted" message_has broken:cpu.trusts "kernel accepted, LibTorch rejected"
  check "run ip=$ip: cpu.serial is both_rejected" verdict_is cpu.serial both_rejected
done
"$BIN" run --no-db --provider "$LIB" --variants 'broken:cpu.checks,broken:cpu.trusts' \
  "gather dt=f32 it=i64 x=4x3 index=2x3 dim=0 seed=1" >"$tmp/out" 2>&1
rc=$?
check "run, valid index: exits 0" status_is 0 $rc "run, valid index"
check "run, valid index: broken:cpu.checks passed" verdict_is broken:cpu.checks passed
check "run, valid index: broken:cpu.trusts passed" verdict_is broken:cpu.trusts passed
# A campaign of the honest one: its refusals are both_rejected, by its own
# check, and nothing fails.
"$BIN" fuzz --db "$tmp/c.db" --provider "$LIB" --variants broken:cpu.checks \
  --seconds 3 --no-corpus --ops gather --keep all >"$tmp/out" 2>&1
rc=$?
check "fuzz of broken:cpu.checks exits 0" status_is 0 $rc "fuzz --variants broken:cpu.checks"
n=$(q "$tmp/c.db" "SELECT count(*) FROM results WHERE variant = 'broken:cpu.checks' AND verdict = 'both_rejected' AND instr(message, 'own check') > 0" 2>&1)
check "fuzz: broken:cpu.checks refused bad values itself ($n times)" test "${n:-0}" -gt 0

echo "$((checks - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
