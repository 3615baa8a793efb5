#!/usr/bin/env bash
# A kernel author's small frictions (issue 51, item 6): a --variants typo
# gets "did you mean" (the closest names among the loaded variants), a
# provider's variant whose provider is not loaded says so, `ab --variants`
# takes provider-qualified names as every other command does,
# SCATTERLAB_CHECK_ARGS=1 also checks providers, variants and the folders of
# outputs, and `ab --help` prints "%", not "%%". Before: "matched none" per
# case, with no hint; ab found nothing to compare for prov:cpu.name; the
# check passed a command whose provider, variant or output folder was wrong.
set -u
BIN=$1
SRC=${2:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$SRC/tests/check.sh"
BUG=$(dirname "$BIN")/tests/libsl_buggy.so
AB=$(dirname "$BIN")/tests/ab/libsltest_slow0.so
[ -f "$BUG" ] || { echo "FAIL: $BUG missing"; exit 1; }
unset SCATTERLAB_PROVIDERS SCATTERLAB_CHECK_ARGS
G='gather x=4x3 index=2x3 dim=0'

# Typos: the closest names, for run, fuzz and bench alike; exit 2.
run 2 run --no-db --variants cpu.seriall "$G"
check "run: a typo gets 'did you mean cpu.serial?'" has "--variants cpu.seriall: .*did you mean cpu.serial\?"
check "... once, before any case runs" test "$(grep -c 'did you mean' "$tmp/out")" = 1
run 2 run --no-db --provider "buggy=$BUG" --variants cpu.serial,buggy:cpu.off_by_on "$G"
check "run: a provider's variant misspelt: its name suggested" has "did you mean buggy:cpu.off_by_one\?"
run 2 fuzz --no-db --no-corpus --cases 5 --variants cpu.atomc
check "fuzz: a typo gets 'did you mean cpu.atomic?'" has "did you mean cpu.atomic\?"
run 2 bench --no-db --variants cpu.lok "$G"
check "bench: a typo gets 'did you mean cpu.lock?'" has "did you mean cpu.lock\?"
run 2 run --no-db --variants cdua "$G"
check "a device misspelt: did you mean cuda" has "did you mean cuda\?"
run 2 run --no-db --variants zzzzzzzzzz "$G"
check "nothing close: no guess" hasnt "did you mean"
check "... but said plainly" has "--variants zzzzzzzzzz: expected a variant's name, a device or a glob of the loaded variants, matched none"
# A provider that is not loaded.
run 2 run --no-db --variants mylib:cpu.atomic_min "$G"
check "a provider not loaded: named, with the option that loads it" \
  has "--variants mylib:cpu.atomic_min: provider 'mylib' is not loaded; add --provider mylib=PATH"
run 2 fuzz --no-db --no-corpus --cases 5 --variants 'mylib:*'
check "... a glob of its variants too" has "provider 'mylib' is not loaded"
# What selects something still runs.
run 0 run --no-db --variants 'cpu.ser*,cpu' "$G"
check "globs and devices that select variants: run" has "^passed +cpu.serial"

# SCATTERLAB_CHECK_ARGS=1: providers, variants, output folders checked;
# nothing run, no store made.
ck() { # ck WANT ARGS...: the check's exit status; output in $tmp/out
  local want=$1
  shift
  (cd "$tmp" && SCATTERLAB_CHECK_ARGS=1 "$BIN" "$@") >"$tmp/out" 2>&1
  local got=$?
  [ "$got" = "$want" ] && return
  echo "  exit $got, expected $want: scatterlab $*"
  sed 's/^/  | /' "$tmp/out"
  return 1
}
check "check: a provider that loads, its variant: 0" \
  ck 0 run --provider "buggy=$BUG" --variants buggy:cpu.off_by_one "$G"
check "... and nothing ran, no store" \
  bash -c "! grep -q 'failed\|verdicts' '$tmp/out' && [ ! -e '$tmp/results' ]"
check "check: a provider that does not load: 2" \
  ck 2 fuzz --provider "$tmp/nolib.so" --seconds 60
check "... named" grep -q "provider $tmp/nolib.so: cannot load: no such file" "$tmp/out"
check "check: a variant typo: 2" ck 2 fuzz --variants cpu.seriall --seconds 60
check "... with the hint" grep -q "did you mean cpu.serial?" "$tmp/out"
check "check: a provider's variant whose provider is not loaded: 2" \
  ck 2 run --variants buggy:cpu.off_by_one "$G"
check "check: an output in a folder that does not exist: 2" \
  ck 2 fuzz --seconds 60 --junit "$tmp/no/such/dir/fuzz.xml"
check "... named" grep -q -- "--junit $tmp/no/such/dir/fuzz.xml: expected a file in an existing folder, got folder $tmp/no/such/dir, which does not exist" "$tmp/out"
check "check: report -o into a missing folder: 2" \
  ck 2 report --db x.db -o "$tmp/none/r.html"
check "check: outputs in folders that exist: 0" \
  ck 0 fuzz --seconds 60 --junit "$tmp/fuzz.xml" --db "$tmp/f.db"
check "... and nothing ran" test ! -e "$tmp/f.db" -a ! -e "$tmp/fuzz.xml"

# ab: provider-qualified --variants, as every other command takes them.
if [ -f "$AB" ]; then
  abrun() { # abrun WANT ARGS...
    local want=$1
    shift
    "$BIN" ab --base "$AB" --cand "$AB" --no-db --threads 1 --budget 0.05 \
      --min-rounds 6 --max-rounds 6 "$@" 'gather dt=f32 x=40x8 index=100x8 dim=0 seed=3' \
      >"$tmp/out" 2>&1
    local got=$?
    [ "$got" = "$want" ] && return
    echo "  exit $got, expected $want: ab $*"
    sed 's/^/  | /' "$tmp/out" | tail -20
    return 1
  }
  check "ab --variants abtest:cpu.gather (the provider's own name): compared" \
    abrun 0 --variants abtest:cpu.gather
  check "... the pair timed" grep -q '^  cpu.gather ' "$tmp/out"
  check "... and not its other variant" bash -c "! grep -q '^  cpu.gather2 ' '$tmp/out'"
  check "ab --variants cand:cpu.gather: compared" abrun 0 --variants cand:cpu.gather
  check "ab --variants other:cpu.gather: a provider not loaded (exit 2)" \
    abrun 2 --variants other:cpu.gather
  check "... named" grep -q "provider 'other' is not loaded" "$tmp/out"
  check "ab --variants cpu.gathr: nothing to compare, did you mean (exit 3)" \
    abrun 3 --variants cpu.gathr
  check "... the hint" grep -q "did you mean cpu.gather?" "$tmp/out"
fi
run 0 ab --help
check "ab --help: PCT%, not PCT%%" has "spins for PCT% of"
check "... no %% anywhere" hasnt "%%"
echo "$((checks - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
