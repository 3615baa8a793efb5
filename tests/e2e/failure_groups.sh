#!/usr/bin/env bash
# Failure triage (docs/fuzzing.md, "Failure groups"): a campaign against two planted
# bugs (tests/buggy) groups its failing cases by signature. One count of
# groups is shared by the text summary, the FAIL blocks, --format json,
# --junit, the corpus (one entry per group, across jobs), the store's
# `report --failures` (shrunk copies not counted) and, under GitHub
# Actions, the ::error lines and the step summary. Before the groups, the
# campaign printed one FAIL block and one corpus entry per failing case.
set -u
BIN=$1
SRC=${2:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$SRC/tests/check.sh"
BUG=$(dirname "$BIN")/tests/libsl_buggy.so
[ -f "$BUG" ] || { echo "FAIL: $BUG missing"; exit 1; }
unset CI_NODE_INDEX JOB_COMPLETION_INDEX GTEST_SHARD_INDEX GITHUB_ACTIONS \
  GITHUB_STEP_SUMMARY
VARIANTS='buggy:cpu.off_by_one,buggy:cpu.lost_update'
FUZZ=(fuzz --ops gather,scatter_reduce --provider "buggy=$BUG"
  --variants "$VARIANTS" --cases 160 --seed 7 --jobs 2
  --corpus "$tmp/corpus" --db "$tmp/f.db" --junit "$tmp/fuzz.xml")
echo "# table: $tmp/sum.md" >"$tmp/sum.md"
GITHUB_ACTIONS=true GITHUB_STEP_SUMMARY="$tmp/sum.md" \
  "$BIN" "${FUZZ[@]}" --format json >"$tmp/doc.json" 2>"$tmp/out"
rc=$?
check "fuzz: exit 1 (got $rc)" test "$rc" = 1
# The summary line: "N cases in S s (...), D defects in G failure groups (C
# failing cases)" (defects: groups of several ops with one cause, defects.sh)
summary='.*), \([0-9]*\) defects\? in \([0-9]*\) failure groups\? (\([0-9]*\) failing cases\?).*'
defects=$(sed -n "s/$summary/\1/p" "$tmp/out")
groups=$(sed -n "s/$summary/\2/p" "$tmp/out")
cases=$(sed -n "s/$summary/\3/p" "$tmp/out")
echo "  $defects defects, $groups groups of $cases failing cases"
check "summary names the defects, the groups and the cases" \
  test -n "$defects" -a -n "$groups" -a -n "$cases"
defects=${defects:-0} groups=${groups:-0} cases=${cases:-0}
# The off-by-one is met in every dtype and rank: one group for the defect
# (an element never written), not one per case, dtype or rank (before the
# groups: as many FAIL blocks as cases; before issue 51: one group per
# dtype kind and shape class).
check "groups: at least one, at most a third of the cases ($groups, $cases)" \
  test "$groups" -ge 1 -a $((groups * 3)) -le "$cases"
check "one FAIL block per group" test "$(grep -c '^FAIL ' "$tmp/out")" = "$groups"
check "one corpus entry per group" test "$(ls "$tmp"/corpus/*.txt | wc -l)" = "$groups"
check "no temporary corpus file left" test -z "$(ls "$tmp"/corpus | grep '\.new\.')"

jtrue() {
  python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if eval(sys.argv[2]) else 1)' "$tmp/doc.json" "$1" ||
    { echo "  false: $1"; return 1; }
}
check "json: defects, failure_groups, groups and failing agree with the text" \
  jtrue "d['defects'] == len({g['defect_id'] for g in d['groups']}) == $defects and d['failure_groups'] == len(d['groups']) == $groups and d['failing'] == $cases == sum(g['cases'] for g in d['groups'])"
check "json: each group has its signature and repro" \
  jtrue "all(len(g['signature_id']) == 16 and g['repro'].startswith(\"scatterlab run '\") and g['verdict'] == 'failed' for g in d['groups'])"

# JUnit: one failing test case per defect, one passing.
junit() {
  python3 - "$tmp/fuzz.xml" "$defects" <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
g = int(sys.argv[2])
suite = root.find("testsuite")
cases = suite.findall("testcase")
failed = [c for c in cases if c.find("failure") is not None]
ok = (int(suite.get("tests")) == g + 1 == len(cases) and
      int(suite.get("failures")) == g == len(failed) and
      int(root.get("failures")) == g and
      all("repro: scatterlab run '" in c.find("failure").text and
          "minimal case: " in c.find("failure").text for c in failed))
if not ok:
    print(open(sys.argv[1]).read()[:3000])
sys.exit(0 if ok else 1)
PY
}
check "junit: tests = defects + 1, failures = defects, repro in each" junit

# GitHub Actions: one ::error per defect (one line each, escaped; each
# group's repro in it), and the table appended after what the file held.
check "github: one ::error line per defect" test "$(grep -c '^::error title=scatterlab fuzz%3A failed buggy%3Acpu\.' "$tmp/out")" = "$defects"
check "github: the message's newlines escaped" test "$(grep '^::error' "$tmp/out" | grep -o '%0Arepro: scatterlab run ' | wc -l)" = "$groups"
check "github: the summary was appended to" test "$(head -1 "$tmp/sum.md")" = "# table: $tmp/sum.md"
check "github: the summary names the defects and groups" grep -q " $defects defects\? (.*) in $groups failure group" "$tmp/sum.md"
check "github: one table row per group" test "$(grep -c "^| [0-9a-f]* | failed | buggy:cpu\." "$tmp/sum.md")" = "$groups"
# A symbolic link at $GITHUB_STEP_SUMMARY is not followed.
echo keep >"$tmp/target"
ln -s "$tmp/target" "$tmp/link.md"
GITHUB_ACTIONS=true GITHUB_STEP_SUMMARY="$tmp/link.md" "$BIN" run \
  'gather x=4x3 index=2x3 dim=0' --provider "buggy=$BUG" \
  --variants buggy:cpu.off_by_one --no-db >"$tmp/out" 2>&1
check "github: a symlinked summary is refused, its target untouched" \
  test "$(cat "$tmp/target")" = keep
check "github: ... and the refusal named" grep -q "GITHUB_STEP_SUMMARY $tmp/link.md" "$tmp/out"

# The store: report --failures lists the same groups; the shrunk copies
# count neither as cases nor as failing verdicts.
run 0 report --failures --db "$tmp/f.db"
check "report --failures: $defects defects, $groups groups, $cases cases" has "^$defects defects? in $groups failure groups?, $cases failing cases"
check "report --failures: a defect line per defect" test "$(grep -c '^defect [0-9]*: ' "$tmp/out")" = "$defects"
check "report --failures: a minimal repro per group" test "$(grep -c "^  minimal repro: scatterlab run '.*' --variants buggy:cpu\..* --provider buggy=" "$tmp/out")" = "$groups"
check "report --failures: first and last seen" has "first seen run 1 \(20[0-9-]*T.*\), last seen run 1"
# Shards merge: the signatures travel with the results.
"$BIN" merge "$tmp/f.db" -o "$tmp/m.db" >/dev/null 2>&1
run 0 report --failures --db "$tmp/m.db"
check "report --failures of a merged store: the same defects and groups" has "^$defects defects? in $groups failure groups?, $cases failing cases"
run 0 report --format csv --table tallies --db "$tmp/f.db"
tallied=$(awk -F, '$5 == "failed" { n += $6 } END { print n + 0 }' "$tmp/out")
check "tallies: $tallied failed verdicts = $cases failing cases (no shrunk copies)" test "$tallied" = "$cases"
run 2 report --failures --format csv --db "$tmp/f.db"
check "report --failures --format csv: usage error" has "--failures: expected --format text"

# A second campaign into the same corpus adds no entry for a known group.
before=$(ls "$tmp"/corpus/*.txt | wc -l)
"$BIN" fuzz --ops gather --provider "buggy=$BUG" --variants buggy:cpu.off_by_one \
  --cases 60 --seed 8 --corpus "$tmp/corpus" --no-db >"$tmp/out" 2>&1
g2=$(sed -n 's/.* defects\? in \([0-9]*\) failure groups\? (.*/\1/p' "$tmp/out")
after=$(ls "$tmp"/corpus/*.txt | wc -l)
check "a known group adds no corpus entry ($before -> $after, $g2 groups)" \
  test "$after" -le $((before + ${g2:-0})) -a "$after" -lt $((before + $(grep -c '^FAIL ' "$tmp/out") + 1))

# The corpus replay is a campaign's first cases: its failures join the
# groups (text, JSON, JUnit) and the store, not a separate tally. --cases 0
# replays the corpus only.
nent=$(ls "$tmp"/corpus/*.txt | wc -l)
GITHUB_ACTIONS=true GITHUB_STEP_SUMMARY="$tmp/sum2.md" \
  "$BIN" fuzz --ops gather,scatter_reduce --provider "buggy=$BUG" \
  --variants "$VARIANTS" --cases 0 --corpus "$tmp/corpus" --db "$tmp/r.db" \
  --junit "$tmp/replay.xml" --format json >"$tmp/doc.json" 2>"$tmp/out"
rc=$?
check "replay: exit 1 (got $rc)" test "$rc" = 1
check "replay: json counts the $nent entries as failing and grouped" \
  jtrue "d['corpus_replayed'] == d['corpus_failures'] == d['failing'] == $nent and d['failure_groups'] == len(d['groups']) >= 1 and sum(g['cases'] for g in d['groups']) == $nent"
rgroups=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["failure_groups"])' "$tmp/doc.json" 2>/dev/null)
check "replay: one ::error line per group (each its own defect)" test "$(grep -c '^::error title=scatterlab fuzz' "$tmp/out")" = "${rgroups:-x}"
# The corpus replay runs no confirming run: its groups are their own defects.
groups=${rgroups:-0} defects=${rgroups:-0}
cp "$tmp/replay.xml" "$tmp/fuzz.xml"
check "replay: junit has a failing test case per group" junit
run 0 report --failures --db "$tmp/r.db"
check "replay: the store's groups are the same ($groups groups, $nent cases)" \
  has "^$groups defects? in $groups failure groups?, $nent failing cases?"
"$BIN" fuzz --ops gather,scatter_reduce --provider "buggy=$BUG" \
  --variants "$VARIANTS" --cases 0 --corpus "$tmp/corpus" --no-db >"$tmp/out" 2>&1
check "replay: the text summary counts them" \
  grep -q "), $groups defects\? in $groups failure groups\? ($nent failing cases\?), $nent of them replayed from the corpus" "$tmp/out"

# run: the same outputs for the cases it is given.
"$BIN" run 'gather x=4x3 index=2x3 dim=0' 'gather x=5x4 index=3x4 dim=0' \
  --provider "buggy=$BUG" --variants buggy:cpu.off_by_one,cpu.serial \
  --no-db --junit "$tmp/run.xml" >"$tmp/out" 2>&1
check "run: exit 1 with the groups" grep -q "^1 defect in 1 failure group (2 failing verdicts)" "$tmp/out"
groups=1 defects=1
cp "$tmp/run.xml" "$tmp/fuzz.xml"
check "run --junit: 2 cases failing alike are one group" junit
run 2 run 'gather x=4x3 index=2x3 dim=0' --junit
check "run --junit without FILE: usage error" has "--junit"
echo "$((checks - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
