#!/usr/bin/env bash
# The README's `make test` on fresh clones, run after run (issue 54, item 6):
# whether the suite holds on a shared machine, measured, never a test.
# Each run clones the repository anew (no build, no store, no corpus left
# from an earlier one), runs `make test` in it, keeps the whole output of a
# run that fails and names its failing tests; the summary counts the runs
# that passed. NOISY=1 runs each `make test` beside the scripted neighbour
# (neighbour.sh: a memory streamer and a CPU-bound loop, ended with it).
#
# usage: fresh_clone_tests.sh [RUNS [REPO [REF]]]
#   RUNS default 5; REPO the repository to clone (default this one's
#   top folder); REF what to check out (default HEAD of REPO).
#   KEEP (environment): the folder that keeps the failing runs' outputs
#   (default /tmp/fresh-clone-logs); MAKE_ARGS: extra `make test` arguments.
set -u
RUNS=${1:-5}
REPO=$(cd "${2:-$(dirname "$0")/../..}" && git rev-parse --show-toplevel) || exit 2
REF=${3:-$(git -C "$REPO" rev-parse HEAD)}
KEEP=${KEEP:-/tmp/fresh-clone-logs}
mkdir -p "$KEEP"
beside=()
[ "${NOISY:-0}" = 1 ] && beside=("$REPO/tests/perf/neighbour.sh" run 10800)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# failing_tests LOG: the names CTest lists under "The following tests FAILED".
failing_tests() {
  sed -n '/The following tests FAILED/,$s/^[[:space:]]*[0-9]* - \([^ ]*\).*/\1/p' "$1" |
    tr '\n' ' '
}

passed=0
for ((i = 1; i <= RUNS; ++i)); do
  # beside ../shared, as CI's clean clone has it (read-only design notes)
  mkdir -p "$tmp/$i" && clone="$tmp/$i/main"
  [ -d "$REPO/../shared" ] && ln -s "$(cd "$REPO/../shared" && pwd)" "$tmp/$i/shared"
  git clone --quiet --no-hardlinks "$REPO" "$clone" && git -C "$clone" checkout --quiet "$REF" ||
    { echo "run $i: the clone failed"; continue; }
  t0=$(date +%s)
  (cd "$clone" && "${beside[@]}" make test ${MAKE_ARGS:-}) >"$tmp/log" 2>&1
  rc=$? t1=$(date +%s)
  summary=$(grep -E 'tests passed, [0-9]+ tests failed' "$tmp/log" | tail -1)
  if [ "$rc" = 0 ]; then
    passed=$((passed + 1))
    echo "run $i: passed in $((t1 - t0)) s: $summary"
  else
    log="$KEEP/run-$i-$(date +%Y%m%d-%H%M%S).log"
    cp "$tmp/log" "$log"
    echo "run $i: FAILED (exit $rc) in $((t1 - t0)) s: $summary; failing: $(failing_tests "$tmp/log"); output kept in $log"
  fi
  rm -rf "${tmp:?}/$i"
done
echo "fresh clones of $(git -C "$REPO" rev-parse --short "$REF")${NOISY:+ (NOISY=$NOISY)}: $passed of $RUNS runs of make test passed"
[ "$passed" = "$RUNS" ]
