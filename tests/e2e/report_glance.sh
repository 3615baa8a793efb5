#!/usr/bin/env bash
# The HTML report at a glance: a store whose verdicts are all `unsupported`
# (cuda.* rows without a GPU) shows them as a count, not as table rows; a
# bench of the seed suite's lone index_reduce case draws no crossover grid
# and marks one fastest variant per case.
set -u
BIN=$1
command -v sqlite3 >/dev/null || { echo "sqlite3 not installed: skip"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0 checks=0
check() { # check DESCRIPTION COMMAND...
  local what=$1; shift
  checks=$((checks + 1))
  if ! "$@"; then echo "FAIL: $what"; fails=$((fails + 1)); fi
}

db=$tmp/u.db
"$BIN" run --db "$db" --variants cpu 'gather dt=f32 it=i64 x=4x3 index=2x3 dim=0 seed=1' >/dev/null 2>&1
check "all unsupported" sqlite3 -bail "$db" "UPDATE tallies SET verdict = 'unsupported'"
rows=$(sqlite3 "$db" "SELECT COUNT(DISTINCT op || dtype || variant) FROM tallies")
check "tally rows" test "$rows" -gt 1
check "html" "$BIN" report --db "$db" --format html -o "$tmp/u.html"
# The top of the page: up to the details.
sed '/<h2 id="details">/,$d' "$tmp/u.html" >"$tmp/top.html"
check "unsupported counted" grep -qF "0 without failures; $rows with every verdict <code>unsupported</code>" "$tmp/top.html"
check "no per-row table on top" bash -c "! grep -q '<tr><td>gather</td>' '$tmp/top.html'"
check "rows under details" grep -q '<tr><td>gather</td>' "$tmp/u.html"

bdb=$tmp/b.db
line='index_reduce dt=f32 it=i64 x=3x2 index=4 updates=4x2 dim=0 reduce=sum self=0 seed=1'
check "bench" "$BIN" bench --db "$bdb" --budget 0.05 --min-reps 3 --variants cpu.atomic,cpu.lock,cpu.sorted "$line" >"$tmp/bench.out" 2>&1 || cat "$tmp/bench.out"
check "html bench" "$BIN" report --db "$bdb" --format html -o "$tmp/b.html"
check "crossover as a line" grep -qF -- "-&gt; " "$tmp/b.html"
check "no grid" bash -c "! grep -qF 'M \\ C' '$tmp/b.html'"
check "one winner" test "$(grep -c '<tr class="win">' "$tmp/b.html")" -eq 1
# The winner's median is the smallest of the case's rows.
check "winner is fastest" python3 - "$tmp/b.html" <<'PY'
import re, sys
h = open(sys.argv[1]).read()
t = h[h.index('<table class="timings">'):]
t = t[:t.index('</table>')]
units = {'s': 1, 'ms': 1e-3, 'us': 1e-6, 'ns': 1e-9}
rows = re.findall(r'<tr( class="win")?><td>([^<]*)(?:<span[^>]*>[^<]*</span>)?</td><td class="n">([0-9.]+) (\w+)</td>', t)
meds = [(float(v) * units[u], bool(w)) for w, _, v, u in rows]
assert len(meds) >= 2, rows
# Medians print with three digits: a row may show the winner's value too
# (2.62 us twice once); the winner must hold the smallest shown.
least = min(v for v, _ in meds)
assert any(w and v == least for v, w in meds), meds
PY

echo "$((checks - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
