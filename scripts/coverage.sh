#!/usr/bin/env bash
# make coverage: how much of core/src the default fuzz campaign reaches.
# Builds scatterlab with gcov (-DSL_COVERAGE=ON: -Og -fno-inline --coverage, no CUDA)
# in build-coverage/, clears the counts, runs the default campaign for
# SECONDS (default 60; the workers and jobs flush their counts before they
# leave, harness/engine/child_exit.h), then prints line and branch coverage of
# core/src per file and in total and writes an HTML page per file.
#
# usage: scripts/coverage.sh [SECONDS]     (env: BUILD, JOBS, FUZZ_ARGS)
#   out: $BUILD/coverage/index.html, summary.json, summary.txt
set -euo pipefail
cd "$(dirname "$0")/.."
SRC=$PWD
SECONDS_RUN=${1:-60}
BUILD=${BUILD:-build-coverage}
JOBS=${JOBS:-$(nproc)}
case $SECONDS_RUN in '' | *[!0-9]*)
  echo "coverage.sh: SECONDS: expected a whole number of seconds, got '$SECONDS_RUN'" >&2
  exit 2 ;;
esac
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
cmake -S . -B "$BUILD" "${gen[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DSL_COVERAGE=ON -DSL_WITH_CUDA=OFF >/dev/null
cmake --build "$BUILD" -j "$JOBS" --target scatterlab scatterlab_kernels
out=$BUILD/coverage
rm -rf "$out"
mkdir -p "$out/html"
find "$BUILD" -name '*.gcda' -delete
echo "coverage: the default campaign for $SECONDS_RUN s (gcov build, -Og)"
# The default campaign as `scatterlab fuzz` runs it, into a store of its own.
# ${FUZZ_ARGS:-} may add options (e.g. --stress 0 to measure without one).
# shellcheck disable=SC2086
"$BUILD/scatterlab" fuzz --seconds "$SECONDS_RUN" --db "$out/fuzz.db" \
  ${FUZZ_ARGS:-} >"$out/fuzz.log" 2>&1 || {
  rc=$?
  # Exit 1 is a campaign that found failures: coverage is still measured.
  [ "$rc" -eq 1 ] || { tail -20 "$out/fuzz.log"; exit "$rc"; }
}
grep -E '^[0-9]+ cases in' "$out/fuzz.log" || true
# core/src without the CUDA kernels (they do not run here). The counts of
# $BUILD only: gcovr would otherwise also read any other build's under the
# source tree.
gcovr -r "$SRC" --object-directory "$BUILD" \
  --filter "$SRC/core/src/" --exclude '.*/cuda/.*' --exclude '.*\.cu$' \
  --exclude-unreachable-branches \
  --json-summary-pretty --json-summary "$out/summary.json" \
  --html-details "$out/html/index.html" "$BUILD" >/dev/null
python3 - "$out/summary.json" <<'PY' | tee "$out/summary.txt"
import json, sys
d = json.load(open(sys.argv[1]))
def pct(c, t):
    return f"{100.0 * c / t:5.1f}%" if t else "    -"
rows = sorted(d["files"], key=lambda f: f["filename"])
print(f"{'core/src file':44} {'lines':>16} {'branches':>16}")
for f in rows:
    name = f["filename"].split("core/src/", 1)[-1]
    print(f"{name:44} {pct(f['line_covered'], f['line_total'])} "
          f"{f['line_covered']:4}/{f['line_total']:<5} "
          f"{pct(f['branch_covered'], f['branch_total'])} "
          f"{f['branch_covered']:4}/{f['branch_total']:<5}")
print(f"{'total':44} {pct(d['line_covered'], d['line_total'])} "
      f"{d['line_covered']:4}/{d['line_total']:<5} "
      f"{pct(d['branch_covered'], d['branch_total'])} "
      f"{d['branch_covered']:4}/{d['branch_total']:<5}")
PY
echo "coverage: $out/html/index.html"
