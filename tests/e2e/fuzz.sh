#!/usr/bin/env bash
# The CI campaign: about 40 s of fuzzing over every op and CPU variant (two
# jobs), after replaying the corpus; any failure fails the test. The seed is
# fixed so that a red run is reproducible; SL_FUZZ_SEED picks another.
set -u
BIN=$1 SRC=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$SRC/fuzz/corpus" "$tmp/corpus"
seed=${SL_FUZZ_SEED:-20261121}
"$BIN" fuzz --seconds "${SL_FUZZ_SECONDS:-40}" --jobs 2 --seed "$seed" \
  --corpus "$tmp/corpus" --db "$tmp/fuzz.db" --variants cpu >"$tmp/out" 2>&1
rc=$?
tail -n 40 "$tmp/out"
[ "$rc" -eq 0 ] || { echo "fuzz campaign failed (exit $rc)"; exit 1; }
# The store holds the campaign: the cases judged and every verdict counted
# (tallies), the coverage cells, and (--keep failures, the default) no case
# row for a campaign without failures.
cases=$(sqlite3 "$tmp/fuzz.db" 'select ncases from runs')
verdicts=$(sqlite3 "$tmp/fuzz.db" 'select sum(count) from tallies')
kept=$(sqlite3 "$tmp/fuzz.db" 'select count(*) from cases')
cells=$(sqlite3 "$tmp/fuzz.db" 'select count(*) from coverage')
status=$(sqlite3 "$tmp/fuzz.db" 'select status from runs')
size=$(stat -c %s "$tmp/fuzz.db")
echo "store: $cases cases judged, $verdicts verdicts, $kept cases kept, $cells coverage cells, run $status, $size bytes"
[ "$cases" -gt 1000 ] && [ "$verdicts" -gt "$cases" ] && [ "$kept" -eq 0 ] &&
  [ "$cells" -gt 100 ] && [ "$status" = finished ] || exit 1
n=$(grep -hv '^#' "$SRC"/fuzz/corpus/*.txt | grep -c .)
grep -q "corpus: $n cases replayed" "$tmp/out" || { echo "corpus not replayed"; exit 1; }
# Resident size stays flat after warm-up (< 5% growth), worker and job;
# not in sanitizer builds, where ASan's quarantine holds freed memory.
if [ -n "${SL_SANITIZED:-}" ]; then echo "1 passed, 0 failed"; exit 0; fi
mem=$(grep '^memory:' "$tmp/out")
echo "$mem"
w0=$(echo "$mem" | sed -E 's/.*worker RSS ([0-9.]+) MiB after.*/\1/')
w1=$(echo "$mem" | sed -E 's/.*, ([0-9.]+) MiB at the end.*/\1/')
j0=$(echo "$mem" | sed -E 's/.*job ([0-9.]+) -> .*/\1/')
j1=$(echo "$mem" | sed -E 's/.*-> ([0-9.]+) MiB$/\1/')
awk -v a="$w0" -v b="$w1" -v c="$j0" -v d="$j1" \
  'BEGIN { exit !(a > 0 && c > 0 && b < 1.05 * a && d < 1.05 * c) }' ||
  { echo "resident size grew by 5% or more after warm-up"; exit 1; }
echo "1 passed, 0 failed"
