#!/usr/bin/env bash
# Builds every target, -Werror on, at every optimisation level people use:
# the CMake build types Debug (-O0), Release (-O3) and MinSizeRel (-Os),
# and -O1 (build type None), with gcc. make test covers RelWithDebInfo
# (-O2); clang's warnings, which do not change with the level, are checked
# by make check-sanitize's build of every target (-O2, -Werror). gcc's
# -Wmaybe-uninitialized changes with the level (a Release build once
# stopped on a warning that -O2 did not raise), so
# only building at each level shows the code warning-free there. CUDA off:
# check-gpu-shim compiles the kernels. Nothing is run. CI runs it
# (.ci/run); `make check-build-types` too.
#
# usage: scripts/check-build-types.sh [REFERENCE]   (pypi by default)
# Environment: SL_BUILD_TYPES_DIR (build-types), JOBS (nproc)
set -uo pipefail
cd "$(dirname "$0")/.."
REFERENCE=${1:-pypi}
DIR=${SL_BUILD_TYPES_DIR:-$PWD/build-types}
JOBS=${JOBS:-$(nproc)}
GEN=
command -v ninja >/dev/null 2>&1 && GEN="-G Ninja"
status=0
build() { # NAME CC CXX CMAKE-ARGS...
  local name=$1 cc=$2 cxx=$3 t0=$SECONDS
  shift 3
  local b=$DIR/$name log=$DIR/$name.log
  mkdir -p "$DIR"
  # shellcheck disable=SC2086
  if CC=$cc CXX=$cxx cmake -S . -B "$b" $GEN -DSL_WITH_CUDA=OFF \
       -DSL_REFERENCE="$REFERENCE" "$@" >"$log" 2>&1 &&
     cmake --build "$b" -j "$JOBS" >>"$log" 2>&1; then
    echo "check-build-types: $name built in $((SECONDS - t0)) s"
  else
    echo "check-build-types: $name FAILED (log: $log):"
    grep -E 'error|warning:' "$log" | head -20
    status=1
  fi
}
build gcc-Debug gcc g++ -DCMAKE_BUILD_TYPE=Debug
build gcc-O1 gcc g++ -DCMAKE_BUILD_TYPE=None -DCMAKE_C_FLAGS=-O1 \
  -DCMAKE_CXX_FLAGS=-O1
build gcc-Release gcc g++ -DCMAKE_BUILD_TYPE=Release
build gcc-MinSizeRel gcc g++ -DCMAKE_BUILD_TYPE=MinSizeRel
exit $status
