#!/usr/bin/env bash
# Store modes (issue 28, point 10): the same fuzz campaign with the default
# --keep failures and with --keep all. Both judge the same cases and count
# the same verdicts (runs.ncases, tallies); the report's summary table is
# the same; the default keeps no case row when nothing fails, and its
# store is a fraction of the other's; a planted failure is kept with its
# verdicts; merge carries the tallies. On the code before tallies the
# default kept every case (no --keep) and 6 of these checks fail.
set -u
BIN=$1
SRC=${2:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$SRC/tests/check.sh"
q() { sqlite3 "$1" "$2"; }
# cpu.serial alone: a parallel variant may let another duplicate writer win
# from run to run (docs/spec.md §2), which can turn a pass into "mistrusted".
# --size-mix 0: the ratio below is about the stores, not the size mix, whose
# share (1 in 8 in a small-thresholds build) adds coverage cells to both.
C=(fuzz --cases 6000 --seed 11 --jobs 1 --no-corpus --size-mix 0 --variants cpu.serial --timeout 120)
"$BIN" "${C[@]}" --db "$tmp/fail.db" >"$tmp/f.out" 2>&1
rc1=$?
"$BIN" "${C[@]}" --keep all --db "$tmp/all.db" >"$tmp/a.out" 2>&1
rc2=$?
check "both campaigns exit 0 ($rc1, $rc2)" test "$rc1 $rc2" = "0 0"
check "the default run is recorded as keep=failures" [ "$(q "$tmp/fail.db" 'SELECT keep FROM runs')" = failures ]
check "--keep all is recorded as keep=all" [ "$(q "$tmp/all.db" 'SELECT keep FROM runs')" = all ]
n1=$(q "$tmp/fail.db" 'SELECT ncases FROM runs')
n2=$(q "$tmp/all.db" 'SELECT ncases FROM runs')
stored=$(q "$tmp/all.db" 'SELECT count(*) FROM cases')
check "same cases judged ($n1, $n2; --keep all stored $stored)" \
  test "$n1 $n2" = "$n2 $stored"
T="SELECT group_concat(op || ' ' || dtype || ' ' || variant || ' ' || verdict || ' ' || count, ';') FROM (SELECT * FROM tallies ORDER BY 1, 2, 3, 4, 5)"
t1=$(q "$tmp/fail.db" "$T")
t2=$(q "$tmp/all.db" "$T")
[ "$t1" = "$t2" ] || diff <(tr ';' '\n' <<<"$t1") <(tr ';' '\n' <<<"$t2") | head -5
check "same tallies in both stores" [ "$t1" = "$t2" ]
v=$(q "$tmp/all.db" 'SELECT count(*) FROM results')
check "tallies sum to --keep all's results ($v)" [ "$(q "$tmp/all.db" 'SELECT sum(count) FROM tallies')" = "$v" ]
check "the default kept no case (nothing failed)" [ "$(q "$tmp/fail.db" 'SELECT count(*) FROM cases')" = 0 ]
# 6,000 cases: 0.45 MB against 1.85 MB (4.1x) before the size thresholds'
# coverage labels (past:<threshold>) split the "large" cells, 4.0x after;
# the default store is then mostly coverage cells, which both keep.
s1=$(stat -c %s "$tmp/fail.db")
s2=$(stat -c %s "$tmp/all.db")
echo "store sizes: --keep failures $s1 bytes, --keep all $s2 bytes"
check "the default store is under a third of --keep all's ($s1 vs $s2; coverage cells are most of it)" [ $((s1 * 3)) -lt "$s2" ]
summary() { # the HTML summary table
  "$BIN" report --db "$1" --format html -o "$tmp/r.html" >/dev/null 2>&1
  sed -n '/<table class="summary">/,/<\/table>/p' "$tmp/r.html"
}
check "the same summary table in both reports" [ "$(summary "$tmp/fail.db")" = "$(summary "$tmp/all.db")" ]
rows=$(summary "$tmp/fail.db" | grep -c '<tr')
check "the summary is not empty ($rows rows)" [ "$rows" -gt 3 ]
"$BIN" report --db "$tmp/fail.db" --format csv --table tallies -o "$tmp/t.csv" >/dev/null 2>&1
check "report --table tallies: a header and one row per tally" \
  [ "$(wc -l <"$tmp/t.csv")" = $(($(q "$tmp/fail.db" 'SELECT count(*) FROM tallies') + 1)) ]
check "... whose counts sum to the verdicts" \
  [ "$(awk -F, 'NR > 1 { s += $NF } END { print s }' "$tmp/t.csv")" = "$v" ]

# A failing variant: its cases are kept with every verdict, the passing
# ones only counted.
buggy=$(dirname "$BIN")/tests/libsl_buggy.so
if [ -f "$buggy" ]; then
  SCATTERLAB_PROVIDERS=$buggy "$BIN" fuzz --ops gather --variants 'buggy:cpu.off_by_one,cpu.serial' \
    --cases 300 --jobs 1 --no-corpus --no-shrink --seed 7 --db "$tmp/bug.db" >/dev/null 2>&1
  judged=$(q "$tmp/bug.db" 'SELECT ncases FROM runs')
  kept=$(q "$tmp/bug.db" 'SELECT count(*) FROM cases')
  failing=$(q "$tmp/bug.db" "SELECT coalesce(sum(count), 0) FROM tallies WHERE verdict = 'failed'")
  check "failing cases kept: $kept of $judged judged, $failing failed verdicts" \
    test "$kept" -gt 0 -a "$kept" -lt "$judged" -a "$kept" = "$failing"
  check "a kept case keeps its passing verdicts too" \
    [ "$(q "$tmp/bug.db" "SELECT count(*) FROM results WHERE verdict = 'passed'")" -gt 0 ]
else
  echo "FAIL: $buggy missing"
  fails=$((fails + 1))
fi

# merge carries the tallies and case counts.
"$BIN" merge "$tmp/fail.db" "$tmp/all.db" -o "$tmp/m.db" >/dev/null 2>&1
check "merge: tallies of both runs" [ "$(q "$tmp/m.db" 'SELECT sum(count) FROM tallies')" = $((2 * v)) ]
check "merge: case counts of both runs" [ "$(q "$tmp/m.db" 'SELECT sum(ncases) FROM runs')" = $((2 * n2)) ]

echo "$((checks - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
