#!/usr/bin/env bash
# Stable and portable triage (issue 51, item 4): JUnit test cases named by
# the failure signatures alone (the same in two campaigns of different
# seeds, from two folders, with the provider at two paths), a passing test
# case of a fixed name, repro lines that name a provider so that they paste
# elsewhere (its prefix alone when SCATTERLAB_PROVIDERS found it, else a path
# relative to the working folder), and a pasted repro that writes no store.
# Before: the passing test case was named after the run's counts, repros
# carried the provider's absolute path, and `run 'LINE'` created
# out/scatterlab.db in the working folder.
set -u
BIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") # used from other folders
SRC=${2:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$SRC/tests/check.sh"
BUG=$(dirname "$BIN")/tests/libsl_buggy.so
[ -f "$BUG" ] || { echo "FAIL: $BUG missing"; exit 1; }
unset CI_NODE_INDEX JOB_COMPLETION_INDEX GTEST_SHARD_INDEX GITHUB_ACTIONS \
  GITHUB_STEP_SUMMARY SCATTERLAB_PROVIDERS
# Two "machines": the provider at two paths, each campaign in a folder of
# its own; the first names it by --provider, the second through the
# environment.
mkdir -p "$tmp/one/work" "$tmp/one/lib" "$tmp/two/work" "$tmp/two/lib"
cp "$BUG" "$tmp/one/lib/libsl_buggy.so"
cp "$BUG" "$tmp/two/lib/libsl_buggy.so"
# One planted bug, in dtypes where it is one kind of wrongness.
FUZZ=(fuzz --ops gather --dtypes f32,f64 --variants buggy:cpu.off_by_one
  --cases 120 --no-corpus)
(cd "$tmp/one/work" && GITHUB_ACTIONS=true GITHUB_STEP_SUMMARY="$tmp/sum1.md" \
  "$BIN" "${FUZZ[@]}" --provider buggy=../lib/libsl_buggy.so --seed 1 \
  --db f.db --junit j.xml --format json >doc.json 2>log)
rc1=$?
(cd "$tmp/two/work" && SCATTERLAB_PROVIDERS="$tmp/two/lib/libsl_buggy.so" \
  "$BIN" "${FUZZ[@]}" --seed 2 --db f.db --junit j.xml \
  --format json >doc.json 2>log)
rc2=$?
check "campaigns: exit 1 (got $rc1, $rc2)" test "$rc1" = 1 -a "$rc2" = 1

names() { # the JUnit file's test case names, one a line, sorted
  python3 - "$1" <<'PY'
import sys, xml.etree.ElementTree as ET
suite = ET.parse(sys.argv[1]).getroot().find("testsuite")
for c in sorted(suite.findall("testcase"), key=lambda c: c.get("name")):
    print(("F " if c.find("failure") is not None else "P ") + c.get("name"))
PY
}
names "$tmp/one/work/j.xml" >"$tmp/n1"
names "$tmp/two/work/j.xml" >"$tmp/n2"
echo "  test cases of the first campaign:"
sed 's/^/    /' "$tmp/n1"
check "junit: one failing test case for the one bug" test "$(grep -c '^F ' "$tmp/n1")" = 1
check "junit: the same names in both campaigns (seeds 1 and 2, two paths)" \
  cmp -s "$tmp/n1" "$tmp/n2"
check "junit: the passing test case has a fixed name" \
  grep -qx 'P cases without failures' "$tmp/n1"
check "junit: no path, seed or count in a name" \
  bash -c "! grep -E '/|seed|[0-9]+ cases' '$tmp/n1'"
check "junit: the counts are the suite's properties" \
  grep -q '<property name="failing_cases" value="[1-9][0-9]*"/>' "$tmp/one/work/j.xml"

# Repros: a path relative to the working folder (--provider), the prefix
# alone (SCATTERLAB_PROVIDERS); never the absolute path.
repro1=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["groups"][0]["repro"])' "$tmp/one/work/doc.json")
repro2=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["groups"][0]["repro"])' "$tmp/two/work/doc.json")
echo "  repros: $repro1"
echo "          $repro2"
case "$repro1" in
*" --variants buggy:cpu.off_by_one --provider buggy=../lib/libsl_buggy.so") ok1=1 ;;
*) ok1=0 ;;
esac
check "repro (--provider): a path relative to the working folder" test "$ok1" = 1
case "$repro2" in
*"' --variants buggy:cpu.off_by_one") ok2=1 ;;
*) ok2=0 ;;
esac
check "repro (SCATTERLAB_PROVIDERS): the prefix alone" test "$ok2" = 1
check "no absolute path of the provider in any output" \
  bash -c "! grep -rl '$tmp/[a-z]*/lib' '$tmp/one/work/log' '$tmp/one/work/doc.json' \
    '$tmp/one/work/j.xml' '$tmp/sum1.md' '$tmp/two/work/log' '$tmp/two/work/doc.json' \
    '$tmp/two/work/j.xml'"
check "text and GitHub annotations carry the relative repro" \
  test "$(grep -c -- '--provider buggy=../lib/libsl_buggy.so' "$tmp/one/work/log")" -ge 2

# The store's repros (report --failures, HTML): the same rules, from the
# report's working folder.
(cd "$tmp/one/work" && "$BIN" report --failures --db f.db >"$tmp/r1" 2>&1)
(cd "$tmp/two/work" && "$BIN" report --failures --db f.db >"$tmp/r2" 2>&1)
check "report --failures: relative path" \
  grep -q "minimal repro: scatterlab run '.*' --variants buggy:cpu.off_by_one --provider buggy=../lib/libsl_buggy.so$" "$tmp/r1"
check "report --failures: the prefix alone for SCATTERLAB_PROVIDERS" \
  grep -q "minimal repro: scatterlab run '.*' --variants buggy:cpu.off_by_one$" "$tmp/r2"
(cd "$tmp/one/work" && "$BIN" report --format html --db f.db -o r.html >/dev/null 2>&1)
# (The page's run details still name the library's absolute path and
# hash: they say what ran, not how to run it again.)
check "report --format html: the repro's relative path" \
  grep -q "variants buggy:cpu.off_by_one --provider buggy=../lib/libsl_buggy.so" "$tmp/one/work/r.html"

# A pasted repro runs where it was pasted and writes no store there.
cmd1=${repro1#scatterlab }
(cd "$tmp/one/work" && eval "\"\$BIN\" $cmd1" >"$tmp/p1" 2>&1)
rc=$?
check "pasted repro (--provider): exit 1 (got $rc)" test "$rc" = 1
check "... and no store written" test ! -e "$tmp/one/work/out"
check "... and it says so" grep -q "results: not recorded" "$tmp/p1"
cmd2=${repro2#scatterlab }
(cd "$tmp/two/work" && SCATTERLAB_PROVIDERS="$tmp/two/lib/libsl_buggy.so" \
  eval "\"\$BIN\" $cmd2" >"$tmp/p2" 2>&1)
rc=$?
check "pasted repro (SCATTERLAB_PROVIDERS): exit 1 (got $rc)" test "$rc" = 1
check "... and no store written" test ! -e "$tmp/two/work/out"
# Asked for, it is written; a batch still lands in the default store.
(cd "$tmp/one/work" && eval "\"\$BIN\" $cmd1 --db asked.db" >/dev/null 2>&1)
check "run 'LINE' --db PATH: written" test -s "$tmp/one/work/asked.db"
echo 'gather x=4x3 index=2x3 dim=0 seed=1' >"$tmp/b.txt"
(cd "$tmp/one/work" && "$BIN" run --batch "$tmp/b.txt" --variants cpu.serial >/dev/null 2>&1)
check "run --batch: the default store" test -s "$tmp/one/work/out/scatterlab.db"

# A library that shares no folder with the working folder: its absolute
# path, and the repro says so.
top=$(cd "$SRC" && pwd -P)
if [ "${top#/tmp/}" = "$top" ] && [ "${top%%/*}" = "" ]; then
  (cd "$SRC" && "$BIN" run 'gather x=4x3 index=2x3 dim=0' \
    --provider "buggy=$tmp/one/lib/libsl_buggy.so" \
    --variants buggy:cpu.off_by_one >"$tmp/p3" 2>&1)
  check "no folder in common: the absolute path, said so" \
    grep -q "repro: .* --provider buggy=$tmp/one/lib/libsl_buggy.so  # an absolute path" "$tmp/p3"
fi
echo "$((checks - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
