#!/usr/bin/env bash
# Makes here the build that scripts/gpu-run.sh's `prebuilt` step runs on the
# GPU machine, so that the short device time is not spent compiling CUDA:
# the configuration of check-gpu-shim.sh (PyPI torch 2.11.0+cu130 through
# its TorchConfig.cmake, the cuda.* kernels for sm_90), every target, then
# .prebuilt/build.tar.xz (git-ignored; carried by the device tool, 64 MiB
# at most with the tree) of what runs there: executables, shared libraries
# and CTest's files, without debug sections, less the CPU-only unit tests
# and fuzz targets (each holds the 40 MB of sm_90 code of the static core;
# CI runs them). xz, not gzip: the five that go are 110 MiB gzipped. .prebuilt/PATHS names the paths compiled into them (source
# tree, build tree, LibTorch's folder), which gpu-run.sh makes hold there
# with symbolic links.
#
# usage: scripts/gpu-prebuild.sh    (then see the top of gpu-run.sh)
# Environment: SL_GPU_CHECK_BUILD (build-gpu-check), SL_PREBUILT (.prebuilt)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD=${SL_GPU_CHECK_BUILD:-$ROOT/build-gpu-check}
PRE=${SL_PREBUILT:-$ROOT/.prebuilt}
SL_GPU_CHECK_BUILD=$BUILD scripts/check-gpu-shim.sh
cmake --build "$BUILD" -j "$(nproc)" >>"$BUILD.log" 2>&1 || {
  grep -E "error|undefined reference" "$BUILD.log" | head -30
  echo "gpu-prebuild: the full build failed (log: $BUILD.log)" >&2
  exit 1
}
home=$(scripts/setup-torch.sh --full | tail -1)
STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT
rm -rf "$PRE"
mkdir -p "$PRE"
n=0
while IFS= read -r -d '' f; do
  rel=${f#"$BUILD"/}
  case $rel in
    CMakeFiles/* | */CMakeFiles/* | Testing/* | tests/parsers/*) continue ;;
    core/test_cuda_iter | tests/gpu/*) ;;
    test_* | */test_*) continue ;;
  esac
  if [[ $rel == *CTestTestfile.cmake ]] ||
     head -c 4 "$f" | grep -q 'ELF'; then
    mkdir -p "$STAGE/$(dirname "$rel")"
    cp -P "$f" "$STAGE/$rel"
    if [ ! -L "$f" ] && [[ $rel != *.cmake ]]; then
      objcopy --strip-debug "$STAGE/$rel"
    fi
    n=$((n + 1))
  fi
done < <(find "$BUILD" \( -type f -o -type l \) -print0)
# Shared-library links (libscatterlab_kernels.so -> .so.1) too.
while IFS= read -r -d '' l; do
  rel=${l#"$BUILD"/}
  case $rel in
    tests/parsers/*) continue ;;
    core/test_cuda_iter | tests/gpu/*) ;;
    test_* | */test_*) continue ;;
  esac
  [ -e "$STAGE/$rel" ] || { mkdir -p "$STAGE/$(dirname "$rel")"; cp -P "$l" "$STAGE/$rel"; }
done < <(find "$BUILD" -type l -print0)
{
  echo "commit=$(git -C "$ROOT" rev-parse --short HEAD)$(git -C "$ROOT" diff --quiet || echo +dirty)"
  echo "source=$ROOT"
  echo "build=$BUILD"
  echo "torch=$home/full"
} >"$PRE/PATHS"
tar -cf - -C "$STAGE" . | xz -T0 -6 >"$PRE/build.tar.xz"
size=$(du -sm "$PRE" | cut -f1)
echo "gpu-prebuild: $n files, $(du -sm "$STAGE" | cut -f1) MiB, packed to $size MiB in $PRE (the device tool carries 64 MiB with the tree)"
[ "$size" -lt 48 ] || { echo "gpu-prebuild: too large to carry" >&2; exit 1; }
