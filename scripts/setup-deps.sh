#!/usr/bin/env bash
# Installs the Debian packages scatterlab builds and tests with, skipping
# those already present (so a warm machine pays nothing). Needs root (or
# sudo) on Debian. `setup-deps.sh sanitize` adds clang and its sanitizer and
# libFuzzer runtimes (make check-sanitize).
set -euo pipefail
pkgs=(build-essential cmake ninja-build git pkg-config libsqlite3-dev
      libcsv-dev libtorch-dev sqlite3 chromium valgrind)
if [ "${1:-}" = sanitize ]; then
  pkgs+=(clang libclang-rt-14-dev)
fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "setup: installing ${missing[*]}"
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
