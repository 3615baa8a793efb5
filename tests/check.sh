# Shared by the test scripts (source it after `set -u`): a scratch folder
# removed on exit, check DESCRIPTION COMMAND... which counts and reports,
# and finish, which prints the tally and exits 1 when any check failed.
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
