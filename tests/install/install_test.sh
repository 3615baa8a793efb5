#!/usr/bin/env bash
# The acceptance test of `cmake --install` and of the provider workflow as a
# kernel author lives it (examples/provider/README.md):
#
#   1. install the build into a fresh prefix;
#   2. configure and build examples/provider out of tree with
#      -DCMAKE_PREFIX_PATH=<prefix> and nothing else, and check that its
#      compile and link lines use the installed headers and mention neither
#      LibTorch nor SQLite;
#   3. fuzz the example's variants with the installed CLI: exit 1, the
#      planted bug (cpu.planted_min) reported and shrunk to a case of at
#      most 8 elements per tensor whose repro line loads the provider (and
#      fails again when run), the two correct variants never failing (also
#      in a campaign of their own, which must exit 0);
#   4. `list --provider` shows minlib and its capabilities;
#   5. `pkg-config --cflags scatterlab` works on the prefix (skipped
#      without pkg-config).
#
# usage: install_test.sh BUILD_DIR SOURCE_DIR
# exit: 0 pass, 1 fail, 77 skip (no cmake/C compiler for the example).
set -u
BUILD=${1:?usage: install_test.sh BUILD_DIR SOURCE_DIR}
SRC=${2:?usage: install_test.sh BUILD_DIR SOURCE_DIR}
# The provider ABI version the installed headers must announce.
ABI=$(sed -n 's/^#define SL_PROVIDER_ABI_VERSION \([0-9]*\)u$/\1/p' \
  "$SRC/core/include/sl/sl_provider.h")
FUZZ_SECONDS=${SL_INSTALL_TEST_SECONDS:-10}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0 checks=0
check() { # check DESCRIPTION COMMAND...
  local what=$1
  shift
  checks=$((checks + 1))
  if "$@"; then
    echo "ok:   $what"
  else
    echo "FAIL: $what"
    fails=$((fails + 1))
  fi
}
show() { # show FILE: its last lines, indented
  tail -n "${2:-25}" "$1" | sed 's/^/  | /'
}
finish() {
  echo "$((checks - fails)) passed, $fails failed"
  [ "$fails" -eq 0 ] && exit 0
  exit 1
}

command -v cmake >/dev/null || { echo "SKIP: no cmake"; exit 77; }
[ -f "$BUILD/cmake_install.cmake" ] || {
  echo "FAIL: $BUILD is not a configured scatterlab build (no cmake_install.cmake)"
  exit 1
}
[ -f "$SRC/examples/provider/CMakeLists.txt" ] || {
  echo "FAIL: $SRC has no examples/provider/CMakeLists.txt"
  exit 1
}
# Nothing from the environment may point the example at other packages:
# the prefix must be enough.
unset CMAKE_PREFIX_PATH scatterlab_DIR PKG_CONFIG_PATH SCATTERLAB_PROVIDERS

# 1. Install.
prefix=$tmp/prefix
cmake --install "$BUILD" --prefix "$prefix" >"$tmp/install.log" 2>&1
rc=$?
installed() {
  [ "$rc" = 0 ] || { show "$tmp/install.log"; return 1; }
  local f missing=0
  for f in bin/scatterlab include/sl/sl.h include/sl/sl_provider.h \
    lib/cmake/scatterlab/scatterlabConfig.cmake \
    lib/cmake/scatterlab/scatterlabConfigVersion.cmake \
    lib/pkgconfig/scatterlab.pc; do
    [ -e "$prefix/$f" ] || { echo "  missing $prefix/$f"; missing=1; }
  done
  ls "$prefix"/lib/libscatterlab_kernels.so.[0-9]* >/dev/null 2>&1 ||
    { echo "  missing $prefix/lib/libscatterlab_kernels.so.<abi>"; missing=1; }
  [ -L "$prefix/lib/libscatterlab_kernels.so" ] ||
    { echo "  missing the link $prefix/lib/libscatterlab_kernels.so"; missing=1; }
  return "$missing"
}
check "cmake --install $BUILD --prefix <tmp>/prefix installs the CLI, library, headers, package and .pc" installed
[ -x "$prefix/bin/scatterlab" ] || finish
SL=$prefix/bin/scatterlab

# 2. The example, out of tree, against the prefix alone.
ex=$tmp/ex
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
cmake -S "$SRC/examples/provider" -B "$ex" "${gen[@]}" \
  -DCMAKE_PREFIX_PATH="$prefix" >"$tmp/configure.log" 2>&1
rc=$?
if [ "$rc" != 0 ] && grep -qE 'No CMAKE_C_COMPILER|Could NOT find OpenMP' \
  "$tmp/configure.log"; then
  show "$tmp/configure.log"
  echo "SKIP: no C compiler with OpenMP for the example"
  exit 77
fi
configured() {
  [ "$rc" = 0 ] || { show "$tmp/configure.log"; return 1; }
  # The package came from the prefix, not from a build tree or elsewhere.
  grep -qF "from $prefix/lib/cmake/scatterlab" "$tmp/configure.log" && return
  echo "  the example did not report scatterlab from $prefix:"
  show "$tmp/configure.log"
  return 1
}
check "examples/provider configures with -DCMAKE_PREFIX_PATH=<prefix> only" configured
cmake --build "$ex" --verbose >"$tmp/build.log" 2>&1
rc=$?
built() {
  [ "$rc" = 0 ] && [ -f "$ex/libminlib.so" ] && return
  echo "  build exit $rc, libminlib.so $([ -f "$ex/libminlib.so" ] && echo present || echo absent):"
  show "$tmp/build.log"
  return 1
}
check "examples/provider builds libminlib.so" built
[ -f "$ex/libminlib.so" ] || finish
# The compile and link lines: the compiler and linker invocations of the
# verbose build, those with an output (-o) naming minlib.c or libminlib.so
# (make's "Building C object ..." status lines have no -o).
grep -E 'minlib\.c|libminlib\.so' "$tmp/build.log" | grep -E ' -o ' >"$tmp/lines"
lines_use_prefix() {
  [ -s "$tmp/lines" ] || { echo "  no compile line in the verbose build:"; show "$tmp/build.log"; return 1; }
  grep -qF -- "$prefix/include" "$tmp/lines" && return
  echo "  no -I/-isystem $prefix/include in:"
  show "$tmp/lines"
  return 1
}
check "the example compiles against <prefix>/include" lines_use_prefix
lines_clean() {
  ! grep -qiE 'torch|c10|sqlite' "$tmp/lines" && return
  echo "  LibTorch or SQLite on the example's compile/link lines:"
  grep -iE 'torch|c10|sqlite' "$tmp/lines" | sed 's/^/  | /'
  return 1
}
check "the example's compile and link lines mention neither LibTorch nor SQLite" lines_clean

# 3. Fuzz the three variants with the installed CLI, from a folder of the
#    user's: without --corpus the failures land in ./out/corpus (an
#    installed CLI's default), not in the source tree it was built from.
mkdir -p "$tmp/work"
src_corpus_before=$(ls "$SRC/fuzz/corpus" | wc -l)
(cd "$tmp/work" && env -u SCATTERLAB_CORPUS "$SL" fuzz --no-db \
  --provider "$ex/libminlib.so" --variants 'minlib:*' \
  --ops scatter_reduce --seconds "$FUZZ_SECONDS" --seed 3) >"$tmp/fuzz.out" 2>&1
rc=$?
corpus_in_cwd() {
  grep -lq 'minlib:cpu.planted_min' "$tmp/work/out/corpus/"*.txt 2>/dev/null && return
  echo "  no corpus entry naming minlib:cpu.planted_min in $tmp/work/out/corpus:"
  ls -la "$tmp/work/out/corpus" 2>&1 | sed 's/^/  | /'
  return 1
}
check "the installed CLI's corpus is ./out/corpus" corpus_in_cwd
check "the source tree's fuzz/corpus is untouched" \
  test "$(ls "$SRC/fuzz/corpus" | wc -l)" = "$src_corpus_before"
check "fuzz 'minlib:*' exits 1 (got $rc)" test "$rc" = 1
planted_reported() {
  grep -qE '^FAIL [a-z_]+ minlib:cpu\.planted_min$' "$tmp/fuzz.out" && return
  echo "  no 'FAIL ... minlib:cpu.planted_min' line:"
  show "$tmp/fuzz.out"
  return 1
}
check "fuzz reports minlib:cpu.planted_min failing" planted_reported
good_never_fail() {
  ! grep -E '^FAIL ' "$tmp/fuzz.out" | grep -qvE ' minlib:cpu\.planted_min$' && return
  echo "  other FAIL lines:"
  grep -E '^FAIL ' "$tmp/fuzz.out" | grep -vE ' minlib:cpu\.planted_min$' | sort | uniq -c | sed 's/^/  | /'
  return 1
}
check "fuzz reports no failure of minlib:cpu.atomic_min or minlib:cpu.lock_min" good_never_fail
# The minimal repro lines of the planted variant:
#   minimal: scatterlab run 'CASE' --variants minlib:cpu.planted_min --provider minlib=PATH
grep -E "^ +minimal: scatterlab run '.*' .*--variants minlib:cpu\.planted_min" \
  "$tmp/fuzz.out" | sed 's/^ *minimal: //' >"$tmp/minimal"
# elems CASE_LINE: the largest element count of its tensors (NAME=SHAPE,
# "scalar" = 1 element), or 999999 when it names none.
elems() {
  local tok shape n max=-1 d
  for tok in $1; do
    case $tok in
    x=* | index=* | src=*) ;;
    *) continue ;;
    esac
    shape=${tok#*=}
    shape=${shape%%:*}
    n=1
    if [ "$shape" != scalar ]; then
      IFS=x read -r -a dims <<<"$shape"
      for d in "${dims[@]}"; do n=$((n * d)); done
    fi
    [ "$n" -gt "$max" ] && max=$n
  done
  [ "$max" -lt 0 ] && max=999999
  echo "$max"
}
small=
while IFS= read -r line; do
  case_line=$(sed -E "s/^scatterlab run '([^']*)'.*/\1/" <<<"$line")
  if [ "$(elems "$case_line")" -le 8 ]; then
    small=$line
    break
  fi
done <"$tmp/minimal"
shrunk() {
  [ -n "$small" ] && { echo "  $small"; return 0; }
  echo "  no minimal repro of minlib:cpu.planted_min with <= 8 elements per tensor among $(wc -l <"$tmp/minimal") lines:"
  show "$tmp/minimal" 10
  return 1
}
check "planted_min is shrunk to a case of at most 8 elements per tensor" shrunk
# By a path relative to the folder the campaign ran in, where it pastes.
repro_has_provider() {
  [ -n "$small" ] && grep -qE -- "--provider [a-z0-9_]+=\.\./ex/libminlib\.so" <<<"$small" && return
  echo "  repro line lacks --provider ...=../ex/libminlib.so: '$small'"
  return 1
}
check "the repro line loads the provider (--provider)" repro_has_provider
# The repro as printed, with the installed CLI for `scatterlab`: it fails
# again (exit 1) with the planted variant failed.
repro_fails() {
  [ -n "$small" ] || return 1
  (cd "$tmp/work" && eval "\"\$SL\" ${small#scatterlab }") >"$tmp/repro.out" 2>&1
  local r=$?
  [ "$r" = 1 ] && grep -qE '^failed +minlib:cpu\.planted_min ' "$tmp/repro.out" && return
  echo "  repro exit $r:"
  show "$tmp/repro.out"
  return 1
}
check "the repro line, run, fails again" repro_fails
# The correct variants alone: a campaign of their own passes.
"$SL" fuzz --no-db --no-corpus --provider "$ex/libminlib.so" \
  --variants 'minlib:cpu.atomic_min,minlib:cpu.lock_min' --ops scatter_reduce \
  --seconds "$(((FUZZ_SECONDS + 1) / 2))" --seed 4 >"$tmp/fuzz_good.out" 2>&1
rc=$?
good_alone() {
  [ "$rc" = 0 ] && return
  echo "  exit $rc:"
  grep -E '^FAIL' -A3 "$tmp/fuzz_good.out" | head -20 | sed 's/^/  | /'
  show "$tmp/fuzz_good.out" 8
  return 1
}
check "fuzz of atomic_min and lock_min alone exits 0" good_alone

# 4. list --provider.
"$SL" list --provider "$ex/libminlib.so" --op scatter_reduce >"$tmp/list.out" 2>&1
rc=$?
listed() {
  local ok=0 v
  [ "$rc" = 0 ] || { echo "  exit $rc"; ok=1; }
  grep -qE "^  minlib: .*libminlib\.so$" "$tmp/list.out" ||
    { echo "  no provider line 'minlib: PATH'"; ok=1; }
  grep -qE "^    ABI $ABI, version 1\.0, 3 variants, sha256 [0-9a-f]{64}$" "$tmp/list.out" ||
    { echo "  no 'ABI $ABI, version 1.0, 3 variants, sha256 ...' line"; ok=1; }
  for v in atomic_min planted_min; do
    grep -qE "minlib:cpu\.$v +dtypes i32,i64,f32,f64; index all; reduces amin; include_self 0,1; max_rank 8; layouts strided,broadcast$" \
      "$tmp/list.out" || { echo "  no capabilities line of minlib:cpu.$v"; ok=1; }
  done
  grep -qE 'minlib:cpu\.lock_min +dtypes i32,i64,f32,f64; index all; reduces amin; include_self 0,1; max_rank 8; layouts contiguous' \
    "$tmp/list.out" || { echo "  no capabilities line of minlib:cpu.lock_min"; ok=1; }
  [ "$ok" = 0 ] || show "$tmp/list.out" 30
  return "$ok"
}
check "list --provider shows minlib, its 3 variants and their capabilities" listed

# 5. pkg-config.
if command -v pkg-config >/dev/null; then
  cflags=$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags scatterlab 2>&1)
  cflags=${cflags%% }
  rc=$?
  abi=$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --variable=provider_abi scatterlab 2>&1)
  pc_ok() {
    [ "$rc" = 0 ] || { echo "  pkg-config: $cflags"; return 1; }
    local dir=${cflags#-I}
    dir=${dir%% *}
    [ -f "$dir/sl/sl_provider.h" ] && [ "$abi" = "$ABI" ] && return
    echo "  --cflags '$cflags' (no sl/sl_provider.h there?), provider_abi '$abi'"
    return 1
  }
  check "pkg-config --cflags scatterlab gives the installed headers ($cflags), provider_abi $abi" pc_ok
else
  echo "skip: pkg-config not installed, pkg-config check not run"
fi

# 6. The CUDA example compiles against the prefix wherever nvcc is found
# (it runs only where a GPU is): built for sm_90, loaded by `list`, which
# says whether it can run here.
nvcc=$(command -v nvcc || true)
[ -z "$nvcc" ] && [ -x /usr/local/cuda/bin/nvcc ] && nvcc=/usr/local/cuda/bin/nvcc
if [ -n "$nvcc" ]; then
  cuda_built() {
    cmake -S "$SRC/examples/provider/cuda" -B "$tmp/exc" \
      -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_CUDA_COMPILER="$nvcc" \
      >"$tmp/exc.log" 2>&1 && cmake --build "$tmp/exc" >>"$tmp/exc.log" 2>&1 ||
      { show "$tmp/exc.log"; return 1; }
  }
  check "examples/provider/cuda builds libminlib_cuda.so with nvcc" cuda_built
  cuda_listed() {
    "$prefix/bin/scatterlab" list --provider "$tmp/exc/libminlib_cuda.so" \
      >"$tmp/listc.out" 2>&1 &&
      grep -qE '^scatter_reduce +minlibcuda:cuda\.atomic_min ' "$tmp/listc.out" ||
      { show "$tmp/listc.out"; return 1; }
  }
  check "list --provider shows minlibcuda:cuda.atomic_min" cuda_listed
else
  echo "skip: no nvcc, the CUDA example not built"
fi

finish
