# Shared by the test scripts (source it after `set -u`): a scratch folder
# removed on exit, check DESCRIPTION COMMAND... which counts and reports
# (the script ends with the tally: "N passed, M failed" and exit 1 when any
# failed), and for scripts that drive $BIN: run EXPECTED_STATUS ARGS...
# (output in $tmp/out), has REGEX and hasnt REGEX (on that output).
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0 checks=0
check() { # check DESCRIPTION COMMAND...
  local what=$1
  shift
  checks=$((checks + 1))
  if ! "$@"; then
    echo "FAIL: $what"
    fails=$((fails + 1))
  fi
}
run() { # run EXPECTED_STATUS ARGS... ; output in $tmp/out
  local want=$1
  shift
  "$BIN" "$@" >"$tmp/out" 2>&1
  local got=$?
  if [ "$got" != "$want" ]; then
    echo "exit status $got, expected $want: scatterlab $*"
    cat "$tmp/out"
    return 1
  fi
}
has() { grep -qE -- "$1" "$tmp/out" || { echo "missing /$1/:"; cat "$tmp/out"; return 1; }; }
hasnt() { ! grep -qE -- "$1" "$tmp/out" || { echo "unexpected /$1/:"; cat "$tmp/out"; return 1; }; }
