#!/usr/bin/env bash
# CSV: columns are only ever appended (issue 29). Every table's export
# starts with the header pinned in tests/data/csv_headers.txt, `report
# --help` lists the same headers (generated from the writers' table), the
# results table's shrunk_from names the failing case a minimal case was
# shrunk from, and --verdict keeps the rows of the verdicts named (a name
# that is no verdict: exit 2, naming it).
set -u
BIN=$1
SRC=${2:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$SRC/tests/check.sh"
PINNED=$SRC/tests/data/csv_headers.txt
BUG=$(dirname "$BIN")/tests/libsl_buggy.so
[ -f "$BUG" ] || { echo "FAIL: $BUG missing"; exit 1; }
db=$tmp/s.db
# A campaign that fails and shrinks (stores the original and the minimal
# case), and a plain run.
"$BIN" fuzz --db "$db" --ops gather --provider "buggy=$BUG" \
  --variants 'buggy:cpu.off_by_one,cpu.serial' --cases 30 --jobs 1 --seed 7 \
  --corpus "$tmp/corpus" >"$tmp/fuzz.out" 2>&1
check "the campaign found the bug" grep -q "^FAIL failed buggy:cpu.off_by_one" "$tmp/fuzz.out"
check "a run" run 0 run --db "$db" --variants cpu.serial 'gather x=4x3 index=2x3 dim=0 seed=1'

pinned() { sed -n "s/^$1: //p" "$PINNED"; }
# The export's header begins with the pinned columns (new ones only after).
starts_pinned() { # starts_pinned TABLE
  local want got
  want=$(pinned "$1")
  got=$(head -1 "$tmp/out")
  [ -n "$want" ] && { [ "$got" = "$want" ] || [ "${got#"$want",}" != "$got" ]; } ||
    { echo "  $1: header \"$got\", pinned \"$want\""; return 1; }
}
"$BIN" report --help >"$tmp/help" 2>&1
# The help's table lines joined back (a break after a comma and its indent).
helpj=$(sed -e ':a' -e '/,$/N; s/,\n *\([a-z_]\)/,\1/; ta' "$tmp/help")
for t in results tallies timings coverage runs; do
  check "$t: exported" run 0 report --db "$db" --format csv --table "$t"
  check "$t: header starts with the pinned columns" starts_pinned "$t"
  want=$(head -1 "$tmp/out")
  check "$t: --help lists the header" grep -qF -- "$want" <<<"$helpj"
done

# shrunk_from: the minimal case points at a failing case of the export.
run 0 report --db "$db" --format csv --table results
shrunk_ok() {
  python3 - "$tmp/out" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline='')))
failing = {r['case_id'] for r in rows if r['verdict'] == 'failed'}
shrunk = [r for r in rows if r['shrunk_from']]
assert shrunk, 'no row with shrunk_from'
for r in shrunk:
    assert r['shrunk_from'] in failing, (r['case_id'], r['shrunk_from'])
    assert r['shrunk_from'] != r['case_id']
assert any(not r['shrunk_from'] for r in rows if r['verdict'] == 'failed')
PY
}
check "shrunk_from names the failing case it came from" shrunk_ok

check "--verdict failed" run 0 report --db "$db" --format csv --verdict failed
only_failed() { tail -n +2 "$tmp/out" | awk 'END {exit NR == 0}' &&
  python3 -c "import csv,sys; r=list(csv.DictReader(open('$tmp/out'))); sys.exit(0 if r and all(x['verdict']=='failed' for x in r) else 1)"; }
check "--verdict failed: failed rows only" only_failed
check "--verdict passed,failed" run 0 report --db "$db" --format csv --verdict passed,failed
check "--verdict passed,failed: both" has ',passed,' 
check "--verdict passed,failed: both (2)" has ',failed,'
check "--verdict unknown: exit 2" run 2 report --db "$db" --format csv --verdict failed,nope
check "--verdict unknown: named" has '--verdict failed,nope: expected verdict names separated by commas \(passed, .*\), got "nope"'
check "--verdict off the results table: exit 2" run 2 report --db "$db" --format csv --table runs --verdict failed
check "--verdict off the results table: named" has '--verdict: expected --format csv --table results, got --format csv --table runs'

echo "csv_headers: $((checks - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
