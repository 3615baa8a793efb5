#!/usr/bin/env bash
# Builds scatterlab here exactly as scripts/gpu-run.sh builds it on the GPU
# machine (PyTorch 2.11.0+cu130 there): LibTorch through the wheel's own
# TorchConfig.cmake, which is its CUDA 13.0 build (libtorch_cuda, c10_cuda,
# nvcc flags), the cuda.* kernels for sm_90. So a compile or link error of
# the shim or the harness against that exact version shows here, in CI, and
# not in the GPU session's short device time. CI runs it (.ci/run);
# `make check-gpu-shim` too.
#
# What differs from the GPU machine: libtorch_cuda.so's own dependencies
# (cuDNN, NCCL, cuSPARSELt, NVSHMEM, cuFile: about 2 GB of wheels) are not
# fetched, so the final links ignore symbols those libraries would define
# (--unresolved-symbols=ignore-in-shared-libs); every symbol of our own code
# must still resolve. Nothing is run: there is no GPU here.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD=${SL_GPU_CHECK_BUILD:-$ROOT/build-gpu-check}
home=$(scripts/setup-torch.sh --full | tail -1)
prefix=$home/full/torch/share/cmake
if [ ! -f "$prefix/Torch/TorchConfig.cmake" ]; then
  echo "check-gpu-shim: no TorchConfig.cmake under $prefix" >&2
  exit 1
fi
command -v nvcc >/dev/null 2>&1 || export PATH=/usr/local/cuda/bin:$PATH
if ! command -v nvcc >/dev/null 2>&1; then
  echo "check-gpu-shim: nvcc not found (the CUDA toolkit compiles the cuda.* kernels)" >&2
  exit 1
fi
GEN=
command -v ninja >/dev/null 2>&1 && GEN="-G Ninja"
t0=$SECONDS
# The options of gpu-run.sh's configure, less what only the GPU machine has
# (its SQLite and libcsv from .deb files).
cmake -S "$ROOT" -B "$BUILD" $GEN -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CUDA_ARCHITECTURES=90 -DSL_WERROR=OFF \
  -DCMAKE_CUDA_COMPILER="$(command -v nvcc)" \
  -DSL_REFERENCE=torch-config -DCMAKE_PREFIX_PATH="$prefix" \
  "-DCMAKE_EXE_LINKER_FLAGS=-Wl,--unresolved-symbols=ignore-in-shared-libs" \
  >"$BUILD.log" 2>&1 || {
  tail -30 "$BUILD.log"
  echo "check-gpu-shim: cmake failed against $prefix (log: $BUILD.log)" >&2
  exit 1
}
grep -E "scatterlab: (reference|CUDA)" "$BUILD.log"
if ! cmake --build "$BUILD" -j "$(nproc)" --target scatterlab test_ref \
  test_gpu_variants >>"$BUILD.log" 2>&1; then
  grep -E "error|undefined reference" "$BUILD.log" | head -30
  echo "check-gpu-shim: the build failed (log: $BUILD.log)" >&2
  exit 1
fi
# The binary must have linked the wheel's CUDA LibTorch, not another one.
if ! readelf -d "$BUILD/scatterlab" | grep -q 'libtorch_cuda.so'; then
  echo "check-gpu-shim: $BUILD/scatterlab does not link libtorch_cuda.so" >&2
  exit 1
fi
echo "check-gpu-shim: scatterlab, test_ref and" \
  "test_gpu_variants built against PyPI torch $(sed -n 's/^version=//p' "$home/SCATTERLAB_TORCH")" \
  "(CUDA 13.0, its TorchConfig.cmake) in $((SECONDS - t0)) s"
