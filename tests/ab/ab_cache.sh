#!/usr/bin/env bash
# The cache of `ab --base-ref` trusts nothing it cannot check (issue 48,
# point 5): an entry of another build of the same commit is not reused, a
# truncated or linked library copy is built again rather than loaded, and an
# entry that someone else owns or can write is refused. The base is a tiny
# repository whose target scatterlab_kernels is the fixture slow.c, as in
# ab.sh; the timings themselves are not judged here.
#
# usage: ab_cache.sh SCATTERLAB FIXTURE_DIR
set -u
BIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
DIR=$(cd "$2" && pwd)
. "$(dirname "$0")/../check.sh"
SRC_DIR=$(cd "$(dirname "$0")/../.." && pwd)
CASE='gather dt=f32 x=400x8 index=1000x8 dim=0 seed=3'
show() { sed 's/^/  | /' "$tmp/out" | head -30; }
says() { # says TEXT: a fixed string of the output
  grep -qF -- "$1" "$tmp/out" && return
  echo "  output lacks '$1':"
  show
  return 1
}
status_in() { # status_in S...
  for s in "$@"; do [ "$rc" = "$s" ] && return; done
  echo "  exit status $rc, expected one of: $*"
  show
  return 1
}

# The provider ABI version: the kernels library's soname carries it.
abi=$(sed -n 's/^#define SL_PROVIDER_ABI_VERSION \([0-9]*\)u$/\1/p' \
  "$SRC_DIR/core/include/sl/sl_provider.h")
repo=$tmp/repo
mkdir -p "$repo"
cp "$(dirname "$0")/slow.c" "$SRC_DIR/tests/providers/sltest_gather.h" "$repo/"
printf '%s\n' 'cmake_minimum_required(VERSION 3.16)' 'project(abcache C)' \
  'add_library(scatterlab_kernels SHARED slow.c)' \
  "target_include_directories(scatterlab_kernels PRIVATE $SRC_DIR/core/include)" \
  'target_compile_definitions(scatterlab_kernels PRIVATE SLOW_PCT=0)' \
  "set_target_properties(scatterlab_kernels PROPERTIES SOVERSION $abi" \
  '  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})' >"$repo/CMakeLists.txt"
git -C "$repo" init -q && git -C "$repo" add . &&
  git -C "$repo" -c user.name=t -c user.email=t@t commit -qm base
sha=$(git -C "$repo" rev-parse HEAD)
export SCATTERLAB_CACHE=$tmp/cache
base_ref() { # ab in the repository; output in $tmp/out, status in $rc
  (cd "$repo" && "$BIN" ab --base-ref HEAD --cand "$DIR/libsltest_slow0.so" \
    --threads 1 --budget 0.3 --no-db "$CASE") >"$tmp/out" 2>&1
  rc=$?
}
loaded() { awk '$1 == "base" { print $2; exit }' "$tmp/out"; }

# 1. An entry of the same commit made by another build (keyed by the commit
#    alone, as every build's was), holding another library: not reused.
other=$tmp/cache/ab/$sha/build
mkdir -p "$other"
cp "$DIR/libsltest_slow100.so" "$other/libscatterlab_kernels.so.$abi"
base_ref
check "first run: exit 0 or 1" status_in 0 1
check "first run: built, not the other build's entry" says "base: building the kernels of"
lib=$(loaded)
check "the library loaded is not the other build's ($lib)" \
  test -n "$lib" -a "${lib#"$other"}" = "$lib"
entry=$(dirname "$lib")
check "the entry records the build's options" \
  grep -q -- "-DCMAKE_BUILD_TYPE=" "$entry/options.txt"
check "... the flags among them" grep -q -- "-DCMAKE_C_FLAGS" "$entry/options.txt"
base_ref
check "second run: reused" says "built before"

# 2. The copy cut short (a full disk, a killed copy): built again, not
#    loaded (it died of SIGBUS on every run).
truncate -s 4096 "$lib"
base_ref
check "truncated: exit 0 or 1" status_in 0 1
check "truncated: named, with its size" says "got 4096 bytes"
check "truncated: built again" says "building it again"

# 3. A link planted at the copy: not followed, built again.
rm -f "$lib"
ln -s "$DIR/libsltest_slow100.so" "$lib"
base_ref
check "link: exit 0 or 1" status_in 0 1
check "link: named" says "got a symbolic link"
check "link: a regular file again" test -f "$lib" -a ! -L "$lib"

# 4. An entry that others can write: refused before anything is loaded.
chmod 0777 "$entry"
base_ref
check "writable by others: exit 2" status_in 2
check "writable by others: says why" says "only you can write, got one of uid"
chmod 0700 "$entry"
if [ "$(id -u)" = 0 ]; then
  chown 65534 "$entry"
  base_ref
  check "someone else's entry: exit 2" status_in 2
  check "someone else's entry: names the owner" says "got one of uid 65534"
  chown 0 "$entry"
fi
base_ref
check "restored: reused" says "built before"

echo "$((checks - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
