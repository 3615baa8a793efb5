#!/usr/bin/env bash
# Reports as a user meets them: CSV export and `scatterlab import` round
# trip, `scatterlab compare` exit statuses on synthetic samples (a 10%
# slowdown, noise only, three samples), `scatterlab history` and the HTML
# report. Synthetic timings come from reports_store.sql (sqlite3).
set -u
BIN=$1
SRC=$2
command -v sqlite3 >/dev/null || { echo "sqlite3 not installed: skip"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0 checks=0
check() { # check DESCRIPTION COMMAND...
  local what=$1; shift
  checks=$((checks + 1))
  if ! "$@"; then echo "FAIL: $what"; fails=$((fails + 1)); fi
}
run() { # run EXPECTED_STATUS ARGS... ; output in $tmp/out
  local want=$1; shift
  "$BIN" "$@" >"$tmp/out" 2>&1
  local got=$?
  if [ "$got" != "$want" ]; then
    echo "exit status $got, expected $want: scatterlab $*"; cat "$tmp/out"; return 1
  fi
}
has() { grep -qF -- "$1" "$tmp/out" || { echo "missing: $1"; cat "$tmp/out"; return 1; }; }
hasnt() { ! grep -qF -- "$1" "$tmp/out" || { echo "unexpected: $1"; return 1; }; }

check "help" run 0 --help
check "help lists compare" has "compare"
for c in import compare history; do check "$c --help" run 0 "$c" --help; done

# --- CSV export -> import -> export: the same case lines -------------------
db=$tmp/a.db
lineA='gather dt=f32 it=i64 x=4x3 index=2x3 dim=0 seed=1'
lineB='scatter dt=f32 it=i64 x=5x2 index=3x2 src=3x2 dim=0 seed=9'
check "run" run 0 run --db "$db" "$lineA" "$lineB"
check "export results" run 0 report --db "$db" --format csv -o "$tmp/a.csv"
check "import the export" run 0 import --db "$tmp/b.db" "$tmp/a.csv"
check "import ran both cases" has "2 cases"
check "import kind" run 0 report --db "$tmp/b.db"
check "import run recorded" has "import"
check "export again" run 0 report --db "$tmp/b.db" --format csv -o "$tmp/b.csv"
# Everything but the run and case ids and the timings is the same.
norm() { cut -d, -f3-5 "$1" | sort; }
check "round trip" diff <(norm "$tmp/a.csv") <(norm "$tmp/b.csv")
check "round trip lines" grep -qF "$lineB" "$tmp/b.csv"

# A hand-written list: a header, quoted fields with commas, quotes and a
# line break in another column, a comment, a repeat.
printf '%s\n' 'why,case_line' \
  '"two, with ""quotes""
and a line break",gather dt=f32 it=i64 x=4x3 index=2x3 dim=0 seed=3' \
  'nd,"gather_nd dt=f32 it=i64 x=4x3 index=2x2x2 dims=0,1 seed=4"' \
  'c,# not a case' \
  'again,gather dt=f32 it=i64 x=4x3 index=2x3 dim=0 seed=3' >"$tmp/list.csv"
check "import a list" run 0 import --no-db "$tmp/list.csv"
check "list: two cases" has "2 cases"
check "list: dims with a comma" has "dims=0,1"
printf 'case_line\n"gather x=4 index=4\n' >"$tmp/bad.csv"
check "malformed csv" run 2 import --no-db "$tmp/bad.csv"
check "malformed message" has "bad.csv: record 2"
check "missing csv" run 2 import --no-db "$tmp/none.csv"
check "bad case in csv" run 2 import --no-db <(printf 'gatherr x=4\n')

# --- compare on synthetic samples -------------------------------------------
cdb=$tmp/c.db
for i in 1 2 3 4; do "$BIN" run --db "$cdb" "$lineA" >/dev/null 2>&1; done
check "synthetic store" sqlite3 -bail "$cdb" ".read $SRC/tests/e2e/reports_store.sql"
check "10% slower: exit 1" run 1 compare --db "$cdb" 1 2
check "slower verdict" grep -qE '^slower +cpu.omp' "$tmp/out"
check "torch unchanged" grep -qE '^same +torch.cpu' "$tmp/out"
check "noise only: exit 0" run 0 compare --db "$cdb" 1 3
check "noise is same" grep -qE '^same +cpu.omp' "$tmp/out"
check "three samples: exit 0" run 0 compare --db "$cdb" 1 4
check "too few samples" has "too few samples"
check "faster the other way" run 0 compare --db "$cdb" 2 1
check "faster verdict" grep -qE '^faster +cpu.omp' "$tmp/out"
check "threshold 15%: same" run 0 compare --db "$cdb" --threshold 15 1 2
check "markdown" run 1 compare --db "$cdb" --format markdown 1 2
check "markdown title" has "### scatterlab compare: **1 slower**"
check "csv" run 1 compare --db "$cdb" --format csv -o "$tmp/cmp.csv" 1 2
check "csv header" grep -q '^base_run,cand_run,case_line,variant,threads,cold,n_base' "$tmp/cmp.csv"
check "html" run 1 compare --db "$cdb" --format html -o "$tmp/cmp.html" 1 2
check "html table" grep -q '<td class="bad">slower</td>' "$tmp/cmp.html"
cp "$cdb" "$tmp/d.db"
check "two files" run 1 compare "$cdb:1" "$tmp/d.db:2"
check "file names" has "d.db run 2"
check "newest timed runs" run 0 compare "$cdb" "$tmp/d.db"
check "usage: one run" run 2 compare --db "$cdb" 1
check "usage: threshold" run 2 compare --db "$cdb" --threshold x 1 2
check "no such run" run 2 compare --db "$cdb" 1 99
check "no run message" has "no run 99"
check "no such file" run 2 compare "$tmp/none.db" "$cdb"
# Runs that share no benchmark: nothing compared is not a pass.
cp "$cdb" "$tmp/np.db"
"$BIN" bench --db "$tmp/np.db" --budget 0.02 --min-reps 3 --variants cpu.serial \
  'scatter dt=f32 it=i64 x=64 index=64 src=64 dim=0 seed=9' >/dev/null 2>&1
other=$(sqlite3 "$tmp/np.db" "select max(id) from runs")
check "no pairs: exit 3" run 3 compare --db "$tmp/np.db" 1 "$other"
check "no pairs: says so" has "nothing was compared"

# --- history and the HTML report ---------------------------------------------
check "history" run 0 history --db "$cdb" --all
check "history header" has "history of"
check "history lists the benchmark" has "cpu.omp, 2 threads, warm: 4 runs"
check "html report" run 0 report --db "$cdb" --format html -o "$tmp/r.html"
check "html sections" grep -q '<h2 id="contention">Contention</h2>' "$tmp/r.html"
check "html escaped" grep -qF '&lt;b&gt;&quot;quoted&quot;, comma&lt;/b&gt; &amp; more' "$tmp/r.html"
check "html has no script" bash -c "! grep -q '<script' '$tmp/r.html'"
check "timings csv" run 0 report --db "$cdb" --format csv --table timings
check "timings samples" grep -qE ',gather dt=f32 it=i64 x=4096x64 index=4096x64 dim=0 seed=1,([0-9.e-]+ ){19}[0-9.e-]+$' "$tmp/out"
check "coverage csv" run 0 report --db "$cdb" --format csv --table coverage
check "runs csv" run 0 report --db "$cdb" --format csv --table runs
check "runs csv rows" test "$(wc -l <"$tmp/out")" -eq 5
check "bad table" run 2 report --db "$cdb" --format csv --table nope

echo "$((checks - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
