#!/usr/bin/env bash
# examples/ci/ (issue 29): the GitHub Actions workflow and the GitLab CI
# file parse as YAML, have the jobs they promise (a sharded fuzz matrix, a
# merged report, the gate), and every scatterlab command in them takes the
# options it is given (SCATTERLAB_CHECK_ARGS=1: parsed, not run). A copy
# with one option misspelt must fail the same check, so the check can fail.
set -u
BIN=$1
SRC=${2:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$SRC/tests/check.sh"
GH=$SRC/examples/ci/github-actions.yml
GL=$SRC/examples/ci/gitlab-ci.yml

# The parse-only switch itself: a bad option is 2, a good run line 0 and
# runs nothing (no verdict printed, no store made).
check "SCATTERLAB_CHECK_ARGS: a bad option exits 2" \
  bash -c "SCATTERLAB_CHECK_ARGS=1 '$BIN' fuzz --no-such-option >/dev/null 2>&1; [ \$? = 2 ]"
(cd "$tmp" && SCATTERLAB_CHECK_ARGS=1 "$BIN" run 'gather x=4x3 index=2x3 dim=0' >"$tmp/out" 2>&1)
check "SCATTERLAB_CHECK_ARGS: a good run line exits 0" [ $? = 0 ]
check "... and runs nothing" hasnt 'passed|verdicts'
check "... nor makes a store" [ -z "$(find "$tmp" -name '*.db')" ]

# validate FILE: structure, then each scatterlab command parsed by $BIN.
validate() {
  BIN=$BIN python3 - "$1" <<'PY'
import os, re, shlex, subprocess, sys, yaml
path = sys.argv[1]
doc = yaml.safe_load(open(path))
gh = "jobs" in doc
if gh:
    jobs = doc["jobs"]
    assert {"fuzz", "report", "gate"} <= set(jobs), sorted(jobs)
    assert jobs["fuzz"]["strategy"]["matrix"]["shard"] == [1, 2, 3, 4]
    assert jobs["report"]["needs"] == "fuzz"
else:
    assert doc["fuzz"]["parallel"] == 4, doc["fuzz"]
    assert doc["stages"] == ["fuzz", "report", "gate"], doc["stages"]
texts = []
def walk(v):
    if isinstance(v, str): texts.append(v)
    elif isinstance(v, dict): [walk(x) for x in v.values()]
    elif isinstance(v, list): [walk(x) for x in v]
walk(doc)
# CI variables stand for what the CI system puts there.
subs = {r"\$\{\{\s*matrix\.shard\s*\}\}": "1", r"\$CI_NODE_INDEX": "1",
        r"\$CI_DEFAULT_BRANCH": "main", r"\$GITHUB_STEP_SUMMARY": "/dev/null"}
cmds = []
for t in texts:
    for line in t.replace(">-\n", " ").splitlines():
        if "build/scatterlab" not in line: continue
        for k, v in subs.items(): line = re.sub(k, v, line)
        words = shlex.split(line[line.index("build/scatterlab"):])
        for i, w in enumerate(words):  # up to a redirection or an operator
            if w in (">", ">>", "|", ";", "&&", "||"): words = words[:i]; break
        cmds.append(words[1:])
assert len(cmds) >= 5, f"{path}: found only {len(cmds)} scatterlab commands"
env = dict(os.environ, SCATTERLAB_CHECK_ARGS="1")
bad = 0
for args in cmds:
    r = subprocess.run([os.environ["BIN"]] + args, env=env, capture_output=True, text=True)
    if r.returncode != 0:
        bad += 1
        print(f"{path}: scatterlab {' '.join(args)}: exit {r.returncode}: {r.stderr.strip()[:300]}")
print(f"{path}: {len(cmds)} commands, {bad} refused")
sys.exit(1 if bad else 0)
PY
}
check "github-actions.yml: jobs and every command" validate "$GH"
check "gitlab-ci.yml: jobs and every command" validate "$GL"
# A misspelt option in a copy: the same check must fail.
sed 's/--seconds 300/--second 300/' "$GH" >"$tmp/bad.yml"
validate "$tmp/bad.yml" >"$tmp/bad.out" 2>&1
rc=$?
check "a misspelt option (--second) fails the check (exit $rc)" [ $rc -ne 0 ]
check "... naming the option" grep -q -- "--second" "$tmp/bad.out"

echo "$((checks - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
