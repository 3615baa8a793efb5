#!/usr/bin/env bash
# A minimal repro speaks for itself (issue 51): a campaign against a planted
# lost update (tests/buggy: a scatter_reduce that drops an update) reports
# each group with the minimal case's own message, the case at its
# boundary (no extent one smaller still fails), and its tensors inline in
# the FAIL block, --format json and --junit. Before: the message was the
# found-as case's ("at [3,3] ... 6 elements wrong" under an x=1x1 repro),
# halving stopped above the boundary, and no values were shown.
set -u
BIN=$1
SRC=${2:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$SRC/tests/check.sh"
BUG=$(dirname "$BIN")/tests/libsl_buggy.so
[ -f "$BUG" ] || { echo "FAIL: $BUG missing"; exit 1; }
unset GITHUB_ACTIONS GITHUB_STEP_SUMMARY
V=buggy:cpu.lost_update
"$BIN" fuzz --ops scatter_reduce --provider "buggy=$BUG" --variants "$V" \
  --cases 400 --seed 11 --jobs 1 --no-db --no-corpus --format json \
  --junit "$tmp/f.xml" >"$tmp/doc.json" 2>"$tmp/out"
rc=$?
check "fuzz: exit 1 (got $rc)" test "$rc" = 1
check "fuzz: at least one group" grep -q '^FAIL failed buggy:cpu.lost_update' "$tmp/out"

# Each group: its message is what its minimal repro says when run alone;
# no extent of the repro one smaller fails (both checked with `run`); its
# tensors are printed under the block.
python3 - "$BIN" "$BUG" "$V" "$tmp/doc.json" "$tmp/out" <<'PY'
import json, re, subprocess, sys
bin_, bug, variant, doc, text = sys.argv[1:]
groups = json.load(open(doc))["groups"]
out = open(text).read()
bad = 0
def run(line):
    r = subprocess.run([bin_, "run", line, "--variants", variant,
                        "--provider", "buggy=" + bug, "--no-db"],
                       capture_output=True, text=True)
    m = re.search(r"^    (out: .*)$", r.stdout, re.M)
    return r.returncode, (m.group(1) if m else None)
for g in groups:
    line = g["minimal"]
    rc, own = run(line)
    if rc != 1 or own is None or not g["message"].startswith(own):
        print(f"not its own message: {g['message']!r} vs run: {own!r}")
        bad += 1
    # every extent of every tensor one smaller: passes, or is refused
    for m in re.finditer(r"\b(x|index|src)=([0-9x]+)", line):
        dims = m.group(2).split("x")
        for k, e in enumerate(dims):
            if int(e) < 2:
                continue
            smaller = dims[:k] + [str(int(e) - 1)] + dims[k + 1:]
            cand = line[:m.start(2)] + "x".join(smaller) + line[m.end(2):]
            rc2, msg = run(cand)
            if rc2 == 1 and msg and "rejected" not in msg:
                print(f"not at the boundary: {cand} still fails: {msg}")
                bad += 1
    t = g.get("tensors", "")
    if "expected out" not in t or "got (" not in t:
        print(f"no tensors in JSON for {line}: {t!r}")
        bad += 1
print(f"  {len(groups)} groups checked")
if out.count("      got (") < len(groups):
    print("tensors missing under a FAIL block"); bad += 1
sys.exit(1 if bad or not groups else 0)
PY
check "each group: its own message, at its boundary, tensors shown" test $? = 0
check "junit: the tensors in the failure" grep -q "tensors of the minimal case:" "$tmp/f.xml"

# One defect in code two variants share (tests/planted: cpu.past_64 and
# cpu.past_64_twin run one kernel) is one group naming both, its repro
# running both; a defect of another variant with the same symptom (buggy's
# cpu.lost_update: a sum value wrong too, other values) stays its own.
PL=$(dirname "$BIN")/tests/libsl_planted.so
"$BIN" fuzz --ops scatter_reduce --dtypes f32,f64 --provider "planted=$PL" \
  --provider "buggy=$BUG" \
  --variants planted:cpu.past_64,planted:cpu.past_64_twin,$V --cases 3000 \
  --seed 4 --jobs 1 --no-db --no-corpus >"$tmp/out" 2>&1
check "shared code: one group for both variants" \
  test "$(grep -c '^FAIL failed planted:cpu.past_64,planted:cpu.past_64_twin$' "$tmp/out")" = 1
check "shared code: no group of one of them alone" \
  test "$(grep -c '^FAIL failed planted:cpu.past_64\(_twin\)\?$' "$tmp/out")" = 0
check "shared code: the repro runs both" \
  grep -q "variants planted:cpu.past_64,planted:cpu.past_64_twin " "$tmp/out"
check "another variant's defect stays its own group" \
  grep -q "^FAIL failed $V\$" "$tmp/out"
echo "$((checks - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
