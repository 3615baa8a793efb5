#!/usr/bin/env bash
# The provider loader refuses a bad library as a whole: usage error (exit 2),
# a message on stderr that names the file and the fault, nothing of it
# loaded, nothing recorded. Fixtures: errors.c (one table fault each), a
# path that does not exist, a text file, a library cut short and one with
# garbage headers.
#
# usage: loader_errors.sh SCATTERLAB FIXTURE_DIR
set -u
BIN=$1
DIR=$2
. "$(dirname "$0")/../check.sh"
show() { # the command's output, indented
  sed 's/^/  | /' "$tmp/err" | head -20
  [ -s "$tmp/out" ] && { echo "  stdout:"; sed 's/^/  | /' "$tmp/out" | head -20; }
}
# sl ARGS...: runs scatterlab; stdout in $tmp/out, stderr in $tmp/err,
# status in $rc.
sl() {
  "$BIN" "$@" >"$tmp/out" 2>"$tmp/err"
  rc=$?
}
status_is() { # status_is WANT WHAT
  [ "$rc" = "$1" ] && return
  echo "  $2: exit status $rc, expected $1"
  show
  return 1
}
err_has() { # err_has TEXT (fixed string, case-sensitive)
  grep -qF -- "$1" "$tmp/err" && return
  echo "  stderr lacks '$1':"
  show
  return 1
}
err_lacks() { # err_lacks TEXT: e.g. "unknown" for an option it must know
  ! grep -qF -- "$1" "$tmp/err" && return
  echo "  stderr has '$1':"
  show
  return 1
}
# err_says -F|-i PATH TEXT: TEXT (a fixed string; -i: in any case) on stderr
# outside the occurrences of PATH, which may contain TEXT itself
# ("libsltest_badname.so" holds "name").
err_says() {
  local opts=-qF path=$2 text=$3 rest
  [ "$1" = -i ] && opts=-qiF
  rest=$(<"$tmp/err")
  rest=${rest//"$path"/<path>}
  grep "$opts" -- "$text" <<<"$rest" && return
  echo "  stderr lacks '$text' (besides the path):"
  show
  return 1
}
no_store() { # no_store PATH
  [ ! -e "$1" ] && return
  echo "  $1 was created"
  return 1
}
no_broken_listed() { # nothing of a good provider given beside a bad one
  ! grep -q 'broken:' "$tmp/out" && return
  echo "  stdout lists broken's variants:"
  show
  return 1
}
for f in noentry abi1 dup badcaps badname mismatch upper nullfn; do
  [ -f "$DIR/libsltest_$f.so" ] || { echo "FAIL: fixture $DIR/libsltest_$f.so not built"; exit 1; }
done

echo "this is not a shared library" >"$tmp/notalib.so"
# A library cut short (a copy or link that did not finish) and one whose
# headers are garbage past an intact ELF header: dlopen() died of SIGBUS or
# SIGSEGV on them, with no message (issue 48).
good=$DIR/libsltest_broken.so
size=$(stat -c %s "$good")
head -c $((size / 2)) "$good" >"$tmp/truncated.so"
{ head -c 64 "$good"; head -c $((size - 64)) /dev/zero | tr '\0' '\377'; } >"$tmp/garbage.so"
CASE='gather dt=f32 it=i64 x=4x3 index=2x3 dim=0 seed=1'

# NAME PATH FRAGMENT...: what stderr must hold besides the path. The
# fragments after the first name the offending variant where there is one.
cases=(
  "missing|$tmp/none/libmissing.so|no such file"
  "text file|$tmp/notalib.so|cannot load"
  "truncated|$tmp/truncated.so|cannot load: cut short"
  "garbage|$tmp/garbage.so|cannot load"
  "noentry|$DIR/libsltest_noentry.so|sl_provider_entry"
  "abi1|$DIR/libsltest_abi1.so|ABI version: expected 2, got 1"
  "dup|$DIR/libsltest_dup.so|duplicate variant|cpu.twice"
  "badcaps|$DIR/libsltest_badcaps.so|caps.reduces|cpu.noreduce"
  "badname|$DIR/libsltest_badname.so|name|gpu.x"
  "mismatch|$DIR/libsltest_mismatch.so|name|cuda.x"
  "upper|$DIR/libsltest_upper.so|name|cpu.Gather"
  "nullfn|$DIR/libsltest_nullfn.so|fn|cpu.nofn"
)
for c in "${cases[@]}"; do
  IFS='|' read -r -a part <<<"$c"
  name=${part[0]} path=${part[1]}
  # list: refused, with the path and the fault.
  sl list --provider "$path"
  check "$name: list exits 2" status_is 2 "scatterlab list --provider $path"
  check "$name: list names the file" err_has "$path"
  if [ "$name" = missing ]; then
    check "$name: list says no such file" err_says -i "$path" "${part[2]}"
  else
    for frag in "${part[@]:2}"; do
      check "$name: list says '$frag'" err_says -F "$path" "$frag"
    done
  fi
  # Beside a good provider: still refused as a whole, nothing listed.
  sl list --provider "$DIR/libsltest_broken.so" --provider "$path"
  check "$name: list with a good provider first exits 2" status_is 2 "scatterlab list --provider broken --provider $path"
  check "$name: list with a good provider first lists nothing" no_broken_listed
  # run: refused before the store is opened.
  sl run --db "$tmp/x.db" --provider "$path" "$CASE"
  check "$name: run exits 2" status_is 2 "scatterlab run --db x.db --provider $path"
  check "$name: run names the file" err_has "$path"
  check "$name: run writes no store" no_store "$tmp/x.db"
  rm -f "$tmp/x.db"
done

# The environment variable: the same refusal, naming where the path came
# from.
missing=$tmp/none/libenv.so
SCATTERLAB_PROVIDERS=$missing sl list
check "SCATTERLAB_PROVIDERS missing: list exits 2" status_is 2 "SCATTERLAB_PROVIDERS=$missing scatterlab list"
check "SCATTERLAB_PROVIDERS missing: names the variable" err_has SCATTERLAB_PROVIDERS
check "SCATTERLAB_PROVIDERS missing: names the file" err_has "$missing"
SCATTERLAB_PROVIDERS="$DIR/libsltest_broken.so:$missing" sl run --db "$tmp/x.db" "$CASE"
check "SCATTERLAB_PROVIDERS good:missing: run exits 2" status_is 2 "SCATTERLAB_PROVIDERS=broken:$missing scatterlab run"
check "SCATTERLAB_PROVIDERS good:missing: names the variable" err_has SCATTERLAB_PROVIDERS
check "SCATTERLAB_PROVIDERS good:missing: run writes no store" no_store "$tmp/x.db"
rm -f "$tmp/x.db"

# Malformed --provider values: usage errors naming the option.
sl list --provider ''
check "--provider '': exits 2" status_is 2 "scatterlab list --provider ''"
check "--provider '': names the option" err_has "--provider"
check "--provider '': the option is known" err_lacks "unknown"
sl list --provider "=$DIR/libsltest_broken.so"
check "--provider =PATH: exits 2" status_is 2 "scatterlab list --provider =PATH"
check "--provider =PATH: names the option" err_has "--provider"
check "--provider =PATH: the option is known" err_lacks "unknown"
sl list --provider
check "--provider without a value: exits 2" status_is 2 "scatterlab list --provider"
check "--provider without a value: names the option" err_has "--provider"
check "--provider without a value: the option is known" err_lacks "unknown"

# The control: the fixtures' good neighbour loads, so the refusals above
# are about the faults, not about loading providers at all.
sl list --provider "$DIR/libsltest_broken.so"
check "control: list --provider broken exits 0" status_is 0 "scatterlab list --provider libsltest_broken.so"
lists_ok() {
  grep -qE '^gather +broken:cpu\.ok ' "$tmp/out" && return
  echo "  no 'gather  broken:cpu.ok' line:"
  show
  return 1
}
check "control: list shows broken:cpu.ok" lists_ok

echo "$((checks - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
