#!/usr/bin/env bash
# Two builds of one provider side by side (twin.c): libsltest_twin_a.so and
# libsltest_twin_b.so export the same symbols, and differ only in what their
# exported twin_offset() returns (0 and 1). Loaded under the aliases a and b,
# a's gather (x + 0) must pass and b's (x + 1) must fail: b bound to a's
# twin_offset, as with RTLD_GLOBAL, would pass too. Also: the alias replaces
# the provider's own name ("twin") as the prefix.
#
# usage: twins.sh SCATTERLAB FIXTURE_DIR
set -u
BIN=$1
A=$2/libsltest_twin_a.so
B=$2/libsltest_twin_b.so
. "$(dirname "$0")/../check.sh"
show() { sed 's/^/  | /' "$tmp/out" | head -30; }
status_is() { # status_is WANT WHAT
  [ "$rc" = "$1" ] && return
  echo "  $2: exit status $rc, expected $1"
  show
  return 1
}
verdict_is() { # verdict_is VARIANT VERDICT [COUNT]: COUNT lines (default 1)
  local n
  n=$(awk -v v="$1" -v w="$2" '$1 == w && $2 == v' "$tmp/out" | wc -l)
  [ "$n" -eq "${3:-1}" ] && return
  echo "  expected ${3:-1} '$2' verdict(s) of $1, got $n:"
  show
  return 1
}
listed() { # listed VARIANT: a "gather VARIANT ..." line in list's output
  grep -qE "^gather +$1 " "$tmp/out" && return
  echo "  list shows no 'gather  $1' line:"
  show
  return 1
}
not_listed() { # not_listed TEXT
  ! grep -qF -- "$1" "$tmp/out" && return
  echo "  list shows '$1':"
  show
  return 1
}
for f in "$A" "$B"; do
  [ -f "$f" ] || { echo "FAIL: fixture $f not built"; exit 1; }
done

# The four dtypes the twins declare, on strided and broadcast inputs too.
CASES=('gather dt=f32 it=i64 x=4x3 index=2x3 dim=0 seed=1'
  'gather dt=f64 it=i32 x=5x6:t index=3x4 dim=1 seed=2'
  'gather dt=i32 it=i64 x=3x4x5 index=3x2x5 dim=1 seed=3'
  'gather dt=i64 it=i32 x=7 index=9 dim=0 seed=4'
  'gather dt=i32 it=i64 x=4x3:b index=2x3:s2 dim=1 seed=5')
N=${#CASES[@]}

# a first, then b; and b first, then a: neither order lets one library's
# symbol stand in for the other's.
for order in ab ba; do
  if [ $order = ab ]; then
    P=(--provider "a=$A" --provider "b=$B")
  else
    P=(--provider "b=$B" --provider "a=$A")
  fi
  "$BIN" run --no-db "${P[@]}" --variants a:cpu.gather,b:cpu.gather \
    "${CASES[@]}" >"$tmp/out" 2>&1
  rc=$?
  check "$order: run exits 1" status_is 1 "scatterlab run ${P[*]}"
  check "$order: a:cpu.gather passed all $N cases" verdict_is a:cpu.gather passed "$N"
  check "$order: b:cpu.gather failed all $N cases" verdict_is b:cpu.gather failed "$N"
done

# A dtype outside the twins' caps is unsupported, never run.
"$BIN" run --no-db --provider "a=$A" --provider "b=$B" \
  --variants a:cpu.gather,b:cpu.gather \
  'gather dt=i16 it=i64 x=4x3 index=2x3 dim=0 seed=1' >"$tmp/out" 2>&1
rc=$?
check "i16: a:cpu.gather unsupported" verdict_is a:cpu.gather unsupported
check "i16: b:cpu.gather unsupported" verdict_is b:cpu.gather unsupported

# list: both aliases, not the provider's own name.
"$BIN" list --provider "a=$A" --provider "b=$B" >"$tmp/out" 2>&1
rc=$?
check "list exits 0" status_is 0 "scatterlab list --provider a=... --provider b=..."
check "list shows a:cpu.gather" listed 'a:cpu\.gather'
check "list shows b:cpu.gather" listed 'b:cpu\.gather'
check "list does not show twin:cpu.gather" not_listed "twin:cpu.gather"
# Without an alias the provider's own name is the prefix.
"$BIN" list --provider "$A" >"$tmp/out" 2>&1
rc=$?
check "list without alias exits 0" status_is 0 "scatterlab list --provider $A"
check "list without alias shows twin:cpu.gather" listed 'twin:cpu\.gather'
# Two providers of one name need aliases: loading both twins without them
# would make two "twin:cpu.gather" variants.
"$BIN" list --provider "$A" --provider "$B" >"$tmp/out" 2>&1
rc=$?
check "two providers named twin without aliases: exits 2" status_is 2 "scatterlab list --provider $A --provider $B"
says_twin() {
  grep -q twin "$tmp/out" && ! grep -q unknown "$tmp/out" && return
  echo "  expected a message about twin (the name or a path), not an unknown option:"
  show
  return 1
}
check "two providers named twin without aliases: says why" says_twin

echo "$((checks - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
