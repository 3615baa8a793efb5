#!/usr/bin/env bash
# Times the same cases with two builds on one GPU, in turns (base, cand,
# base, cand, ...), so that a change to a cuda.* kernel is judged against
# its baseline on the same device in the same call: figures from another
# call, another device or another suite run do not compare (the suite's own
# state moves a kernel's time by 10% or more, docs/notes/benchmarks-2026.md).
#
# usage: tests/perf/gpu_two_builds.sh BASE_BUILD CAND_BUILD CASE_FILE ROUNDS \
#            [bench options, e.g. --variants cuda.atomic --budget 0.1]
# Each build runs with its own libraries first on the search path. Stores
# ($OUT/base.db, $OUT/cand.db: one run per round) and each run's output
# ($OUT/{base,cand}-ROUND.txt) are kept; compare them here with
# `scatterlab report --db`. Environment: OUT (default ./gpu-two-builds).
set -uo pipefail
if [ $# -lt 4 ]; then
  echo "usage: $0 BASE_BUILD CAND_BUILD CASE_FILE ROUNDS [bench options]" >&2
  exit 2
fi
base=$1 cand=$2 cases=$3 rounds=$4
shift 4
OUT=${OUT:-$PWD/gpu-two-builds}
for b in "$base" "$cand"; do
  [ -x "$b/scatterlab" ] || { echo "gpu_two_builds: no scatterlab in $b" >&2; exit 2; }
done
[ -f "$cases" ] || { echo "gpu_two_builds: no case file $cases" >&2; exit 2; }
case $rounds in '' | *[!0-9]*) echo "gpu_two_builds: ROUNDS: expected a count, got '$rounds'" >&2; exit 2 ;; esac
mkdir -p "$OUT"
# The folders of a build's shared libraries, for LD_LIBRARY_PATH (searched
# before the RUNPATH, which may name the other build's tree).
libs_of() { find "$1" -name '*.so*' -printf '%h\n' | sort -u | paste -sd:; }
rc=0
for ((r = 1; r <= rounds; ++r)); do
  for arm in base cand; do
    dir=$base
    [ $arm = cand ] && dir=$cand
    echo "== round $r, $arm ($dir)"
    LD_LIBRARY_PATH="$(libs_of "$dir")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
      "$dir/scatterlab" bench --suite "$cases" --db "$OUT/$arm.db" "$@" \
      >"$OUT/$arm-$r.txt" 2>&1 || rc=1
    grep -E '^[a-z_]+: |^  (case|#[0-9])' "$OUT/$arm-$r.txt"
  done
done
exit $rc
