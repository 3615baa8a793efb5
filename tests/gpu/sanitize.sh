#!/usr/bin/env bash
# compute-sanitizer over the GPU tests: memcheck (out-of-bounds and
# misaligned accesses, errors of CUDA calls), racecheck (shared-memory
# hazards) and synccheck (barriers reached by part of a block, illegal
# __syncwarp masks) on test_gpu_device and on a quick pass of
# test_gpu_variants. SL_SANITIZE_TOOLS narrows the tools (space-separated).
# Exit 77 (CTest: skipped) without a CUDA device or without
# compute-sanitizer.
#
# usage: sanitize.sh TEST_GPU_DEVICE TEST_GPU_VARIANTS
set -u
device_test=$1
variants_test=$2

sanitizer=$(command -v compute-sanitizer || true)
if [ -z "$sanitizer" ] && [ -x /usr/local/cuda/bin/compute-sanitizer ]; then
  sanitizer=/usr/local/cuda/bin/compute-sanitizer
fi
if [ -z "$sanitizer" ]; then
  echo "sanitize.sh: compute-sanitizer not found: skipped"
  exit 77
fi
"$device_test" --has-device
rc=$?
if [ $rc -eq 77 ]; then
  echo "sanitize.sh: no CUDA device: skipped"
  exit 77
elif [ $rc -ne 0 ]; then
  echo "sanitize.sh: $device_test --has-device failed ($rc)"
  exit 1
fi

failed=0
for tool in ${SL_SANITIZE_TOOLS:-memcheck racecheck synccheck}; do
  for cmd in "$device_test" "$variants_test --quick"; do
    echo "== compute-sanitizer --tool $tool $cmd"
    # shellcheck disable=SC2086
    if ! "$sanitizer" --tool "$tool" --error-exitcode 99 \
        --target-processes all $cmd; then
      echo "sanitize.sh: $tool found errors in: $cmd"
      failed=1
    fi
  done
done
exit $failed
