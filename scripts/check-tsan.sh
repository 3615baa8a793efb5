#!/usr/bin/env bash
# make check-tsan: a fuzz campaign over the parallel CPU variants in a
# ThreadSanitizer build (-DSL_TSAN=ON -DSL_SMALL_THRESHOLDS=ON: the small
# thresholds put every small case on every thread). OpenMP is LLVM's libomp
# with its Archer tool (libarcher.so beside it, Debian's libomp-14-dev), which
# tells TSan about the runtime's barriers, locks and task dependences so
# that only the kernels' own races are reported. LibTorch (the reference)
# is not instrumented: ignore_noninstrumented_modules keeps its threads out
# of the reports. Fails when the campaign fails or TSan reports anything
# (halt_on_error: the worker dies at the first report, its case reads
# crashed; every report is also kept in a log file and printed here).
#   scripts/check-tsan.sh BUILD_DIR [SECONDS] [extra fuzz options...]
set -uo pipefail
build=${1:?usage: check-tsan.sh BUILD_DIR [SECONDS] [fuzz options...]}
seconds=${2:-90}
shift $(($# > 1 ? 2 : 1))
src=$(cd "$(dirname "$0")/.." && pwd)
bin=$build/scatterlab

libomp=$(ldd "$bin" | awk '/libomp\.so/ {print $3; exit}')
[ -n "$libomp" ] || { echo "check-tsan: $bin does not load LLVM's libomp (configure with CC=clang)" >&2; exit 2; }
archer=$(dirname "$(readlink -f "$libomp")")/libarcher.so
[ -f "$archer" ] || { echo "check-tsan: no Archer beside $libomp (expected $archer; Debian: libomp-14-dev)" >&2; exit 2; }

logs=$(mktemp -d /tmp/check-tsan.XXXXXX)
export OMP_TOOL_LIBRARIES=$archer
export ARCHER_OPTIONS=verbose=1
export TSAN_OPTIONS="ignore_noninstrumented_modules=1 halt_on_error=1 second_deadlock_stack=1 history_size=4 log_path=$logs/tsan"
# More threads than cores on purpose: interleavings need no cores.
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-4}
unset CI_NODE_INDEX JOB_COMPLETION_INDEX GTEST_SHARD_INDEX

# Archer must be active: a one-case run says so on stderr.
"$bin" fuzz --cases 1 --no-db --no-corpus --variants cpu.omp >"$logs/probe" 2>&1
if ! grep -q "Archer detected OpenMP application with TSan" "$logs/probe"; then
  echo "check-tsan: Archer did not load ($archer); the probe said:" >&2
  cat "$logs/probe" >&2
  exit 2
fi
export ARCHER_OPTIONS=verbose=0

# The parallel variants: every CPU variant but cpu.serial (`scatterlab list`).
variants=$("$bin" list 2>/dev/null | awk '$2 ~ /^cpu\./ && $2 != "cpu.serial" {print $2}' | sort -u | paste -sd, -)
[ -n "$variants" ] || { echo "check-tsan: no parallel CPU variant in \`$bin list\`" >&2; exit 2; }
echo "check-tsan: $variants; OMP_NUM_THREADS=$OMP_NUM_THREADS; ${seconds}s; Archer $archer"
start=$(date +%s)
"$bin" fuzz --seconds "$seconds" --jobs 1 --variants "$variants" --no-corpus \
  --no-db --timeout 120 "$@" 2>&1 | tail -n 40
rc=${PIPESTATUS[0]}
echo "check-tsan: campaign exit $rc after $(($(date +%s) - start)) s"
reports=$(ls "$logs"/tsan.* 2>/dev/null | wc -l)
if [ "$reports" -gt 0 ]; then
  echo "check-tsan: ThreadSanitizer reported in $reports process(es) (logs in $logs); the first:"
  for f in $(ls "$logs"/tsan.* | head -n 2); do echo "== $f"; head -n 60 "$f"; done
  exit 1
fi
rm -rf "$logs"
[ "$rc" = 0 ] || { echo "check-tsan: the campaign failed (exit $rc)"; exit 1; }
echo "check-tsan: no ThreadSanitizer report"
