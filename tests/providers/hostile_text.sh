#!/usr/bin/env bash
# A provider's words cannot break a writer or command a CI runner (issue 48,
# points 7 and 8): libsltest_hostile_text.so (hostile_text.c) refuses every call with
# a message cut inside a UTF-8 character by the harness's buffer, one with
# invalid bytes, one that injects GitHub workflow commands and a GitLab
# section after a newline, and has a version string that does the same.
# run, fuzz, report --failures and list must write valid UTF-8 JSON and XML
# and no line that a CI runner reads as a command, except scatterlab's own
# "::error title=scatterlab ..." annotations.
#
# The smaller items of the same issue that need a provider close it: a
# variant that met no case it supports, and --resume after a rebuild.
#
# usage: hostile_text.sh SCATTERLAB FIXTURE_DIR
set -u
BIN=$1
LIB=$2/libsltest_hostile_text.so
. "$(dirname "$0")/../check.sh"
[ -f "$LIB" ] || { echo "FAIL: fixture $LIB not built"; exit 1; }
CASE='gather dt=f32 it=i64 x=4x3 index=2x3 dim=0 seed=1'
WORDS='hostile:cpu.long_utf8,hostile:cpu.bad_bytes,hostile:cpu.inject'

# json_ok FILE: strict UTF-8, then one JSON document.
json_ok() {
  python3 -c 'import json, sys
json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))' "$1" 2>"$tmp/why" && return
  echo "  $1 is no valid UTF-8 JSON: $(tail -1 "$tmp/why")"
  return 1
}
xml_ok() { # xml_ok FILE: well-formed XML in UTF-8
  python3 -c 'import sys, xml.etree.ElementTree as E
E.parse(sys.argv[1])' "$1" 2>"$tmp/why" && return
  echo "  $1 is no well-formed XML: $(tail -1 "$tmp/why")"
  return 1
}
# no_ci_commands FILE: no line that GitHub (a line starting, after blanks,
# with "::" or "##[") or GitLab ("section_start:", "section_end:", a raw
# CR or ESC) reads as a command, but scatterlab's own annotations.
no_ci_commands() {
  local bad
  bad=$(grep -naE '^[[:space:]]*(::|##\[)|section_(start|end):|'$'\r''|'$'\x1b' "$1" |
    grep -vE '^[0-9]+:::error title=scatterlab ')
  [ -z "$bad" ] && return
  echo "  $1 has lines a CI runner reads as commands:"
  printf '%s\n' "$bad" | head -8 | sed 's/^/  | /'
  return 1
}
has_text() { # has_text FILE TEXT: the neutralized words are still shown
  grep -qF -- "$2" "$1" && return
  echo "  $1 lacks '$2'"
  return 1
}

# 1. run, text and annotations (as in a GitHub Actions job): the message is
#    shown with its CI commands broken, on stdout and stderr alike.
GITHUB_ACTIONS=true "$BIN" run --no-db --provider "$LIB" --variants "$WORDS" \
  --junit "$tmp/run.xml" "$CASE" >"$tmp/run.out" 2>"$tmp/run.err"
rc=$?
check "run: exit 1, the refusals are reject_mismatch (got $rc)" [ $rc -eq 1 ]
check "run: stdout carries no CI command" no_ci_commands "$tmp/run.out"
check "run: stderr carries no CI command" no_ci_commands "$tmp/run.err"
check "run: scatterlab's own annotation is there" \
  grep -q '^::error title=scatterlab run' "$tmp/run.out"
check "run: the injected line is shown, broken" \
  has_text "$tmp/run.out" '\::stop-commands::sltest-pwned'
check "run: JUnit XML well-formed" xml_ok "$tmp/run.xml"

# 2. run --format json: the message cut inside "€" and the raw bytes.
"$BIN" run --no-db --provider "$LIB" --variants "$WORDS" --format json \
  "$CASE" >"$tmp/run.json" 2>/dev/null
check "run --format json: valid UTF-8 JSON" json_ok "$tmp/run.json"
R=$(printf '\xef\xbf\xbd') # U+FFFD
check "run --format json: invalid bytes as U+FFFD" \
  has_text "$tmp/run.json" "raw bytes $R$R and $R$R here"

# 3. fuzz into a store, then report --failures from it. fuzz prints the
#    first failing variant of a case only: the injection alone here.
"$BIN" fuzz --db "$tmp/f.db" --provider "$LIB" --variants hostile:cpu.inject \
  --ops gather --cases 30 --jobs 1 --no-corpus --junit "$tmp/fuzz.xml" \
  >"$tmp/fuzz.out" 2>"$tmp/fuzz.err"
rc=$?
check "fuzz: exit 1 (got $rc)" [ $rc -eq 1 ]
check "fuzz: stdout carries no CI command" no_ci_commands "$tmp/fuzz.out"
check "fuzz: stderr carries no CI command" no_ci_commands "$tmp/fuzz.err"
check "fuzz: the injected message is shown, broken" \
  has_text "$tmp/fuzz.out" 'refused \::stop-commands::sltest-pwned'
check "fuzz: JUnit XML well-formed" xml_ok "$tmp/fuzz.xml"
"$BIN" report --db "$tmp/f.db" --failures >"$tmp/rep.out" 2>&1
check "report --failures: no CI command" no_ci_commands "$tmp/rep.out"
check "report --failures: the injected group is listed" \
  has_text "$tmp/rep.out" 'hostile:cpu.inject'
"$BIN" fuzz --no-db --provider "$LIB" --variants "$WORDS" --ops gather \
  --cases 10 --jobs 1 --no-corpus --format json >"$tmp/fuzz.json" 2>/dev/null
check "fuzz --format json: valid UTF-8 JSON" json_ok "$tmp/fuzz.json"

# 4. list: the version string's commands broken, in text and JSON.
"$BIN" list --provider "$LIB" >"$tmp/list.out" 2>&1
check "list: no CI command" no_ci_commands "$tmp/list.out"
check "list: the version is shown" has_text "$tmp/list.out" 'version 1.0'
"$BIN" list --provider "$LIB" --format json >"$tmp/list.json" 2>/dev/null
check "list --format json: valid UTF-8 JSON" json_ok "$tmp/list.json"

# 5. Smaller items of issue 48. A campaign in which a selected variant met
#    no case it supports (cpu.f16_only over f32 cases): said, exit 2 (it
#    exited 0 without a word).
"$BIN" fuzz --no-db --provider "$LIB" --variants hostile:cpu.f16_only,cpu.serial \
  --dtypes f32 --ops gather --cases 40 --no-corpus >"$tmp/un.out" 2>"$tmp/un.err"
rc=$?
check "nothing supported: exit 2 (got $rc)" [ $rc -eq 2 ]
check "nothing supported: names the variant and why" has_text "$tmp/un.err" \
  "hostile:cpu.f16_only: expected cases it supports, got none"
"$BIN" fuzz --no-db --provider "$LIB" --variants hostile:cpu.f16_only \
  --ops gather --cases 40 --no-corpus >"$tmp/un.out" 2>&1
rc=$?
check "its own dtype chosen: exit 0 (got $rc)" [ $rc -eq 0 ]

# --resume after the provider was rebuilt at the same path: refused, naming
# the provider and both hashes (the resumed run kept the old sha256).
cp "$2/libsltest_broken.so" "$tmp/rebuilt.so"
"$BIN" fuzz --db "$tmp/r.db" --provider "$tmp/rebuilt.so" --variants broken:cpu.ok \
  --ops gather --cases 20 --no-corpus >"$tmp/r1.out" 2>&1
rc=$?
check "resume: the first campaign exits 0 (got $rc)" [ $rc -eq 0 ]
"$BIN" fuzz --resume 1 --db "$tmp/r.db" >"$tmp/r2.out" 2>&1
rc=$?
check "resume, library unchanged: exit 0 (got $rc)" [ $rc -eq 0 ]
printf 'rebuilt' >>"$tmp/rebuilt.so" # other bytes at the same path
"$BIN" fuzz --resume 1 --db "$tmp/r.db" >"$tmp/r3.out" 2>&1
rc=$?
check "resume, library rebuilt: exit 2 (got $rc)" [ $rc -eq 2 ]
check "... names the provider and its path" has_text "$tmp/r3.out" \
  "--resume: provider broken ($tmp/rebuilt.so): expected the library the run recorded"

# 6. A kernel that writes to its stdout and stderr (a forged summary line,
#    ::error, a GitLab section, half a JSON document) or closes its stdout:
#    the command's stdout is its own (valid JSON, its own summary), and what
#    the kernel printed is on stderr behind scatterlab's prefix, cleaned.
LOUD='hostile:cpu.loud,hostile:cpu.close_stdout,cpu.serial'
"$BIN" run --no-db --provider "$LIB" --variants "$LOUD" --format json \
  "$CASE" "${CASE/seed=1/seed=2}" >"$tmp/loud.json" 2>"$tmp/loud.err"
rc=$?
check "loud run --format json: exit 1, close_stdout failed (got $rc)" [ $rc -eq 1 ]
check "loud run --format json: valid UTF-8 JSON" json_ok "$tmp/loud.json"
got=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(sorted({v["variant"] + " " + v["verdict"] for c in d["results"] for v in c["verdicts"]}))' "$tmp/loud.json" 2>&1)
check "loud run: cpu.loud passed, close_stdout failed, both cases (got '$got')" \
  test "$got" = "['cpu.serial passed', 'hostile:cpu.close_stdout failed', 'hostile:cpu.loud passed']"
check "loud run: close_stdout's message says so" \
  grep -q 'closed a descriptor of the worker it ran in (its stdout)' "$tmp/loud.json"
check "loud run: stderr carries no CI command" no_ci_commands "$tmp/loud.err"
check "loud run: no forged line starts a line of stderr" \
  bash -c "! grep -qE '^(1 cases|\{\"sltest)' '$tmp/loud.err'"
check "loud run --format json: 2 cases, its own counts" \
  python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert d["cases"] == 2 and len(d["results"]) == 2, (d["cases"], len(d["results"]))' "$tmp/loud.json"
check "loud run: what it printed is on stderr, behind the prefix" \
  grep -qF "scatterlab: hostile:cpu.loud printed: \::error::sltest forged annotation" "$tmp/loud.err"
"$BIN" run --no-db --provider "$LIB" --variants "$LOUD" "$CASE" \
  >"$tmp/loud.out" 2>"$tmp/loud.err"
check "loud run, text: stdout carries nothing of the kernel's" \
  bash -c "! grep -qE 'sltest forged|\"sltest\"' '$tmp/loud.out'"
got=$(grep -E '^[0-9]+ cases, ' "$tmp/loud.out")
check "loud run, text: one summary, scatterlab's (got '$got')" \
  test "$got" = "1 cases, 3 verdicts: 2 passed 1 failed"
"$BIN" bench --no-db --provider "$LIB" --variants hostile:cpu.loud \
  --budget 0.05 --min-reps 3 --format json "$CASE" >"$tmp/lb.json" \
  2>"$tmp/lb.err"
rc=$?
check "loud bench --format json: exit 0 (got $rc)" [ $rc -eq 0 ]
check "loud bench --format json: valid UTF-8 JSON" json_ok "$tmp/lb.json"
check "loud bench: stderr carries no CI command" no_ci_commands "$tmp/lb.err"
check "loud bench: the timing's print named on stderr" \
  grep -qF "scatterlab: LibTorch or hostile:cpu.loud printed: 1 cases" "$tmp/lb.err"

echo "$((checks - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
