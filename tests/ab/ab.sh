#!/usr/bin/env bash
# `scatterlab ab` proven against planted slowdowns (slow.c): one gather
# provider built unchanged (0%), 10% and 100% slower, compared as a base
# and a candidate build in one process. The gate must not call an unchanged
# kernel slower (A/A: two copies of one library, several seeds), must catch
# the 2x slowdown (exit 1), must call the reverse faster (exit 0), must not
# call the 10% one same or faster, and must refuse what it cannot compare.
#
# usage: ab.sh SCATTERLAB FIXTURE_DIR
set -u
# The provider ABI version: the kernels library's soname carries it.
abi=$(sed -n 's/^#define SL_PROVIDER_ABI_VERSION \([0-9]*\)u$/\1/p' \
  "$(dirname "$0")/../../core/include/sl/sl_provider.h")
BIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
DIR=$(cd "$2" && pwd)
. "$(dirname "$0")/../check.sh"
# Small enough for tens of rounds within the budget under ASan too (a call
# of the fixture's gather took 96 ms there at 320k elements).
CASE='gather dt=f32 x=4000x8 index=10000x8 dim=0 seed=3'
show() { sed 's/^/  | /' "$tmp/out" | head -30; }
ab() { # ab BASE CAND [options]: output in $tmp/out, status in $rc
  local base=$1 cand=$2
  shift 2
  "$BIN" ab --base "$base" --cand "$cand" --threads 1 --budget 1.5 \
    --variants cpu.gather "$@" "$CASE" >"$tmp/out" 2>&1
  rc=$?
}
status_is() { # status_is WANT
  [ "$rc" = "$1" ] && return
  echo "  exit status $rc, expected $1"
  show
  return 1
}
verdict_in() { # verdict_in V...: cpu.gather's final verdict is one of V
  # A first claim (slower, faster) gets a run-wide line ending "=> FINAL";
  # otherwise the pair's own line has the final verdict.
  local got
  got=$(awk '$1 == "cpu.gather"' "$tmp/out" | sed -n 's/.* => \([a-z]*\)$/\1/p' | tail -1)
  [ -n "$got" ] || got=$(awk '$1 == "cpu.gather"' "$tmp/out" |
    grep -oE '\b(same|faster|slower|unclear|noisy)\b' | head -1)
  for v in "$@"; do [ "$got" = "$v" ] && return; done
  echo "  verdict '$got', expected one of: $*"
  show
  return 1
}
ratio_between() { # ratio_between LO HI: the estimate cand/base
  awk -v lo="$1" -v hi="$2" '$1 == "cpu.gather" {
      r = $4 + 0; found = 1; exit !(r >= lo && r <= hi) }
    END { if (!found) exit 1 }' "$tmp/out" && return
  echo "  ratio not in [$1, $2]"
  show
  return 1
}

cp "$DIR/libsltest_slow0.so" "$tmp/copy_of_slow0.so"
# An A/A judged changed is a false alarm of the gate. On a quiet machine
# there were none in 1,160 judgements (docs/performance-figures.md), but in one CI
# run, alone (RUN_SERIAL) right after the install test, one seed read
# 0.838 [0.831, 0.845] over 14 rounds, and 24 runs of it afterwards lay in
# [0.994, 1.006]: a disturbance of that run, not of the code. This test
# once ran such a seed again by hand; ab now does it itself (a claim counts
# only when fresh rounds under another seed agree), so each seed runs once
# and its final verdict is the one checked.
for seed in 1 2 3; do
  ab "$DIR/libsltest_slow0.so" "$tmp/copy_of_slow0.so" --seed "$seed" --no-db
  check "A/A seed $seed: exit 0" status_is 0
  check "A/A seed $seed: not judged slower or faster" verdict_in same unclear noisy
done
# Both arms alike: bound as bench binds them (main.c), and said.
check "A/A: binding and wait policy on the threads line" grep -qE \
  "^threads 1 \(OMP_PROC_BIND=${OMP_PROC_BIND:-close}, OMP_WAIT_POLICY=[^)]+\), .*family-wise alpha 0.05 \(Holm\)" "$tmp/out"

ab "$DIR/libsltest_slow0.so" "$DIR/libsltest_slow100.so" --db "$tmp/ab.db"
check "2x slower: exit 1" status_is 1
check "2x slower: judged slower" verdict_in slower
# Twice the work is not exactly twice the time: under a parallel CUDA build
# the estimate once came out 2.81 [2.10, 3.53]. The bounds tell a 2x
# slowdown from none (1.0) and from a runaway estimate, not 2.0 from 2.8.
check "2x slower: estimate near 2" ratio_between 1.4 3.5
check "2x slower: summary" grep -q "1 benchmarks judged: 0 same 0 faster 1 slower 0 unclear" "$tmp/out"
# The claim is timed again in fresh rounds, in two new timing processes,
# and stands because they agree; the first judgement and the last
# confirmation are on the run-wide line (one judgement: Holm's threshold
# is alpha itself).
check "2x slower: both judgements shown" grep -qE \
  '^  cpu\.gather +first [0-9.]+ \[[0-9.]+, [0-9.]+\] p [0-9.e-]+ <= 0\.05 \(Holm\), again [0-9.]+ \[[0-9.]+, [0-9.]+\] p [0-9.e-]+, [0-9]+ rounds, 2 processes: slower => slower$' "$tmp/out"
# The store: a bench run with both arms' per-round samples.
check "store: both arms timed" test "$(sqlite3 "$tmp/ab.db" \
  "select count(*) from timings where variant in ('base:cpu.gather','cand:cpu.gather') and reps >= 10")" = 2
check "store: raw samples kept" test "$(sqlite3 "$tmp/ab.db" \
  "select count(*) >= 20 from samples")" = 1

# --torch: LibTorch as a third arm of the same rounds. The verdict is still
# on cand/base; each build's speed-up over LibTorch comes from the same
# rounds, so the candidate's is about the base's over the ratio.
ab "$DIR/libsltest_slow0.so" "$DIR/libsltest_slow100.so" --torch \
  --db "$tmp/abt.db" --json "$tmp/abt.json"
check "--torch: exit 1, the 2x still judged slower" status_is 1
check "--torch: the speed-ups on the line" \
  grep -qE '^  cpu\.gather .* slower +torch [0-9.]+ ms: [0-9.]+x -> [0-9.]+x( +instr [0-9.]+)?( +\(\+[0-9]+ rounds: scattered\))?$' "$tmp/out"
torch_ok() {
  python3 - "$tmp/abt.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["torch"] is True, d
j = [r for r in d["rows"] if r["kind"] == "judged"][0]
assert j["torch_s"] > 0 and j["base_speedup"] > 0 and j["cand_speedup"] > 0, j
# speed-up = torch / arm, so cand_speedup * ratio ~ base_speedup
k = j["cand_speedup"] * j["ratio"] / j["base_speedup"]
assert 0.75 < k < 1.33, (k, j)
PY
}
check "--torch: json has torch_s and both speed-ups, consistent" torch_ok
check "--torch: the store holds LibTorch's per-round samples" test "$(sqlite3 "$tmp/abt.db" \
  "select count(*) from timings where variant = 'torch.cpu' and reps >= 10")" = 1
ab "$DIR/libsltest_slow0.so" "$DIR/libsltest_slow100.so" --no-db --json "$tmp/abn.json"
check "without --torch: torch false, speed-ups null" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
j = [r for r in d["rows"] if r["kind"] == "judged"][0]
sys.exit(0 if d["torch"] is False and j["base_speedup"] is None and j["torch_s"] is None else 1)' "$tmp/abn.json"
check "json: the run-wide checks of the 2x" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["correction"] == "holm" and d["alpha"] == 0.05 and d["judgements"] == 1, d
assert d["confirm_seed"] != d["seed"] and "OMP_PROC_BIND=" in d["omp"], d
j = [r for r in d["rows"] if r["kind"] == "judged"][0]
assert j["verdict"] == "slower" and j["first_verdict"] == "slower", j
assert j["holm_kept"] is True and j["p"] <= j["p_threshold"] == 0.05, j
a = j["again"]
assert a["verdict"] == "slower" and a["lo"] <= a["ratio"] <= a["hi"] and a["rounds"] >= 10, a
assert a["p"] <= 0.05 and 1.4 < a["ratio"] < 3.5 and a["processes"] == 2, a' "$tmp/abn.json"

# Hardware counters: one line says what they count or why there are none
# (this development VM has no PMU; a GPU machine may); --metric
# instructions judges on them where there are, and is an environment error
# (3) where there are none.
check "counters: one line" grep -qE '^counters: (instructions|per call|none: .+)' "$tmp/out"
counters_none=0
grep -q '^counters: none: ' "$tmp/out" && counters_none=1
check "json: metric time and the counters line" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
j = [r for r in d["rows"] if r["kind"] == "judged"][0]
assert d["metric"] == "time" and d["counters"], d
assert ("instructions_ratio" in j) and (j["instructions_ratio"] is None) == (sys.argv[2] == "1"), j' "$tmp/abn.json" "$counters_none"
ab "$DIR/libsltest_slow0.so" "$DIR/libsltest_slow100.so" --no-db --metric instructions --json "$tmp/abi.json"
if [ "$counters_none" = 1 ]; then
  check "--metric instructions without counters: exit 3" status_is 3
  check "--metric instructions without counters: says why" \
    grep -q "expected an instructions counter, found none: " "$tmp/out"
else
  # twice the work: twice the instructions, and nothing else moves them
  check "--metric instructions: 2x the work judged slower" status_is 1
  check "--metric instructions: ratio near 2" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
j = [r for r in d["rows"] if r["kind"] == "judged"][0]
assert d["metric"] == "instructions" and 1.8 < j["ratio"] < 2.2, j' "$tmp/abi.json"
fi
ab "$DIR/libsltest_slow0.so" "$DIR/libsltest_slow100.so" --no-db --alpha 0.7
check "--alpha 0.7: exit 2" status_is 2
check "--alpha 0.7: named, with the range" grep -q -- '--alpha: expected a number in (0, 0.5\], got "0.7"' "$tmp/out"
ab "$DIR/libsltest_slow0.so" "$DIR/libsltest_slow100.so" --no-db --metric cycles
check "--metric cycles: exit 2" status_is 2
check "--metric cycles: named" grep -q -- '--metric: expected time or instructions, got "cycles"' "$tmp/out"
ab "$DIR/libsltest_slow0.so" "$DIR/libsltest_slow100.so" --no-db --no-counters --json "$tmp/abc.json"
check "--no-counters: said" grep -q '^counters: off (--no-counters)' "$tmp/out"
check "--no-counters: no counts in the JSON" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
j = [r for r in d["rows"] if r["kind"] == "judged"][0]
assert j["base_instructions"] is None and j["instructions_ratio"] is None, j' "$tmp/abc.json"

ab "$DIR/libsltest_slow100.so" "$DIR/libsltest_slow0.so" --no-db
check "2x faster: exit 0" status_is 0
check "2x faster: judged faster" verdict_in faster

ab "$DIR/libsltest_slow0.so" "$DIR/libsltest_slow10.so" --no-db --budget 3
check "10% slower: never same or faster" verdict_in slower unclear noisy
check "10% slower: estimate above 1" ratio_between 1.0 1.5
echo "  10% slower judged: $(awk '$1 == "cpu.gather" {print $4, $5, $6, $7, $NF}' "$tmp/out")"

# What it cannot compare: a usage error (2), named.
ab "$DIR/libsltest_slow0.so" "$DIR/libsltest_slow10.so" --no-db --variants nope
check "no pair: exit 3" status_is 3
check "no pair: says so" grep -q "nothing to compare" "$tmp/out"
# A base variant the candidate lacks (slow0's cpu.gather2; its lean build
# has cpu.gather only): incomplete, exit 3, unless --allow-missing.
# --threshold 50: the verdict is not the point here, and no noise reaches it.
"$BIN" ab --base "$DIR/libsltest_slow0.so" --cand "$DIR/libsltest_slow0_lean.so" \
  --threads 1 --budget 0.5 --threshold 50 --no-db "$CASE" >"$tmp/out" 2>&1
rc=$?
check "missing in candidate: exit 3" status_is 3
check "missing in candidate: named" grep -q "cpu.gather2 *missing: the candidate has no cand:cpu.gather2" "$tmp/out"
"$BIN" ab --base "$DIR/libsltest_slow0.so" --cand "$DIR/libsltest_slow0_lean.so" \
  --threads 1 --budget 0.5 --threshold 50 --no-db --allow-missing "$CASE" >"$tmp/out" 2>&1
rc=$?
check "missing allowed: exit 0" status_is 0
# --json and --markdown: one result structure, two files. A link planted at
# the JSON path is refused before anything runs (issue 48: never replaced),
# its target left alone; then the files are written.
echo victim >"$tmp/victim.txt"
ln -s "$tmp/victim.txt" "$tmp/ab.json"
"$BIN" ab --base "$DIR/libsltest_slow0.so" --cand "$DIR/libsltest_slow0_lean.so" \
  --no-db --json "$tmp/ab.json" "$CASE" >"$tmp/out" 2>&1
rc=$?
check "json over a link: refused, exit 2" status_is 2
check "json over a link: named" grep -q "ab.json: expected a new file or a regular file of yours, got a symbolic link" "$tmp/out"
rm "$tmp/ab.json"
"$BIN" ab --base "$DIR/libsltest_slow0.so" --cand "$DIR/libsltest_slow0_lean.so" \
  --threads 1 --budget 0.5 --threshold 50 --no-db --allow-missing --json "$tmp/ab.json" \
  --markdown "$tmp/ab.md" --csv "$tmp/ab.csv" --html "$tmp/ab.html" "$CASE" >"$tmp/out" 2>&1
rc=$?
check "json: exit 0" status_is 0
json_ok() {
  python3 - "$tmp/ab.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "scatterlab-ab/1", d["schema"]
assert d["exit_status"] == 0 and d["counts"]["missing"] == 1, d["counts"]
kinds = sorted((r["kind"], r["variant"]) for r in d["rows"])
assert kinds == [("judged", "cpu.gather"), ("missing", "cpu.gather2")], kinds
j = [r for r in d["rows"] if r["kind"] == "judged"][0]
assert j["verdict"] in ("same", "unclear", "faster", "slower", "noisy")
assert j["lo"] <= j["ratio"] <= j["hi"] and j["rounds"] >= 10, j
assert j["case"].startswith("gather dt=f32"), j["case"]
PY
}
check "json: schema, counts and rows" json_ok
check "json: the link's target untouched" test "$(cat "$tmp/victim.txt")" = victim
check "json: a file now" test ! -L "$tmp/ab.json"
check "markdown: title" grep -q "^### scatterlab ab: 0 slower" "$tmp/ab.md"
check "markdown: the missing row" grep -q "^| missing | cpu.gather2 |" "$tmp/ab.md"
# --csv and --html from the same structure: the JSON's judged row again.
csv_ok() {
  python3 - "$tmp/ab.csv" "$tmp/ab.json" <<'PY'
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
j = [r for r in json.load(open(sys.argv[2]))["rows"] if r["kind"] == "judged"][0]
kinds = sorted((r["kind"], r["variant"]) for r in rows)
assert kinds == [("judged", "cpu.gather"), ("missing", "cpu.gather2")], kinds
c = [r for r in rows if r["kind"] == "judged"][0]
assert c["verdict"] == j["verdict"] and int(c["rounds"]) == j["rounds"], c
assert abs(float(c["ratio"]) / j["ratio"] - 1) < 1e-6, (c["ratio"], j["ratio"])
assert c["case_line"] == j["case"] and float(c["threshold"]) == 0.5, c
m = [r for r in rows if r["kind"] == "missing"][0]
assert m["note"] and m["ratio"] == "", m
PY
}
check "csv: the rows of the JSON, one per pair" csv_ok
check "html: a page with both rows" \
  bash -c "grep -q '<h1>scatterlab ab</h1>' '$tmp/ab.html' && grep -q '<td>cpu.gather2</td>' '$tmp/ab.html' && grep -q '</html>' '$tmp/ab.html'"
# The planted-slowdown knob: 100% more work on the candidate's calls.
ab "$DIR/libsltest_slow0.so" "$tmp/copy_of_slow0.so" --no-db --plant-slowdown 100
check "planted 100%: exit 1" status_is 1
check "planted 100%: estimate near 2" ratio_between 1.4 3.5
"$BIN" ab --base "$tmp" "$CASE" >"$tmp/out" 2>&1
rc=$?
check "build dir without the library: exit 2" status_is 2
check "build dir without the library: named" grep -q "holding libscatterlab_kernels.so.$abi" "$tmp/out"
"$BIN" ab --cand "$DIR/libsltest_slow0.so" "$CASE" >"$tmp/out" 2>&1
rc=$?
check "no --base: exit 2" status_is 2

# --base-ref: the base built from git into the cache, then reused. A tiny
# repository whose target scatterlab_kernels is the unchanged fixture
# stands in for scatterlab's own tree (which takes minutes to build).
SRC_DIR=$(cd "$(dirname "$0")/../.." && pwd)
repo=$tmp/repo
mkdir -p "$repo"
cp "$(dirname "$0")/slow.c" "$SRC_DIR/tests/providers/sltest_gather.h" "$repo/"
cat >"$repo/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.16)
project(abfake C)
add_library(scatterlab_kernels SHARED slow.c)
target_include_directories(scatterlab_kernels PRIVATE $SRC_DIR/core/include)
target_compile_definitions(scatterlab_kernels PRIVATE SLOW_PCT=0)
set_target_properties(scatterlab_kernels PROPERTIES SOVERSION $abi
  LIBRARY_OUTPUT_DIRECTORY \${CMAKE_BINARY_DIR})
CMAKE
git -C "$repo" init -q && git -C "$repo" add . &&
  git -C "$repo" -c user.name=t -c user.email=t@t commit -qm base
export SCATTERLAB_CACHE=$tmp/cache
base_ref() { # base_ref REF: ab in the repository, output in $tmp/out
  (cd "$repo" && "$BIN" ab --base-ref "$1" --cand "$DIR/libsltest_slow0.so" \
    --threads 1 --budget 1 --no-db "$CASE") >"$tmp/out" 2>&1
  rc=$?
}
base_ref HEAD
# 0 or 1: the tiny repository builds its library without this build's
# sanitizer or visibility flags, a real difference in speed.
check "base-ref: exit 0 or 1" test "$rc" -le 1
check "base-ref: built" grep -q "base: building the kernels of" "$tmp/out"
check "base-ref: judged" verdict_in same unclear faster slower noisy
check "base-ref: in the cache" test -f "$(echo "$tmp"/cache/ab/*/build/libscatterlab_kernels.so.$abi)"
base_ref HEAD
check "base-ref again: reused" grep -q "built before" "$tmp/out"
base_ref no-such-ref
check "base-ref unknown: exit 2" status_is 2
check "base-ref unknown: named" grep -q "no-such-ref: expected a commit" "$tmp/out"

echo "$((checks - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
