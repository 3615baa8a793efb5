#!/usr/bin/env bash
# Installs the default reference: LibTorch from PyPI's `torch` wheel, only
# the parts the C++ shim needs, into $SL_TORCH_HOME (default
# /opt/scatterlab/libtorch-<version>). Prints that directory on its last line.
#
# Why PyPI 2.11.0: it is the PyTorch of the GPU machine (2.11.0+cu130), so
# the CPU reference, the CUDA reference there and the headers that the shim
# is compiled against here are one version; and it is what users of PyTorch
# 2.x ship. Debian's libtorch-dev 1.13.1 stays available
# (SL_REFERENCE=debian, see the README).
#
# What is kept of the 530 MB wheel (1.1 GB unpacked): torch/include (the
# headers), libtorch_cpu.so and libc10.so (the CPU operators and their
# core). Not the wheel's own libgomp.so.1: the process has one OpenMP runtime
# whatever the directories say (the soname is the same), the system's, which
# the core's OpenMP code links; a second copy beside libtorch_cpu.so would
# only make CMake's run paths ambiguous. The wheel
# is a CUDA 13.0 build, and libtorch_cpu.so itself lists libcudart.so.13 and
# libcupti.so.13 as NEEDED (its profiler links them; `readelf -d` shows it):
# those two come from the 2.2 MB nvidia-cuda-runtime and 10.7 MB
# nvidia-cuda-cupti wheels at the versions the torch wheel pins. No other
# CUDA wheel (cuDNN, NCCL, cuBLAS, ...) is fetched: nothing the CPU
# operators load needs them.
#
# `setup-torch.sh --full` also keeps the whole wheel unpacked beside it
# (libtorch_cuda.so and TorchConfig.cmake): scripts/check-gpu-shim.sh
# compiles the shim against that exactly as scripts/gpu-run.sh does on the
# GPU machine.
#
# Environment: SL_TORCH_VERSION (2.11.0), SL_TORCH_HOME, SL_TORCH_CACHE
# (/opt/scatterlab/wheels: the downloaded wheels, kept so that a second
# setup downloads nothing).
set -euo pipefail
VERSION=${SL_TORCH_VERSION:-2.11.0}
# The CUDA runtime pieces that libtorch_cpu.so needs, at the versions that
# torch 2.11.0's cuda-toolkit==13.0.2 requirement pins.
CUDART=nvidia-cuda-runtime==13.0.96
CUPTI=nvidia-cuda-cupti==13.0.85
HOME_DIR=${SL_TORCH_HOME:-/opt/scatterlab/libtorch-$VERSION}
CACHE=${SL_TORCH_CACHE:-/opt/scatterlab/wheels}
full=0
[ "${1:-}" = --full ] && full=1

stamp=$HOME_DIR/SCATTERLAB_TORCH
if [ -f "$stamp" ] && [ "$full" -eq 0 -o -d "$HOME_DIR/full/torch" ]; then
  # An install made before the chmod below was 0700: open it to every user.
  [ -w "$HOME_DIR" ] && chmod go+rx "$HOME_DIR"
  echo "$HOME_DIR"
  exit 0
fi

PY=$(command -v python3 || true)
if [ -z "$PY" ]; then
  echo "setup-torch: python3 not found (needed to fetch the torch wheel from PyPI)" >&2
  exit 1
fi
mkdir -p "$CACHE"
fetch() { # fetch SPEC: the wheel of SPEC in $CACHE, downloaded once
  "$PY" -m pip download --quiet --no-deps --only-binary=:all: -d "$CACHE" "$1" >&2 || {
    echo "setup-torch: pip could not download $1 from PyPI" >&2
    exit 1
  }
}
t0=$SECONDS
ls "$CACHE"/torch-"$VERSION"-*.whl >/dev/null 2>&1 || fetch "torch==$VERSION"
ls "$CACHE"/nvidia_cuda_runtime-*.whl >/dev/null 2>&1 || fetch "$CUDART"
ls "$CACHE"/nvidia_cuda_cupti-*.whl >/dev/null 2>&1 || fetch "$CUPTI"
wheel=$(ls "$CACHE"/torch-"$VERSION"-*.whl | head -1)

# Unpack into a fresh directory beside the target and rename it into place,
# so that an interrupted setup never leaves a half-filled LibTorch behind.
mkdir -p "$(dirname "$HOME_DIR")"
tmp=$(mktemp -d "$(dirname "$HOME_DIR")/.libtorch-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$PY" - "$wheel" "$CACHE" "$tmp" "$full" <<'EOF'
import glob, os, shutil, sys, zipfile
wheel, cache, out, full = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "1"
keep_libs = {"libtorch_cpu.so", "libc10.so"}
os.makedirs(os.path.join(out, "lib"))
with zipfile.ZipFile(wheel) as z:
    for m in z.infolist():
        n = m.filename
        if n.startswith("torch/include/") and not n.endswith("/"):
            dst = os.path.join(out, "include", n[len("torch/include/"):])
        elif n.startswith("torch/lib/") and os.path.basename(n) in keep_libs:
            dst = os.path.join(out, "lib", os.path.basename(n))
        else:
            continue
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        with z.open(m) as src, open(dst, "wb") as f:
            shutil.copyfileobj(src, f)
    if full:
        z.extractall(os.path.join(out, "full"))
for w, lib in (("nvidia_cuda_runtime", "libcudart.so.13"),
               ("nvidia_cuda_cupti", "libcupti.so.13")):
    path = sorted(glob.glob(os.path.join(cache, w + "-*.whl")))[0]
    with zipfile.ZipFile(path) as z:
        with z.open("nvidia/cu13/lib/" + lib) as src, \
             open(os.path.join(out, "lib", lib), "wb") as f:
            shutil.copyfileobj(src, f)
        if full:
            z.extractall(os.path.join(out, "full"))
EOF
{
  echo "version=$VERSION"
  echo "wheel=$(basename "$wheel")"
  echo "sha256=$(sha256sum "$wheel" | cut -d' ' -f1)"
} >"$tmp/SCATTERLAB_TORCH"
# mktemp -d made the folder 0700: every user must load the libraries (the
# tests run scatterlab as nobody, a CI may build as another user).
chmod 755 "$tmp"
rm -rf "$HOME_DIR"
mv "$tmp" "$HOME_DIR"
trap - EXIT
echo "setup-torch: LibTorch $VERSION from PyPI in $HOME_DIR ($((SECONDS - t0)) s)" >&2
echo "$HOME_DIR"
