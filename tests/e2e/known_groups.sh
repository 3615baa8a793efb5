#!/usr/bin/env bash
# Known and new failure groups (issue 51, item 5): the store remembers each
# group across runs; a campaign (and `run`) reports each of its groups new
# or known (first seen in run N, at commit C) in text, JSON, JUnit, the
# GitHub annotations and step summary, and `report --failures`;
# `--fail-on new` fails only on new groups; a `--known FILE` accepts groups
# on purpose; a malformed file is an error naming its line. Before: every
# group of every run failed it, and nothing told a new defect from a known.
set -u
BIN=$1
SRC=${2:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$SRC/tests/check.sh"
BUG=$(dirname "$BIN")/tests/libsl_buggy.so
[ -f "$BUG" ] || { echo "FAIL: $BUG missing"; exit 1; }
unset CI_NODE_INDEX JOB_COMPLETION_INDEX GTEST_SHARD_INDEX GITHUB_ACTIONS \
  GITHUB_STEP_SUMMARY SCATTERLAB_PROVIDERS SCATTERLAB_CHECK_ARGS
# One planted bug (one group), small campaigns.
FUZZ=(fuzz --ops gather --dtypes f32,f64 --provider "buggy=$BUG"
  --variants buggy:cpu.off_by_one --cases 60 --no-corpus)
DB=(--db "$tmp/k.db")
jget() { # jget FILE EXPR: EXPR over the JSON document d
  python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(eval(sys.argv[2]))' "$@" 2>/dev/null
}

# 1. The first campaign: the group is new, and fails it.
"$BIN" "${FUZZ[@]}" "${DB[@]}" --seed 1 --format json --junit "$tmp/j1.xml" \
  >"$tmp/d1.json" 2>"$tmp/o1"
rc=$?
check "first run: exit 1 (got $rc)" test "$rc" = 1
check "first run: the group is new (text)" grep -q '^    status: new$' "$tmp/o1"
check "first run: ... (json)" test "$(jget "$tmp/d1.json" "[g['status'] for g in d['groups']] == ['new'] and d['new_groups'] == 1 and d['groups'][0]['fails']")" = True
check "first run: ... (junit)" \
  bash -c "grep -q '<failure ' '$tmp/j1.xml' && grep -q '^status: new' '$tmp/j1.xml'"
sig=$(jget "$tmp/d1.json" "d['groups'][0]['signature']")
# JUnit names a test case by the group's defect (its own signature when
# nothing merges it: docs/fuzzing.md, "Defects across ops")
defect=$(jget "$tmp/d1.json" "d['groups'][0]['defect']")
id=$(jget "$tmp/d1.json" "d['groups'][0]['signature_id']")
echo "  group $id: $sig"
commit=$(sqlite3 "$tmp/k.db" 'select git_commit from runs where id = 1' 2>/dev/null)
check "the store remembers it: first run 1, at run 1's commit" \
  test "$(sqlite3 "$tmp/k.db" "select first_run || ' ' || first_commit || ' ' || signature from failure_groups where signature_id = '$id'")" = "1 $commit $sig"

# 2. The second campaign on the same store, another seed: known (run 1);
# it still fails by default.
GITHUB_ACTIONS=true GITHUB_STEP_SUMMARY="$tmp/sum2.md" \
  "$BIN" "${FUZZ[@]}" "${DB[@]}" --seed 2 --format json --junit "$tmp/j2.xml" \
  >"$tmp/d2.json" 2>"$tmp/o2"
rc=$?
check "second run: exit 1 by default (got $rc)" test "$rc" = 1
want="known (first seen in run 1${commit:+, at commit $commit})"
check "second run: known, first seen in run 1 (text)" grep -qF "    status: $want" "$tmp/o2"
check "second run: ... (json)" test "$(jget "$tmp/d2.json" "(d['groups'][0]['status'], d['groups'][0]['first_run'], d['groups'][0]['first_commit'], d['new_groups'])")" = "('known', 1, '$commit', 0)"
check "second run: ... (junit, still a failure)" grep -qF "status: $want" "$tmp/j2.xml"
check "second run: ... (GitHub ::error and step summary)" \
  bash -c "grep -q '^::error title=.*known)::.*%0Astatus: known (first seen in run 1' '$tmp/o2' && grep -qF '| $want |' '$tmp/sum2.md'"
check "second run: the summary counts it" grep -q '^failure groups: 0 new, 1 known; 1 fails the run' "$tmp/o2"

# 3. --fail-on new: a known group does not fail the job.
GITHUB_ACTIONS=true GITHUB_STEP_SUMMARY="$tmp/sum3.md" \
  "$BIN" "${FUZZ[@]}" "${DB[@]}" --seed 3 --fail-on new --junit "$tmp/j3.xml" \
  >"$tmp/o3" 2>&1
rc=$?
check "--fail-on new, a known group: exit 0 (got $rc)" test "$rc" = 0
check "... said so" grep -q 'status: known (first seen in run 1.*; does not fail the run' "$tmp/o3"
check "... a skipped JUnit test case, named by the defect" python3 - "$tmp/j3.xml" "$defect" <<'PY'
import sys, xml.etree.ElementTree as ET
suite = ET.parse(sys.argv[1]).getroot().find("testsuite")
c = [c for c in suite.findall("testcase") if c.get("name") == sys.argv[2]]
sys.exit(0 if len(c) == 1 and c[0].find("skipped") is not None and
         c[0].find("failure") is None and suite.get("failures") == "0" and
         suite.get("skipped") == "1" else 1)
PY
check "... a GitHub notice, not an error" \
  bash -c "grep -q '^::notice title=' '$tmp/o3' && ! grep -q '^::error' '$tmp/o3'"
# A new group under --fail-on new still fails.
"$BIN" "${FUZZ[@]}" --db "$tmp/fresh.db" --seed 3 --fail-on new >"$tmp/o4" 2>&1
rc=$?
check "--fail-on new, a new group: exit 1 (got $rc)" test "$rc" = 1
# run: the same memory, the same rule.
RUN=(run 'gather x=4x3 index=2x3 dim=0' --provider "buggy=$BUG"
  --variants buggy:cpu.off_by_one)
"$BIN" "${RUN[@]}" "${DB[@]}" --fail-on new --format json >"$tmp/d5.json" 2>"$tmp/o5"
rc=$?
check "run --fail-on new, a known group: exit 0 (got $rc)" test "$rc" = 0
check "run: known (json)" test "$(jget "$tmp/d5.json" "(d['groups'][0]['status'], d['groups'][0]['first_run'], d['groups'][0]['fails'])")" = "('known', 1, False)"
"$BIN" "${RUN[@]}" --no-db --fail-on new >"$tmp/o6" 2>&1
rc=$?
check "run --fail-on new without a store: new, exit 1 (got $rc)" test "$rc" = 1

# 4. report --failures: new in run 1, known in run 2.
run 0 report --failures "${DB[@]}" --run 1
check "report --failures --run 1: new" has '^  status: new in run 1$'
check "report --failures --run 1: 1 new" has 'failing cases? \(shrunk copies not counted\); 1 new in run 1$'
run 0 report --failures "${DB[@]}" --run 2
check "report --failures --run 2: known" has "^  status: known \(first seen in run 1"
check "report --failures --run 2: 0 new" has '; 0 new in run 2$'
# Merged shards: the groups their runs met, first seen in the first.
"$BIN" "${FUZZ[@]}" --db "$tmp/s1.db" --seed 4 >/dev/null 2>&1
"$BIN" "${FUZZ[@]}" --db "$tmp/s2.db" --seed 5 >/dev/null 2>&1
"$BIN" merge "$tmp/s1.db" "$tmp/s2.db" -o "$tmp/m.db" >/dev/null 2>&1
check "merge: one group, first seen in run 1, last in run 2" \
  test "$(sqlite3 "$tmp/m.db" "select count(*) || ' ' || first_run || ' ' || last_run from failure_groups")" = "1 1 2"
"$BIN" "${FUZZ[@]}" --db "$tmp/m.db" --seed 6 --fail-on new >/dev/null 2>&1
rc=$?
check "merge: a third campaign on the merged store knows it (exit $rc)" test "$rc" = 0

# 5. --known FILE: accepted on purpose, by signature or id, with comments;
# it never fails the run, even without a store.
printf '# accepted: the off-by-one of issue 99\n\n   %s  \n' "$sig" >"$tmp/known.txt"
"$BIN" "${FUZZ[@]}" --no-db --seed 7 --known "$tmp/known.txt" --format json \
  --junit "$tmp/j7.xml" >"$tmp/d7.json" 2>"$tmp/o7"
rc=$?
check "--known (signature): exit 0 (got $rc)" test "$rc" = 0
check "... known (accepted in FILE:3) (text)" grep -qF "status: known (accepted in $tmp/known.txt:3); does not fail the run" "$tmp/o7"
check "... (json)" test "$(jget "$tmp/d7.json" "(d['groups'][0]['status'], d['groups'][0]['accepted_in'], d['groups'][0]['fails'])")" = "('accepted', '$tmp/known.txt:3', False)"
check "... (junit: skipped)" grep -q '<skipped message="known (accepted in' "$tmp/j7.xml"
printf '# by id\n%s\n' "$id" >"$tmp/known_id.txt"
"$BIN" "${RUN[@]}" --no-db --known "$tmp/known_id.txt" >"$tmp/o8" 2>&1
rc=$?
check "--known (id), run: exit 0 (got $rc)" test "$rc" = 0
printf '# nothing of ours\n0123456789abcdef\n' >"$tmp/other.txt"
"$BIN" "${RUN[@]}" --no-db --known "$tmp/other.txt" >"$tmp/o9" 2>&1
rc=$?
check "--known naming another group: exit 1 (got $rc)" test "$rc" = 1

# 6. A malformed file, a missing one: usage errors naming the file and
# line, before anything runs (also under SCATTERLAB_CHECK_ARGS).
printf '# ok\n%s\nnot a signature at all\n' "$id" >"$tmp/bad.txt"
run 2 "${FUZZ[@]}" --no-db --known "$tmp/bad.txt"
check "malformed --known: exit 2 naming FILE:3" has "--known $tmp/bad.txt:3: expected a failure group's signature id"
check "... nothing ran" hasnt 'cases in [0-9.]* s'
run 2 "${RUN[@]}" --no-db --known "$tmp/bad.txt"
check "malformed --known, run: exit 2 naming FILE:3" has "$tmp/bad.txt:3:"
run 2 "${RUN[@]}" --no-db --known "$tmp/none.txt"
check "missing --known: exit 2 naming it" has "--known $tmp/none.txt"
SCATTERLAB_CHECK_ARGS=1 "$BIN" "${FUZZ[@]}" --known "$tmp/bad.txt" >"$tmp/out" 2>&1
rc=$?
check "SCATTERLAB_CHECK_ARGS: a malformed --known exits 2 (got $rc)" test "$rc" = 2
run 2 "${RUN[@]}" --no-db --fail-on some
check "--fail-on: a bad value named" has '--fail-on: expected any.* or new'
echo "$((checks - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
