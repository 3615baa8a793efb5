#!/usr/bin/env bash
# Defects across ops (docs/fuzzing.md, "Defects across ops"; issue 51): a
# helper that two ops share fails in both, one group per op, each with its
# own minimal repro, and the groups are one defect: the relation of the
# outputs to the right ones (LibTorch's answer under amax) says it is one
# code path. tests/planted plants two such helpers, both in amin of
# scatter_reduce and index_reduce: cpu.amin_as_amax (amin answers as amax)
# and cpu.self_kept (amin's include_self=0 starts from x). Two defects, not
# four groups counted as four, and not one: they share the ops, the reduce
# and "a value wrong", and still stay apart. Every output counts defects
# first: the summary, DEFECT lines, JSON, JUnit (one test case per defect,
# the same names under another seed) and the GitHub annotations.
set -u
BIN=$1
SRC=${2:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$SRC/tests/check.sh"
PL=$(dirname "$BIN")/tests/libsl_planted.so
[ -f "$PL" ] || { echo "FAIL: $PL missing"; exit 1; }
unset CI_NODE_INDEX JOB_COMPLETION_INDEX GTEST_SHARD_INDEX GITHUB_ACTIONS \
  GITHUB_STEP_SUMMARY
fuzz() { # fuzz SEED NAME: the campaign, its JSON in NAME.json
  GITHUB_ACTIONS=true GITHUB_STEP_SUMMARY="$tmp/$2.md" "$BIN" fuzz \
    --ops scatter_reduce,index_reduce --reduces amin --dtypes f32,f64 \
    --provider "planted=$PL" \
    --variants planted:cpu.amin_as_amax,planted:cpu.self_kept --cases 300 \
    --seed "$1" --jobs 1 --no-db --no-corpus --junit "$tmp/$2.xml" \
    --format json >"$tmp/$2.json" 2>"$tmp/$2.out"
}
fuzz 5 a
check "fuzz: exit 1 (got $?)" test $? = 1

python3 - "$tmp/a.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
g = d["groups"]
bad = 0
def defects_of(variant):
    mine = [x for x in g if x["variant"].split(",")[0] == variant]
    ids = {x["defect_id"] for x in mine}
    ops = {x["signature"].split()[0] for x in mine}
    return ids, ops, mine
amin, amin_ops, a = defects_of("planted:cpu.amin_as_amax")
self_, self_ops, s = defects_of("planted:cpu.self_kept")
print(f"  {len(g)} groups, {d['defects']} defects; amin_as_amax {len(a)} "
      f"groups in {sorted(amin_ops)}, self_kept {len(s)} in {sorted(self_ops)}")
for name, ids, ops, mine, rel in (("amin_as_amax", amin, amin_ops, a, "= reduce=amax"),
                                  ("self_kept", self_, self_ops, s, "= include_self=1")):
    if len(ids) != 1 or ops != {"scatter_reduce", "index_reduce"}:
        print(f"{name}: expected one defect over both ops, got {len(ids)} "
              f"over {sorted(ops)}: {[x['defect'] for x in mine]}"); bad += 1
    if not all(x["defect"].endswith(rel) for x in mine):
        print(f"{name}: a defect without its relation {rel!r}: "
              f"{[x['defect'] for x in mine]}"); bad += 1
    if len({x["minimal"] for x in mine}) != len(mine):
        print(f"{name}: each op's group keeps its own minimal repro"); bad += 1
if amin & self_:
    print("two defects merged (same ops, reduce and kind)"); bad += 1
if d["defects"] != len({x["defect_id"] for x in g}) or d["defects"] >= len(g):
    print(f"defects {d['defects']}: not the distinct defect ids, or not "
          f"fewer than the groups ({len(g)})"); bad += 1
# the groups come defect by defect
seen, last = set(), None
for x in g:
    if x["defect_id"] != last and x["defect_id"] in seen:
        print("a defect's groups not together"); bad += 1
    seen.add(x["defect_id"]); last = x["defect_id"]
sys.exit(1 if bad else 0)
PY
check "json: one defect per planted helper, over both ops, apart" test $? = 0

defects=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["defects"])' "$tmp/a.json")
groups=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["failure_groups"])' "$tmp/a.json")
check "summary: defects, then groups and cases" \
  grep -qE "cases/s\), $defects defects? in $groups failure groups? \([0-9]+ failing cases\)" "$tmp/a.out"
check "text: one DEFECT line per defect" test "$(grep -c '^DEFECT ' "$tmp/a.out")" = "$defects"
check "text: a DEFECT line names both ops" \
  grep -qE '^DEFECT [0-9a-f]{16}: (scatter_reduce, index_reduce|index_reduce, scatter_reduce); 2 groups' "$tmp/a.out"
check "text: one FAIL block per group" test "$(grep -c '^FAIL ' "$tmp/a.out")" = "$groups"
check "github: one ::error per defect" test "$(grep -c '^::error title=' "$tmp/a.out")" = "$defects"
check "github: the summary counts defects first" \
  grep -q ", $defects defects\? (.* new) in $groups failure groups" "$tmp/a.md"

junit_names() { # the failing test cases' names, sorted
  python3 - "$1" <<'PY'
import sys, xml.etree.ElementTree as ET
s = ET.parse(sys.argv[1]).getroot().find("testsuite")
print(s.get("tests"), s.get("failures"))
for t in sorted(c.get("name") for c in s.findall("testcase")
                if c.find("failure") is not None):
    print(t)
PY
}
junit_names "$tmp/a.xml" >"$tmp/a.names"
check "junit: tests = defects + 1, failures = defects" \
  test "$(head -1 "$tmp/a.names")" = "$((defects + 1)) $defects"
check "junit: a defect's test case holds each op's repro" \
  test "$(grep -c "^repro: scatterlab run &apos;\(index\|scatter\)_reduce " "$tmp/a.xml")" = "$groups"
# Another seed: other cases, other minimal repros, the same defects.
fuzz 11 b
junit_names "$tmp/b.xml" >"$tmp/b.names"
check "junit: the same test case names under another seed" \
  diff "$tmp/a.names" "$tmp/b.names"
echo "$((checks - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
