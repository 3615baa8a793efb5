#!/usr/bin/env bash
# Installs the Debian packages scatterlab builds and tests with, skipping
# those already present (so a warm machine pays nothing), then the LibTorch
# reference. Needs root (or sudo) on Debian. Arguments (any of):
#   sanitize  adds clang and its sanitizer and libFuzzer runtimes
#             (make check-sanitize)
#   coverage  adds gcovr (make coverage)
#   tsan      adds clang, its ThreadSanitizer runtime and LLVM's OpenMP
#             runtime with its Archer tool, libarcher.so in libomp-14-dev
#             (make check-tsan)
#   debian    the reference is Debian's libtorch-dev 1.13.1
#             (SL_REFERENCE=debian) instead of PyPI's torch wheel
#             (scripts/setup-torch.sh, the default)
# The Python bridge (providers/python) needs python3-dev; its numpy peer
# numpy >= 1.24, from Debian for /usr/bin/python3 and from pip for another
# python3 first in PATH (pyenv, a venv), which is the one CMake finds.
set -euo pipefail
pkgs=(build-essential cmake ninja-build git pkg-config libsqlite3-dev
      libcsv-dev sqlite3 chromium valgrind python3 python3-yaml
      abigail-tools python3-dev python3-numpy)
reference=pypi
for arg in "$@"; do
  case $arg in
    sanitize) pkgs+=(clang libclang-rt-14-dev) ;;
    coverage) pkgs+=(gcovr) ;;
    tsan) pkgs+=(clang libclang-rt-14-dev libomp-14-dev libomp5-14) ;;
    debian) reference=debian; pkgs+=(libtorch-dev) ;;
    pypi) ;;
    *) echo "setup-deps: unknown argument '$arg' (expected sanitize, coverage, tsan, debian or pypi)" >&2; exit 2 ;;
  esac
done
[ "$reference" = pypi ] && pkgs+=(python3 python3-pip)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if ! python3 -c 'import numpy, sys; sys.exit(tuple(map(int, numpy.__version__.split(".")[:2])) < (1, 24))' 2>/dev/null; then
  echo "setup: installing numpy>=1.24 for $(command -v python3)"
  python3 -m pip install --quiet 'numpy>=1.24'
fi
if [ "$reference" = pypi ]; then
  "$(dirname "$0")/setup-torch.sh" >/dev/null
fi
