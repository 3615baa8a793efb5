#!/usr/bin/env bash
# The provider ABI kept (issue 49): the layout of every type a provider sees,
# as libabigail reads it from the probe library (abi_probe.c), compared with
# the dump of the current SL_PROVIDER_ABI_VERSION kept here
# (sl_provider-v<N>.abi). A change of layout without a new version fails,
# naming the change; the additions docs/providers.md §9 allows within a
# version pass without a word (additions.abignore: fields appended to
# sl_provider, enumerators appended before a *_COUNT).
#
# Then the guard is checked against itself: a field inserted into sl_call in
# a copy of the headers must fail, a field appended to sl_provider must
# pass (the probe is recompiled with CC, default cc).
#
# usage: check_abi.sh PROBE_LIB            exit 0, 1 (changed), 77 (no abidiff)
#        check_abi.sh PROBE_LIB --update   writes the dump of this version:
#          after a version bump, or for an addition to the end of sl_call
#          (a new op's own parameters), which the dump must then show
set -u
here=$(cd "$(dirname "$0")" && pwd)
probe=${1:?usage: check_abi.sh PROBE_LIB [--update]}
include=$here/../include
supp=$here/additions.abignore
if ! command -v abidiff >/dev/null || ! command -v abidw >/dev/null; then
  echo "skipped: abidiff/abidw not installed (Debian abigail-tools, which scripts/setup-deps.sh installs)"
  exit 77
fi
version=$(sed -n 's/^#define SL_PROVIDER_ABI_VERSION \([0-9]*\)u$/\1/p' \
  "$include/sl/sl_provider.h")
[ -n "$version" ] || {
  echo "FAIL: no '#define SL_PROVIDER_ABI_VERSION Nu' in $include/sl/sl_provider.h"
  exit 1
}
dump=$here/sl_provider-v$version.abi
dump_of() { # dump_of LIB OUT: the layout, without paths
  abidw --no-corpus-path --no-comp-dir-path --short-locs --out-file "$2" "$1"
}

if [ "${2:-}" = --update ]; then
  dump_of "$probe" "$dump" && echo "wrote $dump (ABI version $version)"
  exit
fi
if [ ! -f "$dump" ]; then
  echo "FAIL: SL_PROVIDER_ABI_VERSION is $version, and core/abi has no dump of that version"
  echo "  (after a bump, record it: core/abi/check_abi.sh $probe --update)"
  exit 1
fi

fails=0
# abidiff's status: bit 2 (4) is an ABI change, bit 3 (8) an incompatible
# one; 1 and 2 are its own errors. Any of them fails here.
abidiff --suppressions "$supp" "$dump" "$probe" >/tmp/sl-abi.$$ 2>&1
rc=$?
if [ $rc = 0 ]; then
  echo "ok: the provider ABI's layout is version $version's ($(basename "$dump"))"
else
  echo "FAIL: the provider ABI changed without a new SL_PROVIDER_ABI_VERSION (still $version; abidiff exit $rc):"
  sed 's/^/  /' /tmp/sl-abi.$$
  echo "  Bump SL_PROVIDER_ABI_VERSION in core/include/sl/sl_provider.h and record"
  echo "  the new layout (check_abi.sh PROBE --update); an addition the rules of"
  echo "  docs/providers.md §9 allow at the end of sl_call needs --update alone."
  fails=1
fi
rm -f /tmp/sl-abi.$$

# The guard against itself, on copies of the headers.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
self_test() { # self_test LABEL WANT PYTHON-EDIT: edit, recompile, diff
  rm -rf "$tmp/include" && cp -r "$include" "$tmp/include"
  python3 - "$tmp/include" <<<"$3" || return 1
  "${CC:-cc}" -g -O0 -shared -fPIC -I"$tmp/include" "$here/abi_probe.c" \
    -Wl,-soname,libsl_abi_probe.so -o "$tmp/probe.so" || { echo "FAIL: $1: the probe did not compile"; fails=1; return; }
  abidiff --suppressions "$supp" "$dump" "$tmp/probe.so" >"$tmp/out" 2>&1
  local got=$?
  if { [ "$2" = same ] && [ $got = 0 ]; } || { [ "$2" = changed ] && [ $got != 0 ]; }; then
    echo "ok: guard: $1 reads $2"
  else
    echo "FAIL: guard: $1: expected $2, abidiff exit $got"
    sed 's/^/  /' "$tmp/out" | head -20
    fails=1
  fi
}
[ $rc = 0 ] || exit 1 # the self-test needs a dump that matches the headers
self_test "a field inserted into sl_call" changed '
import sys; p = sys.argv[1] + "/sl/sl.h"; t = open(p).read()
a = "  sl_params p;\n"
assert t.count(a) == 1
open(p, "w").write(t.replace(a, a + "  int inserted;\n"))'
self_test "a field appended to sl_provider" same '
import sys; p = sys.argv[1] + "/sl/sl_provider.h"; t = open(p).read()
a = "} sl_provider;"
assert t.count(a) == 1
open(p, "w").write(t.replace(a, "  int appended;\n" + a))'
self_test "an op appended before SL_OP_COUNT" same '
import sys; p = sys.argv[1] + "/sl/sl.h"; t = open(p).read()
a = "      SL_OP_COUNT\n"
assert t.count(a) == 1
open(p, "w").write(t.replace(a, "      SL_OP_APPENDED,\n" + a))'
self_test "an op inserted before the first" changed '
import sys; p = sys.argv[1] + "/sl/sl.h"; t = open(p).read()
a = "  SL_OP_MAP(SL__OP_ENUM)\n"
assert t.count(a) == 1
open(p, "w").write(t.replace(a, "  SL_OP_INSERTED,\n" + a))'
exit $fails
