#!/usr/bin/env bash
# The smaller reliability items of issue 28 (point 9), each shown by a
# check that fails on the code before its fix (named beside it).
set -u
BIN=$1
SRC=${2:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$SRC/tests/check.sh"
SC='scatter dt=f32 x=4x3 index=2x3 src=2x3 dim=0 seed=2'

# --load with a src.npy and a case line giving val=: the loaded src used to
# be taken, and the printed repro had both src= and val=, which the case
# parser refuses. Now an error naming the file.
check "--save a scatter case with src" run 0 run --no-db --save "$tmp/b" "$SC"
check "--load it with val=: exit 2" \
  run 2 run --no-db --load "$tmp/b" 'scatter dt=f32 x=4x3 index=2x3 dim=0 val=1.5 seed=2'
check "... naming src.npy and val=" \
  has 'b/src.npy: expected no src.npy for a case with val= \(scatter takes src or a value, not both\)'
check "... and printing no repro with both" hasnt 'src=2x3.*val='
check "the bundle reloads as saved" run 0 run --no-db --variants cpu --load "$tmp/b"
check "... every variant passed" has '3 verdicts: 3 passed'

# A dangling x.npy link was skipped: x was generated from the seed instead
# and the run passed as if loaded.
rm "$tmp/b/x.npy"
ln -s "$tmp/nowhere.npy" "$tmp/b/x.npy"
check "--load with x.npy a link to nothing: exit 2" run 2 run --no-db --load "$tmp/b"
check "... naming the link" has 'b/x.npy: expected an .npy file, got a symbolic link to nothing'

# After a store failure (a file-size limit standing in for a full disk) the
# summary counted every case that ran, while the store held only those
# committed before the failure: now run says how many are recorded and
# fuzz counts what its store holds.
"$BIN" fuzz --print --cases 3000 --seed 5 >"$tmp/batch.txt"
small_disk() { # small_disk DB ARGS...: scatterlab ARGS under a 200 KiB file limit
  # (its output through a pipe: the limit would cut $tmp/out short too)
  (
    trap '' XFSZ
    ulimit -f 200
    exec "$BIN" "${@:2}" --db "$1" 2>&1
  ) | cat >"$tmp/out"
}
small_disk "$tmp/r.db" run --batch "$tmp/batch.txt" --quiet
kept=$(sqlite3 "$tmp/r.db" 'SELECT count(*) FROM cases')
check "run on a full store: the summary names the $kept recorded cases" \
  has "only the first $kept of the 3000 cases are recorded; the store failed"
check "... fewer than ran" [ "$kept" -lt 3000 ]
small_disk "$tmp/f.db" fuzz --cases 50000 --keep all --no-corpus --jobs 1
held=$(sqlite3 "$tmp/f.db" 'SELECT count(*) FROM cases WHERE shrunk_from IS NULL')
check "fuzz on a full store: the summary counts the $held cases it holds" \
  has "^$held cases in "
check "... fewer than asked for" [ "$held" -lt 50000 ]

# A case line that does not parse is named by its place: the CSV file and
# record for import (the message named neither), the batch file's line for
# run --batch (it said "case 2", counting only the case lines).
printf 'case_line\n"%s"\n"%s"\n' 'gather x=4x3 index=2x3 dim=0' \
  'gather x=4x3 index=2x3 dim=banana' >"$tmp/bad.csv"
check "import of a bad record: exit 2" run 2 import --no-db "$tmp/bad.csv"
check "... naming the file and the record" \
  has 'scatterlab import: .*bad.csv record 3: dim: expected an integer'
printf 'gather x=4x3 index=2x3 dim=0\n# a comment\n\ngather x=4 index=2 dim=zz\n' >"$tmp/bad.txt"
check "run --batch with a bad line: exit 2" run 2 run --no-db --batch "$tmp/bad.txt"
check "... naming the file and its line" has 'bad.txt line 4: dim: expected an integer'

# import holds every case line before it runs one, as run --batch does:
# the same bounds (text_lines.h), refused past them with the record named.
{ echo case_line; seq 0 1000000 | awk '{print "gather x=4x3 index=2x3 dim=0 seed=" $1}'; } >"$tmp/many.csv"
check "import of 1,000,001 case lines: exit 2" run 2 import --no-db "$tmp/many.csv"
check "... naming the record past the bound" \
  has 'many.csv: record 1000002, field 1: more than 1,000,000 case lines'
pad=$(head -c 60000 /dev/zero | tr '\0' x)
{ echo case_line; for i in $(seq 1200); do echo "\"gather x=4 index=2 dim=0 seed=$i #$pad\""; done; } >"$tmp/big.csv"
check "import of a 70 MB CSV: exit 2" run 2 import --no-db "$tmp/big.csv"
check "... naming the byte bound" has 'big.csv: record [0-9]+: expected at most 67108864 bytes in the file'
rm -f "$tmp/many.csv" "$tmp/big.csv"

# The text report honours --run: run 1 alone, and a run that is not there
# is an error (it used to list every run and exit 0).
check "report --run 1 of the full-store run: exit 0" run 0 report --db "$tmp/r.db" --run 1
check "... its row" has '^ +1 +run '
check "report --run 999: exit 2 (an input error)" run 2 report --db "$tmp/r.db" --run 999
check "... naming the run" has '\-\-run 999: expected a run of .*r.db, got no run with that id'

echo "$((checks - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
